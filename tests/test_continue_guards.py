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


DATA_TESTS = r"""#include <stdio.h>
#include <stdlib.h>
#define SKIP(x) ((x) % 3 == 0)
static long kernel(int n, int m, int *a, int *b, long *c, double *d) {
  long s = 0;
#pragma scop
  for (int i = 0; i < n; i++) {
    b[i] = 0;
    if (i % 4 == 1) continue;
    if (SKIP(a[i])) continue;
    b[i] += a[i];   /* kept */
    if (a[i] > 50)
      c[i] = a[i] * 2;
    else
      c[i] = -a[i];
    d[i] = d[i] * 0.5 + 1.0;
    a[i] = a[i] + 1;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if (a[i] + j == 7) { continue; }
      c[i] += j;
    }
  for (int i = 0; i < n; i++) {
    if (a[i] < 10) continue;
    s += a[i];
  }
  for (int i = 0; i < n; i++) {
    double t = a[i] * 0.5;
    if (t > 40.0) { continue; }
    d[i] = t + d[i];
  }
#pragma endscop
  return s;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int *a = malloc(sizeof(int) * (n + 1)), *b = malloc(sizeof(int) * (n + 1));
  long *c = malloc(sizeof(long) * (n + 1));
  double *d = malloc(sizeof(double) * (n + 1));
  for (int i = 0; i < n; i++) { a[i] = (i * 37) % 101; b[i] = 3; c[i] = i; d[i] = i * 0.25; }
  long s = kernel(n, m, a, b, c, d);
  double t = 0;
  for (int i = 0; i < n; i++) { s += a[i] * 3 + b[i] * 5 + c[i] * 7; t += d[i] * (i % 7); }
  printf("%ld %.17g\n", s, t);
  return 0;
}
"""


@pytest.mark.parametrize("flags", [dict(parallel=True), dict(tile=True, parallel=True),
                                   dict(scheduler="isl", fuse="max", tile=True, parallel=True)])
def test_a_continue_under_a_data_test_guards_the_rest_as_one_statement(flags, tmp_path):
    """``if (a[i] < 10) continue;`` (a macro's test, braces, a test of a variable the
    body declares) before assignments and ``if``s: one statement, ``if (!(test)) {
    rest }``, the rest's own text inside (helper-72's q27; refused before, and a test of
    a body's own variable printed the source's ``continue`` into the new loop, which did
    not compile). Loops stay parallel, the sum a reduction."""
    source = tmp_path / "d.c"
    source.write_text(DATA_TESTS)
    text = optimize(source, OptimizeOptions.from_flags(**flags)).text
    region = text.split("#pragma scop")[1].split("polysched: the original code")[0]
    assert "continue" not in region and "if (!(SKIP(a[" in region, region
    if flags == dict(parallel=True):
        assert "reduction(+:s_wrapped)" in region, region
    sizes = [(0, 0), (1, 5), (7, 2), (200, 13), (1000, -1)]
    assert outputs_of(text, tmp_path, "new", sizes) == outputs_of(DATA_TESTS, tmp_path, "orig", sizes)


