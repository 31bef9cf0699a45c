/* gcc 12.2 -O2 miscompiles this ORIGINAL program (found by helper-47's aliasing generator, gen5 seed 4029,
   session 40): `gcc -O2 x.c && ./a.out 16 3` prints other values than -O1, -O3 -march=native, an
   ASan/UBSan build and a Python model of it, which all agree; -O2 -fno-ipa-cp or -O2 -fno-tree-pre
   fixes it. kernel() is called with overlapping x and y (G + 0 and G + 1). An oracle comparing -O2
   builds only (the fuzzer's) could call this a polysched wrong code, or hide one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define N 20
struct S { double a[64]; double b[64]; int n; };
struct S gs;
double G[256];
double M[N + 4][N];
double BUF[1024];
double *ROWS[N + 4];
static void initall(int arg) {
  for (int q = 0; q < 64; q++) { gs.a[q] = (q * 7 + arg) % 11 / 7.0 - 1; gs.b[q] = (q * 3 + arg) % 5 / 3.0; }
  for (int q = 0; q < 256; q++) G[q] = (q * 13 + arg) % 17 / 3.0 - 1;
  for (int q = 0; q < N + 4; q++) for (int r = 0; r < N; r++) M[q][r] = (q * 5 + r * 7 + arg) % 19 / 7.0 - 2;
  for (int q = 0; q < 1024; q++) BUF[q] = (q * 11 + arg) % 23 / 7.0;
}
static void printall(void) {
  for (int q = 0; q < 64; q++) printf("d a %.17g\nd b %.17g\n", gs.a[q], gs.b[q]);
  for (int q = 0; q < 256; q++) printf("d G %.17g\n", G[q]);
  for (int q = 0; q < N + 4; q++) for (int r = 0; r < N; r++) printf("d M %.17g\n", M[q][r]);
  for (int q = 0; q < 1024; q++) printf("d BUF %.17g\n", BUF[q]);
}
static void kernel(int n, double *x, double *y) {
  int i;
#pragma scop
  for (i = 0; i < n; i += 2) { x[i] = x[i] * 0.5 + y[n - 1 - i]; y[i] = x[i + 1] * 0.25; }
#pragma endscop
}
int main(int argc, char **argv) {
  for (int arg = 1; arg < argc; arg++) {
    int n = atoi(argv[arg]);
    initall(arg);
    kernel(n, G + 0, G + 40);
    kernel(n, G + 0, G + 2);
    kernel(n, G + 0, G + 1);
    printall();
  }
  return 0;
}
