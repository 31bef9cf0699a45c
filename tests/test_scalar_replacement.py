"""unroll_and_jam's scalar replacement (emit_c/scalar_replace.py): the array elements an
innermost loop of jammed code reuses live in local scalars, loaded before the loop and
stored after it, only where isl proves it legal; outputs stay bit-identical."""
from __future__ import annotations

import re

import pytest

import polysched as ps
from polysched.bench import compiler_accepts, get
from polysched.emit_c import EmitOptions
from polysched.marks import Jam, MARK_TYPES, parse_mark

EXACT = {"rtol": 0, "atol": 0}

# sizes are int parameters of the kernel (-DNI=.. in main), arrays are NMAX x NMAX
# blocks from malloc (so that ASan sees an access past the end), printed exactly (%a)
MAIN = r"""#include <stdio.h>
#include <stdlib.h>
#ifndef NI
#  define NI 7
#endif
#ifndef NJ
#  define NJ 5
#endif
#ifndef NK
#  define NK 6
#endif
#define NMAX 40
static void kernel(int ni, int nj, int nk, double alpha, double C[NMAX][NMAX], double A[NMAX][NMAX],
                   double B[NMAX][NMAX], double x[NMAX]) {
  int i, j, k;
#pragma scop
BODY
#pragma endscop
}
int main(void) {
  double (*A)[NMAX] = malloc(sizeof(double[NMAX][NMAX]));
  double (*B)[NMAX] = malloc(sizeof(double[NMAX][NMAX]));
  double (*C)[NMAX] = malloc(sizeof(double[NMAX][NMAX]));
  double *x = malloc(sizeof(double[NMAX]));
  int i, j;
  for (i = 0; i < NMAX; i++) {
    x[i] = 0.25 + i % 5;
    for (j = 0; j < NMAX; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11 + 0.5) / 3.0;
      B[i][j] = ((i * 5 + j) % 13 - 1.5) / 7.0;
      C[i][j] = (i + j * 11) % 7 * 0.1;
    }
  }
  kernel(NI, NJ, NK, 1.1, C, A, B, x);
  for (i = 0; i < NMAX; i++)
    for (j = 0; j < NMAX; j++)
      printf("%a %a %a\n", A[i][j], C[i][j], x[i]);
  free(A); free(B); free(C); free(x);
  return 0;
}
"""

# C[i][j] (written) and x[i] (read only) are invariant in k
GEMM = """  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j] * x[i];"""
# A[i][j] is invariant in k, but A[i][k] reads it when k == j
SELF = """  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        A[i][j] += A[i][k] * B[k][j];"""
# triangular: C[k][j] reads C[i][j] in the last iteration (k == i)
TRIANGLE = """  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k <= i; k++)
        C[i][j] += C[k][j] * A[i][k];"""
# triangular, strictly: C[k][j] with k < i is never C[i][j], but once jammed, row
# i + 1 reads C[i][j] (k == i) while row i keeps its element
BELOW = """  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < i; k++)
        C[i][j] += A[i][k] * C[k][j];"""
# the k loop is empty for the last row: C[i + 1][j] = C[ni][j] must then not be read
EDGE = """  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = i + 1; k < nk; k++)
        C[i + 1][j] += A[i][k] * B[k][j];"""


def kernel(body: str) -> ps.Program:
    return ps.Program.from_source(MAIN.replace("BODY", body), filename="kernel.c")


def scalars(text: str, array: str) -> list[str]:
    """The local scalars the code declares for ``array``, each name once (the full
    strips of a jammed loop and its partial strip declare theirs in blocks of their own)."""
    return list(dict.fromkeys(re.findall(rf"\bdouble ({array}_r\d+)\b", text)))


def assert_equal(q: ps.Program, dataset=None, **options):
    result = q.verify(dataset, **EXACT, **options)
    assert result.status == "equal", result.reason


