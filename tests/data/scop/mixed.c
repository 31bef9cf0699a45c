/* Control structures for the execution-order test: every statement is replaced by a
 * trace printf and the order of the trace is compared with the extracted schedule. */
#include <stdio.h>
#include <math.h>

#ifndef N
# define N 9
#endif
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static double A[N + 2][N + 2], x[N + 2], s;

static void kernel(int n)
{
  int i, j, k;
#pragma scop
  s = 0.0;
  for (i = N - 1; i >= 0; i--) {
    x[i] = 1.0;
    for (j = MAX(0, i - 2); j <= MIN(N - 1, i + 3); j += 2) {
      if (i + j > 4 && !(i == 3))
        A[i][j] = x[i];
      else
        A[i][j] = 2.0;
      for (k = (j - 3) / 2; k < n; k = k + 3)
        A[i][k < 0 ? -k : k] += 1.0;
    }
    for (j = i; j > (i - 4) / 3; --j)
      x[j] = x[j] * 0.5;
    s += x[i];
  }
  for (i = 1; i <= n; i += 4)
    if (i % 2 == 1 || i > 6)
      x[i] = s;
#pragma endscop
}

int main(void)
{
  kernel(N - 2);
  printf("%f\n", s);
  return 0;
}
