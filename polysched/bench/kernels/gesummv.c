/* gesummv: sum of two scaled matrix-vector products, y := alpha*A*x + beta*B*x.
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
#    define N 30
#  endif
#elif defined(SMALL_DATASET)
#  ifndef N
#    define N 90
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef N
#    define N 250
#  endif
#elif defined(LARGE_DATASET)
#  ifndef N
#    define N 7000
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef N
#    define N 10000
#  endif
#endif

#define DATA_TYPE double
#define ARR2D(name, d0, d1) name[d0][d1]

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

static void kernel_gesummv(DATA_TYPE alpha, DATA_TYPE beta,
                           DATA_TYPE ARR2D(A, N, N), DATA_TYPE ARR2D(B, N, N),
                           DATA_TYPE tmp[N], DATA_TYPE x[N], DATA_TYPE y[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < N; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < N; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
#pragma endscop
}

int main(void)
{
  DATA_TYPE alpha = 1.5;
  DATA_TYPE beta = 1.2;
  DATA_TYPE (*A)[N] = xmalloc(sizeof(DATA_TYPE) * (size_t)N * (size_t)N);
  DATA_TYPE (*B)[N] = xmalloc(sizeof(DATA_TYPE) * (size_t)N * (size_t)N);
  DATA_TYPE *tmp = xmalloc(sizeof(DATA_TYPE) * (size_t)N);
  DATA_TYPE *x = xmalloc(sizeof(DATA_TYPE) * (size_t)N);
  DATA_TYPE *y = xmalloc(sizeof(DATA_TYPE) * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < N; i++) {
    x[i] = (DATA_TYPE)(i % N) / N;
    for (j = 0; j < N; j++) {
      A[i][j] = (DATA_TYPE)((i * j + 1) % N) / N;
      B[i][j] = (DATA_TYPE)((i * j + 2) % N) / N;
    }
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_gesummv(alpha, beta, A, B, tmp, x, y);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_data_type("tmp", (const DATA_TYPE *)tmp, (size_t)N);
  dump_data_type("y", (const DATA_TYPE *)y, (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_data_type((const DATA_TYPE *)tmp, (size_t)N)
          + sum_data_type((const DATA_TYPE *)y, (size_t)N));
#endif

  free((void *)A);
  free((void *)B);
  free((void *)tmp);
  free((void *)x);
  free((void *)y);
  return 0;
}
