/* bmm: batched matrix multiply, C[b] := A[b] * B[b] for every batch entry b.
 *
 * Part of the polysched benchmark suite; written for polysched from the
 * mathematical definition, following the conventions of PolyBench/C.
 * Datasets: -D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET (default LARGE);
 * every size macro can also be set alone, e.g. -DNB=37.
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
#  ifndef NB
#    define NB 2
#  endif
#  ifndef NI
#    define NI 8
#  endif
#  ifndef NJ
#    define NJ 10
#  endif
#  ifndef NK
#    define NK 12
#  endif
#elif defined(SMALL_DATASET)
#  ifndef NB
#    define NB 4
#  endif
#  ifndef NI
#    define NI 32
#  endif
#  ifndef NJ
#    define NJ 36
#  endif
#  ifndef NK
#    define NK 40
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef NB
#    define NB 8
#  endif
#  ifndef NI
#    define NI 96
#  endif
#  ifndef NJ
#    define NJ 100
#  endif
#  ifndef NK
#    define NK 104
#  endif
#elif defined(LARGE_DATASET)
#  ifndef NB
#    define NB 32
#  endif
#  ifndef NI
#    define NI 320
#  endif
#  ifndef NJ
#    define NJ 330
#  endif
#  ifndef NK
#    define NK 340
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef NB
#    define NB 64
#  endif
#  ifndef NI
#    define NI 512
#  endif
#  ifndef NJ
#    define NJ 520
#  endif
#  ifndef NK
#    define NK 528
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

static void kernel_bmm(double A[NB][NI][NK], double B[NB][NK][NJ], double C[NB][NI][NJ])
{
  int b, i, j, k;

#pragma scop
  for (b = 0; b < NB; b++)
    for (i = 0; i < NI; i++) {
      for (j = 0; j < NJ; j++)
        C[b][i][j] = 0.0;
      for (k = 0; k < NK; k++)
        for (j = 0; j < NJ; j++)
          C[b][i][j] += A[b][i][k] * B[b][k][j];
    }
#pragma endscop
}

int main(void)
{
  double (*A)[NI][NK] = xmalloc(sizeof(double) * (size_t)NB * (size_t)NI * (size_t)NK);
  double (*B)[NK][NJ] = xmalloc(sizeof(double) * (size_t)NB * (size_t)NK * (size_t)NJ);
  double (*C)[NI][NJ] = xmalloc(sizeof(double) * (size_t)NB * (size_t)NI * (size_t)NJ);
  struct timespec t0, t1;

  int b, i, j, k;
  for (b = 0; b < NB; b++) {
    for (i = 0; i < NI; i++)
      for (k = 0; k < NK; k++)
        A[b][i][k] = (double)((b + i * (k + 1)) % NK) / NK - 0.25;
    for (k = 0; k < NK; k++)
      for (j = 0; j < NJ; j++)
        B[b][k][j] = (double)((2 * b + k * (j + 2)) % NJ) / NJ;
  }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_bmm(A, B, C);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("C", (const double *)C, (size_t)NB * (size_t)NI * (size_t)NJ);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)C, (size_t)NB * (size_t)NI * (size_t)NJ));
#endif

  free((void *)A);
  free((void *)B);
  free((void *)C);
  return 0;
}
