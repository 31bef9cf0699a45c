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


def test_a_program_gcc_O2_miscompiles_is_skipped_not_blamed_on_polysched():
    """Fuzz seed 3, program 18: ``B[k + j + 1] = f(A[1][4 - j])`` over j <= 3, k <= 1.
    gcc 12.2 -O2 (its vectorizer) prints B[2] = -4 for the original, -O0 and -O1 print
    -10, the value of the last write; polysched's outputs print -10 and were reported
    'wrong' in 10 modes. Such a program now counts as skipped, with the reason."""
    from polysched.fuzz.runner import FuzzConfig, fuzz_program
    result = fuzz_program(18, FuzzConfig(seed=3, programs=1, modes=("identity", "pluto-smart"), out=None))
    if not result.skipped:           # another compiler: then it must simply pass
        assert result.results and all(r.kind == "ok" for r in result.results), result.results
    else:
        assert "gcc -O2 and -O0 disagree" in result.skipped
        assert result.results == []
