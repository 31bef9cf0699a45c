/* deriche: Deriche recursive edge-preserving smoothing filter: causal and
 * anti-causal second-order recursions along rows, then along columns.
 *
 * Part of the polysched benchmark suite; written for polysched from the
 * mathematical definition, following the conventions of PolyBench/C.
 * Datasets: -D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET (default LARGE);
 * every size macro can also be set alone, e.g. -DW=37.
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
#  ifndef W
#    define W 64
#  endif
#  ifndef H
#    define H 64
#  endif
#elif defined(SMALL_DATASET)
#  ifndef W
#    define W 192
#  endif
#  ifndef H
#    define H 128
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef W
#    define W 720
#  endif
#  ifndef H
#    define H 480
#  endif
#elif defined(LARGE_DATASET)
#  ifndef W
#    define W 4096
#  endif
#  ifndef H
#    define H 2160
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef W
#    define W 7680
#  endif
#  ifndef H
#    define H 4320
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

static void kernel_deriche(double alpha, double imgIn[W][H], double imgOut[W][H],
                           double y1[W][H], double y2[W][H])
{
  int i, j;
  double k, a1, a2, a3, a4, a5, a6, a7, a8, b1, b2, c1, c2;
  double xm1, tm1, ym1, ym2, xp1, xp2, tp1, tp2, yp1, yp2;

#pragma scop
  /* Smoothing filter gains: k normalises the response to a constant image; the
     feedback coefficients place a double pole at exp(-alpha). */
  k = (1.0 - exp(-alpha)) * (1.0 - exp(-alpha))
      / (1.0 + 2.0 * alpha * exp(-alpha) - exp(-2.0 * alpha));
  a1 = k;
  a5 = k;
  a2 = k * exp(-alpha) * (alpha - 1.0);
  a6 = k * exp(-alpha) * (alpha - 1.0);
  a3 = k * exp(-alpha) * (alpha + 1.0);
  a7 = k * exp(-alpha) * (alpha + 1.0);
  a4 = -k * exp(-2.0 * alpha);
  a8 = -k * exp(-2.0 * alpha);
  b1 = 2.0 * exp(-alpha);
  b2 = -pow(exp(-alpha), 2.0);
  c1 = 1.0;
  c2 = 1.0;
  for (i = 0; i < W; i++) {
    ym1 = 0.0;
    ym2 = 0.0;
    xm1 = 0.0;
    for (j = 0; j < H; j++) {
      y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = imgIn[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
  for (i = 0; i < W; i++) {
    yp1 = 0.0;
    yp2 = 0.0;
    xp1 = 0.0;
    xp2 = 0.0;
    for (j = H - 1; j >= 0; j--) {
      y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = imgIn[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }
  for (i = 0; i < W; i++)
    for (j = 0; j < H; j++)
      imgOut[i][j] = c1 * (y1[i][j] + y2[i][j]);
  for (j = 0; j < H; j++) {
    tm1 = 0.0;
    ym1 = 0.0;
    ym2 = 0.0;
    for (i = 0; i < W; i++) {
      y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
      tm1 = imgOut[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
  for (j = 0; j < H; j++) {
    tp1 = 0.0;
    tp2 = 0.0;
    yp1 = 0.0;
    yp2 = 0.0;
    for (i = W - 1; i >= 0; i--) {
      y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
      tp2 = tp1;
      tp1 = imgOut[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }
  for (i = 0; i < W; i++)
    for (j = 0; j < H; j++)
      imgOut[i][j] = c2 * (y1[i][j] + y2[i][j]);
#pragma endscop
}

int main(void)
{
  double alpha = 0.25;
  double (*imgIn)[H] = xmalloc(sizeof(double) * (size_t)W * (size_t)H);
  double (*imgOut)[H] = xmalloc(sizeof(double) * (size_t)W * (size_t)H);
  double (*y1)[H] = xmalloc(sizeof(double) * (size_t)W * (size_t)H);
  double (*y2)[H] = xmalloc(sizeof(double) * (size_t)W * (size_t)H);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < W; i++)
    for (j = 0; j < H; j++)
      imgIn[i][j] = (double)((313 * i + 991 * j) % 65536) / 65535.0;

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_deriche(alpha, imgIn, imgOut, y1, y2);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("imgOut", (const double *)imgOut, (size_t)W * (size_t)H);
  dump_double("y1", (const double *)y1, (size_t)W * (size_t)H);
  dump_double("y2", (const double *)y2, (size_t)W * (size_t)H);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)imgOut, (size_t)W * (size_t)H)
          + sum_double((const double *)y1, (size_t)W * (size_t)H)
          + sum_double((const double *)y2, (size_t)W * (size_t)H));
#endif

  free((void *)imgIn);
  free((void *)imgOut);
  free((void *)y1);
  free((void *)y2);
  return 0;
}
