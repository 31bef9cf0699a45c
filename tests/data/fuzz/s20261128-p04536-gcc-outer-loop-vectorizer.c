/* v8 fuzz program 4536, shrunk. polysched's identity mode reverses the l loop
   (for c2 = -2 .. 0, l = -c2): B[-c2 - c1 + 4] = 0.5 * A[1][1][-(-c2) + 3] + 1.0.
   gcc 12.2 -O2 vectorizes the outer c1 loop although it carries the writes to B
   (-fopt-info-vec: "loop vectorized using 16 byte vectors" on c1): B[2] is 0.625
   instead of 1.125. -O0, -O1, -O3, -O2 -fno-tree-loop-vectorize and the sanitizers
   print the original's values; the same nest written by hand misbehaves alike. */
/* polysched fuzz (generator v8): seed 20261128, program 4536 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double A[3][3][5];
double B[8];

static void kernel(void)
{
  int j, k, l, p;
  j = -7; k = -7; l = -7; p = -7;
#pragma scop
  for (j = 0; j <= 1; j++) {
    for (k = 0; k <= 3; k++) {
      for (l = 2; l >= 0; l--) {
        for (p = 1; p <= j; p++) {
          B[l - k + 4] = 0.5 * A[1][1][-l + 3] + 1.0;
        }
      }
    }
  }
#pragma endscop
}

int main(void)
{
  long a0, a1, a2;
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 3; a1++) for (a2 = 0; a2 < 5; a2++) A[a0][a1][a2] = (double)((a0 * 7 + a1 * 3 + a2 * 5 + 1) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 8; a0++) B[a0] = (double)((a0 * 7 + 2) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 8; a0++) printf("B %ld %.17g\n", a0, B[a0]);
  return 0;
}
