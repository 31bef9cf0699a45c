"""Band-of-statements matches: an intrinsic whose semantics starts with an init
statement (``C[i][j] *= beta;`` then ``C[i][j] += alpha * A[i][k] * B[k][j];``)
matches a pair of program statements. SAT and the brute-force oracle find the same
pairs; legality is decided with the exact dependences and the blocks (every call must
initialise exactly the elements it accumulates into); the applied program computes
what the original computes (both compiled and run, every output compared), with the
init statement run inside each call."""
import shutil

import pytest

import polysched as ps
from polysched.emit_c import without_pasted_headers as calls_only
from polysched.scop import extract
from polysched.tensorize import builtin_intrinsics, load_intrinsics, match_statement
from polysched.tensorize.intrinsic import IntrinsicError

KERNELS = "polysched/bench/kernels/"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
BANDS = [i for i in builtin_intrinsics() if i.init is not None]

# (kernel, the legal band matches: (main statement, intrinsic, init statement))
EXPECTED = [
    ("gemm", {("S1", "dgemm_packed_beta_scaled", "S0")}),
    ("2mm", {("S1", "dgemm_packed_zero_scaled", "S0"), ("S3", "dgemm_packed_beta", "S2")}),
    ("3mm", {("S1", "dgemm_packed_zero", "S0"), ("S3", "dgemm_packed_zero", "S2"),
             ("S5", "dgemm_packed_zero", "S4")}),
    ("syrk", set()),          # triangular: the mapped loops are no box
    ("symm", set()),
    ("trmm", set()),          # the scaling comes after the product
    ("doitgen", set()),
]


@pytest.mark.parametrize("kernel, legal", EXPECTED, ids=[k for k, _ in EXPECTED])
def test_sat_and_the_oracle_find_the_same_band_matches(kernel, legal):
    [scop] = extract(KERNELS + kernel + ".c")
    found = set()
    for stmt in scop.statements:
        sat = match_statement(scop, stmt, BANDS, method="sat")
        brute = match_statement(scop, stmt, BANDS, method="brute")
        for a, b in zip(sat, brute):
            assert [m.key for m in a.matches] == [m.key for m in b.matches], (stmt.name, a.intrinsic)
            assert [m.legal for m in a.matches] == [m.legal for m in b.matches]
            found |= {(stmt.name, m.intrinsic, m.init.statement) for m in a.matches if m.legal}
    assert found == legal


PROGRAM = """#include <stdio.h>
#ifndef N
#define N 10
#endif
#ifndef M
#define M 7
#endif
#ifndef K
#define K 5
#endif
static void kernel(double C[N][M], double A[N][K], double B[K][M], double s[N])
{
  int i, j, k, a, b;
#pragma scop
%s
#pragma endscop
}
int main(void)
{
  static double A[N][K + 1], B[K + 1][M], C[N][M], s[N];
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < K; j++) A[i][j] = 0.5 + i - 0.25 * j;
  for (i = 0; i < K; i++) for (j = 0; j < M; j++) B[i][j] = 1.5 - i + 0.125 * j;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) C[i][j] = 99.0 - j;
  for (i = 0; i < N; i++) s[i] = i;
  kernel(C, (double (*)[K]) A, (double (*)[M]) B, s);
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) printf("%%.17g\\n", C[i][j]);
  for (i = 0; i < N; i++) printf("%%.17g\\n", s[i]);
  return 0;
}
"""
INIT = """  for (a = 0; a < N; a++)
    for (b = 0; b < M; b++)
      C[a][b] = 0.0;
"""
PRODUCT = """  for (i = 0; i < N; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j < M; j++)
        C[i][j] += A[i][k] * B[k][j];
"""
READER = """  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      s[i] += C[i][j];
"""
HALF = """  for (a = 0; a < N; a++)
    for (b = 0; b < M - 1; b++)
      C[a][b] = 0.0;
"""
TWICE = """  for (a = 0; a < N; a++)
    for (b = 0; b < M; b++) {
      C[a][b] = 0.0;
      s[a] += 1.0;
    }
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      C[i][j] = 0.0;
"""


def _band4x4(tmp_path):
    """A user's band intrinsic with a fixed 4x4 shape (remainder blocks run as loops):
    one description file and one C function, no Python."""
    (tmp_path / "band4x4.c").write_text("""/* polysched intrinsic
 * name: band4x4
 * header: band4x4.h
 * function: band4x4
 * call: band4x4(K, base(A), rs(A), base(B), rs(B), base(C), rs(C))
 * stride1: A[1] B[1] C[1]
 * remainder: i j
 * doc: C = 0.0 then C += A * B over a 4x4 block
 */
void band4x4(int K, double C[4][4], double A[4][K], double B[K][4])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < 4; i++)
    for (j = 0; j < 4; j++) {
      C[i][j] = 0.0;
      for (k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
#pragma endscop
}
""")
    (tmp_path / "band4x4.h").write_text("""static inline void band4x4(long kk, const double *A, long rsA,
    const double *B, long rsB, double *C, long rsC)
{
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      double c = 0.0;
      for (long k = 0; k < kk; k++)
        c = c + A[i * rsA + k] * B[k * rsB + j];
      C[i * rsC + j] = c;
    }
}
""")
    [band] = load_intrinsics(tmp_path / "band4x4.c")
    return band


