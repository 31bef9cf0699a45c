"""Program.tensorize: the generated C calls the intrinsic on full blocks, runs the
statement on remainder tiles, and computes exactly what the original computes (both
compiled with -ffp-contract=off by polysched.bench.verify, run, every output compared),
on the host's ISA path and with -DPOLYSCHED_FORCE_PORTABLE."""
import re
import shutil

import pytest

from polysched.emit_c import without_pasted_headers as calls_only
import polysched as ps
import polysched.tensorize  # noqa: F401 (ps.tensorize)
from polysched.bench.harness import DEFAULT_CFLAGS
from polysched.errors import TransformError

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
KERNELS = "polysched/bench/kernels/"
PORTABLE = [*DEFAULT_CFLAGS, "-DPOLYSCHED_FORCE_PORTABLE"]


def _verify(program, defines=None, portable=False, cflags=None):
    kwargs = {"defines": defines} if defines else {}
    if portable:
        kwargs["cflags"] = PORTABLE
    if cflags:
        kwargs["cflags"] = cflags
    result = program.verify(**kwargs)
    assert result.status == "equal", result
    return result


@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
def test_gemm_scaled_kernel(portable):
    p = ps.Program.from_file(KERNELS + "gemm.c").tensorize("S1", "dgemm_4x8_scaled")
    # the header is pasted after the file's feature-test macro, before its first #include
    text = p.c_code()
    header = text.index("/* polysched_intrinsics.h, shipped with polysched: pasted in */\n")
    assert text.index("#  define _POSIX_C_SOURCE 200809L") < header < text.index("#include <stdio.h>")
    code = calls_only(p.c_code())
    # BLAS loop order: k blocks of 256, then column blocks, then row blocks
    assert re.search(r"polysched_dgemm_4x8_scaled\(\(\(polysched_min\(NK - 1, 256 \* c1 \+ 255\)\)"
                     r" - \(256 \* c1\) \+ 1\), alpha, &A\[c5\]\[c4\], \(long\)\(NK\), 1, &B\[c4\]\[c6\]", code)
    assert p.trace.steps[-1] == {"op": "tensorize", "args": {
        "stmt": "S1", "intrinsic": "dgemm_4x8_scaled", "match": {"k": "k", "i": "i", "j": "j"}}}
    # MINI: NI = 20, NJ = 25: remainder rows and columns run as loops; NK = 300: two
    # k blocks, the second partial
    _verify(p, portable=portable)
    _verify(p, {"NK": "300"}, portable=portable)
    # the trace replays to the same code
    again = ps.Program.from_file(KERNELS + "gemm.c").replay(p.trace)
    assert calls_only(again.c_code()) == code


@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
def test_int8_matmul(portable):
    p = ps.Program.from_file(KERNELS + "matmul-int8.c").tensorize("S1", "i8dot_s8s8_4x8")
    assert "polysched_i8dot_s8s8_4x8(" in calls_only(p.c_code())
    _verify(p, {"NI": "12", "NJ": "24", "NK": "37"}, portable)


def test_conv2d_nhwc_with_offsets_and_the_matrix_unit():
    """4-d arrays, subscripts h + r and w + s (unmapped loops move the base address),
    the 16x16x16 unit with transposed-stride operands."""
    sizes = {"NB": "2", "NH": "3", "NW": "9", "NK": "16", "NC": "5", "NR": "2", "NS": "3"}
    p = ps.Program.from_file(KERNELS + "conv2d-nhwc.c")
    q = p.tensorize("S1", "dgemm_4x8", match={"k": "c", "i": "w", "j": "k"})
    assert "polysched_dgemm_4x8(" in calls_only(q.c_code())
    _verify(q, sizes)
    t = p.tensorize("S1", "mtile16_f64", match={"i": "k", "j": "n", "k": "c"})
    assert "polysched_mtile16_f64(&wt[" in calls_only(t.c_code())
    _verify(t, {"NB": "16", "NH": "2", "NW": "3", "NK": "32", "NC": "16", "NR": "2", "NS": "1"})


@pytest.mark.parametrize("portable", [False, True], ids=["native", "portable"])
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_conv2d_as_one_product_over_the_whole_window(layout, portable):
    """dgemm_packed_k3: one call sums over (c, r, s) (NCHW) or (r, s, c) (NHWC) with the
    input window read through per-loop strides; sizes that leave edge blocks in every
    register-block dimension. The outputs are bit-identical to the original's."""
    sizes = {"NB": "2", "NH": "3", "NW": "13", "NK": "19", "NC": "5", "NR": "2", "NS": "3"}
    p = ps.Program.from_file(KERNELS + f"conv2d-{layout}.c").tensorize("S1", "dgemm_packed_k3")
    code = calls_only(p.c_code())
    assert code.count("polysched_dgemm_packed_k3(") == 1
    _verify(p, sizes, portable)


