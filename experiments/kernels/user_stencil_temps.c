/* user_stencil_temps: a 2-d Jacobi stencil over time steps as users write it, with its
 * partial sums in temporaries declared in the loop body (ns, ew). */
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

static void kernel(int n, int steps, double A[n][n], double B[n][n]) {
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        double ns = A[i - 1][j] + A[i + 1][j];
        double ew = A[i][j - 1] + A[i][j + 1];
        B[i][j] = 0.2 * (A[i][j] + ns + ew);
      }
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop
}
int main(void) {
  double (*A)[N] = malloc(sizeof(double) * N * N), (*B)[N] = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (double)((i * 31 + j * 17) % 256) / 255.0; B[i][j] = 0.0; }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel(N, 40, A, B);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("A", &A[0][0], (long)N * N);
  dump("B", &B[0][0], (long)N * N);
  free(A); free(B);
  return 0;
}
