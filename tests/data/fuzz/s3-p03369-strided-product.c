/* polysched fuzz repro: wrong in mode tensorize (scheduler=pluto fuse=cost tile=True parallel=True)
   output differs (1 thread): 2 lines differ, first at line 8: expected 'A 1 2 -0.625', got 'A 1 2 -0.421875'
   shrunk from s3-p03369.c in 123 evaluations */
/* polysched fuzz (generator v2): seed 3, program 3369 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double A[4][5];
double C[4][5];

static void kernel(void)
{
  int j, k, l;
  j = -7; k = -7; l = -7;
#pragma scop
  for (j = 0; j <= 1; j++) {
    for (k = 0; k <= 1; k++) {
      for (l = 0; l <= 2; l += 2) {
        A[j + 1][l + 1] += C[j + 1][k + 2] * C[k + 1][l + 1];
      }
    }
  }
#pragma endscop
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 4; a0++) for (a1 = 0; a1 < 5; a1++) A[a0][a1] = (double)((a0 * 7 + a1 * 3 + 1) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 4; a0++) for (a1 = 0; a1 < 5; a1++) C[a0][a1] = (double)((a0 * 7 + a1 * 3 + 2) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 4; a0++) for (a1 = 0; a1 < 5; a1++) printf("A %ld %ld %.17g\n", a0, a1, A[a0][a1]);
  return 0;
}
