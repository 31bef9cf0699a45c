"""A region that runs again sees what its last run left in its scalars: a ``static``
local (the next call of its function), or a local when the region lies in a loop (or
the function has a ``goto``). Such a scalar, read in the region, is live after it: it
is neither privatized nor expanded away (scop/liveness.py: runs_again, live_after).
Found by a probe: the three programs below printed -1 where C prints the last value."""
from __future__ import annotations

import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract
from polysched.scop.liveness import runs_again
from polysched.scop.source import blank_strings_and_directives, enclosing_function, find_regions, strip_comments

MODES = {
    "tile-par": dict(tile=True, parallel=True),
    "max-tile-par": dict(fuse="max", tile=True, parallel=True),
    "isl-tile-par": dict(scheduler="isl", tile=True, parallel=True),
}

STATIC_PRIVATE = r"""
#include <stdio.h>
#define N 4000
double A[N], B[N], R[3];
static void k(int n, int t) {
  int i;
  static double s = -1;
#pragma scop
  R[t] = s;
  for (i = 0; i < n; i++) {
    s = A[i] * 2;
    B[i] = s + 1;
  }
#pragma endscop
}
int main(void) {
  for (int p = 0; p < N; p++) A[p] = p;
  k(N, 0); k(N, 1); k(10, 2);
  printf("%g %g %g %g\n", R[0], R[1], R[2], B[N - 1]);
  return 0;
}
"""

# R[t] reads the value s had on entry; the nest then leaves its last sum in s
NEST = r"""
#pragma scop
  R[t] = s;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      s = 0;
      for (l = 0; l < n; l++)
        s += A[i][l] * B[l][j];
      C[i][j] = s;
    }
#pragma endscop
"""

STATIC_EXPANDED = r"""
#include <stdio.h>
#define N 16
double A[N][N], B[N][N], C[N][N], R[3];
static void k(int n, int t) {
  int i, j, l;
  static double s = -1;
""" + NEST + r"""}
int main(void) {
  for (int p = 0; p < N; p++) for (int q = 0; q < N; q++) { A[p][q] = (p + q) % 3 + 1; B[p][q] = (p * q) % 5 + 1; }
  k(N, 0); k(N, 1); k(N, 2);
  printf("%g %g %g %g\n", R[0], R[1], R[2], C[3][5]);
  return 0;
}
"""

LOOP_LOCAL = r"""
#include <stdio.h>
#define N 16
double A[N][N], B[N][N], C[N][N], R[3];
int main(void) {
  int i, j, l, t, n = N;
  double s = -1;
  for (int p = 0; p < N; p++) for (int q = 0; q < N; q++) { A[p][q] = (p + q) % 3 + 1; B[p][q] = (p * q) % 5 + 1; }
  for (t = 0; t < 3; t++) {""" + NEST + r"""  }
  printf("%g %g %g\n", R[0], R[1], R[2]);
  return 0;
}
"""


@pytest.mark.parametrize("name, text", [("static_private", STATIC_PRIVATE), ("static_expanded", STATIC_EXPANDED),
                                        ("loop_local", LOOP_LOCAL)])
def test_a_scalar_the_next_run_reads_keeps_its_last_value(name, text, tmp_path):
    assert extract(text)[0].live_scalars == ("s",)
    expected = outputs_of(text, tmp_path, "orig", [()])
    assert expected[0].split()[1] != "-1"
    for mode, flags in MODES.items():
        result = optimize_text(text, tmp_path, flags)
        assert outputs_of(result, tmp_path, f"{name}_{mode}", [()]) == expected, mode


def optimize_text(text: str, tmp_path, flags: dict) -> str:
    path = tmp_path / "in.c"
    path.write_text(text)
    return optimize(path, OptimizeOptions.from_flags(**flags)).text


def test_a_scalar_only_written_or_not_rerun_stays_dead():
    """Written before any read in the region (s), or a plain local in a region that runs
    once per call (the loops around it are outside its function): not live."""
    written_first = LOOP_LOCAL.replace("  R[t] = s;\n", "  R[t] = t;\n")
    assert "s" not in extract(written_first)[0].live_scalars
    once = STATIC_EXPANDED.replace("static double s = -1;", "double s = -1;")
    assert extract(once)[0].live_scalars == ()


def _runs_again(text: str) -> bool:
    stripped = strip_comments(text)
    plain = blank_strings_and_directives(stripped)
    region = find_regions("f.c", stripped)[0]
    return runs_again(plain, region, enclosing_function(plain, region.scop_offset))


@pytest.mark.parametrize("around, again", [
    ("{\n#pragma scop\nx = 1;\n#pragma endscop\n}", False),
    ("if (n) {\n#pragma scop\nx = 1;\n#pragma endscop\n}", False),
    ("for (t = 0; t < n; t++) {\n#pragma scop\nx = 1;\n#pragma endscop\n}", True),
    ("for (t = 0; t < n; t++)\n#pragma scop\nx = 1;\n#pragma endscop\n", True),
    ("while (n--) if (n > 2) {\n#pragma scop\nx = 1;\n#pragma endscop\n}", True),
    ("do { if (n) { y = 2; {\n#pragma scop\nx = 1;\n#pragma endscop\n} } } while (--n);", True),
    ("for (t = 0; t < n; t++) y += t;\nif (n) {\n#pragma scop\nx = 1;\n#pragma endscop\n}", False),
    ("again: if (n) {\n#pragma scop\nx = 1;\n#pragma endscop\n}\nif (--n) goto again;", True),
    ("switch (n) { case 1: {\n#pragma scop\nx = 1;\n#pragma endscop\n} }", False),
])
def test_runs_again_reads_the_loops_around_the_region(around, again):
    text = f"int x, y;\nvoid f(int n) {{\n  int t;\n  {around}\n}}\n"
    assert _runs_again(text) is again
