/* 2mm: two chained matrix multiplies, D := alpha*A*B*C + beta*D
 * (tmp := alpha*A*B first).
 *
 * Part of the polysched benchmark suite; written for polysched from the
 * mathematical definition, following the conventions of PolyBench/C.
 * Datasets: -D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET (default LARGE);
 * every size macro can also be set alone, e.g. -DNI=37.
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
#  ifndef NI
#    define NI 16
#  endif
#  ifndef NJ
#    define NJ 18
#  endif
#  ifndef NK
#    define NK 22
#  endif
#  ifndef NL
#    define NL 24
#  endif
#elif defined(SMALL_DATASET)
#  ifndef NI
#    define NI 40
#  endif
#  ifndef NJ
#    define NJ 50
#  endif
#  ifndef NK
#    define NK 70
#  endif
#  ifndef NL
#    define NL 80
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef NI
#    define NI 180
#  endif
#  ifndef NJ
#    define NJ 190
#  endif
#  ifndef NK
#    define NK 210
#  endif
#  ifndef NL
#    define NL 220
#  endif
#elif defined(LARGE_DATASET)
#  ifndef NI
#    define NI 800
#  endif
#  ifndef NJ
#    define NJ 900
#  endif
#  ifndef NK
#    define NK 1100
#  endif
#  ifndef NL
#    define NL 1200
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef NI
#    define NI 1600
#  endif
#  ifndef NJ
#    define NJ 1800
#  endif
#  ifndef NK
#    define NK 2200
#  endif
#  ifndef NL
#    define NL 2400
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

static void kernel_2mm(double alpha, double beta, double tmp[NI][NJ], double A[NI][NK],
                       double B[NK][NJ], double C[NJ][NL], double D[NI][NL])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      tmp[i][j] = 0.0;
      for (k = 0; k < NK; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++) {
      D[i][j] *= beta;
      for (k = 0; k < NJ; k++)
        D[i][j] += tmp[i][k] * C[k][j];
    }
#pragma endscop
}

int main(void)
{
  double alpha = 1.5;
  double beta = 1.2;
  double (*tmp)[NJ] = xmalloc(sizeof(double) * (size_t)NI * (size_t)NJ);
  double (*A)[NK] = xmalloc(sizeof(double) * (size_t)NI * (size_t)NK);
  double (*B)[NJ] = xmalloc(sizeof(double) * (size_t)NK * (size_t)NJ);
  double (*C)[NL] = xmalloc(sizeof(double) * (size_t)NJ * (size_t)NL);
  double (*D)[NL] = xmalloc(sizeof(double) * (size_t)NI * (size_t)NL);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NK; j++)
      A[i][j] = (double)((i * j + 1) % NI) / NI;
  for (i = 0; i < NK; i++)
    for (j = 0; j < NJ; j++)
      B[i][j] = (double)(i * (j + 1) % NJ) / NJ;
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NL; j++)
      C[i][j] = (double)((i * (j + 3) + 1) % NL) / NL;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++)
      D[i][j] = (double)(i * (j + 2) % NK) / NK;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_2mm(alpha, beta, tmp, A, B, C, D);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("tmp", (const double *)tmp, (size_t)NI * (size_t)NJ);
  dump_double("D", (const double *)D, (size_t)NI * (size_t)NL);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)tmp, (size_t)NI * (size_t)NJ)
          + sum_double((const double *)D, (size_t)NI * (size_t)NL));
#endif

  free((void *)tmp);
  free((void *)A);
  free((void *)B);
  free((void *)C);
  free((void *)D);
  return 0;
}
