/* user_colscan: a first-order recursive filter down each column of an image and a
 * running column sum, with the recurrence in scalars (prev, acc). */
#ifndef _POSIX_C_SOURCE
#  define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define LARGE_DATASET
#endif
#ifndef N
#  if defined(MINI_DATASET)
#    define N 24
#  elif defined(SMALL_DATASET)
#    define N 120
#  elif defined(MEDIUM_DATASET)
#    define N 500
#  else
#    define N 4000
#  endif
#endif

static void dump(const char *name, const double *p, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += p[i] * (double)(1 + i % 7);
#ifdef POLYSCHED_DUMP
  printf("== %s ==\n", name);
  for (long i = 0; i < n; i++) printf("%a%c", p[i], i % 8 == 7 || i + 1 == n ? '\n' : ' ');
#endif
  fprintf(stderr, "polysched-checksum: %s %.17g\n", name, s);
}

static void kernel(int n, double img[n][n], double out[n][n], double sum[n][n]) {
  int i, j;
  double prev, acc;
#pragma scop
  for (j = 0; j < n; j++) {
    prev = 0.0;
    acc = 0.0;
    for (i = 0; i < n; i++) {
      out[i][j] = 0.6 * img[i][j] + 0.4 * prev;
      prev = out[i][j];
      acc += img[i][j];
      sum[i][j] = acc;
    }
  }
#pragma endscop
}
int main(void) {
  double (*img)[N] = malloc(sizeof(double) * N * N), (*out)[N] = malloc(sizeof(double) * N * N),
         (*sum)[N] = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) img[i][j] = (double)((i * 31 + j * 17) % 256) / 255.0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel(N, img, out, sum);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("out", &out[0][0], (long)N * N);
  dump("sum", &sum[0][0], (long)N * N);
  free(img); free(out); free(sum);
  return 0;
}