def _program(tmp_path, body, name="prog.c"):
    path = tmp_path / name
    path.write_text(PROGRAM % body)
    return path


@needs_gcc
@pytest.mark.parametrize("sizes", [{}, {"N": "8", "M": "8"}, {"N": "9", "M": "4", "K": "1"}])
def test_a_user_band_intrinsic_with_remainder_blocks(tmp_path, sizes):
    band = _band4x4(tmp_path)
    p = ps.Program.from_file(_program(tmp_path, INIT + PRODUCT), defines=sizes).tensorize("S1", band)
    [report] = match_statement(p.scop, p.scop.statement("S1"), [band])
    assert [(m.legal, m.init.statement, dict(m.init.loops)) for m in report.matches] == [(True, "S0", {"i": "a", "j": "b"})]
    code = calls_only(p.region_code())
    fast = code[:code.index("the original code")]
    assert fast.count("band4x4(") == 1
    result = p.verify(dataset=None, defines=sizes, include_dirs=[str(tmp_path)])
    assert result.status == "equal", result


@needs_gcc
@pytest.mark.parametrize("body, why", [
    (INIT + READER + PRODUCT, "violates"),                       # s reads the zeros first
    (HALF + PRODUCT, "does not initialise exactly the elements"),
    (PRODUCT + INIT, "violates"),                                # the init comes after
    (TWICE + PRODUCT, None),                                     # the second init is the one
], ids=["reader-between", "half", "after", "two-inits"])
def test_band_legality(tmp_path, body, why):
    band = _band4x4(tmp_path)
    program = ps.Program.from_file(_program(tmp_path, body))
    main = [s for s in program.scop.statements if "+=" in s.body and "A[i][k]" in s.body][0]
    [report] = match_statement(program.scop, main, [band])
    legal = [m for m in report.matches if m.legal]
    if why is None:
        assert [m.init.statement for m in legal] == ["S2"]
        assert [m.legal for m in report.matches if m.init.statement == "S0"] == [False]
        p = program.tensorize(main.name, band)
        assert p.verify(dataset=None, include_dirs=[str(tmp_path)]).status == "equal"
        return
    assert report.matches and not legal
    assert all(why in m.reason for m in report.matches), [m.reason for m in report.matches]
    with pytest.raises(ps.TransformError, match="no legal match of band4x4"):
        program.tensorize(main.name, band)


@needs_gcc
@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
def test_the_suite_products_run_their_inits_in_the_calls(portable):
    from polysched.bench.harness import DEFAULT_CFLAGS
    cflags = {"cflags": [*DEFAULT_CFLAGS, "-DPOLYSCHED_FORCE_PORTABLE"]} if portable else {}
    gemm = ps.Program.from_file(KERNELS + "gemm.c").tensorize("S1", "dgemm_packed_beta_scaled", parallel=True)
    fast = calls_only(gemm.region_code()).split("the original code")[0]
    # (each call twice: in its parallel loop, and in that loop's copy in place)
    assert "*= beta" not in fast and fast.count("polysched_dgemm_packed_beta_scaled(") == 2
    assert gemm.trace.steps[-1]["args"] == {"stmt": "S1", "intrinsic": "dgemm_packed_beta_scaled",
                                             "match": {"i": "i", "j": "j", "k": "k"}, "parallel": True}
    result = gemm.verify(threads=2, defines={"NI": "300", "NJ": "70", "NK": "290"}, **cflags)
    assert result.status == "equal" and "worst abs err 0," in str(result), result
    # three chained band matches: each later one keeps the earlier calls
    p = ps.Program.from_file(KERNELS + "3mm.c")
    for stmt in ("S1", "S3", "S5"):
        p = p.tensorize(stmt, "dgemm_packed_zero", parallel=True)
    assert calls_only(p.region_code()).count("/* polysched: tensorize dgemm_packed_zero */") == 6
    assert p.verify(threads=2, **cflags).status == "equal"
    # the trace replays to the same code
    again = ps.Program.from_file(KERNELS + "3mm.c").replay(p.trace)
    assert calls_only(again.region_code()) == calls_only(p.region_code())


def test_band_descriptions_are_checked(tmp_path):
    text = (tmp_path / "x.c")
    shipped = open("polysched/tensorize/intrinsics/dgemm_packed_beta.c").read()
    for changes, message in (
            ([("C[i][j] *= beta;", "A[i][0] *= beta;")], "must initialise the output"),
            ([("C[i][j] *= beta;", "C[i][j] *= beta[j];"), ("double beta,", "double beta[N],")], "must be a scalar"),
            ([("for (k = 0; k < K; k++)", "for (k = 0; k < 4; k++)")], "must take any extent")):
        changed = shipped
        for old, new in changes:
            changed = changed.replace(old, new)
        text.write_text(changed)
        with pytest.raises(IntrinsicError, match=message):
            load_intrinsics(text)


