#include <stdio.h>
#include <stdlib.h>
#define N 16

static int helper_name_used_elsewhere(int v) { return v + 1; }

void first(double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = A[i] * 2.0;
#pragma endscop
}

void second(int n, double *B)
{
  int i;
  /* a comment with #pragma scop inside must not count */
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}

int main(void)
{
  double a[N], b[N];
  first(a);
  second(N, b);
  printf("%d\n", helper_name_used_elsewhere(1));
  return 0;
}
