/* trisolv: triangular solve U*x = b by back substitution (U upper triangular).
 *
 * Part of the polysched benchmark suite; written for polysched from the
 * mathematical definition, following the conventions of PolyBench/C.
 * Datasets: -D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET (default LARGE);
 * every size macro can also be set alone, e.g. -DN=37.
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
#  ifndef N
#    define N 40
#  endif
#elif defined(SMALL_DATASET)
#  ifndef N
#    define N 120
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef N
#    define N 400
#  endif
#elif defined(LARGE_DATASET)
#  ifndef N
#    define N 10000
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef N
#    define N 14000
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

static void kernel_trisolv(int n, double U[N][N], double x[N], double b[N])
{
  int i, j;

#pragma scop
  for (i = n - 1; i >= 0; i--) {
    x[i] = b[i];
    for (j = i + 1; j < n; j++)
      x[i] -= U[i][j] * x[j];
    x[i] = x[i] / U[i][i];
  }
#pragma endscop
}

int main(void)
{
  double (*U)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  double *x = xmalloc(sizeof(double) * (size_t)N);
  double *b = xmalloc(sizeof(double) * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  /* Diagonal >= 1 and off-diagonal row sums below 1: x stays bounded. The strictly
     lower part is never read; a loud value there would show in the output if it were. */
  for (i = 0; i < N; i++) {
    b[i] = (double)(i % 17) / 17.0 + 0.5;
    x[i] = 0.0;
    for (j = 0; j < N; j++)
      U[i][j] = j < i ? -999.0
              : (j == i ? 1.0 + (double)(i % 3) : (double)((i + 2 * j) % 7 + 1) / (7.0 * N));
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_trisolv(N, U, x, b);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("x", (const double *)x, (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)x, (size_t)N));
#endif

  free((void *)U);
  free((void *)x);
  free((void *)b);
  return 0;
}