def test_illegal_and_missing_matches_raise():
    nchw = ps.Program.from_file(KERNELS + "conv2d-nchw.c")
    with pytest.raises(TransformError, match="no legal match of mtile16_f64 in S1: .*reorder"):
        nchw.tensorize("S1", "mtile16_f64")
    with pytest.raises(TransformError, match="illegal"):
        nchw.tensorize("S1", "mtile16_f64", match=0)
    gemm = ps.Program.from_file(KERNELS + "gemm.c")
    with pytest.raises(TransformError, match="does not match S1"):
        gemm.tensorize("S1", "dgemm_4x8")
    with pytest.raises(TransformError, match="no statement 'S9'"):
        gemm.tensorize("S9", "dgemm_4x8")


TRIANGULAR_SYRK = r"""
#include <stdio.h>
#define NM 40
double A[NM][NM], C[NM][NM];
void kernel(int n, int m) {
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= 1.5;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += A[i][k] * A[j][k];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NM; j++) {
      A[i][j] = ((i * 3 + j) % 17) / 3.0;
      C[i][j] = (i + j) % 4;
    }
  kernel(27, 19);
  double s = 0;
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NM; j++)
      s += C[i][j] * (i + 1) * (j + 2);
  printf("%.17g\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("match", [{"k": "k", "i": "i", "j": "j"}, 0])
def test_an_explicit_match_the_matcher_finds_illegal_is_refused(match):
    """helper-49: a match given by its loops or its index was applied although the
    matcher said illegal (the loops of a triangular syrk are no box): the call covered
    blocks the loops do not, 1208117.2 instead of 12363119.6, and check() said legal."""
    syrk = ps.Program.from_source(TRIANGULAR_SYRK, filename="syrk_tri.c")
    [dgemm_packed] = [i for i in ps.tensorize.builtin_intrinsics() if i.name == "dgemm_packed"]
    [report] = ps.tensorize.match_statement(syrk.scop, syrk.scop.statement("S1"), [dgemm_packed])
    assert report.matches and not any(m.legal for m in report.matches)
    with pytest.raises(TransformError, match="is illegal: the mapped loops .* do not form a box"):
        syrk.tensorize("S1", "dgemm_packed", match=match)


def test_parallel_blocks():
    p = ps.Program.from_file(KERNELS + "gemm.c").tensorize("S1", "dgemm_4x8_scaled", parallel=True)
    code = calls_only(p.c_code())
    # the column-block loop (inside the k blocks, which carry the reduction)
    assert re.search(r"#pragma omp parallel for( if\(.*\))?\n\s*for \(int c2 = 0; c2 <= \(NJ - 1\) / 8;", code)
    assert p.trace.steps[-1]["args"]["parallel"] is True
    result = p.verify(threads=2, defines={"NK": "300"})
    assert result.status == "equal", result


def test_a_user_intrinsic_end_to_end(tmp_path):
    """A new intrinsic = one description file + one C function, no Python: a 2-wide
    scaled add, found in a user program, applied, compiled against the user's header."""
    from polysched.tensorize import load_intrinsics

    (tmp_path / "axpy2.c").write_text("""/* polysched intrinsic
 * name: axpy2
 * header: my_axpy.h
 * function: my_axpy2
 * call: my_axpy2(base(X), base(Y), a)
 * remainder: i
 * doc: y[0..1] += a * x[0..1]
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
    (tmp_path / "my_axpy.h").write_text(
        "static inline void my_axpy2(const double *x, double *y, double a)\n"
        "{ y[0] = y[0] + a * x[0]; y[1] = y[1] + a * x[1]; }\n")
    program = tmp_path / "prog.c"
    program.write_text("""#include <stdio.h>
#define N 9
#define M 7
static void kernel(double alpha, double x[M], double y[N][M])
{
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      y[i][j] += alpha * x[j];
#pragma endscop
}
int main(void)
{
  double x[M], y[N][M];
  int i, j;
  for (j = 0; j < M; j++) x[j] = 0.5 + j;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) y[i][j] = i - 0.25 * j;
  kernel(1.25, x, y);
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) printf("%.17g\\n", y[i][j]);
  return 0;
}
""")
    [axpy] = load_intrinsics(tmp_path / "axpy2.c")
    p = ps.Program.from_file(program).tensorize("S0", axpy)
    code = calls_only(p.c_code())
    assert code.startswith('#include "my_axpy.h"\n') and "my_axpy2(&x[" in code
    result = p.verify(dataset=None, include_dirs=[str(tmp_path)])
    assert result.status == "equal", result


def test_primitives_compose_after_tensorize_and_leave_the_call_alone():
    """A tensorized program takes further primitives: the tiling policy plans the bands
    above the call but never the intrinsic's loops below its mark (tiling them dropped
    the mark, and with it the call), a block loop can be made parallel, another
    statement tiled; each result runs like the original."""
    from polysched import Program
    from polysched.bench.suite import get
    p = Program.from_file(get("gemm").path).tensorize("S1", "dgemm_packed_scaled")
    call = "polysched_dgemm_packed_scaled("
    mapped = {depth for depth, name in p.loops("S1") if name in ("k", "i", "j")}
    tiled = p.auto_tile(parallel=True)
    assert calls_only(tiled.c_code()).count(call) == 1
    assert not any(s["args"]["stmt"] == "S1" and s["args"].get("depth") in mapped
                   for s in tiled.tiling_report.steps())
    assert tiled.verify().ok
    [(block, _)] = [(d, n) for d, n in p.loops("S1") if n.startswith("floor(i")]
    parallel = p.parallel("S1", block)
    # the call twice: in the parallel loop, and in its copy in place
    assert calls_only(parallel.c_code()).count("#pragma omp parallel for") == 1 and calls_only(parallel.c_code()).count(call) == 2
    assert parallel.verify().ok
    other = p.tile("S0", [32, 32], 2)
    assert calls_only(other.c_code()).count(call) == 1 and other.verify().ok


def test_int8_matmul_written_with_casts():
    """``(int32_t)A[i][k] * (int32_t)B[k][j]`` is what integer promotion computes
    without the casts: it matches the int8 intrinsics as the plain product does."""
    text = open(KERNELS + "matmul-int8.c").read()
    plain = "C[i][j] += A[i][k] * B[k][j];"
    assert plain in text
    p = ps.Program.from_source(text.replace(plain, "C[i][j] += (int32_t)A[i][k] * (int32_t)B[k][j];"),
                               filename="matmul-int8-casts.c")
    q = p.tensorize("S1", "i8gemm_packed_s8s8")
    assert "polysched_i8gemm_packed_s8s8(" in calls_only(q.c_code())
    _verify(q, {"NI": "12", "NJ": "24", "NK": "37"})


SMALL_GEMM = r"""
#include <stdio.h>
double A[8][4], B[4][8], C[8][8];
void kernel(void) {
#pragma scop
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++)
      for (int k = 0; k < 4; k++)
        C[i][j] = C[i][j] + A[i][k] * B[k][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 8; i++) for (int k = 0; k < 4; k++) A[i][k] = i + k;
  for (int k = 0; k < 4; k++) for (int j = 0; j < 8; j++) B[k][j] = k - j;
  kernel();
  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) printf("%g\n", C[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("steps, splits", [
    (lambda p: p.tile("S0", [4, 4]), True),          # 4 columns of the kernel's 8
    (lambda p: p.strip_mine("S0", 0, 2), True),      # rows in pairs: the kernel takes 4
    (lambda p: p.strip_mine("S0", 1, 2), False),     # its loop above the call: one value per block
    (lambda p: p.tile("S0", [4, 8]), False),
    (lambda p: p.tile("S0", [8, 8, 2]), False),      # k in two pieces: one call each, in order
])
def test_tensorize_after_a_tiling_that_splits_its_blocks_is_refused(steps, splits):
    """Found by probing: after ``tile("S0", [4, 4])``, ``tensorize(dgemm_4x8)`` called
    the 4x8 kernel once per 4x4 tile, so every element of C was computed twice (and the
    last call read past C's end). The loops around the points may not split a block."""
    tiled = steps(ps.Program.from_source(SMALL_GEMM))
    if splits:
        with pytest.raises(TransformError, match="split the dgemm_4x8 blocks"):
            tiled.tensorize("S0", "dgemm_4x8")
    else:
        _verify(tiled.tensorize("S0", "dgemm_4x8"))


BATCHED_GEMM = """#include <stdio.h>
double A[3][8][4], B[3][4][8], C[3][8][8];
void kernel(void) {
#pragma scop
  for (int b = 0; b < 3; b++)
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 8; j++)
        for (int k = 0; k < 4; k++)
          C[b][i][j] = C[b][i][j] + A[b][i][k] * B[b][k][j];
#pragma endscop
}
int main(void) {
  for (int b = 0; b < 3; b++) for (int i = 0; i < 8; i++) for (int k = 0; k < 4; k++) A[b][i][k] = i + k - b;
  for (int b = 0; b < 3; b++) for (int k = 0; k < 4; k++) for (int j = 0; j < 8; j++) B[b][k][j] = k - j + 2 * b;
  kernel();
  for (int b = 0; b < 3; b++) for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) printf("%g\\n", C[b][i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("first, second", [(0, 1), (1, 2), (0, 3), (2, 3)])
def test_tensorize_after_an_interchange(first, second):
    """Found by probing: after a plain ``interchange``, tensorize said the loops were
    "no longer plain loops of the schedule". The loops from the outermost mapped one on
    are rebuilt in their time order now (a batch loop moved inside stays inside)."""
    moved = ps.Program.from_source(BATCHED_GEMM).interchange("S0", first, second)
    done = moved.tensorize("S0", "dgemm_4x8")
    assert calls_only(done.c_code()).count("polysched_dgemm_4x8(") == 1
    _verify(done)


def test_tensorize_refuses_a_skewed_loop():
    skewed = ps.Program.from_source(SMALL_GEMM).skew("S0", 1, 0, 1)
    with pytest.raises(TransformError, match="no longer plain"):
        skewed.tensorize("S0", "dgemm_4x8")


def test_the_output_compiles_where_the_original_does_with_std_c99():
    """gcc -std=c99 defines no POSIX names unless the file asks (the suite's kernels
    define _POSIX_C_SOURCE for clock_gettime); a header pasted above that definition
    included <stdlib.h> first, and the output no longer compiled."""
    p = ps.Program.from_file(KERNELS + "conv2d-nhwc.c").tensorize("S1", "dgemm_packed_k3")
    _verify(p, {"NB": "2", "NH": "3", "NW": "13", "NK": "19", "NC": "5", "NR": "2", "NS": "3"},
            cflags=["-O2", "-std=c99"])


@pytest.mark.parametrize("text, before", [
    ("/* c */\n#ifndef _POSIX_C_SOURCE\n#  define _POSIX_C_SOURCE 200809L\n#endif\n#include <stdio.h>\n", "#include"),
    ("#define _GNU_SOURCE\r\n\r\n#include <stdio.h>\r\n", "#include"),
    ("/*\n#include <x.h>\n*/\n#define _GNU_SOURCE\n#include <stdio.h>\n", "#include <stdio.h>"),
    # at the top: a macro of the file first (it could rewrite the header's names), an
    # include inside a conditional (the header would go with it), no include at all
    ("#define C 64\n#include <stdio.h>\n", None),
    ("#ifdef USE_IO\n#include <stdio.h>\n#endif\n", None),
    ("int x;\n#include <stdio.h>\n", None),
    ("double A[10];\n", None),
])
def test_where_the_header_is_pasted(text, before):
    from polysched.textio import header_position

    at = header_position(text)
    assert (at == 0) if before is None else text[at:].startswith(before)


VLA_RESIZED = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int m = 48, n, i, j, k;
  double (*A)[m] = malloc(sizeof(double) * m * m);
  double (*B)[m] = malloc(sizeof(double) * m * m);
  double (*C)[m] = malloc(sizeof(double) * m * m);
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++) { A[i][j] = (i + j) % 5; B[i][j] = (i * j) % 3 + 1; C[i][j] = 0; }
  n = m;
  m = atoi(argv[1]);      /* the rows stay 48 long: C fixed them at the declarations */
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
  double t = 0;
  for (i = 0; i < n; i++) for (j = 0; j < n; j++) t += C[i][j] * (i + 1) * (j + 2);
  printf("%.17g\n", t);
  free(A); free(B); free(C);
  return 0;
}
"""


def test_a_vla_row_size_is_the_one_its_declaration_saw(tmp_path):
    """A probe: ``m`` changes after ``double (*A)[m]`` is declared; the rows keep 48
    elements. The micro-kernel call passed ``(long)(m)`` as the row stride (wrong sums
    at m = 40, a crash at m = 64); it now takes C's own ``sizeof(A[0]) / sizeof(A[0][0])``."""
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize
    source = tmp_path / "vla.c"
    source.write_text(VLA_RESIZED)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "polysched_dgemm" in calls_only(text)
    assert "(long)(sizeof(A[0]) / sizeof(A[0][0]))" in calls_only(text)
    sizes = [(40,), (48,), (64,)]
    assert outputs_of(text, tmp_path, "out", sizes) == outputs_of(VLA_RESIZED, tmp_path, "orig", sizes)


MATMUL = r"""#include <stdio.h>
static double A[10][7], B[7][13], C[10][13];
int main(void) {
  int i, j, k;
  for (i = 0; i < 10; i++) for (k = 0; k < 7; k++) A[i][k] = 0.5 + i - 0.25 * k;
  for (k = 0; k < 7; k++) for (j = 0; j < 13; j++) B[k][j] = 0.125 * (k + 2 * j) - 1.0;
  for (i = 0; i < 10; i++) for (j = 0; j < 13; j++) C[i][j] = i * 0.5 + j;
#pragma scop
  for (i = 0; i < 10; i++)
    for (j = 0; j < 13; j++) {
      C[i][j] *= 1.5;
      for (k = 0; k < 7; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
#pragma endscop
  for (i = 0; i < 10; i++) for (j = 0; j < 13; j++) printf("%.17g\n", C[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("placed, edited, reason", [
    ("dgemm_packed", "dgemm_4x8", "does not run 4 values per call"),
    ("dgemm_4x8", "dgemm_8x8_avx512", "does not run 8 values per call"),
    ("dgemm_packed", "sgemm_packed_bf16", "does not compute what sgemm_packed_bf16 does"),
    ("dgemm_4x8", "mtile16_f64", "does not compute what mtile16_f64 does"),
])
def test_a_tensorize_mark_edited_to_another_intrinsic_is_refused(placed, edited, reason, tmp_path):
    """helper-11: a saved schedule whose mark was edited to name another intrinsic was
    taken (check: legal), and the call ran on part of each block or on the wrong types:
    most of C never computed. The block under a mark must be one call of its intrinsic,
    and the mapping one the matcher finds; the mark as placed still round-trips."""
    source = tmp_path / "mm.c"
    source.write_text(MATMUL)
    p = ps.Program.from_file(source)
    saved = str(p.tensorize("S1", placed).schedule)
    assert p.set_schedule(saved).verify(dataset=None).status == "equal"
    with pytest.raises(TransformError, match=reason):
        p.set_schedule(saved.replace(f"tensorize({placed};", f"tensorize({edited};"))


MY_GEMM = """/* polysched intrinsic
 * name: my_gemm2x2_test
 * header: myintr.h
 * function: my_gemm2x2
 * call: my_gemm2x2(K, base(A), rs(A), cs(A), base(B), rs(B), cs(B), base(C), rs(C), cs(C))
 * remainder: i j
 */
void my_gemm2x2(int K, double C[2][2], double A[2][K], double B[K][2])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < K; k++)
    for (i = 0; i < 2; i++)
      for (j = 0; j < 2; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
"""
MY_HEADER = """static inline void my_gemm2x2(int K, const double *A, long rsA, long csA, const double *B, long rsB,
                              long csB, double *C, long rsC, long csC)
{ for (int k = 0; k < K; k++) for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++)
    C[i*rsC + j*csC] += A[i*rsA + k*csA] * B[k*rsB + j*csB]; }
"""
TRANSPOSED = """#include <stdio.h>
#define M 7
#define N 9
#define K 5
double A[K][M], B[N][K], C[M][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < M; i++) for (j = 0; j < N; j++) C[i][j] = i - j;
  for (k = 0; k < K; k++) for (i = 0; i < M; i++) A[k][i] = (k * 3 + i) % 5 - 2.0;
  for (j = 0; j < N; j++) for (k = 0; k < K; k++) B[j][k] = (j + 2 * k) % 7 - 3.0;
#pragma scop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < K; k++)
        C[i][j] += A[k][i] * B[j][k];
#pragma endscop
  for (i = 0; i < M; i++) for (j = 0; j < N; j++) printf("%.17g\\n", C[i][j]);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_an_intrinsic_of_the_users_own_is_verified_with_its_header_beside_it(tmp_path):
    """helper-92: Program.verify of a program calling a user's intrinsic failed on
    "myintr.h: No such file" (optimize --tensorize DIR passes -I DIR); and a statement it
    does not match said so without the reason the command gives."""
    from polysched.tensorize import load_intrinsic
    (tmp_path / "intr").mkdir()
    (tmp_path / "intr" / "my_gemm2x2.c").write_text(MY_GEMM)
    (tmp_path / "intr" / "myintr.h").write_text(MY_HEADER)
    (tmp_path / "t.c").write_text(TRANSPOSED)
    program = ps.Program.from_file(tmp_path / "t.c")
    called = program.tensorize("S0", load_intrinsic(tmp_path / "intr" / "my_gemm2x2.c"))
    assert "my_gemm2x2(" in calls_only(called.c_code())
    assert called.verify().status == "equal"
    with pytest.raises(TransformError, match=r"dgemm_4x8 does not match S0 \(.+\)"):
        program.tensorize("S0", "dgemm_4x8")
