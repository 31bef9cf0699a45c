/* syrk: symmetric rank-k update of the lower triangle, C := alpha*A*A' + beta*C.
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
#    define M 20
#  endif
#  ifndef N
#    define N 30
#  endif
#elif defined(SMALL_DATASET)
#  ifndef M
#    define M 60
#  endif
#  ifndef N
#    define N 80
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef M
#    define M 200
#  endif
#  ifndef N
#    define N 240
#  endif
#elif defined(LARGE_DATASET)
#  ifndef M
#    define M 1000
#  endif
#  ifndef N
#    define N 1200
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef M
#    define M 2000
#  endif
#  ifndef N
#    define N 2600
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

static void kernel_syrk(DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE C[N][N], DATA_TYPE A[N][M])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
#pragma endscop
}

int main(void)
{
  DATA_TYPE alpha = 1.5;
  DATA_TYPE beta = 1.2;
  DATA_TYPE (*C)[N] = xmalloc(sizeof(DATA_TYPE) * (size_t)N * (size_t)N);
  DATA_TYPE (*A)[M] = xmalloc(sizeof(DATA_TYPE) * (size_t)N * (size_t)M);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      A[i][j] = (DATA_TYPE)((i * j + 1) % N) / N;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      C[i][j] = (DATA_TYPE)((i * j + 2) % M) / M;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_syrk(alpha, beta, C, A);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_data_type("C", (const DATA_TYPE *)C, (size_t)N * (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_data_type((const DATA_TYPE *)C, (size_t)N * (size_t)N));
#endif

  free((void *)C);
  free((void *)A);
  return 0;
}
