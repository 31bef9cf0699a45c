#include <stdio.h>
double A[8][8];
void kernel(int n) {
#pragma scop
  for (int k = 0; k < n; k++)
    for (int j = k + 1; j < n; j++)
      A[k][j] = A[k][j] + 1.0;
#pragma endscop
}
int main(void) { kernel(8); for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) printf("%a\n", A[i][j]); return 0; }
