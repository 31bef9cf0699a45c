"""Subscripts of a declared inner dimension are assumed not negative (``j >= 0`` in
``A[i][j]`` of ``double A[16][16]``), and the assumption joins the run-time check: C leaves
``A[i][j - 1]`` at ``j = 0`` undefined, gcc reads ``A[i - 1][15]`` there, and the model,
which took it for an element of its own, missed that dependence (helper-43: wrong
output with --tile --parallel and --fuse max)."""
from __future__ import annotations

import islpy as isl
import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract

BEFORE_THE_ROW = r"""#include <stdio.h>
#include <stdlib.h>
#define N 16
double A[N][N];
void f(int n)
{
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j - 1] * 0.5 + 1.0;
#pragma endscop
}
int main(int argc, char **argv)
{
  int a, b;
  for (a = 0; a < N; a++) for (b = 0; b < N; b++) A[a][b] = (a * 3 + b) % 5;
  f(atoi(argv[1]));
  for (a = 0; a < N; a++) for (b = 0; b < N; b++) printf("%.17g\n", A[a][b]);
  return 0;
}
"""


def test_inner_subscripts_are_assumed_in_their_dimension():
    [scop] = extract(BEFORE_THE_ROW, filename="row.c")
    # j - 1 at j = 0 leaves its row in every run with an iteration (n >= 2)
    def runs(scop, values: str) -> bool:
        point = isl.Set(f"[n, N] -> {{ : {values} }}").align_params(scop.context.get_space())
        return not scop.context.intersect_params(point).is_empty()
    assert runs(scop, "n = 1 and N = 16") and not runs(scop, "n = 2 and N = 16") \
        and not runs(scop, "n = 16 and N = 16"), scop.context
    [inside] = extract(BEFORE_THE_ROW.replace("A[i][j - 1]", "A[i - 1][j]"), filename="col.c")
    # nothing negative: nothing assumed
    assert inside.context.is_equal(isl.Set("[n] -> { : n > 0 }").align_params(inside.context.get_space()))


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(fuse="max", tile=True)],
                         ids=["tile-par", "max-tile"])
def test_a_subscript_before_the_row_runs_like_the_original(tmp_path, flags):
    path = tmp_path / "row.c"
    path.write_text(BEFORE_THE_ROW)
    text = optimize(path, OptimizeOptions.from_flags(**flags)).text
    sizes = [(16,), (1,), (2,), (0,), (9,)]
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(BEFORE_THE_ROW, tmp_path, "orig", sizes)
