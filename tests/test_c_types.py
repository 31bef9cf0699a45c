"""C's integer types of expressions (polysched/scop/unsigned.py), against gcc.

The front end models C integer expressions as exact integers, which is C's value only
where no operation computed in an unsigned type wraps around. Which operations those
are follows C's promotions and usual arithmetic conversions: ``i + j * n`` with
``unsigned i, j`` and ``long n`` is computed in ``long`` (exact), ``(i - 1) + j * n``
wraps in ``i - 1``. The oracle is gcc itself: ``_Generic`` names the type it gives
each expression, hand-picked and random ones.

Fuzz seed 10018 program 5 (``f[i + j*n + 1]`` with unsigned ``i, j`` and long ``n``)
was refused as a non-affine product: the widest unsigned type anywhere in the
subscript was taken for the whole sum."""
import random
import re
import subprocess

import islpy as isl
import pytest
from pycparser import c_parser

from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract
from polysched.scop.unsigned import comparison_width, value_kind, wraps_at_32_bits

from compiled_runs import outputs_of

TYPES = {"u": "unsigned", "v": "unsigned int", "n": "long", "m": "int", "b": "uint8_t", "s": "size_t",
         "c": "unsigned char", "h": "short", "q": "unsigned long long", "w": "uint32_t", "x": "int64_t",
         "e": "unsigned short", "k": "const unsigned"}
LEAVES = list(TYPES) + ["1", "3", "5u", "0xFFFFFFFF", "0x7FFFFFFF", "5000000000", "2147483648", "7UL", "9L",
                        "'a'", "sizeof(double)"]
HAND_PICKED = ["u + v * n + 1", "(u - 1) + v * n", "3 - 5u + (n - 2)", "c - 1", "b * 2", "h + e", "s - m",
               "m + u", "x + w", "w + m", "q - x", "u << n", "n >> u", "-u", "~c", "-e", "m ? u : n",
               "(long)u - 1", "(unsigned)m + n", "(unsigned char)m + u", "u < n ? u : n", "!u + u",
               "0x80000000 + m", "k * 2"]
KINDS = {"int": (32, True), "unsigned": (32, False), "long": (64, True), "unsigned long": (64, False),
         "long long": (64, True), "unsigned long long": (64, False)}
_PARSER = c_parser.CParser()


def _expression(text: str):
    typedefs = "typedef unsigned long size_t; typedef unsigned char uint8_t; typedef unsigned uint32_t; " \
               "typedef long int64_t; "
    return _PARSER.parse(typedefs + "void f(void) { z = %s; }" % text).ext[-1].body.block_items[0].rvalue


def _random_expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(LEAVES)
    shape = rng.random()
    if shape < 0.6:
        op = rng.choice(["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"])
        return f"({_random_expression(rng, depth - 1)} {op} {_random_expression(rng, depth - 1)})"
    if shape < 0.75:
        return f"{rng.choice(['-', '~', '+'])}({_random_expression(rng, depth - 1)})"
    if shape < 0.85:
        cast = rng.choice(["unsigned", "long", "int", "unsigned char", "size_t", "short", "unsigned long"])
        return f"(({cast}) {_random_expression(rng, depth - 1)})"
    return f"({_random_expression(rng, depth - 1)} < {_random_expression(rng, depth - 1)} ? " \
           f"{_random_expression(rng, depth - 1)} : {_random_expression(rng, depth - 1)})"


def _gcc_kinds(tmp_path, expressions: list[str]) -> list[tuple[int, bool]]:
    """The type gcc gives each expression, promoted, as ``(width, signed)``, through
    ``_Generic`` (which names the type of ``+(e)``: the operand of an operation)."""
    names = " ".join(f'{t}: "{t}",' for t in KINDS)
    decls = "".join(f"  {c_type} {name} = 1;\n" for name, c_type in TYPES.items())
    lines = "".join(f'  puts(_Generic(+({e}), {names} default: "other"));\n' for e in expressions)
    source = tmp_path / "types.c"
    source.write_text("#include <stdio.h>\n#include <stdint.h>\n#include <stddef.h>\nint main(void) {\n"
                      f"{decls}{lines}  return 0;\n}}\n")
    subprocess.run(["gcc", "-std=c11", "-w", str(source), "-o", str(tmp_path / "types")], check=True, timeout=120)
    names_out = subprocess.run([str(tmp_path / "types")], capture_output=True, text=True, check=True,
                               timeout=60).stdout.split("\n")
    return [KINDS[name] for name in names_out[:len(expressions)]]


