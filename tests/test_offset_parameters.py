"""Parameters that start a loop or offset a subscript may be 0 in the optimized code.

The context used to say every parameter is >= 1, so ``for (i = lo; i < hi; i++)`` ran
the original code at ``lo = 0``, its most common value. Now only sizes (parameters that
bound a loop from above) are >= 1; the others are >= 0. Checked on the extracted
context, on the run-time check of the output, and by running both programs at 0, 1,
other values and negative ones (the original code then), at 1 and 2 threads.
"""
from __future__ import annotations

import islpy as isl
import pytest

from polysched import emit_c
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract
from compiled_runs import outputs_of


def _context(body: str, params: str = "int lo, int hi, int n, int k, int off") -> isl.Set:
    text = f"""
double A[100][100], x[300];
void f({params})
{{
  int i, j;
#pragma scop
{body}
#pragma endscop
}}
"""
    [scop] = extract(text, filename="t.c")
    return scop.context


@pytest.mark.parametrize("body, expected", [
    # a start is an offset, an upper bound a size
    ("for (i = lo; i < hi; i++) x[i] = 0;", "[lo, hi] -> { : lo >= 0 and hi >= 1 }"),
    # a stride from the start is no bound
    ("for (i = lo; i < hi; i += 3) x[i] = 0;", "[lo, hi] -> { : lo >= 0 and hi >= 1 }"),
    # downward: the start is the size
    ("for (i = n - 1; i >= lo; i--) x[i] = 0;", "[n, lo] -> { : n >= 1 and lo >= 0 }"),
    # a guard bounding an iterator from above makes a size
    ("for (i = 0; i < n; i++) if (i < k) x[i] = 0;", "[n, k] -> { : n >= 1 and k >= 1 }"),
    # subtracted from a size: an offset
    ("for (i = 0; i < n - k; i++) x[i] = 1;", "[n, k] -> { : n >= 1 and k >= 0 }"),
    # in a subscript only: an offset
    ("for (i = 0; i < n; i++) x[i + off] = A[off][i];", "[n, off] -> { : n >= 1 and off >= 0 }"),
    # both roles, and at 0 the loop is empty: a size
    ("for (i = n; i < 2 * n; i++) x[i] = 0;", "[n] -> { : n >= 1 }"),
    # both roles, but at 0 the loop runs: a start (it ran the original at lo = 0)
    ("for (i = lo; i < lo + n; i++) x[i] = 0;", "[lo, n] -> { : lo >= 0 and n >= 1 }"),
    # a size of one statement, a start of another
    ("for (i = 0; i < k; i++) x[i] = 0; for (i = k; i < n; i++) x[i] = 1;",
     "[k, n] -> { : k >= 0 and n >= 1 }"),
    # a division read as floor because 'off - 1 + i' >= 0 for off >= 1 only: a size
    ("for (i = 0; i < n; i++) x[(i + off - 1) / 2] += 1;", "[n, off] -> { : n >= 1 and off >= 1 }"),
    # the same division is floor for off >= 0 too: an offset
    ("for (i = 0; i < n; i++) x[(i + off) / 2] += 1;", "[n, off] -> { : n >= 1 and off >= 0 }"),
])
def test_sizes_are_positive_and_offsets_non_negative(body, expected):
    context = _context(body)
    assert context.is_equal(isl.Set(expected).align_params(context.get_space())), str(context)


KERNEL = """
#include <stdio.h>
#include <stdlib.h>

static void kernel(int lo, int hi, int m, int off, double A[][64], double B[][64], double x[])
{
#pragma scop
  for (int t = 0; t < 3; t++) {
    for (int i = lo; i < hi; i++)
      for (int j = lo; j < m; j++)
        B[i + 1][j + 1] = 0.25 * (A[i + 1][j + 1] + A[i + 2][j + 1] + A[i + 1][j + 2] + A[i + 2][j + 2])
                          + x[j + off];
    for (int i = lo; i < hi; i++)
      for (int j = lo; j < m; j++)
        A[i + 2][j + 2] = B[i + 1][j + 1] * 0.5;
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int lo = atoi(argv[1]), hi = atoi(argv[2]), off = atoi(argv[3]);
  static double A[66][64], B[66][64], x[200];
  for (int i = 0; i < 66; i++)
    for (int j = 0; j < 64; j++)
      A[i][j] = (i * 7 + j * 3) % 13 + 0.5;
  for (int j = 0; j < 200; j++)
    x[j] = j % 5;
  kernel(lo, hi, 60, off, A, B, x);
  for (int i = 0; i < 66; i++)
    for (int j = 0; j < 64; j++)
      printf("%.17g %.17g\\n", A[i][j], B[i][j]);
  return 0;
}
"""

