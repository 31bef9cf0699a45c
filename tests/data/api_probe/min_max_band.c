#include <stdio.h>
#define min(a,b) ((a) < (b) ? (a) : (b))
#define max(a,b) ((a) > (b) ? (a) : (b))
double A[16], B[16][16];
void kernel(int n) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = max(0, i - 3); j < min(n, i + 4); j++)
      B[i][j] = B[i][j] + A[j];
  for (int i = 1; i < n; i++)
    A[i] = B[i][i];
#pragma endscop
}
int main(void) { for (int i = 0; i < 16; i++) A[i] = i; kernel(16); for (int i = 0; i < 16; i++) for (int j = 0; j < 16; j++) printf("%a\n", B[i][j]); return 0; }