def loop_with_store(text: str, loop_iterator: str, element: str, scalar: str) -> bool:
    """The loop over ``loop_iterator`` uses ``scalar`` and is followed, at its own
    indentation, by ``element = scalar;`` (possibly under an ``if``)."""
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if re.match(rf"\s*for \(int {loop_iterator} = ", line):
            indent = len(line) - len(line.lstrip())
            end = next(e for e in range(k + 1, len(lines))
                       if len(lines[e]) - len(lines[e].lstrip()) <= indent and lines[e].strip() != "")
            if lines[end].strip() == "}":
                body, end = lines[k + 1:end], end + 1
            else:
                body = lines[k + 1:end]
            used = any(re.search(rf"\b{scalar}\b", b) for b in body)
            after = [lines[e].strip() for e in range(end, min(end + 8, len(lines)))]
            return used and f"{element} = {scalar};" in after
    return False


# -- the mark -------------------------------------------------------------------------------

def test_jam_mark_in_the_vocabulary():
    assert Jam in MARK_TYPES and parse_mark("jam") == Jam() and Jam().text() == "jam"
    with pytest.raises(ps.MarkError):
        parse_mark("jam(2)")
    p = ps.Program.from_file(get("gemm").path).auto_schedule("pluto")
    q = p.unroll_and_jam("S1", 0, 2)
    assert '"jam"' in str(q.schedule) and q.check().legal       # legality knows the mark


# -- gemm of the suite --------------------------------------------------------------------

@pytest.fixture(scope="module")
def gemm():
    return ps.Program.from_file(get("gemm").path).auto_schedule("pluto")


def test_gemm_keeps_c_in_registers_across_k(gemm):
    q = gemm.unroll_and_jam("S1", 0, 2)                      # floor(i/2), j, k, i
    text = q.region_code()
    assert scalars(text, "C") == ["C_r0", "C_r1"]
    assert "double C_r0 = C[2 * c0][c1];" in text              # loaded before the k loop
    # full strips (isolated from the partial one) load both rows unguarded; the last
    # row of an odd NI is a strip of its own, with its element in a scalar too
    assert "double C_r1 = C[2 * c0 + 1][c1];" in text and "for (int c0 = 0; c0 < NI / 2; c0 += 1)" in text
    assert "double C_r0 = C[NI - 1][c1];" in text
    assert "C_r0 += alpha * A[2 * c0][c2] * B[c2][c1];" in text
    assert "C[2 * c0][c1] +=" not in text and "C[2 * c0 + 1][c1] +=" not in text
    assert loop_with_store(text, "c2", "C[2 * c0][c1]", "C_r0")
    assert loop_with_store(text, "c2", "C[2 * c0 + 1][c1]", "C_r1")
    # the same loops without it: only loads and stores differ
    plain = q.region_code(options=EmitOptions(scalar_replacement=False))
    assert not scalars(plain, "C") and "C[2 * c0][c1] += alpha" in plain
    assert_equal(q, "MINI")
    assert_equal(q, "SMALL")


@pytest.mark.parametrize("steps", [
    lambda p: p.tile("S1", [32, 64, 128]).unroll_and_jam("S1", 3, 2),
    lambda p: p.tile("S1", [32, 64, 128]).unroll_and_jam("S1", 3, 3),          # 32 % 3: remainders
    lambda p: p.tile("S1", [8, 8, 8]).unroll_and_jam("S1", 3, 3).unroll_and_jam("S1", 4, 2),
])
def test_gemm_tiled_and_jammed(gemm, steps):
    q = steps(gemm)
    text = q.region_code()
    assert len(scalars(text, "C")) >= 2
    assert not re.search(r"\bC\[[^]]*\]\[[^]]*\] \+=", text.split("} else {")[0])
    assert_equal(q, "MINI")
    assert_equal(q, "SMALL")


# -- small kernels --------------------------------------------------------------------------

@pytest.mark.parametrize("factor", [2, 3])
def test_written_and_read_only_elements(factor):
    q = kernel(GEMM).unroll_and_jam("S0", 0, factor)          # ni = 7: a remainder row
    text = q.region_code()
    assert len(scalars(text, "C")) == factor and len(scalars(text, "x")) == factor
    assert loop_with_store(text, "c2", f"C[{factor} * c0][c1]", "C_r0")
    assert f"double x_r0 = x[{factor} * c0];" in text
    assert not re.search(r"\bx\[[^]]*\] = x_r", text)           # read only: never stored
    assert "* x_r0;" in text and "A[" in text and "B[c2][c1]" in text   # varying ones stay
    assert_equal(q)
    assert_equal(q, defines={"NI": "11", "NJ": "4", "NK": "9"})


