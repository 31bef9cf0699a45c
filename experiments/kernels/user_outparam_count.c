#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
void count(long n, const int *a, long *s, long *odd) {
#pragma scop
  for (long i = 0; i < n; i++) {
    *s += a[i];
    *odd += a[i] & 1;
  }
#pragma endscop
}
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000000;
  int *a = malloc(sizeof(int) * n);
  for (long i = 0; i < n; i++) a[i] = (int)((i * 7) % 1001);
  long s = 0, odd = 0;
  double t0 = omp_get_wtime();
  for (int r = 0; r < 5; r++) count(n, a, &s, &odd);
  fprintf(stderr, "%.3f\n", omp_get_wtime() - t0);
  printf("%ld %ld\n", s, odd);
  return 0;
}
