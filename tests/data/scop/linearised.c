#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#define AT(i, j) A[(i) * n + (j)]
/* rows of n, but j runs to m: rows overlap when m > n (the check must send those calls to the original) */
void overflow(int n, int m, int t, double *A) {
  int i, j;
#pragma scop
  for (i = 1; i < t; i++)
    for (j = 1; j < m; j++)
      A[i * n + j] = A[(i - 1) * n + j - 1] * 0.5 + A[i * n + j - 1];
#pragma endscop
}
/* column-major, a 1-d access of the same array, a macro */
void colmajor(int n, int m, double *A, double *x) {
  int i, j;
#pragma scop
  for (j = 0; j < n; j++)
    A[j] = x[j];
  for (j = 1; j < m; j++)
    for (i = 0; i < n; i++)
      AT(j, i) = A[i + (j - 1) * n] + x[i] * j;
#pragma endscop
}
/* three dimensions, size_t sizes */
void cube(size_t n, size_t m, size_t p, double *V, double *W) {
  size_t i, j, k;
#pragma scop
  for (i = 0; i < p; i++)
    for (j = 0; j < m; j++)
      for (k = 0; k < n; k++)
        W[(i * m + j) * n + k] = V[i * m * n + j * n + k] + W[(i * m + j) * n + k + n * m];
#pragma endscop
}
/* a matrix product over malloc'd rows, then a stencil on the rows */
void product(int n, int m, double *A, double *B, double *C) {
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i * n + j] = 0.0;
      for (k = 0; k < n; k++)
        C[i * n + j] += A[i * n + k] * B[k * n + j];
    }
  for (i = 1; i < m; i++)
    for (j = 0; j < n; j++)
      A[i * n + j] = A[(i - 1) * n + j] + C[j];
#pragma endscop
}
int main(void) {
  int sizes[][3] = {{0, 0, 0}, {1, 1, 1}, {5, 3, 4}, {7, 9, 3}, {13, 11, 6}, {4, 0, 2}, {9, 9, 9}};
  for (int c = 0; c < 7; c++) {
    int n = sizes[c][0], m = sizes[c][1], t = sizes[c][2];
    int cells = (n + 2) * (m + 2) * (t + 2) + 16;
    double *A = malloc(sizeof(double) * cells), *x = malloc(sizeof(double) * cells);
    double *V = malloc(sizeof(double) * cells), *W = malloc(sizeof(double) * cells);
    for (int q = 0; q < cells; q++) { A[q] = q % 7; x[q] = (q * 3) % 5; V[q] = q % 11; W[q] = 1; }
    overflow(n, m, t, A);
    colmajor(n, m, A, x);
    cube(n, m, t, V, W);
    product(n, t, V, x, W);
    double s = 0;
    for (int q = 0; q < cells; q++) s += A[q] * (q + 1) + W[q] * (q % 13);
    printf("%d %d %d %a\n", n, m, t, s);
    free(A); free(x); free(V); free(W);
  }
  return 0;
}
