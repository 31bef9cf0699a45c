/* bicg: the two matrix-vector products of BiCGStab, s := A'*r; q := A*p.
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
#    define M 38
#  endif
#  ifndef N
#    define N 42
#  endif
#elif defined(SMALL_DATASET)
#  ifndef M
#    define M 116
#  endif
#  ifndef N
#    define N 124
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef M
#    define M 390
#  endif
#  ifndef N
#    define N 410
#  endif
#elif defined(LARGE_DATASET)
#  ifndef M
#    define M 8000
#  endif
#  ifndef N
#    define N 8400
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef M
#    define M 12000
#  endif
#  ifndef N
#    define N 12600
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

static void kernel_bicg(int m, int n, double A[N][M], double s[M], double q[N],
                        double p[M], double r[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < m; i++)
    s[i] = 0.0;
  for (i = 0; i < n; i++) {
    q[i] = 0.0;
    for (j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
#pragma endscop
}

int main(void)
{
  double (*A)[M] = xmalloc(sizeof(double) * (size_t)N * (size_t)M);
  double *s = xmalloc(sizeof(double) * (size_t)M);
  double *q = xmalloc(sizeof(double) * (size_t)N);
  double *p = xmalloc(sizeof(double) * (size_t)M);
  double *r = xmalloc(sizeof(double) * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < M; i++)
    p[i] = (double)(i % M) / M;
  for (i = 0; i < N; i++) {
    r[i] = (double)(i % N) / N;
    for (j = 0; j < M; j++)
      A[i][j] = (double)(i * (j + 1) % N) / N;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_bicg(M, N, A, s, q, p, r);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("s", (const double *)s, (size_t)M);
  dump_double("q", (const double *)q, (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)s, (size_t)M)
          + sum_double((const double *)q, (size_t)N));
#endif

  free((void *)A);
  free((void *)s);
  free((void *)q);
  free((void *)p);
  free((void *)r);
  return 0;
}