def _random_band_program(rng):
    """A product ``C[x][y] += [alpha *] A[x][z] * B[z][y]`` over literal extents, with an
    init of C of a random form and place: its own nest before (sometimes over one row
    or column fewer), inside the product's nest, or after it; sometimes a statement
    reading C in between. Returns the C text of a whole program that prints C and s."""
    ext = {v: rng.choice([4, 5, 8, 9]) for v in ("x", "y", "z")}
    order = rng.sample(["x", "y", "z"], 3)
    init = rng.choice(["C[%s][%s] = 0.0;", "C[%s][%s] *= beta;", "C[%s][%s] = beta * C[%s][%s];"])
    scaled = rng.random() < 0.4
    product = f"C[x][y] += {'alpha * ' if scaled else ''}A[x][z] * B[z][y];"
    place = rng.choice(["before", "before", "inside", "after"])
    short = rng.random() < 0.2
    reader = rng.random() < 0.2 and place == "before"
    nest = "".join("  " * (d + 1) + f"for ({v} = 0; {v} < {ext[v]}; {v}++)\n" for d, v in enumerate(order))
    body = "  " * 4 + product + "\n"
    own = (f"  for (a = 0; a < {ext['x'] - short}; a++)\n    for (b = 0; b < {ext['y']}; b++)\n"
           f"      {_fill(init, 'a', 'b')}\n")
    if place == "inside":
        region = (f"  for (x = 0; x < {ext['x']}; x++)\n    for (y = 0; y < {ext['y']}; y++) {{\n"
                  f"      {_fill(init, 'x', 'y')}\n      for (z = 0; z < {ext['z']}; z++)\n        {product}\n    }}\n")
    elif place == "after":
        region = nest + body + own
    else:
        between = f"  for (x = 0; x < {ext['x']}; x++)\n    for (y = 0; y < {ext['y']}; y++)\n      s[x] += C[x][y];\n"
        region = own + (between if reader else "") + nest + body
    return f"""#include <stdio.h>
static void kernel(double alpha, double beta, double C[9][9], double A[9][9], double B[9][9], double s[9])
{{
  int x, y, z, a, b;
#pragma scop
{region}#pragma endscop
}}
int main(void)
{{
  static double A[9][9], B[9][9], C[9][9], s[9];
  for (int i = 0; i < 9; i++) {{
    s[i] = i;
    for (int j = 0; j < 9; j++) {{ A[i][j] = 0.5 + i - 0.25 * j; B[i][j] = 1.5 - i + 0.125 * j; C[i][j] = 7.0 - i * j; }}
  }}
  kernel(1.25, -0.75, C, A, B, s);
  for (int i = 0; i < 9; i++) {{ for (int j = 0; j < 9; j++) printf("%.17g\\n", C[i][j]); printf("%.17g\\n", s[i]); }}
  return 0;
}}
"""


def _fill(init, a, b):
    return init.replace("%s", a, 1).replace("%s", b, 1).replace("%s", a, 1).replace("%s", b, 1)


@needs_gcc
def test_random_band_programs_sat_equals_the_oracle_and_applied_matches_verify(tmp_path):
    """30 random programs: the same band matches by SAT and by brute force; every legal
    match of the user's 4x4 band intrinsic (remainder blocks) and of the shipped ones
    applied, compiled and run against the original (at least 8 such runs)."""
    import random

    from polysched.tensorize.match import structural_matches
    from polysched.tensorize.brute import brute_force_matches
    from polysched.tensorize.problem import make_problem
    from polysched.tensorize.sat import sat_matches

    rng = random.Random(20261124)
    intrinsics = [_band4x4(tmp_path), *BANDS]
    runs = 0
    for n in range(30):
        path = tmp_path / f"r{n}.c"
        path.write_text(_random_band_program(rng))
        program = ps.Program.from_file(path)
        [main] = [s for s in program.scop.statements if "A[x][z]" in s.body]
        for intrinsic in intrinsics:
            problem = make_problem(program.scop, main, intrinsic)
            sat = {(s, p.init) for s, p in structural_matches(problem, sat_matches)}
            brute = {(s, p.init) for s, p in structural_matches(problem, brute_force_matches)}
            assert sat == brute, (path.read_text(), intrinsic.name)
            [report] = match_statement(program.scop, main, [intrinsic])
            legal = [m for m in report.matches if m.legal]
            if not legal or (runs >= 8 and intrinsic.name != "band4x4"):
                continue
            applied = program.tensorize(main.name, intrinsic, match=legal[0])
            result = applied.verify(dataset=None, include_dirs=[str(tmp_path)], threads=2)
            assert result.status == "equal", (path.read_text(), intrinsic.name, result)
            runs += 1
    assert runs >= 8
