"""Issue: wrong code on ordinary C the suite does not contain.

Each program here breaks an assumption the pipeline used to make silently (parameters
>= 1, int counters, no aliasing, dead iterators, UTF-8/LF text, reassociation). Every
case runs the original and polysched's output, compiled with identical flags at -O0
and -O2, at 1 and 2 threads, and asserts that they print exactly the same bytes.
"""
from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest

from polysched.bench import compile_c, run_binary
from polysched.dependence import ScopAccesses, reduction_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract
from polysched.textio import encode_source

FLAG_SETS = {
    "identity": dict(scheduler="identity"),
    "default": dict(),
    "tile": dict(tile=True),
    "tile-par": dict(tile=True, parallel=True),
    "isl-tile-par": dict(scheduler="isl", tile=True, parallel=True),
    "nofuse-par": dict(fuse="no", parallel=True),
    "max-l2-unroll": dict(fuse="max", tile=True, l2tile=True, parallel=True, unroll=4),
}


def build_and_run(source: Path, workdir: Path, opt: str) -> list[str]:
    """stdout of ``source`` at 1 and 2 threads (one entry each)."""
    binary = workdir / f"{source.stem}{opt}.bin"
    result = compile_c(source, binary, cflags=[opt, "-ffp-contract=off", "-DPOLYSCHED_PARALLEL_MIN_WORK=0"], openmp=True)
    assert result.ok, result.reason
    outputs = []
    for threads in (1, 2):
        run = run_binary(binary, threads=threads, timeout=60)
        assert run.ok, f"{source.name} {opt} {threads} threads: {run.reason}"
        outputs.append(run.stdout)
    return outputs


def assert_same_behaviour(tmp_path: Path, text: str, modes=FLAG_SETS, opts=("-O0", "-O2")) -> dict:
    """Optimize ``text`` in every mode and compare the programs' outputs with the
    original's. Returns ``{mode: output text}``."""
    original = tmp_path / "orig.c"
    original.write_bytes(encode_source(text))
    expected = {opt: build_and_run(original, tmp_path, opt) for opt in opts}
    outputs = {}
    for mode, kwargs in modes.items():
        result = optimize(original, OptimizeOptions.from_flags(**kwargs))
        out = tmp_path / f"out_{mode.replace('-', '_')}.c"
        out.write_bytes(encode_source(result.text))
        outputs[mode] = result.text
        for opt in opts:
            got = build_and_run(out, tmp_path, opt)
            assert got == expected[opt], f"mode {mode} {opt}: {got} != {expected[opt]}\n{result.text}"
    return outputs


# -- 1. parameters are not assumed >= 1 ------------------------------------------------

OFFSET_KERNEL = r"""
#include <stdio.h>
double A[64], B[64];
void kernel(int n, int off) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) B[i] = A[i] + 1.0;
  for (i = off; i < off + n; i++) A[i] = B[i - off + 2] * 2.0;
#pragma endscop
}
int main(void) {
  int calls[][2] = {{20, 0}, {20, 1}, {0, 3}, {-4, 2}, {10, -1}, {1, 1}};
  for (int c = 0; c < 6; c++) {
    for (int k = 0; k < 64; k++) { A[k] = k % 7; B[k] = 0; }
    kernel(calls[c][0], calls[c][1] < 0 ? 0 : calls[c][1]);
    double s = 0; for (int k = 0; k < 64; k++) s += A[k] * (k + 1) + B[k];
    printf("%.17g\n", s);
  }
  return 0;
}
"""


def test_parameter_zero_and_negative(tmp_path):
    outputs = assert_same_behaviour(tmp_path, OFFSET_KERNEL)
    assert "} else {" in outputs["default"]   # the optimized code is guarded


def test_a_start_is_not_a_size():
    """``off`` of ``off <= i < off + n`` bounds i from above too, and was taken for a
    size (>= 1): the calls with off = 0, the most common, ran the original code."""
    assert extract(OFFSET_KERNEL)[0].context.is_equal(
        isl.Set("[n, off] -> { : n >= 1 and off >= 0 }"))


MACRO_ZERO = r"""
#include <stdio.h>
#define OFF 0
#define N 20
double A[64], B[64];
void kernel(void) {
  int i;
#pragma scop
  for (i = 0; i < N; i++) B[i] = A[i] + 1.0;
  for (i = OFF; i < OFF + N; i++) A[i] = B[i - OFF + 2] * 2.0;
#pragma endscop
}
int main(void) {
  for (int k = 0; k < 64; k++) A[k] = k % 5;
  kernel();
  for (int k = 0; k < 24; k++) printf("%.17g %.17g\n", A[k], B[k]);
  return 0;
}
"""


def test_macro_with_value_zero(tmp_path):
    assert_same_behaviour(tmp_path, MACRO_ZERO)


EMPTY_INNER = r"""
#include <stdio.h>
double C[40][40];
void kernel(int n, int m) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      C[i][j] = C[i][j] * 2.0 + i - j;
#pragma endscop
}
int main(void) {
  int sizes[][2] = {{30, 0}, {30, 30}, {0, 30}, {-1, 5}, {7, 1}};
  for (int c = 0; c < 5; c++) {
    for (int i = 0; i < 40; i++) for (int j = 0; j < 40; j++) C[i][j] = i + 0.5 * j;
    kernel(sizes[c][0], sizes[c][1]);
    double s = 0; for (int i = 0; i < 40; i++) for (int j = 0; j < 40; j++) s += C[i][j] * (i + 3 * j);
    printf("%.17g\n", s);
  }
  return 0;
}
"""


def test_empty_inner_dimension(tmp_path):
    assert_same_behaviour(tmp_path, EMPTY_INNER)


# -- 2./3. unsigned, size_t and wide counters --------------------------------------------

UNSIGNED_KERNEL = r"""
#include <stdio.h>
#include <stddef.h>
double A[20][20];
void kern(SIZE_T n) {
  SIZE_T i, j;
#pragma scop
  for (i = 1; i <= n; i++)
    for (j = 1; j <= n; j++)
      A[i][j] = A[i-1][j+1] + A[i][j-1] * 0.5 + (double)(j - i);
#pragma endscop
}
int main(void) {
  unsigned sizes[] = {11, 0, 1, 17};
  for (int c = 0; c < 4; c++) {
    for (int i = 0; i < 20; i++) for (int j = 0; j < 20; j++) A[i][j] = (i * 7 + j * 3) % 11;
    kern(sizes[c]);
    for (int i = 0; i < 20; i++) for (int j = 0; j < 20; j++) printf("%.17g\n", A[i][j]);
  }
  return 0;
}
"""


@pytest.mark.parametrize("size_type", ["unsigned", "size_t", "unsigned long", "long"])
def test_unsigned_and_wide_sizes(tmp_path, size_type):
    assert_same_behaviour(tmp_path, UNSIGNED_KERNEL.replace("SIZE_T", size_type))


UNSIGNED_WRAP = r"""
#include <stdio.h>
double A[40], B[40];
void kernel(unsigned n, unsigned m) {
  unsigned i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0 + i;
  for (i = 0; i < n; i++)
    if (i >= m - 2) B[i] = 2.0 * i;          /* m - 2 wraps for m < 2 */
#pragma endscop
}
int main(void) {
  unsigned calls[][2] = {{10, 5}, {10, 0}, {10, 1}, {30, 2}, {0, 0}};
  for (int c = 0; c < 5; c++) {
    for (int k = 0; k < 40; k++) { A[k] = 0; B[k] = -1; }
    kernel(calls[c][0], calls[c][1]);
    for (int k = 0; k < 40; k++) printf("%.17g %.17g\n", A[k], B[k]);
  }
  return 0;
}
"""


def test_unsigned_comparisons_that_wrap(tmp_path):
    outputs = assert_same_behaviour(tmp_path, UNSIGNED_WRAP)
    assert "m >= 2" in outputs["default"]        # the no-wrap assumption, checked at run time


def test_unsigned_comparison_that_always_wraps_keeps_the_original(tmp_path):
    text = UNSIGNED_WRAP.replace("    A[i] = 1.0 + i;", "    if (i - 1 >= 0) A[i] = 1.0 + i;  /* true in C */")
    outputs = assert_same_behaviour(tmp_path, text, modes={"tile-par": FLAG_SETS["tile-par"]})
    assert "original code kept" in outputs["tile-par"]


WIDE_COUNTER = r"""
#include <stdio.h>
#define BIG 3000000000L
double A[16];
void kernel(void) {
  long i;
#pragma scop
  for (i = BIG; i < BIG + 10; i++) A[i - BIG] = 1.0 + (double)(i - BIG);
#pragma endscop
}
int main(void) { kernel(); for (int k = 0; k < 16; k++) printf("%.17g\n", A[k]); return 0; }
"""


def test_counter_wider_than_int(tmp_path):
    outputs = assert_same_behaviour(tmp_path, WIDE_COUNTER)
    assert "long long c0" in outputs["tile-par"] or "long long" in outputs["default"]


# found by hand (int bounds near INT_MAX): the bounds fit int, but with 3x5 tiles the
# last tile's "3 * c0 + 2" is 2**31 and wrapped under int counters (the loop ran 0 times)
NEAR_INT_MAX = r"""
#include <stdio.h>
double A[60][60];
int main(void) {
  int i, j;
  for (i = 0; i < 60; i++) for (j = 0; j < 60; j++) A[i][j] = i + 0.5 * j;
#pragma scop
  for (i = 2147483600; i < 2147483647; i++)
    for (j = 2147483590; j <= 2147483646; j++)
      A[i - 2147483600][j - 2147483590] += (i > 2147483610 ? A[i - 2147483601][j - 2147483590] : 1.0);
#pragma endscop
  for (i = 0; i < 60; i++) for (j = 0; j < 60; j++) printf("%.17g\n", A[i][j]);
  return 0;
}
"""


def test_bounds_near_int_max_get_wide_counters(tmp_path):
    modes = {"tile-3x5": dict(tile=True, parallel=True, tile_sizes=[3, 5]), "tile-par": FLAG_SETS["tile-par"]}
    outputs = assert_same_behaviour(tmp_path, NEAR_INT_MAX, modes=modes)
    assert all("long long c0" in text for text in outputs.values())


NEAR_LLONG_MAX = r"""
#include <stdio.h>
double A[40];
int main(void) {
  long long i;
#pragma scop
  for (i = 9223372036854775800LL; i < 9223372036854775807LL; i++)
    A[i - 9223372036854775800LL] = 2.0 * (double)(i - 9223372036854775800LL);
#pragma endscop
  for (int k = 0; k < 40; k++) printf("%.17g\n", A[k]);
  return 0;
}
"""


def test_counters_near_llong_max_keep_the_original(tmp_path):
    """No wider counter type: tile arithmetic could overflow long long, so the region
    is kept as written (with the reason in a comment), in every mode."""
    outputs = assert_same_behaviour(tmp_path, NEAR_LLONG_MAX,
                                    modes={"tile-par": FLAG_SETS["tile-par"], "identity": FLAG_SETS["identity"]})
    assert all("original code kept: a loop counter may exceed 2**60" in text for text in outputs.values())


# 'i != e' loops stepping by 1 run the iterations of 'i < e' ('i > e' down) when they
# start on the right side of e: assumed, checked at run time; otherwise (n < 0 here, m
# below n - 1) the original runs, which for n < 0 would not terminate, so the program
# is run with sizes where it does
NOT_EQUAL = r"""
#include <stdio.h>
#include <stdlib.h>
double A[50][50], B[50];
void kernel(int n, int m) {
  int i, j;
#pragma scop
  for (i = 0; i != n; i++)
    for (j = m; j != i; j--)
      A[i][j] = A[i][j] + B[j] * i;
  for (i = n; i != 0; --i)
    B[i] = B[i] + A[i][i];
#pragma endscop
}
int main(void) {
  int sizes[][2] = {{20, 30}, {0, 30}, {5, 5}, {5, 4}, {30, 29}, {1, 0}, {10, 49}};
  for (int a = 0; a < 50; a++) { B[a] = a * 0.5; for (int b = 0; b < 50; b++) A[a][b] = a - b * 0.25; }
  for (int k = 0; k < 7; k++) {
    kernel(sizes[k][0], sizes[k][1]);
    for (int a = 0; a < 50; a++) { printf("%a\n", B[a]); for (int b = 0; b < 50; b++) printf("%a ", A[a][b]); }
  }
  return 0;
}
"""


def test_not_equal_loop_conditions(tmp_path):
    outputs = assert_same_behaviour(tmp_path, NOT_EQUAL)
    assert "m + 1 >= n" in outputs["tile-par"]          # the assumption, tested at run time
    assert "#pragma omp parallel for" in outputs["tile-par"]


# shifts by constants are affine: i << 1 is 2i, i >> 2 is floor(i / 4) (also for i < 0)
SHIFTS = r"""
#include <stdio.h>
double A[200], B[200], C[40][40];
void kernel(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    B[i << 1] = A[(i >> 1) + 3] * 2.0 + A[i];
  for (i = -8; i < n; i++)
    for (j = 0; j < (n >> 2); j++)
      C[(i >> 2) + 2][j] += B[j << 2] + (i >> 1);
#pragma endscop
}
int main(void) {
  int sizes[] = {37, 0, 1, 5, -3, 99};
  for (int a = 0; a < 200; a++) { A[a] = a * 0.5; B[a] = 1.0 / (a + 1); }
  for (int a = 0; a < 40; a++) for (int b = 0; b < 40; b++) C[a][b] = a - b;
  for (int k = 0; k < 6; k++) {
    kernel(sizes[k]);
    for (int a = 0; a < 200; a++) printf("%a\n", B[a]);
    for (int a = 0; a < 40; a++) for (int b = 0; b < 40; b++) printf("%a\n", C[a][b]);
  }
  return 0;
}
"""


def test_shifts_by_constants(tmp_path):
    from polysched.dependence import analyze
    from polysched.scop import extract
    [scop] = extract(SHIFTS, filename="shifts.c")
    flow = analyze(scop).flow
    # B[2i] written, B[4j] read: the instance i = 2j flows to every S1[., j]
    expected = isl.UnionMap("[n] -> { S0[i] -> S1[i', j] : i = 2j and 0 <= i < n and -8 <= i' < n "
                            "and 4j < 4 * floor(n / 4) }")
    assert flow.intersect_domain(isl.UnionSet("[n] -> { S0[i] }")).is_equal(expected)
    assert_same_behaviour(tmp_path, SHIFTS, modes={m: FLAG_SETS[m] for m in ("tile-par", "isl-tile-par")})


# found by hand: the model computed casts and unsigned arithmetic as exact integers.
# Each is exact only where the value fits its type; that range is now an assumption
# (checked at run time, the original otherwise). Outputs are integers, compared exactly.
CAST_IN_BOUND = r"""
#include <stdio.h>
double A[64];
static void k(int m) {
  int i;
#pragma scop
  for (i = 0; i < (unsigned char)m; i++)
    A[i] = A[i] * 2.0 + 1.0;
#pragma endscop
}
int main(void) {
  int sizes[] = {296, 40, 0, -200, 255 + 64};
  for (int i = 0; i < 64; i++) A[i] = i;
  for (int s = 0; s < 5; s++) {
    k(sizes[s]);
    for (int i = 0; i < 64; i++) printf("%.17g\n", A[i]);
  }
  return 0;
}
"""
UNSIGNED_SUBSCRIPT = r"""
#include <stdio.h>
double A[1000];
unsigned B[256];
int main(void) {
  unsigned i;
  int j;
  for (i = 0; i < 1000; i++) A[i] = i % 7;
  for (j = 0; j < 256; j++) B[j] = j % 5;
#pragma scop
  for (i = 0; i < 1999; i++)
    A[(i - 999u) % 1000u] = A[(i - 999u) % 1000u] * 0.5 + i;
  for (j = 0; j < 2000; j++)
    B[(unsigned char)j] = B[(unsigned char)j] * 3u + (unsigned)j;
#pragma endscop
  for (i = 0; i < 1000; i++) printf("%.17g\n", A[i]);
  for (j = 0; j < 256; j++) printf("%u\n", B[j]);
  return 0;
}
"""
CAST_IN_CONDITION = r"""
#include <stdio.h>
double A[600];
int main(void) {
  int i;
  for (i = 0; i < 600; i++) A[i] = i % 3;
#pragma scop
  for (i = 0; i < 600; i++)
    if ((unsigned char)i < 100)
      A[i] = A[i] + 1000.0;
  for (i = 0; i < 600; i++)
    if ((short)(i * 100) > 0)
      A[i] = A[i] * 2.0;
#pragma endscop
  for (i = 0; i < 600; i++) printf("%.17g\n", A[i]);
  return 0;
}
"""


def test_cast_in_a_loop_bound_is_assumed_to_fit(tmp_path):
    outputs = assert_same_behaviour(tmp_path, CAST_IN_BOUND, modes={"tile-par": FLAG_SETS["tile-par"]})
    assert "m <= 255" in outputs["tile-par"]


@pytest.mark.parametrize("text", [UNSIGNED_SUBSCRIPT, CAST_IN_CONDITION], ids=["subscript", "condition"])
def test_values_that_wrap_or_truncate_keep_the_original(tmp_path, text):
    outputs = assert_same_behaviour(tmp_path, text, modes={m: FLAG_SETS[m] for m in ("tile-par", "isl-tile-par")})
    # no parameter value makes the model exact: as written (isl), or the original kept
    assert "original code kept" in outputs["tile-par"]
    assert all("#pragma omp" not in out for out in outputs.values())


def test_ranges_of_casts_and_unsigned_values_in_the_context():
    from polysched.scop import extract
    text = """void f(unsigned n, int m, double *restrict A, double *restrict B) {
  unsigned i;
  int j;
#pragma scop
  for (i = 0; i < n; i++)
    A[n - 1 - i] = A[(i + 3u) / 2u];
  for (j = 0; j < (short)m; j++)
    B[j] = 1.0;
#pragma endscop
}"""
    text = text.replace("double *restrict A, double *restrict B", "double A[100], double B[100]")
    [scop] = extract(text, filename="ranges.c")
    # n - 1 - i and (i + 3) / 2 always fit (i < n); (short)m must
    expected = isl.Set("[n, m] -> { : n >= 1 and 1 <= m <= 32767 and n <= 4294967293 }")
    assert scop.context.is_equal(expected.align_params(scop.context.get_space())), scop.context


# sizeof of arrays with constant sizes and of types is a constant; it is a size_t, so
# a comparison with it is unsigned (a loop from -5 never runs in C: the original is kept)
SIZEOF = r"""
#include <stdio.h>
#define N 40
double A[N][N + 0], x[30];
float B[17];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) A[i][j] = i - 0.5 * j;
  for (i = 0; i < 30; i++) x[i] = i;
#pragma scop
  for (i = 1; i < sizeof(A) / sizeof(A[0]); i++)
    for (j = 0; j < sizeof A[0] / sizeof(double); j++)
      A[i][j] = A[i - 1][j] + x[j % (sizeof(x) / sizeof(x[0]))];
  for (i = 0; i < (int)(sizeof(B) / sizeof(float)); i++)
    B[i] = i * 2.0f;
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%a\n", A[i][j]);
  for (i = 0; i < 17; i++) printf("%a\n", B[i]);
  return 0;
}
"""


def test_type_sizes_are_lp64():
    from polysched.scop.affine import type_size
    sizes = {"int": 4, "unsigned": 4, "long": 8, "long int": 8, "unsigned long long": 8, "short int": 2,
             "char": 1, "signed char": 1, "float": 4, "double": 8, "long double": 16, "size_t": 8,
             "const double": 8, "int8_t": 1, "struct point": None}
    assert {t: type_size(t) for t in sizes} == sizes


def test_sizeof_of_arrays_and_types(tmp_path):
    from polysched.scop import extract
    [scop] = extract(SIZEOF, filename="sizeof.c")
    s0, s1 = scop.statements
    assert s0.domain.is_equal(isl.Set("{ S0[i, j] : 0 < i <= 39 and 0 <= j <= 39 }"))
    assert s1.domain.is_equal(isl.Set("{ S1[i] : 0 <= i <= 16 }"))
    outputs = assert_same_behaviour(tmp_path, SIZEOF, modes={"tile-par": FLAG_SETS["tile-par"]})
    assert "#pragma omp parallel for" in outputs["tile-par"]
    negative = SIZEOF.replace("for (i = 0; i < (int)(sizeof(B) / sizeof(float)); i++)\n    B[i] = i * 2.0f;",
                              "for (i = -5; i < sizeof(B) / sizeof(B[0]); i++)\n    B[i + 5] = i * 2.0f;")
    assert negative != SIZEOF
    outputs = assert_same_behaviour(tmp_path, negative, modes={"tile-par": FLAG_SETS["tile-par"]})
    assert "#pragma omp" not in outputs["tile-par"]       # kept as written


SIZEOF_ENUM = r"""
#include <stdio.h>
enum { M = sizeof(int) * 3, K = sizeof(long double) };
float V[M], W[M + K];
int main(void) {
  int i;
  for (i = 0; i < M; i++) V[i] = i * 0.25f;
#pragma scop
  for (i = 0; i < (int)(sizeof V / sizeof *V); i++)
    W[i + K] = V[i] * 2;
#pragma endscop
  for (i = 0; i < M + K; i++) printf("%a\n", W[i]);
  return 0;
}
"""


def test_sizeof_in_an_enumerator_and_of_a_dereferenced_array(tmp_path):
    """``enum { M = sizeof(int) * 3 }`` folds (the size of V was unknown), and ``sizeof *V``
    is ``sizeof V[0]`` (helper-43: both refused)."""
    from polysched.scop import extract
    [scop] = extract(SIZEOF_ENUM, filename="sizeof_enum.c")
    [s0] = scop.statements
    assert s0.domain.is_equal(isl.Set("{ S0[i] : 0 <= i <= 11 }"))
    outputs = assert_same_behaviour(tmp_path, SIZEOF_ENUM, modes={"tile-par": FLAG_SETS["tile-par"]})
    assert "#pragma omp" in outputs["tile-par"] or "for (int c0" in outputs["tile-par"]


ALIGNOF = r"""
#include <stdio.h>
double A[40], B[40];
int main(void) {
  int i;
  for (i = 0; i < 40; i++) B[i] = i * 0.5;
#pragma scop
  for (i = 0; i < 40 - _Alignof(long double); i++)
    A[i] = B[i + 1] * _Alignof(double) + sizeof(float);
#pragma endscop
  for (i = 0; i < 40; i++) printf("%a\n", A[i]);
  return 0;
}
"""


