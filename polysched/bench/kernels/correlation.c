/* correlation: Pearson correlation matrix of M variables observed N times
 * (data is centred and scaled in place).
 *
 * Part of the polysched benchmark suite; written for polysched from the
 * mathematical definition, following the conventions of PolyBench/C.
 * Datasets: -D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET (default LARGE);
 * every size macro can also be set alone, e.g. -DM=37.
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
#  ifndef M
#    define M 28
#  endif
#  ifndef N
#    define N 32
#  endif
#elif defined(SMALL_DATASET)
#  ifndef M
#    define M 80
#  endif
#  ifndef N
#    define N 100
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef M
#    define M 240
#  endif
#  ifndef N
#    define N 260
#  endif
#elif defined(LARGE_DATASET)
#  ifndef M
#    define M 1200
#  endif
#  ifndef N
#    define N 1400
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef M
#    define M 2600
#  endif
#  ifndef N
#    define N 3000
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

static void kernel_correlation(double float_n, double data[N][M], double corr[M][M],
                               double mean[M], double stddev[M])
{
  int i, j, k;

#pragma scop
  for (j = 0; j < M; j++) {
    mean[j] = 0.0;
    for (i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (j = 0; j < M; j++) {
    stddev[j] = 0.0;
    for (i = 0; i < N; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] = sqrt(stddev[j] / float_n);
  }
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (data[i][j] - mean[j]) / (sqrt(float_n) * stddev[j]);
  for (i = 0; i < M - 1; i++) {
    corr[i][i] = 1.0;
    for (j = i + 1; j < M; j++) {
      corr[i][j] = 0.0;
      for (k = 0; k < N; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
  corr[M - 1][M - 1] = 1.0;
#pragma endscop
}

int main(void)
{
  double float_n = (double)N;
  double (*data)[M] = xmalloc(sizeof(double) * (size_t)N * (size_t)M);
  double (*corr)[M] = xmalloc(sizeof(double) * (size_t)M * (size_t)M);
  double *mean = xmalloc(sizeof(double) * (size_t)M);
  double *stddev = xmalloc(sizeof(double) * (size_t)M);
  struct timespec t0, t1;

  int i, j;
  /* Every column varies with i (the 0.01*i term), so no standard deviation is zero. */
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (double)((i * j + 3 * i + j) % 101) / 101.0 + 0.01 * i;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_correlation(float_n, data, corr, mean, stddev);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("data", (const double *)data, (size_t)N * (size_t)M);
  dump_double("corr", (const double *)corr, (size_t)M * (size_t)M);
  dump_double("mean", (const double *)mean, (size_t)M);
  dump_double("stddev", (const double *)stddev, (size_t)M);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)data, (size_t)N * (size_t)M)
          + sum_double((const double *)corr, (size_t)M * (size_t)M)
          + sum_double((const double *)mean, (size_t)M)
          + sum_double((const double *)stddev, (size_t)M));
#endif

  free((void *)data);
  free((void *)corr);
  free((void *)mean);
  free((void *)stddev);
  return 0;
}
