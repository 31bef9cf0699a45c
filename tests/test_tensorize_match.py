"""The SAT matcher finds exactly the brute-force oracle's matches, on every suite kernel
x every shipped intrinsic and on hand-written cases; legality and extents verdicts are
checked on cases whose answer is known by hand."""
import time
from pathlib import Path

import pytest

from polysched.scop import extract
from polysched.tensorize import builtin_intrinsics, load_intrinsics, match_statement
from polysched.tensorize.brute import brute_force_matches
from polysched.tensorize.problem import make_problem
from polysched.tensorize.sat import sat_matches

KERNELS = Path(__file__).resolve().parent.parent / "polysched" / "bench" / "kernels"
INTRINSICS = builtin_intrinsics()
BY_NAME = {i.name: i for i in INTRINSICS}


def _scop(text):
    [scop] = extract(text, filename="t.c")
    return scop


def test_sat_equals_brute_force_on_the_suite():
    """Every statement of every suite kernel x every intrinsic; a few expected hits."""
    hits = {}
    pairs = 0
    slowest = 0.0
    for path in sorted(KERNELS.glob("*.c")):
        for scop in extract(str(path)):
            for stmt in scop.statements:
                for intrinsic in INTRINSICS:
                    problem = make_problem(scop, stmt, intrinsic)
                    start = time.perf_counter()
                    sat = sat_matches(problem)
                    slowest = max(slowest, time.perf_counter() - start)
                    brute = brute_force_matches(problem)
                    assert len(sat) == len(set(sat)), (path.stem, stmt.name, intrinsic.name)
                    assert set(sat) == set(brute), (path.stem, stmt.name, intrinsic.name)
                    pairs += 1
                    if sat:
                        hits[(path.stem, stmt.name, intrinsic.name)] = len(sat)
    assert pairs > 500
    # the goal (< 0.2 s per pair) is measured by experiments/tensorize_coverage.py, on a
    # quiet machine: here only a blow-up fails (this assertion once flaked at 0.32 s
    # under a loaded test run)
    assert slowest < 5.0
    assert hits[("gemm", "S1", "dgemm_4x8_scaled")] == 1
    assert hits[("gemm", "S1", "dgemm_8x8_avx512_scaled")] == 1
    assert ("gemm", "S1", "dgemm_4x8") not in hits          # alpha * A * B has one more factor
    assert hits[("bmm", "S1", "dgemm_8x8_avx512")] == 1
    assert hits[("2mm", "S3", "dgemm_4x8")] == 1
    assert hits[("matmul-int8", "S1", "i8dot_s8s8_4x8")] == 1
    assert ("matmul-int8", "S1", "i8dot_u8s8_4x8") not in hits   # int8 A is not uint8
    assert hits[("conv2d-nhwc", "S1", "dgemm_4x8")] == 7
    assert hits[("conv2d-nchw", "S1", "mtile16_f64")] == 2
    assert hits[("conv2d-nhwc", "S1", "mtile16_f64")] == 2
    assert ("gemm", "S1", "mtile16_f64") not in hits             # 1000 x 1100 x 1200: no multiples


GEMM_LIKE = """
#define N {n}
#define M {m}
#define K {k}
void f({ct} C[N][M], {at} A[N][K], {bt} B[K][M]{extra})
{{
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      for (k = 0; k < K; k++)
        {body}
#pragma endscop
}}
"""


def _case(body="C[i][j] += A[i][k] * B[k][j];", n=32, m=32, k=32, t="double", extra="",
          at=None, bt=None):
    text = GEMM_LIKE.format(n=n, m=m, k=k, ct=t if t != "int8_t" else "int32_t", at=at or t,
                            bt=bt or t, extra=extra, body=body)
    scop = _scop(text)
    return scop, scop.statements[0]


def _matches(scop, stmt, name):
    [report] = match_statement(scop, stmt, [BY_NAME[name]])
    problem = make_problem(scop, stmt, BY_NAME[name])
    assert {m.key for m in report.matches} == set(brute_force_matches(problem))
    return report.matches


@pytest.mark.parametrize("body", [
    "C[i][j] += A[i][k] * B[k][j];",
    "C[i][j] = C[i][j] + A[i][k] * B[k][j];",
    "C[i][j] = B[k][j] * A[i][k] + C[i][j];",
])
def test_commutativity_and_accumulation(body):
    scop, stmt = _case(body)
    [m] = _matches(scop, stmt, "dgemm_4x8")
    assert m.loops == {"k": "k", "i": "i", "j": "j"} and m.arrays == {"C": "C", "A": "A", "B": "B"}
    assert m.legal and m.remainder == []
    tiles = _matches(scop, stmt, "mtile16_f64")      # also C^T += B^T A^T: any strides
    assert sorted(t.loops["i"] for t in tiles) == ["i", "j"] and all(t.legal for t in tiles)


def test_no_reassociation():
    scop, stmt = _case("C[i][j] = (C[i][j] + A[i][k]) * B[k][j];")
    assert _matches(scop, stmt, "dgemm_4x8") == []


