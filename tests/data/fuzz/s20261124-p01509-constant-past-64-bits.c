/* polysched fuzz repro: crash in mode l2tile (scheduler=pluto fuse=smart tile=True l2tile=True)
   TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'
   shrunk from s20261124-p01509.c in 25 evaluations */
/* polysched fuzz (generator v5): seed 20261124, program 1509 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double A[8][7];
double B[7];
double C[9][8];

static void kernel(int n, double x[8][7], double *y, double z[9][8], double v[9][8])
{
  int i, j, k, l, p, q, r;
  i = -7; j = -7; k = -7; l = -7; p = -7; q = -7; r = -7;
#pragma scop
  for (i = MAX(n, 1); i < MIN(3, n + 2); i++) {
    for (j = n + 1; j <= n + 1; j++) {
      x[j - 2][i + 3] = 1.5 * y[i + j - 1] + -0.5 * x[i - 1][j + 2] + 2.0;
      if ((i - j) % 2 == 0) {
        for (k = j + 1; k <= 2; k++) {
          for (l = 0; l < 1; l++) {
            for (p = n + 3; p >= n + 2; p--) {
              for (q = 0; q <= 1; q++) {
                for (r = 1; r <= n + 1; r++) {
                  y[-r] = 1.5 * x[r + j][q] + 2.0;
                  v[q][l + 1] += x[q - 1][i + 1] * x[i][l + 1];
                  v[i][l] = 0.75 * v[2][2 * l + 2] + 0.5;
                }
                if (i + q == 0) {
                  x[k - i - 1][q - 1] = 0.75 * y[q] - 0.25;
                }
              }
            }
            for (p = 2; p <= n - 1; p++) {
              for (q = j + 1; q < 3; q++) {
                if (k <= n && k + i == 2) {
                  x[2][l + j + 2] = -0.5 * z[q + 3][j - 1] + 0.125 * (double)(k % 5) + 2.0;
                }
                v[l + 1][p + 2] += x[l - 1][q + 1] * x[q][p];
              }
            }
          }
        }
      }
    }
  }
  for (i = 0; i <= n - 1; i++) {
    for (j = 2; j <= 6; j++) {
      for (k = 0; k <= ((2) < (i + 2) ? (2) : (i + 2)); k++) {
        z[j][k + 1] += v[j + 1][i + 1] * z[i + 1][k + 1];
        for (l = 2; l < i + 2; l += 2) {
          v[l - n + 1][j - n + 2] = -0.5 * x[2 * l + 2][k + 1] + -0.5 * v[l][i + l + 1] - 0.25;
          x[j - 1][k + 1] += z[j][i + 1] * z[i + 1][k + 1];
        }
      }
    }
  }
#pragma endscop
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 8; a0++) for (a1 = 0; a1 < 7; a1++) A[a0][a1] = (double)((a0 * 7 + a1 * 3 + 1) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 7; a0++) B[a0] = (double)((a0 * 7 + 2) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 9; a0++) for (a1 = 0; a1 < 8; a1++) C[a0][a1] = (double)((a0 * 7 + a1 * 3 + 3) % 13) * 0.125 - 0.75;
  kernel(2, A, B + 1, C, C);
  for (a0 = 0; a0 < 8; a0++) for (a1 = 0; a1 < 7; a1++) printf("A %ld %ld %.17g\n", a0, a1, A[a0][a1]);
  for (a0 = 0; a0 < 7; a0++) printf("B %ld %.17g\n", a0, B[a0]);
  for (a0 = 0; a0 < 9; a0++) for (a1 = 0; a1 < 8; a1++) printf("C %ld %ld %.17g\n", a0, a1, C[a0][a1]);
  return 0;
}