def test_alignof_of_a_basic_type_is_a_constant(tmp_path):
    """C11 `_Alignof(type)` in a bound and in a body (helper-43: refused as a "side
    effect")."""
    from polysched.scop import extract
    [scop] = extract(ALIGNOF, filename="alignof.c")
    [s0] = scop.statements
    assert s0.domain.is_equal(isl.Set("{ S0[i] : 0 <= i <= 23 }"))
    outputs = assert_same_behaviour(tmp_path, ALIGNOF, modes={"tile-par": FLAG_SETS["tile-par"]})
    assert "#pragma omp parallel for" in outputs["tile-par"]


# -- 4. iterators live after the region ------------------------------------------------

LIVE_ITERATOR = r"""
#include <stdio.h>
double A[40], B[40][40];
void kernel(int n) {
  int i, j, k;
  i = -1; j = -2; k = -3;
#pragma scop
  for (i = 0; i < n; i++) A[i] = 2.0 * i;
  for (j = n; j > 2; j -= 3)
    for (k = 0; k <= j; k += 2) B[j][k] = A[k] + j;
#pragma endscop
  printf("%d %d %d\n", i, j, k);
}
int main(void) {
  int sizes[] = {10, 0, 1, 5, 30};
  for (int c = 0; c < 5; c++) {
    kernel(sizes[c]);
    double s = 0; for (int p = 0; p < 40; p++) for (int q = 0; q < 40; q++) s += B[p][q] * (p + q);
    printf("%.17g\n", s);
  }
  return 0;
}
"""


def test_iterators_live_after_region(tmp_path):
    assert_same_behaviour(tmp_path, LIVE_ITERATOR)


# -- 5. pointer parameters that alias --------------------------------------------------

ALIASED = r"""
#include <stdio.h>
void shift(int n, double *dst, double *src) {
  int i;
#pragma scop
  for (i = 1; i < n; i++) dst[i] = src[i - 1] + 1.0;
#pragma endscop
}
double A[3000], B[3000];
int main(void) {
  for (int k = 0; k < 3000; k++) { A[k] = k % 13; B[k] = 0; }
  shift(2500, A, A);
  shift(2500, B, A);
  shift(100, A + 50, A);
  shift(100, A, A + 50);
  double s = 0; for (int k = 0; k < 3000; k++) s += A[k] * (k % 17) + B[k];
  printf("%.17g\n", s);
  return 0;
}
"""


def test_aliased_pointer_parameters(tmp_path):
    outputs = assert_same_behaviour(tmp_path, ALIASED)
    assert "(const char *)" in outputs["tile-par"]   # the run-time overlap check


def test_restrict_needs_no_alias_check(tmp_path):
    text = ALIASED.replace("double *dst, double *src", "double *restrict dst, double *restrict src")
    text = text.replace("shift(2500, A, A);", "").replace("shift(100, A + 50, A);", "") \
        .replace("shift(100, A, A + 50);", "")
    outputs = assert_same_behaviour(tmp_path, text, modes={"tile-par": FLAG_SETS["tile-par"]})
    assert "(const char *)" not in outputs["tile-par"]


ADDRESS_TAKEN = r"""
#include <stdio.h>
double A[64], B[64];
int C[64];
static void kernel(int n, double *p, double *acc_out) {
  double acc = 1.0;
  double *q = p ? p : &acc;       /* q may reach the local scalar acc */
#pragma scop
  for (int i = 0; i < n; i++) {
    acc = acc * 0.5 + A[i];
    B[i] = q[0] * 3.0;
  }
#pragma endscop
  *acc_out = acc;
}
static void iterator(int n, int *p) {
  int i;
  int *q = p ? p : &i;            /* q may reach the iterator i */
#pragma scop
  for (i = 0; i < n; i++)
    C[i] = q[0] * 10;
#pragma endscop
}
static void size(int n, int *p) {
  int *q = p ? p : &n;            /* q may reach the size n */
#pragma scop
  for (int i = 0; i < n; i++)
    C[i] = i;
  q[0] = 3;                       /* n = 3 when q == &n */
  for (int i = 0; i < n; i++)
    C[i] = C[i] + 1;
#pragma endscop
  C[63] = n;
}
int main(void) {
  double other = 2.0, acc;
  int cell = 7;
  for (int i = 0; i < 64; i++) A[i] = i % 7;
  int sizes[] = {0, 1, 5, 40, 64};
  for (int c = 0; c < 5; c++) {
    kernel(sizes[c], 0, &acc);                /* q == &acc */
    printf("%.17g %.17g %.17g\n", B[0], B[sizes[c] > 0 ? sizes[c] - 1 : 0], acc);
    kernel(sizes[c], &other, &acc);           /* q elsewhere */
    printf("%.17g %.17g %.17g\n", B[0], B[sizes[c] > 0 ? sizes[c] - 1 : 0], acc);
    iterator(sizes[c], 0);
    printf("%d %d\n", C[0], C[sizes[c] > 0 ? sizes[c] - 1 : 0]);
    iterator(sizes[c], &cell);
    printf("%d %d\n", C[0], C[sizes[c] > 0 ? sizes[c] - 1 : 0]);
    size(sizes[c], 0);
    printf("%d %d %d\n", C[0], C[4], C[63]);
    size(sizes[c], &cell);
    printf("%d %d\n", C[63], cell);
  }
  return 0;
}
"""


def test_variables_whose_address_is_taken_are_checked_against_pointers(tmp_path):
    """A probe's programs: q[0] read the local acc the loop updates, or the iterator i
    that the optimized loops do not update; here q may also write the size n. Only
    globals were checked against pointer-reached arrays; a scalar, iterator or size
    whose address the function takes before the region is now one of the checked pairs,
    at run time (the original runs when q reaches it)."""
    outputs = assert_same_behaviour(tmp_path, ADDRESS_TAKEN)
    optimized = outputs["tile-par"]
    for pair in ("&acc + 1", "&i + 1", "&n + 1"):
        assert pair in optimized, pair


UNSIGNED_TERNARY = r"""
#include <stdio.h>
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define MAX(x, y) ((x) > (y) ? (x) : (y))
double A[3][9], B[9];
char tbl[2][4];
static void kernel(int n, unsigned u) {
  int l;
#pragma scop
  for (l = MAX((-1), sizeof(tbl[0]) / sizeof(tbl[0][0]) - 2); l <= 3; l++)
    A[1][l + 2] = A[1][l + 2] + 1.0;
  for (l = 0; l < MIN(n, u); l++)
    B[l] = B[l] + 2.0;
  for (l = (1 > LOW ? 0 : 1); l < 6; l++)
    A[2][l] = A[2][l] * 0.5;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 3; i++) for (int j = 0; j < 9; j++) A[i][j] = i + j * 0.25;
  for (int j = 0; j < 9; j++) B[j] = j;
  kernel(5, 7u);
  kernel(-3, 4u);       /* MIN(n, u) compares -3 as 4294967293: u */
  kernel(8, 0u);
  for (int i = 0; i < 3; i++) for (int j = 0; j < 9; j++) printf("%.17g\n", A[i][j]);
  for (int j = 0; j < 9; j++) printf("%.17g\n", B[j]);
  return 0;
}
"""


@pytest.mark.parametrize("low", ["-1", "0u - 1", "2u"])
def test_comparisons_in_ternaries_and_macros_are_unsigned_where_c_says(tmp_path, low):
    """Fuzz seed 20261123 program 346: MAX((-1), sizeof(..) / sizeof(..) - 2) starts the
    loop at -1 in C (-1 compares as SIZE_MAX) and the model said 2. A comparison inside
    a ternary or a macro is now modelled only where its sides fit its unsigned type, like
    the comparisons of loop conditions; elsewhere the original code runs."""
    assert_same_behaviour(tmp_path, UNSIGNED_TERNARY.replace("LOW", low),
                          modes={m: FLAG_SETS[m] for m in ("identity", "tile-par")})


# -- 6. bytes outside the region --------------------------------------------------------

def test_bytes_outside_region_are_identical(tmp_path):
    text = OFFSET_KERNEL.replace('printf("%.17g\\n", s);', 'printf("%.17g \xe9\\n", s);')
    raw = text.encode("latin-1").replace(b"\n", b"\r\n")
    source = tmp_path / "latin1.c"
    source.write_bytes(raw)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    out = encode_source(result.text)
    start = raw.index(b"#pragma scop")
    end = raw.index(b"#pragma endscop")
    assert out.startswith(raw[:start + len(b"#pragma scop\r\n")])
    assert out.endswith(raw[end:])
    assert b"\xe9" in out and b"\xef\xbf\xbd" not in out
    assert b"\n" not in out.replace(b"\r\n", b"")     # every line ends in CRLF
    (tmp_path / "latin1_out.c").write_bytes(out)
    assert build_and_run(source, tmp_path, "-O2") == build_and_run(tmp_path / "latin1_out.c", tmp_path, "-O2")


def test_a_multi_line_check_in_a_crlf_file_ends_its_lines_in_crlf(tmp_path):
    """helper-59: the run-time check's conjuncts, one per line, ended in a bare LF in a
    CRLF file."""
    text = ("#include <stdio.h>\nvoid f(int n, double *a, double *b) {\n  int i;\n#pragma scop\n"
            "  for (i = 0; i < n; i++)\n    b[i] = a[i] * 2.0;\n#pragma endscop\n}\n"
            "int main(void) { double x[9] = {1, 2, 3}, y[9]; f(9, x, y); printf(\"%g\\n\", y[2]); return 0; }\n")
    source = tmp_path / "crlf.c"
    source.write_bytes(text.encode().replace(b"\n", b"\r\n"))
    out = encode_source(optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
    assert b" &&\r\n" in out                             # a check of several lines
    assert b"\n" not in out.replace(b"\r\n", b"")       # every line ends in CRLF


# -- 7. floating-point reductions are not reassociated unless asked --------------------

REDUCTION = r"""
#include <stdio.h>
#define N 400
double A[N][N], R[N];
void kernel(void) {
  int i, k;
  double nrm;
#pragma scop
  for (k = 0; k < N; k++) {
    nrm = 0.0;
    for (i = 0; i < N; i++) nrm += A[i][k] * A[i][k] * 1e-3 - 1.0 / (i + 1.0);
    R[k] = nrm;
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++) for (int k = 0; k < N; k++) A[i][k] = ((i * 31 + k * 17) % 101) * 0.37 - 5.0;
  kernel();
  for (int k = 0; k < N; k++) printf("%.17g\n", R[k]);
  return 0;
}
"""


def test_no_floating_point_reduction_without_reassociate(tmp_path):
    outputs = assert_same_behaviour(tmp_path, REDUCTION, opts=("-O2",))
    assert not any("reduction(" in text for text in outputs.values())


def test_reassociate_allows_floating_point_reduction(tmp_path):
    source = tmp_path / "red.c"
    source.write_text(REDUCTION.replace("for (k = 0; k < N; k++) {", "{")
                      .replace("A[i][k] * A[i][k]", "A[i][3] * A[i][5]").replace("R[k] = nrm;", "R[0] = nrm;"))
    plain = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "reduction(" not in plain.text
    asked = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True, reassociate=True))
    assert "reduction(+:nrm)" in asked.text
    assert "reassociated" in asked.summary()


INT_REDUCTION = r"""
#include <stdio.h>
int A[5000];
unsigned long total;
void kernel(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) total += A[i] * 3 - 1;
#pragma endscop
}
int main(void) { for (int k = 0; k < 5000; k++) A[k] = k % 97; total = 0; kernel(5000); printf("%lu\n", total); return 0; }
"""


def test_integer_reduction_stays_parallel(tmp_path):
    outputs = assert_same_behaviour(tmp_path, INT_REDUCTION, modes={"tile-par": FLAG_SETS["tile-par"]})
    assert "reduction(+:total)" in outputs["tile-par"]


REVERSED_REDUCTIONS = r"""
#include <stdio.h>
int A[3000];
struct S { int s; } p1, *q = &p1;
int main(void) {
  for (int k = 0; k < 3000; k++) A[k] = (k * 7919) % 1013 - 500;
  p1.s = 3;
  int s = 0, t = 5, i;
  unsigned h = 17u, p = 1u;
#pragma scop
  for (i = 0; i < 3000; i++) {
    s = A[i] * p1.s + s;
    t = t + A[i] * q->s;
    h = (unsigned)A[i] ^ h;
    p = (A[i] | 1) * p;
  }
#pragma endscop
  printf("%d %d %u %u\n", s, t, h, p);
  return 0;
}
"""


def test_reductions_with_the_scalar_last_are_parallel(tmp_path):
    """``s = e + s`` is the sum ``s += e`` (and ``^``, ``*``): the loop is parallel with
    reduction clauses, and prints what the original prints. A struct member of the
    scalar's name (``p1.s``, ``q->s``) is another variable; neither ``->`` nor the digit
    before ``.s`` is a comparison or a floating-point constant."""
    outputs = assert_same_behaviour(tmp_path, REVERSED_REDUCTIONS, modes={"tile-par": FLAG_SETS["tile-par"]})
    text = outputs["tile-par"]
    assert text.count("#pragma omp parallel for") == 1
    assert all(clause in text for clause in ("+:s_wrapped, t_wrapped", "(^:h)", "(*:p)")), text
    assert "* p1.s + s_wrapped;" in text and "t_wrapped + A[c0] * q->s;" in text


CONDITIONAL_REDUCTIONS = r"""
#include <stdio.h>
int A[60][50];
long L[50];
double D[50];
int main(void) {
  for (int k = 0; k < 60; k++)
    for (int l = 0; l < 50; l++) A[k][l] = (k * 7919 + l * 104729) % 1013 - 500;
  for (int l = 0; l < 50; l++) { L[l] = (l * 31) % 17 - 8; D[l] = l * 0.1; }
  long s = 0; unsigned p = 1u; int m = -1000, lo = 1000, mixed = -1000; short c = 0; unsigned d = 0u;
  double f = 0.0;
  int i, j;
#pragma scop
  for (i = 0; i < 60; i++)
    for (j = 0; j < 50; j++) {
      if (A[i][j] > 0) s += A[i][j];
      if (A[i][j] % 3 == 0) { p *= (unsigned)A[i][j] | 1u; }
      if (A[i][j] > m) m = A[i][j];
      if (A[i][j] <= lo) lo = A[i][j];
      if (A[i][j] < 0) c++;
      --d;
    }
  for (j = 0; j < 50; j++)
    if (L[j] > mixed) mixed = L[j];
  for (j = 0; j < 50; j++)
    if (D[j] > 1.0) f += D[j];
#pragma endscop
  printf("%ld %u %d %d %d %u %d %.17g\n", s, p, m, lo, c, d, mixed, f);
  return 0;
}
"""


def test_conditional_updates_and_increments_are_reductions(tmp_path):
    """``if (e) s += x;`` (a test that does not read ``s``), ``if (x > m) m = x;`` and
    ``c++`` are reductions: the 2-deep nest is parallel with their clauses, the output
    is the original's. Not ``if (L[j] > mixed) mixed = L[j]`` (a ``long`` converted to
    ``int``) nor a floating-point sum unasked."""
    outputs = assert_same_behaviour(tmp_path, CONDITIONAL_REDUCTIONS,
                                    modes={"tile-par": FLAG_SETS["tile-par"], "identity": FLAG_SETS["identity"]})
    text = outputs["tile-par"]
    assert text.count("#pragma omp parallel for") == 1, text
    assert all(f"reduction({clause})" in text for clause in ("+:s_wrapped, c, d", "*:p", "max:m", "min:lo")), text


COUNT_IF = r"""
#include <stdio.h>
#define THRESH 0.5
#define HALF 0.5
double D[3000]; int A[3000];
struct P { int n; double x; } p = {3, 0.75};
int main(void) {
  int i; long c1 = 0, c2 = 0, c3 = 0; int c4 = 0, c5 = 0;
  for (i = 0; i < 3000; i++) { D[i] = ((i * 37) % 101) / 100.0; A[i] = i % 7 - 3; }
#pragma scop
  for (i = 0; i < 3000; i++) {
    if (D[i] > 0.25) c1++;
    if (D[i] > THRESH) c2 += A[i];
    if (D[i] < 0.75 && A[i] > 0) c3 -= A[i] * 2;
  }
  for (i = 0; i < 3000; i++) {
    if (D[i] > 0.5) c4 += HALF;
    if (D[i] > 0.1) c5 += p.x;
  }
#pragma endscop
  printf("%ld %ld %ld %d %d\n", c1, c2, c3, c4, c5);
  return 0;
}
"""


def test_an_integer_update_under_a_floating_point_test_is_a_reduction(tmp_path):
    """``if (D[i] > 0.25) c1++;``: the test only picks the updates, which add integers:
    a sum (the loop was sequential, 'an integer updated with a value that may not be
    an integer'). Not ``c4 += HALF`` (a macro of 0.5) nor ``c5 += p.x`` (a double
    member): truncated at every step."""
    outputs = assert_same_behaviour(tmp_path, COUNT_IF, modes={"tile-par": FLAG_SETS["tile-par"]})
    text = outputs["tile-par"]
    assert text.count("#pragma omp parallel for") == 1 and "reduction(+:c1_wrapped, c2_wrapped, c3_wrapped)" in text, text


INTEGER_CASTS = r"""
#include <stdio.h>
#include <stdint.h>
#include <math.h>
typedef long idx_t;
typedef double real;
static inline double sq(double v) { return v * v; }
double x[5000];
void f(int n) {
  uint64_t s = 0; long t = 0; int c = 0; idx_t b = 0;
#pragma scop
  for (int i = 0; i < n; i++) {
    s += (uint64_t)sq(x[i]);
    t = t + (long)floor(x[i] * 0.5);
    if (x[i] > 1.0) c -= (int)(x[i] * 3.0);
    b += (idx_t)(_Bool)x[i];
  }
#pragma endscop
  printf("%llu %ld %d %ld\n", (unsigned long long)s, t, c, (long)b);
}
void g(int n) {
  long u = 0, v = 0, w = 0;
#pragma scop
  for (int i = 0; i < n; i++) {
    u += (long)x[i] * 0.5;
    v = (int)x[i] + 0.25 + v;
    w += (real)(x[i] * 0.5);
  }
#pragma endscop
  printf("%ld %ld %ld\n", u, v, w);
}
int main(void) {
  for (int i = 0; i < 5000; i++) x[i] = ((i * 7919) % 1013) * 0.37 - 20.0;
  int ns[] = {5000, 7, 1, 0, -3};
  for (int k = 0; k < 5; k++) { f(ns[k]); g(ns[k]); }
  return 0;
}
"""


def test_an_integer_update_by_a_cast_to_an_integer_type_is_a_reduction(tmp_path):
    """``s += (uint64_t)sq(x[i]);``, ``t = t + (long)floor(x[i] * 0.5);``: the cast
    converts each value before the sum, which adds integers, exact in any order (the
    loop was sequential: 'an integer updated with a value that may not be an integer').
    Also a cast to a typedef of an integer type (``(idx_t)``). Not ``u += (long)x[i] *
    0.5`` (the cast takes x[i] alone; the sum truncates at every step), ``v = (int)x[i] +
    0.25 + v`` nor ``w += (real)(x[i] * 0.5)`` (a typedef of double)."""
    outputs = assert_same_behaviour(tmp_path, INTEGER_CASTS, modes={"tile-par": FLAG_SETS["tile-par"]})
    f, g = outputs["tile-par"].split("void g(")
    assert "reduction(+:s, t_wrapped, c_wrapped, b_wrapped)" in f, f
    assert "reduction(" not in g, g


NARROW_SELECTIONS = r"""
#include <stdio.h>
short A[4000], B[4000];
unsigned char U[4000];
int main(void) {
  int i; short m = -32000, n = 32000, k = -32000; unsigned char u = 0;
  for (i = 0; i < 4000; i++) { A[i] = B[i] = i < 2000 ? 15000 : 20000; U[i] = (i * 37) % 251; }
  A[10] = B[10] = 1000;
#pragma scop
  for (i = 0; i < 4000; i++) {
    m = m > A[i] + B[i] ? m : A[i] + B[i];
    if (A[i] - B[i] - 9000 < n) n = A[i] - B[i] - 9000;
    if (A[i] > k) k = A[i];
    u = u < U[i] ? U[i] : u;
  }
#pragma endscop
  printf("%d %d %d %d\n", m, n, k, u);
  return 0;
}
"""


def test_a_narrow_selection_of_a_computed_value_is_no_reduction(tmp_path):
    """``short m; m = m > A[i] + B[i] ? m : A[i] + B[i];``: the sum is an int, which the
    assignment truncates, so the value kept depends on the order (``reduction(max:m)``
    printed 30000 at 2 threads, the original -25536). A selection of elements of the
    narrow type (``k``, ``u``) is still one."""
    outputs = assert_same_behaviour(tmp_path, NARROW_SELECTIONS, modes={"tile-par": FLAG_SETS["tile-par"]})
    text = outputs["tile-par"]
    assert "max:m" not in text and "min:n" not in text and "reduction(max:k)" in text, text
    [scop] = extract(NARROW_SELECTIONS, filename="narrow.c")
    accesses = ScopAccesses(scop)
    domain = scop.domain
    assert [reduction_of(scop, accesses, name, domain) for name in ("m", "n", "k", "u")] == [None, None, "max", "max"]


SELECTIONS_ACROSS_TYPES = r"""
#include <stdio.h>
#include <stddef.h>
int main(void) {
  size_t n = 10;
  int m = 5, k = -100000, u = 1000;
  long l = 5;
  short sh[10];
  unsigned char px[10];
  for (int j = 0; j < 10; j++) { sh[j] = (short)(j * 7919 % 65536 - 32768); px[j] = (unsigned char)(j * 31); }
#pragma scop
  for (size_t i = 0; i < n; i++)
    m = m > i ? m : i;
  for (size_t i = 0; i < n; i++) {
    k = sh[i] > k ? sh[i] : k;
    if (px[i] < u) u = px[i];
  }
  for (int j = 0; j < 10; j++)
    l = l > j ? l : j;
#pragma endscop
  printf("%d %d %d %ld\n", m, k, u, l);
  return 0;
}
"""


def test_a_selection_is_a_reduction_when_every_value_converts_to_the_scalars_type(tmp_path):
    """``int m; m = m > i ? m : i;`` with a ``size_t i`` compares in ``unsigned long``
    and stores an ``int``: its ``reduction(max:m)`` kept 5 at 2 threads where the loop
    keeps 9 (5 of 120 random selections of session 52 differed so). An ``int`` over
    ``short`` or ``unsigned char`` data and a ``long`` over an ``int`` iterator are
    exact in any order, and parallel."""
    outputs = assert_same_behaviour(tmp_path, SELECTIONS_ACROSS_TYPES, modes={"par": {"parallel": True}})
    text = outputs["par"]
    assert "max:m" not in text and "max:k" in text, text
    [scop] = extract(SELECTIONS_ACROSS_TYPES, filename="selections.c")
    accesses = ScopAccesses(scop)
    assert [reduction_of(scop, accesses, name, scop.domain) for name in ("m", "k", "u", "l")] == \
        [None, "max", "min", "max"]