def test_extents():
    scop, stmt = _case(n=30)          # 30 rows: 16 does not divide, 4 needs an epilogue
    assert _matches(scop, stmt, "mtile16_f64") == []
    [m] = _matches(scop, stmt, "dgemm_4x8")
    assert m.remainder == ["i"] and m.legal
    scop, stmt = _case(n=2)           # fewer rows than the kernel's 4
    assert _matches(scop, stmt, "dgemm_4x8") == []


def test_transposed_operands_need_strides():
    scop, stmt = _case("C[i][j] += A[i][k] * B[j][k];", extra="")
    assert _matches(scop, stmt, "dgemm_4x8") == []          # B's j is not stride-1
    tiles = _matches(scop, stmt, "mtile16_f64")             # general strides: fine
    assert len(tiles) == 2 and all(t.legal for t in tiles)
    scop, stmt = _case("C[j][i] += A[i][k] * B[k][j];")
    # C[j][i] with B[k][j]: C's stride-1 dim must be the kernel's j: i -> i is
    # impossible; i <-> j swapped gives A[j'][k] (not A[i][k]): no match
    assert _matches(scop, stmt, "dgemm_4x8") == []


def test_element_types():
    scop, stmt = _case(t="float")
    assert _matches(scop, stmt, "dgemm_4x8") == []
    assert len(_matches(scop, stmt, "sgemm_8x8")) == 1
    scop, stmt = _case(t="int8_t", at="uint8_t", bt="int8_t")
    assert len(_matches(scop, stmt, "i8dot_u8s8_4x8")) == 1
    assert _matches(scop, stmt, "i8dot_s8s8_4x8") == []


DEPENDENT = """
#define N 32
void f(double C[N][N], double A[N + 1][N], double B[N][N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
    for (k = 0; k < N; k++)
      A[i + 1][k] = A[i][k] + C[i][k];
  }
#pragma endscop
}
"""


def test_a_dependence_forbids():
    scop = _scop(DEPENDENT)
    [m] = _matches(scop, scop.statements[0], "dgemm_4x8")
    assert not m.legal
    assert "violates" in m.reason and "S1 -> S0" in m.reason
    # the same kernel without the row update is legal
    scop, stmt = _case(n=32)
    assert _matches(scop, stmt, "dgemm_4x8")[0].legal


def test_reordered_floating_point_reduction_is_illegal():
    """conv2d NCHW: mapping k to c sinks c below r and s, reordering the sum over
    (c, r, s); NHWC has c innermost of the three already."""
    [nchw] = extract(str(KERNELS / "conv2d-nchw.c"))
    [nhwc] = extract(str(KERNELS / "conv2d-nhwc.c"))
    bad = _matches(nchw, nchw.statement("S1"), "mtile16_f64")
    good = _matches(nhwc, nhwc.statement("S1"), "mtile16_f64")
    assert len(bad) == 2 and not any(m.legal for m in bad)
    assert len(good) == 2 and all(m.legal for m in good)


def test_affine_operands_match_a_convolution_window_and_nothing_else():
    """dgemm_packed_k3 (``affine: A B``) sums over three loops and reads its inputs
    through one stride per loop: conv2d's ``in[n][c][h + r][w + s]`` is its B with
    (c, r, s) as (k1, k2, k3), though two mapped loops share a subscript. Only the
    original summation order is legal; a loop the operand does not use (i for B) must
    not move it."""
    [nchw] = extract(str(KERNELS / "conv2d-nchw.c"))
    [nhwc] = extract(str(KERNELS / "conv2d-nhwc.c"))
    matches = _matches(nchw, nchw.statement("S1"), "dgemm_packed_k3")
    assert len(matches) == 6                       # the 3! orders of (c, r, s)
    [legal] = [m for m in matches if m.legal]
    assert legal.loops == {"k1": "c", "k2": "r", "k3": "s", "i": "k", "j": "w"}
    assert legal.arrays == {"C": "out", "A": "wt", "B": "in"}
    legal_nhwc = [m for m in _matches(nhwc, nhwc.statement("S1"), "dgemm_packed_k3") if m.legal]
    assert sorted(m.loops["i"] for m in legal_nhwc) == ["h", "n", "w"]
    assert all((m.loops["k1"], m.loops["k2"], m.loops["k3"], m.loops["j"]) == ("r", "s", "c", "k")
               for m in legal_nhwc)
    # B[k1][k2][k3][j] read as in[...][w + i]: B would move with i, which it does not use
    text = """
void f(double out[8][8][8], double in[8][8][8][16], double wt[8][8][8][8])
{
  int a, b, c, i, j;
#pragma scop
  for (a = 0; a < 8; a++) for (b = 0; b < 8; b++) for (c = 0; c < 8; c++)
    for (i = 0; i < 8; i++) for (j = 0; j < 8; j++)
      out[0][i][j] += wt[i][a][b][c] * in[a][b][c][j + i];
#pragma endscop
}
"""
    scop = _scop(text)
    assert _matches(scop, scop.statements[0], "dgemm_packed_k3") == []


