"""Programs the fuzzer found (`polysched fuzz`), cut down by hand: each goes through the
modes that failed and must come out verified (`optimize --verify`: compiled, run at 1
and 2 threads and compared with the original)."""
from __future__ import annotations

import shutil

import pytest

from polysched.cli import main

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# seed 100, programs 90 and 104: a nest whose statements never run (j from 2 down to
# > i, i >= 2) next to one that does; tiling crashed in emit_c's band lifting on the
# band no instance reaches (TypeError in lift._replace_band)
EMPTY_NEST = r"""#include <stdio.h>
int A[8], B[8], C[6][6];
int main(void) {
  int i, j, k, s = 1;
#pragma scop
  for (i = 2; i < 5; i++)
    for (j = 2; j > i; j--)
      for (k = 0; k < 3; k++) {
        s += A[k] % 7;
        B[k] = s;
      }
  for (i = 0; i < 6; i++)
    for (j = 0; j < 6; j++)
      C[i][j] = C[i][j] + i * j + s;
#pragma endscop
  for (i = 0; i < 6; i++) for (j = 0; j < 6; j++) printf("%d ", C[i][j]);
  printf("%d %d %d %d\n", B[0], s, i, j);
  return 0;
}
"""


@pytest.mark.parametrize("flags", [["--tile"], ["--tile", "--parallel"], ["--tile", "--l2tile"],
                                   ["--scheduler", "isl", "--tile", "--parallel"]])
def test_statements_that_never_run_next_to_a_tiled_nest(tmp_path, flags, capsys):
    source = tmp_path / "empty_nest.c"
    source.write_text(EMPTY_NEST)
    out = tmp_path / "out.c"
    assert main(["optimize", str(source), "-o", str(out), *flags, "--verify"]) == 0
    assert "verify: equal" in capsys.readouterr().out