def test_jam_of_the_middle_loop():
    q = kernel(GEMM).unroll_and_jam("S0", 1, 2)               # i, floor(j/2), k, j
    text = q.region_code()
    assert scalars(text, "C") == ["C_r0", "C_r1"] and scalars(text, "x") == ["x_r0"]
    assert_equal(q)
    assert_equal(q, defines={"NI": "3", "NJ": "9", "NK": "2"})


@pytest.mark.parametrize("body,array", [(SELF, "A"), (TRIANGLE, "C")])
def test_no_replacement_when_another_reference_may_touch_the_element(body, array):
    q = kernel(body).unroll_and_jam("S0", 0, 2)
    text = q.region_code()
    assert not scalars(text, array)
    assert re.search(rf"\b{array}\[2 \* c0\]\[c1\] \+=", text)   # still in memory
    assert_equal(q)
    assert_equal(q, defines={"NI": "9", "NJ": "8", "NK": "8"})


def test_triangle_one_copy_kept_the_other_not():
    """Jammed rows 2c0 and 2c0 + 1 of BELOW: the k loop reads C[k][j] for k <= 2c0,
    which includes row 2c0's element (not replaced) but never row 2c0 + 1's (kept in a
    scalar): isl decides per element, over the triangular bounds."""
    q = kernel(BELOW).unroll_and_jam("S0", 0, 2)
    text = q.region_code()
    assert scalars(text, "C") == ["C_r0"]
    assert re.search(r"C_r0 = C\[2 \* c0 \+ 1\]\[c1\];", text)
    assert re.search(r"\bC\[2 \* c0\]\[c1\] \+= A\[2 \* c0\]\[c2\] \* C\[c2\]\[c1\];", text)
    assert "C_r0 += A[2 * c0 + 1][c2] * C[c2][c1];" in text
    assert_equal(q)
    assert_equal(q, defines={"NI": "10", "NJ": "3", "NK": "10"})


def test_no_replacement_when_arrays_may_overlap():
    """Without versioning's run-time non-overlap check, C may alias A or B."""
    q = kernel(GEMM).unroll_and_jam("S0", 0, 2)
    assert scalars(q.region_code(), "C")
    bare = q.region_code(options=EmitOptions(versioning=False))
    assert not scalars(bare, "C") and not scalars(bare, "x")


# -- edges ----------------------------------------------------------------------------------

@pytest.mark.parametrize("sizes", [
    {"NI": "0"}, {"NI": "1"}, {"NJ": "0"}, {"NJ": "1"}, {"NK": "0"}, {"NK": "1"},
    {"NI": "1", "NJ": "1", "NK": "1"}, {"NI": "2", "NJ": "1", "NK": "1"},
])
def test_parameter_edges(sizes):
    for factor in (2, 3):
        assert_equal(kernel(GEMM).unroll_and_jam("S0", 0, factor), defines=sizes)


def test_an_element_the_loop_never_touches_is_never_loaded():
    """In EDGE the k loop of the last row is empty, and C[ni][j] lies past the end of
    C: it must never be loaded or stored (the scalars' loads are guarded by the exact
    set of outer iterations where the loop touches them), which ASan checks at ni = NMAX."""
    q = kernel(EDGE).unroll_and_jam("S0", 0, 2)
    text = q.region_code()
    assert scalars(text, "C") == ["C_r0", "C_r1"]
    # the full strips, isolated, are those where both rows' k loops run (nk >= 2 * c0 + 3):
    # C_r1's load needs no guard there; the other strips run apart, one row each
    assert "for (int c0 = 0; c0 < polysched_min(ni / 2, (nk + 1) / 2 - 1); c0 += 1)" in text
    assert "double C_r1 = C[2 * c0 + 2][c1];" in text and "C[2 * c0 + 2][c1] = C_r1;" in text
    for sizes in ({"NI": "1"}, {"NI": "2", "NK": "2"}, {"NI": "3", "NK": "3"}, {"NI": "8", "NK": "5"}):
        assert_equal(q, defines=sizes)
    if not compiler_accepts("cc", "-fsanitize=address"):
        pytest.skip("no AddressSanitizer")
    assert_equal(q, defines={"NI": "40", "NJ": "40", "NK": "40"},
                 cflags=["-O1", "-fsanitize=address", "-fno-omit-frame-pointer"])


