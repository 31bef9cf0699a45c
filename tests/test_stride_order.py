"""The stride-1 loop order without a tiling stage (tester helper-102, D3).

``y[j] += A[i][j] * x[i]`` has a parallel ``j`` and a reduction along ``i``: Pluto's
scheduler puts ``j`` first, so without ``--tile`` the code walked ``A`` down its
columns (4.5-5.8x slower than the source). The default mode now keeps the stride-1
loop innermost (`polysched.tiling.stride_one_order`), and ``--parallel`` alone runs
blocks of that loop in parallel instead of moving it outermost. Every mode's output
is compared with the source's at 1 and 2 threads and at edge sizes."""
from __future__ import annotations

import re

import pytest

from polysched.pipeline import OptimizeOptions, optimize
from polysched.program import Program
from test_wrong_code import assert_same_behaviour

MODES = {"default": dict(), "parallel": dict(parallel=True), "tile-par": dict(tile=True, parallel=True)}

GEMVT = r"""
#include <stdio.h>
#include <stdlib.h>
void gemvt(int m, int n, const double *restrict A, const double *restrict x, double *restrict y) {
#pragma scop
  for (int j = 0; j < n; j++) y[j] = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      y[j] += A[i * n + j] * x[i];
#pragma endscop
}
int main(void) {
  int m = M, n = N;
  double *A = malloc(sizeof(double) * (m * n + 1)), *x = malloc(sizeof(double) * (m + 1)),
         *y = malloc(sizeof(double) * (n + 1));
  for (int k = 0; k < m * n; k++) A[k] = (k % 17) * 0.1 + 1.0 / (k + 3);
  for (int i = 0; i < m; i++) x[i] = (i % 5) - 2.25;
  for (int r = 0; r < 2; r++) { gemvt(m, n, A, x, y); if (m) x[r % m] += 1; }
  for (int j = 0; j < n; j++) printf("%.17g\n", y[j]);
  return 0;
}
"""

# a reduction along the row (gesummv's y[i] += B[i][j] * x[j]): j stays innermost
ROWSUM = r"""
#include <stdio.h>
#define N 45
double B[N][N], x[N], y[N];
int main(void) {
  for (int i = 0; i < N; i++) { x[i] = i * 0.5 - 3; for (int j = 0; j < N; j++) B[i][j] = 1.0 / (i + 2 * j + 1); }
#pragma scop
  for (int i = 0; i < N; i++) {
    y[i] = 0;
    for (int j = 0; j < N; j++)
      y[i] += B[i][j] * x[j];
  }
#pragma endscop
  for (int i = 0; i < N; i++) printf("%.17g\n", y[i]);
  return 0;
}
"""

UPDATE = re.compile(r"for \(int (c\d) = [^\n]*\n(?:\s*#pragma omp simd\n)?\s*y\[\1\] \+= A\[c\d \* n \+ \1\]")


@pytest.mark.parametrize("m, n", [(0, 5), (5, 0), (1, 1), (37, 130), (3, 300)])
def test_a_column_reduction_walks_its_rows_in_every_mode(tmp_path, m, n):
    text = GEMVT.replace("int m = M, n = N;", f"int m = {m}, n = {n};")
    outputs = assert_same_behaviour(tmp_path, text, modes=MODES, opts=("-O2",))
    for mode, output in outputs.items():
        optimized = output.split("the original code")[0]
        assert UPDATE.search(optimized), (mode, optimized)


def test_the_summaries_say_what_was_reordered_and_strip_mined(tmp_path):
    source = tmp_path / "gemvt.c"
    source.write_text(GEMVT.replace("int m = M, n = N;", "int m = 40, n = 300;"))
    default = optimize(source, OptimizeOptions.from_flags())
    assert "reordered [1, 0]: the innermost walks no array across rows" in default.summary()
    # the trace of the default mode replays to the same loops (the permute step is in it)
    steps = default.regions[0].trace_steps
    assert [step["op"] for step in steps] == ["auto_schedule", "permute"], steps
    assert Program.from_file(source).replay(steps).schedule.get_map().is_equal(default.regions[0].schedule.get_map())
    parallel = optimize(source, OptimizeOptions.from_flags(parallel=True))
    assert "strip-mined by 128: its blocks run in parallel" in parallel.summary(), parallel.summary()
    assert re.search(r"#pragma omp parallel for\n\s*for \(int c0 = 0; c0 <= \(n - 1\) / 128;", parallel.text)


def test_a_row_reduction_keeps_its_order(tmp_path):
    outputs = assert_same_behaviour(tmp_path, ROWSUM, modes={"default": dict()}, opts=("-O2",))
    source = tmp_path / "rowsum.c"
    source.write_text(ROWSUM)
    assert "reordered" not in optimize(source, OptimizeOptions.from_flags()).summary()
    assert re.search(r"for \(int (c\d) = [^\n]*\n\s*(y\[c\d\]|y_r\d) \+= B\[c\d\]\[\1\]", outputs["default"])
