/* heat-3d: 3-d heat equation, explicit 7-point stencil, A -> B -> A per time step.
 *
 * Part of the polysched benchmark suite; written for polysched from the
 * mathematical definition, following the conventions of PolyBench/C.
 * Datasets: -D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET (default LARGE);
 * every size macro can also be set alone, e.g. -DTSTEPS=37.
 * -DPOLYSCHED_DUMP prints the output arrays to stdout. */
#ifndef _POSIX_C_SOURCE
#  define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>

#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) \
    && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
#endif

#ifdef MINI_DATASET
#  ifndef TSTEPS
#    define TSTEPS 20
#  endif
#  ifndef N
#    define N 10
#  endif
#elif defined(SMALL_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 40
#  endif
#  ifndef N
#    define N 20
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 100
#  endif
#  ifndef N
#    define N 40
#  endif
#elif defined(LARGE_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 500
#  endif
#  ifndef N
#    define N 120
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 1000
#  endif
#  ifndef N
#    define N 200
#  endif
#endif

static void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "%s: out of memory (%zu bytes)\n", __FILE__, bytes);
    exit(1);
  }
  return p;
}

#ifdef POLYSCHED_DUMP
static void dump_double(const char *name, const double *p, size_t n)
{
  size_t i;
  printf("== %s ==\n", name);
  for (i = 0; i < n; i++) {
    printf("%.10g", (double)p[i]);
    putchar(i % 20 == 19 || i + 1 == n ? '\n' : ' ');
  }
}

#else
static double sum_double(const double *p, size_t n)
{
  size_t i;
  double s = 0.0;
  for (i = 0; i < n; i++)
    s += (double)p[i];
  return s;
}

#endif

static void kernel_heat_3d(double A[N][N][N], double B[N][N][N])
{
  int t, i, j, k;

#pragma scop
  for (t = 1; t <= TSTEPS; t++) {
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        for (k = 1; k < N - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        for (k = 1; k < N - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
#pragma endscop
}

int main(void)
{
  double (*A)[N][N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N * (size_t)N);
  double (*B)[N][N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N * (size_t)N);
  struct timespec t0, t1;

  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        A[i][j][k] = B[i][j][k] = (double)((i * i + 2 * j * j + 3 * k * k + i * k) % 47) / 47.0;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_heat_3d(A, B);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("A", (const double *)A, (size_t)N * (size_t)N * (size_t)N);
  dump_double("B", (const double *)B, (size_t)N * (size_t)N * (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)A, (size_t)N * (size_t)N * (size_t)N)
          + sum_double((const double *)B, (size_t)N * (size_t)N * (size_t)N));
#endif

  free((void *)A);
  free((void *)B);
  return 0;
}
