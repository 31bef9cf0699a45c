/* polysched fuzz (generator v2): seed 3, program 164 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double B[11][12];
double C[13][16];

static void kernel(size_t n, size_t m)
{
  size_t i, j, k, l;
  double s0 = 0.5;
  i = 7; j = 7; k = 7; l = 7;
#pragma scop
  for (i = 1; i < 5; i++) {
    for (j = 6; j >= 2; j--) {
      B[j + 2][i] = 0.75 * s0 + 0.125 * (double)(i % 5) + 0.5;
      for (k = 1; k <= 5; k += 2) {
        for (l = 0; l < 4; l += 2) {
          B[j + 1][i + 2] += C[j + 2][l + 4] * B[l + 1][i + 1];
        }
      }
      for (k = 0; k <= 4; k++) {
        B[j + 3][2 * k + 2] = 0.25 * B[j + 3][k + 2] + 1.5 * C[k + 4][j - m + 2] - 0.25;
        C[k + 3][5] = 0.75 * C[k + 4][j - n + 6] + 0.75 * C[k + 2][j + k + 4] + 2.0;
        B[j + 2][k + 2] += C[j + 4][i + 4] * C[i + 4][k + 4];
      }
    }
  }
  for (i = 0; i <= 2; i++) {
    for (j = 0; j < i + 1; j++) {
      s0 = 0.5 * C[j + 1][i + m + 6] + 0.125 * (double)(j % 5) + 1.0;
      for (k = j; k <= 7; k++) {
        C[k + 3][i + 4] += C[k + 3][j + 4] * B[j + 1][i + 2];
        C[k + 4][j + 4] += C[k + 3][i + 4] * B[i + 1][j + 1];
      }
    }
  }
#pragma endscop
  printf("s0 %.17g\n", s0);
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 11; a0++) for (a1 = 0; a1 < 12; a1++) B[a0][a1] = (double)((a0 * 7 + a1 * 3 + 1) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 13; a0++) for (a1 = 0; a1 < 16; a1++) C[a0][a1] = (double)((a0 * 7 + a1 * 3 + 2) % 13) * 0.125 - 0.75;
  kernel((size_t)4, (size_t)3);
  for (a0 = 0; a0 < 11; a0++) for (a1 = 0; a1 < 12; a1++) printf("B %ld %ld %.17g\n", a0, a1, B[a0][a1]);
  for (a0 = 0; a0 < 13; a0++) for (a1 = 0; a1 < 16; a1++) printf("C %ld %ld %.17g\n", a0, a1, C[a0][a1]);
  return 0;
}
