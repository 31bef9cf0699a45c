/* gemver: rank-2 update and two matrix-vector products: A := A + u1*v1' + u2*v2';
 * x := x + beta*A'*y + z; w := w + alpha*A*x.
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
#    define N 8000
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef N
#    define N 12000
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

static void kernel_gemver(int n, double alpha, double beta, double A[N][N],
                          double u1[N], double v1[N], double u2[N], double v2[N],
                          double w[N], double x[N], double y[N], double z[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (i = 0; i < n; i++)
    x[i] = x[i] + z[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

int main(void)
{
  double alpha = 1.5;
  double beta = 1.2;
  double (*A)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  double *u1 = xmalloc(sizeof(double) * (size_t)N);
  double *v1 = xmalloc(sizeof(double) * (size_t)N);
  double *u2 = xmalloc(sizeof(double) * (size_t)N);
  double *v2 = xmalloc(sizeof(double) * (size_t)N);
  double *w = xmalloc(sizeof(double) * (size_t)N);
  double *x = xmalloc(sizeof(double) * (size_t)N);
  double *y = xmalloc(sizeof(double) * (size_t)N);
  double *z = xmalloc(sizeof(double) * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  double fn = (double)N;
  for (i = 0; i < N; i++) {
    u1[i] = i / fn;
    u2[i] = ((i + 1) / fn) / 2.0;
    v1[i] = ((i + 1) / fn) / 4.0;
    v2[i] = ((i + 1) / fn) / 6.0;
    y[i] = ((i + 1) / fn) / 8.0;
    z[i] = ((i + 1) / fn) / 9.0;
    x[i] = 0.0;
    w[i] = 0.0;
    for (j = 0; j < N; j++)
      A[i][j] = (double)(i * j % N) / N;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_gemver(N, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("A", (const double *)A, (size_t)N * (size_t)N);
  dump_double("w", (const double *)w, (size_t)N);
  dump_double("x", (const double *)x, (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)A, (size_t)N * (size_t)N)
          + sum_double((const double *)w, (size_t)N)
          + sum_double((const double *)x, (size_t)N));
#endif

  free((void *)A);
  free((void *)u1);
  free((void *)v1);
  free((void *)u2);
  free((void *)v2);
  free((void *)w);
  free((void *)x);
  free((void *)y);
  free((void *)z);
  return 0;
}
