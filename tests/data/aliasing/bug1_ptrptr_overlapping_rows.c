/* polysched: rows of ONE pointer-to-pointer array that overlap each other
 * are not treated as possibly aliasing (no run-time check, no fallback). */
#include <stdio.h>
#include <stdlib.h>
void k(int n, double **A) {
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i-1][j] * 0.5 + i * 3 + j;
#pragma endscop
}
int main(void) {
  int n = 4;
  double base[8] = {0};
  double *rows[4];
  for (int i = 0; i < n; i++) rows[i] = base + i;   /* row i = base + i: rows overlap */
  k(n, rows);
  for (int i = 0; i < 2 * n; i++) printf("%g\n", base[i]);
  return 0;
}
