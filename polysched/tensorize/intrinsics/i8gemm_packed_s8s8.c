/* polysched intrinsic
 * name: i8gemm_packed_s8s8
 * features: avx512vnni avx512bw | avxvnni | avx512vnni avx512vl | avx2
 * header: polysched_intrinsics.h
 * function: polysched_i8gemm_packed_s8s8
 * call: polysched_i8gemm_packed_s8s8(M, N, K, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C))
 * stride1: C[1]
 * packing: A B
 * doc: int8 x int8 -> int32 block product, BLIS-style packed panels: vpdpbusd 12x32 on zmm (AVX512-VNNI) or 6x16 on ymm (AVX-VNNI), AVX2 6x16 with int16 operands and vpmaddwd; exact (integer sums in any order)
 */
void i8gemm_packed_s8s8(int M, int N, int K, int32_t C[M][N], int8_t A[M][K], int8_t B[K][N])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < M; i++)
      for (j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