# -- every innermost loop, not only jammed ones -----------------------------------------------

# bicg's fused product: x[i] accumulates along k (invariant element), C[i][k] does not
ACCUMULATE = """  for (i = 0; i < ni; i++)
    for (k = 0; k < nk; k++) {
      C[0][k] = C[0][k] + x[i] * A[i][k];
      x[i] = x[i] + A[i][k] * B[0][k];
    }"""


def test_an_accumulator_of_a_plain_innermost_loop_lives_in_a_scalar():
    """No Jam mark: the innermost k loop's invariant element x[i] is loaded once and
    stored once (gcc can then vectorize the loop's other statement around an in-order
    reduction), C[0][k] varies with k and stays in memory; outputs bit-identical."""
    q = kernel(ACCUMULATE).auto_schedule("identity")
    text = q.region_code()
    assert scalars(text, "x") == ["x_r0"] and not scalars(text, "C")
    assert loop_with_store(text, "c1", "x[c0]", "x_r0")
    assert "x_r0 = x_r0 + A[c0][c1] * B[0][c1];" in text
    plain = q.region_code(options=EmitOptions(scalar_replacement=False))
    assert not scalars(plain, "x") and "x[c0] = x[c0] + A[c0][c1] * B[0][c1];" in plain
    assert_equal(q)
    for sizes in ({"NI": "0"}, {"NK": "0"}, {"NI": "1", "NK": "1"}, {"NI": "13", "NK": "17"}):
        assert_equal(q, defines=sizes)


def test_gemm_untiled_keeps_c_in_a_scalar(gemm):
    text = gemm.region_code()
    assert scalars(text, "C") == ["C_r0"] and "C_r0 += alpha * A[c0][c2] * B[c2][c1];" in text
    assert_equal(gemm, "MINI")


# helper-30: a time loop with a parametric start and step 2 over a 1-d stencil. The
# tile loops' bounds divide sums of parameters (C's / splits on the sign): the set of
# values known around the innermost loop had 33 pieces and each load guard 6 (1,100
# characters); scalar replacement took 18 s per loop and code generation ran past its
# budget, so the region came out untiled
PARAMETRIC_START = r"""#include <stdio.h>
#define N 37
#define T 7
static int kernel(int t0, int t1, int lo, int hi, double A[N + 8], double B[N + 8], double coef[T + 8]) {
  int t, i;
#pragma scop
  for (t = t0; t < t1; t += 2) {
    for (i = lo; i < hi; i++)
      B[i + 1] = coef[t] * (A[i] + A[i + 2]) + A[i + 1];
    for (i = lo + 1; i <= hi; i++)
      A[i] = B[i] - coef[t + 1] * B[i + 1];
  }
#pragma endscop
  return t * 1000 + i;
}
int main(void) {
  static double A[N + 8], B[N + 8], coef[T + 8];
  for (int i = 0; i < N + 8; i++) { A[i] = (i * 7 % 13) / 3.0 + 0.1; B[i] = (i * 3 % 11) / 7.0; }
  for (int i = 0; i < T + 8; i++) coef[i] = 0.1 + i * 0.01;
  int r = kernel(1, T + 1, 2, N, A, B, coef);
  printf("%d", r);
  for (int i = 0; i < N + 8; i++) printf(" %a %a", A[i], B[i]);
  printf("\n");
  return 0;
}
"""


def test_parametric_start_stencil_is_tiled_with_simple_guards(tmp_path):
    from polysched import pipeline
    from polysched.bench import verify

    src = tmp_path / "par1d.c"
    src.write_text(PARAMETRIC_START)
    result = pipeline.optimize(src, pipeline.OptimizeOptions.from_flags(tile=True, parallel=True))
    [region] = result.regions
    assert region.tiling.tiled and not region.fallback, region.fallback
    out = tmp_path / "out.c"
    out.write_text(result.text)
    verdict = verify(src, out, rtol=0, atol=0)       # at 1 and 2 threads
    assert verdict.status == "equal", verdict


