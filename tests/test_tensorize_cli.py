"""``polysched tensorize``: listing, JSON, the oracle cross-check, and one-line errors."""
import json
from pathlib import Path

from polysched.emit_c import without_pasted_headers as calls_only
from polysched.cli import main

KERNELS = Path(__file__).resolve().parent.parent / "polysched" / "bench" / "kernels"


def test_listing_with_oracle(capsys):
    assert main(["tensorize", str(KERNELS / "gemm.c"), "--oracle"]) == 0
    out = capsys.readouterr().out
    assert "S1 (line 117)" in out
    assert ("dgemm_4x8_scaled: loops k->k, i->i, j->j; arrays C->C, alpha->alpha, A->A, B->B; "
            "remainder on j; legal") in out
    assert out.index("dgemm_8x8_avx512_scaled: loops") < out.index("dgemm_4x8_scaled: loops")
    assert "oracle agrees" in out and "DISAGREES" not in out
    assert "S0 (line 114)" in out and "no match: dgemm_4x8," in out


def test_json_and_illegal_reason(capsys):
    assert main(["tensorize", str(KERNELS / "conv2d-nchw.c"), "--intrinsics", "mtile16_f64", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [s1] = [e for e in data if e["statement"] == "S1"]
    [entry] = s1["intrinsics"]
    assert entry["intrinsic"] == "mtile16_f64" and len(entry["matches"]) == 2
    for m in entry["matches"]:
        assert not m["legal"] and "reorder the updates of out" in m["reason"]
        assert m["loops"]["k"] == "c"


def test_errors(tmp_path, capsys):
    assert main(["tensorize", str(KERNELS / "gemm.c"), "--intrinsics", "nope"]) == 2
    assert "unknown intrinsic 'nope'" in capsys.readouterr().err
    bad = tmp_path / "bad.c"
    bad.write_text("void f(double a[4]) {\n#pragma scop\n  a[0] = = 1;\n#pragma endscop\n}\n")
    assert main(["tensorize", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{bad}:3:") and "\n" not in err
    desc = tmp_path / "d.c"
    desc.write_text("/* polysched intrinsic\n * name: d\n */\nvoid d(double x[2]) {\n#pragma scop\n"
                    "  x[0] = = 2;\n#pragma endscop\n}\n")
    assert main(["tensorize", str(KERNELS / "gemm.c"), "--intrinsics", str(desc)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{desc}:6:") and "\n" not in err


def test_apply_writes_a_verified_file(tmp_path, capsys):
    import shutil

    import pytest

    from polysched.bench import verify
    from polysched.tensorize import INCLUDE_DIR

    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    out = tmp_path / "2mm.c"
    assert main(["tensorize", str(KERNELS / "2mm.c"), "--apply", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    # the packed block kernels rank first (8 lanes, packed operands), those that also run
    # the product's init statement (tmp = 0.0, D *= beta) first among them; S1 has the
    # scalar factor alpha; the FMA ones are not used unless asked for
    assert "S1: dgemm_packed_zero_scaled" in text and "S3: dgemm_packed_beta:" in text
    assert "S0: runs in S1's calls" in text and "S2: runs in S3's calls" in text
    assert text.count("; applied") == 2
    code = calls_only(out.read_text())
    assert "polysched_dgemm_packed_zero_scaled(" in code and "polysched_dgemm_packed_beta(" in code
    assert "_fma" not in code
    result = verify(KERNELS / "2mm.c", out, dataset="MINI", include_dirs=[INCLUDE_DIR])
    assert result.status == "equal", result
    # three chained products: each later one keeps the earlier calls
    out3 = tmp_path / "3mm.c"
    assert main(["tensorize", str(KERNELS / "3mm.c"), "--apply", "-o", str(out3)]) == 0
    assert capsys.readouterr().out.count("; applied") == 3
    assert calls_only(out3.read_text()).count("/* polysched: tensorize dgemm_packed_zero */") == 3
    sizes = {"NI": "16", "NJ": "24", "NK": "20", "NL": "17", "NM": "9"}
    result = verify(KERNELS / "3mm.c", out3, dataset="MINI", defines=sizes, include_dirs=[INCLUDE_DIR])
    assert result.status == "equal", result
    assert main(["tensorize", str(KERNELS / "2mm.c"), "--apply"]) == 2


def test_optimize_tensorize_verified(tmp_path, capsys):
    out = tmp_path / "gemm.c"
    assert main(["optimize", str(KERNELS / "gemm.c"), "-o", str(out), "--tile", "--parallel",
                 "--tensorize", "--verify"]) == 0
    text = capsys.readouterr().out
    assert "tensorize: S1: dgemm_packed_beta_scaled" in text and "verify: equal" in text
    assert "tensorize: S0: runs in S1's calls" in text
    code = calls_only(out.read_text())
    assert "polysched_dgemm_packed_beta_scaled(" in code and "#pragma omp parallel for" in code
    # a named intrinsic; and no match at all: the usual pipeline
    assert main(["optimize", str(KERNELS / "gemm.c"), "-o", str(out), "--tensorize", "dgemm_4x8_scaled"]) == 0
    assert "polysched_dgemm_4x8_scaled(" in calls_only(out.read_text())
    capsys.readouterr()
    assert main(["optimize", str(KERNELS / "jacobi-1d.c"), "-o", str(out), "--tensorize"]) == 0
    assert "polysched_intrinsics.h" not in calls_only(out.read_text())
    assert main(["optimize", str(KERNELS / "gemm.c"), "-o", str(out), "--tensorize",
                 "--save-trace", str(tmp_path / "t.json")]) == 2


def test_optimize_tensorize_takes_the_fma_kernel_only_with_reassociate(tmp_path, capsys, monkeypatch):
    """The FMA micro-kernel rounds differently: ``optimize --tensorize`` picks it only
    under ``--reassociate`` (the user's consent), the exact one otherwise. (With a
    CBLAS on the machine the BLAS call would win: test_tensorize_cblas.py.)"""
    monkeypatch.setenv("POLYSCHED_CBLAS", "none")
    out = tmp_path / "gemm.c"
    assert main(["optimize", str(KERNELS / "gemm.c"), "-o", str(out), "--tensorize"]) == 0
    assert "polysched_dgemm_packed_beta_scaled(" in calls_only(out.read_text())
    assert main(["optimize", str(KERNELS / "gemm.c"), "-o", str(out), "--tensorize", "--reassociate"]) == 0
    assert "polysched_dgemm_packed_fma_scaled(" in calls_only(out.read_text())
    assert "not bit-identical (fma)" in capsys.readouterr().out


THREE_REGIONS = r"""
#include <stdio.h>
#define N 36
double A[N][N], B[N][N], C[N][N], D[N][N], E[N][N];
int main(void) {
  int i, j, k, t;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) { A[i][j] = (i * 3 + j) % 7 - 2.5; B[i][j] = (i + 2 * j) % 5 * 0.25; C[i][j] = 0; D[i][j] = 1; E[i][j] = 0; }
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
#pragma scop
  for (t = 0; t < 3; t++)
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        E[i][j] = 0.5 * (C[i - 1][j] + C[i + 1][j]) + E[i][j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        D[i][j] += C[i][k] * E[k][j];
#pragma endscop
  for (i = 0; i < N; i++) printf("%.17g %.17g %.17g\n", C[i][i], D[i][N - 1 - i], E[i][i]);
  return 0;
}
"""


def test_optimize_tensorize_every_region(tmp_path, capsys):
    """``--tensorize`` calls intrinsics in every region with a match (not only the
    first); a region without one goes through the pipeline (tiled), and the output
    verifies."""
    src = tmp_path / "three.c"
    src.write_text(THREE_REGIONS)
    out = tmp_path / "out.c"
    assert main(["optimize", str(src), "-o", str(out), "--tile", "--tensorize", "--verify"]) == 0
    text = capsys.readouterr().out
    assert "verify: equal" in text
    summary = text.split("region ")[1:]
    assert len(summary) == 3
    assert "; applied" in summary[0] and "; applied" in summary[2]
    assert "applied" not in summary[1] and "tiled [" in summary[1]
    code = calls_only(out.read_text())
    assert code.count("/* polysched: tensorize ") == 2


def test_tensorize_apply_every_region(tmp_path, capsys):
    """``polysched tensorize --apply`` applies the matches of every region; the region
    without one is kept as written, and the output verifies."""
    from polysched.bench import verify
    src = tmp_path / "three.c"
    src.write_text(THREE_REGIONS)
    out = tmp_path / "out.c"
    assert main(["tensorize", str(src), "--apply", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "region 0: S0: " in text and "region 2: S0: " in text and text.count("; applied") == 2
    code = calls_only(out.read_text())
    assert code.count("/* polysched: tensorize ") == 2
    assert "E[i][j] = 0.5 * (C[i - 1][j] + C[i + 1][j]) + E[i][j];" in code
    assert verify(src, out).status == "equal"


def test_apply_stops_at_its_budget(tmp_path, capsys):
    """A probe's region of four matches with user intrinsics ran 3 min 20 s in the last
    legality check of ``tensorize --apply``, which had no budget: each region now runs
    in a child process stopped when ``--budget`` is used up, kept as written then."""
    out = tmp_path / "gemm.c"
    source = KERNELS / "gemm.c"
    assert main(["tensorize", str(source), "--apply", "-o", str(out), "--budget", "1e-9"]) == 0
    err = capsys.readouterr().err
    assert "notice: tensorization stopped: the run's budget of 1e-09 CPU seconds was used up; the region is " \
           "kept as written" in err
    assert out.read_text() == source.read_text()
    assert main(["tensorize", str(source), "--apply", "-o", str(tmp_path / "x.c"), "--budget", "-1"]) == 2
    assert not (tmp_path / "x.c").exists()


def test_verify_compares_a_named_inexact_intrinsic_with_a_tolerance_and_exact_ones_bit_for_bit(tmp_path, capsys,
                                                                                              monkeypatch):
    """helper-58: ``--tensorize dgemm_packed_fma_scaled --verify`` (an intrinsic named,
    and so used, though it rounds otherwise) compared bit for bit and said "differ",
    where ``Program.verify`` took a tolerance; and ``Program.verify`` took that
    tolerance for exact intrinsics too, where a last-bit error is a wrong result."""
    import polysched as ps
    monkeypatch.setenv("POLYSCHED_CBLAS", "none")
    out = tmp_path / "gemm.c"
    assert main(["optimize", str(KERNELS / "gemm.c"), "-o", str(out), "--tensorize", "dgemm_packed_fma_scaled",
                 "--verify"]) == 0
    printed = capsys.readouterr().out
    assert "polysched_dgemm_packed_fma_scaled(" in calls_only(out.read_text())
    assert "verify: equal" in printed and "(rtol 1e-06, atol 1e-09)" in printed
    p = ps.Program.from_file(KERNELS / "gemm.c")
    assert not p.tensorize("S1", "dgemm_packed_beta_scaled").reassociates()
    assert p.tensorize("S1", "dgemm_packed_fma_scaled").reassociates()


ROW_POINTERS = """struct row { double *a, *b; };
void kern(int n, double C[n][n], double A[n][n], double B[n][n], struct row *R) {
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i].a[j] = R[i].b[j];
#pragma endscop
}
"""


def test_a_match_whose_region_keeps_its_original_code_does_not_say_applied_alone(tmp_path, capsys):
    """helper-64: next to two pointer members of an array of structs (rows that may
    overlap each other and the matrices: no run-time check covers them), the output
    runs the original code only, while tensorize --apply printed 'applied' alone, and
    optimize's summary 'applied' above the lines that say the original code is kept."""
    from polysched.pipeline import OptimizeOptions, optimize
    source = tmp_path / "rows.c"
    source.write_text(ROW_POINTERS)
    out = tmp_path / "out.c"
    assert main(["tensorize", str(source), "--apply", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "applied, but the original code is kept (below)" in printed, printed
    assert "original code kept: 'R[].a' is reached through a pointer to pointers" in printed, printed
    summary = optimize(source, OptimizeOptions.from_flags(tile=True, tensorize=True)).summary()
    assert all(line.startswith("  not in the code: ") for line in summary.splitlines() if "tensorize:" in line)
    assert "original code kept" in summary, summary


def test_apply_to_the_standard_output_writes_only_c_there(tmp_path):
    """helper-92: with `-o -` the summary and "wrote /dev/stdout" were pasted around the
    code on the standard output, which then did not compile."""
    import shutil
    import subprocess
    import sys

    import pytest

    from polysched.bench import verify

    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    done = subprocess.run([sys.executable, "-m", "polysched", "tensorize", str(KERNELS / "gemm.c"), "--apply",
                           "-o", "-"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "S1: " in done.stderr and "wrote" not in done.stderr and "\nS1: " not in done.stdout
    out = tmp_path / "gemm.c"
    out.write_text(done.stdout)
    assert verify(KERNELS / "gemm.c", out, dataset="MINI").status == "equal"
