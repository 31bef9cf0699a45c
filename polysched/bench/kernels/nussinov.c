/* nussinov: Nussinov RNA folding: maximum number of nested base pairs of every
 * subsequence seq[i..j], by dynamic programming over growing intervals.
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
#    define N 2500
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef N
#    define N 5000
#  endif
#endif

#define MAX(a, b) ((a) >= (b) ? (a) : (b))
#define PAIRS(b1, b2) ((b1) + (b2) == 3 ? 1 : 0)

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

static void kernel_nussinov(int seq[N], int table[N][N])
{
  int i, j, k;

#pragma scop
  for (i = N - 1; i >= 0; i--)
    for (j = i + 1; j < N; j++) {
      if (j - 1 >= 0)
        table[i][j] = MAX(table[i][j], table[i][j - 1]);
      if (i + 1 < N)
        table[i][j] = MAX(table[i][j], table[i + 1][j]);
      if (j - 1 >= 0 && i + 1 < N && i < j - 1)
        table[i][j] = MAX(table[i][j], table[i + 1][j - 1] + PAIRS(seq[i], seq[j]));
      if (j - 1 >= 0 && i + 1 < N && i >= j - 1)
        table[i][j] = MAX(table[i][j], table[i + 1][j - 1]);
      for (k = i + 1; k < j; k++)
        table[i][j] = MAX(table[i][j], table[i][k] + table[k + 1][j]);
    }
#pragma endscop
}

int main(void)
{
  int *seq = xmalloc(sizeof(int) * (size_t)N);
  int (*table)[N] = xmalloc(sizeof(int) * (size_t)N * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  /* Bases are 0..3 (A, C, G, U); a pair is complementary when the codes sum to 3. */
  for (i = 0; i < N; i++) {
    seq[i] = (i * 7 + i / 3 + 1) % 4;
    for (j = 0; j < N; j++)
      table[i][j] = 0;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_nussinov(seq, table);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_int("table", (const int *)table, (size_t)N * (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_int((const int *)table, (size_t)N * (size_t)N));
#endif

  free((void *)seq);
  free((void *)table);
  return 0;
}