def test_the_types_of_expressions_are_gccs(tmp_path):
    rng = random.Random(20261125)
    expressions = HAND_PICKED + [_random_expression(rng, 4) for _ in range(400)]
    expected = _gcc_kinds(tmp_path, expressions)
    got = [value_kind(_expression(e), TYPES.get) for e in expressions]
    wrong = [(e, g, x) for e, g, x in zip(expressions, got, expected) if g != x]
    assert not wrong, wrong[:5]
    # the oracle tells the cases apart: every kind occurs
    assert {k for k in expected} == set(KINDS.values())


def test_a_comparison_is_made_in_the_common_type_of_its_operands(tmp_path):
    rng = random.Random(7)
    pairs = [(_random_expression(rng, 2), _random_expression(rng, 2)) for _ in range(200)]
    common = _gcc_kinds(tmp_path, [f"({a}) + ({b})" for a, b in pairs])     # the same conversions
    for (a, b), (width, signed) in zip(pairs, common):
        assert comparison_width(_expression(f"({a}) < ({b})"), TYPES.get) == (None if signed else width), (a, b)
    assert any(not signed for _, signed in common) and any(signed for _, signed in common)


def test_only_32_bit_unsigned_operations_wrap():
    assert not wraps_at_32_bits(_expression("u + v * n + 1"), TYPES.get)     # long arithmetic
    assert wraps_at_32_bits(_expression("(u - 1) + v * n"), TYPES.get)        # 'u - 1' is unsigned
    assert not wraps_at_32_bits(_expression("u"), TYPES.get)                  # a value, no operation
    assert not wraps_at_32_bits(_expression("s - 1 + u"), TYPES.get)          # 64 bits wrap like addresses


FLAT_UNSIGNED = r"""#include <stdio.h>
#include <stdlib.h>
static void kernel(long n, double *f, const double *g) {
  unsigned i, j;
#pragma scop
  for (j = 0; j < n; j++)
    for (i = 0; i < n - 1; i++)
      f[i + j*n + 1] = f[i + j*n] * 0.5 + g[j];
#pragma endscop
}
int main(int argc, char **argv) {
  long n = atol(argv[1]), size = n * n + 2;
  double *f = malloc(sizeof(double) * size), *g = malloc(sizeof(double) * (n + 1));
  for (long k = 0; k < size; k++) f[k] = k % 7;
  for (long k = 0; k <= n; k++) g[k] = k % 3 - 1.0;
  kernel(n, f, g);
  for (long k = 0; k < size; k++) printf("%.17g\n", f[k]);
  return 0;
}
"""


def test_unsigned_iterators_in_a_long_row_walk_are_read_as_rows():
    [scop] = extract(FLAT_UNSIGNED, filename="flat.c")
    assert scop.arrays["f"].linearized and scop.arrays["f"].dims == ["", "n"]
    written = [a.relation for s in scop.statements for a in s.accesses if a.array == "f" and a.kind == "write"]
    assert len(written) == 1 and written[0].is_equal(
        written[0].intersect(isl.Map("[n] -> { S0[j, i] -> f[j, i + 1] }")))


@pytest.mark.parametrize("flags", [dict(), dict(tile=True, parallel=True), dict(scheduler="isl", fuse="max",
                                                                                  tile=True, parallel=True)])
def test_unsigned_iterators_in_a_long_row_walk_give_the_original_outputs(tmp_path, flags):
    src = tmp_path / "flat.c"
    src.write_text(FLAT_UNSIGNED)
    result = optimize(src, OptimizeOptions.from_flags(**flags))
    sizes = [(0,), (1,), (2,), (7,), (40,)]
    expected = outputs_of(FLAT_UNSIGNED, tmp_path, "orig", sizes)
    assert outputs_of(result.text, tmp_path, "opt", sizes) == expected
    assert "#pragma omp" in result.text or not flags.get("parallel")


