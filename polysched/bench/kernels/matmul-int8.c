/* matmul-int8: quantised matrix multiply: int8 operands, int32 accumulation,
 * C := A * B.
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
#include <stdint.h>

#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) \
    && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
#endif

#ifdef MINI_DATASET
#  ifndef NI
#    define NI 16
#  endif
#  ifndef NJ
#    define NJ 20
#  endif
#  ifndef NK
#    define NK 24
#  endif
#elif defined(SMALL_DATASET)
#  ifndef NI
#    define NI 64
#  endif
#  ifndef NJ
#    define NJ 72
#  endif
#  ifndef NK
#    define NK 80
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef NI
#    define NI 256
#  endif
#  ifndef NJ
#    define NJ 272
#  endif
#  ifndef NK
#    define NK 288
#  endif
#elif defined(LARGE_DATASET)
#  ifndef NI
#    define NI 2048
#  endif
#  ifndef NJ
#    define NJ 2048
#  endif
#  ifndef NK
#    define NK 2048
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef NI
#    define NI 4096
#  endif
#  ifndef NJ
#    define NJ 4096
#  endif
#  ifndef NK
#    define NK 4096
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
static void dump_int32_t(const char *name, const int32_t *p, size_t n)
{
  size_t i;
  printf("== %s ==\n", name);
  for (i = 0; i < n; i++) {
    printf("%d", (int)p[i]);
    putchar(i % 20 == 19 || i + 1 == n ? '\n' : ' ');
  }
}

#else
static double sum_int32_t(const int32_t *p, size_t n)
{
  size_t i;
  double s = 0.0;
  for (i = 0; i < n; i++)
    s += (double)p[i];
  return s;
}

#endif

static void kernel_matmul_int8(int8_t A[NI][NK], int8_t B[NK][NJ], int32_t C[NI][NJ])
{
  int i, j, k;

  /* The int8 operands are promoted to int before the multiply, so the products and
     the sums are exact (|sum| <= NK * 128 * 128 fits in 32 bits for NK < 2^17). */
#pragma scop
  for (i = 0; i < NI; i++) {
    for (j = 0; j < NJ; j++)
      C[i][j] = 0;
    for (k = 0; k < NK; k++)
      for (j = 0; j < NJ; j++)
        C[i][j] += A[i][k] * B[k][j];
  }
#pragma endscop
}

int main(void)
{
  int8_t (*A)[NK] = xmalloc(sizeof(int8_t) * (size_t)NI * (size_t)NK);
  int8_t (*B)[NJ] = xmalloc(sizeof(int8_t) * (size_t)NK * (size_t)NJ);
  int32_t (*C)[NJ] = xmalloc(sizeof(int32_t) * (size_t)NI * (size_t)NJ);
  struct timespec t0, t1;

  int i, j, k;
  for (i = 0; i < NI; i++)
    for (k = 0; k < NK; k++)
      A[i][k] = (int8_t)((i * 7 + k * 13) % 255 - 127);
  for (k = 0; k < NK; k++)
    for (j = 0; j < NJ; j++)
      B[k][j] = (int8_t)((k * 11 + j * 5) % 255 - 127);

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_matmul_int8(A, B, C);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_int32_t("C", (const int32_t *)C, (size_t)NI * (size_t)NJ);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_int32_t((const int32_t *)C, (size_t)NI * (size_t)NJ));
#endif

  free((void *)A);
  free((void *)B);
  free((void *)C);
  return 0;
}
