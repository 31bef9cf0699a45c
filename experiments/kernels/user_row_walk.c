/* user_row_walk: row-by-row image code as users write it: pointers that walk the rows
 * (src += w; dst += w;), then a column recurrence and a transposed copy through a size_t
 * index helper. Each was refused before session 50 ("'src' is a pointer used as a whole
 * value", "call of 'idx'"). (A walking pointer that starts at an array the region also
 * reads directly, dst = out then out[...], makes the overlap check fail: the original
 * runs.) */
#ifndef _POSIX_C_SOURCE
#  define _POSIX_C_SOURCE 200809L
#endif
#include <stddef.h>
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
#    define N 2000
#  endif
#endif

static inline size_t idx(size_t y, size_t x, size_t w) { return y * w + x; }

static void dump(const char *name, const float *p, long n) {
  double s = 0.0;
  for (long i = 0; i < n; i++) s += p[i] * (double)(1 + i % 7);
#ifdef POLYSCHED_DUMP
  printf("== %s ==\n", name);
  for (long i = 0; i < n; i++) printf("%a%c", p[i], i % 8 == 7 || i + 1 == n ? '\n' : ' ');
#endif
  fprintf(stderr, "polysched-checksum: %s %.17g\n", name, s);
}

static void kernel(int w, int h, const float *img, float *out, float *t, float *u) {
  const float *src = img;
  float *dst = out;
#pragma scop
  for (int y = 0; y < h; y++) {
    for (int x = 1; x < w - 1; x++)
      dst[x] = 0.25f * src[x - 1] + 0.5f * src[x] + 0.25f * src[x + 1];
    src += w;
    dst += w;
  }
  for (int x = 0; x < w; x++)
    for (int y = 1; y < h; y++)
      t[idx(y, x, w)] += 0.5f * t[idx(y - 1, x, w)];
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      u[idx(x, y, h)] = t[idx(y, x, w)];
#pragma endscop
}
int main(void) {
  int w = N, h = N + N / 4;
  float *img = malloc(sizeof(float) * w * h), *out = calloc((size_t) w * h, sizeof(float));
  float *t = malloc(sizeof(float) * w * h), *u = calloc((size_t) w * h, sizeof(float));
  for (int i = 0; i < w * h; i++) { img[i] = (float) ((i * 13) % 17) * 0.5f; t[i] = (float) (i % 5); }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < 4; r++)
    kernel(w, h, img, out, t, u);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("out", out, (long) w * h);
  dump("t", t, (long) w * h);
  dump("u", u, (long) w * h);
  free(img); free(out); free(t); free(u);
  return 0;
}
