"""`optimize --tile` runs matrix products as micro-kernel calls by default
(`polysched.tensorize.default_tensorize`): only bit-identical kernels this CPU runs
natively, only when the statements left out are shallower than the products, and the
output compiles without `-I` (the header is pasted in). Checked by running the outputs
against the originals with exact comparison, at parameter edges and at 1 and 2 threads."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from polysched import Program
from polysched.bench import DEFAULT_CFLAGS, compile_c, get, run_binary
from polysched.bench.harness import FP_CONTRACT_OFF
from polysched.emit_c import without_pasted_headers
from polysched.pipeline import OptimizeOptions, optimize
from polysched.tensorize import builtin_intrinsics, cost, default_tensorize

NATIVE = any(cost.native_path(i) for i in builtin_intrinsics() if i.name == "dgemm_packed")

# 2mm's shape with sizes read at run time: two products, each after an O(n^2)
# initialisation, the second consuming the first.
TWO_PRODUCTS = r"""
#include <stdio.h>
#include <stdlib.h>
static void kernel(int ni, int nj, int nk, int nl, double alpha, double tmp[ni][nj],
                   double A[ni][nk], double B[nk][nj], double C[nj][nl], double D[ni][nl])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      tmp[i][j] = 0.0;
      for (k = 0; k < nk; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      D[i][j] *= 1.25;
      for (k = 0; k < nj; k++)
        D[i][j] += tmp[i][k] * C[k][j];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
  int ni = atoi(argv[1]), nj = atoi(argv[2]), nk = atoi(argv[3]), nl = atoi(argv[4]);
  int a = ni > 1 ? ni : 1, b = nj > 1 ? nj : 1, c = nk > 1 ? nk : 1, d = nl > 1 ? nl : 1;
  double (*tmp)[b] = malloc(sizeof(double) * a * b), (*A)[c] = malloc(sizeof(double) * a * c);
  double (*B)[b] = malloc(sizeof(double) * c * b), (*C)[d] = malloc(sizeof(double) * b * d);
  double (*D)[d] = malloc(sizeof(double) * a * d);
  for (int i = 0; i < a; i++) for (int k = 0; k < c; k++) A[i][k] = ((i * 7 + k * 3) % 13) / 13.0;
  for (int k = 0; k < c; k++) for (int j = 0; j < b; j++) B[k][j] = ((k * 5 + j) % 11) / 7.0;
  for (int j = 0; j < b; j++) for (int l = 0; l < d; l++) C[j][l] = ((j + l * 3) % 9) / 3.0;
  for (int i = 0; i < a; i++) for (int l = 0; l < d; l++) D[i][l] = (i - l) / 5.0;
  for (int i = 0; i < a; i++) for (int j = 0; j < b; j++) tmp[i][j] = -1.0;
  kernel(ni, nj, nk, nl, 1.5, tmp, A, B, C, D);
  for (int i = 0; i < a; i++) for (int l = 0; l < d; l++) printf("%.17g\n", D[i][l]);
  for (int i = 0; i < a; i++) for (int j = 0; j < b; j++) printf("%.17g\n", tmp[i][j]);
  return 0;
}
"""

# A product next to a nest as deep as itself that no intrinsic computes: tensorized,
# the second nest would keep its loops untiled and sequential.
PRODUCT_AND_STENCIL = r"""
#define N 64
double A[N][N], B[N][N], C[N][N], E[N][N][N];
void kernel(void)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
  for (i = 1; i < N - 1; i++)
    for (j = 1; j < N - 1; j++)
      for (k = 1; k < N - 1; k++)
        E[i][j][k] = E[i - 1][j][k] + E[i][j][k - 1] * 0.5;
