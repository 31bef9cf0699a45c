/* mvt: matrix-vector product and transposed matrix-vector product,
 * x1 := x1 + A*y1; x2 := x2 + A'*y2.
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

static void kernel_mvt(int n, double x1[N], double x2[N], double y1[N], double y2[N],
                       double A[N][N])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x1[i] = x1[i] + A[i][j] * y1[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x2[i] = x2[i] + A[j][i] * y2[j];
#pragma endscop
}

int main(void)
{
  double *x1 = xmalloc(sizeof(double) * (size_t)N);
  double *x2 = xmalloc(sizeof(double) * (size_t)N);
  double *y1 = xmalloc(sizeof(double) * (size_t)N);
  double *y2 = xmalloc(sizeof(double) * (size_t)N);
  double (*A)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < N; i++) {
    x1[i] = (double)(i % N) / N;
    x2[i] = (double)((i + 1) % N) / N;
    y1[i] = (double)((i + 3) % N) / N;
    y2[i] = (double)((i + 4) % N) / N;
    for (j = 0; j < N; j++)
      A[i][j] = (double)(i * j % N) / N;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_mvt(N, x1, x2, y1, y2, A);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("x1", (const double *)x1, (size_t)N);
  dump_double("x2", (const double *)x2, (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)x1, (size_t)N)
          + sum_double((const double *)x2, (size_t)N));
#endif

  free((void *)x1);
  free((void *)x2);
  free((void *)y1);
  free((void *)y2);
  free((void *)A);
  return 0;
}
