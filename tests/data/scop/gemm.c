#include <stdio.h>
#include <math.h>

#ifndef NI
# define NI 20
#endif
#define NJ 25
#define NK 30
#define DATA_TYPE double
#define ARR2D(a, n, m) a[n][m]

static void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE ARR2D(C, NI, NJ), DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < NI; i++) {
    for (j = 0; j < NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < NK; k++) {
      for (j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j]; /* the update */
    }
  }
#pragma endscop
}

int main(void) { return 0; }
