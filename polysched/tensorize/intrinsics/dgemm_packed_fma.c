/* polysched intrinsic
 * name: dgemm_packed_fma
 * features: avx512f | avx2 fma
 * header: polysched_intrinsics.h
 * function: polysched_dgemm_packed_fma
 * call: polysched_dgemm_packed_fma(M, N, K, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C))
 * stride1: C[1]
 * packing: A B
 * numerics: fma
 * doc: f64 block product as dgemm_packed with fused multiply-adds: faster, NOT bit-identical (opt-in: reassociate=True)
 */
void dgemm_packed_fma(int M, int N, int K, double C[M][N], double A[M][K], double B[K][N])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < M; i++)
      for (j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
