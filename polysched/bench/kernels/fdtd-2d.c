/* fdtd-2d: 2-d finite-difference time-domain (Yee) update of the fields ex, ey, hz
 * with a source on the row ey[0][:].
 *
 * Part of the polysched benchmark suite; written for polysched from the
 * mathematical definition, following the conventions of PolyBench/C.
 * Datasets: -D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET (default LARGE);
 * every size macro can also be set alone, e.g. -DTSTEPS=37.
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
#  ifndef TSTEPS
#    define TSTEPS 20
#  endif
#  ifndef NX
#    define NX 20
#  endif
#  ifndef NY
#    define NY 30
#  endif
#elif defined(SMALL_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 40
#  endif
#  ifndef NX
#    define NX 60
#  endif
#  ifndef NY
#    define NY 80
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 100
#  endif
#  ifndef NX
#    define NX 200
#  endif
#  ifndef NY
#    define NY 240
#  endif
#elif defined(LARGE_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 500
#  endif
#  ifndef NX
#    define NX 1000
#  endif
#  ifndef NY
#    define NY 1200
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 1000
#  endif
#  ifndef NX
#    define NX 2000
#  endif
#  ifndef NY
#    define NY 2600
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

static void kernel_fdtd_2d(double ex[NX][NY], double ey[NX][NY], double hz[NX][NY],
                           double source[TSTEPS])
{
  int t, i, j;

#pragma scop
  for (t = 0; t < TSTEPS; t++) {
    for (j = 0; j < NY; j++)
      ey[0][j] = source[t];
    for (i = 1; i < NX; i++)
      for (j = 0; j < NY; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < NX; i++)
      for (j = 1; j < NY; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < NX - 1; i++)
      for (j = 0; j < NY - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}

int main(void)
{
  double (*ex)[NY] = xmalloc(sizeof(double) * (size_t)NX * (size_t)NY);
  double (*ey)[NY] = xmalloc(sizeof(double) * (size_t)NX * (size_t)NY);
  double (*hz)[NY] = xmalloc(sizeof(double) * (size_t)NX * (size_t)NY);
  double *source = xmalloc(sizeof(double) * (size_t)TSTEPS);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < TSTEPS; i++)
    source[i] = (double)i / TSTEPS;
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++) {
      ex[i][j] = ((double)i * (j + 1)) / NX;
      ey[i][j] = ((double)i * (j + 2)) / NY;
      hz[i][j] = ((double)i * (j + 3)) / NX;
    }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_fdtd_2d(ex, ey, hz, source);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("ex", (const double *)ex, (size_t)NX * (size_t)NY);
  dump_double("ey", (const double *)ey, (size_t)NX * (size_t)NY);
  dump_double("hz", (const double *)hz, (size_t)NX * (size_t)NY);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)ex, (size_t)NX * (size_t)NY)
          + sum_double((const double *)ey, (size_t)NX * (size_t)NY)
          + sum_double((const double *)hz, (size_t)NX * (size_t)NY));
#endif

  free((void *)ex);
  free((void *)ey);
  free((void *)hz);
  free((void *)source);
  return 0;
}
