"""`polysched optimize` and `polysched demo` as a user runs them (subprocess, exit codes)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from polysched.bench import get, verify

KERNEL = get("jacobi-2d").path


def polysched(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polysched", *args], capture_output=True,
                          text=True, timeout=600, cwd=cwd)


def test_readme_demo_command_runs_and_verifies(tmp_path):
    """The README quick start's `make demo` is `polysched demo`: it must pass."""
    proc = polysched("demo", "--out-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "demo passed" in proc.stdout
    assert proc.stdout.count("verify (compile both, run at MINI, compare outputs): equal") == 2
    written = sorted(p.name for p in tmp_path.iterdir())
    assert "gemm.c" in written and len(written) == 3


def test_the_demo_runs_again_in_its_directory_and_leaves_a_users_file_alone(tmp_path):
    """helper-87: the demo replaced a gemm.c of the user's in its --out-dir without a
    word. Its own copy from an earlier run is no such file: it runs again there."""
    assert polysched("demo", "--out-dir", str(tmp_path)).returncode == 0
    assert polysched("demo", "--out-dir", str(tmp_path)).returncode == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "gemm.c").write_text("/* mine */\n")
    proc = polysched("demo", "--out-dir", str(mine))
    assert proc.returncode == 2 and "gemm.c exists and is not the bundled gemm.c" in proc.stderr, proc.stderr
    assert (mine / "gemm.c").read_text() == "/* mine */\n" and sorted(mine.iterdir()) == [mine / "gemm.c"]


def test_optimize_tile_parallel_output_verifies_and_has_pragmas(tmp_path):
    out = tmp_path / "out.c"
    proc = polysched("optimize", str(KERNEL), "-o", str(out), "--tile", "--parallel", "--verify")
    assert proc.returncode == 0, proc.stderr
    assert "verify: equal" in proc.stdout
    text = out.read_text()
    assert "#pragma omp parallel for" in text
    # everything outside the region is the user's file, byte for byte
    original = KERNEL.read_text()
    head = original[: original.index("#pragma scop")]
    tail = original[original.index("#pragma endscop"):]
    assert text.startswith(head) and text.endswith(tail)


def test_optimize_identity_is_equal_by_execution(tmp_path):
    out = tmp_path / "out.c"
    assert polysched("optimize", str(KERNEL), "-o", str(out), "--identity").returncode == 0
    assert verify(KERNEL, out, dataset="MINI").ok


