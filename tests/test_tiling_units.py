"""Small parts of polysched.tiling: cache sizes, reduction patterns, liveness after the
scop, stride classes, point order."""
from __future__ import annotations

import islpy as isl
import pytest

from polysched.tiling.cache import FALLBACK_L1D, FALLBACK_L2, FALLBACK_L3, cache_sizes, parse_size
from polysched.dependence.scalars import reduction_operator, used_after_scop
from polysched.tiling.stride import Stride, classify, point_order
from test_tiling_support import PRIVATE, scop_of


@pytest.mark.parametrize("text,value", [("48K", 48 * 1024), ("1024K", 1 << 20), ("32M", 32 << 20),
                                        ("512", 512), ("junk", None)])
def test_parse_size(text, value):
    assert parse_size(text) == value


def test_cache_sizes_from_a_sysfs_tree(tmp_path):
    for index, (level, kind, size) in enumerate([("1", "Data", "48K"), ("1", "Instruction", "32K"),
                                                 ("2", "Unified", "2048K")]):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        (folder / "level").write_text(level + "\n")
        (folder / "type").write_text(kind + "\n")
        (folder / "size").write_text(size + "\n")
    sizes = cache_sizes(tmp_path)
    assert (sizes.l1d, sizes.l2, sizes.l3) == (48 * 1024, 2048 * 1024, FALLBACK_L3)


def test_cache_sizes_fallbacks(tmp_path):
    sizes = cache_sizes(tmp_path / "missing")
    assert (sizes.l1d, sizes.l2, sizes.l3) == (FALLBACK_L1D, FALLBACK_L2, FALLBACK_L3)


