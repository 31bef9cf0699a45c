#include <stdio.h>
#define N 10
double A[N][N], B[N][N];
void kernel(int n) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i > j)
        A[i][j] = A[i][j] + B[j][i];
      else
        A[i][j] = A[i][j] * 0.5;
      if (i + j == n - 1)
        B[i][j] = A[i][j] - 1.0;
    }
#pragma endscop
}
int main(void) {
  int ps[] = {10, 1, 2, 5, 0};
  for (int t = 0; t < 5; t++) {
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = (i * 3 + j) % 7 * 0.5; B[i][j] = (i + j * 5) % 6 * 0.25; }
    kernel(ps[t]);
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) printf("%a %a\n", A[i][j], B[i][j]);
  }
  return 0;
}
