/* durbin: Levinson-Durbin recursion: solves the Toeplitz system T*y = -r where T
 * has the first row (1, r[0], ..., r[N-2]).
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
#    define N 20000
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef N
#    define N 40000
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

static void kernel_durbin(double r[N], double y[N], double z[N])
{
  int i, k;
  double alpha, beta, sum;

#pragma scop
  y[0] = -r[0];
  beta = 1.0;
  alpha = -r[0];
  for (k = 1; k < N; k++) {
    beta = (1.0 - alpha * alpha) * beta;
    sum = 0.0;
    for (i = 0; i < k; i++)
      sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / beta;
    for (i = 0; i < k; i++)
      z[i] = y[i] + alpha * y[k - i - 1];
    for (i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha;
  }
#pragma endscop
}

int main(void)
{
  double *r = xmalloc(sizeof(double) * (size_t)N);
  double *y = xmalloc(sizeof(double) * (size_t)N);
  double *z = xmalloc(sizeof(double) * (size_t)N);
  struct timespec t0, t1;

  int i;
  /* sum |r[k]| < 0.25 * pi^2 / 6 < 0.5, so 1 + 2 * sum r[k] cos(k theta) > 0: T is
     positive definite and every reflection coefficient stays inside (-1, 1). */
  for (i = 0; i < N; i++) {
    r[i] = 0.25 * (double)(i % 5 + 1) / 5.0 / ((i + 1.0) * (i + 1.0));
    z[i] = 0.0;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_durbin(r, y, z);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("y", (const double *)y, (size_t)N);
  dump_double("z", (const double *)z, (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)y, (size_t)N)
          + sum_double((const double *)z, (size_t)N));
#endif

  free((void *)r);
  free((void *)y);
  free((void *)z);
  return 0;
}
