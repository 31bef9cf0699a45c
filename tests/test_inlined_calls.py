"""A function of the file that is one 'return' of int arithmetic on its int parameters
(``static inline int at(int y, int x, int w) { return y * w + x; }``), called in a
subscript, loop header or condition, is read as its expression with the arguments in
place: its flat subscripts as rows, by execution at edge sizes and 1 and 2 threads.
Nested calls are inlined from the innermost out (helper-16: refused).
Functions that read globals, take other types or do more are still refused there."""
from __future__ import annotations

import pytest

from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract
from compiled_runs import outputs_of

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
static inline int at(int y, int x, int w) { return y * w + x; }
static int half(int v) { return (v - 1) / 2; }
static int last(int n) { return n - 1; }
int main(int argc, char **argv) {
  int w = atoi(argv[1]), h = atoi(argv[2]);
  int cells = (w > 0 ? w : 1) * (h > 0 ? h : 1) + 8;
  double *a = calloc(cells, sizeof(double)), *b = calloc(cells, sizeof(double));
  for (int i = 0; i < cells; i++) a[i] = i % 13 * 0.5;
  int y, x;
#pragma scop
  for (y = 1; y < h; y++)
    for (x = 0; x <= last(w); x++)
      if (half(x + 1) >= 0)
        b[at(y, x, w)] = a[at(y - 1, x, w)] + a[at(y, x, w)] * 0.25 + a[half(x + 1)]
                         + a[at(at(y, 0, 1) - 1, half(half(x + 3)), w)] * 0.125;
#pragma endscop
  for (int i = 0; i < cells; i++) printf("%.17g\n", b[i]);
  return 0;
}
"""


def test_the_calls_are_read_as_their_expressions():
    [scop] = extract(PROGRAM, filename="p.c")
    [stmt] = scop.statements
    assert "at(y, x, w)" in stmt.body                       # the text keeps the calls
    write = next(a for a in stmt.accesses if a.kind == "write")
    assert write.array == "b" and "w" in str(write.relation)


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(fuse="max", tile=True, parallel=True,
                                                                       unroll=2)])
def test_inlined_calls_run_like_the_original(flags, tmp_path):
    source = tmp_path / "p.c"
    source.write_text(PROGRAM)
    text = optimize(source, OptimizeOptions.from_flags(**flags)).text
    assert "for (int c" in text
    sizes = [(9, 7), (1, 1), (0, 5), (5, 0), (2, 3), (-3, 4), (30, 20)]
    assert outputs_of(text, tmp_path, "new", sizes) == outputs_of(PROGRAM, tmp_path, "orig", sizes)


@pytest.mark.parametrize("function", [
    "int g = 3;\nstatic int at(int y, int x, int w) { return y * w + x + g; }",        # a global
    "static int at(long y, int x, int w) { return y * w + x; }",                     # a long parameter
    "static long at(int y, int x, int w) { return (long)y * w + x; }",               # returns long
    "static int at(int y, int x, int w) { int k = y * w; return k + x; }",           # two statements
])
def test_other_functions_stay_refused_there(function):
    """(helper-16: a long argument to an int parameter is converted, which the model
    did not do: id(off) with off = 2**32 + 1 is 1, read as off; see the next test)"""
    text = (function + "\nvoid f(int h, int w, double *b) {\n  int y, x;\n#pragma scop\n"
            "  for (y = 0; y < h; y++)\n    for (x = 0; x < w; x++)\n      b[at(y, x, w)] = 1.0;\n"
            "#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="call of 'at'"):
        extract(text, filename="f.c")


def test_an_argument_that_is_not_int_is_refused():
    """helper-16: 'b[id(off) + i]' with a long off was read as b[off + i], and the loop
    ran in parallel over a real dependence (id(off) is 1 at off = 2**32 + 1)."""
    text = ("static int id(int x) { return x; }\ndouble b[1000];\nvoid f(long off) {\n#pragma scop\n"
            "  for (int i = 0; i < 500; i++)\n    b[id(off) + i] = b[i] + 1.0;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="call of 'id'"):
        extract(text, filename="f.c")
    [scop] = extract(text.replace("long off", "int off"), filename="f.c")       # an int: read
    assert scop.parameters == ["off"]
