#include <stdio.h>
#include <stdlib.h>
void mm(int n, const double *A, const double *B, double *C) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++)
        s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
#pragma endscop
}
void cnt(int n, int m, int *X, int *out) {
#pragma scop
  for (int j = 0; j < m; j++) {
    int c = 0;
    for (int i = 0; i < n; i++)
      if (X[i * m + j] > 3) c += X[i * m + j];
    out[j] = c;
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 37, m = 23;
  double *A = malloc(sizeof(double) * n * n + 8), *B = malloc(sizeof(double) * n * n + 8), *C = malloc(sizeof(double) * n * n + 8);
  int *X = malloc(sizeof(int) * n * m + 8), *out = malloc(sizeof(int) * m);
  for (int i = 0; i < n * n; i++) { A[i] = (i % 7) / 3.0; B[i] = (i % 5) / 7.0; }
  for (int i = 0; i < n * m; i++) X[i] = i % 9;
  mm(n, A, B, C); cnt(n, m, X, out);
  double t = 0; for (int i = 0; i < n * n; i++) t += C[i] * (i % 3 + 1);
  long u = 0; for (int j = 0; j < m; j++) u += out[j] * (j + 1);
  printf("%a %ld\n", t, u);
  return 0;
}
