/* polysched fuzz repro: crash in mode identity (scheduler=identity)
   Error: call to isl_union_access_info_compute_flow failed: affine expression involves some of the domain dimensions in /project/isl/isl_domain_factor_templ.c:26
   shrunk from s3-p00290.c in 102 evaluations */
/* polysched fuzz (generator v2): seed 3, program 290 */
#include <stdio.h>
#include <stddef.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))

double A[3];

static void kernel(void)
{
  int i, k;
  i = -7; k = -7;
#pragma scop
  for (i = 1; i <= 3; i += 2) {
    for (k = 2; k >= 0; k--) {
      if (i - k >= 1) {
        A[1] = 0.5 * A[1] + 1.0;
      }
    }
  }
#pragma endscop
}

int main(void)
{
  long a0;
  for (a0 = 0; a0 < 3; a0++) A[a0] = (double)((a0 * 7 + 1) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 3; a0++) printf("A %ld %.17g\n", a0, A[a0]);
  return 0;
}