SIGNED_REDUCTIONS = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  int *a = malloc(sizeof(int) * (n > 0 ? n : 1)), *c = malloc(sizeof(int) * (n > 0 ? n : 1));
  long long *b = malloc(sizeof(long long) * (n > 0 ? n : 1));
  /* the original's running sum and product stay in int; a partial sum or product of
     the second half (thread 2 of 2) does not: 1.5e9 twice, 65536 twice */
  for (int k = 0; k < n; k++) {
    a[k] = k == 0 ? -1500000000 : k == n / 2 || k == n / 2 + 1 ? 1500000000 : k < n / 2 ? 1 : -1;
    c[k] = k == 0 ? 0 : k == n / 2 || k == n / 2 + 1 ? 65536 : 1;
    b[k] = 3LL * k - 7;
  }
  int s = 0, p = 1, i;
  long t = 5;
#pragma scop
  for (i = 0; i < n; i++) {
    s += a[i];
    t = t - b[i] * 2;
  }
  for (i = 0; i < n; i++)
    p *= c[i];
#pragma endscop
  printf("%d %ld %d %d\n", s, t, p, i);
  free(a); free(b); free(c);
  return 0;
}
"""


@pytest.mark.parametrize("reassociate", [False, True])
def test_signed_integer_reductions_are_parallel_and_never_overflow(tmp_path, reassociate):
    """A signed sum or product of int's rank or wider is exact in any order modulo 2^N,
    but its partial sums in another order may overflow where the original's do not
    (here the second thread's: 3e9, 2^32), which C leaves undefined. The parallel loop
    updates unsigned long long copies of s, t and p, declared from them before it and
    converted back after it: UBSan (which found the overflow in the reduction clause
    on the scalars themselves) stays silent, at 1 and 2 threads, and the outputs equal
    the original's, at n = 1000, 7, 1 and 0."""
    source = tmp_path / "signed.c"
    source.write_text(SIGNED_REDUCTIONS)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True, reassociate=reassociate))
    assert "reduction(+:s_wrapped, t_wrapped) reduction(*:p_wrapped)" in result.text
    assert "signed integer reduction" not in result.summary()
    out = tmp_path / "out.c"
    out.write_text(result.text)
    flags = ["-O2", "-fsanitize=signed-integer-overflow", "-fno-sanitize-recover=all",
             "-DPOLYSCHED_PARALLEL_MIN_WORK=0"]
    built = {name: compile_c(path, tmp_path / name, cflags=flags, openmp=True)
             for name, path in (("orig", source), ("out", out))}
    assert all(b.ok for b in built.values()), [b.reason for b in built.values()]
    for n in ("1000", "7", "1", "0"):
        expected = run_binary(tmp_path / "orig", args=[n], threads=1, timeout=60)
        assert expected.ok, expected.reason
        for threads in (1, 2):
            got = run_binary(tmp_path / "out", args=[n], threads=threads, timeout=60)
            assert got.ok, f"n = {n}, {threads} threads: {got.reason} {got.stderr}"
            assert got.stdout == expected.stdout and got.stderr == "", (n, threads, got.stderr)


NARROW_PRODUCTS = r"""
#include <stdio.h>
#include <stdlib.h>
int P[1000];
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  for (int i = 0; i < 1000; i++) P[i] = (i % 100 == 7) ? 3 : 1;
  short s = 1;
  signed char c = 1;
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    s = s * P[i];
    c *= P[i] + 1;
  }
#pragma endscop
  printf("%d %d\n", s, c);
  return 0;
}
"""


def test_narrow_signed_products_run_on_an_unsigned_copy(tmp_path):
    """helper-60: gcc's OpenMP combiner multiplied two partial products of a short (and
    a signed char) in that type, where C computes in int: undefined (UBSan: "243 * 243
    cannot be represented in type 'short int'") at 2 threads. The loop reduces
    unsigned long long copies, whose value modulo the type's width is C's."""
    source = tmp_path / "narrow.c"
    source.write_text(NARROW_PRODUCTS)
    text = optimize(source, OptimizeOptions.from_flags(parallel=True)).text
    assert "reduction(*:s_wrapped, c_wrapped)" in text or "reduction(*:c_wrapped, s_wrapped)" in text, text
    out = tmp_path / "out.c"
    out.write_text(text)
    flags = ["-O2", "-fsanitize=undefined", "-fno-sanitize-recover=all", "-DPOLYSCHED_PARALLEL_MIN_WORK=0"]
    built = {name: compile_c(path, tmp_path / name, cflags=flags, openmp=True)
             for name, path in (("orig", source), ("out", out))}
    assert all(b.ok for b in built.values()), [b.reason for b in built.values()]
    for n in ("1000", "250", "1", "0"):
        expected = run_binary(tmp_path / "orig", args=[n], threads=1, timeout=60)
        assert expected.ok and expected.stderr == "", expected.reason
        for threads in (1, 2, 3):
            got = run_binary(tmp_path / "out", args=[n], threads=threads, timeout=60)
            assert got.ok and got.stderr == "", (n, threads, got.reason, got.stderr)
            assert got.stdout == expected.stdout, (n, threads)


def test_narrow_integer_reductions_keep_their_scalars(tmp_path):
    """short and unsigned reductions wrap as C defines (short computes in int and
    converts back): the reduction clause names the scalar itself."""
    narrow = tmp_path / "narrow.c"
    narrow.write_text(INT_REDUCTION.replace("unsigned long total", "short total").replace("%lu", "%d"))
    assert "reduction(+:total)" in optimize(narrow, OptimizeOptions.from_flags(tile=True, parallel=True)).text


BITWISE_REDUCTIONS = r"""
#include <stdio.h>
#include <stdlib.h>
int A[3000];
int main(int argc, char **argv) {
  int i, n = atoi(argv[1]);
  int x = 5, o = 0;
  unsigned char a = 0xff;
  for (i = 0; i < 3000; i++) A[i] = (i * 2654435) ^ (i << 9);
#pragma scop
  for (i = 0; i < n; i++) {
    x ^= A[i] << 1;
    o = o | A[i] & 0x0f0f;
    a &= A[i] | 0x81;
  }
#pragma endscop
  printf("%d %d %d\n", x, o, a);
  return 0;
}
"""


def test_bitwise_reductions_are_parallel(tmp_path):
    """| & ^ are exact in any order and never overflow: parallel with OpenMP's
    reduction clause, signed or narrow, the same outputs at 1 and 2 threads."""
    from compiled_runs import outputs_of
    source = tmp_path / "bits.c"
    source.write_text(BITWISE_REDUCTIONS)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "reduction(^:x)" in text and "reduction(|:o)" in text and "reduction(&:a)" in text
    sizes = [(0,), (1,), (2,), (2999,), (-3,)]
    assert outputs_of(text, tmp_path, "out", sizes) == outputs_of(BITWISE_REDUCTIONS, tmp_path, "orig", sizes)
    # (a _Bool updated with |= converts at every step: no reduction)
    as_bool = BITWISE_REDUCTIONS.replace("unsigned char a = 0xff;", "_Bool a = 1;")
    source.write_text(as_bool)
    assert "reduction(&:a)" not in optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text


SELECTIONS = r"""
#include <stdio.h>
#include <stdlib.h>
int A[90][70];
long L[900];
unsigned char U[900];
char C[900];
double D[900];
int main(int argc, char **argv) {
  int i, j, n = atoi(argv[1]), m = atoi(argv[2]);
  int hi = -7, lo = 1000000;
  long lh = 0;
  unsigned char uc = 3;
  char narrow = 10;
  double dm = -1.0;
  for (i = 0; i < 90; i++) for (j = 0; j < 70; j++) A[i][j] = ((i * 2654435 + j * 40503) % 100003) - 50000;
  for (i = 0; i < 900; i++) {
    L[i] = (long)i * 1234567891L % 998244353L - 400000000L; U[i] = (i * 37) % 251; C[i] = (char)(i * 7);
    D[i] = (i % 3 == 0) ? -0.0 : (i % 3 == 1 ? 0.0 : -1.0);
  }
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      hi = hi > A[i][j] ? hi : A[i][j];
      lo = A[i][j] < lo ? A[i][j] : lo;
    }
  for (i = 0; i < n * 10; i++) {
    lh = (lh < L[i]) ? L[i] : lh;
    uc = uc > U[i] ? U[i] : uc;
    narrow = narrow > A[0][i % 70] * 300 ? narrow : A[0][i % 70] * 300;
    dm = dm > D[i] ? dm : D[i];
  }
#pragma endscop
  printf("%d %d %ld %d %d %g\n", hi, lo, lh, uc, narrow, dm);
  return 0;
}
"""


def test_integer_max_and_min_selections_are_parallel_reductions(tmp_path):
    """`m = m > e ? m : e` of one integer type keeps the greatest value in any order:
    OpenMP's reduction(max:m), the same outputs at 1 and 2 threads. Not when the value
    is converted on assignment (a char taking ints modulo 256 keeps the last greater,
    not the greatest) nor for doubles (which of 0.0 and -0.0 it keeps depends on the
    order)."""
    from compiled_runs import outputs_of
    source = tmp_path / "sel.c"
    source.write_text(SELECTIONS)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "reduction(max:hi)" in text and "reduction(min:lo)" in text
    # (distributed from narrow and dm, which stay in order, lh and uc are reductions)
    assert "reduction(max:lh)" in text and "reduction(min:uc)" in text
    assert "max:narrow" not in text and "max:dm" not in text
    sizes = [(0, 0), (1, 1), (2, 3), (89, 70), (90, 70), (-3, 5)]
    assert outputs_of(text, tmp_path, "out", sizes) == outputs_of(SELECTIONS, tmp_path, "orig", sizes)
    alone = SELECTIONS.replace("    narrow = narrow > A[0][i % 70] * 300 ? narrow : A[0][i % 70] * 300;\n", "") \
        .replace("    dm = dm > D[i] ? dm : D[i];\n", "")
    source.write_text(alone)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "reduction(max:lh)" in text and "reduction(min:uc)" in text
    assert outputs_of(text, tmp_path, "out2", sizes) == outputs_of(alone, tmp_path, "orig2", sizes)


LOOP_START_SCALARS = r"""
#include <stdio.h>
#include <stdlib.h>
double a[100], b[100], c[100];
unsigned u[100];
int main(int argc, char **argv) {
  int i, j, n = atoi(argv[1]);
  double s = -5.0;
  unsigned h;
  for (i = 0; i < 100; i++) { a[i] = i * 0.5 - 7; u[i] = i * 2654435761u; }
#pragma scop
  for (i = 0, s = 1.0; i < n; i++) {
    s = s * 0.5 + a[i];
    b[i] = s;
  }
  for (i = n - 1, h = 7u, j = 0; i >= 0; i--, j++)
    h = h * 31u + u[i] + u[j];
  for (i = 0; i < n; i++)
    c[i] = b[i] * 2.0 + h;
#pragma endscop
  for (i = 0; i < 100; i++) printf("%.17g %.17g\n", b[i], c[i]);
  printf("%.17g %u %d %d\n", s, h, i, j);
  return 0;
}
"""


def test_a_scalar_set_in_a_loop_start_runs_before_the_loop(tmp_path):
    """helper-45: `for (i = 0, s = 1.0; ...)` with a double s was refused. C sets s once
    before the first test: the statement before the loop (beside a counter j too), and
    the loops that leave i and j at their final values keep their other starts."""
    from compiled_runs import outputs_of
    source = tmp_path / "starts.c"
    source.write_text(LOOP_START_SCALARS)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "for (i = 0         ; i < n; i++)" in text and "for (i = n - 1        , j = 0; i >= 0; i--, j++)" in text
    sizes = [(0,), (1,), (2,), (50,), (100,), (-1,)]
    assert outputs_of(text, tmp_path, "out", sizes) == outputs_of(LOOP_START_SCALARS, tmp_path, "orig", sizes)


DEREFERENCED_ARRAYS = r"""
#include <stdio.h>
#include <stdlib.h>
double C2[40], D3[40], M[8][8];
static void kernel(int n) {
  int i;
#pragma scop
  for (i = 1; i < n; i++) { *(C2 + i) = *(D3 + i - 1) * 2.0 + *(C2 + i - 1); *(D3 + i) = *D3 + i; }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  for (int q = 0; q < 40; q++) { C2[q] = q / 7.0; D3[q] = q / 3.0; }
  kernel(n);
  for (int q = 0; q < 40; q++) printf("%.17g %.17g\n", C2[q], D3[q]);
  return 0;
}
"""


def test_a_one_dimensional_array_is_read_through_a_dereference(tmp_path):
    """helper-47: `*(C2 + i)` of a declared `double C2[40]` was refused, the same code
    with a pointer parameter was not: both are the element C2[i]. (A row `*(M + i)` of a
    two-dimensional array is still no element.)"""
    from compiled_runs import outputs_of
    source = tmp_path / "deref.c"
    source.write_text(DEREFERENCED_ARRAYS)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "original code kept" not in text
    sizes = [(0,), (1,), (2,), (13,), (40,), (-3,)]
    assert outputs_of(text, tmp_path, "out", sizes) == outputs_of(DEREFERENCED_ARRAYS, tmp_path, "orig", sizes)
    source.write_text(DEREFERENCED_ARRAYS.replace("*(C2 + i) = ", "*(M + i) = "))
    with pytest.raises(ScopError, match=r"assignment target '\*\(M \+ i\)' is not an array element"):
        optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))


# -- found by the third probe: the start value's type, macros redefined or given with -D

NARROW_START = """#include <stdio.h>
int A[70000];
int main(int argc, char **argv) {
  volatile long long big = 65536LL * 65536 + 10;
  volatile int nv = 300;
  int n = nv;
  long long m = big;
  for (int i = 0; i < 70000; i++) A[i] = i % 1000;
#pragma scop
  for (unsigned char v = n; v < 100; v++)
    A[v] = A[v] * 2 + 1;
  for (short s = n * 219; s < 32767; s++)
    A[s] = A[s] + 3;
  for (int w = m; w < 20; w++)
    A[w] = A[w] - 1;
#pragma endscop
  for (int i = 0; i < 70000; i += 7) printf("%d\\n", A[i]);
  return 0;
}
"""


def test_the_start_value_is_converted_to_the_iterator_type(tmp_path):
    """``unsigned char v = n`` with n = 300 starts at 44; the output ran 'c0 = n' and
    updated nothing. Likewise a short from 65700 and an int from 2**32 + 10."""
    outputs = assert_same_behaviour(tmp_path, NARROW_START, modes={m: FLAG_SETS[m] for m in
                                                                  ("default", "tile-par", "isl-tile-par")})
    # n * 219 must fit a short, n an unsigned char (n >= 0 for the model: context)
    assert "n <= 149" in outputs["default"] and "m <= 2147483647" in outputs["default"]


REDEFINED = """#include <stdio.h>
double A[64][64];
#define S 2
#define N 40
#define IDX(i) (i)
void f1(double *B) {
#pragma scop
  for (int i = 0; i < N; i += S)
    for (int j = 1; j < N; j++)
      B[IDX(j)] = B[IDX(j)] + A[j][i];
#pragma endscop
}
#undef S
#undef N
#undef IDX
#define S 3
#define N 60
#define IDX(i) (2 * (i))
void f2(double *B) {
#pragma scop
  for (int i = 0; i < N; i += S)
    for (int j = 1; j < N / 2; j++)
      B[IDX(j) + 1] = B[IDX(j)] * 0.5 + A[i][j];
#pragma endscop
}
int main(void) {
  static double B[200];
  for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) A[i][j] = (i * 7 + j) % 5;
  f1(B); f2(B);
  for (int i = 0; i < 200; i++) printf("%.17g\\n", B[i]);
  return 0;
}
#if 0
#pragma scop
  this is not C, and the compiler never sees it
#pragma endscop
#endif
"""


def test_each_region_reads_the_macros_in_force_where_it_is(tmp_path):
    """The macro table was the file's last state: region 1 got step 3, and IDX's later
    body made its loop look parallel (a race). A region inside '#if 0' stopped the run."""
    from polysched.scop import extract
    scops = extract(REDEFINED)
    assert len(scops) == 2
    assert [s.parameter_values for s in scops] == [{"S": 2, "N": 40}, {"S": 3, "N": 60}]
    assert [str(s.context) for s in scops] == ["[S, N] -> {  : S = 2 and N > 0 }",
                                               "[S, N] -> {  : S = 3 and N > 0 }"]
    assert [s.statements[0].body for s in scops] == ["B[IDX(j)] = B[IDX(j)] + A[j][i];",
                                                     "B[IDX(j) + 1] = B[IDX(j)] * 0.5 + A[i][j];"]
    assert "-> B[1 + 2j]" in str(scops[1].statements[0].accesses[0].relation)     # IDX as region 2 has it
    assert_same_behaviour(tmp_path, REDEFINED, modes={m: FLAG_SETS[m] for m in ("default", "tile-par")})


STEP_FROM_A_MACRO = """#include <stdio.h>
#ifndef N
#define N 20
#endif
double A[N + 1][N + 1];
double B[N];
int main(void) {
  for (int i = 0; i <= N; i++) for (int j = 0; j <= N; j++) A[i][j] = i + 0.5 * j;
#pragma scop
  for (int i = 0; i < N; i += N / 4)
    for (int j = 0; j < sizeof(B) / sizeof(B[0]); j++)
      A[j][i] = A[j][i] * 2.0 + 1.0;
#pragma endscop
  for (int i = 0; i <= N; i++) for (int j = 0; j <= N; j++) printf("%.17g\\n", A[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("size", [None, 8, 40])
def test_steps_and_sizes_read_from_macros_are_checked(tmp_path, size):
    """A step 'N / 4' and 'sizeof(B)' were baked in at N = 20 without a check, so the
    output compiled with -DN=8 ran other iterations than the original."""
    original = tmp_path / "orig.c"
    original.write_text(STEP_FROM_A_MACRO)
    result = optimize(original, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "N == 20" in result.text
    out = tmp_path / "out.c"
    out.write_text(result.text)
    define = [] if size is None else [f"-DN={size}"]
    for opt in ("-O0", "-O2"):
        results = []
        for source in (original, out):
            binary = tmp_path / f"{source.stem}{opt}.bin"
            assert compile_c(source, binary, cflags=[opt, "-ffp-contract=off", *define], openmp=True).ok
            results.append([run_binary(binary, threads=t, timeout=60).stdout for t in (1, 2)])
        assert results[0] == results[1]


def test_sizeof_of_an_array_declared_under_another_value_is_refused():
    """'double B[N]' declared while N was 40, the region after '#define N 60': its
    sizeof is 40 elements, not 60 (the output wrote past the end)."""
    from polysched.scop import ScopError, extract
    text = ("#define N 40\ndouble B[N];\n#undef N\n#define N 60\nvoid f(void) {\n#pragma scop\n"
            "  for (int i = 0; i < sizeof(B) / sizeof(B[0]); i++)\n    B[i] = 0;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="sizeof"):
        extract(text)


# -- 8. loop counters under hand-written schedules ------------------------------------

@pytest.mark.parametrize("steps", [
    lambda p: p.skew("S1", 1, 0, 2 ** 30),                      # c1 = k + 2**30 * i
    lambda p: p.shift("S1", 0, 2 ** 30).shift("S1", 0, 2 ** 30),  # c0 starts at 2**31
    lambda p: p.set_schedule("{ S0[i, j] -> [i + 1099511627776, 0, j, 0]; "
                             "S1[i, k, j] -> [i + 1099511627776, 1, k, j] }"),
    # a tile loop shifted by 10**6 tiles of 10**6: the code computes 10**6 * c0 - 10**12
    lambda p: p.tile("S1", [10 ** 6]).shift("S1", 0, 10 ** 6),
])
def test_large_schedule_terms_get_wide_counters(steps):
    """A probe of the research API: the size check bounded the iterators, not the
    counters, which a skew by 2**30 or a shift by 2**40 takes past INT_MAX (wrong
    output, or SIGSEGV). Large coefficients and offsets now give long long counters,
    with the iterator bound scaled down by them."""
    import polysched as ps
    from polysched.bench import get
    q = steps(ps.Program.from_file(get("gemm").path))
    assert "for (long long c0" in q.region_code()
    for dataset in ("MINI", "SMALL"):
        result = q.verify(dataset)
        assert result.status == "equal", result.reason



SUMMED_SKEWS = r"""#include <stdio.h>
#include <stdlib.h>
double X[64];
int main(int argc, char **argv) {
  int lo = atoi(argv[1]), m = atoi(argv[2]);
  int a, b, c, d, e, f, g, h, k;
#pragma scop
  for (a = lo; a < lo + 2; a++)
   for (b = lo; b < lo + 2; b++)
    for (c = lo; c < lo + 2; c++)
     for (d = lo; d < lo + 2; d++)
      for (e = lo; e < lo + 2; e++)
       for (f = lo; f < lo + 2; f++)
        for (g = lo; g < lo + 2; g++)
         for (h = lo; h < lo + 2; h++)
          for (k = lo; k < lo + m; k++)
           X[k - lo] += 1.0;
#pragma endscop
  for (k = 0; k < m; k++) printf("%g\n", X[k]);
  return 0;
}
"""


def test_many_small_coefficients_add_up_to_wide_counters(tmp_path):
    """helper-11's probe: eight skews by 4 (k + 4a + ... + 4h) kept int counters, as no
    single coefficient was large, and the counter passed INT_MAX at lo = 65075262
    (256 255 instead of 256 256). The bound now sums a member's coefficients."""
    import polysched as ps
    from compiled_runs import outputs_of
    source = tmp_path / "skews.c"
    source.write_text(SUMMED_SKEWS)
    q = ps.Program.from_file(source)
    for depth in range(8):
        q = q.skew("S0", 8, depth, 4)
    assert "for (long long c8" in q.region_code()
    arguments = [(65075262, 2), (3, 4), (-5, 3)]
    assert outputs_of(q.c_code(), tmp_path, "new", arguments, threads=(1,)) == \
        outputs_of(SUMMED_SKEWS, tmp_path, "orig", arguments, threads=(1,))

