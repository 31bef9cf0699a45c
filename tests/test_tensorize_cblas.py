"""The library-call target (``library: cblas``): dgemm_cblas[_scaled] call a CBLAS found
at run time, with the ABI (int or int64_t sizes) read from the symbol, and fall back to
the FMA packed kernel when there is no library, an operand has no unit stride, C
overlaps an operand or the call is inside an OpenMP parallel region.

The oracle is a naive triple loop in the driver; a fake LP64 CBLAS built here (it
counts its calls and sums in its own order) checks the int ABI and the lookup rules,
and numpy's bundled ILP64 OpenBLAS, when there is one, the int64_t ABI."""
import shutil
import subprocess

import pytest

from polysched.emit_c import without_pasted_headers as calls_only
import polysched as ps
from polysched.bench.harness import DEFAULT_CFLAGS
from polysched.tensorize import INCLUDE_DIR, auto_tensorize, builtin_intrinsics, find_cblas
from polysched.tensorize.library import _python_package_libraries

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# A stand-in CBLAS with int sizes: row-major only, k summed downwards (another order than
# the loop nest's), every call counted in a file named by FAKE_CBLAS_LOG.
FAKE_CBLAS = r"""
#include <stdio.h>
#include <stdlib.h>
void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *A, int lda,
                 const double *B, int ldb, double beta, double *C, int ldc)
{
  int i, j, p;
  const char *log = getenv("FAKE_CBLAS_LOG");
  if (order != 101 || beta != 1.0) abort();
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      double s = 0;
      for (p = k - 1; p >= 0; p--)
        s += (ta == 111 ? A[i * lda + p] : A[p * lda + i]) * (tb == 111 ? B[p * ldb + j] : B[j * ldb + p]);
      C[i * ldc + j] += alpha * s;
    }
  if (log) { FILE *f = fopen(log, "a"); fprintf(f, "call %d %d %d %d %d\n", ta, tb, m, n, k); fclose(f); }
}
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc)
{
  int i, j, p;
  const char *log = getenv("FAKE_CBLAS_LOG");
  if (order != 101 || ta != 111 || tb != 111 || beta != 1.0f) abort();
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      for (p = k - 1; p >= 0; p--)
        C[i * ldc + j] += alpha * A[i * lda + p] * B[p * ldb + j];
  if (log) { FILE *f = fopen(log, "a"); fprintf(f, "scall %d %d %d\n", m, n, k); fclose(f); }
}
"""

