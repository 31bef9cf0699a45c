/* gemm: general matrix multiply, C := alpha*A*B + beta*C.
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
#    define NI 20
#  endif
#  ifndef NJ
#    define NJ 25
#  endif
#  ifndef NK
#    define NK 30
#  endif
#elif defined(SMALL_DATASET)
#  ifndef NI
#    define NI 60
#  endif
#  ifndef NJ
#    define NJ 70
#  endif
#  ifndef NK
#    define NK 80
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef NI
#    define NI 200
#  endif
#  ifndef NJ
#    define NJ 220
#  endif
#  ifndef NK
#    define NK 240
#  endif
#elif defined(LARGE_DATASET)
#  ifndef NI
#    define NI 1000
#  endif
#  ifndef NJ
#    define NJ 1100
#  endif
#  ifndef NK
#    define NK 1200
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef NI
#    define NI 2000
#  endif
#  ifndef NJ
#    define NJ 2300
#  endif
#  ifndef NK
#    define NK 2600
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

static void kernel_gemm(double alpha, double beta,
                        double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < NI; i++) {
    for (j = 0; j < NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < NK; k++)
      for (j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}

int main(void)
{
  double alpha = 1.5;
  double beta = 1.2;
  double (*C)[NJ] = xmalloc(sizeof(double) * (size_t)NI * (size_t)NJ);
  double (*A)[NK] = xmalloc(sizeof(double) * (size_t)NI * (size_t)NK);
  double (*B)[NJ] = xmalloc(sizeof(double) * (size_t)NK * (size_t)NJ);
  struct timespec t0, t1;

  int i, j, k;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      C[i][j] = (double)((i * j + 1) % NI) / NI;
  for (i = 0; i < NI; i++)
    for (k = 0; k < NK; k++)
      A[i][k] = (double)(i * (k + 1) % NK) / NK;
  for (k = 0; k < NK; k++)
    for (j = 0; j < NJ; j++)
      B[k][j] = (double)(k * (j + 2) % NJ) / NJ;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_gemm(alpha, beta, C, A, B);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("C", (const double *)C, (size_t)NI * (size_t)NJ);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)C, (size_t)NI * (size_t)NJ));
#endif

  free((void *)C);
  free((void *)A);
  free((void *)B);
  return 0;
}
