/* polysched intrinsic
 * name: sgemm_8x8
 * features: avx2 fma
 * header: polysched_intrinsics.h
 * function: polysched_sgemm_8x8
 * call: polysched_sgemm_8x8(K, base(A), rs(A), cs(A), base(B), rs(B), base(C), rs(C))
 * stride1: B[1] C[1]
 * remainder: i j
 * doc: f32 outer-product micro-kernel: 8x8 block of C in 8 ymm registers
 */
void sgemm_8x8(int K, float C[8][8], float A[8][K], float B[K][8])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < 8; i++)
      for (j = 0; j < 8; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
