/* adi: alternating-direction implicit (Peaceman-Rachford) solver of the 2-d heat
 * equation; each half step solves tridiagonal systems with the Thomas algorithm
 * (forward elimination into p, q; back substitution counting down).
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
#  ifndef N
#    define N 20
#  endif
#elif defined(SMALL_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 40
#  endif
#  ifndef N
#    define N 60
#  endif
#elif defined(MEDIUM_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 100
#  endif
#  ifndef N
#    define N 200
#  endif
#elif defined(LARGE_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 200
#  endif
#  ifndef N
#    define N 1000
#  endif
#elif defined(EXTRALARGE_DATASET)
#  ifndef TSTEPS
#    define TSTEPS 400
#  endif
#  ifndef N
#    define N 2000
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

static void kernel_adi(double u[N][N], double v[N][N], double p[N][N], double q[N][N])
{
  int t, i, j;
  /* Grid spacing and time step of the unit square / unit time interval. */
  double dx = 1.0 / N, dy = 1.0 / N, dt = 1.0 / TSTEPS;
  /* Diffusion coefficients along the two directions. */
  double kx = 2.0, ky = 1.0;
  double rx = kx * dt / (dx * dx), ry = ky * dt / (dy * dy);
  /* Tridiagonal coefficients: (a, b, c) for the x-implicit half step, (d, e, f) for the
     y-implicit one; the same numbers weight the explicit part of the other half step. */
  double a = -rx / 2.0, b = 1.0 + rx, c = -rx / 2.0;
  double d = -ry / 2.0, e = 1.0 + ry, f = -ry / 2.0;

#pragma scop
  for (t = 1; t <= TSTEPS; t++) {
    for (i = 1; i < N - 1; i++) {
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (j = 1; j < N - 1; j++) {
        p[i][j] = -c / (a * p[i][j - 1] + b);
        q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1]
                   - a * q[i][j - 1]) / (a * p[i][j - 1] + b);
      }
      v[N - 1][i] = 1.0;
      for (j = N - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }
    for (i = 1; i < N - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (j = 1; j < N - 1; j++) {
        p[i][j] = -f / (d * p[i][j - 1] + e);
        q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] - c * v[i + 1][j]
                   - d * q[i][j - 1]) / (d * p[i][j - 1] + e);
      }
      u[i][N - 1] = 1.0;
      for (j = N - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
#pragma endscop
}

int main(void)
{
  double (*u)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  double (*v)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  double (*p)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  double (*q)[N] = xmalloc(sizeof(double) * (size_t)N * (size_t)N);
  struct timespec t0, t1;

  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      u[i][j] = (double)(i + N - j) / N;
      v[i][j] = 0.0;
      p[i][j] = 0.0;
      q[i][j] = 0.0;
    }

  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel_adi(u, v, p, q);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n",
          (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));

#ifdef POLYSCHED_DUMP
  dump_double("u", (const double *)u, (size_t)N * (size_t)N);
  dump_double("v", (const double *)v, (size_t)N * (size_t)N);
  dump_double("p", (const double *)p, (size_t)N * (size_t)N);
  dump_double("q", (const double *)q, (size_t)N * (size_t)N);
#else
  fprintf(stderr, "polysched-checksum: %.10g\n",
          sum_double((const double *)u, (size_t)N * (size_t)N)
          + sum_double((const double *)v, (size_t)N * (size_t)N)
          + sum_double((const double *)p, (size_t)N * (size_t)N)
          + sum_double((const double *)q, (size_t)N * (size_t)N));
#endif

  free((void *)u);
  free((void *)v);
  free((void *)p);
  free((void *)q);
  return 0;
}
