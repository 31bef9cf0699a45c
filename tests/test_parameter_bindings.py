"""``int half = n / 2;`` before the region: the model keeps ``half = floor(n / 2)``
(helper-67: half was a parameter unrelated to n, and ``b[i]`` / ``b[n - 1 - i]`` for
``i < half`` was not found parallel). Read from the text, so assumed and tested at run
time: a value the text does not show (a macro's write) runs the original code."""
from __future__ import annotations

import islpy as isl
import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
#define RESET() (half = half + SHIFT)
static void kernel(int n, double *restrict a, double *restrict b) {
  int half = n / 2;
  int last = n - 1;
  RESET();
#pragma scop
  for (int i = 0; i < half; i++) {
    b[i] = a[i] + a[last - i];
    b[n - 1 - i] = a[i] - a[last - i] + b[i];
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  double *a = malloc(sizeof(double) * (abs(n) + 8)), *b = calloc(abs(n) + 8, sizeof(double));
  for (int i = 0; i < abs(n) + 8; i++) a[i] = i % 7 + 0.5;
  kernel(n, a, b);
  double s = 0;
  for (int i = 0; i < abs(n) + 8; i++) s += b[i] * (i + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_the_relation_is_in_the_context():
    [scop] = extract(PROGRAM.replace("SHIFT", "0"), filename="h.c")
    expected = isl.Set("[n, half, last] -> { : 2half <= n <= 2half + 1 and last = n - 1 }")
    assert scop.context.is_subset(expected.align_params(scop.context.get_space()))


@pytest.mark.parametrize("shift", ["0", "1"])
def test_the_loop_is_parallel_and_a_value_the_text_does_not_show_runs_the_original(shift, tmp_path):
    """With SHIFT 1 the macro moves half past n / 2: b[i] and b[last - i] meet, and the
    parallel loop would race; the run-time check sends those calls to the original."""
    source = PROGRAM.replace("SHIFT", shift)
    path = tmp_path / "h.c"
    path.write_text(source)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "#pragma omp parallel for" in text
    sizes = [(0,), (1,), (2,), (7,), (8,), (-5,), (41,), (1000,)]
    assert outputs_of(text, tmp_path, "new", sizes) == outputs_of(source, tmp_path, "orig", sizes)
