/* polysched intrinsic
 * name: dgemm_8x8_avx512_scaled
 * features: avx512f
 * header: polysched_intrinsics.h
 * function: polysched_dgemm_8x8_avx512_scaled
 * call: polysched_dgemm_8x8_avx512_scaled(K, alpha, base(A), rs(A), cs(A), base(B), rs(B), base(C), rs(C))
 * stride1: B[1] C[1]
 * remainder: i j
 * doc: f64 micro-kernel with a scalar factor: C += alpha * A * B, 8x8 block in 8 zmm registers
 */
void dgemm_8x8_avx512_scaled(int K, double alpha, double C[8][8], double A[8][K], double B[K][8])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < 8; i++)
      for (j = 0; j < 8; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
#pragma endscop
}
