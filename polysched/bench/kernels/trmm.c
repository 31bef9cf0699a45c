/* trmm: triangular matrix multiply, B := alpha*A'*B with A unit lower triangular
 * (M x M), B of size M x N, computed in place.
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

static void kernel_trmm(double alpha, double A[M][M], double B[M][N])
{
  int i, j, k;

  /* (A'*B)[i][j] = B[i][j] + sum over k > i of A[k][i]*B[k][j]: row i only reads
     rows below it, which are still unmodified when i increases. */
#pragma scop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      for (k = i + 1; k < M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

int main(void)
{
  double alpha = 1.5;
  double (*A)[M] = xmalloc(sizeof(double) * (size_t)M * (size_t)M);
  double (*B)[N] = xmalloc(sizeof(double) * (size_t)M * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < M; i++) {
    for (j = 0; j < M; j++)
      A[i][j] = j < i ? (double)((i + j) % M) / M : (i == j ? 1.0 : -999.0);
    for (j = 0; j < N; j++)
      B[i][j] = (double)((N + i - j) % N) / N;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_trmm(alpha, A, B);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("B", (const double *)B, (size_t)M * (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)B, (size_t)M * (size_t)N));
#endif

  free((void *)A);
  free((void *)B);
  return 0;
}
