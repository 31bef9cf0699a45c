/* polysched fuzz (generator v8): seed 20261128, program 3690 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

int A[11][255];
double C[8][11];

static void kernel(void)
{
  int i, j, k, l, p;
  i = -7; j = -7; k = -7; l = -7; p = -7;
#pragma scop
  for (i = 1; i <= 2; i++) {
    for (j = 0; j <= i + 3; j++) {
      for (k = j + 1; k <= j + 2; k++) {
        for (l = i + 2; l <= i + 3; l++) {
          for (p = 0; p != 1; p++) {
            A[p + 2][i + 2] = (3 * (A[l - 2][j + 1] % 1009) + (A[k + i][p + 253] % 1009) + 1) % 1009;
            C[l][k + 1] += C[l + 1][p + 1] * C[p + 1][k + 2];
          }
        }
      }
    }
  }
#pragma endscop
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 11; a0++) for (a1 = 0; a1 < 255; a1++) A[a0][a1] = (int)((a0 * 7 + a1 * 3 + 2) % 17) - 8;
  for (a0 = 0; a0 < 8; a0++) for (a1 = 0; a1 < 11; a1++) C[a0][a1] = (double)((a0 * 7 + a1 * 3 + 2) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 11; a0++) for (a1 = 0; a1 < 255; a1++) printf("A %ld %ld %d\n", a0, a1, A[a0][a1]);
  for (a0 = 0; a0 < 8; a0++) for (a1 = 0; a1 < 11; a1++) printf("C %ld %ld %.17g\n", a0, a1, C[a0][a1]);
  return 0;
}
