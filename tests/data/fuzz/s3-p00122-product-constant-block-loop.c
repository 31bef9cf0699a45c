/* polysched fuzz (generator v2): seed 3, program 122 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double A[3][6];
double B[3][3];
double C[3][3];

static void kernel(size_t n, double x[3][6], double y[3][3], double z[3][3])
{
  size_t i, j, k;
  i = 7; j = 7; k = 7;
#pragma scop
  for (i = 0; i <= 2; i += 2) {
    for (j = n; j <= n + 2; j++) {
      if (i >= n - 1 && (j) % 2 == 1) {
        for (k = 0; k < n + 1; k++) {
          z[k - 1][-j - 1] = 0.25 * z[k + 1][2] + 0.5 * x[k - 4][i + 3] + 0.75 * z[i - n + 1][k - i] - 0.25;
          x[j - 3][i + 4] += z[j + 1][k + 1] * y[k + 1][i];
        }
      }
    }
    for (j = MIN(MIN(7, n + 1), i); j >= MAX(n - 2, i); j--) {
      x[i - 1][j - n + 6] = 1.5 * x[j - 1][i - n + 3] + 0.125 * (double)(i % 5) + 2.0;
    }
  }
#pragma endscop
  printf("i %lu\n", (unsigned long)i);
  printf("j %lu\n", (unsigned long)j);
  printf("k %lu\n", (unsigned long)k);
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 6; a1++) A[a0][a1] = (double)((a0 * 7 + a1 * 3 + 1) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 3; a1++) B[a0][a1] = (double)((a0 * 7 + a1 * 3 + 2) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 3; a1++) C[a0][a1] = (double)((a0 * 7 + a1 * 3 + 3) % 13) * 0.125 - 0.75;
  kernel((size_t)4, A, B, C);
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 6; a1++) printf("A %ld %ld %.17g\n", a0, a1, A[a0][a1]);
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 3; a1++) printf("C %ld %ld %.17g\n", a0, a1, C[a0][a1]);
  return 0;
}
