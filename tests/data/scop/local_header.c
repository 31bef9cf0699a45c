#include <stdlib.h>
#include "sizes.h"
#include "local.h"

void scale(REAL v[LEN][STRIDE], REAL alpha)
{
  int i, j;
#pragma scop
  for (i = 0; i < LEN; i++)
    for (j = 0; j < STRIDE; j++)
      v[i][j] = (REAL)(v[i][j] * alpha);
#pragma endscop
}