ENUM_PROGRAM = r"""
#include <stdio.h>
enum { N = 40, M = N + 6, K, OFF = 'c' - 'a', NEG = -(1 << 2) };
double A[N][M], B[N][M];
static void kernel(int n) {
  enum { STEP = 3 };
  int i, j;
#pragma scop
  for (i = 1; i < N; i += STEP)
    for (j = OFF; j < K - 1; j++)
      A[i][j % M] = A[i - 1][(j + NEG + M) % M] * 0.5 + B[i][j - OFF];
  for (i = 0; i < n; i++)
    for (j = 0; j < M; j++)
      B[i][j] = A[i][j] + NEG;
#pragma endscop
}
static void shadowed(int K) {
  int i;
#pragma scop
  for (i = 0; i < K; i++)
    A[0][i] = A[1][i] + 1.0;
#pragma endscop
}
int main(void) {
  for (int n = 0; n <= N; n += 13) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++) { A[i][j] = (i * 7 + j) % 11; B[i][j] = (i + j * 3) % 5; }
    kernel(n);
    shadowed(n < M ? n : M);
    double s = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++) s += A[i][j] * (i + 1) + B[i][j] * (j + 2);
    printf("%d %a\n", n, s);
  }
  return 0;
}
"""


def test_enumeration_constants_in_bounds_steps_and_subscripts(tmp_path):
    """Enumerators (implicit values, character constants, negative, a local enum) in
    loop bounds, steps and `%` subscripts: the constants they stand for, not
    parameters; a parameter named like an enumerator hides it."""
    outputs = assert_same_behaviour(tmp_path, ENUM_PROGRAM, opts=("-O2",),
                                    modes={k: FLAG_SETS[k] for k in ("identity", "tile-par", "max-l2-unroll")})
    assert "% 46" in outputs["tile-par"] or "polysched" in outputs["tile-par"]


def test_linearised_subscripts_in_every_mode(tmp_path, capsys):
    """``A[i * n + j]`` over malloc'd buffers, read as rows of n (scop/delinearize.py):
    a product, a stencil, rows that overlap when j runs past n (the run-time check
    sends those calls to the original code), column-major subscripts with a macro and
    a 1-d access of the same array, and three dimensions with size_t sizes. Sizes 0,
    1, m > n and m < n, at 1 and 2 threads."""
    text = (Path(__file__).parent / "data" / "scop" / "linearised.c").read_text()
    outputs = assert_same_behaviour(tmp_path, text, opts=("-O2",))
    assert "#pragma omp parallel for" in outputs["tile-par"]
    assert "(((long long)(n)) - 1) * (n) + (n - 1)" in outputs["tile-par"]  # B's last element, overlap check
    # 32-bit unsigned sizes: C computes the subscript modulo 2**32, the exact value while
    # it stays below 2**32 (a run-time check, tests/test_unsigned_rows.py): rows of n
    wraps = text.replace("int main(void) {", "void wraps(unsigned n, unsigned m, double *A) {\n  unsigned i, j;\n"
                         "#pragma scop\n  for (i = 0; i < m; i++)\n    for (j = 0; j < n; j++)\n"
                         "      A[i * n + j] = 1.0;\n#pragma endscop\n}\nint main(void) {")
    [read] = [scop for scop in extract(wraps, filename="w.c") if scop.function == "wraps"]
    assert read.arrays["A"].linearized and len(read.arrays["A"].dims) == 2
    # widened once wrapped: no rows (next to regions it reads: kept as written, with a note)
    widened = wraps.replace("A[i * n + j]", "A[(unsigned long)(i * n) + j]")
    assert "wraps" not in {scop.function for scop in extract(widened, filename="w.c")}
    assert "non-affine product 'i * n'" in capsys.readouterr().err


POINTER_CELLS = r"""
#include <stdio.h>
void kernel(int n, double *A, double *B, double *sum, int *count) {
  int i;
#pragma scop
  for (i = 1; i < n; i++) {
    *(B + i) = *(A + i - 1) + *(i + A);
    *sum += *(B + i) * A[i];
    *count = *count + 1;
  }
#pragma endscop
}
int main(void) {
  double A[100], B[100], s = 0;
  int c = 0;
  for (int i = 0; i < 100; i++) { A[i] = i * 0.5; B[i] = 1; }
  kernel(100, A, B, &s, &c);
  kernel(50, A, A + 3, B + 7, &c);       /* B overlaps A, sum is in B */
  kernel(40, A, B, A + 30, &c);          /* sum is in A */
  kernel(0, A, B, &s, &c);
  double t = 0;
  for (int i = 0; i < 100; i++) t += A[i] * i + B[i];
  printf("%a %d %a\n", s, c, t);
  return 0;
}
"""


def test_pointer_dereferences_are_elements(tmp_path):
    """``*sum += ...``, ``*(B + i) = *(A + i - 1)``: the elements sum[0], B[i], A[i - 1]
    (they were refused), checked at run time against the arrays a pointer may reach:
    the calls where they overlap run the original code."""
    outputs = assert_same_behaviour(tmp_path, POINTER_CELLS, opts=("-O2",))
    assert "(const char *)&sum[0]" in outputs["tile-par"]
    assert "*sum += *(B + c" in outputs["tile-par"] or "*sum += *(B + " in outputs["tile-par"]


REMAINDER_LOOPS = r"""
#include <stdio.h>
void kernel(int n, int m, double *A, double *B) {
  int i, j;
#pragma scop
  for (i = 0; i + 4 <= n; i += 4) {
    B[i] = A[i] * 2.0;
    B[i + 1] = A[i + 1] * 2.0;
    B[i + 2] = A[i + 2] * 2.0;
    B[i + 3] = A[i + 3] * 2.0;
  }
  for (; i < n; i++)
    B[i] = A[i] * 2.0;
  for (j = m - 1; j >= 3; j -= 3)
    A[j] = B[j] + A[j - 1];
  for (; j >= 0; j--)
    A[j] = A[j] + 1.0;
#pragma endscop
}
int main(void) {
  double A[100], B[100];
  for (int n = -1; n < 12; n++) {
    for (int i = 0; i < 100; i++) { A[i] = i * 0.5; B[i] = -1; }
    kernel(n, n + 3, A, B);
    double t = 0; for (int i = 0; i < 100; i++) t += B[i] * (i + 1) + A[i] * (i + 2);
    printf("%d %a\n", n, t);
  }
  return 0;
}
"""


def test_remainder_loops_start_where_the_loop_before_ended(tmp_path):
    """``for (; i < n; i++)`` after ``for (i = 0; i + 4 <= n; i += 4)`` (a hand
    unrolled loop and its remainder; also stepping down by 3 then 1) was refused:
    its start is the value the loop before leaves i at, n - n % 4 here."""
    assert_same_behaviour(tmp_path, REMAINDER_LOOPS, opts=("-O2",))


MEMBER_MACRO = r"""
#include <stdio.h>
struct pt { double x, y; };
struct pt P[40][40];
#define FIELD(q, f) q.f
#define X(q) (q).x
void kernel(int n) {
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++)
      FIELD(P[i][j], x) = X(P[i - 1][j]) * 0.5 + FIELD(P[i][j - 1], y) + P[i][j].y;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++) { P[i][j].x = (i * 3 + j) % 7; P[i][j].y = (i + j * 5) % 11 * 0.25; }
  kernel(37);
  for (int i = 0; i < 40; i += 3)
    for (int j = 0; j < 40; j += 5) printf("%.17g\n", P[i][j].x);
  return 0;
}
"""


def test_members_reached_through_macros(tmp_path):
    """helper-28: ``FIELD(P[i], y)`` with ``#define FIELD(q, f) q.f`` was refused ("'P'
    is used whole and through its members"); the calls are read expanded."""
    assert {"P__x", "P__y"} <= set(extract(MEMBER_MACRO)[0].arrays)
    assert_same_behaviour(tmp_path, MEMBER_MACRO, opts=("-O2",))


def test_struct_members_are_variables(tmp_path):
    """``in->data[y * in->w + x]``, ``a->acc += a->v[i] * b.v[i]``: members of structs
    (through a pointer, or of a struct passed by value) were refused. Each is a
    variable of its own in the model (``in__w``), printed back as ``in->w``; the
    in-place call (in == out) runs the original code (overlap check)."""
    text = (Path(__file__).parent / "data" / "scop" / "struct_members.c").read_text()
    outputs = assert_same_behaviour(tmp_path, text, opts=("-O2",))
    guard = outputs["default"].split("#pragma scop", 1)[1]
    assert "(in->w) >= 1" in guard and "&out->data[(1LL) * (in->w) + (1)]" in guard
    assert "in__w" not in outputs["default"]


REVERSE_UNSIGNED = r"""
#include <stdio.h>
#include <stddef.h>
void f(unsigned n, size_t m, int k, double *A, double *B) {
  unsigned i;
  size_t j;
  unsigned char c;
#pragma scop
  for (i = n - 1; i < n; i--)
    A[i] = A[i + 1] + 1.0;
  for (j = m; j <= m; j--)
    B[j] = B[j] * 0.5 + A[j];
  for (c = k - 1; c < k; c--)
    B[c] = B[c] + 2.0;
#pragma endscop
}
int main(void) {
  double A[300], B[300];
  int sizes[][3] = {{0, 0, 0}, {1, 1, 1}, {5, 3, 7}, {9, 12, 255}, {17, 0, 256}, {250, 2, 300}};
  for (int s = 0; s < 6; s++) {
    for (int q = 0; q < 300; q++) { A[q] = q % 7; B[q] = q % 5; }
    f(sizes[s][0], sizes[s][1], sizes[s][2] < 256 ? sizes[s][2] : 0, A, B);
    double t = 0;
    for (int q = 0; q < 300; q++) t += A[q] * (q + 1) + B[q] * (q + 2);
    printf("%d %a\n", s, t);
  }
  return 0;
}
"""


def test_unsigned_loops_counting_down_to_zero(tmp_path):
    """``for (i = n - 1; i < n; i--)`` with unsigned i: below 0, i wraps around to its
    type's largest value, where ``i < n`` fails, ending the loop (unsigned, size_t,
    unsigned char). The front end refused it as unbounded; it now ends the domain at
    0 and assumes the condition fails at the wrapped value (checked at run time)."""
    outputs = assert_same_behaviour(tmp_path, REVERSE_UNSIGNED, opts=("-O2",))
    assert "4294967295" in outputs["default"]


STORE_INTO_A_POINTER = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct img { unsigned char *data; };
static void kern(int n, struct img *dst, struct img *src)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      dst->data[j * n + i] = src->data[i * n + j] + 1;
#pragma endscop
}
unsigned char buf[512] __attribute__((aligned(256)));
struct { unsigned char pre[64]; struct img S; unsigned char post[64]; } G;
int main(int argc, char **argv)
{
  int mode = atoi(argv[1]), n = 4;
  unsigned char *A = buf, *B = buf + 128;
  for (int k = 0; k < 128; k++) { A[k] = 10 + k; B[k] = 200 - k; }
  unsigned char *target = B, *start = A;
  unsigned char tb[8], sb[8];
  memcpy(tb, &target, 8); memcpy(sb, &start, 8);
  /* stores at positions p = j * 4 + i - 1 (dst = &G.S.data - 1): position q of the
     pointer is store p = q + 1; write B's address bytes, from A or from B */
  for (int q = 0; q < 8; q++) { int p = q + 1, i = p % 4, j = p / 4;
    A[i * 4 + j] = (unsigned char)(tb[q] - 1); B[i * 4 + j] = (unsigned char)(tb[q] - 1); }
  G.S.data = A;
  struct img D;
  D.data = mode ? (unsigned char *)&G.S.data - 1 : G.post;
  kern(n, &D, &G.S);
  unsigned long long c = 0;
  for (int k = 0; k < 64; k++) c = c * 31 + (mode ? G.post[k] : G.post[k]);
  printf("%llx %d %d\n", c, G.S.data == B, G.S.data == A);
  return 0;
}
"""


def test_a_written_block_is_checked_against_the_pointers_that_reach_arrays(tmp_path):
    """``dst->data`` over the bytes of ``src->data`` (char stores may change a pointer):
    the original reads through the changed pointer from its fifth store on, the
    interchanged loops from their second; the block was compared with src's block
    only, and the optimized program printed other values. The written block is now
    checked against the pointers held in memory (``&(src->data)``, ``&(dst->data)``)."""
    from compiled_runs import outputs_of
    path = tmp_path / "cell.c"
    path.write_text(STORE_INTO_A_POINTER)
    result = optimize(path, OptimizeOptions.from_flags(parallel=True))
    assert "#pragma omp parallel for" in result.text and "&(src->data)" in result.text
    # (mode 0 prints bytes of an address: only mode 1 is the same in every run)
    assert outputs_of(result.text, tmp_path, "new", [(1,)]) == outputs_of(STORE_INTO_A_POINTER, tmp_path, "orig", [(1,)])


STRUCT_SCALAR_REACHED = r"""
#include <stdio.h>
struct acc { double sum; int count; };
void add(struct acc *a, double *x, int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    a->sum += x[i];
    x[i] = a->sum * 0.5;
  }