@pytest.mark.parametrize("body,op", [
    ("s += A[i] * B[i];", "+"),
    ("s -= A[i];", "+"),
    ("s = s - A[i];", "+"),
    ("s = s - A[i] + B[i] * 2;", "+"),
    ("s = s - (A[i] > 0 ? 1 : 2);", "+"),
    ("s = s - A[i] < 3;", None),
    ("s = s - s * A[i];", None),
    ("s *= x[i];", "*"),
    ("s = s + A[i][j] * 2;", "+"),
    ("s = s * (a[i] + 1);", "*"),
    ("s = s * a[i] + 1;", None),
    ("s += s * A[i];", None),
    ("s = s + (s > 0 ? 1 : 0);", None),
    # selections: max and min (integer types only: reduction_of)
    ("s = s < A[i] ? A[i] : s;", "max"),
    ("s = s > A[i] ? s : A[i];", "max"),
    ("s = (A[i] >= s) ? A[i] : s;", "max"),
    ("s = (s > A[i] ? A[i] : s);", "min"),
    ("s = A[i] <= s ? A[i] : s;", "min"),
    ("s = s > A[i] ? s : A[i + 1];", None),
    ("s = s > A[i] ? s : B[i];", None),
    ("s = s > A[i] + s ? s : A[i] + s;", None),
    ("s = s == A[i] ? s : A[i];", None),
    ("s = s > A[i] && B[i] ? s : A[i];", None),
    ("s = s > A[i] ? s : A[i] ? 1 : 2;", None),
    ("s = s > A[i] < 2 ? s : A[i];", None),
    ("s = s > (A[i] >> 1) ? s : (A[i] >> 1);", "max"),
    ("t = s + 1;", None),
    ("sum += A[i];", None),       # another scalar
    # bitwise (integer) reductions, by C's precedence: & over ^ over |
    ("s |= A[i] & 0xff;", "|"),
    ("s ^= A[i] | B[i];", "^"),
    ("s &= ~A[i];", "&"),
    ("s = s | A[i] ^ B[i];", "|"),
    ("s = s | A[i] | B[i];", "|"),
    ("s = s ^ A[i] << 3;", "^"),
    ("s = s ^ A[i] & 7;", "^"),
    ("s = s ^ A[i] | B[i];", None),
    ("s = s & A[i] ^ B[i];", None),
    ("s = s & A[i] | 1;", None),
    ("s = s | (A[i] > 0 ? 1 : 2);", "|"),
    ("s = s | A[i] > 0 ? 1 : 2;", None),
    ("s = s || A[i];", None),
    ("s = s && A[i];", None),
    ("s = s | s;", None),
    # the scalar last: x = e op x (commutative operators only)
    ("s = A[i] + s;", "+"),
    ("s = A[i] - B[i] + s;", "+"),
    ("s = (A[i] * B[i] + s);", "+"),
    ("s = A[i] - s;", None),
    ("s = A[i] + B[i] * s;", None),
    ("s = A[i] * +s;", None),
    ("s = A[i] << 2 + s;", None),
    ("s = A[i] % 7 * s;", "*"),
    ("s = -A[i] * s;", None),          # conservative: a unary minus reads as a difference
    ("s = A[i] ^ B[i] | s;", "|"),
    ("s = A[i] | B[i] ^ s;", None),
    ("s = A[i] && s;", None),
    ("s = A[s] + s;", None),
    # a member of the scalar's name is another variable; q->n is no comparison
    ("s += A[i] * p.s;", "+"),
    ("s = s + q->s * A[i];", "+"),
    ("s = s > q->s ? s : q->s;", "max"),
    ("s = s + q->n > 2;", None),
    # increments, and updates under a test that does not read the scalar
    ("s++;", "+"), ("--s;", "+"), ("s ++", "+"), ("s++ + 1;", None), ("t++;", None),
    ("if (A[i] > 0) s += A[i];", "+"),
    ("if (A[i] > 0) { s *= A[i]; }", "*"),
    ("if (A[i]) if (B[i]) s ^= A[i];", "^"),
    ("if (A[i] > 0) s += A[i]; else s -= A[i];", None),
    ("if (A[i] > 0) { s += A[i]; B[i] = 0; }", None),
    ("if (s > 0) s += A[i];", None),
    ("if (A[i] > 0) s = s * 2 + A[i];", None),
    ("if (A[i] > 0) s++;", "+"),
    # a conditional assignment that is a selection
    ("if (A[i] > s) s = A[i];", "max"),
    ("if (s < A[i]) { s = A[i]; }", "max"),
    ("if (A[i] <= s) s = A[i];", "min"),
    ("if ((A[i] + 1) > s) s = (A[i] + 1);", "max"),
    ("if (A[i] > s) s = B[i];", None),            # an arg-max, no max
    ("if (A[i] > s) s = A[i] + 1;", None),
    ("if (A[i] > s && A[i] < 9) s = A[i];", None),
    ("if (A[i] != s) s = A[i];", None),
    ("if (B[i]) s = s > A[i] ? s : A[i];", "max"),
])
def test_reduction_operator(body, op):
    assert reduction_operator(body, "s") == op


def test_used_after_scop_declaration_only():
    scop = scop_of(PRIVATE)
    assert not used_after_scop(scop, "t")          # only "double t;" outside the region
    # a 't' of another function is another variable
    other = PRIVATE.replace("kernel();", "kernel(); double t = A[1]; printf(\"%g\\n\", t);")
    assert not used_after_scop(scop_of(other), "t")
    # read after the region in the same function
    assert used_after_scop(scop_of(PRIVATE.replace("#pragma endscop\n", "#pragma endscop\n  B[0] = t;\n")), "t")


def test_used_after_scop_initialised_and_parameter():
    def with_decl(decl):
        return scop_of(PRIVATE.replace("double t;", decl))
    assert not used_after_scop(with_decl("double t = 0.0;"), "t")
    assert not used_after_scop(with_decl("double a = 1.0, t;"), "t")
    assert not used_after_scop(with_decl("double t = A[0];"), "t")
    assert not used_after_scop(with_decl("typedef double real; real *p, t;"), "t")
    # an initialiser that reads t
    assert used_after_scop(with_decl("double t; double u = t;"), "t")
    # a by-value parameter
    param = PRIVATE.replace("void kernel(void) {", "void kernel(double t) {") \
        .replace("double t;", "").replace("kernel();", "kernel(1.0);")
    assert not used_after_scop(scop_of(param), "t")
    # a global: another file may read it; a static one only this file
    glob = PRIVATE.replace("double t;", "").replace("double A[N], B[N];", "double A[N], B[N], t;")
    assert used_after_scop(scop_of(glob), "t")
    internal = PRIVATE.replace("double t;", "").replace("double A[N], B[N];", "double A[N], B[N];\nstatic double t;")
    assert not used_after_scop(scop_of(internal), "t")
    assert used_after_scop(scop_of(internal.replace("return 0;", "return (int) t;")), "t")
    through_macro = internal.replace("#define N 500", "#define N 500\n#define T t").replace("return 0;", "return (int) T;")
    assert used_after_scop(scop_of(through_macro), "t")


