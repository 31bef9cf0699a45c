#include <stdio.h>
#include <stdlib.h>
/* RUNS: 0 | 1 | 2 | 5 | 33 | 80 */
static void lu(int n, double (*A)[n])
{
#pragma scop
  for (int k = 0; k < n; k++) {
    for (int i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
  }
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = atoi(argv[1]); int N = n > 0 ? n : 1;
  double (*A)[N] = malloc(sizeof(double[N][N]));
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = (i == j) ? N + 1.0 : 1.0 / (1 + i + 2 * j);
  lu(n, A);
  double s = 0; for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += A[i][j] * (1 + (i * j) % 3);
  printf("%.17g\n", s);
  return 0;
}
