/* polysched fuzz (generator v8), seed 20261128, program 4475, shrunk: the sign of a wrapped
   subscript took isl minutes in extraction, in every mode (fuzz: 12 hangs) */
/* polysched fuzz (generator v8): seed 20261128, program 4475 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#define N 2

double A[4][9][4];

static void kernel(void)
{
  int i;
  i = -7;
#pragma scop
  for (i = N >> 2; i <= 0; i++) {
    A[i + 1][2 * i + N + 5][i + 1] = 0.125 * A[i % 4 + 2][(short)(8192 * i - 8192 * N) % 7 + 5][i + 2] + 2.0;
  }
#pragma endscop
}

int main(void)
{
  long a0, a1, a2;
  for (a0 = 0; a0 < 4; a0++) for (a1 = 0; a1 < 9; a1++) for (a2 = 0; a2 < 4; a2++) A[a0][a1][a2] = (double)((a0 * 7 + a1 * 3 + a2 * 5 + 1) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 4; a0++) for (a1 = 0; a1 < 9; a1++) for (a2 = 0; a2 < 4; a2++) printf("A %ld %ld %ld %.17g\n", a0, a1, a2, A[a0][a1][a2]);
  return 0;
}