#pragma endscop
}
int main(void) {
  double buf[40];
  struct acc a = {1.0, 0};
  for (int n = 0; n < 30; n += 7) {
    for (int k = 0; k < 40; k++) buf[k] = k % 5;
    add(&a, buf, n);
    add((struct acc *)(void *)(buf + 3), buf, n);  /* the member is x[3] */
    double t = 0;
    for (int k = 0; k < 40; k++) t += buf[k] * (k + 1);
    printf("%d %a %a\n", n, t, a.sum);
  }
  return 0;
}
"""


def test_a_struct_member_a_pointer_reaches_is_in_the_overlap_check(tmp_path):
    """``a->sum`` is memory: when ``x`` points at it (a->sum is x[3]) the loop reads
    what it wrote; the scalar member is one of the checked pairs (&(a->sum))."""
    outputs = assert_same_behaviour(tmp_path, STRUCT_SCALAR_REACHED, opts=("-O2",))
    assert "&(a->sum)" in outputs["default"]


STRUCT_MEMBER_BOUND_REACHED = r"""
#include <stdio.h>
struct S { int len; int flag; } s, w;
struct S *wp = &w;            /* &w: a pointer may write w.len */
double B[16];
static void k(int *a) {
  int i;
#pragma scop
  for (i = 0; i < s.len; i++) {
    B[i] = B[i] + 1.0;
    a[0] = 10;
  }
#pragma endscop
}
static void whole(void) {
  int i;
#pragma scop
  for (i = 0; i < w.len; i++)
    B[i] = B[i] * 2.0;
#pragma endscop
}
int main(void) {
  int other = 0;
  s.len = 5;
  k(&s.len);
  k(&other);
  w.len = 3;
  whole();
  printf("len=%d %d\n", s.len, w.len);
  for (int i = 0; i < 16; i++) printf("%g ", B[i]);
  printf("\n");
  return 0;
}
"""


def test_a_struct_member_bound_whose_address_is_taken_is_in_the_overlap_check(tmp_path):
    """A probe: ``a == &s.len`` makes the loop ``i < s.len`` run 10 times, not 5 (and
    ``&w`` reaches ``w.len``); the member is checked against the
    pointer written in the region, and the original runs when they overlap. ``&w``
    (the whole struct) counts for ``w.len``; ``&s.flag`` would not. (``w``, the second
    variable of its struct's definition, was not known as a struct: refused.)"""
    outputs = assert_same_behaviour(tmp_path, STRUCT_MEMBER_BOUND_REACHED, opts=("-O2",))
    assert extract(STRUCT_MEMBER_BOUND_REACHED)[0].address_taken == ("s__len",)
    assert extract(STRUCT_MEMBER_BOUND_REACHED)[1].address_taken == ("w__len",)
    # (static: a global of external linkage counts whatever this file does, another
    # file may take its address)
    assert extract(STRUCT_MEMBER_BOUND_REACHED.replace("k(&s.len)", "k(&s.flag)").replace(
        "struct S { int len; int flag; } s, w;", "static struct S { int len; int flag; } s, w;"))[0].address_taken == ()
    assert extract(STRUCT_MEMBER_BOUND_REACHED.replace("k(&s.len)", "k(&s.flag)"))[0].address_taken == ("s__len",)
    assert "&(s.len)" in outputs["default"] or "&s.len" in outputs["default"]


LIVE_AFTER = r"""
#include <stdio.h>
#define RESULT j
#define ADDR(x) &x
int A[100], B[100];
double D[100], E[100];
static int in_a_block(int n) {          /* the region inside a { } block */
  int j;
  {
#pragma scop
  for (j = 0; j < n; j++)
    A[j] = j;
#pragma endscop
  }
  return j;
}
static int through_a_macro(int n) {     /* read after the region as RESULT */
  int j;
#pragma scop
  for (j = 0; j < n; j++)
    A[j] = j + 1;
#pragma endscop
  return RESULT;
}
static int read_in_an_initialiser(int n) {
  int j = 7, acc = 0, t;
  for (t = 0; t < 2; t++) {
    int x = j;                          /* reads j, declares x */
    acc += x;
#pragma scop
    for (j = 0; j < n; j++)
      A[j] = j + 2;
#pragma endscop
  }
  return acc;
}
static int declared_and_not(int n) {
  int i = 5;
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = i;
  for (i = 0; i < n; i++)
    B[i] = i;
#pragma endscop
  return i;
}
static void cast_address(int n, double *out) {
  int i;
  double acc = 0.0;
  double *q = (double *)&acc;
#pragma scop
  for (i = 0; i < n; i++) {
    acc += D[i];
    E[i] = q[0];
  }
#pragma endscop
  *out = acc;
}
static void macro_address(int n) {
  int i;
  double acc = 0.0;
  double *q = ADDR(acc);
#pragma scop
  for (i = 0; i < n; i++) {
    acc += D[i];
    E[i] = q[0] + E[i];
  }
#pragma endscop
}
static void address_after(int n) {
  int i, t;
  double acc = 0.0, dummy = -1.0;
  double *q = &dummy;
  for (t = 0; t < 2; t++) {
#pragma scop
    for (i = 0; i < n; i++) {
      acc += D[i];
      E[i] = q[0] * 2.0 + E[i];
    }
#pragma endscop
    q = &acc;
  }
}
int main(void) {
  for (int i = 0; i < 100; i++) D[i] = i;
  for (int n = 0; n < 9; n += 4) {
    double out = 0;
    printf("%d %d %d %d\n", in_a_block(n), through_a_macro(n), read_in_an_initialiser(n), declared_and_not(n));
    cast_address(n, &out);
    macro_address(n);
    address_after(n);
    double s = 0;
    for (int i = 0; i < 100; i++) s += E[i] * (i + 1) + A[i] + B[i];
    printf("%a %a\n", s, out);
  }
  return 0;
}
"""


def test_iterators_read_and_addresses_taken_around_the_region(tmp_path):
    """A probe's programs (each was wrong): an iterator read after the region when the
    region sits in a { } block, through a macro (RESULT), in an initialiser
    (``int x = j;`` was taken for a declaration of j), or declared by one loop and
    not by another; an address taken through a cast (``(double *)&acc``), inside a
    macro (``ADDR(acc)``), or after the region inside an enclosing loop."""
    assert_same_behaviour(tmp_path, LIVE_AFTER, opts=("-O2",))


INEXACT_REDUCTIONS = r"""
#include <stdio.h>
#include <stdbool.h>
int A[200];
static int truncating(int n) {
  int i, s = 0;
#pragma scop
  for (i = 0; i < n; i++)
    s += A[i] * 0.5;
#pragma endscop
  return s;
}
static int boolean(int n) {
  int i;
  _Bool s = 0;
#pragma scop
  for (i = 0; i < n; i++)
    s += A[i];
#pragma endscop
  return s;
}
static int product_mod(int n) {
  int i, s = 1, t = 1000;
#pragma scop
  for (i = 0; i < n; i++) {
    s = s * A[i] % 1000;
    t = t * A[i] / 2;
  }
#pragma endscop
  return s + t;
}
static int counting(int n, double *B) {
  int i;
  unsigned c = 0;
#pragma scop
  for (i = 0; i < n; i++) {
    B[i] = A[i] * 0.5;
    c += A[i];
  }
#pragma endscop
  return (int)c;
}
int main(void) {
  double B[200];
  for (int i = 0; i < 200; i++) A[i] = (i % 2 ? -1 : 1) * (i % 7 + 1);
  for (int n = 0; n <= 200; n += 40)
    printf("%d %d %d %d %d\n", n, truncating(n), boolean(n), product_mod(n), counting(n, B));
  return 0;
}
"""


def test_integer_updates_that_are_no_reductions(tmp_path):
    """A probe's programs, each made ``reduction(...)`` and wrong at 2 threads: an int
    summed with a double (truncated at every step), a _Bool (``s = (s + a) != 0``),
    ``s = s * a % 1000`` and ``t = t * a / 2`` (the % and / apply to the product). They
    stay serial; an unsigned sum beside a double statement is still a reduction."""
    outputs = assert_same_behaviour(tmp_path, INEXACT_REDUCTIONS, opts=("-O2",))
    assert "reduction(+:c)" in outputs["tile-par"]
    assert outputs["tile-par"].count("reduction(") == 1


CLOSED_BLOCKS = r"""
#include <stdio.h>
int A[400];
double buf[200];
int gi = 77;
int N;
static double sum_of(int n, double *x) {
  double s = 0.25;
  { int s = 1; A[398] = s; }             /* int s in a closed block: s is a double here */
#pragma scop
  for (int i = 0; i < n; i++)
    s += x[i];
#pragma endscop
  return s;
}
static void narrow(int n) {
  unsigned char i;
  { int i = 1; A[397] = i; }
#pragma scop
  for (i = n; i > 0; i--)                /* i = (unsigned char)n */
    A[i] += i;
#pragma endscop
}
static void global_iterator(int n) {
  { int gi = 3; A[396] = gi; }
#pragma scop
  for (gi = 0; gi < n; gi++)
    A[gi] += 2;
#pragma endscop
}
static void not_restrict(int n, double *X, double *Y) {
  int i;
  { double *restrict X = 0; (void)X; }
#pragma scop
  for (i = 0; i < n; i++)
    Y[i] = X[i] * 2.0 + 1.0;
  for (i = 0; i < n; i++)
    X[i] = Y[i] + X[i];
#pragma endscop
}
static void enumerator_out_of_scope(void) {
  int i;
  { enum { N = 5 }; A[395] = N; }
#pragma scop
  for (i = 0; i < N; i++)                /* the global N */
    A[i] = A[i] + i + 1;
#pragma endscop
}
int main(void) {
  int sizes[] = {0, 1, 2, 7, 70, 300};
  for (int c = 0; c < 6; c++) {
    int n = sizes[c];
    for (int i = 0; i < 200; i++) buf[i] = i % 17;
    double s = sum_of(n < 200 ? n : 200, buf);
    narrow(n);
    global_iterator(n < 390 ? n : 390);
    not_restrict(n < 100 ? n : 100, buf + 10, buf + 9);
    N = n < 390 ? n : 390;
    enumerator_out_of_scope();
    long t = 0;
    for (int k = 0; k < 400; k++) t += (long)A[k] * (k + 1);
    double u = 0;
    for (int k = 0; k < 200; k++) u += buf[k] * (k + 1);
    printf("%d %a %ld %a %d\n", n, s, t, u, gi);
  }
  return 0;
}
"""


def test_declarations_in_blocks_closed_before_the_region_are_out_of_scope(tmp_path):
    """A probe's programs: ``{ int s = 1; }`` made the double s an integer (a parallel
    sum without --reassociate); ``{ int i; }`` hid an unsigned char iterator's type;
    ``{ int gi; }`` made the global iterator gi a dead local; ``{ double *restrict X; }``
    made the parameter X restrict (no overlap check); ``{ enum { N = 5 }; }`` replaced
    the global N. Blocks closed before the region declare nothing there."""
    outputs = assert_same_behaviour(tmp_path, CLOSED_BLOCKS, opts=("-O2",))
    assert "reduction" not in outputs["tile-par"]


ATTRIBUTE_HEADER = r"""
#include <stdio.h>
#define NOINLINE __attribute__((noinline, used))
int A[100], B[100];
__attribute__((noinline)) static void kernel(unsigned n, int m) {
  int i;
#pragma scop
  for (i = -1; i < n; i++)        /* unsigned comparison: -1 < n is false */
    A[i + 1] += 1;
  for (i = 0; i < m; i++)
    B[i] = A[i] * 2;
#pragma endscop
}
NOINLINE static void kernel2(unsigned n) {
  int i;
#pragma scop
  for (i = -1; i < n; i++)
    B[i + 1] += 3;
#pragma endscop
}
int main(void) {
  for (int n = 0; n < 40; n += 9) {
    kernel(n, n);
    kernel2(n);
    long s = 0;
    for (int k = 0; k < 100; k++) s += A[k] + 3L * B[k];
    printf("%d %ld\n", n, s);
  }
  return 0;
}
"""


def test_a_function_header_with_attributes_is_read(tmp_path):
    """A probe's program: ``__attribute__((noinline))`` (also through a macro) hid the
    header from the front end, so ``unsigned n`` was read as an int and ``-1 < n``
    as true: the loop ran. The attributes are now dropped before reading it."""
    assert_same_behaviour(tmp_path, ATTRIBUTE_HEADER, opts=("-O2",))


PROBE_ROUND_TWO = r"""
#include <stdio.h>
#define ADDR(x) (&(x))
enum { Z = sizeof(double) };
struct s { int n; double *d; };
double A[400], B[400];
static void unfolded_enumerator(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i + Z] += A[i] * Z;
#pragma endscop
}
static void members_of_one_struct(struct s *p, struct s *q) {
  int i;
#pragma scop
  for (i = 0; i < p->n; i++) {
    p->d[i] = p->d[i] + i;
    q->n = q->n - 1;
  }
#pragma endscop
}
static double parenthesised_address(int n) {
  int i;
  double acc = 0.0;
  double *q = ADDR(acc);
#pragma scop
  for (i = 0; i < n; i++) {
    acc += A[i];
    B[i] = q[0] + B[i];
  }
#pragma endscop
  return acc;
}
int main(void) {
  for (int i = 0; i < 400; i++) A[i] = i % 11;
  for (int n = 0; n < 40; n += 13) {
    double d[100] = {0};
    struct s a = {n, d};
    unfolded_enumerator(n);
    members_of_one_struct(&a, &a);
    double acc = parenthesised_address(n);
    double t = 0;
    for (int i = 0; i < 400; i++) t += B[i] * (i + 1);
    for (int i = 0; i < 100; i++) t += d[i];
    printf("%d %a %a %d\n", n, t, acc, a.n);
  }
  return 0;
}
"""


def test_a_second_probes_programs(tmp_path):
    """An enumerator whose value the front end does not fold (sizeof) read in a
    statement (the overlap check took &Z: no compile); p->n bounding a loop that writes
    q->n with p == q (now both in the overlap check); an address taken through
    ``#define ADDR(x) (&(x))`` (two parentheses)."""
    assert_same_behaviour(tmp_path, PROBE_ROUND_TWO, opts=("-O2",))


STRUCT_SCALARS = r"""
#include <stdio.h>
struct pair { double a; double b; };
struct acc { double sum; long count; };
struct pair v;
void f(int n, double *A, double *B, struct acc *s) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    v.a = A[i] * 0.5;
    B[i] = v.a + v.b;
  }
  for (i = 0; i < n; i++) {
    s->sum = s->sum + A[i];
    s->count += 1;
  }
#pragma endscop
}
int main(void) {
  double A[100], B[100];
  struct acc s = {0.25, 0};
  for (int n = -1; n <= 100; n += 33) {
    for (int k = 0; k < 100; k++) { A[k] = k % 9; B[k] = 0; }
    v.a = 1.0; v.b = 3.0;
    f(n, A, B, &s);
    double t = 0;
    for (int k = 0; k < 100; k++) t += B[k] * (k + 1);
    printf("%d %a %a %a %ld\n", n, t, v.a, s.sum, s.count);
  }
  return 0;
}
"""


def test_struct_member_scalars_are_never_private_and_reduced_in_a_copy(tmp_path):
    """``v.a`` written and read in every iteration looked private, and ``s->count += 1``
    a reduction: OpenMP's ``private(v__a)`` named the model's variable (no compile), and
    a private member would have lost the value the original leaves in ``v.a``. The
    count is a reduction now, on a local copy (test_cell_reductions.py); the
    floating-point sum into ``s->sum`` is none without --reassociate."""
    outputs = assert_same_behaviour(tmp_path, STRUCT_SCALARS, opts=("-O2",))
    region = outputs["tile-par"].split("#pragma scop", 1)[1].split("#pragma endscop")[0]
    assert "__" not in region and "private" not in region, region
    assert "s_sum_partial" not in region, region
    assert "reduction(+:s_count_partial)" in outputs["nofuse-par"], outputs["nofuse-par"]


def test_union_members_are_not_read_as_variables():
    """``u.a`` and ``u.b`` of a union are the same memory: as two variables of the
    model the write of one would not reach a read of the other (wrong output in
    every mode); they are refused."""
    text = ("union U { double a; double b; };\n"
            "void f(int n, double *A, double *B) {\n  int i;\n  union U u;\n  u.b = 0;\n"
            "#pragma scop\n  for (i = 0; i < n; i++) {\n    u.a = A[i];\n    B[i] = u.b * 2.0;\n  }\n"
            "#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="8:5: .*u.a"):
        extract(text, filename="u.c")


ARRAYS_OF_STRUCTS = r"""
#include <stdio.h>
struct pt { double x, y; double v[3]; };
struct cplx { float re, im; };
struct px { unsigned char r, g, b; float lum; };
struct pt cloud[40];
void move(int n, struct pt *p, double dt) {
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    p[i].x = p[i].x + dt * p[i].v[0];
    p[i].y = p[i].y + dt * p[i].v[1];
    for (k = 0; k < 3; k++)
      p[i].v[k] = p[i].v[k] * 0.5;
  }
#pragma endscop
}
void cmul(int n, int m, struct cplx a[n][m], struct cplx *b, struct cplx *c) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      c[j].re += a[i][j].re * b[i].re - a[i][j].im * b[i].im;
      c[j].im += a[i][j].re * b[i].im + a[i][j].im * b[i].re;
    }
#pragma endscop
}
void lum(int h, int w, struct px *in, float *out) {
  int y, x;
#pragma scop
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      in[y * w + x].lum = 0.25f * in[y * w + x].r + 0.5f * in[y * w + x].g + 0.25f * in[y * w + x].b;
  for (y = 1; y < h; y++)
    for (x = 0; x < w; x++)
      out[y * w + x] = in[y * w + x].lum - in[(y - 1) * w + x].lum;
#pragma endscop
}
void smooth(int t, int n) {
  int s, i;
#pragma scop
  for (s = 0; s < t; s++) {
    for (i = 1; i < n - 1; i++)
      cloud[i].y = (cloud[i - 1].x + cloud[i].x + cloud[i + 1].x) / 3.0;
    for (i = 1; i < n - 1; i++)
      cloud[i].x = cloud[i].y;
  }
#pragma endscop
}
int main(void) {
  static struct pt P[50];
  static struct cplx A[20][30], B[20], C[30], D[40];
  static struct px img[16 * 24];
  static float out[16 * 24];
  for (int k = 0; k < 50; k++) { P[k].x = k; P[k].y = k % 3; P[k].v[0] = 1; P[k].v[1] = k % 5; P[k].v[2] = 2; }
  for (int i = 0; i < 20; i++) for (int j = 0; j < 30; j++) { A[i][j].re = (i + j) % 7; A[i][j].im = (i * j) % 5; }
  for (int i = 0; i < 20; i++) { B[i].re = i % 3; B[i].im = i % 4; }
  for (int j = 0; j < 30; j++) { C[j].re = 0; C[j].im = 1; }
  for (int j = 0; j < 40; j++) { D[j].re = j; D[j].im = 1; cloud[j].x = j % 6; cloud[j].y = 0; }
  for (int k = 0; k < 16 * 24; k++) { img[k].r = k % 251; img[k].g = (k * 7) % 256; img[k].b = k % 13; }
  move(50, P, 0.25);
  move(0, P, 0.25);
  move(-3, P, 0.25);
  cmul(20, 30, A, B, C);
  cmul(20, 30, A, D, D + 1);          /* b and c overlap: the original runs */
  lum(16, 24, img, out);
  lum(0, 24, img, out);
  smooth(5, 40);
  smooth(2, 2);
  for (int k = 0; k < 50; k++) printf("%a %a %a %a %a\n", P[k].x, P[k].y, P[k].v[0], P[k].v[1], P[k].v[2]);
  for (int j = 0; j < 30; j++) printf("%a %a\n", C[j].re, C[j].im);
  for (int j = 0; j < 40; j++) printf("%a %a %a %a\n", D[j].re, D[j].im, cloud[j].x, cloud[j].y);
  for (int k = 0; k < 16 * 24; k++) printf("%a %a\n", img[k].lum, out[k]);
  return 0;
}
"""


def test_members_of_arrays_of_structs(tmp_path):
    """``p[i].x``, ``p[i].v[k]``, ``a[i][j].re``, ``in[y * w + x].lum`` and a global
    ``cloud[i].y`` were refused ("struct member access"). Each member is an array of its
    own; two members of one array never overlap, others are in the overlap check."""
    outputs = assert_same_behaviour(tmp_path, ARRAYS_OF_STRUCTS, opts=("-O2",))
    region = outputs["tile-par"].split("void cmul", 1)[1].split("#pragma endscop")[0]
    assert "#pragma omp parallel for" in region and "&b[n - 1].im + 1" in region
    assert "&c[0].re || (const char *)(&c[m - 1].im" not in region      # c's own members: no check


CONDITIONAL_STATEMENTS = r"""
#include <stdio.h>
#include <math.h>
int hist[16];
void clamp(int n, int m, double A[n][m], double *B, double *mx) {
  int i, j;
  double best = -1e300;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      if (A[i][j] < 0.0)
        A[i][j] = 0.0;
      else if (A[i][j] > 5.0) {
        A[i][j] = 5.0;   /* a comment inside */
        B[i] += 1.0;
      }
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      if (A[i][j] > best) best = A[i][j];
#pragma endscop
  *mx = best;
}
void sweep(int n, int m, double *x, double *y, double thr) {
  int i, j;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    t = x[i] * 2.0;
    if (fabs(t) > thr && i * i > m)
      y[i] = t;
    else
      y[i] = -t;
  }
  for (i = 1; i < n; i++)
    if (y[i - 1] > y[i]) { t = y[i]; y[i] = y[i - 1]; y[i - 1] = t; }
  for (i = 0; i < n; i++)
    for (j = 0; j < 16; j++)
      if ((i & 15) == j) hist[j]++;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (y[j] > x[i]) x[i] = x[i] + 0.5 * y[j];
#pragma endscop
}
int main(void) {
  static double A[30][40], B[30], x[100], y[100];
  double mx = 0;
  for (int i = 0; i < 30; i++) { B[i] = i; for (int j = 0; j < 40; j++) A[i][j] = ((i * 7 + j * 3) % 13) - 4.5; }
  for (int i = 0; i < 100; i++) x[i] = ((i * 37) % 23) - 11.5;
  clamp(30, 40, A, B, &mx);
  clamp(0, 40, A, B, &mx);
  sweep(100, 30, x, y, 7.0);
  sweep(-5, 30, x, y, 7.0);
  sweep(1, 0, x, y, 7.0);
  for (int i = 0; i < 30; i++) { printf("%a\n", B[i]); for (int j = 0; j < 40; j++) printf("%a\n", A[i][j]); }
  for (int i = 0; i < 100; i++) printf("%a %a\n", x[i], y[i]);
  for (int j = 0; j < 16; j++) printf("%d\n", hist[j]);
  printf("%a\n", mx);
  return 0;
}
"""


def test_conditions_that_read_the_data_are_statements(tmp_path):
    """``if (A[i][j] < 0.0) ... else if ...``, ``if (A[i][j] > best) best = A[i][j];``,
    ``if (fabs(t) > thr && i * i > m)``, a swap under a condition: refused before ("data-
    dependent expression"). Each ``if`` is one statement whose writes may happen; the
    clamp's loops stay parallel, the maximum's do not."""
    outputs = assert_same_behaviour(tmp_path, CONDITIONAL_STATEMENTS, opts=("-O2",))
    clamp = outputs["tile-par"].split("void clamp", 1)[1].split("#pragma endscop")[0]
    assert clamp.count("#pragma omp parallel for") == 1 and "if (A[" in clamp
    assert "else if (A[" in outputs["default"]



BIT_MASKS = r"""
#include <stdio.h>
void k(int n, unsigned m, double *A, double *B, double C[4][64]) {
  int i;
  unsigned u;
#pragma scop
  for (i = 0; i < (n & ~3); i++)
    A[i] = B[i] * 2.0;
  for (; i < n; i++)
    A[i] = B[i] + 1.0;
  for (i = 0; i < n; i++)
    C[i & 3][i >> 2] = A[i];
  for (u = 0; u < (m & ~7u); u++)
    B[u] = B[u] + C[u & 3][(u & ~3u) / 4];
  for (i = -7; i < (n & -8) - 7; i++)
    A[i + 7] = A[i + 7] + (double)(i & 7);
#pragma endscop
}
int main(void) {
  double A[64], B[64], C[4][64];
  int ns[] = {0, 1, 5, 13, 32, -3, 64};
  unsigned ms[] = {0, 3, 9, 31, 64};
  for (int t = 0; t < 7; t++) {
    for (int q = 0; q < 64; q++) { A[q] = 0; B[q] = q % 9; for (int r = 0; r < 4; r++) C[r][q] = r; }
    k(ns[t], ms[t % 5], A, B, C);
    double s = 0; for (int q = 0; q < 64; q++) { s += A[q] * (q + 1) + B[q] * (q + 3); for (int r = 0; r < 4; r++) s += C[r][q] * (r + q); }
    printf("%d %a\n", t, s);
  }
  return 0;
}
"""


def test_bit_masks_with_powers_of_two_are_affine(tmp_path):
    """``i < (n & ~3)``, ``C[i & 3][i >> 2]``, ``u & ~7u`` (unsigned), ``n & -8`` with
    negative n: a probe's ``n & ~3`` was refused ("operator '&'"). A mask of low bits
    is a floor modulo, its complement the value minus that modulo."""
    assert_same_behaviour(tmp_path, BIT_MASKS)



HEX_LITERALS = r"""
#include <stdio.h>
#define N 40
double A[N + 2], B[N + 2], C[N + 2];
int D[64];
void k(int n) {
  int i;
#pragma scop
  for (i = 1; i <= n; i++)
    A[i + 0xFFFFFFFF] = B[i] * 2.0;
  for (i = 0; i < n; i++)
    C[i] = A[i] + 1.0;
  for (i = 0; i < n + 0xFFFFFFFF; i++)
    D[i] += 1;
#pragma endscop
}
int main(void) {
  for (int q = 0; q < N + 2; q++) { A[q] = -1; B[q] = q; }
  k(N);
  k(1);
  for (int q = 0; q < N + 2; q++) printf("%.17g %.17g %d\n", A[q], C[q], D[q]);
  return 0;
}
"""


def test_hexadecimal_literals_too_large_for_int_are_unsigned(tmp_path):
    """``0xFFFFFFFF`` is an ``unsigned int``: ``i + 0xFFFFFFFF`` is ``i - 1`` in C. Read
    as 4294967295, a bound ran 4.3e9 times (a crash) and a subscript lost a dependence
    (wrong output with ``fuse=max``). Now the sum is exact only where it does not wrap
    (checked at run time), and the original runs here."""
    assert_same_behaviour(tmp_path, HEX_LITERALS, opts=("-O2",))


COMMENT_AND_SPLICE = r"""#include <stdio.h>
#define N 20
double A[N][N];
void k(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[j][i /* mid */ ] = A[j] \
[i] * 0.5 + i;
#pragma endscop
}
int main(void) {
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) A[a][b] = (a * 3 + b) % 7;
  k(N);
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) printf("%.17g\n", A[a][b]);
  return 0;
}
"""


def test_a_comment_and_a_line_splice_in_one_statement(tmp_path):
    """The comment was dropped after the newlines were folded, so the backslash of the
    splice stayed in the output, which did not compile."""
    assert_same_behaviour(tmp_path, COMMENT_AND_SPLICE, opts=("-O2",))



UNSIGNED_MACROS = r"""#include <stdio.h>
#define M 10u
#define S (sizeof(double) + 2)
int A[64], B[64];
void k(int n) {
  int i;
#pragma scop
  for (i = -3; i < M; i++)
    A[i + 3] += 1;
  for (i = -2; i < S + n; i++)
    B[i + 2] += 1;
#pragma endscop
}
int main(void) {
  k(5);
  for (int a = 0; a < 20; a++) printf("%d %d\n", A[a], B[a]);
  return 0;
}
"""


def test_unsigned_constants_inside_macros_are_unsigned(tmp_path):
    """``#define M 10u``: ``i < M`` with ``i`` from -3 compares in unsigned arithmetic
    (no iteration in C); read as signed, the loop ran 13 times (probe). Likewise a
    ``sizeof`` inside a macro."""
    assert_same_behaviour(tmp_path, UNSIGNED_MACROS, opts=("-O2",))


INITIALISED_GLOBALS = r"""#include <stdio.h>
#define N 40
static const double W[5] = {0.1, 0.2, 0.4, 0.2, 0.1};
double M[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
struct P { double q; int n; } s = { 1.5, 3 };
double A[N][N], B[N][N];
void k(int n) {
  int i, j, t;
#pragma scop
  for (i = 2; i < n - 2; i++)
    for (j = 1; j < n - 1; j++)
      B[i][j] = W[0] * A[i - 2][j] + W[1] * A[i - 1][j] + W[2] * A[i][j] + W[3] * A[i + 1][j] + W[4] * A[i + 2][j]
              + M[1][0] * A[i][j - 1] + M[1][2] * A[i][j + 1] + s.q;
#pragma endscop
}
int main(void) {
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) A[a][b] = (a * 3 + b) % 7;
  k(N);
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) printf("%.17g\n", B[a][b]);
  return 0;
}
"""


def test_globals_with_initialisers_and_structs_declared_with_their_definition(tmp_path):
    """``static const double W[5] = {...};`` and ``struct P {...} s = {...};`` were not
    read (the braces split the declaration): W was an undeclared array and ``s.q`` was
    refused."""
    outputs = assert_same_behaviour(tmp_path, INITIALISED_GLOBALS, opts=("-O2",))
    assert "#pragma omp parallel for" in outputs["tile-par"]



CHARACTER_CONSTANTS = r"""#include <stdio.h>
int A[400], B[400];
char S[26][8];
void k(int n) {
  int i, c;
#pragma scop
  for (i = 0; i < n + 'a' - 'A'; i++)
    A[i] += 1;
  for (c = 'a'; c <= 'z'; c++)
    S[c - 'a'][0] = c;
  for (i = ' '; i < '0' + n; i++)
    B[i - ' '] = B[i - ' '] + i;
#pragma endscop
}
int main(void) {
  k(10); k(300);
  for (int q = 0; q < 400; q++) printf("%d %d\n", A[q], B[q]);
  for (int q = 0; q < 26; q++) printf("%d\n", S[q][0]);
  return 0;
}
"""


def test_plain_character_constants_are_integers(tmp_path):
    """``n + 'a' - 'A'``, ``for (c = 'a'; c <= 'z'; c++)``: refused before ("non-integer
    constant"). Escapes stay refused: ``'\\xff'`` is -1 or 255 by the machine."""
    assert_same_behaviour(tmp_path, CHARACTER_CONSTANTS, opts=("-O2",))
    with pytest.raises(ScopError, match="character constant '.xff'"):
        extract(CHARACTER_CONSTANTS.replace("'a' - 'A'", "'\\xff'"), filename="c.c")


TYPEDEF_ARRAYS = r"""#include <stdio.h>
#define N 30
typedef double row_t[N];
typedef double mat_t[N][N];
row_t M[N];
mat_t Q;
double V[N];
void k(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      V[i] = V[i] + M[i][j] * Q[j][i];
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      M[i][j] = M[i - 1][j] + Q[i][j] * V[j];
#pragma endscop
}
int main(void) {
  for (int a = 0; a < N; a++) { V[a] = a; for (int b = 0; b < N; b++) { M[a][b] = (a * 3 + b) % 7; Q[a][b] = (a + b) % 5 * 0.5; } }
  k(N);
  for (int a = 0; a < N; a++) { printf("%.17g\n", V[a]); for (int b = 0; b < N; b++) printf("%.17g\n", M[a][b]); }
  return 0;
}
"""

TYPEDEF_POINTERS = r"""#include <stdio.h>
#define N 40
typedef double *dptr;
typedef double real;
double G[N + 2];
void k(int n, dptr A, dptr B, real *C) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i] * 0.5 + C[i + 1];
#pragma endscop
}
int main(void) {
  for (int a = 0; a < N + 2; a++) G[a] = a;
  k(N, G + 1, G, G);
  for (int a = 0; a < N + 2; a++) printf("%.17g\n", G[a]);
  return 0;
}
"""


@pytest.mark.parametrize("text", [TYPEDEF_ARRAYS, TYPEDEF_POINTERS], ids=["arrays", "pointers"])
def test_array_and_pointer_typedefs_are_resolved(tmp_path, text):
    """``typedef double row_t[N]; row_t M[N];`` was "1 dimension(s) accessed with 2", and
    a ``dptr`` parameter (``typedef double *dptr``) "a scalar accessed with 1 subscript"
    (probe). ``k(N, G + 1, G, G)`` overlaps: the original runs."""
    assert_same_behaviour(tmp_path, text, opts=("-O2",))



# A probe's programs on conditional reads and writes: a read in a branch of a
# data-dependent if (1) or a ?: arm (2) was loaded before the loop, an element written
# only under a condition (3) was stored back after it (a read-only page: the original
# never writes it); the skeleton that leaves live iterators at their final values
# blanked if statements up to their first ';' (4-7: no compile, a wrong j, an
# IndexError).
CONDITIONAL_ACCESS_PROGRAMS = [r"""/* data-dependent if guards the only read of B; the optimizer hoists B[i] out of the
   j loop unconditionally (double B_r0 = B[c2];) -> reads memory the original never reads */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
void k(int n, int m, double A[64][64], double *B) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      if (A[i][j] > 5.0) A[i][j] = A[i][j] * B[i];
#pragma endscop
}
static double A[64][64];
int main(void) {
  int ns[] = {0, 1, 7, 64, 20};
  int ms[] = {3, 1, 64, 64, 5};
  for (int s = 0; s < 5; s++) {
    for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) A[i][j] = cos(i * 0.3 - j * 1.1 + s);
    k(ns[s], ms[s], A, NULL);   /* no element exceeds 5: B is never read */
    double sum = 0;
    for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) sum += A[i][j];
    printf("%d %a\n", s, sum);
  }
  return 0;
}
""",
r"""/* the ternary's B[i] is read only when A[i][j] > 5 (never here); the optimizer hoists it
   out of the j loop unconditionally (double B_r0 = B[c0];) -> segfault with B == NULL */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
void k(int n, int m, double A[64][64], double *B) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = A[i][j] > 5.0 ? A[i][j] * B[i] : A[i][j] + 1;
#pragma endscop
}
static double A[64][64];
int main(void) {
  int ns[] = {0, 1, 7, 64, 20};
  int ms[] = {3, 1, 64, 64, 5};
  for (int s = 0; s < 5; s++) {
    for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) A[i][j] = cos(i * 0.3 - j * 1.1 + s);
    k(ns[s], ms[s], A, NULL);
    double sum = 0;
    for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) sum += A[i][j];
    printf("%d %a\n", s, sum);
  }
  return 0;
}
""",
r"""/* S[i] is written only under a data-dependent if that never holds; the optimizer promotes
   S[i] to a register across the j loop and stores it back unconditionally (S[c0] = S_r0;)
   -> writes memory the original never writes (read-only page here: segfault) */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
void k(int n, int m, double A[64][64], double *S) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      if (A[i][j] > 50.0) S[i] = A[i][j];
#pragma endscop
}
static double A[64][64];
int main(void) {
  int ns[] = {0, 1, 7, 64, 20};
  int ms[] = {3, 1, 64, 64, 5};
  double *S = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (int i = 0; i < 64; i++) S[i] = -i;
  mprotect(S, 4096, PROT_READ);          /* the original never writes S */
  for (int s = 0; s < 5; s++) {
    for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) A[i][j] = cos(i * 0.3 - j * 1.1 + s);
    k(ns[s], ms[s], A, S);
    double sum = 0;
    for (int i = 0; i < 64; i++) for (int j = 0; j < 64; j++) sum += A[i][j];
    for (int i = 0; i < 64; i++) sum += S[i];
    printf("%d %a\n", s, sum);
  }
  return 0;
}
""",
r"""/* the iterator i is read after the region; the re-run of the original loops "with empty
   bodies" blanks only the first branch of the if/else: "else B[i] = A[i];" remains -> the
   output does not compile */
#include <stdio.h>
void k(int n, double *A, double *B, int *last) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] > 0) B[i] = A[i] * 2; else B[i] = A[i];
#pragma endscop
  *last = i;
}
int main(void) {
  double A[10], B[10]; int last;
  for (int i = 0; i < 10; i++) { A[i] = i - 4.5; B[i] = 0; }
  k(10, A, B, &last);
  printf("%d\n", last);
  for (int i = 0; i < 10; i++) printf("%a\n", B[i]);
  return 0;
}
""",
r"""/* crash: polysched exits 3 with "internal error: IndexError: list index out of range"
   (iterator skeleton blanking of a braced data-dependent if eats the loop's closing brace) */
#include <stdio.h>
void k(int n, double *A, double *B, double *C, int *last) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    if (A[i] > 0) { B[i] = A[i] * 2; C[i] += 1; }
  }
  for (j = 0; j < n; j++)
    C[j] += 10;
#pragma endscop
  *last = i + j;
}
int main(void) {
  double A[10], B[10], C[10]; int last;
  for (int i = 0; i < 10; i++) { A[i] = i - 4.5; B[i] = 0; C[i] = 0; }
  k(10, A, B, C, &last);
  printf("%d\n", last);
  for (int i = 0; i < 10; i++) printf("%a %a\n", B[i], C[i]);
  return 0;
}
""",
r"""/* the iterator skeleton ("leave the loop iterators at their final values") blanks each
   statement up to the first ';' at brace depth 0: for a braced data-dependent if it runs
   past the '}' and swallows the whole next loop 'for (j ...) C[j] = 2;' -> j keeps its old value */
#include <stdio.h>
void k(int n, double *A, double *B, double *C, int *out) {
  int i, j = -7;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] > 0) { B[i] = A[i] * 2; }
  for (j = 0; j < n; j++)
    C[j] = 2;
#pragma endscop
  out[0] = i;
  out[1] = j;
}
int main(void) {
  double A[10], B[10], C[10]; int out[2];
  for (int i = 0; i < 10; i++) { A[i] = i - 4.5; B[i] = 0; C[i] = 0; }
  k(10, A, B, C, out);
  printf("i=%d j=%d\n", out[0], out[1]);
  for (int i = 0; i < 10; i++) printf("%a %a\n", B[i], C[i]);
  return 0;
}
""",
r"""/* crash: polysched exits 3 "internal error: IndexError: list index out of range" (traceback with --debug); same skeleton blanking as bug_4-6 */
#include <stdio.h>
void k(int n, double *A, double *B, double *C, int *last) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    if (A[i] > 0) { B[i] = A[i] * 2; C[i] += 1; }
  }
  for (j = 0; j < n; j++)
    if (A[j] > 1) {
      B[j] += 1; C[j] += 10;
    }
#pragma endscop
  *last = i + j;
}
int main(void) {
  double A[10], B[10], C[10]; int last;
  for (int i = 0; i < 10; i++) { A[i] = i - 4.5; B[i] = 0; C[i] = 0; }
  k(10, A, B, C, &last);
  printf("%d\n", last);
  for (int i = 0; i < 10; i++) printf("%a %a\n", B[i], C[i]);
  return 0;
}
"""]


@pytest.mark.parametrize("index", range(len(CONDITIONAL_ACCESS_PROGRAMS)))
def test_conditional_accesses_are_never_made_unconditional(tmp_path, index):
    modes = {m: FLAG_SETS[m] for m in ("identity", "default", "tile-par", "max-l2-unroll")}
    assert_same_behaviour(tmp_path, CONDITIONAL_ACCESS_PROGRAMS[index], modes=modes, opts=("-O2",))



# A probe's integer updates that are no sums: the floating value came through a macro
# (cnt += X[i] * HALF, HALF (-1.5)) or a cast to a typedef of double; each became
# reduction(+:cnt), wrong at 1 thread already.
HIDDEN_FLOATING_UPDATES = [r"""/* int cnt += X[i] * HALF with #define HALF (-1.5): C converts back to int (truncating) at
   every step, but the macro hides the floating constant from the inexact-update check, so
   the loop becomes "reduction(+:cnt)" -> different result even with 1 thread */
#include <stdio.h>
#define HALF (-1.5)
int cnt;
void k(int n, int *X, int *Y) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    Y[i] = X[i] + 1;
    cnt += X[i] * HALF;
  }
#pragma endscop
}
int X[200], Y[200];
int main(void) {
  int ns[] = {0, 1, 7, 64, 200};
  for (int s = 0; s < 5; s++) {
    for (int i = 0; i < 200; i++) { X[i] = (i * 7 + s) % 5 - 1; Y[i] = 0; }
    cnt = 5;
    k(ns[s], X, Y);
    printf("n=%d cnt=%d\n", ns[s], cnt);
  }
  return 0;
}
""",
r"""/* int cnt += (real2)X[i] / 2 with typedef double real; typedef real real2: the cast through a
   typedef chain hides the floating-point division from the inexact-update check -> the loop
   becomes reduction(+:cnt) although C truncates to int at every step */
#include <stdio.h>
typedef double real;
typedef real real2;
int cnt;
void k(int n, int *X, int *Y) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    Y[i] = X[i] + 1;
    cnt += (real2)X[i] / 2;
  }
#pragma endscop
}
int X[200], Y[200];
int main(void) {
  int ns[] = {0, 1, 7, 64, 200};
  for (int s = 0; s < 5; s++) {
    for (int i = 0; i < 200; i++) { X[i] = (i * 7 + s) % 5 - 3; Y[i] = 0; }
    cnt = 5;
    k(ns[s], X, Y);
    printf("n=%d cnt=%d\n", ns[s], cnt);
  }
  return 0;
}
"""]


@pytest.mark.parametrize("index", range(len(HIDDEN_FLOATING_UPDATES)))
def test_integer_updates_with_hidden_floating_values_are_no_reductions(tmp_path, index):
    modes = {m: FLAG_SETS[m] for m in ("default", "tile-par", "nofuse-par")}
    outputs = assert_same_behaviour(tmp_path, HIDDEN_FLOATING_UPDATES[index], modes=modes, opts=("-O2",))
    assert "reduction(" not in outputs["nofuse-par"].split("#pragma scop", 1)[1]



# Struct declarations a probe found refused: an anonymous struct's variable
# (struct { ... } coef), an array declared with its struct's definition
# (struct W { ... } tbl[4] = ...), typedefs of a struct tag (typedef struct W W_t;
# typedef W_t Wrow[4]), and a struct type the function defines (with typedef chains,
# character constants and a data-dependent if around it).
STRUCT_DECLARATIONS = [r"""#include <stdio.h>
#include <math.h>
typedef double real;
typedef real vec[64];
typedef vec mat[64];
typedef const real creal;
typedef real *rptr;
typedef rptr rptr2;
static const double W[5] = {0.1, 0.2, 0.4, 0.2, 0.1};
static int hist['z' + 100];
mat M;
struct S { double acc; int count; } st = {0.0, 0};
void k(int n, vec *V, rptr2 out, const char *txt) {
  int i, c, j;
  struct Loc { double a, b; } loc = {1.5, -2.0};
#pragma scop
  for (c = 'a'; c <= 'z'; c++)
    hist[c] = 0;
  for (i = 0; i < n; i++)
    if (txt[i] >= 'a' && txt[i] <= 'e') hist[i + 'a'] += txt[i] - 'a';
  for (i = 2; i < n - 2; i++)
    for (j = 0; j < 64; j++)
      M[i][j] = W[0] * V[i-2][j] + W[1] * V[i-1][j] + W[2] * V[i][j] + W[3] * V[i+1][j] + W[4] * V[i+2][j];
  for (i = 0; i < n; i++) {
    out[i] = M[i][i] * loc.a + loc.b;
    st.acc += out[i];
    st.count++;
  }
  for (c = 'A'; c < 'A' + 8; c++)
    out[c - 'A'] += hist[c + 32];
#pragma endscop
}
static vec V0[64]; static double O[64]; static char T[64];
int main(void) {
  int ns[] = {0, 1, 3, 5, 64, 17, -2};
  for (int s = 0; s < 7; s++) {
    for (int i = 0; i < 64; i++) { for (int j = 0; j < 64; j++) { V0[i][j] = sin(i + j * s); M[i][j] = 0; } O[i] = i; T[i] = 'a' + (i * 7 + s) % 26; }
    st.acc = 0.5; st.count = 3;
    k(ns[s], V0, O, T);
    printf("n=%d acc=%a count=%d\n", ns[s], st.acc, st.count);
    for (int i = 0; i < 64; i++) { for (int j = 0; j < 64; j++) printf("%a ", M[i][j]); printf("| %a\n", O[i]); }
    for (int c = 0; c < 'z' + 100; c++) printf("%d ", hist[c]);
    printf("\n");
  }
  return 0;
}
""",
r"""#include <stdio.h>
#include <math.h>
struct { double a, b; } coef = {0.25, -1.5};
static const struct W { double w; int k; } tbl[4] = {{0.1, 1}, {0.2, 2}, {0.3, 3}, {0.4, 0}};
struct Acc { double sum; long cnt; } acc = {0, 0};
typedef struct W W_t;
typedef W_t Wrow[4];
Wrow grid[4];
void k(int n, double *A, double *B) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < 4; j++)
      B[i] += coef.a * A[i + j] * tbl[j].w + coef.b + grid[j][i & 3].w;
  for (i = 0; i < n; i++) {
    if (B[i] > 0) { acc.sum += B[i]; acc.cnt++; }
  }
  for (i = 0; i < 4; i++)
    for (j = 0; j < 4; j++)
      grid[i][j].k += (int)B[j];
#pragma endscop
}
static double A[200], B[200];
int main(void) {
  int ns[] = {0, 1, 7, 64, -2, 100, 3, 4, 5, 6, -7};
  for (int s = 0; s < 11; s++) {
    for (int i = 0; i < 200; i++) { A[i] = sin(i * 2.1 + s); B[i] = cos(i + s); }
    for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) { grid[i][j].w = i - j * 0.5; grid[i][j].k = i * j; }
    acc.sum = 1; acc.cnt = 2;
    k(ns[s], A, B);
    printf("%a %ld\n", acc.sum, acc.cnt);
    for (int i = 0; i < 200; i++) printf("%a\n", B[i]);
    for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) printf("%d ", grid[i][j].k);
    printf("\n");
  }
  return 0;
}
""",
r"""#include <stdio.h>
struct W { double w; int k; } tbl[4] = {{0.1, 1}, {0.2, 2}, {0.3, 3}, {0.4, 0}};
void k(int n, double *B) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < 4; j++)
      B[i] += tbl[j].w * tbl[j].k;
#pragma endscop
}
int main(void) { double B[10] = {0}; k(10, B); for (int i = 0; i < 10; i++) printf("%a\n", B[i]); return 0; }
""",
r"""#include <stdio.h>
struct W { double w; int k; };
typedef struct W W_t;
W_t grid[4];
void k(int n, double *B, W_t *g) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < 4; j++)
      B[i] += grid[j].w * g[j].k;
#pragma endscop
}
int main(void) { double B[10] = {0}; k(10, B, grid); for (int i = 0; i < 10; i++) printf("%a\n", B[i]); return 0; }
"""]


@pytest.mark.parametrize("index", range(len(STRUCT_DECLARATIONS)))
def test_struct_variables_declared_with_definitions_or_typedefs(tmp_path, index):
    modes = {m: FLAG_SETS[m] for m in ("identity", "default", "tile-par", "max-l2-unroll")}
    assert_same_behaviour(tmp_path, STRUCT_DECLARATIONS[index], modes=modes, opts=("-O2",))


IMAGE_FLIP = r"""
#include <stdio.h>
#include <stdlib.h>
void flip(int w, int h, int *px) {
  int x, y, t;
#pragma scop
  for (y = 0; y < h; y++)
    for (x = 0; x < w / 2; x++) {
      t = px[y * w + x];
      px[y * w + x] = px[y * w + w - 1 - x];
      px[y * w + w - 1 - x] = t;
    }
#pragma endscop
}
int main(void) {
  int sizes[][2] = {{0, 0}, {1, 1}, {1, 5}, {3, 2}, {2, 3}, {7, 9}, {33, 20}, {64, 3}};
  for (int s = 0; s < 8; s++) {
    int w = sizes[s][0], h = sizes[s][1], t = 0;
    int *px = malloc(sizeof(int) * (w * h + 1));
    for (int i = 0; i < w * h; i++) px[i] = i * 7 % 101;
    flip(w, h, px);
    for (int i = 0; i < w * h; i++) t = t * 31 + px[i];
    printf("%d\n", t);
    free(px);
  }
  return 0;
}
"""


def test_a_row_reversal_is_split_into_the_row_it_reads(tmp_path):
    """``px[y * w + w - 1 - x]`` was split into row ``y + 1``, column ``-1 - x``, a
    column outside its row for every run: the optimized code ran only where the loop
    was empty. Borrowing one row gives ``(y, w - 1 - x)``. And ``t``, a local of
    ``flip``, was taken for live after the region because ``main`` has a ``t`` too:
    the loop over ``y`` is parallel with ``t`` private."""
    [scop] = extract(IMAGE_FLIP, filename="flip.c")
    assert scop.context.intersect(isl.Set("[h, w] -> { : h = 3 and w = 5 }")).is_empty() is False
    assert scop.live_scalars == ()
    outputs = assert_same_behaviour(tmp_path, IMAGE_FLIP)
    assert "private(t)" in outputs["tile-par"]


GUARDED_NEIGHBOURS = r"""
#include <stdio.h>
#include <stdlib.h>
void mark(int w, int h, int *g, int *m, int *e) {
  int x, y;
#pragma scop
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      if (x > 0 && y < h - 1 && g[y * w + x - 1] > 50) m[y * w + x] += g[(y + 1) * w + x];
      if (x > 0 && g[y * w + x - 1] > 20) e[y * w + x] = 1; else e[y * w + x] = 2;
    }
#pragma endscop
}
int main(void) {
  int sizes[][2] = {{0, 0}, {1, 1}, {1, 5}, {3, 2}, {7, 9}, {33, 20}};
  for (int s = 0; s < 6; s++) {
    int w = sizes[s][0], h = sizes[s][1], c = 0;
    int *g = malloc(sizeof(int) * (w * h + 1)), *m = calloc(w * h + 1, sizeof(int));
    int *e = calloc(w * h + 1, sizeof(int));
    for (int i = 0; i < w * h; i++) g[i] = i * 37 % 101;
    mark(w, h, g, m, e);
    for (int i = 0; i < w * h; i++) c = c * 31 + m[i] * 3 + e[i];
    printf("%d\n", c);
    free(g); free(m); free(e);
  }
  return 0;
}
"""


def test_affine_conjuncts_before_a_data_condition_bound_the_statement(tmp_path):
    """``if (x > 0 && g[y * w + x - 1] > 50)``: C reads ``g`` only where ``x > 0``. The
    whole condition was one statement over every ``x``, so the read at ``x = 0`` was
    column -1 of row y and the optimized code ran only for ``w = 1``. The conjuncts
    before the first data-dependent one now bound the statement's domain (not with an
    ``else``, which runs where they fail)."""
    [scop] = extract(GUARDED_NEIGHBOURS, filename="mark.c")
    assert scop.context.intersect(isl.Set("[h, w] -> { : h = 3 and w = 5 }")).is_empty() is False
    s0, s1 = scop.statements
    assert s0.domain.is_equal(isl.Set("[h, w] -> { S0[y, x] : 0 <= y < h - 1 and 0 < x < w }"))
    assert s1.domain.is_equal(isl.Set("[h, w] -> { S1[y, x] : 0 <= y < h and 0 <= x < w }"))
    assert_same_behaviour(tmp_path, GUARDED_NEIGHBOURS)


STDINT_AND_TYPEDEF_CASTS = r"""
#include <stdio.h>
#include <stdint.h>
typedef long idx_t;
double A[12][12];
void kernel(uint_fast32_t n, int m) {
  uint_fast16_t i;
  int j;
#pragma scop
  for (i = 0; i < (uint_fast32_t)m; i++)
    for (j = 0; j < (idx_t)m - 1; j++)
      if (i > n - 1) A[j][i] = A[j][i] + A[j + 1][i] * 0.5;
#pragma endscop
}
int main(void) {
  int calls[][2] = {{0, 5}, {1, 5}, {3, 12}, {7, 0}, {2, 1}};
  for (int c = 0; c < 5; c++) {
    for (int i = 0; i < 12; i++) for (int j = 0; j < 12; j++) A[i][j] = i * 0.25 + j;
    kernel(calls[c][0], calls[c][1]);
    double s = 0;
    for (int i = 0; i < 12; i++) for (int j = 0; j < 12; j++) s = s * 1.0001 + A[i][j];
    printf("%a\n", s);
  }
  return 0;
}
"""


def test_stdint_fast_types_and_casts_to_typedef_names(tmp_path):
    """``uint_fast32_t`` was no integer type (``n`` was data, so ``i > n - 1`` was a
    condition kept as text) and ``(idx_t) m`` was refused ("cast to 'idx_t' in an
    affine expression"). The fast and least types are glibc's on LP64 (64-bit unsigned
    here: ``n - 1`` wraps at ``n = 0``), and a cast to a typedef name is a cast to the
    type it names."""
    [scop] = extract(STDINT_AND_TYPEDEF_CASTS, filename="fast.c")
    assert scop.variable_types["n"] == "unsigned long" and scop.variable_types["i"] == "unsigned long"
    [stmt] = scop.statements
    expected = isl.Set("[m, n] -> { S0[i, j] : n <= i < m and 0 <= j < m - 1 }")
    assert stmt.domain.intersect_params(scop.context).is_equal(expected.intersect_params(scop.context))
    # where n - 1 wraps (n = 0) and the guard is evaluated (m >= 2), the original code runs
    assert scop.context.intersect(isl.Set("[m, n] -> { : m >= 2 }")).is_subset(isl.Set("[m, n] -> { : n >= 1 }"))
    assert_same_behaviour(tmp_path, STDINT_AND_TYPEDEF_CASTS)


POST_DECREMENT_LOOPS = r"""
#include <stdio.h>
#include <stddef.h>
double A[16][16], B[16];
unsigned kernel(unsigned n, int m, int lo) {
  unsigned i;
  int k;
#pragma scop
  for (i = n; i-- > 0;)
    B[i] = B[i] * 0.5 + i;
  for (size_t r = n; r--;)
    for (size_t c = r + 1; c-- != 0;)
      A[r][c] = A[r][c] + A[c][r] * 0.25;
  for (k = m; k-- > lo;)
    B[k + 2] = B[k + 3] - B[k + 1];
  for (i = n; i-- > 1;)
    A[i][0] += B[i - 1];
#pragma endscop
  return i;
}
int main(void) {
  int calls[][3] = {{0, 0, 0}, {1, 5, 2}, {7, 9, -2}, {13, 3, 5}, {16, 12, 0}, {2, -1, -2}};
  for (int c = 0; c < 6; c++) {
    for (int a = 0; a < 16; a++) { B[a] = a * 0.75 - 3; for (int b = 0; b < 16; b++) A[a][b] = a - 0.5 * b; }
    unsigned left = kernel(calls[c][0], calls[c][1], calls[c][2]);
    double s = 0;
    for (int a = 0; a < 16; a++) { s = s * 1.001 + B[a]; for (int b = 0; b < 16; b++) s += A[a][b]; }
    printf("%a %u\n", s, left);
  }
  return 0;
}
"""


def test_loops_that_step_down_in_their_condition(tmp_path):
    """``for (i = n; i-- > 0;)``, the idiom for an unsigned iterator that counts down
    to 0, was refused ("loop iterator 'i' is modified in the loop body"). It is the loop
    over ``n - 1`` down to ``0`` (``i--`` and ``i-- != 0`` too, for an unsigned ``i``),
    and ``i`` is left as C leaves it (0 - 1 wraps around: the largest unsigned)."""
    [scop] = extract(POST_DECREMENT_LOOPS, filename="down.c")
    s0, s1, s2, s3 = scop.statements
    context = scop.context
    for stmt, text in [(s0, "{ S0[i] : 0 <= i < n }"), (s1, "{ S1[r, c] : 0 <= r < n and 0 <= c <= r }"),
                       (s2, "{ S2[k] : lo <= k < m }"), (s3, "{ S3[i] : 1 <= i < n }")]:
        expected = isl.Set(f"[n, m, lo] -> {text}").intersect_params(context)
        assert stmt.domain.intersect_params(context).is_equal(expected), stmt.domain
    assert "i" in scop.live_iterators
    assert_same_behaviour(tmp_path, POST_DECREMENT_LOOPS)


def test_a_signed_iterator_stepping_down_to_zero_in_its_condition_is_refused():
    text = POST_DECREMENT_LOOPS.replace("for (k = m; k-- > lo;)", "for (k = m; k--;)")
    with pytest.raises(ScopError) as info:
        extract(text, filename="down.c")
    assert "signed iterator 'k' never ends" in info.value.message and info.value.line == 14


COMMA_STATEMENTS = r"""
#include <stdio.h>
double A[40], B[40], C[40];
int kernel(int n) {
  int i, j, cnt = 0;
  double t;
#pragma scop
  for (i = 0; i < n; i++)
    if (i % 2 == 0)
      t = A[i], A[i] = B[i], B[i] = t /* swap */ * 2.0;
    else
      C[i] = A[i] + 1.0, cnt++;
  for (j = 1; j < n; j++) C[j] += C[j - 1], B[j - 1] = C[j];
#pragma endscop
  return cnt + 100 * i + 1000 * j;
}
int main(void) {
  int sizes[] = {0, 1, 2, 7, 40};
  for (int c = 0; c < 5; c++) {
    for (int k = 0; k < 40; k++) { A[k] = k * 0.5; B[k] = 3.0 - k; C[k] = k % 3; }
    int r = kernel(sizes[c]);
    double s = 0;
    for (int k = 0; k < 40; k++) s = s * 1.01 + A[k] + 2 * B[k] + 3 * C[k];
    printf("%a %d\n", s, r);
  }
  return 0;
}
"""


def test_comma_expressions_are_statements_in_order(tmp_path):
    """``t = A[i], A[i] = B[i], B[i] = t;`` was refused ("is not an assignment, 'for'
    loop or 'if' statement"). Its operands are statements run one after the other
    (under an ``if`` without braces too, with the iterators live after the region)."""
    [scop] = extract(COMMA_STATEMENTS, filename="comma.c")
    assert [s.body for s in scop.statements] == [
        "t = A[i];", "A[i] = B[i];", "B[i] = t            * 2.0;", "C[i] = A[i] + 1.0;", "cnt++;",
        "C[j] += C[j - 1];", "B[j - 1] = C[j];"]     # (the comment blanked)
    assert_same_behaviour(tmp_path, COMMA_STATEMENTS)


LOOPS_SETTING_TWO_VARIABLES = r"""
#include <stdio.h>
double A[40], B[90], M[12][12];
int kernel(int n, int m) {
  int i, j, r;
#pragma scop
  for (i = 0, j = n - 1; i < j; i++, j--) {
    double t = A[i];
    A[i] = A[j];
    A[j] = t;
  }
  for (r = 0; r < m; r++)
    for (int c = 0, d = r; c < d; c++, d--) {
      double t = M[r][c];
      M[r][c] = M[r][d] + r;
      M[r][d] = t;
    }
  for (int k = 0, w = 2, o = 1; k < n; k++, o += 2)
    B[o] = A[k] * w;
#pragma endscop
  return i * 100 + j;
}
int main(void) {
  int calls[][2] = {{0, 0}, {1, 1}, {2, 3}, {7, 12}, {40, 5}, {-3, 2}};
  for (int c = 0; c < 6; c++) {
    for (int k = 0; k < 40; k++) A[k] = k * 0.5 - 3;
    for (int k = 0; k < 90; k++) B[k] = k;
    for (int a = 0; a < 12; a++) for (int b = 0; b < 12; b++) M[a][b] = a * 12 + b;
    int left = kernel(calls[c][0], calls[c][1]);
    double s = 0;
    for (int k = 0; k < 40; k++) s = s * 1.01 + A[k];
    for (int k = 0; k < 90; k++) s = s * 1.01 + B[k];
    for (int a = 0; a < 12; a++) for (int b = 0; b < 12; b++) s += M[a][b] * (a + 1);
    printf("%a %d\n", s, left);
  }
  return 0;
}
"""


def test_loops_that_set_two_variables(tmp_path):
    """``for (i = 0, j = n - 1; i < j; i++, j--)`` was refused ("loop initialisation
    must be 'i = expression'"). Every variable after the first is an affine function of
    the iterator (``j = n - 1 - i``): the condition ``i < j`` bounds the loop and the
    body reads ``j`` as that function (a loop-declared ``w`` that is never stepped is
    its start). Both are left as C leaves them after the region."""
    [scop] = extract(LOOPS_SETTING_TWO_VARIABLES, filename="two.c")
    context = scop.context
    s0 = scop.statements[0]
    assert s0.domain.intersect_params(context).is_equal(
        isl.Set("[n, m] -> { S0[i] : 0 <= i and 2i < n - 1 }").intersect_params(context))
    assert {"i", "j"} <= set(scop.live_iterators)
    outputs = assert_same_behaviour(tmp_path, LOOPS_SETTING_TWO_VARIABLES)
    assert "private(t)" in outputs["tile-par"]


@pytest.mark.parametrize("line, message", [
    ("for (i = 0, j = 0; i < n; i++, j += i) A[i] = j;", "loop increment must change 'j' by a constant"),
    ("for (i = 0, u = n; i < n; i++, u--) A[i] = u;", "must be a signed integer"),
    ("for (i = 0, j = i + 1; i < n; i++, j++) A[i] = j;", "reads a variable the same loop sets"),
    ("for (i = 0, j = 0; i < n; i += 2, j++) A[i] = j;", "must step 'i' by 1"),
    ("for (i = 0, j = 0; i < n; i++, j++, n--) A[i] = j;", "loop increment changes a variable the loop does not set"),
    ("for (i = 0; i < n; i++) A[i] = 1.0, printf(\"x\");", "in a comma expression"),
    ("for (i = 0; i < n; i++) (A[i] = 1.0, B[i] = 2.0);", "parenthesised comma expression"),
])
def test_comma_forms_it_cannot_model_are_refused(line, message):
    text = f"double A[99], B[99];\nvoid f(int n) {{\n  int i, j;\n  unsigned u;\n#pragma scop\n  {line}\n" \
           f"#pragma endscop\n}}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="c.c")
    assert message in info.value.message and info.value.line == 6


CAST_UNSIGNED_BOUND = r"""
#include <stdio.h>
int D[40];
void kernel(unsigned n) {
#pragma scop
  for (int k = -5; k < (int)n; k++)
    D[k + 5] = D[k + 5] + k;
#pragma endscop
}
int main(void) {
  unsigned sizes[] = {0, 1, 3, 20, 35};
  for (int c = 0; c < 5; c++) {
    for (int k = 0; k < 40; k++) D[k] = k;
    kernel(sizes[c]);
    long s = 0;
    for (int k = 0; k < 40; k++) s = s * 3 + D[k];
    printf("%ld\n", s);
  }
  return 0;
}
"""


def test_a_cast_gives_its_type_to_a_comparison(tmp_path):
    """Found by probing: ``k < (int) n`` with ``unsigned n`` was taken for an unsigned
    comparison (the unsigned ``n`` inside the cast counted), so ``k = -5`` wrapped in the
    model and the region held for no parameter value. The cast's value is an ``int``."""
    [scop] = extract(CAST_UNSIGNED_BOUND, filename="cast.c")
    # (at n = 0 the loop still runs k = -5 .. -1: n is no size, and 0 is in the context)
    assert scop.context.is_equal(isl.Set("[n] -> { : 0 <= n <= 2147483647 }"))
    assert_same_behaviour(tmp_path, CAST_UNSIGNED_BOUND)


def test_an_unsigned_constant_difference_inside_a_long_sum(tmp_path):
    """Fuzz program 2622 (found at 969f182, since reverted): ``3 - 5u`` wraps to
    4294967294 before the long ``j - 2`` is added; typing the sum as long lost the
    wrap-around of the unsigned part and ``--fuse max`` wrote B[-3][1]."""
    text = open(Path(__file__).parent / "data" / "fuzz" / "s20261124-p02622-min.c").read()
    assert_same_behaviour(tmp_path, text, modes={"max": dict(fuse="max"), "tile-par": dict(tile=True, parallel=True)},
                          opts=("-O2",))


POINTED_SIZE = r"""
#include <stdio.h>
int B[200];
double A[200];
void f(int *np, int *W) {
  int i;
#pragma scop
  for (i = 0; i < *np; i++) {
    A[i] = A[i] + *np;
    W[i] = W[i] + 1;
  }
#pragma endscop
}
int main(void) {
  int n = 10, zero = 0, minus = -3;
  for (int i = 0; i < 200; i++) B[i] = i % 7;
  f(&n, B);
  f(&zero, B);
  f(&minus, B);
  f(&B[5], B);      /* the bound is W[5]: the loop changes it while it runs */
  f(&n, B + 20);
  for (int i = 0; i < 40; i++) printf("%g %d ", A[i], B[i]);
  printf("\n");
  return 0;
}
"""


def test_a_size_read_through_a_pointer_bounds_loops(tmp_path):
    """``i < *np``, with ``*np`` never written through: a value of its own (it was
    refused as "'np[0]' reads an array element in a loop bound"), checked at run time
    against the arrays the region writes (np == &W[5]: the original runs)."""
    scop = extract(POINTED_SIZE)[0]
    assert scop.parameters == ["np__value"] and scop.c_texts["np__value"] == "(*np)"
    assert "np__value" in scop.address_taken
    outputs = assert_same_behaviour(tmp_path, POINTED_SIZE, opts=("-O2",))
    assert "c0 < ((*np))" in outputs["tile-par"]


def test_a_pointer_used_also_as_an_array_stays_an_array():
    """``*p`` next to ``p[i]`` is the element p[0]: both stay accesses of p."""
    text = POINTED_SIZE.replace("A[i] = A[i] + *np;", "A[i] = A[i] + *np + np[1];")
    with pytest.raises(ScopError, match="'np\\[0\\]' reads an array element in a loop bound"):
        extract(text)


POINTED_AT_A_WRITTEN_SCALAR = r"""#include <stdio.h>
int A[50], B[50], acc, gi;
static void k(int *q) {
  int i;
#pragma scop
  for (i = 0; i < 50; i++) {
    acc = acc + A[i];
    B[i] = *q;
  }
#pragma endscop
}
static void k2(int *q) {
#pragma scop
  for (gi = 0; gi < 50; gi++)
    A[gi] = A[gi] + *q;
#pragma endscop
}
int main(void) {
  int i, other = 4;
  for (i = 0; i < 50; i++) A[i] = i % 7;
  k(&acc);
  k2(&gi);
  k(&other);
  k2(&other);
  long s = 0;
  for (i = 0; i < 50; i++) s += (long)B[i] * (i + 1) + A[i];
  printf("%ld %d\n", s, acc);
  return 0;
}
"""


def test_a_read_only_pointer_to_a_written_scalar_or_iterator(tmp_path):
    """helper-15: '*q' read in the region, q pointing at the scalar acc or the iterator
    gi the region writes: the run-time check compared *q with arrays only, so the
    optimized code ran (wrong sums, even under --identity). *q is memory reached
    through a pointer now, checked against the written scalars and iterators too."""
    assert_same_behaviour(tmp_path, POINTED_AT_A_WRITTEN_SCALAR, opts=("-O2",),
                          modes={k: FLAG_SETS[k] for k in ("identity", "tile-par")})


# -- helper-20: pairs the overlap check had left out ------------------------------------

RESTRICT_BASED = r"""
#include <stdio.h>
#define N 3000
void f(double *restrict a, int n) {
  int i;
  double *q = a + 1;             /* based on a: may overlap it, restrict or not */
#pragma scop
  for (i = 0; i < n; i++)
    q[i] = a[i] * 0.5 + 1.0;
#pragma endscop
}
void rows(double **restrict A, double **restrict B, int n) {
  int i, j;                      /* restrict protects A, not the rows it points to */
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < n; j++)
      A[i][j] = B[i][j - 1] * 0.5 + 1.0;
#pragma endscop
}
static double x[N + 1], buf[40 * 40];
static double *r[40];
int main(void) {
  for (int k = 0; k < N + 1; k++) x[k] = k * 0.75;
  f(x, N);
  for (int k = 0; k < 40 * 40; k++) buf[k] = k % 7;
  for (int i = 0; i < 40; i++) r[i] = buf + i * 40;
  rows(r, r, 40);
  double s = 0;
  for (int k = 0; k < N + 1; k++) s += x[k] * (k % 13 + 1);
  for (int k = 0; k < 40 * 40; k++) s += buf[k] * (k % 11 + 1);
  printf("%.17g %.17g %.17g\n", s, x[N], buf[40 * 40 - 1]);
  return 0;
}
"""


def test_restrict_does_not_separate_pointers_based_on_it_nor_its_rows(tmp_path):
    """helper-20: ``q = a + 1`` next to ``double *restrict a`` (legal overlap: q is based
    on a), and the rows of ``double **restrict A`` (pointers loaded from memory) were
    left out of the overlap check, and the loops were run in parallel."""
    assert_same_behaviour(tmp_path, RESTRICT_BASED, modes={m: FLAG_SETS[m] for m in ("tile-par", "nofuse-par")},
                          opts=("-O2",))


HEADER_GLOBALS = r"""
#include <stdio.h>
#include "globals.h"
int count = 20;
int arr[20];
double out[10];
void bound(int *p, int *a) {
  int i;
#pragma scop
  for (i = 0; i < count; i++) {
    a[i] = a[i] + i;
    if (i == 3) p[0] = 8;        /* p may be &count: the header takes its address */
  }
#pragma endscop
}
void scaled(double *p, int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    out[i] = i * scale;
    if (i == 5) p[0] = 2.0;      /* p may be &scale, a header's variable */
  }
#pragma endscop
}
int main(void) {
  bound(count_addr(), arr);
  scaled(scale_addr(), 10);
  for (int k = 0; k < 20; k++) printf("%d ", arr[k]);
  for (int k = 0; k < 10; k++) printf("%.17g ", out[k]);
  printf("\n");
  return 0;
}
"""


def test_globals_a_header_may_take_the_address_of_are_checked(tmp_path):
    """helper-20: a global size whose address only a header takes, and a header's own
    global scalar, were not in the overlap check."""
    (tmp_path / "globals.h").write_text("extern int count;\nstatic inline int *count_addr(void) { return &count; }\n"
                                        "double scale = 0.5;\nstatic double *scale_addr(void) { return &scale; }\n")
    outputs = assert_same_behaviour(tmp_path, HEADER_GLOBALS,
                                    modes={m: FLAG_SETS[m] for m in ("identity", "tile-par")}, opts=("-O2",))
    assert "&count" in outputs["tile-par"] and "&scale" in outputs["tile-par"]


UNTOUCHED_EDGES = r"""
#include <stdio.h>
#include <stdlib.h>
static void kern(int n, double A[n][n], double B[n][n])
{
  int i, j;
#pragma scop
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = atoi(argv[1]), i;
  double *A = calloc((size_t)n * n + 1, sizeof(double)), *B = calloc((size_t)n * n + 1, sizeof(double));
  for (i = 0; i < n * n; i++) A[i] = i;
  kern(n, (double (*)[n])A, (double (*)[n])B);
  for (i = 0; i < n * n; i++) printf("%g ", B[i]);
  printf("\n");
  free(A); free(B);
  return 0;
}
"""


def test_the_overlap_check_takes_no_address_of_an_untouched_element(tmp_path):
    """helper-18: at n = 1 the stencil touches nothing, but the check (which holds from
    n >= 1) computed &A[n - 1][n - 2], A[0][-1]: undefined behaviour that UBSan reports
    and the original does not have. The addresses are taken only where both arrays are
    touched."""
    source = tmp_path / "k.c"
    source.write_text(UNTOUCHED_EDGES)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "!(n >= 3) ||" in text
    out = tmp_path / "out.c"
    out.write_text(text)
    for name, path in (("orig", source), ("new", out)):
        built = compile_c(path, tmp_path / name, cflags=["-O1", "-fsanitize=undefined", "-fno-sanitize-recover=all"],
                          openmp=True)
        assert built.ok, built.reason
    for n in (1, 2, 3, 7):
        runs = [run_binary(tmp_path / name, args=[str(n)], threads=2, timeout=60) for name in ("orig", "new")]
        assert all(run.ok and "runtime error" not in run.stderr for run in runs), [r.stderr for r in runs]
        assert runs[0].stdout == runs[1].stdout


RESTRICT_REASSIGNED = r"""
#include <stdio.h>
double *gp;
struct cfg { int n : 12; unsigned flag : 1; int m; };
struct cfg cfg = { 300, 1, 7 };
static void param(double *restrict a, double *b, int n) {
  b = a + 1;                     /* b is now based on a: it may overlap it */
#pragma scop
  for (int i = 0; i < n; i++)
    b[i] = a[i] * 0.5 + 1.0;
#pragma endscop
}
static void global(double *restrict a, int n) {
  gp = a + 1;                    /* so is the global */
#pragma scop
  for (int i = 0; i < n; i++)
    gp[i] = a[i] * 0.5 + 1.0;
#pragma endscop
}
static void bits(double *p, double *q) {
#pragma scop
  for (int i = 0; i < cfg.n; i++)    /* a bit-field bound: no address to check */
    p[i] = q[i] * 0.5 + cfg.m;
#pragma endscop
}
static double x[4000], y[4000];
int main(void) {
  for (int i = 0; i < 4000; i++) x[i] = y[i] = i;
  param(x, 0, 3999);
  global(y, 3999);
  bits(x, y);
  bits(y + 1, y);
  double s = 0;
  for (int i = 0; i < 4000; i++) s += x[i] * (i % 7 + 1) + y[i] * (i % 5 + 1);
  printf("%.17g %.17g %.17g\n", s, x[3999], y[3999]);
  return 0;
}
"""


def test_restrict_with_a_pointer_reassigned_from_it_and_bit_field_bounds(tmp_path):
    """helper-21: ``b = a + 1`` (a parameter) or ``gp = a + 1`` (a global) inside the
    function makes it based on the restrict ``a``, and it was kept apart from ``a``
    without a check; a bit-field bound of a global struct got an address check that did
    not compile."""
    outputs = assert_same_behaviour(tmp_path, RESTRICT_REASSIGNED,
                                    modes={m: FLAG_SETS[m] for m in ("identity", "tile-par")}, opts=("-O2",))
    assert "&(cfg.n)" not in outputs["tile-par"] and "&cfg.n" not in outputs["tile-par"]


@pytest.mark.parametrize("declaration, iterator", [("struct S { int i; } st;", "st.i"),
                                                    ("struct S { int i; } *p;", "p->i")])
def test_a_member_as_loop_iterator_is_refused(declaration, iterator):
    """helper-29: ``for (st.i = 0; st.i < n; st.i++) B[st.i] = ...`` was read (the member
    a variable of its own), and the optimized loops' body still read ``st.i``, whose
    value stayed the one before the region: every B[st.i] went to one element."""
    text = (f"double A[8], B[8];\n{declaration}\nvoid k(int n) {{\n#pragma scop\n"
            f"  for ({iterator} = 0; {iterator} < n; {iterator}++)\n    B[{iterator}] = A[{iterator}] * 2;\n"
            "#pragma endscop\n}\n")
    with pytest.raises(ScopError) as info:
        extract(text, filename="it.c")
    assert (info.value.line, info.value.col) == (5, 3)
    assert info.value.message == f"loop iterator '{iterator}' is not a plain variable (only those are renamed " \
                                 "in the optimized loops)"


@pytest.mark.parametrize("body, column, what", [
    # s[i].a and s[n - 1 - i].b share bytes: threads writing them raced (helper-27)
    ("s[i].a = (i + r) & 15;\n    s[n - 1 - i].b = i & 15;", 5, "bit-field 's[...].a' in an array"),
    # read only, but the overlap check took &s[0].a, which does not compile (helper-27)
    ("p[i] = s[i].a;", 12, "bit-field 's[...].a' in an array"),
    # a written member of one struct: its neighbour cfg.b is the same memory location
    ("cfg.a = i & 15;\n    p[i] = cfg.b;", 5, "bit-field 'cfg.a' written"),
])
def test_bit_fields_that_share_memory_are_refused(body, column, what):
    text = ("struct S { unsigned a : 4; unsigned b : 4; };\nstruct S s[100], cfg;\n"
            "void k(int n, int r, double *p) {\n#pragma scop\n  for (int i = 0; i < n; i++) {\n    "
            + body + "\n  }\n#pragma endscop\n}\n")
    with pytest.raises(ScopError) as info:
        extract(text, filename="bits.c")
    assert (info.value.line, info.value.col) == (6, column)
    assert info.value.message.startswith(what), info.value.message


# -- array elements as sizes (sz[0], dims[1][2]) ------------------------------------------

ELEMENT_SIZES = r"""
#include <stdio.h>
int dims[2][3] = {{5, 7, 9}, {11, 13, 4}};
double A[100][100], B[100][100];
static void shaped(int *sz, int *C) {
  int i;
#pragma scop
  for (i = 0; i < sz[0]; i++)
    C[i + 1] = i * 2 + sz[1];
#pragma endscop
}
static void grids(void) {
  int loc[2] = {17, 19};
#pragma scop
  for (int i = 1; i < dims[1][0]; i++)
    for (int j = 0; j < loc[1]; j++)
      B[i][j] = A[i - 1][j] + dims[0][2] + loc[0];
  for (int i = 1; i < dims[0][1]; i++)
    for (int j = 1; j < dims[1][1]; j++)
      A[i][j] = A[i - 1][j - 1] * 0.5 + B[i][j];
#pragma endscop
}
int main(void) {
  int buf[64] = {0}, other[64] = {0}, sz[2] = {30, 3};
  buf[0] = 40; buf[1] = 2;
  shaped(buf, buf);           /* C[1] is sz[1]: the loop changes what it adds */
  shaped(buf + 2, other);
  shaped(sz, other + 20);
  shaped(other, other);       /* C[1] = other[1] while the loop runs to other[0] */
  for (int i = 0; i < 100; i++) for (int j = 0; j < 100; j++) A[i][j] = (i * 7 + j) % 11;
  grids();
  double s = 0;
  for (int i = 0; i < 100; i++) for (int j = 0; j < 100; j++) s += (A[i][j] + 2 * B[i][j]) * ((i + j) % 5);
  for (int i = 0; i < 64; i++) s += buf[i] * (i + 1) + other[i] * (i + 3);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_array_elements_as_loop_bounds(tmp_path):
    """sz[0] as a loop bound was refused ("reads an array element in a loop bound"); it
    is a variable of its own now, reached through a pointer: the run-time check keeps
    the written array apart from it (the calls where C overlaps sz run the original)."""
    outputs = assert_same_behaviour(tmp_path, ELEMENT_SIZES)
    assert "&(sz[0])" in outputs["tile-par"] or "&sz[0]" in outputs["tile-par"]
    assert "dims[1][0]" in outputs["tile-par"]


# -- helper-23: unsigned types the front end did not see, pasting through a macro ----------

UNSIGNED_NAMES = r"""
#include <stdio.h>
#include <stdint.h>
typedef unsigned idx_t;
typedef enum { B0, B15 = 15 } band_t;
enum band { C0, C15 = 15 };
#define CAT(a, b) a##b
#define SEL(k) CAT(OFF, k)
#define OFF1 5
#define OFF(v) (2 * (v))
double A[16][16], B[16][16], C[16][16], D[72];
int main(void) {
  enum band p, q;
#pragma scop
  for (idx_t i = 0; i < 16; i++)
    for (idx_t j = 0; j < 16; j++)
      if (i - j > 2)
        A[j][i] = 1.0;
  for (band_t i = 0; i < 16; i++)
    for (band_t j = 0; j < 16; j++)
      if (i - j > 2)
        B[j][i] = 1.0;
  for (p = 0; p < 16; p++)
    for (q = 0; q < 16; q++)
      if (p - q > 2)
        C[q][p] = 1.0;
  for (int i = 0; i < 64; i++)
    D[i + SEL(1)] = i;
#pragma endscop
  double s = 0;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) s += (A[i][j] + 3 * B[i][j] + 5 * C[i][j]) * (i + 1) * (j + 3);
  for (int i = 0; i < 72; i++) s += D[i] * (i + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_unsigned_typedefs_enums_and_pasting_through_a_macro(tmp_path):
    """helper-23: i - j > 2 of a 'for (idx_t i ...)' with a typedef of unsigned, or of an
    enum (unsigned int to gcc and clang), was read as signed (every mode printed another
    sum); SEL(1) -> CAT(OFF, 1) was read (and emitted) as OFF(1), not OFF1."""
    assert_same_behaviour(tmp_path, UNSIGNED_NAMES)


def test_elements_of_a_member_array_are_not_variables(tmp_path):
    """helper-24: c->dims[0] became 'c__dims[0]' in the run-time check, which did not
    compile; a struct's member arrays keep the refusal they had."""
    from polysched.scop import ScopError
    source = tmp_path / "k.c"
    source.write_text("struct cfg { int dims[2]; };\ndouble A[64];\nvoid k(struct cfg *c) {\n#pragma scop\n"
                      "  for (int i = 0; i < c->dims[0]; i++) A[i] = i;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="reads an array element"):
        optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))


WORKSHARED_LOOP = r"""
#include <stdio.h>
#define N 1000
double A[N];
int main(void) {
  for (int i = 0; i < N; i++) A[i] = i;
#pragma omp parallel
  {
#pragma scop
#pragma omp for
    for (int i = 0; i < N; i++)
      A[i] = A[i] + 1.0;
#pragma endscop
  }
  double s = 0;
  for (int i = 0; i < N; i++) s += A[i];
  printf("%.17g\n", s);
  return 0;
}
"""


def test_a_loop_shared_by_an_enclosing_team_is_refused(tmp_path):
    """'#pragma omp for' inside the region was dropped: every thread of the enclosing
    team then ran the whole loop (501500 at 2 threads, the original 500500)."""
    source = tmp_path / "k.c"
    source.write_text(WORKSHARED_LOOP)
    with pytest.raises(ScopError, match=r"'#pragma omp for' inside a '#pragma scop' region") as err:
        optimize(source, OptimizeOptions.from_flags())
    assert (err.value.line, err.value.col) == (10, 1)


USER_PRAGMAS = r"""
#include <stdio.h>
double A[300][200], B[300][200], v[400], w[400];
void k(int n, int m, double (*restrict x)[200], double (*restrict y)[200]) {
#pragma scop
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i][j] = 2.0 * x[i][j] + 1.0;
#pragma endscop
}
void l(int n, double *restrict a, double *restrict b) {
#pragma scop
#pragma omp simd
  for (int i = 0; i < n; i++)
    b[i] = a[i] * 3.0 - 1.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 300; i++)
    for (int j = 0; j < 200; j++) A[i][j] = (i * 7 + j * 3) % 11 * 0.25;
  for (int i = 0; i < 400; i++) v[i] = i * 0.5;
  k(300, 200, A, B); k(0, 200, A, B); k(-2, 5, A, B);
  l(400, v, w); l(0, v, w);
  double s = 0;
  for (int i = 0; i < 300; i++)
    for (int j = 0; j < 200; j++) s += B[i][j] * (i + 1) * (j + 2);
  for (int i = 0; i < 400; i++) s += w[i] * (i + 3);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_the_regions_own_loop_pragmas_ask_for_parallel_and_vector_loops(tmp_path, capsys):
    """helper-62: a region's own '#pragma omp parallel for' was dropped in the modes
    without --parallel, silently: the optimized code ran on one core. It now turns on
    parallel marks for that region (an 'omp simd' the marking stage), with a notice and
    a line in the summary, and the outputs stay the original's."""
    outputs = assert_same_behaviour(tmp_path, USER_PRAGMAS, modes={m: FLAG_SETS[m] for m in ("default", "tile")})
    for text in outputs.values():
        k, l = text.split("void l(")
        assert re.search(r"#pragma omp parallel for[^\n]*\n\s*for \(int c0", k), k
        assert "#pragma omp simd" in l and "parallel" not in l.split("original code")[0], l
    notices = capsys.readouterr().err
    assert "orig.c:6: notice: the region's own '#pragma omp parallel for': parallel loops" in notices
    result = optimize(tmp_path / "orig.c", OptimizeOptions.from_flags())
    assert "the region's own '#pragma omp parallel for' (line 6)" in result.summary()
    assert "the region's own '#pragma omp simd' (line 14)" in result.summary()


OWN_REDUCTION_CLAUSE = r"""
#include <stdio.h>
double x[3000], y[3000], z[3000];
double k(int n) {
  double s = 0.0, u = 0.0;
  long hits = 0;
#pragma scop
#pragma omp parallel for reduction(+:s) reduction(+:hits)
  for (int i = 0; i < n; i++) {
    s += x[i] * y[i];
    hits += i % 3 == 0;
  }
  for (int i = 0; i < n; i++)
    u += z[i] * x[i];
#pragma endscop
  return s + 1000.0 * u + hits;
}
int main(void) {
  for (int i = 0; i < 3000; i++) { x[i] = 1.0 / (i + 1); y[i] = (i % 7) * 0.3 + 0.1; z[i] = (i % 5) * 0.7; }
  printf("%.17g\n", k(3000));
  printf("%.17g\n", k(0));
  printf("%.17g\n", k(-3));
  return 0;
}
"""


def assert_outputs_within_rounding(tmp_path: Path, original: Path, text: str) -> None:
    """The program ``text`` prints what ``original`` prints, number by number within a
    relative 1e-12 (a sum the user let reorder), at 1 and 2 threads."""
    out = tmp_path / "out.c"
    out.write_text(text)
    expected, got = (build_and_run(path, tmp_path, "-O2") for path in (original, out))
    for want, have in zip(expected, got):
        for a, b in zip(want.split(), have.split()):
            assert abs(float(a) - float(b)) <= 1e-12 * abs(float(a)), (want, have)


def test_a_reduction_clause_of_the_region_lets_its_sum_and_only_it_be_reordered(tmp_path):
    """A region's own '#pragma omp parallel for reduction(+:s)' was kept sequential
    without --reassociate (the floating-point sum), slower than the user's own code.
    The clause is the user's request to reorder s's sum (OpenMP adds the threads' parts
    in any order): s gets its reduction, u, a floating-point sum the user did not
    declare, stays sequential, and the outputs agree with the original's, within
    rounding, at 1 and 2 threads. --verify compares with a tolerance then."""
    original = tmp_path / "orig.c"
    original.write_text(OWN_REDUCTION_CLAUSE)
    result = optimize(original, OptimizeOptions.from_flags())
    code = result.text.split("original code")[0]
    assert re.search(r"#pragma omp parallel for reduction\(\+:s\)", code), code
    assert "u)" not in "".join(re.findall(r"reduction\([^)]*\)", code)), code
    [region] = result.regions
    assert region.reassociates
    assert "the floating-point reductions of s may be reordered" in result.summary()
    assert_outputs_within_rounding(tmp_path, original, result.text)
    proc = subprocess.run([sys.executable, "-m", "polysched", "optimize", str(original), "-o",
                           str(tmp_path / "v.c"), "--verify"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "verify: equal" in proc.stdout and "rtol 1e-06" in proc.stdout, proc.stdout

PRAGMA_OPERATORS = r"""
#include <stdio.h>
double x[3000], y[3000], z[3000];
double k(int n) {
  double s = 0.0;
#pragma scop
  _Pragma("omp parallel for reduction(+:s)") for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  _Pragma("omp simd")
  for (int i = 0; i < n; i++)
    z[i] = x[i] * 0.5 + y[i];
#pragma endscop
  return s + z[n > 3 ? 3 : 0];
}
int main(void) {
  for (int i = 0; i < 3000; i++) { x[i] = 1.0 / (i + 1); y[i] = (i % 7) * 0.3 + 0.1; }
  printf("%.17g\n", k(3000));
  printf("%.17g\n", k(0));
  printf("%.17g\n", k(-3));
  return 0;
}
"""


def test_the_pragma_operator_is_the_regions_own_pragma(tmp_path):
    """C99's ``_Pragma("omp parallel for reduction(+:s)")`` in a region was refused
    ("pragma inside a SCoP region") where the same '#pragma' line is the user's request
    for a parallel loop and a reordered sum. It now is that request: s's sum gets its
    reduction clause, the vector loop its 'simd', and the outputs agree with the
    original's (within rounding for the sum the user let reorder) at 1 and 2 threads."""
    original = tmp_path / "orig.c"
    original.write_text(PRAGMA_OPERATORS)
    result = optimize(original, OptimizeOptions.from_flags())
    code = result.text.split("original code")[0]
    assert re.search(r"#pragma omp parallel for reduction\(\+:s\)", code), code
    [region] = result.regions
    assert region.scop.user_loop_pragmas == ((7, "#pragma omp parallel for reduction(+:s)"), (9, "#pragma omp simd"))
    assert '_Pragma("omp simd")' in result.text.split("original code")[1]
    assert_outputs_within_rounding(tmp_path, original, result.text)


# the main() of the selection programs: x over distinct numbers; sizes 3000, 1, 0, -3
SELECTION_MAIN = r"""int main(void) {
  for (int i = 0; i < 3000; i++) x[i] = ((i * 7919) % 3001) * 0.25 - 100.0;
  printf("%.17g\n", k(3000));
  printf("%.17g\n", k(1));
  printf("%.17g\n", k(0));
  printf("%.17g\n", k(-3));
  return 0;
}
"""

OWN_MAX_CLAUSE = r"""
#include <stdio.h>
double x[3000];
double k(int n) {
  double m = -1e300, lo = 1e300;
#pragma scop
#pragma omp parallel for reduction(max:m)
  for (int i = 0; i < n; i++)
    if (x[i] > m) m = x[i];
  for (int i = 0; i < n; i++)
    lo = lo < x[i] ? lo : x[i];
#pragma endscop
  return m + 1000.0 * lo;
}
""" + SELECTION_MAIN


def test_a_max_clause_of_the_region_lets_its_floating_point_selection_be_reordered(tmp_path):
    """A floating-point max/min selection blocked parallelism even with --reassociate
    and under the region's own '#pragma omp parallel for reduction(max:m)': the loop ran
    sequentially where the user's ran on every core. Which of 0.0 and -0.0, or of a NaN
    and a number, a selection keeps depends on the order, which reordering accepts: m
    gets its max reduction; lo, not declared, stays sequential unless --reassociate. The
    values here are distinct numbers: the outputs are the original's, at 1 and 2
    threads."""
    original = tmp_path / "orig.c"
    original.write_text(OWN_MAX_CLAUSE)
    expected = build_and_run(original, tmp_path, "-O2")
    for reassociate, reduced in ((False, ["max:m"]), (True, ["max:m", "min:lo"])):
        result = optimize(original, OptimizeOptions.from_flags(parallel=True, reassociate=reassociate))
        code = result.text.split("original code")[0]
        assert sorted(re.findall(r"reduction\((\w+:\w+)\)", code)) == sorted(reduced), code
        out = tmp_path / "out.c"
        out.write_text(result.text)
        assert build_and_run(out, tmp_path, "-O2") == expected


OWN_FMAX_CLAUSE = r"""
#include <math.h>
#include <stdio.h>
double x[3000];
double k(int n) {
  double m = -1e300, lo = 1e300, hi = -1e300;
#pragma scop
#pragma omp parallel for reduction(max:m)
  for (int i = 0; i < n; i++)
    m = fmax(m, x[i]);
#pragma omp parallel for reduction(min:lo)
  for (int i = 0; i < n; i++)
    lo = fmin(x[i] * 2.0, lo);
  for (int i = 0; i < n; i++)
    hi = fmax(hi, x[i] + 1.0);
#pragma endscop
  return m + 1000.0 * lo + 1e6 * hi;
}
""" + SELECTION_MAIN


def test_fmax_and_fmin_under_the_regions_own_clause_are_max_and_min_reductions(tmp_path):
    """helper-95: 'm = fmax(m, x[i])' under the region's own 'reduction(max:m)' stayed
    sequential ("read before written in an iteration"), where the ternary spelling got
    its reduction: the output ran on one core where the input ran on every one. fmax
    and fmin (either argument order) are max and min selections; hi, not declared,
    stays sequential unless --reassociate. Outputs as the original's, 1 and 2 threads."""
    original = tmp_path / "orig.c"
    original.write_text(OWN_FMAX_CLAUSE)
    expected = build_and_run(original, tmp_path, "-O2")
    for reassociate, reduced in ((False, ["max:m", "min:lo"]), (True, ["max:hi", "max:m", "min:lo"])):
        result = optimize(original, OptimizeOptions.from_flags(parallel=True, reassociate=reassociate))
        code = result.text.split("original code")[0]
        found = [item.strip() for clause in re.findall(r"reduction\(([^)]*)\)", code) for item in
                 re.sub(r"(\w+):(\w+(?:,\s*\w+)*)", lambda m: ",".join(f"{m[1]}:{v.strip()}" for v in
                                                                  m[2].split(",")), clause).split(",")]
        assert sorted(found) == reduced, code
        out = tmp_path / "out.c"
        out.write_text(result.text)
        assert build_and_run(out, tmp_path, "-O2") == expected


SELF_COMPARISONS = r"""
#include <stdio.h>
double a[40][40], b[40][40];
void f(int n) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i != j)
        a[i][j] = b[j][i];
      a[i][j] -= 0.5 * (i >= j) + (i == j) - 0.25 * (j < i) + (i != j);
    }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++) b[i][j] = (i * 5 + j) % 7;
  f(40); f(0); f(-1);
  double s = 0;
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++) s += a[i][j] * (i + 1) * (j + 2);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_a_comparison_of_an_iterator_with_itself_is_folded(tmp_path):
    """helper-62: where the schedule splits off i == j, (i >= j) became (c2 >= c2):
    gcc -Wall warned (-Wtautological-compare). It is now (1), and the outputs stay."""
    # (sizes given: the nest reads and writes each element once, a stream the model
    # leaves untiled, and the tiles are what split off i == j)
    outputs = assert_same_behaviour(tmp_path, SELF_COMPARISONS,
                                    modes={"tile-par": dict(tile=True, parallel=True, tile_sizes=[8, 8])},
                                    opts=("-O2",))
    text = outputs["tile-par"]
    assert re.search(r"\(1\)", text) and not re.search(r"\((c\d+) [<>=!]=? \1\)", text), text
    source = tmp_path / "self.c"
    source.write_text(text)
    build = subprocess.run(["gcc", "-fopenmp", "-Wall", "-Werror=tautological-compare", "-c", str(source),
                            "-o", str(tmp_path / "self.o")], capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr


WIDENED_SUBSCRIPTS = r"""
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
void f(int n, int m, double *restrict a, const double *restrict b, double *restrict c, double *restrict d) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      a[i * (size_t)m + j] = 2.0 * b[(size_t)(i * m + j)] + 1.0;
      c[(long)(i * m + j)] += a[i * (size_t)m + j] * b[i * (long)m + j];
    }
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      d[(size_t)(i * m + j)] = d[(size_t)((i - 1) * m + j)] + 0.5 * c[i * (ptrdiff_t)m + j];
#pragma endscop
}
int main(int argc, char **argv) {
  int n = 37, m = 29;
  double *a = calloc(n * m, sizeof(double)), *b = calloc(n * m, sizeof(double));
  double *c = calloc(n * m, sizeof(double)), *d = calloc(n * m, sizeof(double));
  for (int k = 0; k < n * m; k++) { b[k] = k % 13 * 0.5; c[k] = k % 7; d[k] = k % 5 * 0.25; }
  f(n, m, a, b, c, d); f(0, m, a, b, c, d); f(n, 0, a, b, c, d); f(-3, 4, a, b, c, d); f(1, m, a, b, c, d);
  double s = 0;
  for (int k = 0; k < n * m; k++) s += (a[k] + 3 * c[k] + 5 * d[k]) * (k % 17 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_a_linearised_subscript_through_a_64_bit_cast_is_rows_and_columns(tmp_path):
    """helper-62: 'i * (size_t)m + j' and '(size_t)(i * m + j)' were refused as
    non-affine products, while '(size_t)i * m + j' was read as rows of m. A cast to a
    64-bit integer type is now read through; the outputs stay the original's. So is a
    conversion to 32-bit unsigned (refused before session 50): modulo 2**32, under the
    run-time check that the addresses stay below 2**32."""
    outputs = assert_same_behaviour(tmp_path, WIDENED_SUBSCRIPTS,
                                    modes={m: FLAG_SETS[m] for m in ("default", "tile-par")}, opts=("-O2",))
    assert "#pragma omp parallel for" in outputs["tile-par"].split("original code")[0]
    (tmp_path / "narrow").mkdir()
    narrow = assert_same_behaviour(tmp_path / "narrow", WIDENED_SUBSCRIPTS.replace("(size_t)(i * m + j)]",
                                                                                   "(unsigned)(i * m + j)]"),
                                   modes={"tile-par": FLAG_SETS["tile-par"]}, opts=("-O2",))
    assert "4294967296LL" in narrow["tile-par"]


WRITE_FIRST = r"""
#include <stdio.h>
void reads_first(double m[3][3], double s[3], double t[3]) {
#pragma scop
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      s[i] = s[i] * 0.5 + m[i][j];
      if (j == 1)
        t[i] = 0;
      t[i] += m[j][i];
    }
#pragma endscop
}
int main(void) {
  double m[3][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 10}};
  double v[3] = {1, -1, 2}, r[3], s[3] = {1, 2, 3}, t[3] = {5, 6, 7};
#pragma scop
  for (int i = 0; i < 3; i++) {
    r[i] = 0;
    for (int j = 0; j < 3; j++)
      r[i] += m[i][j] * v[j];
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m[i][j] = m[j][i] + r[i];
#pragma endscop
  reads_first(m, s, t);
  for (int i = 0; i < 3; i++) printf("%.17g %.17g %.17g\n", r[i], s[i], t[i]);
  return 0;
}
"""


def test_an_element_written_before_it_is_read_is_not_loaded(tmp_path):
    """helper-62: scalar replacement loaded 'double r_r0 = r[0];' of an uninitialised
    local array whose element the loop writes before it reads it (gcc -Wall:
    -Wuninitialized). Such an element is no longer loaded; r[c2] of the second nest,
    read first, still is, and the outputs stay (with s and t, read before they are
    written, in a second region)."""
    outputs = assert_same_behaviour(tmp_path, WRITE_FIRST, modes={m: FLAG_SETS[m] for m in ("isl-tile-par",)})
    text = re.sub(r"the original code, run when.*?end of the original code", "", outputs["isl-tile-par"],
                  flags=re.S)
    assert re.search(r"double r_r\d = 0;", text) and not re.search(r"r_r\d = r\[0\];", text), text
    assert re.search(r"double r_r\d = r\[c\d\];", text), text        # read first: loaded
    source = tmp_path / "wf.c"
    source.write_text(outputs["isl-tile-par"])
    build = subprocess.run(["gcc", "-O2", "-fopenmp", "-Wall", "-Werror=uninitialized", "-c", str(source),
                            "-o", str(tmp_path / "wf.o")], capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
