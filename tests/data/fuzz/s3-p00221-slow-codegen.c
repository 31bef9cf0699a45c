/* polysched fuzz repro: hang in mode l2tile (scheduler=pluto fuse=smart tile=True l2tile=True)
   optimize did not finish in 20 s (CPU 20 s, wall 30 s)
   shrunk from s3-p00221.c in 27 evaluations */
/* polysched fuzz (generator v2): seed 3, program 221 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double A[12][19][10];

static void kernel(long n, long big)
{
  long i, j, k, l, p;
  i = -7; j = -7; k = -7; l = -7; p = -7;
#pragma scop
  for (i = big + 0; i <= big + n - 1; i++) {
    for (j = big + (i - big); j <= big + (i - big); j += 3) {
      for (k = big + 0; k < big + ((2) < ((j - big) + 3) ? (2) : ((j - big) + 3)); k++) {
        for (l = big + (k - big) + 2; l >= big + (k - big); l--) {
          A[(j - big) + 4][(l - big) - (j - big) + 3][(k - big) + 5] = 0.125 * A[(i - big) + 1][(l - big) + 3][-(k - big) + 4] + 1.0;
          for (p = n; p < n + 3; p += 2) {
            if ((j - big) + (i - big) >= n) {
              A[(l - big) + n + 4][(j - big) + 6][(k - big) + 3] = -0.5 * A[p + 3][-(l - big) + 5][(k - big) + 5] + 0.125 * A[p - (l - big) + 3][(l - big) + 4][(k - big) + 2] + -0.5 * A[(k - big) + 5][2 * p + 7][5] - 0.25;
            }
          }
        }
        A[(i - big) + 4][(j - big) + 7][2 * (k - big) + 2] = -0.25;
      }
    }
  }
  for (i = big + 0; i <= big + 2; i++) {
    if ((i - big) <= 1) {
      for (j = 2 * (i - big) + 2; j < 2 * (i - big) + 5; j++) {
        for (k = big + ((n) > (2) ? (n) : (2)); k <= big + (((i - big)) < (7) ? ((i - big)) : (7)); k++) {
          A[(i - big) + 2][j + n + 5][-(k - big) + 6] += 0.25 * A[5][(k - big) + 4][-(i - big) + 4] + -0.5 * A[(k - big) + 1][j + (i - big) + 7][(i - big) + (k - big) + 4] - 0.25;
        }
      }
    }
    for (j = 0; j < (i - big); j++) {
      A[(i - big) + 4][-j + 7][j + 6] += 1.5 * A[j + (i - big) + 3][7][(i - big) + 5] + 0.25 * A[j + 3][(i - big) + 5][j + 3] + 0.125 * (double)(j % 5) + 0.5;
      A[j - n + 5][(i - big) + 6][j + 6] = 0.5 * A[j + 4][(i - big) + 3][j + (i - big) + 5] + 1.0;
      A[j + 5][(i - big) - j + 7][j - n + 4] = 0.125 * A[j + 3][(i - big) + 4][j + 5] + 0.75 * A[j + 3][(i - big) - j + 7][j + 4] + 2.0;
    }
  }
#pragma endscop
}

int main(void)
{
  long a0, a1, a2;
  for (a0 = 0; a0 < 12; a0++) for (a1 = 0; a1 < 19; a1++) for (a2 = 0; a2 < 10; a2++) A[a0][a1][a2] = (double)((a0 * 7 + a1 * 3 + a2 * 5 + 1) % 13) * 0.125 - 0.75;
  kernel(3L, 3000000000L);
  for (a0 = 0; a0 < 12; a0++) for (a1 = 0; a1 < 19; a1++) for (a2 = 0; a2 < 10; a2++) printf("A %ld %ld %ld %.17g\n", a0, a1, a2, A[a0][a1][a2]);
  return 0;
}