def test_an_expanded_accumulator_lives_in_a_scalar_across_its_reduction():
    """symm's ``acc``, expanded into ``acc_x[j]``: its statement's body is rewritten from
    the source (``acc_x[j] += ...``, no source span to locate the reference by) and
    ``acc_x`` is an array the region allocates, so it overlaps none of the others. The
    k loop's invariant element lives in a scalar, C[k][j] beside it stays in memory;
    outputs bit-identical, also tiled and parallel at 2 threads."""
    expanded = ps.Program.from_file(get("symm").path).expand_scalars()
    q = expanded.auto_schedule("identity")
    text = q.region_code()
    assert scalars(text, "acc_x") == ["acc_x_r0"] and not scalars(text, "C")
    assert "acc_x_r0 += B[c2][c1] * A[c0][c2];" in text
    assert loop_with_store(text, "c2", "acc_x[c1]", "acc_x_r0")
    assert_equal(q, "MINI")
    assert_equal(q, "SMALL")
    tiled = expanded.auto_schedule().auto_tile(parallel=True)
    assert re.search(r"acc_x_r0 \+= B\[c\d\]\[c\d\] \* A\[c\d\]\[c\d\];", tiled.region_code())
    assert_equal(tiled, "SMALL", threads=2)


# -- one iteration: an element that moves with the loop, touched by several calls ------------

# x[j] moves with the innermost j loop; once i is jammed, each copy updates it in the
# same iteration (gramschmidt's R[k][j] += Q[i][k] * A[i][j], jammed along i)
COLUMN_SUM = """  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      x[j] += A[i][j] * B[0][i];"""
# two statements of one body update one element
TWO_UPDATES = """  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      C[i][j] = A[i][j] * 2.0;
      C[i][j] += B[i][j];
      x[j] += C[i][j];
    }"""


def iteration_body(text: str, loop_iterator: str) -> list[str]:
    """The lines of the first loop over ``loop_iterator``'s block, without its braces."""
    lines = text.splitlines()
    k = next(k for k, line in enumerate(lines) if re.match(rf"\s*for \(int {loop_iterator} = .*\{{$", line))
    indent = len(lines[k]) - len(lines[k].lstrip())
    end = next(e for e in range(k + 1, len(lines)) if lines[e] == " " * indent + "}")
    return [line.strip() for line in lines[k + 1:end]]


@pytest.mark.parametrize("factor", [2, 3])
def test_jammed_copies_update_one_scalar_per_iteration(factor):
    q = kernel(COLUMN_SUM).auto_schedule("identity").unroll_and_jam("S0", 0, factor)
    text = q.region_code()
    body = iteration_body(text, "c1")
    # loaded first, updated by every copy, stored last: one load and one store of x
    assert body[0] == "double x_r0 = x[c1];" and body[-1] == "x[c1] = x_r0;", body
    assert [line.split(" +=")[0] for line in body[1:-1]] == ["x_r0"] * factor
    # B[0][i] is invariant in j: the loop's own scalars, around it
    assert "double B_r0 = B[0][" + str(factor) + " * c0];" in text
    plain = q.region_code(options=EmitOptions(scalar_replacement=False))
    assert plain.count("x[c1] += ") >= factor and "x_r0" not in plain
    assert_equal(q)
    for sizes in ({"NI": "0"}, {"NJ": "0"}, {"NI": "1", "NJ": "1"}, {"NI": "2"}, {"NI": "4", "NJ": "9"},
                  {"NI": "5", "NJ": "1"}, {"NI": "40", "NJ": "40"}):
        assert_equal(q, defines=sizes)


def test_the_remainder_copies_under_guards_share_the_scalar():
    """NI % 3 rows left over: the second copy runs under ``if``; the load and the store
    run unguarded, since the first copy runs in every iteration (ASan: nothing past
    the end of x is touched at NJ = NMAX)."""
    q = kernel(COLUMN_SUM).auto_schedule("identity").unroll_and_jam("S0", 0, 3)
    remainder = q.region_code().split("if (ni % 3 >= 1)")[1].split("} else {")[0]
    body = iteration_body(remainder, "c1")
    assert body[0] == "double x_r0 = x[c1];" and body[-1] == "x[c1] = x_r0;", body
    assert any(line.startswith("if (") for line in body) and "x_r0 += A[ni - 1][c1] * B_r1;" in body
    if not compiler_accepts("cc", "-fsanitize=address"):
        pytest.skip("no AddressSanitizer")
    for ni in ("4", "5"):
        assert_equal(q, defines={"NI": ni, "NJ": "40"},
                     cflags=["-O1", "-fsanitize=address", "-fno-omit-frame-pointer"])


