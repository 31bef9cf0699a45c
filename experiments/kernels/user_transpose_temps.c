/* user_transpose_temps: C <- (A^T / 2 + C) / 2, repeated, as users write it: the scaled
 * element and the sum in temporaries declared in the loop body (x, y). */
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
#    define N 3000
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

static void kernel(int n, int reps, double A[n][n], double C[n][n]) {
#pragma scop
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double x = A[i][j] * 0.5;
        double y = x + C[j][i];
        C[j][i] = y * 0.5;
      }
#pragma endscop
}
int main(void) {
  double (*A)[N] = malloc(sizeof(double) * N * N), (*C)[N] = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (double)((i * 31 + j * 17) % 256) / 255.0; C[i][j] = 0.0; }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel(N, 10, A, C);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("C", &C[0][0], (long)N * N);
  free(A); free(C);
  return 0;
}
