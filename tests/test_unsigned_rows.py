"""Linearised subscripts computed in 32-bit unsigned arithmetic: ``out[y * w + x]`` with
``unsigned`` counters and sizes, as image code writes it.

C computes such a subscript modulo 2**32. With only ``+``, ``-`` and ``*`` (a ring's
operations) that is the exact value modulo 2**32, so the exact value wherever it lies
in [0, 2**32): the front end reads the rows and columns as for signed sizes, assumes
the row is never negative (context) and has the emitted code check that the highest
address stays below 2**32 (``(highest row + 1) * w <= 2**32``, not affine); the
original code runs where it does not. The oracle is execution: the original and the
output compiled with the same flags, at 1 and 2 threads.
"""
from __future__ import annotations

import pytest

from polysched.pipeline import OptimizeOptions, optimize
from polysched.program import Program
from polysched.scop import ScopError, extract

from compiled_runs import image_driver, oracle_results, outputs_of

BLUR = r"""#include <stdio.h>
#include <stdlib.h>
void blur(unsigned w, unsigned h, const float *in, float *out) {
#pragma scop
  for (unsigned y = 1; y < h - 1; y++)
    for (unsigned x = 1; x < w - 1; x++)
      out[y * w + x] = (in[(y - 1) * w + x] + in[y * w + x - 1] + in[y * w + x]
                        + in[y * w + x + 1] + in[(y + 1) * w + x]) * 0.2f;
#pragma endscop
}
int main(int argc, char **argv) {
  unsigned w = strtoul(argv[1], 0, 10), h = strtoul(argv[2], 0, 10);
  float *in = malloc(sizeof(float) * w * h + 4), *out = calloc(w * h + 1, sizeof(float));
  for (unsigned i = 0; i < w * h; i++) in[i] = (i * 13 % 17) * 0.5f;
  blur(w, h, in, out);
  double s = 0;
  for (unsigned i = 0; i < w * h; i++) s += out[i] * (i % 7 + 1);
  printf("%.9g\n", s);
  return 0;
}
"""
SIZES = [(1, 1), (2, 2), (3, 3), (1, 9), (9, 1), (3, 8), (70, 33), (300, 200)]


def test_a_blur_over_unsigned_sizes_is_read_as_rows_and_keeps_its_outputs(tmp_path):
    """It was refused ('non-affine product y * w ... wraps modulo 2**32'): now a 2-d
    array whose band is tiled and parallel, outputs identical at the edges (sizes 1
    and 2 make 'h - 1' and 'w - 1' loops empty) and beyond."""
    [scop] = extract(BLUR, filename="blur.c")
    assert [len(scop.arrays[a].dims) for a in ("in", "out")] == [2, 2]
    assert len(scop.address_bounds) == 6           # one per access
    path = tmp_path / "blur.c"
    path.write_text(BLUR)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "#pragma omp parallel for" in result.text
    assert "4294967296LL / " in result.text             # the address check
    assert "stay below 2**32" in result.summary()
    assert outputs_of(result.text, tmp_path, "opt", SIZES) == outputs_of(BLUR, tmp_path, "orig", SIZES)


# Rows y = h - 131072 and h - 65536 of w = 65536 columns: 65536 * w = 2**32, so C's
# subscripts of the two rows are the same addresses, while the model's rows are two
# (and the original runs in bounds: out_ holds the wrapped addresses).
WRAPS = r"""#include <stdio.h>
#include <stdlib.h>
float out_[(1 << 20) + 4];
void f(unsigned h, unsigned w) {
#pragma scop
  for (unsigned y = h - 131072; y < h; y += 65536)
    for (unsigned x = 0; x < 4; x++)
      out_[y * w + x] = out_[y * w + x] * 0.5f + (float) y;
#pragma endscop
}
int main(int argc, char **argv) {
  unsigned h = strtoul(argv[1], 0, 10), w = strtoul(argv[2], 0, 10);
  for (int i = 0; i < (1 << 20) + 4; i++) out_[i] = (float) (i % 5);
  f(h, w);
  double s = 0;
  for (int i = 0; i < (1 << 20) + 4; i++) s += out_[i] * (i % 3 + 1);
  printf("%.9g %.9g\n", s, out_[1]);
  return 0;
}
"""