# (lo, hi, off): 0 first, the value the context used to send to the original code; every
# access stays inside the arrays
ARGUMENTS = [(0, 60, 0), (1, 60, 0), (0, 1, 3), (5, 7, 2), (0, 0, 0), (7, 3, 1), (-1, 60, 1), (2, 60, -1)]


@pytest.mark.parametrize("mode", ["tile-par", "isl-tile-par", "unroll"])
def test_start_at_zero_runs_the_optimized_code_and_matches(mode, tmp_path):
    flags = {"tile-par": dict(tile=True, parallel=True),
             "isl-tile-par": dict(scheduler="isl", tile=True, parallel=True),
             "unroll": dict(unroll=4)}[mode]
    source = tmp_path / "k.c"
    source.write_text(KERNEL)
    result = optimize(source, OptimizeOptions.from_flags(**flags))
    [region] = result.regions
    assumed = emit_c.versioning_plan(region.scop, schedule=region.schedule).assumed
    at_zero = isl.Set("[lo, hi, m, off] -> { : lo = 0 and hi = 60 and m = 60 and off = 0 }")
    assert at_zero.align_params(assumed.get_space()).is_subset(assumed), str(assumed)
    expected = outputs_of(KERNEL, tmp_path, "orig", ARGUMENTS)
    got = outputs_of(result.text, tmp_path, "new", ARGUMENTS)
    for k, args in enumerate(ARGUMENTS):
        assert expected[2 * k] == expected[2 * k + 1], f"the original differs at 1 and 2 threads at {args}"
        assert got[2 * k:2 * k + 2] == expected[2 * k:2 * k + 2], f"{mode} at (lo, hi, off) = {args}"


DIVIDED_FROM_A_START = r"""#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int lo = atoi(argv[1]), n = atoi(argv[2]);
  double a[16], b[16], c[8][8] = {{0}}, d[16] = {0}, e[16];
  int i, j;
  for (i = 0; i < 16; i++) { a[i] = i; b[i] = -1; e[i] = 100 + i; }
#pragma scop
  for (i = lo; i < n; i++)
    for (j = 0; j <= (i - 1) / 2; j++)
      c[i][j] = 1.0;
  for (i = lo; i < n; i++)
    if ((i - 1) % 3 == -1)
      d[i] = 1.0;
  for (i = lo; i < n; i++) {
    b[i] = a[(i - 1) / 2 + 1];
    a[i + 1] = e[i];
  }
#pragma endscop
  for (i = 0; i < 8; i++) for (j = 0; j < 8; j++) printf("%g ", c[i][j]);
  for (i = 0; i < 16; i++) printf("%g %g %g\n", a[i], b[i], d[i]);
  return 0;
}
"""


@pytest.mark.parametrize("mode", ["identity", "tile-par", "fuse-no"])
def test_division_of_a_value_negative_only_through_a_loop_start(mode, tmp_path):
    """helper-13: in 'for (i = lo; ...)', (i - 1) / 2 and (i - 1) % 3 were read as floor
    and modulo with only the dividend's parameters (none) kept sizes, so lo = 0 ran a
    model where -1 / 2 is -1 (C: 0) and -1 % 3 is 2 (C: -1): a lost instance, a false
    guard and a missed dependence. The loop's start is now kept a size too."""
    flags = {"identity": dict(fuse="no"), "tile-par": dict(tile=True, parallel=True),
             "fuse-no": dict(fuse="no", tile=True, parallel=True)}[mode]
    source = tmp_path / "k.c"
    source.write_text(DIVIDED_FROM_A_START)
    result = optimize(source, OptimizeOptions.from_flags(**flags))
    arguments = [(0, 6), (1, 6), (2, 7), (0, 0), (0, 1)]
    assert outputs_of(result.text, tmp_path, "new", arguments) == \
        outputs_of(DIVIDED_FROM_A_START, tmp_path, "orig", arguments)