def test_a_wrapping_unsigned_part_keeps_the_subscript_flat():
    """``(i - 1) + j * n`` with ``i = 0`` is ``2**32 - 1 + j * n`` in C: not row ``j``."""
    text = FLAT_UNSIGNED.replace("f[i + j*n + 1] = f[i + j*n]", "f[(i - 1) + j*n + 1] = f[i + j*n]")
    with pytest.raises(ScopError, match="non-affine product"):
        extract(text, filename="flat.c")


RETYPED = r"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, double *A, double *B, long *C) {
#pragma scop
  for (unsigned i = 0; i < n; i++)
    A[i] = i - 1;
  for (int i = 0; i < n; i++)
    B[i] = A[i] + (i - 1);
  for (long i = 0; i + 3 < n; i++)
    for (unsigned j = 0; j < 2; j++)
      C[i] += (i - 5) * (long)(j - 1);
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = n > 0 ? n : 1;
  double *A = malloc(sizeof(double) * m), *B = malloc(sizeof(double) * m);
  long *C = malloc(sizeof(long) * m);
  for (int k = 0; k < m; k++) { A[k] = B[k] = -2; C[k] = k; }
  kernel(n, A, B, C);
  for (int k = 0; k < n; k++) printf("%.17g %.17g %ld\n", A[k], B[k], C[k]);
  return 0;
}
"""


def test_loops_may_declare_one_iterator_name_with_different_types():
    """Each statement keeps the type its own loop gives ``i``: ``i - 1`` is 4294967295
    in the first loop and -1 in the second (before: refused, "rename one of them")."""
    [scop] = extract(RETYPED, filename="retyped.c")
    # (j has one type: the region's)
    assert [s.iterator_types for s in scop.statements] == [{"i": "unsigned"}, {"i": "int"}, {"i": "long"}]
    assert scop.variable_types["i"] == "unsigned"       # the one int counters cannot hold


@pytest.mark.parametrize("flags", [dict(), dict(tile=True, parallel=True), dict(fuse="max", unroll=4),
                                   dict(scheduler="isl", tile=True, parallel=True)])
def test_loops_with_retyped_iterators_give_the_original_outputs(tmp_path, flags):
    src = tmp_path / "retyped.c"
    src.write_text(RETYPED)
    result = optimize(src, OptimizeOptions.from_flags(**flags))
    sizes = [(0,), (1,), (2,), (4,), (5,), (33,)]
    expected = outputs_of(RETYPED, tmp_path, "orig", sizes)
    assert outputs_of(result.text, tmp_path, "opt", sizes) == expected
    assert "4294967295" in expected[-1] and "\n-1 " not in expected[-1]       # the test can tell


WRAPPING_DIFFERENCE = r"""#include <stdio.h>
#include <stdlib.h>
static double E[64];
static void kernel(unsigned n, unsigned m) {
#pragma scop
  for (unsigned u = n - 3; u < n; u++)
    E[u - n + 3] = E[u - n + 3] + 1.5;
  for (unsigned u = 0; u < m; u++)
    E[u * 2 - m + m + 8] = E[u + 8] * 0.5;
#pragma endscop
}
int main(int argc, char **argv) {
  unsigned n = (unsigned)atoi(argv[1]), m = (unsigned)atoi(argv[2]);
  for (int k = 0; k < 64; k++) E[k] = k % 5;
  kernel(n, m);
  for (int k = 0; k < 64; k++) printf("%.17g\n", E[k]);
  return 0;
}
"""


def test_an_unsigned_sum_may_wrap_in_its_terms():
    """``u - n + 3`` with ``u < n``: the difference wraps, the sum is C's exact value
    (sums, differences and products agree modulo 2^32). Each term was assumed not to
    wrap, which held for no n: the region was kept for every run. Only the whole must
    lie in [0, 2^32 - 1], so it runs for n >= 3; against gcc at the edges."""
    [scop] = extract(WRAPPING_DIFFERENCE, filename="wrap.c")
    assert scop.context.is_subset(isl.Set("[n, m] -> { : n >= 3 }"))
    assert not scop.context.intersect(isl.Set("[n, m] -> { : n = 10 and m = 20 }")).is_empty()


def test_an_unsigned_sum_that_wraps_in_its_terms_gives_the_original_outputs(tmp_path):
    src = tmp_path / "wrap.c"
    src.write_text(WRAPPING_DIFFERENCE)
    result = optimize(src, OptimizeOptions.from_flags(tile=True, parallel=True))
    sizes = [(0, 0), (1, 3), (2, 1), (3, 0), (4, 7), (10, 20), (60, 27)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(WRAPPING_DIFFERENCE, tmp_path, "orig", sizes)


def test_a_floating_constant_cast_to_an_integer_type_is_an_integer_constant():
    """``(int)2.9`` is 2 in C (truncated toward zero, ``(int)-1.5`` is -1); it was refused
    as a non-integer constant. Out of the type's range the conversion is undefined:
    refused in one line."""
    text = """double A[100];
