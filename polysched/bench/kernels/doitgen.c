/* doitgen: multiresolution analysis kernel (MADNESS): every row A[r][q][:] of a
 * 3-d array is replaced by its product with the matrix C4.
 *
 * Part of the polysched benchmark suite; written for polysched from the
 * mathematical definition, following the conventions of PolyBench/C.
 * Datasets: -D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET (default LARGE);
 * every size macro can also be set alone, e.g. -DNQ=37.
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
#  ifndef NQ
#    define NQ 8
#  endif
#  ifndef NR
#    define NR 10
#  endif
#  ifndef NP
#    define NP 12
#  endif
#elif defined(SMALL_DATASET)
#  ifndef NQ
#    define NQ 20
#  endif
#  ifndef NR
#    define NR 25
#  endif
#  ifndef NP
#    define NP 30
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef NQ
#    define NQ 40
#  endif
#  ifndef NR
#    define NR 50
#  endif
#  ifndef NP
#    define NP 60
#  endif
#elif defined(LARGE_DATASET)
#  ifndef NQ
#    define NQ 200
#  endif
#  ifndef NR
#    define NR 220
#  endif
#  ifndef NP
#    define NP 256
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef NQ
#    define NQ 250
#  endif
#  ifndef NR
#    define NR 270
#  endif
#  ifndef NP
#    define NP 320
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

static void kernel_doitgen(DATA_TYPE A[NR][NQ][NP], DATA_TYPE C4[NP][NP], DATA_TYPE sum[NP])
{
  int r, q, p, s;

#pragma scop
  for (r = 0; r < NR; r++)
    for (q = 0; q < NQ; q++) {
      for (p = 0; p < NP; p++) {
        sum[p] = 0.0;
        for (s = 0; s < NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < NP; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}

int main(void)
{
  DATA_TYPE (*A)[NQ][NP] = xmalloc(sizeof(DATA_TYPE) * (size_t)NR * (size_t)NQ * (size_t)NP);
  DATA_TYPE (*C4)[NP] = xmalloc(sizeof(DATA_TYPE) * (size_t)NP * (size_t)NP);
  DATA_TYPE *sum = xmalloc(sizeof(DATA_TYPE) * (size_t)NP);
  struct timespec t0, t1;

  int i, j, k;
  for (i = 0; i < NR; i++)
    for (j = 0; j < NQ; j++)
      for (k = 0; k < NP; k++)
        A[i][j][k] = (DATA_TYPE)((i * j + k) % NP) / NP;
  for (i = 0; i < NP; i++)
    for (j = 0; j < NP; j++)
      C4[i][j] = (DATA_TYPE)(i * j % NP) / NP;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_doitgen(A, C4, sum);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_data_type("A", (const DATA_TYPE *)A, (size_t)NR * (size_t)NQ * (size_t)NP);
  dump_data_type("sum", (const DATA_TYPE *)sum, (size_t)NP);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_data_type((const DATA_TYPE *)A, (size_t)NR * (size_t)NQ * (size_t)NP)
          + sum_data_type((const DATA_TYPE *)sum, (size_t)NP));
#endif

  free((void *)A);
  free((void *)C4);
  free((void *)sum);
  return 0;
}
