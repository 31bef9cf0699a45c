/* polysched intrinsic
 * name: sgemm_packed_bf16
 * features: avx512bf16 avx512f
 * header: polysched_intrinsics.h
 * function: polysched_sgemm_packed_bf16
 * call: polysched_sgemm_packed_bf16(M, N, K, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C))
 * stride1: C[1]
 * packing: A B
 * numerics: bf16
 * doc: f32 block product computed with A and B rounded to bfloat16 and vdpbf16ps (AVX512-BF16, 12x32 zmm block; the same arithmetic in portable C elsewhere): NOT the float results, applied only when named
 */
void sgemm_packed_bf16(int M, int N, int K, float C[M][N], float A[M][K], float B[K][N])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < M; i++)
      for (j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
