/* user_cholesky_rows: a Cholesky factorisation as textbooks write it, row by row
 * (Cholesky-Banachiewicz), each element's sum in a scalar s that ends in L[i][j]
 * (the diagonal's square root, or the division by the diagonal). */
#ifndef _POSIX_C_SOURCE
#  define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
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

static void kernel(int n, double A[n][n], double L[n][n]) {
  int i, j, k;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      s = A[i][j];
      for (k = 0; k < j; k++)
        s -= L[i][k] * L[j][k];
      if (i == j)
        L[i][i] = sqrt(s);
      else
        L[i][j] = s / L[j][j];
    }
#pragma endscop
}
int main(void) {
  double (*A)[N] = malloc(sizeof(double) * N * N), (*L)[N] = malloc(sizeof(double) * N * N);
  /* symmetric, diagonally dominant: positive definite */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = i == j ? N + 1.0 : (double)(((i + j) * 7) % 11) / 13.0;
      L[i][j] = 0.0;
    }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel(N, A, L);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("L", &L[0][0], (long)N * N);
  free(A); free(L);
  return 0;
}