def _rows(text):
    return isl.Map(text)


@pytest.mark.parametrize("access,member,stride", [
    ("{ S[i, j, k] -> C[i, j] }", 1, Stride.UNIT),
    ("{ S[i, j, k] -> C[i, j] }", 2, Stride.INVARIANT),
    ("{ S[i, j, k] -> B[k, j] }", 2, Stride.STRIDED),
    ("{ S[i, j, k] -> B[k, j] }", 1, Stride.UNIT),
    ("{ S[i, j, k] -> A[i, 2j] }", 1, Stride.STRIDED),
    ("{ S[i, j, k] -> A[j, j] }", 1, Stride.STRIDED),
    ("{ S[i, j, k] -> A[i, -j] }", 1, Stride.UNIT),
])
def test_stride_classes_identity_schedule(access, member, stride):
    domain = isl.Set("{ S[i, j, k] : 0 <= i, j, k < 10 }")
    rows = _rows("{ S[i, j, k] -> [i, j, k] }").intersect_domain(domain)
    assert classify(rows, isl.Map(access).intersect_domain(domain), member) == stride


def test_stride_under_skewed_schedule():
    # rows (t, t + i): moving row 1 with t fixed moves i by one
    domain = isl.Set("{ S[t, i] : 0 <= t < 5 and 0 <= i < 10 }")
    rows = _rows("{ S[t, i] -> [t, t + i] }").intersect_domain(domain)
    access = isl.Map("{ S[t, i] -> A[i] }").intersect_domain(domain)
    assert classify(rows, access, 1) == Stride.UNIT
    # moving row 0 with t + i fixed moves i by -1 as well... and t: A[i] only sees i
    assert classify(rows, access, 0) == Stride.UNIT
    access_2d = isl.Map("{ S[t, i] -> B[t, i] }").intersect_domain(domain)
    assert classify(rows, access_2d, 0) == Stride.STRIDED


def test_point_order():
    assert point_order([-5, 7, 2]) == [0, 2, 1]
    assert point_order([1, 1, 1]) == [0, 1, 2]
    assert point_order([3, 0]) == [1, 0]
    assert point_order([0]) == [0]


def test_point_order_prefers_a_vectorizable_innermost():
    # syrk (i, j, k): k scores best (two stride-1 reads) but carries the reduction;
    # j stores C[i][j] with stride 1 and carries nothing once innermost
    assert point_order([-5, 3, 6], [False, True, False]) == [0, 2, 1]
    assert point_order([-5, 3, 6], [False, False, False]) == [0, 1, 2]
    assert point_order([-5, 7, 2], [False, True, False]) == [0, 2, 1]


SUBTRACTED = r"""
#include <stdio.h>
#include <stdlib.h>
int L[5000];
int main(int argc, char **argv) {
  int i, n = atoi(argv[1]);
  unsigned l2 = 7;
  for (i = 0; i < 5000; i++) L[i] = i % 13 - 4;
#pragma scop
  for (i = 0; i < n; i++)
    l2 = l2 - L[i] + (i & 3);
#pragma endscop
  printf("%u\n", l2);
  return 0;
}
"""


def test_an_integer_reduction_written_as_x_equals_x_minus_is_parallel(tmp_path):
    """``l2 = l2 - L[i] + ...`` (integer) is a sum reduction, as ``l2 -= ...`` was: the
    loop becomes parallel with reduction(+:l2), same results at 1 and 2 threads."""
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize
    source = tmp_path / "sub.c"
    source.write_text(SUBTRACTED)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "reduction(+:l2)" in text
    sizes = [(0,), (1,), (4999,)]
    assert outputs_of(text, tmp_path, "out", sizes) == outputs_of(SUBTRACTED, tmp_path, "orig", sizes)
