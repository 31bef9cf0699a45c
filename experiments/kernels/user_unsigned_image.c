/* user_unsigned_image: image code as users write it, over malloc'd buffers with unsigned
 * sizes and counters: a 5-point blur out[y * w + x], a scaled transpose and an update
 * that reads it back across its rows, each
 * subscript computed in 32-bit unsigned arithmetic (read as rows under a run-time check
 * that the addresses stay below 2**32). */
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

static void kernel(unsigned w, unsigned h, unsigned steps, float *in, float *out, float *t) {
#pragma scop
  for (unsigned s = 0; s < steps; s++) {
    for (unsigned y = 1; y < h - 1; y++)
      for (unsigned x = 1; x < w - 1; x++)
        out[y * w + x] = (in[(y - 1) * w + x] + in[y * w + x - 1] + in[y * w + x]
                          + in[y * w + x + 1] + in[(y + 1) * w + x]) * 0.2f;
    for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++)
        t[x * h + y] = 0.5f * out[y * w + x];
    for (unsigned y = 1; y < h - 1; y++)
      for (unsigned x = 1; x < w - 1; x++)
        in[y * w + x] = 0.5f * in[y * w + x] + 0.25f * (t[(x - 1) * h + y] + t[(x + 1) * h + y]);
  }
#pragma endscop
}
int main(void) {
  unsigned w = N, h = N + N / 4;
  float *in = malloc(sizeof(float) * w * h), *out = calloc((size_t) w * h, sizeof(float));
  float *t = calloc((size_t) w * h, sizeof(float));
  for (unsigned i = 0; i < w * h; i++) in[i] = (float) ((i * 13u) % 17u) * 0.5f;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel(w, h, 10, in, out, t);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("in", in, (long) w * h);
  dump("out", out, (long) w * h);
  dump("t", t, (long) w * h);
  free(in); free(out); free(t);
  return 0;
}
