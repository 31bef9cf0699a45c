"""The packed, register-blocked block kernels (dgemm_packed*, i8gemm_packed*): the f64 ones bit-identical to the
original even when the generated file is compiled with gcc's default -ffp-contract=fast
(the exact kernels never fuse a multiply-add), on the AVX-512, AVX2 and portable paths;
the FMA kernels only on request; chosen by auto_tensorize; verified on the suite's
matrix products."""
import shutil
import subprocess

import pytest

import polysched as ps
from polysched.bench.harness import DEFAULT_CFLAGS
from polysched.tensorize import INCLUDE_DIR, auto_tensorize, builtin_intrinsics

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
KERNELS = "polysched/bench/kernels/"

# B transposed in memory (B[j][k]): packing reads it with (row, column) strides (1, K)
PROGRAM = r"""#include <stdio.h>
#define M 37
#define N 45
#define K 300
static double A[M][K], Bt[N][K], C[M][N];
static void kernel(double alpha)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * Bt[j][k];
#pragma endscop
}
int main(void)
{
  int i, j, k;
  for (i = 0; i < M; i++) for (k = 0; k < K; k++) A[i][k] = (double)((i * 7 + k * 13) % 101) / 37.0 - 1.3;
  for (j = 0; j < N; j++) for (k = 0; k < K; k++) Bt[j][k] = (double)((j * 11 + k * 5) % 89) / 29.0 - 1.1;
  for (i = 0; i < M; i++) for (j = 0; j < N; j++) C[i][j] = (double)(i - j) / 7.0;
  kernel(1.37);
  for (i = 0; i < M; i++) for (j = 0; j < N; j++) printf("%a\n", C[i][j]);
  return 0;
}
"""


def _run(tmp_path, name, text, flags):
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    exe = tmp_path / name
    subprocess.run(["gcc", *flags, f"-I{INCLUDE_DIR}", str(src), "-o", str(exe)], check=True,
                   capture_output=True, timeout=120)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True).stdout


def test_exact_kernel_is_bit_identical_under_default_contraction(tmp_path):
    program = ps.Program.from_source(PROGRAM, filename="t.c")
    reference = _run(tmp_path, "orig", PROGRAM, [*DEFAULT_CFLAGS, "-ffp-contract=off"])
    exact = program.tensorize("S0", "dgemm_packed_scaled").c_code()
    assert "polysched_dgemm_packed_scaled(" in exact
    for path, defines in (("native", []), ("avx2", ["-DPOLYSCHED_NO_AVX512"]),
                          ("portable", ["-DPOLYSCHED_FORCE_PORTABLE"])):
        # gcc's default: -ffp-contract=fast, which fuses plain a * b + c
        assert _run(tmp_path, f"exact_{path}", exact, [*DEFAULT_CFLAGS, *defines]) == reference, path
    fused = program.tensorize("S0", "dgemm_packed_fma_scaled").c_code()
    out = _run(tmp_path, "fma", fused, [*DEFAULT_CFLAGS, "-ffp-contract=off"])
    got = [float.fromhex(x) for x in out.split()]
    want = [float.fromhex(x) for x in reference.split()]
    assert len(got) == len(want) and max(abs(a - b) for a, b in zip(got, want)) < 1e-9


def test_auto_tensorize_uses_fma_only_on_request(monkeypatch):
    monkeypatch.setenv("POLYSCHED_CBLAS", "none")     # no BLAS: see test_tensorize_cblas.py
    program = ps.Program.from_file(KERNELS + "gemm.c")
    exact, report = auto_tensorize(program, builtin_intrinsics())
    [applied] = [a for a in report if a.applied]
    assert applied.match.intrinsic == "dgemm_packed_beta_scaled" and applied.match.init.statement == "S0"
    fused, report = auto_tensorize(program, builtin_intrinsics(), reassociate=True)
    assert [a.match.intrinsic for a in report if a.applied] == ["dgemm_packed_fma_scaled"]
    assert "not bit-identical (fma): taken only on request" in [a for a in report if a.applied][0].describe()
    # named alone, an FMA intrinsic is the caller's explicit choice
    named, report = auto_tensorize(program, [i for i in builtin_intrinsics() if i.name == "dgemm_packed_fma_scaled"])
    assert [a.applied for a in report] == [False, True]


