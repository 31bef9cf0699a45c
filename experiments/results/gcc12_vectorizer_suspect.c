#include <stdio.h>
#ifndef N
#define N 30
#endif
static short S[N+2][N+2]; static unsigned char U[N+2][N+2]; static int I[N+2][N+2];
static void k1(int n, int tsteps)
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n; i++)
      for (j = 1; j < n; j++)
        S[i][j] = (short)((S[i-1][j] + S[i][j-1] * 3 + S[i+1][j] - S[i][j+1]) / 4 + (S[i][j] >> 1));
    for (i = 1; i < n; i++)
      for (j = 1; j < n; j++)
        U[i][j] = (unsigned char)(U[i][j] * 5 + (U[i-1][j-1] ^ U[i+1][j+1]) + (unsigned char)S[i][j]);
  }
#pragma endscop
}
static void k2(int n)
{
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      I[i][j] = I[i-1][j] % 97 - I[i][j-1] / 3 + (U[i][j] << 3) - S[j][i];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N+2; i++) for (int j = 0; j < N+2; j++) { S[i][j] = (short)((i * 1237 - j * 4111) % 30000); U[i][j] = (unsigned char)(i * 17 + j * 29); I[i][j] = i * 7 - j * 11; }
  k1(N, 3); k2(N); k1(N / 2, 2);
  for (int i = 0; i < N+2; i++) for (int j = 0; j < N+2; j++) printf("%d %d %d\n", S[i][j], U[i][j], I[i][j]);
  return 0; }
