/* polysched intrinsic
 * name: dgemm_packed_sub
 * features: avx512f | avx2
 * header: polysched_intrinsics.h
 * function: polysched_dgemm_packed_sub
 * call: polysched_dgemm_packed_sub(M, N, K, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C))
 * stride1: C[1]
 * packing: A B
 * numerics: exact
 * doc: f64 block product subtracted (a Schur complement, a blocked factorization's update): the packed kernel's C += (-1.0 * A) * B, bit-identical to C -= A * B (negation is exact and rounds like the product; a NaN keeps its sign through both)
 */
void dgemm_packed_sub(int M, int N, int K, double C[M][N], double A[M][K], double B[K][N])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < M; i++)
      for (j = 0; j < N; j++)
        C[i][j] -= A[i][k] * B[k][j];
#pragma endscop
}
