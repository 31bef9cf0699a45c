/* polysched intrinsic
 * name: dgemm_4x8
 * features: avx2 fma
 * header: polysched_intrinsics.h
 * function: polysched_dgemm_4x8
 * call: polysched_dgemm_4x8(K, base(A), rs(A), cs(A), base(B), rs(B), base(C), rs(C))
 * stride1: B[1] C[1]
 * remainder: i j
 * doc: f64 outer-product micro-kernel: 4x8 block of C in 8 AVX2 registers, k outermost
 */
void dgemm_4x8(int K, double C[4][8], double A[4][K], double B[K][8])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 8; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