@pytest.mark.parametrize("helper", [False, True])
def test_a_subscript_that_wraps_runs_the_original_code(helper, tmp_path):
    """The model's rows are distinct, so reversing the row loop is legal for it; where
    C's addresses wrap onto each other (h * w > 2**32) that would swap the order of two
    updates of one element. The emitted check sends those calls to the original code
    (without it, the reversed code printed 4423686.75 for 4653062.75); calls whose
    addresses do not wrap run the reversed loop. The same through an index helper of
    unsigned parameters called with an int column (session 50)."""
    source = WRAPS
    if helper:
        source = source.replace("void f(", "static unsigned at(unsigned y, unsigned x, unsigned w) "
                                "{ return y * w + x; }\nvoid f(").replace("unsigned x = 0", "int x = 0") \
            .replace("out_[y * w + x]", "out_[at(y, x, w)]")
        assert source.count("out_[at(y, x, w)]") == 2
    program = Program.from_source(source, filename="wraps.c")
    reversed_rows = program.reverse("S0", 0)
    assert str(reversed_rows.check()) == "legal"
    text = reversed_rows.c_code()
    calls = [(131072, 65536), (131077, 65536), (131072, 16), (131072, 8), (140000, 4)]
    assert outputs_of(text, tmp_path, "rev", calls) == outputs_of(source, tmp_path, "orig", calls)


INDEXED = r"""#include <stdio.h>
#include <stdlib.h>
#define IDX(i, j) ((i) * n + (j))
void smooth(unsigned n, unsigned m, const double *f, double *g) {
  unsigned i, j;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j + 1 < n; j++)
      g[IDX(i, j)] = 0.5 * (f[IDX(i, j)] + f[IDX(i, j + 1)]);
#pragma endscop
}
int main(int argc, char **argv) {
  unsigned n = strtoul(argv[1], 0, 10), m = strtoul(argv[2], 0, 10);
  double *f = malloc(sizeof(double) * (n * m + 1)), *g = calloc(n * m + 1, sizeof(double));
  for (unsigned k = 0; k < n * m; k++) f[k] = (k * 7 % 11) * 0.25;
  smooth(n, m, f, g);
  double s = 0;
  for (unsigned k = 0; k < n * m; k++) s += g[k] * (k % 5 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_a_macro_subscript_with_an_unsigned_column_is_read_as_rows(tmp_path):
    """Fuzz seed 20261128 program 876: 'f[IDX(i, j + 1)]' with unsigned j was refused
    in every mode."""
    path = tmp_path / "smooth.c"
    path.write_text(INDEXED)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "#pragma omp parallel for" in result.text
    sizes = [(0, 0), (1, 5), (2, 1), (5, 3), (64, 40)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(INDEXED, tmp_path, "orig", sizes)


@pytest.mark.parametrize("subscript, why", [
    ("(y * w + x) / 2", "non-affine"),           # a division of a wrapped value
    ("(unsigned long)(y * w) + x", "wraps modulo 2\\*\\*32"),   # widened once wrapped
    ("(unsigned short)(y * w + x)", "wraps modulo 2\\*\\*32"),  # narrowed: modulo 2**16
])
def test_subscripts_that_are_not_the_exact_value_modulo_2_32_stay_refused(subscript, why):
    source = BLUR.replace("out[y * w + x] =", f"out[{subscript}] =")
    with pytest.raises(ScopError, match=why):
        extract(source, filename="blur.c")


def random_image_kernel(rng) -> str:
    """An image kernel over unsigned sizes: one to three statements (fused or in nests
    of their own, maybe in a time loop) that read shifted rows and columns through
    ``(y + dy) * w + x + dx``, ``IDX(y + dy, x + dx)`` or ``y * w + x + w + 1``, called
    at several sizes (at least 3 by 3: ``h - 2`` of a smaller one wraps, and the
    original runs out of bounds)."""
    counter = rng.choice(["unsigned", "unsigned int", "uint32_t"])
    starts = rng.choice([0, 1, 1, 2]), rng.choice([0, 1, 1])
    ends = rng.choice(["h", "h - 1", "h - 2"]), rng.choice(["w", "w - 1", "w - 2"])
    statements = []
    for k in range(rng.randint(1, 3)):
        terms = []
        for _ in range(rng.randint(1, 4)):
            # shifts that stay inside the loops' rows and columns
            dy = rng.choice([-1, 0, 0, 1]) if starts[0] and ends[0] != "h" else 0
            dx = rng.choice([-1, 0, 0, 1]) if starts[1] and ends[1] != "w" else 0
            rows, columns = f"y + {dy}" if dy else "y", f"x + {dx}" if dx else "x"
            form = rng.random()
            subscript = (f"({rows}) * w + {columns}" if form < 0.5 else f"IDX({rows}, {columns})" if form < 0.8
                         else "y * w + x" + {1: " + w", -1: " - w", 0: ""}[dy] + {1: " + 1", -1: " - 1", 0: ""}[dx])
            terms.append(f"{rng.choice(['0.5f', '0.25f', '1.5f'])} * {rng.choice('abc')}[{subscript}]")
        target = "abc"[(k + 1) % 3] if rng.random() < 0.7 else "abc"[k % 3]
        statements.append(f"{target}[y * w + x] {rng.choice(['=', '+='])} {' + '.join(terms)};")
    head = f"for ({counter} y = {starts[0]}; y < {ends[0]}; y++)\n    for ({counter} x = {starts[1]}; x < {ends[1]}; x++)"
    if rng.random() < 0.5:
        loops = f"  {head} {{\n" + "".join(f"      {s}\n" for s in statements) + "    }"
    else:
        loops = "\n".join(f"  {head}\n      {s}" for s in statements)
    if rng.random() < 0.5:
        loops = f"  for ({counter} t = 0; t < 2; t++) {{\n{loops}\n  }}"
    return f"""#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#define IDX(i, j) ((i) * w + (j))
