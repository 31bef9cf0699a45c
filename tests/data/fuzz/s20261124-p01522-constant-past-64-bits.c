/* polysched fuzz repro: crash in mode isl-no (scheduler=isl fuse=no)
   TypeError: __init__(): incompatible function arguments. The following argument types are supported:
   shrunk from s20261124-p01522.c in 157 evaluations */
/* polysched fuzz (generator v5): seed 20261124, program 1522 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

int A[8];
int B[5][10];

static void kernel(long n, long m)
{
  int i, k, l;
  i = -7; k = -7; l = -7;
#pragma scop
  for (i = 0; i <= 2; i++) {
    for (k = 0; k <= 1; k++) {
      for (l = n; l >= 1; l--) {
        B[l][i + 6] = ((A[i + 1] % 1009) + 1) % 1009;
        A[i + 1] = ((A[3] % 1009) + 6) % 1009;
      }
    }
    B[3][i - m + 6] += ((A[3] % 1009) - (A[6] % 1009) + 7) % 1009;
  }
#pragma endscop
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 8; a0++) A[a0] = (int)((a0 * 7 + 2) % 17) - 8;
  for (a0 = 0; a0 < 5; a0++) for (a1 = 0; a1 < 10; a1++) B[a0][a1] = (int)((a0 * 7 + a1 * 3 + 3) % 17) - 8;
  kernel(3L, 5L);
  for (a0 = 0; a0 < 8; a0++) printf("A %ld %d\n", a0, A[a0]);
  for (a0 = 0; a0 < 5; a0++) for (a1 = 0; a1 < 10; a1++) printf("B %ld %ld %d\n", a0, a1, B[a0][a1]);
  return 0;
}
