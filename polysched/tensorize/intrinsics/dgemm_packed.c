/* polysched intrinsic
 * name: dgemm_packed
 * features: avx512f | avx2
 * header: polysched_intrinsics.h
 * function: polysched_dgemm_packed
 * call: polysched_dgemm_packed(M, N, K, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C))
 * stride1: C[1]
 * packing: A B
 * numerics: exact
 * doc: f64 block product, BLIS-style: A/B panels packed per thread, 12x16 AVX-512 / 6x8 AVX2 register-blocked micro-kernel, separate multiply and add (bit-identical)
 */
void dgemm_packed(int M, int N, int K, double C[M][N], double A[M][K], double B[K][N])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < M; i++)
      for (j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
