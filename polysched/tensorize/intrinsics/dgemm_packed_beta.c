/* polysched intrinsic
 * name: dgemm_packed_beta
 * features: avx512f | avx2
 * header: polysched_intrinsics.h
 * function: polysched_dgemm_packed_beta
 * call: polysched_dgemm_packed_beta(M, N, K, beta, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C))
 * stride1: C[1]
 * packing: A B
 * numerics: exact
 * doc: a band of two statements (2mm's second product): C *= beta over the block, then the packed kernel's C += A * B (bit-identical); one call scales and accumulates a block of rows
 */
void dgemm_packed_beta(int M, int N, int K, double beta, double C[M][N], double A[M][K], double B[K][N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
#pragma endscop
}