void f(void) {
  int i;
#pragma scop
  for (i = 0; i < 50; i++)
    A[i + (int)2.9] = A[i + (int)-1.5 + 40] + A[(unsigned char)200.0 - 144 + i];
#pragma endscop
}
"""
    [scop] = extract(text, filename="c.c")
    relations = [a.relation for a in scop.statements[0].accesses]
    for relation, expected in zip(relations, ["A[2 + i]", "A[39 + i]", "A[56 + i]"]):
        assert relation.is_equal(isl.Map(f"{{ S0[i] -> {expected} : 0 <= i < 50 }}")), relation
    with pytest.raises(ScopError, match="does not fit in 'unsigned char'"):
        extract(text.replace("200.0 - 144", "300.0 - 244"), filename="c.c")


# -- declarations the front end must not lose (a probe's wrong code) ----------------------

AFTER_A_BLOCK = r"""
#include <stdio.h>
#include <stdlib.h>
long long s;                       /* a global of the same name as a local below */
int main(int argc, char **argv) {
  static double A[100];
  static long long L[1000];
  for (int k = 0; k < 100; k++) { A[k] = k; }
  unsigned n = atoi(argv[1]);
  for (int k = 0; k < 1000; k++) { L[k] = k % 3 ? 1 : (1LL << 52); }
  double s = 0;
  again: {
    int n = 3;
    A[99] += n;
  }
#pragma scop
  for (int i = -2; i < n; i++)
    A[i + 2] = A[i + 2] + 1;
  for (int i = 0; i < 1000; i++)
    s += L[i] * 0.75;
#pragma endscop
  for (int k = 0; k < 100; k++) printf("%g ", A[k]);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_a_declaration_after_a_braced_block_keeps_its_type(tmp_path):
    """``unsigned n`` right after ``for (...) { ... }`` was lost (the block's text ran into
    it), ``n`` read as int: ``-2 < n`` true where C compares unsigned (false). The
    local ``double s`` was the global ``long long s``: reduction(+:s) on a double
    without --reassociate. A labelled block's ``int n`` hid the ``unsigned n``."""
    scop = extract(AFTER_A_BLOCK)[0]
    assert scop.variable_types["n"] == "unsigned"
    for flags in (dict(tile=True, parallel=True), dict(fuse="max", tile=True, parallel=True)):
        path = tmp_path / "block.c"
        path.write_text(AFTER_A_BLOCK)
        text = optimize(path, OptimizeOptions.from_flags(**flags)).text
        assert "reduction(+:s)" not in text
        sizes = [(0,), (50,), (98,)]
        assert outputs_of(text, tmp_path, "out", sizes) == outputs_of(AFTER_A_BLOCK, tmp_path, "orig", sizes)


@pytest.mark.parametrize("declaration", ["typeof(u) n = u;", "__typeof__(u) n = u;", "__auto_type n = u;"])
@pytest.mark.parametrize("outer", ["", "int n;\n"])
def test_a_size_of_unknown_type_is_refused(declaration, outer):
    """A declaration the front end cannot read left ``n`` typed as int: refused now,
    also when a global ``int n`` is visible (helper-10: it was taken for n)."""
    text = (outer + "double A[100];\nvoid f(unsigned u) {\n  " + declaration + "\n#pragma scop\n"
            "  for (int i = -2; i < n; i++)\n    A[i + 2] = 1;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="the type of 'n' is not known"):
        extract(text)


@pytest.mark.parametrize("outer", ["", "int n;\ndouble B[3];\n"])
def test_a_k_and_r_parameter_is_refused(outer):
    text = (outer + "double A[100];\nvoid f(n) unsigned n; {\n#pragma scop\n"
            "  for (int i = -2; i < n; i++)\n    A[i + 2] = 1;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="the type of 'n' is not known"):
        extract(text)


AROUND_LOOPS = r"""#include <stdio.h>
int m;
double A[8], R[4][8];
int main(void) {
  for (unsigned m = 1; m < 3; m++) {
#pragma scop
    for (int i = -2; i < m; i++)
      A[i + 2] += 1.0;
#pragma endscop
  }
  for (int r = 0; r < 4; r++) {
#pragma scop
    for (int i = 0; i < 8; i++)
      R[r][i] = R[r][i] + i * r;
#pragma endscop
  }
  for (int i = 0; i < 8; i++) printf("%g %g\n", A[i], R[3][i]);
  return 0;
}
"""


def test_the_loops_around_a_region_declare_its_variables(tmp_path):
    """helper-10: 'for (unsigned m ...) { region }' with a global 'int m': the region's
    m was read as the global's int, so -2 < m held (C: unsigned, false) and the output
    ran instances the original never runs. And 'for (int r ...)' around a region that
    reads r was refused as of unknown type. The loop headers open at the region now
    declare for it."""
    first, second = extract(AROUND_LOOPS)
    assert first.variable_types["m"] == "unsigned" and second.variable_types["r"] == "int"
    path = tmp_path / "around.c"
    path.write_text(AROUND_LOOPS)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert outputs_of(text, tmp_path, "out", [()]) == outputs_of(AROUND_LOOPS, tmp_path, "orig", [()])


def test_a_header_variable_has_its_headers_type(tmp_path):
    """``extern unsigned hdr_n;`` in the file's own header: read from the header's code."""
    (tmp_path / "h.h").write_text("extern unsigned hdr_n;\nextern long hdr_m;\n")
    (tmp_path / "k.c").write_text('#include "h.h"\ndouble A[100];\nvoid f(void) {\n#pragma scop\n'
                                  "  for (int i = -2; i < hdr_n + hdr_m; i++)\n    A[i + 2] = 1;\n"
                                  "#pragma endscop\n}\n")
    scop = extract(str(tmp_path / "k.c"))[0]
    assert sorted(scop.parameters) == ["hdr_m", "hdr_n"]
    assert scop.variable_types["hdr_n"] == "unsigned" and scop.variable_types["hdr_m"] == "long"


WIDE_ESTIMATE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int lo = atoi(argv[1]), hi = atoi(argv[2]);
  static double A[200];
  for (int k = 0; k < 200; k++) A[k] = k % 7;
#pragma scop
  for (int i = lo; i < hi; i++)
    for (int j = lo; j <= i; j++)
      A[i - lo] += A[j - lo] * 0.5;
#pragma endscop
  for (int k = 0; k < 200; k += 7) printf("%.17g\n", A[k]);
  return 0;
}
"""


def test_the_work_estimate_of_a_parallel_loop_does_not_overflow(tmp_path):
    """With 64 x 64 tiles the ``if`` clause's tile count ``(63 * lo + 63) / 64``
    overflowed int at lo near 2^26 (undefined behaviour, found with -fsanitize=undefined);
    it is computed in long long."""
    from polysched.bench import compile_c, run_binary
    path = tmp_path / "wide.c"
    path.write_text(WIDE_ESTIMATE)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True, tile_sizes=[64, 64])).text
    assert re.search(r"\(\d+ \* \(\(long long\)\(lo\)\) \+ \d+\) / \d+", text), text
    out = tmp_path / "out.c"
    out.write_text(text)
    built = compile_c(out, tmp_path / "ubsan", cflags=["-O1", "-fsanitize=undefined", "-fno-sanitize-recover"],
                      openmp=True)
    if not built.ok and "sanitize" in built.reason:
        pytest.skip("no UBSan runtime")
    assert built.ok, built.reason
    run = run_binary(tmp_path / "ubsan", args=[str(2**26 - 60), str(2**26)], threads=2, timeout=60)
    assert run.ok, run.reason


@pytest.mark.parametrize("type_name, basic", [("uid_t", "unsigned int"), ("u_int32_t", "unsigned int"),
                                              ("wint_t", "unsigned int"), ("char32_t", "unsigned int"),
                                              ("pid_t", "int"), ("off_t", "long int")])
def test_a_typedef_of_the_system_headers_is_its_basic_type(type_name, basic, tmp_path):
    """``uid_t n`` was refused ("only integer parameters"): the headers' typedef chain
    (uid_t -> __uid_t -> unsigned int) gives the type C compares with; -2 < n is false
    for an unsigned n, true for a signed one, and the outputs say so."""
    text = ("#include <stdio.h>\n#include <stdlib.h>\n#include <sys/types.h>\n#include <wchar.h>\n"
            "#include <uchar.h>\ndouble A[100];\nint main(int argc, char **argv) {\n"
            f"  {type_name} n = atoi(argv[1]);\n#pragma scop\n  for (int i = -2; i < n; i++)\n"
            "    A[i + 2] = A[i + 2] + 1;\n#pragma endscop\n  printf(\"%g %g\\n\", A[0], A[51]);\n  return 0;\n}\n")
    assert extract(text)[0].variable_types["n"] == basic
    path = tmp_path / "t.c"
    path.write_text(text)
    out = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert outputs_of(out, tmp_path, "out", [(0,), (50,)]) == outputs_of(text, tmp_path, "orig", [(0,), (50,)])


def test_a_linearised_subscript_widened_after_it_wraps_is_refused_saying_why():
    """``b[(unsigned long)(y * cols) + x]`` with unsigned counters and sizes: C wraps
    ``y * cols`` modulo 2**32 and then widens it, so the sum is not the exact one modulo
    anything the model could check; refused, and the message says so (helper-37 found
    it said only 'non-affine product'). (Without the cast, +, - and * modulo 2**32 are
    read as rows: tests/test_unsigned_rows.py.)"""
    source = """float a[100], b[100];
void f(unsigned rows, unsigned cols)
{
#pragma scop
  for (unsigned y = 0; y < rows; y++)
    for (unsigned x = 0; x < cols; x++)
      b[(unsigned long)(y * cols) + x] = a[y * cols + x] * 2.0f;
#pragma endscop
}
"""
    with pytest.raises(ScopError) as info:
        extract(source, filename="u.c")
    assert "32-bit unsigned arithmetic wraps modulo 2**32" in info.value.message
    # with size_t sizes the subscript is rows and columns
    [scop] = extract(source.replace("unsigned rows, unsigned cols", "size_t rows, size_t cols")
                     .replace("unsigned y", "size_t y").replace("unsigned x", "size_t x")
                     .replace("float a[100]", "#include <stddef.h>\nfloat a[100]"), filename="s.c")
    assert any(a.relation.dim(isl.dim_type.out) == 2 for s in scop.statements for a in s.accesses)


# helper-45: the `size_t i - 1` of an arm C evaluates only where `i > 0` was assumed not
# to wrap everywhere, so the model held for no parameter value and the region was kept
# as written (the same read under `if (i > 0)` was optimized)
GUARDED_ARM = r"""#include <stdio.h>
#include <stddef.h>
#define N 70
double a[N], b[N];
void shift(size_t n) {
  size_t i;
#pragma scop
  for (i = 0; i < n; i++)
    b[i] = i > 0 ? a[i - 1] : 0.5 * a[n - 1 - i];
#pragma endscop
}
int main(int argc, char **argv) {
  size_t n = (size_t)atol(argv[1]);
  for (int i = 0; i < N; i++) { a[i] = i; b[i] = -1; }
  shift(n);
  for (int i = 0; i < 8; i++) printf("%.17g\n", b[i]);
  return 0;
}
"""


@pytest.mark.parametrize("arm", ["i > 0 ? a[i - 1] : 0.5 * a[n - 1 - i]",
                                 # a condition that wraps itself (true at i = 0 in C): the arms
                                 # are not split by it, nothing assumed of it
                                 "i - 1 > 0 ? a[i] : 2.0"])
# helper-89: with 32-bit 'unsigned' sizes and iterators, 'i > 0' registered the range of
# i, [0, 2**32), which does not hold for every n of an unbounded context: the arms were
# not split, and the model held for no n again (it holds for every n of n's own type)
@pytest.mark.parametrize("kind", ["size_t", "unsigned"])
def test_an_unsigned_value_of_a_ternary_arm_is_assumed_only_where_it_is_evaluated(tmp_path, arm, kind):
    source = GUARDED_ARM.replace("#include <stddef.h>", "#include <stddef.h>\n#include <stdlib.h>") \
        .replace("i > 0 ? a[i - 1] : 0.5 * a[n - 1 - i]", arm) \
        .replace("size_t n)", f"{kind} n)").replace("size_t i;", f"{kind} i;")
    [scop] = extract(source, filename="arm.c")
    assert not scop.context.intersect(isl.Set("[n] -> { : n = 5 }")).is_empty(), scop.context
    result = optimize(_write(tmp_path, source), OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "holds for no parameter value" not in result.summary()
    assert "#pragma omp parallel for" in result.text
    sizes = [(0,), (1,), (2,), (5,), (70,)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(source, tmp_path, "orig", sizes)


def _write(tmp_path, text: str):
    path = tmp_path / "arm.c"
    path.write_text(text)
    return path


def test_the_refusal_names_the_subscript_that_wraps():
    """Fuzz seed 34941, program 5: 'f[i + j * n]' (long n: computed in long) was refused
    with 'a subscript computed in 32-bit unsigned arithmetic', which it is not; the one
    that is is named: f[i + (j + 1) * n], whose j + 1 is widened to long once computed
    modulo 2**32 (f[i + 1] is exact while it stays below 2**32, which the emitted code
    checks: tests/test_unsigned_rows.py)."""
    source = """void k(long n, long m, double *f)
{
  unsigned i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < m; j++)
      f[i + j * n] = 1.5 * f[i + 1] + 0.75 * f[i + (j + 1) * n];
#pragma endscop
}
"""
    with pytest.raises(ScopError) as info:
        extract(source, filename="f.c")
    assert "32-bit unsigned arithmetic wraps modulo 2**32 (here 'f[i + ((j + 1) * n)]')" in info.value.message


WIDE_SIZES = r"""#include <stdio.h>
#include <stdlib.h>
static void kernel(long lo, long len, unsigned n, double *a, double *b) {
  unsigned i;
#pragma scop
  for (long k = lo; k < lo + len; k++)
    a[k - lo] = a[k - lo] + (double) k;
  for (i = 0; i + 4 <= n; i += 4)
    b[i] = a[i] + a[i + 3];
#pragma endscop
}
int main(int argc, char **argv) {
  long lo = atol(argv[1]), len = atol(argv[2]);
  unsigned n = (unsigned) atol(argv[3]);
  double a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {0};
  kernel(lo, len, n, a, b);
  for (int k = 0; k < 8; k++) printf("%a %a ", a[k], b[k]);
  printf("\n");
  return 0;
}
"""

ALL_INT = WIDE_SIZES.replace("long lo, long len, unsigned n", "int lo, int len, int n").replace(
    "long k", "int k").replace("unsigned i;", "int i;")


def test_32_bit_counters_are_refused_where_the_sizes_do_not_fit_int(tmp_path):
    """helper-54: ``c_code(iterator_type="int32_t")`` cast the long sizes down in the
    run-time check, ``(int32_t)lo`` (lo = 2^32 + 5 passed as 5: the loop ran from 5),
    and ``"int"`` compared its counter with ``n - 3`` in unsigned (n = 1: the loop never
    ended, a crash). Refused, as are typedef spellings; 64-bit counters give the
    original outputs, and int ones where every size is an int."""
    import polysched as ps
    from polysched.errors import ArgumentError
    program = ps.Program.from_source(WIDE_SIZES)
    with pytest.raises(ArgumentError, match=r"iterator_type 'int': i, k, len, lo, n do not fit int; "
                                             r"the loop counters need a 64-bit type"):
        program.c_code({"iterator_type": "int"})
    # a typedef needs a header the file may not include (the output did not compile)
    for counter in ("int32_t", "intptr_t", "ptrdiff_t"):
        with pytest.raises(ps.TransformError, match=rf"iterator_type '{counter}': .* spelt with C's own words"):
            program.c_code({"iterator_type": counter})
    sizes = [(0, 3, 8), (2 ** 32 + 5, 3, 1), (-7, 3, 0), (5, 0, 7), (-(2 ** 40), 8, 3)]
    expected = outputs_of(WIDE_SIZES, tmp_path, "orig", sizes)
    assert outputs_of(program.c_code({"iterator_type": "long long"}), tmp_path, "wide", sizes) == expected
    sizes = [(0, 3, 8), (-7, 3, 0), (5, 0, 7), (1, 2, 6)]
    expected = outputs_of(ALL_INT, tmp_path, "orig_int", sizes)
    for counter in ("int", "long"):
        text = ps.Program.from_source(ALL_INT).c_code({"iterator_type": counter})
        assert f"for ({counter} c0" in text
        assert outputs_of(text, tmp_path, counter, sizes) == expected


# right-hand sides of 's[i] = ...;' (float s[]), with the floating type the front end
# records as the widest they read (Statement.float_type_read)
FLOAT_RIGHT_SIDES = {"x[i] * 2.0f": "float", "x[i] * 2.0": "double", "x[i] * 2": "float",
                     "(float) (d[i] * 2.0)": "float", "(real) x[i]": "double", "r[i] + x[i]": "double",
                     "sqrtf(x[i])": "float", "sqrt(x[i])": "double", "ceil(x[i])": "double",
                     "floorf(x[i]) + 1": "float", "x[i] + 1.0L": "long double", "n + i": "",
                     "i > 0 ? x[i] : 2.5f": "float", "(int) d[i]": "", "SCALE * x[i]": "double"}
FLOAT_PROGRAM = """#include <math.h>
#include <stdio.h>
#define SCALE 0.5
typedef double real;
float x[64], s[64]; double d[64]; real r[64];
int main(void) {
  int n = 64;
  for (int i = 0; i < n; i++) { x[i] = i * 0.25f; d[i] = i * 0.5; r[i] = i; }
#pragma scop
  for (int i = 0; i < n; i++) {
BODY  }
#pragma endscop
  return 0;
}
"""


def test_the_floating_type_read_is_never_narrower_than_gccs(tmp_path):
    """_narrowing_float_update (tiling) leaves a band unjammed when a statement stores a
    value computed in a wider floating type; the front end says which (not a text
    regex: '(float) (d[i] * 2.0)' is a float, 'SCALE' a double). The oracle is gcc:
    _Generic names the type of each right-hand side; the recorded type is never
    narrower, and equal where nothing wider is read inside a narrower value."""
    sides = list(FLOAT_RIGHT_SIDES)
    body = "".join(f"    s[i] = {e};\n" for e in sides)
    scop = extract(FLOAT_PROGRAM.replace("BODY", body))[0]
    got = [stmt.float_type_read for stmt in scop.statements]
    assert got == list(FLOAT_RIGHT_SIDES.values())
    names = ", ".join(f'{t}: "{t}"' for t in ("float", "double", "long double", "int"))
    lines = "".join(f'    puts(_Generic({e}, {names}, default: "other"));\n' for e in sides)
    source = tmp_path / "floats.c"
    source.write_text(FLOAT_PROGRAM.replace("#pragma scop\n", "").replace("#pragma endscop\n", "")
                      .replace("  for (int i = 0; i < n; i++) {\nBODY", "  for (int i = 1; i < 2; i++) {\n" + lines))
    subprocess.run(["gcc", "-std=c11", "-w", str(source), "-o", str(tmp_path / "floats"), "-lm"], check=True,
                   timeout=120)
    gcc = subprocess.run([str(tmp_path / "floats")], capture_output=True, text=True, check=True,
                         timeout=60).stdout.splitlines()
    order = ["int", "float", "double", "long double"]
    for side, recorded, computed in zip(sides, got, gcc):
        assert order.index(recorded or "int") >= order.index(computed), side
    assert gcc.count("float") >= 4 and "long double" in gcc    # (the oracle tells them apart)