def test_a_data_continue_before_a_loop_changing_its_test_is_refused():
    """The loop after it writes what the test reads: moved into the loop
    (data_test_over_loops), the test would change its value as the loop runs."""
    text = ("void k(int n, double *a) {\n#pragma scop\n  for (int i = 0; i < n; i++) {\n"
            "    if (a[i] < 0)\n      continue;\n    for (int j = 0; j < n; j++)\n      a[j] = 1.0;\n"
            "  }\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="reads 'a', which the code under the condition changes") as err:
        extract(text, filename="k.c")
    assert (err.value.line, err.value.col) == (4, 9)


@pytest.mark.parametrize("body", [
    "    if (a[i] < 0)\n      continue;\n    a[i] = 1.0;\n    if (i > 2)\n      continue;\n    a[i] = 2.0;\n",
    "    double t = a[i];\n    if (t < 0)\n      continue;\n    if (i > 2)\n      continue;\n    a[i] = 2.0;\n",

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


def test_a_data_continue_before_another_continue_stays_refused():
    """(Random batch of session 53, program 54.) The test of ``t``, declared by the body
    (and by another function of the file), first read as affine: the second ``continue`` was rewritten, then the walk found the
    first test reads the data and took the rest as rewritten, whose text, ``continue``
    and a loop's closing brace included, went into the new loop (no compile)."""
    text = ("long k(int n, int *a, int *b, long *c, double *d) {\n  long s = 0;\n#pragma scop\n"
            "  for (int i = 0; i < n; i++) {\n    double t = a[i] * 0.5;\n    c[i] += a[i] * 2;\n"
            "    if (t < 5) { continue; }\n    d[i] = d[i] * 0.5 + a[i];\n    s += a[i];\n"
            "    if (b[i] > 10) continue;\n    s += a[i];\n  }\n#pragma endscop\n  return s;\n}\n"
            "double main_t(void) {\n  double t = 0;\n  return t;\n}\n")
    with pytest.raises(ScopError, match="10:20: error: 'continue' after 'if \\(...\\) continue;' under a condition "
                                        "that reads the data"):
        extract(text, filename="k.c")


BLOCKS_AFTER_DATA_CONTINUES = r"""#include <stdio.h>
#include <stdlib.h>
double x[40], y[40], C[40][40];
int m[40], a[40];
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  for (int i = 0; i < 40; i++) { x[i] = (i * 7) % 5; y[i] = (i * 3) % 4; m[i] = i % 3; a[i] = (i * 5) % 4; }
#pragma scop
  for (int i = 0; i < n; i++) {
    if (m[i] == 0)
      continue;
    if (x[i] > y[i]) { double t2 = x[i]; x[i] = y[i]; y[i] = t2; }
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (a[j] == 0) continue;
      double w = x[i] * 0.5;
      { long k = j; k += i; C[i][j] = k * a[j] + w; }
    }
#pragma endscop
  double s = 0;
  for (int i = 0; i < 40; i++) { s += x[i] * (i + 1) + y[i] * (i + 2); for (int j = 0; j < 40; j++) s += C[i][j] * (j + 1); }
  printf("%.17g\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(scheduler="isl", fuse="max", tile=True,
                                                                        parallel=True)])
def test_declarations_after_a_data_continue_are_the_statements_own(flags, tmp_path):
    """helper-81: 'if (a[j] == 0) continue;' followed by 'double w = ...;' and a block
    '{ long k = j; ... }' was refused ("'continue' inside a SCoP"): the declarations'
    scope ends with the loop's body, as the statement 'if (!(a[j] == 0)) { rest }'
    does, so they are its own."""
    source = tmp_path / "b.c"
    source.write_text(BLOCKS_AFTER_DATA_CONTINUES)
    text = optimize(source, OptimizeOptions.from_flags(**flags)).text
    region = text.split("#pragma scop")[1].split("polysched: the original code")[0]
    assert "continue" not in region and "if (!(a[" in region and "double w = x[" in region, region
    sizes = [(0,), (1,), (2,), (-3,), (17,), (40,)]
    assert outputs_of(text, tmp_path, "new", sizes) == outputs_of(BLOCKS_AFTER_DATA_CONTINUES, tmp_path, "orig", sizes)


def test_a_data_continue_with_an_else_is_refused_as_such():
    """helper-81: 'if (m[i] == 0) continue; else { ... }' was told that control flow must
    be static; 'if (...) continue;' alone, the rest after it, is what runs."""
    text = ("void k(int n, int *m, double *a) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
            "    if (m[i] == 0) continue; else { a[i] = 1.0; }\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="4:20: error: 'continue' with an 'else' or other statements under a "
                                        "condition that reads the data"):
        extract(text, filename="k.c")