@pytest.mark.parametrize("source, args, message", [
    ("int main(void) { return 0; }\n", [], "no '#pragma scop'"),
    ("void f(int n, double A[100]) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
     "    A[i * i] = 0;\n#pragma endscop\n}\n", [], ":4:"),
    ("void f(int n, double A[100]) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
     "    A[i] = 0;\n#pragma endscop\n}\n", ["--tile-sizes", "3,x"], "tile sizes"),
])
def test_bad_input_exit_2_one_line_nothing_written(tmp_path, source, args, message):
    src = tmp_path / "in.c"
    src.write_text(source)
    out = tmp_path / "out.c"
    proc = polysched("optimize", str(src), "-o", str(out), *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_missing_file_exit_2(tmp_path):
    proc = polysched("optimize", str(tmp_path / "nope.c"), "-o", str(tmp_path / "o.c"))
    assert proc.returncode == 2 and "nope.c: error:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_register_tile_flag_turns_the_jam_on_and_off(tmp_path):
    """gesummv: by default the reduction loop j stays innermost and i is jammed by 4
    (`y_r3`: the fourth row's accumulator); --register-tile 0 puts i innermost; both
    verify; a negative factor is a usage error with nothing written."""
    source = get("gesummv").path
    for flag, jammed in ((["--register-tile", "4"], True), (["--register-tile", "0"], False), ([], True)):
        out = tmp_path / f"out{len(flag)}{jammed}.c"
        proc = polysched("optimize", str(source), "-o", str(out), "--tile", "--verify", *flag)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert ("unroll-and-jam member 0 by 4" in proc.stdout) == jammed
        assert ("double y_r3" in out.read_text()) == jammed
    bad = tmp_path / "bad.c"
    proc = polysched("optimize", str(source), "-o", str(bad), "--tile", "--register-tile", "-1")
    assert proc.returncode == 2 and "--register-tile -1" in proc.stderr and not bad.exists()


RECURRENCE = """double A[64];
void kernel(int n)
{
  int i;
#pragma scop
  for (i = 1; i < n; i++)
    A[i] = A[i - 1] * 0.5 + A[i];
#pragma endscop
}
"""


# ludcmp's two triangular solves (their dot products are floating-point reductions,
# each row needs the rows before)
SOLVES = """
void solves(int n, double A[n][n], double b[n], double x[n], double y[n])
{
  int i, j;
  double w;
#pragma scop
  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = n - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}
"""


def test_a_region_the_schedule_leaves_alone_is_kept_as_written(tmp_path):
    """When the schedule keeps the original order and marks no loop (ludcmp's solves:
    nothing is parallel or reordered), the region is kept as written: no run-time
    checks and no second copy, which made ludcmp's same loops 0.88x. The identity
    scheduler still generates the code."""
    from polysched.dependence import runs_in_original_order
    from polysched.pipeline import OptimizeOptions, optimize
    source = tmp_path / "rec.c"
    source.write_text(RECURRENCE)
    solves = tmp_path / "solves.c"
    solves.write_text(SOLVES)
    for path in (solves, source):
        result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
        [region] = result.regions
        assert region.kept_as_written and runs_in_original_order(region.scop, region.schedule)
        written = Path(path).read_text()
        scop = region.scop
        assert written[scop.region_start:scop.region_end] in result.text
        assert "polysched_min" not in result.text and "kept as written" in result.summary()
    identity = optimize(source, OptimizeOptions.from_flags(scheduler="identity", tile=True))
    assert not identity.regions[0].kept_as_written and "for (int c0" in identity.text
    # gemm is transformed: not kept
    gemm = optimize(get("gemm").path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert not gemm.regions[0].kept_as_written
    assert not runs_in_original_order(gemm.regions[0].scop, gemm.regions[0].schedule)
    # the order itself, without marks: the original tree is, an interchange is not
    import polysched as ps
    program = ps.Program.from_file(get("gemm").path)
    assert runs_in_original_order(program.scop, program.schedule)
    assert not runs_in_original_order(program.scop, program.interchange("S1", 1, 2).schedule)


# `optimize --verify` compared with verify's tolerance (rtol 1e-6): an output off in the
# last bit passed, though without --reassociate every output is bit-identical
ROUNDING = r"""#include <stdio.h>
double A[64];
int main(void) {
  int i;
  for (i = 0; i < 64; i++) A[i] = i;
#pragma scop
  for (i = 1; i < 64; i++)
    A[i] = A[i - 1] * 0.1 + A[i];
#pragma endscop
  for (i = 0; i < 64; i++) printf("%.17g\n", A[i]);
  return 0;
}
"""


@pytest.mark.parametrize("reassociate", [False, True])
def test_verify_in_optimize_is_exact_without_reassociate(tmp_path, monkeypatch, capsys, reassociate):
    from polysched import pipeline
    from polysched.cli import main

    src = tmp_path / "r.c"
    src.write_text(ROUNDING)
    optimize = pipeline.optimize

    def off_by_one_bit(*args, **kwargs):        # 0.1 -> the next double up
        result = optimize(*args, **kwargs)
        body = result.text.split("#pragma scop")[1]
        assert "* 0.1 " in body
        result.text = result.text.replace(body, body.replace("* 0.1 ", "* 0.10000000000000002 "))
        return result

    monkeypatch.setattr(pipeline, "optimize", off_by_one_bit)
    out = tmp_path / "out.c"
    status = main(["optimize", str(src), "-o", str(out), "--verify", "--parallel", *(["--reassociate"] * reassociate)])
    verdict = capsys.readouterr().out
    if reassociate:      # rounding differences are allowed: within the tolerance
        assert status == 0 and "verify: equal" in verdict, verdict
    else:
        assert status == 1 and "verify: differ" in verdict and not out.exists(), verdict


@pytest.mark.parametrize("rtol, verdict", [("1e-3", "equal"), ("1e-12", "differ")])
def test_verify_in_optimize_takes_a_tolerance_with_reassociate(tmp_path, monkeypatch, capsys, rtol, verdict):
    """helper-64: a float gemm under --reassociate rounds by a few 1e-6, past the
    default 1e-6, and optimize had no --rtol/--atol (only polysched verify had): a
    correct output could not be verified. Here 0.1 becomes 0.1000000001: a relative
    error of about 1e-9, within 1e-3 and past 1e-12."""
    from polysched import pipeline
    from polysched.cli import main

    src = tmp_path / "r.c"
    src.write_text(ROUNDING)
    optimize = pipeline.optimize

    def rounded(*args, **kwargs):        # 0.1 -> 0.1 * (1 + 1e-9)
        result = optimize(*args, **kwargs)
        body = result.text.split("#pragma scop")[1]
        result.text = result.text.replace(body, body.replace("* 0.1 ", "* 0.1000000001 "))
        return result

    monkeypatch.setattr(pipeline, "optimize", rounded)
    out = tmp_path / "out.c"
    status = main(["optimize", str(src), "-o", str(out), "--verify", "--parallel", "--reassociate", "--rtol", rtol, "--atol", "0"])
    assert f"verify: {verdict}" in capsys.readouterr().out
    assert status == (0 if verdict == "equal" else 1) and out.exists() == (verdict == "equal")
    assert main(["optimize", str(src), "-o", str(out), "--rtol", "1e-3"]) == 2
    assert "--rtol is for --verify" in capsys.readouterr().err


EMPTY_MODEL = """void kern(unsigned m, int n, double *b, int *c) {
  unsigned j;
  int k;
#pragma scop
  for (j = m; j-- > 0;)
    b[j] = b[j] * 2.0 - b[j - 1];
  for (k = n - 1; k >= 1; k -= 2)
    c[k] = c[k - 1] * 3 + k;
#pragma endscop
}
"""


def test_a_region_whose_model_holds_for_no_parameter_value_says_so(tmp_path, capsys):
    """helper-89: `b[j - 1]` at j = 0 wraps for every m, so the model holds for no
    parameter value; each band said "no statement names its loops" and the region was
    "kept as written", the reason unsaid."""
    from polysched.cli import main
    source = tmp_path / "k.c"
    source.write_text(EMPTY_MODEL)
    assert main(["optimize", str(source), "-o", str(tmp_path / "o.c"), "--parallel"]) == 0
    out = capsys.readouterr().out
    assert out.count("left as it is: it runs no instance under the region's context") == 2
    assert "no statement names its loops" not in out
    assert "the region is kept as written\n  original code kept: the model holds for no parameter value" in out
