/* lu: LU decomposition without pivoting (Doolittle, row by row); L (unit lower,
 * diagonal implicit) and U overwrite A.
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

#define MIN(a, b) ((a) < (b) ? (a) : (b))

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

static void kernel_lu(double A[N][N])
{
  int i, j, k;

  /* A[i][j] -= sum over k < min(i, j) of L[i][k]*U[k][j]; below the diagonal the
     result is then divided by U[j][j]. */
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      for (k = 0; k < MIN(i, j); k++)
        A[i][j] -= A[i][k] * A[k][j];
      if (j < i)
        A[i][j] /= A[j][j];
    }
#pragma endscop
}

int main(void)
{
  double (*A)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  /* Strictly diagonally dominant by rows (off-diagonal sums below (N-1)/N < 1), so
     every leading minor is nonsingular and no pivoting is needed. */
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (i == j ? 1.0 : 0.0) + (double)((i * 7 + j * 3) % 11 + 1) / (11.0 * N);

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_lu(A);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("A", (const double *)A, (size_t)N * (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)A, (size_t)N * (size_t)N));
#endif

  free((void *)A);
  return 0;
}
