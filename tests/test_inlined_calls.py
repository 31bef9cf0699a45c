"""A function of the file that is one 'return' of int arithmetic on its int parameters
(``static inline int at(int y, int x, int w) { return y * w + x; }``), called in a
subscript, loop header or condition, is read as its expression with the arguments in
place: its flat subscripts as rows, by execution at edge sizes and 1 and 2 threads.
Nested calls are inlined from the innermost out (helper-16: refused).
Parameters and results of other integer types (size_t, long) are read with C's
conversions written out. Functions that read globals, take other types or do more are
still refused there."""
from __future__ import annotations

import islpy as isl
import pytest

from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract
from compiled_runs import image_driver, oracle_results, outputs_of

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
    "static int at(_Bool y, int x, int w) { return y * w + x; }",                    # a _Bool parameter
    "static int at(int *y, int x, int w) { return x * w; }",                         # a pointer
    "typedef long idx_t;\nstatic idx_t at(int y, int x, int w) { return y * w + x; }",  # a typedef of the file
    "static double at(int y, int x, int w) { return y * w + x; }",                   # returns double
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


# Index helpers of other integer types, as C code beyond images writes them: the
# model reads the conversions C applies to the arguments and the returned value
# (helper-16 and session 50: refused, "call of 'idx'"). The second nest reads what the
# first wrote one row up through a narrowing helper: a wrong model of the conversions
# changes the dependences, and so the outputs under a reordering.
WIDE_HELPERS = r"""#include <stdio.h>
#include <stdlib.h>
static inline size_t idx(size_t i, size_t j, size_t n) { return i * n + j; }
static long lat(long i, long j, long n) { return i * n + j; }
static int back(long i) { return i - 1; }
static void kernel(size_t n, size_t m, long off, const double *in, double *out, double *acc) {
#pragma scop
  for (size_t i = 1; i + 1 < n; i++)
    for (size_t j = 1; j + 1 < m; j++)
      out[idx(i, j, m)] = (in[idx(i - 1, j, m)] + in[idx(i + 1, j, m)] + in[lat(i, j - 1, m)]
                           + in[idx(i, j + 1, m)]) * 0.25;
  for (long i = 1; i < (long) n; i++)
    for (long j = 0; j < (long) m; j++)
      acc[lat(i, j, m)] = acc[lat(back(i), j, m)] * 0.5 + out[idx(i, j, m)] + acc[back(i + off) * 0 + 1];
#pragma endscop
}
int main(int argc, char **argv) {
  long n = atol(argv[1]), m = atol(argv[2]), off = atol(argv[3]);
  size_t cells = (size_t) (n > 0 ? n : 1) * (size_t) (m > 0 ? m : 1) + 8;
  double *in = malloc(cells * sizeof(double)), *out = calloc(cells, sizeof(double));
  double *acc = calloc(cells, sizeof(double));
  for (size_t k = 0; k < cells; k++) { in[k] = (double) (k % 17) / 3.0; acc[k] = (double) (k % 5); }
  kernel((size_t) n, (size_t) m, off, in, out, acc);
  double s = 0;
  for (size_t k = 0; k < cells; k++) s += (out[k] + acc[k]) * (double) (k % 7 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_helpers_of_other_integer_types_are_read_with_their_conversions():
    [scop] = extract(WIDE_HELPERS, filename="w.c")
    first, second = scop.statements
    assert "idx(i, j, m)" in first.body                   # the text keeps the calls
    writes = {a.array: a for s in scop.statements for a in s.accesses if a.kind == "write"}
    assert set(writes) == {"out", "acc"}
    # i - 1 through 'back' is one row up: the second nest carries a dependence along i
    reads = [a for a in second.accesses if a.kind == "read" and a.array == "acc"]
    assert len(reads) == 2


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True),
                                   dict(fuse="max", tile=True, parallel=True, unroll=2)])
def test_helpers_of_other_integer_types_run_like_the_original(flags, tmp_path):
    source = tmp_path / "w.c"
    source.write_text(WIDE_HELPERS)
    text = optimize(source, OptimizeOptions.from_flags(**flags)).text
    assert "for (" in text and text.count("idx(") > WIDE_HELPERS.count("idx(")
    # off = 2**32 + 2: back(i + off) is converted to int, which C wraps; the
    # model assumes it fits, so such calls run the original code
    sizes = [(9, 7, 0), (1, 1, 0), (0, 5, 0), (5, 0, 0), (2, 3, 1), (4, 1, -7), (30, 20, -1),
             (6, 5, 2 ** 32 + 2)]
    assert outputs_of(text, tmp_path, "new", sizes) == outputs_of(WIDE_HELPERS, tmp_path, "orig", sizes)


def test_a_long_argument_of_an_int_parameter_is_converted():
    """helper-16: 'b[id(off) + i]' with a long off was read as b[off + i], and the loop
    ran in parallel over a real dependence (id(off) is 1 at off = 2**32 + 1). The
    argument is now read as '(int) off', which the model assumes fits an int."""
    text = ("static int id(int x) { return x; }\ndouble b[1000];\nvoid f(long off) {\n#pragma scop\n"
            "  for (int i = 0; i < 500; i++)\n    b[id(off) + i] = b[i] + 1.0;\n#pragma endscop\n}\n")
    [scop] = extract(text, filename="f.c")
    assert scop.parameters == ["off"]
    outside = isl.Set("[off] -> { : off = 2147483648 }")
    assert scop.context.intersect(outside).is_empty()       # off = 2**31 does not fit: original code
    assert not scop.context.intersect(isl.Set("[off] -> { : off = 5 }")).is_empty()


# An accessor as image code writes them (helper-66: refused, "takes a pointer"): read as
# the element it returns. The in-place sweep reads what it wrote in the row above and
# the column before, so the dependences the model sees through the calls decide the
# schedule: wrong tiles or parallel loops would change the outputs. at2 takes size_t and
# long indices (session 50: refused), read with the conversions C applies.
ACCESSOR = r"""#include <stdio.h>
#include <stdlib.h>
static inline float px(const float *img, int w, int x, int y) { return img[y * w + x]; }
static double at2(const double *restrict m, size_t n, size_t i, long j) { return m[i * n + j]; }
static void kernel(int w, int h, float *a, float *g, double *s) {
#pragma scop
  for (int y = 1; y < h; y++)
    for (int x = 1; x < w - 1; x++)
      a[y * w + x] = 0.5f * px(a, w, x - 1, y) + 0.25f * (px(a, w, x, y - 1) + px(a, w, x + 1, y - 1));
  for (int y = 0; y < h; y++)
    for (int x = 1; x < w - 1; x++) {
      g[y * w + x] = px(a, w, x + 1, y) - px(a, w, x - 1, y);
      s[y * w + x] = at2(s, w, y, x - 1) * 0.5 + g[y * w + x];
    }
#pragma endscop
}
int main(int argc, char **argv) {
  int w = atoi(argv[1]), h = atoi(argv[2]), cells = w * h + 1;
  float *a = malloc(sizeof(float) * cells), *g = calloc(cells, sizeof(float));
  double *s = calloc(cells, sizeof(double));
  for (int i = 0; i < cells; i++) a[i] = (float) ((i * 37) % 101);
  kernel(w, h, a, g, s);
  double sum = 0;
  for (int i = 0; i < w * h; i++) sum += (a[i] + 2 * g[i] + s[i]) * (i % 7 + 1);
  printf("%.17g\n", sum);
  return 0;
}
"""


def test_an_accessor_is_read_as_the_element_it_returns():
    from polysched.islutil import maps_of
    [scop] = extract(ACCESSOR, filename="acc.c")
    reads = {m.get_tuple_name(isl.dim_type.out) for m in maps_of(scop.reads)}
    assert {"a", "s", "g"} <= reads
    # px(a, w, x - 1, y) is a[y, x - 1] of rows of w: S0 reads what it wrote a column before
    assert scop.arrays["a"].linearized and len(scop.arrays["a"].dims) == 2
    s0_reads_a = [m for m in maps_of(scop.reads) if m.get_tuple_name(isl.dim_type.in_) == "S0"]
    assert not s0_reads_a[0].intersect(isl.Map("[w, h] -> { S0[y, x] -> a[y, x - 1] }")).is_empty()


@pytest.mark.parametrize("flags", [{}, {"tile": True, "parallel": True}, {"tile": True, "tile_sizes": [3, 5]},
                                   {"scheduler": "isl", "tile": True, "parallel": True}])
def test_accessor_calls_run_like_the_original(flags, tmp_path):
    path = tmp_path / "acc.c"
    path.write_text(ACCESSOR)
    text = optimize(path, OptimizeOptions.from_flags(**flags)).text
    assert "px(a, w, " in text              # the emitted code calls it as the original does
    sizes = [(0, 0), (1, 1), (2, 5), (3, 3), (17, 9), (64, 40)]
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(ACCESSOR, tmp_path, "orig", sizes)


@pytest.mark.parametrize("function", [
    "static inline float px(const float *img, int w, int x, int y) { return img[y * w + x] + img[0]; }",
    "static inline float px(const float *img, int w, int x, int y) { return img[y * w + x + W0]; }",
    "static inline float px(float *img, int w, int x, int y) { img[0] = 1.0f; return img[y * w + x]; }",
    "static inline float px(const float *img, int w, int x, int y) { return *(img + y * w + x); }",
    "static inline float px(const float *img, const float *other, int x, int y) { return img[y + x]; }",
    "static inline float px(const float *img, float w, int x, int y) { return img[y + x]; }",
])
def test_functions_that_are_no_plain_accessors_stay_refused(function):
    source = ACCESSOR.replace(ACCESSOR.splitlines()[2], "int W0 = 1;\n" + function)
    if "other" in function:
        source = source.replace("px(a, w, ", "px(a, a, ")
    with pytest.raises(ScopError, match="px"):
        extract(source, filename="acc.c")


def random_helper_kernel(rng) -> str:
    """Random image sweeps over a, b, c of w floats through index helpers whose
    parameters and results are of random integer types of one family (signed: int,
    long, ptrdiff_t, long long; size_t; unsigned), called with int or long arguments,
    mixed with direct subscripts, maybe in a time loop, called at sizes 0 to 33 by 20."""
    families = [["int", "long", "ptrdiff_t", "long long"], ["size_t"], ["unsigned"]]
    helpers = []
    for k in range(rng.randint(1, 3)):
        types = rng.choice(families)
        result, row, col, width = (rng.choice(types) for _ in range(4))
        body = rng.choice(["y * w + x", "x + w * y", "(y) * (w) + (x)"])
        helpers.append(f"static inline {result} at{k}({row} y, {col} x, {width} w) {{ return {body}; }}")
    lo_y, lo_x = rng.choice([0, 1]), rng.choice([0, 1])
    hi_y, hi_x = ("h - 1" if lo_y else "h"), ("w - 1" if lo_x else "w")
    stmts = []
    for _ in range(rng.randint(1, 3)):
        terms = []
        for _ in range(rng.randint(1, 3)):
            dy = rng.choice([-1, 0, 1]) if lo_y else 0
            dx = rng.choice([-1, 0, 1]) if lo_x else 0
            ys = "y" if dy == 0 else f"y {'+' if dy > 0 else '-'} 1"
            xs = "x" if dx == 0 else f"x {'+' if dx > 0 else '-'} 1"
            if rng.random() < 0.7:
                arg = rng.choice(["", "(long) "])
                terms.append(f"0.5f * {rng.choice('abc')}[at{rng.randrange(len(helpers))}({arg}{ys}, {xs}, w)]")
            else:
                terms.append(f"0.25f * {rng.choice('abc')}[({ys}) * w + {xs}]")
        target = rng.choice([f"{rng.choice('abc')}[at{rng.randrange(len(helpers))}(y, x, w)]",
                             f"{rng.choice('abc')}[y * w + x]"])
        stmts.append(f"      {target} {rng.choice(['=', '+='])} {' + '.join(terms)};\n")
    loops = (f"  for (int y = {lo_y}; y < {hi_y}; y++)\n    for (int x = {lo_x}; x < {hi_x}; x++) {{\n"
             + "".join(stmts) + "    }")
    if rng.random() < 0.4:
        loops = f"  for (int t = 0; t < 2; t++) {{\n{loops}\n  }}"
    return ("#include <stdio.h>\n#include <stdlib.h>\n#include <stddef.h>\n" + "\n".join(helpers) + f"""
static void kernel(int w, int h, float *a, float *b, float *c) {{
#pragma scop
{loops}
#pragma endscop
}}
""" + image_driver("int", [(0, 0), (1, 1), (2, 3), (3, 3), (5, 9), (9, 5), (33, 20)]))


@pytest.mark.parametrize("seed", [910001, 910002, 910003])
def test_random_helper_kernels(seed, tmp_path):
    """The fuzzer's oracle (polysched.fuzz.runner.Evaluator) on random kernels of this
    kind; each must be read (not kept as written)."""
    import random
    results = oracle_results(random_helper_kernel(random.Random(seed)), tmp_path)
    assert [(r.mode, r.kind, r.detail) for r in results if r.kind != "ok"] == []
