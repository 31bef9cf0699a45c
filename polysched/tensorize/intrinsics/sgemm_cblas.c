/* polysched intrinsic
 * name: sgemm_cblas
 * features:
 * library: cblas
 * header: polysched_intrinsics.h
 * function: polysched_sgemm_cblas
 * call: polysched_sgemm_cblas(M, N, K, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C))
 * stride1: C[1]
 * numerics: reassociate
 * doc: f32 block product as one cblas_sgemm call (beta = 1) into a CBLAS found at run time, else the loop nest; the BLAS's summation order: NOT bit-identical (opt-in: reassociate=True)
 */
void sgemm_cblas(int M, int N, int K, float C[M][N], float A[M][K], float B[K][N])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < M; i++)
      for (j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
