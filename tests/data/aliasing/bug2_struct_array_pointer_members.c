/* polysched: two pointer members of an array of structs (R[i].a, R[i].b)
 * are assumed never to alias: no run-time overlap check. */
#include <stdio.h>
#include <stdlib.h>
struct row { double *a; double *b; };
void k(int n, struct row *R) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < n; j++)
      R[i].a[j] = R[i].b[j-1] * 0.5 + j;
#pragma endscop
}
int main(void) {
  int n = 16;
  double base[256];
  struct row R[16];
  for (int i = 0; i < n * n; i++) base[i] = i % 7;
  for (int i = 0; i < n; i++) { R[i].a = base + i * n; R[i].b = base + i * n; }  /* in place: a == b */
  k(n, R);
  for (int i = 0; i < n * n; i++) printf("%g\n", base[i]);
  return 0;
}
