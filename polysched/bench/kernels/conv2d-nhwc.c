/* conv2d-nhwc: 2-d convolution (cross-correlation, stride 1, no padding) in NHWC
 * layout with an RSCK filter: out[n][h][w][k] = sum over r, s, c of
 * in[n][h+r][w+s][c] * wt[r][s][c][k]. NH x NW is the output size.
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
#    define NB 1
#  endif
#  ifndef NC
#    define NC 3
#  endif
#  ifndef NK
#    define NK 4
#  endif
#  ifndef NH
#    define NH 8
#  endif
#  ifndef NW
#    define NW 8
#  endif
#  ifndef NR
#    define NR 3
#  endif
#  ifndef NS
#    define NS 3
#  endif
#elif defined(SMALL_DATASET)
#  ifndef NB
#    define NB 2
#  endif
#  ifndef NC
#    define NC 8
#  endif
#  ifndef NK
#    define NK 16
#  endif
#  ifndef NH
#    define NH 16
#  endif
#  ifndef NW
#    define NW 16
#  endif
#  ifndef NR
#    define NR 3
#  endif
#  ifndef NS
#    define NS 3
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef NB
#    define NB 4
#  endif
#  ifndef NC
#    define NC 32
#  endif
#  ifndef NK
#    define NK 32
#  endif
#  ifndef NH
#    define NH 28
#  endif
#  ifndef NW
#    define NW 28
#  endif
#  ifndef NR
#    define NR 3
#  endif
#  ifndef NS
#    define NS 3
#  endif
#elif defined(LARGE_DATASET)
#  ifndef NB
#    define NB 16
#  endif
#  ifndef NC
#    define NC 64
#  endif
#  ifndef NK
#    define NK 64
#  endif
#  ifndef NH
#    define NH 56
#  endif
#  ifndef NW
#    define NW 56
#  endif
#  ifndef NR
#    define NR 3
#  endif
#  ifndef NS
#    define NS 3
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef NB
#    define NB 32
#  endif
#  ifndef NC
#    define NC 128
#  endif
#  ifndef NK
#    define NK 128
#  endif
#  ifndef NH
#    define NH 56
#  endif
#  ifndef NW
#    define NW 56
#  endif
#  ifndef NR
#    define NR 3
#  endif
#  ifndef NS
#    define NS 3
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

static void kernel_conv2d_nhwc(double in[NB][NH + NR - 1][NW + NS - 1][NC],
                               double wt[NR][NS][NC][NK], double out[NB][NH][NW][NK])
{
  int n, h, w, k, r, s, c;

#pragma scop
  for (n = 0; n < NB; n++)
    for (h = 0; h < NH; h++)
      for (w = 0; w < NW; w++)
        for (k = 0; k < NK; k++)
          out[n][h][w][k] = 0.0;
  for (n = 0; n < NB; n++)
    for (h = 0; h < NH; h++)
      for (w = 0; w < NW; w++)
        for (r = 0; r < NR; r++)
          for (s = 0; s < NS; s++)
            for (c = 0; c < NC; c++)
              for (k = 0; k < NK; k++)
                out[n][h][w][k] += in[n][h + r][w + s][c] * wt[r][s][c][k];
#pragma endscop
}

int main(void)
{
  double (*in)[NH + NR - 1][NW + NS - 1][NC] = xmalloc(sizeof(double) * (size_t)NB * (size_t)(NH + NR - 1) * (size_t)(NW + NS - 1) * (size_t)NC);
  double (*wt)[NS][NC][NK] = xmalloc(sizeof(double) * (size_t)NR * (size_t)NS * (size_t)NC * (size_t)NK);
  double (*out)[NH][NW][NK] = xmalloc(sizeof(double) * (size_t)NB * (size_t)NH * (size_t)NW * (size_t)NK);
  struct timespec t0, t1;

  int n, c, h, w, k, r, s;
  for (n = 0; n < NB; n++)
    for (h = 0; h < NH + NR - 1; h++)
      for (w = 0; w < NW + NS - 1; w++)
        for (c = 0; c < NC; c++)
          in[n][h][w][c] = (double)((n + 2 * c + 3 * h + 5 * w) % 17) / 17.0 - 0.5;
  for (r = 0; r < NR; r++)
    for (s = 0; s < NS; s++)
      for (c = 0; c < NC; c++)
        for (k = 0; k < NK; k++)
          wt[r][s][c][k] = (double)((3 * k + 5 * c + 7 * r + 11 * s) % 13) / 13.0 - 0.5;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_conv2d_nhwc(in, wt, out);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("out", (const double *)out, (size_t)NB * (size_t)NH * (size_t)NW * (size_t)NK);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)out, (size_t)NB * (size_t)NH * (size_t)NW * (size_t)NK));
#endif

  free((void *)in);
  free((void *)wt);
  free((void *)out);
  return 0;
}