def test_statements_of_one_body_share_a_scalar_for_their_element():
    """No jam: C[i][j] is written, updated and read by three statements of one
    iteration; x[j] by one only (left to the compiler)."""
    q = kernel(TWO_UPDATES).auto_schedule("identity")
    text = q.region_code()
    body = iteration_body(text, "c1")
    assert body == ["double C_r0 = 0;", "C_r0 = A[c0][c1] * 2.0;", "C_r0 += B[c0][c1];", "x[c1] += C_r0;",
                    "C[c0][c1] = C_r0;"], body              # written first: never loaded
    for sizes in ({}, {"NI": "0"}, {"NJ": "1"}, {"NI": "13", "NJ": "17"}):
        assert_equal(q, defines=sizes)


def test_elements_only_read_by_the_copies_stay_in_memory(gemm):
    """gemm jammed along i: both copies read B[k][j] in one iteration of k, with no store
    between them; the compiler loads it once itself."""
    text = gemm.unroll_and_jam("S1", 0, 2).region_code()
    assert "A[2 * c0][c2] * B[c2][c1];" in text and "B_r" not in text


def test_no_iteration_scalars_when_arrays_may_overlap():
    q = kernel(COLUMN_SUM).auto_schedule("identity").unroll_and_jam("S0", 0, 2)
    bare = q.region_code(options=EmitOptions(versioning=False))
    assert "x_r0" not in bare and "x[c1] += A[2 * c0][c1]" in bare


def test_gramschmidt_parallel_tiles_keep_r_in_a_scalar_per_iteration(tmp_path):
    """The suite's gramschmidt under --tile --parallel: the jammed column update
    ``R[c0][c4] += Q_r * A[..][c4]`` (4 copies) inside the outlined parallel loop loads
    and stores R once per iteration; bit-identical at 1 and 2 threads."""
    from polysched import pipeline
    from polysched.bench import verify

    path = get("gramschmidt").path
    result = pipeline.optimize(path, pipeline.OptimizeOptions.from_flags(tile=True, parallel=True))
    [region] = result.regions
    assert not region.fallback, region.fallback
    optimized = result.text.split("/* polysched: the original code")[0]
    assert not re.search(r"\bR\[c\d\]\[c\d\] \+=", optimized)
    assert re.search(r"double R_r0 = R\[c0\]\[c4\];\n(\s*R_r0 \+= Q_r\d \* A\[4 \* c3( \+ \d)?\]\[c4\];\n){4}"
                     r"\s*R\[c0\]\[c4\] = R_r0;", optimized)
    out = tmp_path / "gramschmidt.c"
    out.write_text(result.text)
    for dataset in ("MINI", "SMALL"):
        verdict = verify(path, out, dataset=dataset, rtol=0, atol=0)       # at 1 and 2 threads
        assert verdict.status == "equal", verdict


def test_no_iteration_scalar_that_needs_a_guard_in_a_tile():
    """deriche's tiled sweeps: y1's element of an iteration is written and read back by
    the next statement (a scalar, unguarded), but in the tiles a group would need a
    guard whose products (``128 * W``) need more than int: no scalar there, and the
    counters stay int."""
    from polysched import pipeline

    result = pipeline.optimize(get("deriche").path, pipeline.OptimizeOptions.from_flags(tile=True, parallel=True))
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "long long ps_c" not in optimized and "for (int ps_c0 = 0; ps_c0 < W; ps_c0 += 1)" in optimized
    assert "ym1 = y1_r0;" in optimized and "y1[ps_c0][ps_c1] = y1_r0;" in optimized


