/* 3mm: three matrix multiplies, E := A*B; F := C*D; G := E*F.
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
#    define NK 20
#  endif
#  ifndef NL
#    define NL 22
#  endif
#  ifndef NM
#    define NM 24
#  endif
#elif defined(SMALL_DATASET)
#  ifndef NI
#    define NI 40
#  endif
#  ifndef NJ
#    define NJ 50
#  endif
#  ifndef NK
#    define NK 60
#  endif
#  ifndef NL
#    define NL 70
#  endif
#  ifndef NM
#    define NM 80
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef NI
#    define NI 180
#  endif
#  ifndef NJ
#    define NJ 190
#  endif
#  ifndef NK
#    define NK 200
#  endif
#  ifndef NL
#    define NL 210
#  endif
#  ifndef NM
#    define NM 220
#  endif
#elif defined(LARGE_DATASET)
#  ifndef NI
#    define NI 800
#  endif
#  ifndef NJ
#    define NJ 900
#  endif
#  ifndef NK
#    define NK 1000
#  endif
#  ifndef NL
#    define NL 1100
#  endif
#  ifndef NM
#    define NM 1200
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef NI
#    define NI 1600
#  endif
#  ifndef NJ
#    define NJ 1800
#  endif
#  ifndef NK
#    define NK 2000
#  endif
#  ifndef NL
#    define NL 2200
#  endif
#  ifndef NM
#    define NM 2400
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

static void kernel_3mm(double E[NI][NJ], double A[NI][NK], double B[NK][NJ],
                       double F[NJ][NL], double C[NJ][NM], double D[NM][NL],
                       double G[NI][NL])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      E[i][j] = 0.0;
      for (k = 0; k < NK; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NL; j++) {
      F[i][j] = 0.0;
      for (k = 0; k < NM; k++)
        F[i][j] += C[i][k] * D[k][j];
    }
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++) {
      G[i][j] = 0.0;
      for (k = 0; k < NJ; k++)
        G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
}

int main(void)
{
  double (*E)[NJ] = xmalloc(sizeof(double) * (size_t)NI * (size_t)NJ);
  double (*A)[NK] = xmalloc(sizeof(double) * (size_t)NI * (size_t)NK);
  double (*B)[NJ] = xmalloc(sizeof(double) * (size_t)NK * (size_t)NJ);
  double (*F)[NL] = xmalloc(sizeof(double) * (size_t)NJ * (size_t)NL);
  double (*C)[NM] = xmalloc(sizeof(double) * (size_t)NJ * (size_t)NM);
  double (*D)[NL] = xmalloc(sizeof(double) * (size_t)NM * (size_t)NL);
  double (*G)[NL] = xmalloc(sizeof(double) * (size_t)NI * (size_t)NL);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NK; j++)
      A[i][j] = (double)((i * j + 1) % NI) / (5 * NI);
  for (i = 0; i < NK; i++)
    for (j = 0; j < NJ; j++)
      B[i][j] = (double)((i * (j + 1) + 2) % NJ) / (5 * NJ);
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NM; j++)
      C[i][j] = (double)(i * (j + 3) % NL) / (5 * NL);
  for (i = 0; i < NM; i++)
    for (j = 0; j < NL; j++)
      D[i][j] = (double)((i * (j + 2) + 2) % NK) / (5 * NK);

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_3mm(E, A, B, F, C, D, G);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("E", (const double *)E, (size_t)NI * (size_t)NJ);
  dump_double("F", (const double *)F, (size_t)NJ * (size_t)NL);
  dump_double("G", (const double *)G, (size_t)NI * (size_t)NL);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)E, (size_t)NI * (size_t)NJ)
          + sum_double((const double *)F, (size_t)NJ * (size_t)NL)
          + sum_double((const double *)G, (size_t)NI * (size_t)NL));
#endif

  free((void *)E);
  free((void *)A);
  free((void *)B);
  free((void *)F);
  free((void *)C);
  free((void *)D);
  free((void *)G);
  return 0;
}
