/* covariance: sample covariance matrix of M variables observed N times
 * (data is centred in place).
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

#define DATA_TYPE double

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
static void dump_data_type(const char *name, const DATA_TYPE *p, size_t n)
{
  size_t i;
  printf("== %s ==\n", name);
  for (i = 0; i < n; i++) {
    printf("%.10g", (double)p[i]);
    putchar(i % 20 == 19 || i + 1 == n ? '\n' : ' ');
  }
}

#else
static double sum_data_type(const DATA_TYPE *p, size_t n)
{
  size_t i;
  double s = 0.0;
  for (i = 0; i < n; i++)
    s += (double)p[i];
  return s;
}

#endif

static void kernel_covariance(DATA_TYPE float_n, DATA_TYPE data[N][M], DATA_TYPE cov[M][M],
                              DATA_TYPE mean[M])
{
  int i, j, k;

#pragma scop
  for (j = 0; j < M; j++) {
    mean[j] = 0.0;
    for (i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < M; i++)
    for (j = i; j < M; j++) {
      cov[i][j] = 0.0;
      for (k = 0; k < N; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - 1.0);
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

int main(void)
{
  DATA_TYPE float_n = (DATA_TYPE)N;
  DATA_TYPE (*data)[M] = xmalloc(sizeof(DATA_TYPE) * (size_t)N * (size_t)M);
  DATA_TYPE (*cov)[M] = xmalloc(sizeof(DATA_TYPE) * (size_t)M * (size_t)M);
  DATA_TYPE *mean = xmalloc(sizeof(DATA_TYPE) * (size_t)M);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (DATA_TYPE)((i * j + 2 * i + 1) % 97) / 97.0 + 0.002 * j;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_covariance(float_n, data, cov, mean);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_data_type("data", (const DATA_TYPE *)data, (size_t)N * (size_t)M);
  dump_data_type("cov", (const DATA_TYPE *)cov, (size_t)M * (size_t)M);
  dump_data_type("mean", (const DATA_TYPE *)mean, (size_t)M);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_data_type((const DATA_TYPE *)data, (size_t)N * (size_t)M)
          + sum_data_type((const DATA_TYPE *)cov, (size_t)M * (size_t)M)
          + sum_data_type((const DATA_TYPE *)mean, (size_t)M));
#endif

  free((void *)data);
  free((void *)cov);
  free((void *)mean);
  return 0;
}
