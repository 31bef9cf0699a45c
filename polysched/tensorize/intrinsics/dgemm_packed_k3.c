/* polysched intrinsic
 * name: dgemm_packed_k3
 * features: avx512f | avx2
 * header: polysched_intrinsics.h
 * function: polysched_dgemm_packed_k3
 * call: polysched_dgemm_packed_k3(M, N, K1, K2, K3, base(A), st(A, i), st(A, k1), st(A, k2), st(A, k3), base(B), st(B, k1), st(B, k2), st(B, k3), st(B, j), base(C), rs(C), epoch(A), epoch(B))
 * stride1: C[1]
 * packing: A B
 * affine: A B
 * numerics: exact
 * doc: f64 block product summed over three loops (k1, k2, k3) in order, A and B any affine view (a convolution's input window): packed like dgemm_packed, bit-identical; an operand the region never writes (a filter) is packed once per region run
 */
void dgemm_packed_k3(int M, int N, int K1, int K2, int K3, double C[M][N],
                     double A[M][K1][K2][K3], double B[K1][K2][K3][N])
{
  int i, j, k1, k2, k3;
#pragma scop
  for (k1 = 0; k1 < K1; k1++)
    for (k2 = 0; k2 < K2; k2++)
      for (k3 = 0; k3 < K3; k3++)
        for (i = 0; i < M; i++)
          for (j = 0; j < N; j++)
            C[i][j] += A[i][k1][k2][k3] * B[k1][k2][k3][j];
#pragma endscop
}
