"""Pointers to rows declared in a block of the region, as C programmers write them:
``const double *row = A + i * m;`` then ``row[j]`` (helper-66: refused, "only scalars
and arrays (not pointers ...) can be declared inside the region"). Each use is read as
``A[i * m + j]``, rows of ``m``, and the statements' text reads ``(A + i * m)[j]``. The
oracle is execution: the original and the output compiled alike, at edge sizes and 1
and 2 threads. Pointers that are assigned, used as values, or whose offset may change
in their block stay refused."""
from __future__ import annotations

import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract

# a row sum through a row pointer, then an in-place sweep through two row pointers (the
# row above is read after it was updated: the dependences decide the schedule), with
# the forms B + e, &B[e] and e + B
KERNEL = r"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, const double *A, double *out, double *B) {
#pragma scop
  for (int i = 0; i < n; i++) {
    const double *row = A + i * m;
    double s = 0.0;
    for (int j = 0; j < m; j++)
      s += row[j];
    out[i] = s;
  }
  for (int i = 1; i < n; i++) {
    double *cur = &B[i * m];
    const double *above = (i - 1) * m + B;
    for (int j = 1; j < m; j++)
      cur[j] = 0.5 * cur[j - 1] + 0.25 * above[j] + out[i];
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]), cells = (n > 0 ? n : 1) * (m > 0 ? m : 1) + 1;
  double *A = malloc(sizeof(double) * cells), *B = malloc(sizeof(double) * cells);
  double *out = calloc(n > 0 ? n : 1, sizeof(double));
  for (int k = 0; k < cells; k++) { A[k] = (k % 10) * 0.1; B[k] = (k % 7) * 0.5; }
  kernel(n, m, A, out, B);
  double sum = 0;
  for (int k = 0; k < cells; k++) sum += B[k] * (k % 5 + 1);
  for (int i = 0; i < n; i++) sum += out[i] * (i + 1);
  printf("%.17g\n", sum);
  return 0;
}
"""


def test_row_pointers_are_read_as_rows_of_the_array():
    [scop] = extract(KERNEL, filename="rows.c")
    assert scop.arrays["A"].linearized and scop.arrays["B"].linearized
    assert "row" not in scop.arrays and "cur" not in scop.arrays
    bodies = [s.body for s in scop.statements]
    assert any("(A + i * m)[j]" in b for b in bodies), bodies
    assert any("(&B[i * m])[j]" in b for b in bodies), bodies


@pytest.mark.parametrize("flags", [{}, {"tile": True, "parallel": True}, {"tile": True, "tile_sizes": [3, 5]},
                                   {"scheduler": "isl", "tile": True, "parallel": True}])
def test_row_pointers_run_like_the_original(flags, tmp_path):
    path = tmp_path / "rows.c"
    path.write_text(KERNEL)
    result = optimize(path, OptimizeOptions.from_flags(**flags))
    if flags.get("parallel"):
        assert "#pragma omp parallel for" in result.text
    sizes = [(0, 0), (1, 1), (2, 5), (5, 3), (40, 33)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(KERNEL, tmp_path, "orig", sizes)


@pytest.mark.parametrize("declaration, use", [
    ("const double *row = A + i * m;\n    row += 0;", "row[j]"),          # assigned
    ("const double *row = A + i * m;", "row[j] + (row == A)"),          # a value
    ("const double *row = A + k * m;", "row[j]"),                        # k changes in the block
    ("const double *row = A + i * m;\n    const double *row2 = row;", "row2[j]"),   # a pointer of a pointer
    ("const float *row = (const float *) A + i * m;", "row[j]"),         # another type
])
def test_other_pointer_declarations_stay_refused(declaration, use):
    source = KERNEL.replace("const double *row = A + i * m;", declaration) \
        .replace("s += row[j];", f"s += {use};").replace("double s = 0.0;", "double s = 0.0; int k = 0;")
    if "k * m" in declaration:
        source = source.replace("out[i] = s;", "out[i] = s; k = i;")
    with pytest.raises(ScopError, match="not pointers"):
        extract(source, filename="rows.c")