def test_triangular_domain_is_not_a_box():
    text = GEMM_LIKE.replace("for (k = 0; k < K; k++)", "for (k = 0; k <= j; k++)")
    scop = _scop(text.format(n=32, m=32, k=32, ct="double", at="double", bt="double", extra="",
                             body="C[i][j] += A[i][k] * B[k][j];"))
    matches = _matches(scop, scop.statements[0], "dgemm_4x8")
    assert len(matches) == 1 and not matches[0].legal and "box" in matches[0].reason


def test_user_intrinsic_directory(tmp_path):
    """A new intrinsic is one description file, no Python: a 2-wide axpy."""
    (tmp_path / "axpy2.c").write_text("""/* polysched intrinsic
 * name: axpy2
 * function: my_axpy2
 * call: my_axpy2(base(X), base(Y), a)
 */
void axpy2(double a, double X[2], double Y[2])
{
  int i;
#pragma scop
  for (i = 0; i < 2; i++)
    Y[i] = Y[i] + a * X[i];
#pragma endscop
}
""")
    [axpy] = load_intrinsics(tmp_path)
    scop = _scop("""
void f(int n, double alpha, double x[100], double y[100][100])
{
  int i, j;
#pragma scop
  for (i = 0; i < 100; i++)
    for (j = 0; j < 100; j++)
      y[i][j] += alpha * x[j];
#pragma endscop
}
""")
    [report] = match_statement(scop, scop.statements[0], [axpy])
    assert [(m.loops, m.arrays, m.legal) for m in report.matches] == [
        ({"i": "j"}, {"Y": "y", "a": "alpha", "X": "x"}, True)]


def _why(scop, stmt, name):
    [report] = match_statement(scop, stmt, [BY_NAME[name]])
    assert report.matches == []
    return report.why_none


def test_why_nothing_matches():
    scop, stmt = _case(n=30)
    assert "multiples" in _why(scop, stmt, "mtile16_f64")
    scop, stmt = _case("C[i][j] += A[i][k] * B[j][k];")
    assert "unit-stride" in _why(scop, stmt, "dgemm_4x8")
    scop, stmt = _case(t="float")
    assert "element types" in _why(scop, stmt, "dgemm_4x8")
    scop, stmt = _case("C[i][j] += C[i][k] * B[k][j];")
    assert "also an input" in _why(scop, stmt, "dgemm_4x8")
    scop, stmt = _case("C[i][j] = (C[i][j] + A[i][k]) * B[k][j];")
    assert "expression" in _why(scop, stmt, "dgemm_4x8")


def test_a_loop_that_steps_by_two_maps_to_no_intrinsic_loop(tmp_path):
    """Fuzz seed 3, program 3369: ``l += 2`` is not a run of consecutive columns. With
    ``l++`` the same product matches dgemm_packed; with ``l += 2`` nothing matches, and
    the reason names the step (SAT and the brute-force oracle agree)."""
    from polysched.scop import extract
    from polysched.tensorize import load_intrinsics, match_statement
    body = """
double X[8][16], Y[8][8], Z[8][16];
void f(void) {
  int i, k, l;
#pragma scop
  for (i = 0; i < 8; i++)
    for (k = 0; k < 8; k++)
      for (l = 0; l < 16; l STEP)
        X[i][l] += Y[i][k] * Z[k][l];
#pragma endscop
}
"""
    [intrinsic] = load_intrinsics("dgemm_packed")
    for step, matched in (("++", True), ("+= 2", False)):
        path = tmp_path / f"p{len(step)}.c"
        path.write_text(body.replace("STEP", step))
        scop = extract(path)[0]
        [report] = match_statement(scop, scop.statements[0], [intrinsic])
        [oracle] = match_statement(scop, scop.statements[0], [intrinsic], method="brute")
        assert {m.key for m in report.matches} == {m.key for m in oracle.matches}
        assert bool(report.matches) == matched
        if not matched:
            assert "steps by more than 1" in report.why_none


def test_the_api_takes_intrinsics_by_name_and_refuses_other_values():
    """helper-92: a name where Intrinsic objects were expected was an AttributeError from
    inside the matcher, a list given to load_intrinsics a TypeError, and an unknown
    method ran SAT without a word."""
    import polysched as ps
    from polysched.bench import get
    from polysched.errors import ArgumentError
    from polysched.tensorize import auto_tensorize, load_intrinsics, match_scop
    program = ps.Program.from_file(get("gemm").path)
    by_name = match_scop(program.scop, "dgemm_4x8")
    assert [r.intrinsic for r in by_name] == ["dgemm_4x8", "dgemm_4x8"]
    assert [i.name for i in load_intrinsics(["dgemm_4x8", "sgemm_8x8"])] == ["dgemm_4x8", "sgemm_8x8"]
    _, report = auto_tensorize(program, "dgemm_packed_beta_scaled")
    assert any(item.applied for item in report) == any(item.applied for item in auto_tensorize(
        program, load_intrinsics("dgemm_packed_beta_scaled"))[1])
    with pytest.raises(ArgumentError, match="intrinsics must be Intrinsic objects"):
        match_scop(program.scop, 3)
    with pytest.raises(ArgumentError, match="method must be 'sat' or 'brute', got 'xyz'"):
        match_scop(program.scop, "dgemm_4x8", method="xyz")
