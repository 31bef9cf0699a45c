#include <stdio.h>
#include <stdlib.h>
/* RUNS: 0 0 | 1 1 | 3 5 | 7 4 | 33 17 | 64 80 */
static void blur(int h, int w, float **in, float **out)
{
#pragma scop
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      out[y][x] = (in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1] + 4.0f * in[y][x]) * 0.125f;
#pragma endscop
}
int main(int argc, char **argv)
{
  int h = atoi(argv[1]), w = atoi(argv[2]);
  int H = h > 0 ? h : 1, W = w > 0 ? w : 1;
  float **in = malloc(H * sizeof *in), **out = malloc(H * sizeof *out);
  for (int y = 0; y < H; y++) {
    in[y] = malloc(W * sizeof(float)); out[y] = malloc(W * sizeof(float));
    for (int x = 0; x < W; x++) { in[y][x] = (float)((y * 7 + x * 3) % 13) / 7.0f; out[y][x] = 0; }
  }
  blur(h, w, in, out);
  double s = 0;
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) s += out[y][x] * (1 + (y + x) % 5);
  printf("%.17g\n", s);
  return 0;
}
