/* user_conv_relu: a 3x3 convolution (NHWC, weights RSCK) with a bias and a ReLU, as
 * people write it: the sum of each output element in a scalar, started at the bias,
 * and the ReLU on the way out. */
#ifndef _POSIX_C_SOURCE
#  define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define LARGE_DATASET
#endif
#ifndef NB
#  if defined(MINI_DATASET)
#    define NB 1
#    define NH 6
#    define NW 5
#    define NC 3
#    define NK 4
#  elif defined(SMALL_DATASET)
#    define NB 2
#    define NH 14
#    define NW 14
#    define NC 16
#    define NK 16
#  elif defined(MEDIUM_DATASET)
#    define NB 2
#    define NH 28
#    define NW 28
#    define NC 32
#    define NK 32
#  else
#    define NB 4
#    define NH 56
#    define NW 56
#    define NC 64
#    define NK 64
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

static void kernel(double in[NB][NH + 2][NW + 2][NC], double wt[3][3][NC][NK], double bias[NK],
                   double out[NB][NH][NW][NK]) {
  int n, h, w, k, r, s, c;
  double acc;
#pragma scop
  for (n = 0; n < NB; n++)
    for (h = 0; h < NH; h++)
      for (w = 0; w < NW; w++)
        for (k = 0; k < NK; k++) {
          acc = bias[k];
          for (r = 0; r < 3; r++)
            for (s = 0; s < 3; s++)
              for (c = 0; c < NC; c++)
                acc += in[n][h + r][w + s][c] * wt[r][s][c][k];
          out[n][h][w][k] = acc > 0.0 ? acc : 0.0;
        }
#pragma endscop
}
int main(void) {
  double (*in)[NH + 2][NW + 2][NC] = malloc(sizeof(double) * NB * (NH + 2) * (NW + 2) * NC);
  double (*wt)[3][NC][NK] = malloc(sizeof(double) * 9 * NC * NK);
  double *bias = malloc(sizeof(double) * NK);
  double (*out)[NH][NW][NK] = malloc(sizeof(double) * NB * NH * NW * NK);
  for (int n = 0; n < NB; n++) for (int h = 0; h < NH + 2; h++) for (int w = 0; w < NW + 2; w++)
    for (int c = 0; c < NC; c++) in[n][h][w][c] = (double)((n + 3 * h + 5 * w + 7 * c) % 13) / 6.0 - 1.0;
  for (int r = 0; r < 3; r++) for (int s = 0; s < 3; s++) for (int c = 0; c < NC; c++)
    for (int k = 0; k < NK; k++) wt[r][s][c][k] = (double)((r + 2 * s + 3 * c + 5 * k) % 7) / 5.0 - 0.5;
  for (int k = 0; k < NK; k++) bias[k] = (k % 3) * 0.25 - 0.25;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  kernel(in, wt, bias, out);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "polysched-time: %.9f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  dump("out", &out[0][0][0][0], (long)NB * NH * NW * NK);
  free(in); free(wt); free(bias); free(out);
  return 0;
}
