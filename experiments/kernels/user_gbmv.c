/* user_gbmv: y += A x for a band matrix stored by diagonals (LAPACK's band storage),
 * the band widths as size macros. */
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
#    define N 2000000
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

#define KL 2
#define KU 3
static void kernel(int n, double AB[][KL + KU + 1], const double *x, double *y) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = (i - KL > 0 ? i - KL : 0); j <= (i + KU < n - 1 ? i + KU : n - 1); j++)
      y[i] += AB[i][KU + j - i] * x[j];
#pragma endscop
}
int main(void) {
  double (*AB)[KL + KU + 1] = malloc(sizeof(double) * N * (KL + KU + 1)), *x = malloc(sizeof(double) * N), *y = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    x[i] = (double)(i % 9) / 9.0;
    y[i] = (double)(i % 5);
    for (int j = 0; j < KL + KU + 1; j++) AB[i][j] = (double)((i * 3 + j * 7) % 19) / 19.0;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < 10; r++) kernel(N, AB, x, y);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("y", y, N);
  free(AB); free(x); free(y);
  return 0;
}
