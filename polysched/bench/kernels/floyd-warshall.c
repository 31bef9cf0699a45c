/* floyd-warshall: all-pairs shortest path lengths of a weighted directed graph
 * (integer weights, 999 standing for a missing edge).
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
#    define N 60
#  endif
#elif defined(SMALL_DATASET)
#  ifndef N
#    define N 180
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef N
#    define N 500
#  endif
#elif defined(LARGE_DATASET)
#  ifndef N
#    define N 1600
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef N
#    define N 3200
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
static void dump_int(const char *name, const int *p, size_t n)
{
  size_t i;
  printf("== %s ==\n", name);
  for (i = 0; i < n; i++) {
    printf("%d", (int)p[i]);
    putchar(i % 20 == 19 || i + 1 == n ? '\n' : ' ');
  }
}

#else
static double sum_int(const int *p, size_t n)
{
  size_t i;
  double s = 0.0;
  for (i = 0; i < n; i++)
    s += (double)p[i];
  return s;
}

#endif

static void kernel_floyd_warshall(int paths[N][N])
{
  int i, j, k;

#pragma scop
  for (k = 0; k < N; k++)
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        paths[i][j] = MIN(paths[i][j], paths[i][k] + paths[k][j]);
#pragma endscop
}

int main(void)
{
  int (*paths)[N] = xmalloc(sizeof(int) * (size_t)N * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      paths[i][j] = i == j ? 0
                  : ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0) ? 999
                  : i * j % 7 + 1;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_floyd_warshall(paths);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_int("paths", (const int *)paths, (size_t)N * (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_int((const int *)paths, (size_t)N * (size_t)N));
#endif

  free((void *)paths);
  return 0;
}
