/* polysched fuzz repro: wrong in mode pluto-max (scheduler=pluto fuse=max)
   output killed by SIGSEGV (1 thread)
   shrunk from s20261124-p02622.c in 131 evaluations */
/* polysched fuzz (generator v5): seed 20261124, program 2622 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double B[3][3];

static void kernel(void)
{
  long i, j;
  i = -7; j = -7;
#pragma scop
  for (i = 0; i <= 1; i++) {
    for (j = 0; j <= 0; j++) {
      B[(3 - 5u + (j - 2)) % 7 + 1][1] = 1.0;
    }
  }
#pragma endscop
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 3; a1++) B[a0][a1] = (double)((a0 * 7 + a1 * 3 + 1) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 3; a1++) printf("B %ld %ld %.17g\n", a0, a1, B[a0][a1]);
  return 0;
}