def test_parallel_gemm_and_the_suite_products():
    gemm = ps.Program.from_file(KERNELS + "gemm.c").tensorize("S1", "dgemm_packed_scaled", parallel=True)
    assert "#pragma omp parallel for" in gemm.c_code()
    result = gemm.verify(threads=2, defines={"NI": "300", "NJ": "70", "NK": "290"})
    assert result.status == "equal" and "worst abs err 0," in str(result), result
    for kernel, sizes in (("2mm", None), ("bmm", None), ("matmul-int8", {"NI": "40", "NJ": "70", "NK": "1031"}),
                          ("conv2d-nhwc", {"NB": "2", "NH": "3", "NW": "19", "NK": "21", "NC": "17",
                                           "NR": "2", "NS": "3"})):
        program, report = auto_tensorize(ps.Program.from_file(KERNELS + f"{kernel}.c"), builtin_intrinsics())
        assert all(a.match.intrinsic.startswith(("dgemm_packed", "i8gemm_packed")) for a in report if a.applied), kernel
        assert any(a.applied for a in report), kernel
        result = program.verify(defines=sizes) if sizes else program.verify()
        assert result.status == "equal" and "worst abs err 0," in str(result), (kernel, result)
        if kernel == "matmul-int8":       # the AVX2 vpmaddwd path too
            result = program.verify(defines=sizes, threads=1, cflags=[
                *DEFAULT_CFLAGS, "-DPOLYSCHED_NO_AVX512", "-DPOLYSCHED_NO_AVXVNNI"])
            assert result.status == "equal", result


def test_bench_variant(tmp_path):
    from polysched.bench import get
    from polysched.bench.variants import all_variant_names, make_variants

    assert "pluto-tensorize" in all_variant_names()
    [_orig, variant] = make_variants(["pluto-tensorize"])
    assert variant.openmp and f"-I{INCLUDE_DIR}" in variant.cflags
    code = variant.make_source(get("gemm"), tmp_path)[0].read_text()
    assert "polysched_dgemm_packed_scaled(" in code and "#pragma omp parallel for" in code
    # no match: the pluto tile+par file
    code = variant.make_source(get("jacobi-1d"), tmp_path)[0].read_text()
    assert "polysched_intrinsics.h" not in code


def test_bf16_only_when_named(monkeypatch):
    monkeypatch.setenv("POLYSCHED_CBLAS", "none")     # else sgemm_cblas takes A * Bt under reassociate
    text = (PROGRAM.replace("double", "float").replace("alpha * A", "A")
            .replace('printf("%a\\n", C[i][j])', 'printf("%.9g\\n", C[i][j])'))
    program = ps.Program.from_source(text, filename="t.c")
    intrinsics = builtin_intrinsics()
    # (sgemm_8x8 needs a unit-stride B; only the packed bf16 kernel matches A * Bt)
    _, report = auto_tensorize(program, intrinsics, reassociate=True)
    assert not any(a.applied for a in report)
    bf16 = [i for i in intrinsics if i.name == "sgemm_packed_bf16"]
    named, report = auto_tensorize(program, bf16)
    assert [a.applied for a in report] == [True]
    assert "not bit-identical (bf16)" in report[0].describe()
    assert "polysched_sgemm_packed_bf16(" in named.c_code()
    # inputs rounded to 8 significant bits, 300 terms with cancellations: close, not equal
    assert named.verify(dataset=None, rtol=0.05, atol=0.5).status == "equal"
    assert named.verify(dataset=None).status == "differ"


def test_a_point_loop_of_one_iteration_still_calls(monkeypatch):
    """Rows tiled by 1: isl prints no loop for the block's single row; the call gets a
    trip count of 1 for it."""
    from polysched.tensorize import apply

    monkeypatch.setattr(apply, "BLOCKINGS", ((True, 1),))
    p = ps.Program.from_file(KERNELS + "gemm.c").tensorize("S1", "dgemm_packed_scaled")
    code = p.c_code()
    assert "kept as loops" not in code and "polysched_dgemm_packed_scaled((1), " in code
    result = p.verify()
    assert result.status == "equal" and "worst abs err 0," in str(result), result