# gramschmidt's column update on float arrays given as restrict pointers, linearised,
# with unsigned long sizes and counters
LINEARISED = r"""#include <stdio.h>
#include <stdlib.h>
#ifndef N
#  define N 300
#endif
#ifndef M
#  define M 257
#endif
static void kernel(unsigned long n, unsigned long m, float *restrict r, const float *restrict q,
                   const float *restrict a) {
#pragma scop
  for (unsigned long k = 0; k < n; k++)
    for (unsigned long i = 0; i < m; i++)
      for (unsigned long j = k + 1; j < n; j++)
        r[k * n + j] += q[i * n + k] * a[i * n + j];
#pragma endscop
}
int main(void) {
  unsigned long n = N, m = M;
  float *r = malloc(sizeof(float) * (n * n + 1)), *q = malloc(sizeof(float) * (m * n + 1));
  float *a = malloc(sizeof(float) * (m * n + 1));
  for (unsigned long x = 0; x < n * n; x++) r[x] = (x % 7) * 0.25f;
  for (unsigned long x = 0; x < m * n; x++) { q[x] = (x % 11) / 3.0f; a[x] = (x % 13) / 7.0f; }
  kernel(n, m, r, q, a);
  printf("%lu %lu\n", n, m);
  for (unsigned long x = 0; x < n * n; x++) printf("%a\n", r[x]);
  free(r); free(q); free(a);
  return 0;
}
"""


def test_linearised_unsigned_float_column_update(tmp_path):
    """Tiled, parallel and jammed by the default policy: the jammed copies of one
    iteration update ``r_r0`` (a float), loaded and stored once; bit-identical at 1 and
    2 threads, at the sizes' edges (0, 1) and at sizes the tiles do not divide."""
    from polysched import pipeline
    from polysched.bench import verify

    src = tmp_path / "lin.c"
    src.write_text(LINEARISED)
    result = pipeline.optimize(src, pipeline.OptimizeOptions.from_flags(tile=True, parallel=True))
    [region] = result.regions
    assert not region.fallback, region.fallback
    optimized = result.text.split("/* polysched: the original code")[0]
    assert re.search(r"float r_r0 = r\[\(c\d\) \* \(n\) \+ \(c\d\)\];\n(\s*r_r0 \+= q_r\d \* a\[.*\];\n){4}"
                     r"\s*r\[\(c\d\) \* \(n\) \+ \(c\d\)\] = r_r0;", optimized)
    out = tmp_path / "out.c"
    out.write_text(result.text)
    for sizes in ({}, {"N": "0"}, {"M": "0"}, {"N": "1", "M": "1"}, {"N": "2", "M": "5"}, {"N": "33", "M": "7"}):
        verdict = verify(src, out, defines=sizes, rtol=0, atol=0)       # at 1 and 2 threads
        assert verdict.status == "equal", (sizes, verdict)


# struct elements copied whole: P[i] is written first, in the t loop (around it) and in
# one iteration (two statements)
STRUCTS = r"""#include <stdio.h>
struct pt { double x, y; };
#ifndef N
#  define N 50
#endif
static struct pt P[N + 1], Q[N + 1], R[N + 1];
int main(void) {
  for (int i = 0; i < N; i++) { Q[i].x = i * 0.5; Q[i].y = -i; }
  int n = N;
#pragma scop
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < n; i++) {
      P[i] = Q[i];
      R[i] = P[i];
    }
#pragma endscop
  printf("%d\n", n);
  for (int i = 0; i < N; i++) printf("%a %a %a\n", R[i].x, R[i].y, P[i].x);
  return 0;
}
"""


@pytest.mark.parametrize("flags", [{}, {"parallel": True}, {"tile": True, "parallel": True}])
def test_a_struct_element_written_first_gets_a_struct_initialiser(tmp_path, flags):
    """A scalar that is written before it is read is declared with an initialiser (gcc
    -Wall would warn otherwise); ``struct pt P_r0 = 0`` did not compile."""
    from polysched import pipeline
    from polysched.bench import verify

    src = tmp_path / "structs.c"
    src.write_text(STRUCTS)
    result = pipeline.optimize(src, pipeline.OptimizeOptions.from_flags(**flags))
    assert re.search(r"struct pt P_r0 = \{0\};", result.text), result.text
    out = tmp_path / "out.c"
    out.write_text(result.text)
    for sizes in ({}, {"N": "0"}, {"N": "1"}):
        verdict = verify(src, out, defines=sizes, rtol=0, atol=0)
        assert verdict.status == "equal", (sizes, verdict)
