"""``if (b) break;`` as the first statement of a loop's body, ``b`` reading no data:
the loop runs while its condition and ``!(b)`` hold (helper-68: "'break' inside a
SCoP" for ``if (i >= m) break;``). Checked on the model and by execution at edge sizes
(0, negative, past the arrays' loops), the iterator read after the region; a break
whose condition is not monotone in the iterator, reads the data or stands elsewhere
stays refused."""
from __future__ import annotations

import islpy as isl
import pytest

from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract
from compiled_runs import outputs_of

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
static void k(int n, int m, double *a, const double *b, double c[][40]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    if (i >= m) break;
    a[i] = b[i] * 2.0 + 1.0;
  }
  for (int t = 0; ; t++) {
    if (t >= n - 1) break;
    for (int j = 1; j < 40; j++) {
      if (j > m + t)
        break;
      c[t + 1][j] = c[t][j - 1] + b[j];
    }
  }
#pragma endscop
  a[0] += i;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  double *a = calloc(64, sizeof(double)), *b = calloc(64, sizeof(double));
  double (*c)[40] = calloc(64, sizeof *c);
  for (int i = 0; i < 64; i++) { b[i] = i % 7; a[i] = -1; for (int j = 0; j < 40; j++) c[i][j] = (i + j) % 5; }
  k(n, m, a, b, c);
  for (int i = 0; i < 64; i++) { printf("%a\n", a[i]); for (int j = 0; j < 40; j++) printf(" %a", c[i][j]); }
  return 0;
}
"""

SIZES = [(0, 0), (1, 1), (5, 3), (3, 5), (40, 10), (63, 60), (-1, 4), (10, -2), (20, 0), (2, 39)]


def test_a_break_is_part_of_the_loop_condition():
    [scop] = extract(PROGRAM, filename="k.c")
    first, second = scop.statements
    assert first.domain.is_equal(isl.Set(f"[n, m] -> {{ {first.name}[i] : 0 <= i < n and i < m }}")
                                 .align_params(first.domain.get_space()))
    expected = isl.Set(f"[n, m] -> {{ {second.name}[t, j] : 0 <= t < n - 1 and 1 <= j < 40 and j <= m + t }}")
    assert second.domain.is_equal(expected.align_params(second.domain.get_space()))


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(scheduler="isl", parallel=True),
                                   dict(unroll=4)])
def test_loops_with_breaks_compute_what_the_original_computes(tmp_path, flags):
    path = tmp_path / "k.c"
    path.write_text(PROGRAM)
    text = optimize(path, OptimizeOptions.from_flags(**flags)).text
    expected = outputs_of(PROGRAM, tmp_path, "orig", SIZES)
    assert outputs_of(text, tmp_path, "new", SIZES) == expected
    assert len(set(expected)) > 5


@pytest.mark.parametrize("line, message", [
    ("if (i == 5) break;", "not monotone"),                   # runs on past i = 5 without the break
    ("if (b[i] < 0.0) break;", "'break' inside a SCoP"),      # reads the data
    ("a[i] = 0.0; if (i >= m) break;", "'break' inside a SCoP"),   # not the first statement
])
def test_other_breaks_stay_refused(line, message):
    text = PROGRAM.replace("if (i >= m) break;", line)
    with pytest.raises(ScopError, match=message):
        extract(text, filename="k.c")


def test_a_break_whose_test_is_not_monotone_is_named_where_it_is():
    """helper-101: the refusal pointed at the loop's own 'i < n', which is monotone, and
    did not say that the break was the cause. Now it points at the 'if' of the break."""
    text = PROGRAM.replace("if (i >= m) break;", "if (i == 5) break;")
    with pytest.raises(ScopError) as err:
        extract(text, filename="k.c")
    line = text[:text.index("if (i == 5) break;")].count("\n") + 1
    col = text.index("if (i == 5) break;") - text.rfind("\n", 0, text.index("if (i == 5) break;"))
    assert (err.value.line, err.value.col) == (line, col)
    assert "'if (i == 5) break;' is read as part of the loop's condition, '!(i == 5)', which is not monotone " \
           "in 'i'" in str(err.value), str(err.value)


def test_a_break_in_a_loop_that_steps_a_pointer(tmp_path):
    """The break joins the condition before the pointer steps are read: the row
    pointer 'p += w' of a loop that stops at 'lim' is read as rows (it was refused,
    "'p' is a pointer used as a whole value")."""
    from compiled_runs import image_driver
    source = ("#include <stdio.h>\n#include <stdlib.h>\n"
              "static void kernel(int w, int h, float *a, float *b, float *c) {\n"
              "  float *p = a;\n  int lim = h / 2 + 1;\n#pragma scop\n"
              "  for (int y = 0; y < h; y++) {\n    if (y >= lim) break;\n"
              "    for (int x = 0; x < w; x++)\n      p[x] = p[x] * 0.5f + b[y * w + x];\n    p += w;\n  }\n"
              "#pragma endscop\n}\n") + image_driver("int", [(0, 0), (1, 1), (2, 3), (3, 3), (5, 9), (9, 5), (33, 20)])
    path = tmp_path / "k.c"
    path.write_text(source)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "#pragma omp parallel for" in text
    assert outputs_of(text, tmp_path, "new", [()]) == outputs_of(source, tmp_path, "orig", [()])
