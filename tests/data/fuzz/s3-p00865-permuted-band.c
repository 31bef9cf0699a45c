/* polysched fuzz repro: wrong in mode unroll (scheduler=pluto fuse=smart unroll=4)
   output differs (1 thread): 2 lines differ, first at line 129: expected 'B 4 7 3115.993968963623', got 'B 4 7 20.046875'
   shrunk from s3-p00865.c in 152 evaluations */
/* polysched fuzz (generator v2): seed 3, program 865 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double A[9][9];
double B[11][10];

static void kernel(void)
{
  int i, j, k, l, p;
  i = -7; j = -7; k = -7; l = -7; p = -7;
#pragma scop
  for (i = 2; i <= 3; i++) {
    A[i + 2][i + 1] += 0.5;
    for (j = 0; j < 4; j++) {
      for (k = 0; k <= 3; k += 2) {
        for (l = 0; l <= 2; l++) {
          for (p = 0; p <= 1; p++) {
            A[k + 5][p + k + 4] = 0.125 * A[p + 1][l + 1] + 1.0;
            A[p + 4][l + 1] = 0.125 * B[4][-k + 3] + -0.5 * A[k - p + 4][p + 2] + -0.5 * B[j + 1][k + 3] + 2.0;
          }
        }
        for (l = 0; l <= 2; l += 2) {
          for (p = l; p <= 3; p++) {
            B[p + 4][l + 5] = 0.5;
            B[l + 2][p + 5] += 0.5 * B[4][l + 5] + 2.0;
          }
          B[j + i + 3][i + 1] += 0.75 * B[l + i + 3][k + 3] + 0.5;
        }
      }
    }
  }
#pragma endscop
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 9; a0++) for (a1 = 0; a1 < 9; a1++) A[a0][a1] = (double)((a0 * 7 + a1 * 3 + 1) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 11; a0++) for (a1 = 0; a1 < 10; a1++) B[a0][a1] = (double)((a0 * 7 + a1 * 3 + 2) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 9; a0++) for (a1 = 0; a1 < 9; a1++) printf("A %ld %ld %.17g\n", a0, a1, A[a0][a1]);
  for (a0 = 0; a0 < 11; a0++) for (a1 = 0; a1 < 10; a1++) printf("B %ld %ld %.17g\n", a0, a1, B[a0][a1]);
  return 0;
}
