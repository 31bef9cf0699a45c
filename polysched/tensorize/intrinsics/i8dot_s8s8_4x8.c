/* polysched intrinsic
 * name: i8dot_s8s8_4x8
 * features: avx512vnni avx512vl | avxvnni | avx2
 * header: polysched_intrinsics.h
 * function: polysched_i8dot_s8s8_4x8
 * call: polysched_i8dot_s8s8_4x8(K, base(A), rs(A), cs(A), base(B), rs(B), base(C), rs(C))
 * stride1: B[1] C[1]
 * remainder: i j
 * doc: int8 x int8 -> int32 dot products (vpdpbusd with A biased by 128, AVX2 vpmaddwd fallback)
 */
void i8dot_s8s8_4x8(int K, int32_t C[4][8], int8_t A[4][K], int8_t B[K][8])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 8; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
