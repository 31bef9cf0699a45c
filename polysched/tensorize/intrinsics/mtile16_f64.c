/* polysched intrinsic
 * name: mtile16_f64
 * features: 
 * header: polysched_intrinsics.h
 * function: polysched_mtile16_f64
 * call: polysched_mtile16_f64(base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C), cs(C))
 * stride1: 
 * remainder: 
 * doc: emulated accelerator matrix unit: one 16x16x16 f64 tile product, any strides, exact multiples of 16 only
 */
void mtile16_f64(double C[16][16], double A[16][16], double B[16][16])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < 16; i++)
    for (j = 0; j < 16; j++)
      for (k = 0; k < 16; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
