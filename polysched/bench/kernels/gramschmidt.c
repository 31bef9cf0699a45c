/* gramschmidt: QR decomposition of an M x N matrix (M >= N) by modified Gram-Schmidt;
 * A is overwritten by the residuals.
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
#    define M 30
#  endif
#  ifndef N
#    define N 20
#  endif
#elif defined(SMALL_DATASET)
#  ifndef M
#    define M 80
#  endif
#  ifndef N
#    define N 60
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef M
#    define M 240
#  endif
#  ifndef N
#    define N 200
#  endif
#elif defined(LARGE_DATASET)
#  ifndef M
#    define M 1200
#  endif
#  ifndef N
#    define N 1000
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef M
#    define M 2600
#  endif
#  ifndef N
#    define N 2000
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

static void kernel_gramschmidt(double A[M][N], double R[N][N], double Q[M][N])
{
  int i, j, k;
  double nrm;

#pragma scop
  for (k = 0; k < N; k++) {
    nrm = 0.0;
    for (i = 0; i < M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < N; j++) {
      R[k][j] = 0.0;
      for (i = 0; i < M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

int main(void)
{
  double (*A)[N] = xmalloc(sizeof(double) * (size_t)M * (size_t)N);
  double (*R)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  double (*Q)[N] = xmalloc(sizeof(double) * (size_t)M * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  /* Identity on top plus entries below 1/N: full column rank and well conditioned
     (the smallest singular value is at least 1/13). */
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (i == j ? 1.0 : 0.0) + (double)((i * j + 1) % 13) / (13.0 * N);
      Q[i][j] = 0.0;
    }
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      R[i][j] = 0.0;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_gramschmidt(A, R, Q);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("A", (const double *)A, (size_t)M * (size_t)N);
  dump_double("R", (const double *)R, (size_t)N * (size_t)N);
  dump_double("Q", (const double *)Q, (size_t)M * (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)A, (size_t)M * (size_t)N)
          + sum_double((const double *)R, (size_t)N * (size_t)N)
          + sum_double((const double *)Q, (size_t)M * (size_t)N));
#endif

  free((void *)A);
  free((void *)R);
  free((void *)Q);
  return 0;
}