# Calls of the header function on (M x K) * (K x N) blocks taken out of larger arrays, with
# A or B transposed in memory, with a non-unit stride (no CBLAS form), with a size of 0,
# and with C overlapping A; each result against the naive loop nest.
DRIVER = r"""
#include <stdio.h>
#include <math.h>
#define POLYSCHED_TRACE_PATH
#include "polysched_intrinsics.h"
#define M 23
#define N 31
#define K 57
static double A[K][2 * K], B[2 * K][2 * N], C[M][N + 3], R[M][N + 3];
static int check(const char *name, double alpha, int tA, int tB, long csA)
{
  int i, j, k, ok = 1;
  double a, b;
  for (i = 0; i < M; i++) for (j = 0; j < N + 3; j++) C[i][j] = R[i][j] = (i - j) / 7.0;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < K; k++) {
        a = tA ? A[k][i] : A[i][k * csA];
        b = tB ? B[j][k] : B[k][j];
        R[i][j] = R[i][j] + alpha * a * b;
      }
  polysched_dgemm_cblas_scaled(M, N, K, alpha, &A[0][0], tA ? 1 : 2 * K, tA ? 2 * K : csA,
                               &B[0][0], tB ? 1 : 2 * N, tB ? 2 * N : 1, &C[0][0], N + 3);
  for (i = 0; i < M; i++)
    for (j = 0; j < N + 3; j++)
      if (fabs(C[i][j] - R[i][j]) > 1e-9 * (1 + fabs(R[i][j]))) ok = 0;
  printf("%s %s %s\n", name, polysched_path_taken, ok ? "ok" : "WRONG");
  return ok;
}
int main(void)
{
  int i, j;
  double before;
  for (i = 0; i < K; i++) for (j = 0; j < 2 * K; j++) A[i][j] = ((i * 7 + j * 13) % 101) / 37.0 - 1.3;
  for (i = 0; i < 2 * K; i++) for (j = 0; j < 2 * N; j++) B[i][j] = ((i * 11 + j * 5) % 89) / 29.0 - 1.1;
  check("plain", 1.0, 0, 0, 1);
  check("transA", 1.5, 1, 0, 1);
  check("transB", -0.5, 0, 1, 1);
  check("strided", 1.0, 0, 0, 2);
  polysched_path_taken = "none";
  before = C[0][0];
  polysched_dgemm_cblas(0, N, K, &A[0][0], 2 * K, 1, &B[0][0], 2 * N, 1, &C[0][0], N + 3);
  printf("empty %s %s\n", polysched_path_taken, C[0][0] == before ? "ok" : "WRONG");
  /* C is A's first rows: a BLAS may not be called on overlapping operands */
  polysched_dgemm_cblas(4, 4, 4, &A[0][0], 2 * K, 1, &B[0][0], 2 * N, 1, &A[0][8], 2 * K);
  printf("overlap %s\n", polysched_path_taken);
  {
    static float a[M][K], b[K][N], c[M][N], r[M][N];
    int k, ok = 1;
    for (i = 0; i < M; i++) for (k = 0; k < K; k++) a[i][k] = (float)A[i][k];
    for (k = 0; k < K; k++) for (j = 0; j < N; j++) b[k][j] = (float)B[k][j];
    for (i = 0; i < M; i++) for (j = 0; j < N; j++) c[i][j] = r[i][j] = (float)(i - j);
    for (k = 0; k < K; k++) for (i = 0; i < M; i++) for (j = 0; j < N; j++)
      r[i][j] = r[i][j] + 0.5f * a[i][k] * b[k][j];
    polysched_sgemm_cblas_scaled(M, N, K, 0.5f, &a[0][0], K, 1, &b[0][0], N, 1, &c[0][0], N);
    for (i = 0; i < M; i++) for (j = 0; j < N; j++)
      if (fabsf(c[i][j] - r[i][j]) > 1e-4f * (1 + fabsf(r[i][j]))) ok = 0;
    printf("sgemm %s %s\n", polysched_path_taken, ok ? "ok" : "WRONG");
  }
  return 0;
}
"""


def _build(tmp_path, name, text, flags=(), libs=()):
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    exe = tmp_path / name
    subprocess.run(["gcc", *DEFAULT_CFLAGS, *flags, f"-I{INCLUDE_DIR}", str(src), "-o", str(exe), *libs, "-lm"],
                   check=True, capture_output=True, timeout=120)
    return exe


@pytest.fixture(scope="module")
def fake_cblas(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fakecblas")
    src = tmp / "fake.c"
    src.write_text(FAKE_CBLAS)
    lib = tmp / "libfakecblas.so"
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", str(src), "-o", str(lib)], check=True,
                   capture_output=True, timeout=120)
    return lib


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("driver"), "driver", DRIVER)


def _run(exe, env):
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True,
                         env={"PATH": "/usr/bin:/bin", **env}).stdout
    return dict((line.split()[0], line.split()[1:]) for line in out.splitlines())


def test_the_int_abi_is_called_for_unit_stride_operands_and_the_rest_falls_back(driver, fake_cblas, tmp_path):
    log = tmp_path / "calls.log"
    runs = _run(driver, {"POLYSCHED_CBLAS": str(fake_cblas), "FAKE_CBLAS_LOG": str(log)})
    assert runs["plain"] == ["cblas", "ok"]
    assert runs["transA"] == ["cblas", "ok"]
    assert runs["transB"] == ["cblas", "ok"]
    assert runs["strided"][1] == "ok" and runs["strided"][0] != "cblas"
    assert runs["empty"] == ["none", "ok"]
    assert runs["overlap"][0] != "cblas"
    assert runs["sgemm"] == ["cblas", "ok"]
    # CblasNoTrans = 111, CblasTrans = 112; M N K as given
    assert log.read_text().splitlines() == ["call 111 111 23 31 57", "call 112 111 23 31 57",
                                           "call 111 112 23 31 57", "scall 23 31 57"]


def test_without_a_library_every_call_takes_the_packed_kernel(driver, tmp_path):
    runs = _run(driver, {"POLYSCHED_CBLAS": "none"})
    assert all(v[-1] == "ok" for k, v in runs.items() if k != "overlap")
    assert runs["sgemm"] == ["portable", "ok"]
    assert not any("cblas" in v for v in runs.values())


@pytest.mark.skipif(not any("64_" in p for p in _python_package_libraries()),
                    reason="no ILP64 OpenBLAS from numpy here")