static void kernel({counter} w, {counter} h, float *a, float *b, float *c) {{
#pragma scop
{loops}
#pragma endscop
}}
""" + image_driver("unsigned", [(3, 3), (3, 4), (4, 3), (5, 9), (9, 5), (33, 20)])


@pytest.mark.parametrize("seed", [3, 17, 29])
def test_random_image_kernels_over_unsigned_sizes(seed, tmp_path):
    """The fuzzer's oracle (polysched.fuzz.runner.Evaluator: the original and each
    output compiled alike and run, at 1 and 2 threads) on random kernels of this kind
    (100 of them under all 12 modes, 1,200 runs, gave 0 failures when the reading
    landed)."""
    import random
    results = oracle_results(random_image_kernel(random.Random(seed)), tmp_path,
                             ["identity", "pluto-smart", "tile", "tile-par", "unroll"])
    assert [(r.mode, r.kind) for r in results if r.kind != "ok"] == []
    assert "#pragma omp parallel for" in next(r.output for r in results if r.mode == "tile-par")


TWO_TYPES_OF_J = r"""#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
static void kernel(int n, int m, double *A, double *B) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (FIRST j = 0; j < m; j++)
      A[i * m + j] = B[(size_t)(j * n + i)];
  for (SECOND j = 0; j < 3u; j++)
    B[j] = 1.0;
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]), size = n * m > 3 ? n * m : 3;
  double *A = calloc(size, sizeof(double)), *B = malloc(sizeof(double) * size);
  for (int k = 0; k < size; k++) B[k] = k * 0.5;
  kernel(n, m, A, B);
  for (int k = 0; k < size; k++) printf("%a %a\n", A[k], B[k]);
  return 0;
}
"""


def test_a_subscript_is_typed_by_the_loops_around_it(tmp_path):
    """helper-101: ``for (unsigned j ...)`` in a later nest made the subscript ``(size_t)(j
    * n + i)`` of the first, in ``for (int j ...)``, read as 32-bit unsigned arithmetic
    that wraps, and the region was refused. Each subscript takes the types of the loops
    around it: the int one is read as rows and runs like the original; with the types
    swapped, the unsigned product in the first nest is still refused."""
    source = TWO_TYPES_OF_J.replace("FIRST", "int").replace("SECOND", "unsigned")
    path = tmp_path / "two_types.c"
    path.write_text(source)
    result = optimize(path, OptimizeOptions.from_flags())
    sizes = [(3, 4), (0, 5), (5, 1), (7, 9)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(source, tmp_path, "orig", sizes)
    with pytest.raises(ScopError, match="wraps modulo 2\\*\\*32"):
        extract(TWO_TYPES_OF_J.replace("FIRST", "unsigned").replace("SECOND", "int"), filename="two_types.c")
