/* ludcmp: solves A*x = b by LU decomposition without pivoting, then forward
 * substitution (L*y = b) and backward substitution (U*x = y, counting down).
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
#    define N 2000
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef N
#    define N 4000
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

static void kernel_ludcmp(double A[N][N], double b[N], double x[N], double y[N])
{
  int i, j, k;
  double w;

#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      w = A[i][j];
      for (k = 0; k < (i < j ? i : j); k++)
        w -= A[i][k] * A[k][j];
      if (j < i)
        A[i][j] = w / A[j][j];
      if (j >= i)
        A[i][j] = w;
    }
  for (i = 0; i < N; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = N - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(void)
{
  double (*A)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  double *b = xmalloc(sizeof(double) * (size_t)N);
  double *x = xmalloc(sizeof(double) * (size_t)N);
  double *y = xmalloc(sizeof(double) * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  /* Strictly diagonally dominant by rows (off-diagonal sums below (N-1)/N < 1), so
     every leading minor is nonsingular and no pivoting is needed. */
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (i == j ? 1.0 : 0.0) + (double)((i * 7 + j * 3) % 11 + 1) / (11.0 * N);
  for (i = 0; i < N; i++) {
    b[i] = (double)(i + 1) / N / 2.0 + 4.0;
    x[i] = 0.0;
    y[i] = 0.0;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_ludcmp(A, b, x, y);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("A", (const double *)A, (size_t)N * (size_t)N);
  dump_double("x", (const double *)x, (size_t)N);
  dump_double("y", (const double *)y, (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)A, (size_t)N * (size_t)N)
          + sum_double((const double *)x, (size_t)N)
          + sum_double((const double *)y, (size_t)N));
#endif

  free((void *)A);
  free((void *)b);
  free((void *)x);
  free((void *)y);
  return 0;
}
