/* gcc 12.2 -O2 miscompiles this program (reduced from polysched fuzz v7 seed 20261127 program 101,
   mode unroll): gcc -O0, -O1, -O3, and -O2 with -fno-ivopts, -fno-tree-vrp or -fno-tree-dominator-opts,
   or without the '#pragma GCC unroll 4', print C 1 3 -15.598181545734406; gcc 12.2 -O2 prints
   -13.503293693065643. UBSan and ASan are clean. The unrolled loop's body never reads c5; polysched
   no longer writes the pragma on such a loop (emit_c/codegen.py for_loop). */
#include <stdio.h>
#define BIG 10L
double A[4];
double C[7][7];
static void kernel(void)
{
  double s0 = 0.5;
      for (long c0 = -4; c0 < -1; c0 += 2) {
        for (long c1 = 1; c1 <= 2; c1 += 1) {
          for (long c2 = BIG; c2 <= BIG + 2; c2 += 1) {
            for (long c3 = BIG + c1; c3 <= BIG + 2; c3 += 1) {
              A[(c3 - BIG)] = 0.125 * A[(c3 - BIG)] + 1.0;
              if (c0 == -2) {
                for (long c4 = -BIG - 1; c4 <= -BIG; c4 += 1) {
                  #pragma GCC unroll 4
                  for (long c5 = -c4 + 1;c5 <= BIG + 4; c5 += 1) {
                    C[(c2 - BIG) + 1][c1 + 2] += C[(c2 - BIG) + 3][(-c4 - BIG) + 2] * C[(-c4 - BIG) + 2][c1 + 2];
                    C[(c3 - BIG) + 2][(c2 - BIG) + 2] += C[(c3 - BIG) + 2][c1 + 3] * C[c1 + 2][(c2 - BIG) + 2];
                  }
                }
              }
            }
            if (c1 + c2 >= BIG + 3) {
              s0 += 0.75 * C[(c2 - BIG) + 1][c1] - 0.25;
            }
          }
        }
      }
  printf("s0 %.17g\n", s0);
}
int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 7; a0++) for (a1 = 0; a1 < 7; a1++) C[a0][a1] = (double)((a0 * 7 + a1 * 3 + 2) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 7; a0++) for (a1 = 0; a1 < 7; a1++) printf("C %ld %ld %.17g\n", a0, a1, C[a0][a1]);
}