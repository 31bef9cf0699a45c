/* polysched fuzz repro: crash in mode pluto-no (scheduler=pluto fuse=no)
   ValueError: can only convert integer Val to python
   shrunk from s20261125-p00247.c in 137 evaluations */
/* polysched fuzz (generator v6): seed 20261125, program 247 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double B[3][4];

static void kernel(int m)
{
  int j, l;
  j = -7; l = -7;
#pragma scop
  for (j = 0; j <= 6; j += 3) {
    for (l = 0; l <= m + 2; l++) {
      if (l - j == 2) {
        B[1][1] = 0.5 * B[1][(l + 3) % 4 + 1] + 1.0;
      }
    }
  }
#pragma endscop
}

int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 4; a1++) B[a0][a1] = (double)((a0 * 7 + a1 * 3 + 1) % 13) * 0.125 - 0.75;
  kernel(3);
  for (a0 = 0; a0 < 3; a0++) for (a1 = 0; a1 < 4; a1++) printf("B %ld %ld %.17g\n", a0, a1, B[a0][a1]);
  return 0;
}
