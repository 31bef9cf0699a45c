/* user_gemm_ab: C = beta * C + alpha * A * B as people write it, the inner product
 * of a row of A and a column of B in a scalar s. */
#ifndef _POSIX_C_SOURCE
#  define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define LARGE_DATASET
#endif
#ifndef N
#  if defined(MINI_DATASET)
#    define N 24
#  elif defined(SMALL_DATASET)
#    define N 120
#  elif defined(MEDIUM_DATASET)
#    define N 500
#  else
#    define N 2000
#  endif
#endif

static void dump(const char *name, const double *p, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += p[i] * (double)(1 + i % 7);
#ifdef POLYSCHED_DUMP
  printf("== %s ==\n", name);
  for (long i = 0; i < n; i++) printf("%a%c", p[i], i % 8 == 7 || i + 1 == n ? '\n' : ' ');
#endif
  fprintf(stderr, "polysched-checksum: %s %.17g\n", name, s);
}

static void kernel(int n, double alpha, double beta, double A[n][n], double B[n][n], double C[n][n]) {
  int i, j, k;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      s = 0.0;
      for (k = 0; k < n; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = beta * C[i][j] + alpha * s;
    }
#pragma endscop
}
int main(void) {
  double (*A)[N] = malloc(sizeof(double) * N * N), (*B)[N] = malloc(sizeof(double) * N * N),
         (*C)[N] = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (double)((i * 7 + j * 3) % 11) / 7.0; B[i][j] = (double)((i * 5 + j) % 13) / 3.0; C[i][j] = (double)((i + j) % 5) / 2.0; }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel(N, 1.5, 1.2, A, B, C);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("C", &C[0][0], (long)N * N);
  free(A); free(B); free(C);
  return 0;
}
