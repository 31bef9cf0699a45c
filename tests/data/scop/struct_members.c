#include <stdio.h>
#include <stdlib.h>
struct img { int w, h; float *data; };
typedef struct { int n; double *v; double acc; } vec_t;
void blur(struct img *in, struct img *out) {
  int y, x;
#pragma scop
  for (y = 1; y < in->h - 1; y++)
    for (x = 1; x < in->w - 1; x++)
      out->data[y * in->w + x] = (in->data[(y - 1) * in->w + x] + in->data[y * in->w + x - 1]
                                  + in->data[y * in->w + x + 1] + in->data[(y + 1) * in->w + x]) * 0.25f;
#pragma endscop
}
void dot(vec_t *a, vec_t b, int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    a->acc += a->v[i] * b.v[i];
#pragma endscop
}
int main(void) {
  for (int w = 0; w < 40; w += 13) {
    struct img in = {w, w + 3, malloc(sizeof(float) * (w * (w + 3) + 1))}, out = {w, w + 3, malloc(sizeof(float) * (w * (w + 3) + 1))};
    for (int k = 0; k < w * (w + 3); k++) { in.data[k] = k % 7; out.data[k] = -1; }
    blur(&in, &out);
    double s = 0; for (int k = 0; k < w * (w + 3); k++) s += out.data[k] * (k + 1);
    vec_t a = {w, malloc(sizeof(double) * (w + 1)), 0.5}, b = {w, malloc(sizeof(double) * (w + 1)), 0};
    for (int k = 0; k <= w; k++) { a.v[k] = k * 0.25; b.v[k] = k % 3; }
    dot(&a, b, w);
    blur(&in, &in);   /* in place: the overlap check must send it to the original */
    for (int k = 0; k < w * (w + 3); k++) s += in.data[k] * (k % 5);
    printf("%d %a %a\n", w, s, a.acc);
  }
  return 0;
}
