"""The stride-1 loop order without a tiling stage (tester helper-102, D3).

``y[j] += A[i][j] * x[i]`` has a parallel ``j`` and a reduction along ``i``: Pluto's
scheduler puts ``j`` first, so without ``--tile`` the code walked ``A`` down its
columns (4.5-5.8x slower than the source). The default mode now keeps the stride-1
loop innermost (`polysched.tiling.stride_one_order`), and ``--parallel`` alone no
longer moves that loop outermost to run it in parallel. Every mode's output
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


def test_the_summaries_say_what_was_reordered_and_kept_innermost(tmp_path):
    source = tmp_path / "gemvt.c"
    source.write_text(GEMVT.replace("int m = M, n = N;", "int m = 40, n = 300;"))
    default = optimize(source, OptimizeOptions.from_flags())
    assert "reordered [1, 0]: the innermost walks no array across rows" in default.summary()
    # the trace of the default mode replays to the same loops (the permute step is in it)
    steps = default.regions[0].trace_steps
    assert [step["op"] for step in steps] == ["auto_schedule", "permute"], steps
    assert Program.from_file(source).replay(steps).schedule.get_map().is_equal(default.regions[0].schedule.get_map())
    ordered = Program.from_file(source).auto_schedule("pluto").stride_order()
    assert list(ordered.trace.steps) == steps
    parallel = optimize(source, OptimizeOptions.from_flags(parallel=True))
    summary = parallel.summary()
    assert "parallel loop 1 not moved outermost: it is the stride-1 loop" in summary, summary
    assert "no parallel loop: the one that carries no dependence stays innermost" in summary, summary


def test_a_row_reduction_keeps_its_order(tmp_path):
    outputs = assert_same_behaviour(tmp_path, ROWSUM, modes={"default": dict()}, opts=("-O2",))
    source = tmp_path / "rowsum.c"
    source.write_text(ROWSUM)
    assert "reordered" not in optimize(source, OptimizeOptions.from_flags()).summary()
    assert re.search(r"for \(int (c\d) = [^\n]*\n\s*(y\[c\d\]|y_r\d) \+= B\[c\d\]\[\1\]", outputs["default"])


# tester helper-102, D2: a 2x2 downsample reads each input pixel once; tiled 64 x 128
# it ran 1.6x slower than the source at 1 thread
DOWNSAMPLE = r"""
#include <stdio.h>
#include <stdlib.h>
void down(int h, int w, const float *restrict src, float *restrict dst) {
#pragma scop
  for (int y = 0; y < h / 2; y++)
    for (int x = 0; x < w / 2; x++)
      dst[y * (w / 2) + x] = 0.25f * (src[(2*y) * w + 2*x] + src[(2*y) * w + 2*x + 1] + src[(2*y+1) * w + 2*x] + src[(2*y+1) * w + 2*x + 1]);
#pragma endscop
}
int main(void) {
  int h = H, w = W;
  float *src = malloc(sizeof(float) * (h * w + 1)), *dst = malloc(sizeof(float) * (h * w / 4 + 1));
  for (int k = 0; k < h * w; k++) src[k] = (k % 13) * 0.5f + 1.0f / (k + 1);
  down(h, w, src, dst);
  for (int k = 0; k < (h / 2) * (w / 2); k++) printf("%.9g\n", dst[k]);
  return 0;
}
"""


@pytest.mark.parametrize("h, w", [(0, 8), (7, 1), (2, 2), (41, 300)])
def test_a_stream_is_not_tiled(tmp_path, h, w):
    text = DOWNSAMPLE.replace("int h = H, w = W;", f"int h = {h}, w = {w};")
    outputs = assert_same_behaviour(tmp_path, text, modes={"tile-par": dict(tile=True, parallel=True)},
                                    opts=("-O2",))
    assert not re.search(r"c\d <= polysched_min\(\d+ \* c\d \+ \d+", outputs["tile-par"].split("the original")[0])
    source = tmp_path / "down.c"
    source.write_text(text)
    summary = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).summary()
    assert "not tiled: no array element is used by two of its iterations (a stream)" in summary, summary
    # sizes the user gives are the user's: tiled
    summary = optimize(source, OptimizeOptions.from_flags(tile=True, tile_sizes=[8, 16])).summary()
    assert "tiled [8, 16]" in summary, summary


def _reused(matrix, n: int) -> bool:
    """Brute force: do two points of the n x n square read one element of
    ``A[a i + b j][c i + d j]``?"""
    (a, b), (c, d) = matrix
    seen = set()
    for i in range(n):
        for j in range(n):
            element = (a * i + b * j, c * i + d * j)
            if element in seen:
                return True
            seen.add(element)
    return False


@pytest.mark.parametrize("seed", range(12))
def test_the_stream_test_agrees_with_brute_force(seed):
    """Random 2 x 2 subscript matrices: the band is tiled exactly when two of its points
    read one element of A (brute force at n = 6; for n >= 2 the answer is the same)."""
    import random
    rng = random.Random(seed)
    matrix = [[rng.randint(-1, 2) for _ in range(2)] for _ in range(2)]
    if seed % 2:        # half of them singular: rows that are multiples of one another
        factor = rng.randint(-1, 2)
        matrix[1] = [factor * x for x in matrix[0]]
    (a, b), (c, d) = matrix
    text = f"""
void k(int n, float A[restrict 64][64], float out[restrict 32][32]) {{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      out[i][j] = A[{a} * i + {b} * j + 16][{c} * i + {d} * j + 16];
#pragma endscop
}}
"""
    program = Program.from_source(text, filename="k.c")
    report = str(program.auto_schedule("pluto").auto_tile(parallel=False).tiling_report)
    assert ("a stream" not in report) == _reused(matrix, 6), (matrix, report)
