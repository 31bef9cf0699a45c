/* user_channels: a 5-point blur of an RGB image stored as planes, the three channels
 * the outermost loop with a literal bound, as image code writes it. Before session 51
 * the channel loop's single tile (3 channels in a tile of 4) took the parallel pragma,
 * which was then dropped ("runs at most once"): --tile --parallel ran sequentially. */
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

static void kernel(int h, int w, float (*img)[h][w], float (*out)[h][w]) {
#pragma scop
  for (int c = 0; c < 3; c++)
    for (int y = 1; y < h - 1; y++)
      for (int x = 1; x < w - 1; x++)
        out[c][y][x] = 0.2f * (img[c][y][x] + img[c][y - 1][x] + img[c][y + 1][x] + img[c][y][x - 1]
                               + img[c][y][x + 1]);
#pragma endscop
}
int main(void) {
  int h = N + N / 4, w = N;
  float *img = malloc(sizeof(float) * 3 * h * w), *out = calloc((size_t) 3 * h * w, sizeof(float));
  for (int i = 0; i < 3 * h * w; i++) img[i] = (float) ((i * 13) % 17) * 0.5f;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < 4; r++)
    kernel(h, w, (float (*)[h][w]) img, (float (*)[h][w]) out);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("out", out, 3L * h * w);
  free(img); free(out);
  return 0;
}