def test_an_ilp64_openblas_is_called_with_int64_sizes(driver):
    [ilp64] = [p for p in _python_package_libraries() if "64_" in p][:1]
    runs = _run(driver, {"POLYSCHED_CBLAS": ilp64, "OMP_NUM_THREADS": "2"})
    assert runs["plain"] == ["cblas", "ok"] and runs["transA"] == ["cblas", "ok"]
    assert runs["transB"] == ["cblas", "ok"] and runs["sgemm"] == ["cblas", "ok"]


def test_the_library_is_looked_up_only_where_polysched_is_told(fake_cblas, monkeypatch):
    monkeypatch.setenv("POLYSCHED_CBLAS", "none")
    assert find_cblas() is None
    monkeypatch.setenv("POLYSCHED_CBLAS", str(fake_cblas))
    assert find_cblas() == str(fake_cblas)
    monkeypatch.setenv("POLYSCHED_CBLAS", "/nonexistent/libcblas.so")
    assert find_cblas() is None


KERNELS = "polysched/bench/kernels/"


def test_auto_tensorize_calls_the_blas_only_on_request_and_only_when_there_is_one(fake_cblas, monkeypatch):
    program = ps.Program.from_file(KERNELS + "2mm.c")
    monkeypatch.setenv("POLYSCHED_CBLAS", str(fake_cblas))
    _, report = auto_tensorize(program, builtin_intrinsics())
    assert {a.match.intrinsic for a in report if a.applied} <= {"dgemm_packed_zero_scaled", "dgemm_packed_beta"}
    _, report = auto_tensorize(program, builtin_intrinsics(), reassociate=True)
    assert [a.match.intrinsic for a in report if a.applied] == ["dgemm_cblas_scaled", "dgemm_cblas"]
    monkeypatch.setenv("POLYSCHED_CBLAS", "none")
    _, report = auto_tensorize(program, builtin_intrinsics(), reassociate=True)
    assert [a.match.intrinsic for a in report if a.applied] == ["dgemm_packed_fma_scaled", "dgemm_packed_fma"]


def test_the_generated_program_names_the_library_found_and_computes_the_same(fake_cblas, monkeypatch, tmp_path):
    monkeypatch.setenv("POLYSCHED_CBLAS", str(fake_cblas))
    program = ps.Program.from_file(KERNELS + "2mm.c")
    blas, _ = auto_tensorize(program, builtin_intrinsics(), reassociate=True)
    full = blas.c_code()
    text = calls_only(full)
    assert f'#define POLYSCHED_CBLAS_DEFAULT "{fake_cblas}"' in text
    assert text.count("polysched_dgemm_cblas") == 2
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_CBLAS_LOG", str(log))
    assert blas.verify("SMALL").ok
    # the original and the candidate each ran once: two products, one BLAS call each
    assert len(log.read_text().splitlines()) == 2
    # the file's default is used when the environment names nothing
    log.unlink()
    exe = _build(tmp_path, "twomm", full, ["-DMINI_DATASET", f"-I{KERNELS}"])
    subprocess.run([str(exe)], check=True, timeout=60, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "FAKE_CBLAS_LOG": str(log)})
    assert len(log.read_text().splitlines()) == 2


def test_an_unknown_library_is_refused(tmp_path):
    from polysched.tensorize import INTRINSICS_DIR, IntrinsicError, load_intrinsic
    bad = tmp_path / "bad.c"
    bad.write_text((INTRINSICS_DIR / "dgemm_cblas.c").read_text().replace("library: cblas", "library: lapack"))
    with pytest.raises(IntrinsicError, match="unknown library 'lapack'"):
        load_intrinsic(bad)


def test_tensorize_apply_takes_the_blas_with_reassociate(fake_cblas, monkeypatch, tmp_path, capsys):
    from polysched.cli import main
    monkeypatch.setenv("POLYSCHED_CBLAS", str(fake_cblas))
    out = tmp_path / "gemm.c"
    assert main(["tensorize", KERNELS + "gemm.c", "--apply", "-o", str(out)]) == 0
    assert "polysched_dgemm_packed_beta_scaled(" in calls_only(out.read_text())
    assert main(["tensorize", KERNELS + "gemm.c", "--apply", "-o", str(out), "--reassociate"]) == 0
    assert "polysched_dgemm_cblas_scaled(" in calls_only(out.read_text())
    assert "dgemm_cblas_scaled" in capsys.readouterr().out
