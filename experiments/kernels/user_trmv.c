/* user_trmv: y += L x for a lower-triangular L, the textbook loop (a triangular
 * matrix-vector product: the row loop is no box along the column loop). */
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
#    define N 8000
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

static void kernel(int n, double A[n][n], double x[n], double y[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      y[i] += A[i][j] * x[j];
#pragma endscop
}
int main(void) {
  double (*A)[N] = malloc(sizeof(double) * N * N), *x = malloc(sizeof(double) * N), *y = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    x[i] = (double)(i % 9) / 9.0;
    y[i] = (double)(i % 5);
    for (int j = 0; j < N; j++) A[i][j] = (double)((i * 3 + j * 7) % 19) / 19.0;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel(N, A, x, y);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("y", y, N);
  free(A); free(x); free(y);
  return 0;
}