#pragma endscop
}
"""


def _write(tmp_path: Path, text: str, name: str = "kernel.c") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _run(tmp_path: Path, source: Path, sizes, threads: int) -> str:
    """What the program at ``source`` prints for ``sizes``, compiled with
    ``gcc -O3 -march=native -fopenmp -ffp-contract=off`` (no ``-I``; without the last
    flag gcc would fuse the original's multiply-adds, and no output could match it)."""
    binary = tmp_path / (source.stem + "_bin")
    if not binary.exists():
        built = compile_c(source, binary, cflags=[*DEFAULT_CFLAGS, FP_CONTRACT_OFF], openmp=True)
        assert built.ok, built.reason
    run = run_binary(binary, args=[str(s) for s in sizes], threads=threads, timeout=120)
    assert run.ok, run.reason
    return run.stdout


@pytest.mark.skipif(not NATIVE, reason="this CPU runs no shipped f64 micro-kernel natively")
def test_the_products_become_calls_and_compute_bit_identical_results(tmp_path):
    source = _write(tmp_path, TWO_PRODUCTS)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    [region] = result.regions
    assert [line.split(":")[0] for line in region.tensorize if line.endswith("applied")] == ["S1", "S3"]
    # each call twice: in its parallel loop, and in that loop's copy in place
    assert result.text.count("/* polysched: tensorize dgemm_packed") == 4
    assert "#include \"polysched_intrinsics.h\"" not in result.text      # pasted in
    # each product forks over its row blocks: the second call's rebuilt tree keeps the
    # first one's parallel loop (its block loop is a constant for the other statement)
    region = without_pasted_headers(result.text)
    assert region.count("#pragma omp parallel for") == 2
    assert region.index("#pragma omp parallel for") < region.index("tensorize dgemm_packed_zero_scaled")
    # the summary says so (it did not: the tiling report that did went with the tiles)
    said = [line.strip() for line in result.summary().splitlines() if line.strip().startswith("parallel:")]
    assert len(said) == 2 and all(line.startswith("parallel: the blocks of S") for line in said), said
    out = _write(tmp_path, result.text, "out.c")
    for sizes in [(0, 5, 7, 3), (37, 41, 19, 29), (64, 48, 80, 16), (1, 1, 1, 1), (-3, 4, 4, 4), (13, 0, 9, 5),
                  (5, 6, 0, 4)]:
        for threads in (1, 2):
            assert _run(tmp_path, out, sizes, threads) == _run(tmp_path, source, sizes, 1), (sizes, threads)


# a Schur complement update, C -= A * B, with a NaN of each sign and an infinity in the data
SUBTRACTED_PRODUCT = r"""
#include <stdio.h>
#include <stdlib.h>
void schur(int n, int m, int p, double C[n][m], double A[n][p], double B[p][m]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < p; k++)
        C[i][j] -= A[i][k] * B[k][j];
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]), p = atoi(argv[3]);
  int a = n > 1 ? n : 1, b = m > 1 ? m : 1, c = p > 1 ? p : 1;
  double (*A)[c] = malloc(sizeof(double) * a * c), (*B)[b] = malloc(sizeof(double) * c * b);
  double (*C)[b] = malloc(sizeof(double) * a * b);
  for (int i = 0; i < a; i++) for (int k = 0; k < c; k++) A[i][k] = ((i * 13 + k * 7) % 17) * 0.37 - 2.1;
  for (int k = 0; k < c; k++) for (int j = 0; j < b; j++) B[k][j] = ((k * 11 + j * 5) % 19) * 0.29 - 1.3;
  for (int i = 0; i < a; i++) for (int j = 0; j < b; j++) C[i][j] = (i + j) % 23 * 1.1;
  if (a > 9 && c > 4) { A[3][2] = __builtin_nan(""); A[8][4] = -__builtin_nan(""); A[9][1] = 0.0; }
  if (c > 1 && b > 6) B[1][6] = __builtin_inf();
  schur(n, m, p, C, A, B);
  for (int i = 0; i < a; i++) for (int j = 0; j < b; j++) printf("%a\n", C[i][j]);
  return 0;
}
"""


@pytest.mark.skipif(not NATIVE, reason="this CPU runs no shipped f64 micro-kernel natively")
def test_a_subtracted_product_becomes_a_call_that_subtracts(tmp_path):
    """``C[i][j] -= A[i][k] * B[k][j]`` (a Schur complement, a blocked factorization's
    update) matched nothing shipped and stayed loops; it is now a call of
    dgemm_packed_sub, whose kernels subtract as the source does: bit-identical outputs,
    NaNs of either sign and infinities included, at 1 and 2 threads."""
    source = _write(tmp_path, SUBTRACTED_PRODUCT)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    [region] = result.regions
    assert [line.split(":")[1].strip() for line in region.tensorize if line.endswith("applied")] == \
        ["dgemm_packed_sub"], region.tensorize
    out = _write(tmp_path, result.text, "out.c")
    for sizes in [(37, 41, 19), (130, 70, 300), (1, 1, 1), (0, 5, 7), (-3, 4, 4), (13, 9, 0)]:
        for threads in (1, 2):
            assert _run(tmp_path, out, sizes, threads) == _run(tmp_path, source, sizes, 1), (sizes, threads)


def test_without_the_instruction_set_the_pipeline_keeps_its_own_loops(tmp_path, monkeypatch):
    """The portable fallback of a micro-kernel is slower than the pipeline's tiled loops:
    on a CPU without AVX2/AVX-512 nothing is tensorized (both paths are tested on any
    machine by pretending the flags away)."""
    monkeypatch.setattr(cost, "host_features", lambda: frozenset())
    source = _write(tmp_path, TWO_PRODUCTS)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "polysched: tensorize" not in result.text
    assert result.regions[0].tensorize == []
    assert "#pragma omp parallel for" in result.text
    out = _write(tmp_path, result.text, "out.c")
    assert _run(tmp_path, out, (37, 41, 19, 29), 2) == _run(tmp_path, source, (37, 41, 19, 29), 1)


@pytest.mark.skipif(not NATIVE, reason="this CPU runs no shipped f64 micro-kernel natively")
def test_a_deep_statement_without_match_keeps_the_whole_region_in_the_pipeline(tmp_path):
    program = Program.from_source(PRODUCT_AND_STENCIL)
    tensorized, lines = default_tensorize(program, parallel=True)
    assert tensorized is None
    # the report says what the code does (helper-55: "applied", then "not tensorized")
    assert not any(line.endswith("; applied") or "runs in" in line for line in lines)
    assert any("; not applied: S1 would keep 3 or more untiled loops" in line for line in lines)
    result = optimize(_write(tmp_path, PRODUCT_AND_STENCIL), OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "polysched: tensorize" not in result.text and result.regions[0].tiling is not None


@pytest.mark.skipif(not NATIVE, reason="this CPU runs no shipped f64 micro-kernel natively")
def test_a_match_below_the_threshold_is_reported_as_not_applied():
    """helper-55: a batched product's match scored 2.07 against the default's 4; the
    summary said "applied", then "not tensorized", and the code had no call."""
    program = Program.from_source(PRODUCT_AND_STENCIL)
    tensorized, lines = default_tensorize(program, parallel=True, min_gain=1e9)
    assert tensorized is None
    assert not any(line.endswith("; applied") or "runs in" in line for line in lines)
    assert any("; not applied: the matches of S0 score below 1e+09 (--tensorize takes them)" in line
               for line in lines), lines


@pytest.mark.parametrize("flags, on", [
    ({"tile": True}, True),
    ({"tile": True, "parallel": True}, True),
    ({"parallel": True}, False),                      # no tiling asked for
    ({"tile": True, "tile_sizes": [32, 32, 32]}, False),
    ({"tile": True, "unroll": 2}, False),
    ({"tile": True, "scheduler": "isl"}, False),
    ({"tile": True, "tensorize": False}, False),
])
def test_which_flags_leave_the_choice_to_polysched(flags, on):
    assert OptimizeOptions.from_flags(**flags).tensorize is on


def polysched(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polysched", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(not NATIVE, reason="this CPU runs no shipped f64 micro-kernel natively")
def test_cli_default_no_tensorize_and_trace_replay(tmp_path):
    source = _write(tmp_path, TWO_PRODUCTS)
    out, plain, replayed, trace = (tmp_path / n for n in ("out.c", "plain.c", "replayed.c", "t.json"))
    proc = polysched("optimize", str(source), "-o", str(out), "--tile", "--parallel", "--save-trace", str(trace))
    assert proc.returncode == 0, proc.stderr
    assert "tensorize: S1: dgemm_packed_zero_scaled" in proc.stdout and "tensorize " in proc.stdout
    assert '"op": "tensorize"' in trace.read_text()
    proc = polysched("optimize", str(source), "-o", str(replayed), "--trace", str(trace))
    assert proc.returncode == 0, proc.stderr
    assert _run(tmp_path, replayed, (37, 41, 19, 29), 2) == _run(tmp_path, source, (37, 41, 19, 29), 1)
    proc = polysched("optimize", str(source), "-o", str(plain), "--tile", "--parallel", "--no-tensorize")
    assert proc.returncode == 0, proc.stderr
    assert "polysched: tensorize" not in plain.read_text() and "tensorize:" not in proc.stdout


@pytest.mark.skipif(not NATIVE, reason="this CPU runs no shipped f64 micro-kernel natively")
def test_bench_records_the_calls_and_compares_without_them(tmp_path, capfd):
    from polysched.cli import main
    out = tmp_path / "r.json"
    status = main(["bench", "gemm", "--dataset", "MINI", "--repeat", "1", "--threads", "2",
                   "--variants", "pluto-tile-par,pluto-tile-par:tensorize=no", "-o", str(out)])
    _, err = capfd.readouterr()
    assert status == 0, err
    by_variant = {r["variant"]: r for r in json.loads(out.read_text())["results"]}
    assert all(r["status"] == "OK" and (r["variant"] == "orig" or r["verify"] == "equal") for r in by_variant.values()), err
    [region] = by_variant["pluto-tile-par"]["build"]["regions"]
    assert any(line.startswith("S1: dgemm_packed_beta_scaled") for line in region["tensorize"])
    [region] = by_variant["pluto-tile-par:tensorize=no"]["build"]["regions"]
    assert region["tensorize"] == [] and region["tile_sizes"]


def test_the_cheap_prefilter_admits_every_shipped_intrinsic_semantics():
    """default_tensorize skips a region whose statements cannot match anything shipped
    (accumulates_a_product): each shipped description's own (main) statement must pass
    it, or the default would never try that intrinsic; an init statement need not."""
    from polysched.scop import extract
    from polysched.tensorize.auto import accumulates_a_product
    for intrinsic in builtin_intrinsics():
        [scop] = extract(intrinsic.path)
        expected = [False, True] if intrinsic.init is not None else [True]
        assert [accumulates_a_product(s) for s in scop.statements] == expected, intrinsic.name
    [scop] = extract(get("heat-3d").path)
    assert not any(accumulates_a_product(s) for s in scop.statements)


@pytest.mark.parametrize("kernel", ["gemm", "2mm", "conv2d-nchw", "conv2d-nhwc", "matmul-int8", "symm", "syr2k",
                                    "doitgen", "trmm"])
def test_the_lazy_choice_is_the_first_legal_match_by_gain(kernel):
    """best_legal_match decides legality only down to the first legal match; it must pick
    what deciding every match and sorting by gain picks (match_statement)."""
    from polysched.tensorize.match import best_legal_match, match_statement
    program = Program.from_file(get(kernel).path)
    intrinsics = builtin_intrinsics()
    for stmt in program.scop.statements:
        matches = [m for report in match_statement(program.scop, stmt, intrinsics, program.deps)
                   for m in report.matches]
        legal = sorted((m for m in matches if m.legal), key=lambda m: -m.cost["gain"])
        best, reason = best_legal_match(program.scop, stmt, intrinsics, program.deps)
        if not legal:
            assert best is None and (reason or not matches)
            continue
        assert best is not None and best.legal
        assert (best.intrinsic, best.loops, best.arrays) == (legal[0].intrinsic, legal[0].loops, legal[0].arrays)


def test_random_products_through_the_default_pipeline(tmp_path):
    """The random matrix-product nests of test_tensorize_apply_random (loop orders,
    transposed operands, a scalar factor, a batch loop, sizes 1-32), through
    ``optimize --tile --parallel`` as a user runs it: every output equals the original
    bit for bit, at 1 and 2 threads, whether the default called a micro-kernel or not."""
    from polysched.bench import verify
    from test_tensorize_apply_random import _program
    rng = random.Random(11)
    called = 0
    for k in range(8):
        source = _write(tmp_path, _program(rng), f"p{k}.c")
        result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
        called += "/* polysched: tensorize " in result.text
        out = _write(tmp_path, result.text, f"p{k}_out.c")
        verdict = verify(source, out, dataset=None, rtol=0, atol=0)
        assert verdict.ok, (source.read_text(), result.summary(), verdict)
    # most of these are too small for a call to pay (the summary says so); some are not
    assert called >= (1 if NATIVE else 0)
