"""``if (cond) continue;`` among the statements of a loop's body, with an affine
condition, is the rest of the body under ``!(cond)`` (helper-67: refused, "'continue'
inside a SCoP"). Checked by execution at edge sizes, 1 and 2 threads: the guarded
statements carry dependences across the skipped iterations."""
from __future__ import annotations

import islpy as isl
import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double *a, double *b, double *c) {
#pragma scop
  for (int i = 1; i < n; i++) {
    a[i] = a[i - 1] * 0.5 + 1.0;
    if (i % 3 == 0)
      continue;
    b[i] = b[i - 1] + a[i];
    if (i > m) {
      continue;
    }
    for (int j = 0; j < n; j++) {
      if (j >= i)
        continue;
      c[i * n + j] = c[(i - 1) * n + j] + b[j];
    }
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int cells = (n > 0 ? n : 1) * (n > 0 ? n : 1) + 4;
  double *a = malloc(sizeof(double) * cells), *b = malloc(sizeof(double) * cells), *c = malloc(sizeof(double) * cells);
  for (int k = 0; k < cells; k++) { a[k] = k % 5; b[k] = k % 3; c[k] = k % 7; }
  kernel(n, m, a, b, c);
  double s = 0;
  for (int k = 0; k < cells; k++) s += (a[k] + 2 * b[k] + 3 * c[k]) * (k % 11 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_a_continue_guards_the_rest_of_the_body():
    [scop] = extract(PROGRAM, filename="c.c")
    assert len(scop.statements) == 3
    # b[i] runs only where i % 3 != 0; c[i, j] only where also i <= m and j < i
    b_domain = scop.statements[1].domain
    assert b_domain.intersect(isl.Set("[n, m] -> { S1[i] : i = 3 }")).is_empty()
    c_domain = scop.statements[2].domain
    assert c_domain.intersect(isl.Set("[n, m] -> { S2[i, j] : j >= i }")).is_empty()
    assert c_domain.intersect(isl.Set("[n, m] -> { S2[i, j] : i > m }")).is_empty()


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True),
                                   dict(scheduler="isl", fuse="max", tile=True, parallel=True)])
def test_continues_run_like_the_original(flags, tmp_path):
    source = tmp_path / "c.c"
    source.write_text(PROGRAM)
    text = optimize(source, OptimizeOptions.from_flags(**flags)).text
    assert "for (int c" in text
    sizes = [(0, 0), (1, 5), (4, 2), (9, 9), (10, -1), (40, 25)]
    assert outputs_of(text, tmp_path, "new", sizes) == outputs_of(PROGRAM, tmp_path, "orig", sizes)


@pytest.mark.parametrize("body", [
    "    if (a[i] < 0)\n      continue;\n    a[i] = 1.0;\n",                 # reads the data
    "    {\n      if (i > 2)\n        continue;\n    }\n    a[i] = 1.0;\n",    # in a block of its own
    "    if (i > 2)\n      continue;\n    else\n      a[i] = 2.0;\n    a[i] += 1.0;\n",   # with an else
    "    a[i] = 1.0;\n    continue;\n",                                       # unconditional
])
def test_other_continues_stay_refused(body):
    text = f"void k(int n, double *a) {{\n#pragma scop\n  for (int i = 0; i < n; i++) {{\n{body}  }}\n" \
           "#pragma endscop\n}\n"
    with pytest.raises(ScopError, match="'continue'"):
        extract(text, filename="k.c")


def test_a_continue_before_a_pointer_step_stays_refused():
    text = ("void k(int n, int m, double *a) {\n#pragma scop\n  for (int i = 0; i < n; i++) {\n"
            "    if (i % 2)\n      continue;\n    a[0] = 1.0;\n    a += m;\n  }\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="'a' is a pointer"):
        extract(text, filename="k.c")
