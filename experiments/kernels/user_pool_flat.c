/* user_pool_flat: an image pipeline as users write it over flat buffers: a flat clear
 * over h * w next to the 2-D passes, a 3x3 box filter, a 2x2 max pool into rows of
 * w / 2, and a ping-pong smoothing of a line, A[(t & 1) ^ 1], that stops at a limit
 * with a break. Before session 51 the clear made the optimized code run only for
 * h * w <= w (never), and the pool, the flip and the break were refused. */
#ifndef _POSIX_C_SOURCE
#  define _POSIX_C_SOURCE 200809L
#endif
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <math.h>
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
#    define N 2000
#  endif
#endif

static void dump(const char *name, const float *p, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += p[i] * (double)(1 + i % 7);
#ifdef POLYSCHED_DUMP
  printf("== %s ==\n", name);
  for (long i = 0; i < n; i++) printf("%a%c", p[i], i % 8 == 7 || i + 1 == n ? '\n' : ' ');
#endif
  fprintf(stderr, "polysched-checksum: %s %.17g\n", name, s);
}

static void kernel(int w, int h, int steps, int limit, const float *img, float *acc, float *pool,
                   float buf[2][N]) {
#pragma scop
  for (int i = 0; i < h * w; i++)
    acc[i] = 0.0f;
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          acc[y * w + x] += img[(y + dy) * w + x + dx] * 0.111f;
  for (int y = 0; y < h / 2; y++)
    for (int x = 0; x < w / 2; x++)
      pool[y * (w / 2) + x] = fmaxf(fmaxf(acc[2 * y * w + 2 * x], acc[2 * y * w + 2 * x + 1]),
                                    fmaxf(acc[(2 * y + 1) * w + 2 * x], acc[(2 * y + 1) * w + 2 * x + 1]));
  for (int t = 0; t < steps; t++)
    for (int x = 1; x < w - 1; x++) {
      if (x >= limit)
        break;
      buf[(t & 1) ^ 1][x] = 0.25f * buf[t & 1][x - 1] + 0.5f * buf[t & 1][x] + 0.25f * buf[t & 1][x + 1];
    }
#pragma endscop
}
int main(void) {
  int w = N, h = N + N / 4, steps = N / 4, limit = N - N / 8;
  float *img = malloc(sizeof(float) * w * h), *acc = malloc(sizeof(float) * w * h);
  float *pool = calloc((size_t) w * h, sizeof(float));
  float (*buf)[N] = malloc(sizeof(float[2][N]));
  for (int i = 0; i < w * h; i++) { img[i] = (float) ((i * 13) % 17) * 0.5f; acc[i] = -1.0f; }
  for (int x = 0; x < N; x++) { buf[0][x] = (float) (x % 9); buf[1][x] = (float) (x % 4); }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < 4; r++)
    kernel(w, h, steps, limit, img, acc, pool, buf);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("acc", acc, (long) w * h);
  dump("pool", pool, (long) w * h);
  dump("buf", &buf[0][0], 2L * N);
  free(img); free(acc); free(pool); free(buf);
  return 0;
}
