/* polysched fuzz seed 3, program 1340, shrunk: isl's scheduler, given the context (M = N = 3
   known), leaves S0 out of its band (k runs from i >= 3 to <= 2: S0 never runs), and
   its AST generator then refuses the tree: "band node is not allowed to drop statement
   instances". (The unsigned l >= 0 loop would never end, but it is never reached.) */
/* polysched fuzz (generator v2): seed 3, program 1340 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#define N 3
#define M 3

double C[3];

static void kernel(void)
{
  unsigned i, k, l;
  double s1 = 0.5;
  i = 7; k = 7; l = 7;
#pragma scop
  for (i = M; i <= M + 1; i++) {
    for (k = i; k <= ((N) < (2) ? (N) : (2)); k++) {
      for (l = 0; l >= 0; l--) {
        s1 = 1.0;
      }
    }
    C[1] = 1.0;
  }
#pragma endscop
  printf("s1 %.17g\n", s1);
}

int main(void)
{
  long a0;
  for (a0 = 0; a0 < 3; a0++) C[a0] = (double)((a0 * 7 + 1) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 3; a0++) printf("C %ld %.17g\n", a0, C[a0]);
  return 0;
}
