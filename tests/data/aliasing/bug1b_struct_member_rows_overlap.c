#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
static unsigned long long hsh(const void *p, size_t n){const unsigned char*c=p;unsigned long long h=1469598103934665603ULL;for(size_t i=0;i<n;i++){h^=c[i];h*=1099511628211ULL;}return h;}
#define H(name, arr, cnt) printf("%s %016llx\n", name, hsh(arr, sizeof((arr)[0])*(size_t)(cnt)))
#define HG(name, arr) printf("%s %016llx\n", name, hsh(arr, sizeof(arr)))
struct row { double *v; int len; };
void k(int n, struct row *R) {
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      R[i].v[j] = R[i-1].v[j] * 0.5 + i * 3 + j;
#pragma endscop
}
int main(void){
  int n = 10; double *base = calloc(2*n, sizeof(double)); struct row *R = malloc(n*sizeof *R);
  for (int i = 0; i < n; i++) { R[i].v = base + i; R[i].len = n; }
  k(n, R);
  H("base", base, 2*n);
  return 0;}
