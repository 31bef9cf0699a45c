/* polysched intrinsic
 * name: dgemm_packed_zero_scaled
 * features: avx512f | avx2
 * header: polysched_intrinsics.h
 * function: polysched_dgemm_packed_zero_scaled
 * call: polysched_dgemm_packed_zero_scaled(M, N, K, alpha, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C))
 * stride1: C[1]
 * packing: A B
 * numerics: exact
 * doc: a band of two statements (2mm's first product): C = 0.0 over the block, then the packed kernel's C += alpha * A * B (bit-identical); one call initialises and accumulates a block of rows
 */
void dgemm_packed_zero_scaled(int M, int N, int K, double alpha, double C[M][N], double A[M][K], double B[K][N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      C[i][j] = 0.0;
      for (k = 0; k < K; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}
