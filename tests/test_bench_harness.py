"""compile_c / run_binary / compare_outputs / verify / machine_info, on tiny programs."""
from __future__ import annotations

import math
import os
import shutil
import struct
import sys
import time
from pathlib import Path

import pytest

from polysched.bench import (cache_size, compare_outputs, compile_c, machine_info,
                             parse_kernel_seconds, portable_cflags, run_binary, time_interleaved, verify)
from polysched.bench.compare import tokenize
from polysched.bench.machine import parse_size

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
FAST = ["-O1"]


def next_double(x: float) -> float:
    """The double one ulp above x (x > 0)."""
    return struct.unpack("<d", struct.pack("<q", struct.unpack("<q", struct.pack("<d", x))[0] + 1))[0]


# ----------------------------------------------------------------- compare_outputs

def test_identical_outputs_are_equal():
    text = "== A ==\n1 2.5 -3e-07\n== B ==\n4 5\n"
    result = compare_outputs(text, text)
    assert result.equal
    assert result.n_values == 5
    assert result.worst_abs == 0 and result.worst_rel == 0
    assert result.first_mismatch is None


def test_one_ulp_and_print_rounding_accepted():
    x = 0.1234567890123
    y = next_double(x)
    assert x != y
    # Printed with 17 digits the ulp shows; printed with %.10g the last digit can flip.
    assert compare_outputs(f"== A ==\n{x:.17g}\n", f"== A ==\n{y:.17g}\n").equal
    assert compare_outputs("== A ==\n0.1234567891\n", "== A ==\n0.123456789\n").equal
    # FMA / reassociation noise ~1e-10 relative on a large value.
    assert compare_outputs("12345.678901", f"{12345.678901 * (1 + 1e-10):.10g}").equal


def test_hexadecimal_floats_are_numbers_under_the_tolerance():
    """helper-90: C's %a output was text, compared exactly: a reassociated sum 1e-8
    away was "differ ... worst abs err 0"."""
    a, b = 1.0 / 3.0, 1.0 / 3.0 + 1e-8
    result = compare_outputs(f"{a.hex()} s={a.hex()};\n", f"{b.hex()} s={b.hex()};\n", rtol=1e-6)
    assert result.equal and result.n_values == 2 and 0 < result.worst_abs < 2e-8
    far = compare_outputs(a.hex(), (a * 1.001).hex(), rtol=1e-6)
    assert not far.equal and far.worst_rel > 9e-4
    assert compare_outputs("0x1.8p+3", "0x1.8p+3", rtol=0, atol=0).equal
    assert not compare_outputs("0x1f", "0x1e").equal          # %x: text, exactly


def test_real_difference_rejected_and_located():
    expected = "== A ==\n1 2 3\n== B ==\n1.5 2.5 3.5\n"
    actual = "== A ==\n1 2 3\n== B ==\n1.5 2.5001 3.5\n"
    result = compare_outputs(expected, actual)
    assert not result.equal
    assert "B[1]" in result.first_mismatch
    assert "2.5001" in result.first_mismatch
    assert result.worst_abs == pytest.approx(1e-4)
    assert result.worst_rel == pytest.approx(1e-4 / 2.5001)
    assert result.n_mismatches == 1
    assert "B[1]" in result.message


def test_tolerances_are_parameters():
    assert not compare_outputs("1.0", "1.001").equal
    assert compare_outputs("1.0", "1.001", rtol=1e-2).equal
    assert not compare_outputs("0", "1e-6").equal
    assert compare_outputs("0", "1e-6", atol=1e-5).equal


def test_integers_compare_exactly():
    # 1000000 vs 1000001 is within rtol=1e-6 but is an integer off-by-one.
    assert not compare_outputs("== D ==\n1000000\n", "== D ==\n1000001\n").equal
    assert compare_outputs("== D ==\n7 -3\n", "== D ==\n+7 -3\n").equal
    # at any magnitude: an unsigned sum that wrapped differently, a 64-bit hash
    assert not compare_outputs("4000000000", "4000000001").equal
    assert not compare_outputs("18446744073709551615", "18446744073709551614").equal
    assert compare_outputs("18446744073709551615", "18446744073709551615").equal


def test_token_count_mismatch():
    result = compare_outputs("== A ==\n1 2 3\n", "== A ==\n1 2\n")
    assert not result.equal
    assert "token count" in result.message
    assert "A[2]" in result.first_mismatch
    assert not compare_outputs("1 2", "1 2 3").equal


def test_non_numeric_tokens_and_headers_exact():
    result = compare_outputs("== A ==\n1\n", "== B ==\n1\n")
    assert not result.equal
    assert "header" in result.first_mismatch
    result = compare_outputs("x 1 2", "y 1 z")
    assert not result.equal and result.n_values == 1 and result.n_mismatches == 2


def test_nan_and_inf():
    assert compare_outputs("nan -nan inf -inf", "nan nan inf -inf").equal
    assert not compare_outputs("nan", "1").equal
    assert not compare_outputs("1", "nan").equal
    assert not compare_outputs("inf", "-inf").equal
    result = compare_outputs("inf", "1e308")
    assert not result.equal and math.isinf(result.worst_abs)


def test_tokenize_tracks_arrays():
    tokens = tokenize("== A ==\n1 2\n3\n== B ==\n4\n")
    values = [(t.array, t.index) for t in tokens if not t.is_header]
    assert values == [("A", 0), ("A", 1), ("A", 2), ("B", 0)]
    # Python's float() accepts "1_0"; a dump token like that is not a number.
    assert tokenize("1_0")[0].number is None


# ----------------------------------------------------------------- compile_c

@needs_gcc
def test_compile_broken_file_reports_gcc_message(tmp_path):
    source = tmp_path / "broken.c"
    source.write_text("int main(void) {\n  return undefined_variable;\n}\n")
    result = compile_c(source, tmp_path / "broken", cflags=FAST)
    assert not result.ok
    assert "undefined_variable" in result.stderr
    assert "broken.c:2" in result.reason
    assert not (tmp_path / "broken").exists()


@needs_gcc
def test_compile_flags_and_defines(tmp_path):
    source = tmp_path / "p.c"
    source.write_text('#include <math.h>\n#include <stdio.h>\n'
                      'int main(void) { printf("%d %g\\n", VALUE, sqrt(FLAG_SET + 3.0)); return 0; }\n')
    result = compile_c(source, tmp_path / "p", cflags=FAST, defines={"VALUE": "42", "FLAG_SET": None})
    assert result.ok, result.reason
    assert "-DVALUE=42" in result.command and "-DFLAG_SET" in result.command
    assert result.command[-1] == "-lm"
    run = run_binary(tmp_path / "p")
    assert run.ok and run.stdout.split() == ["42", "2"]


@needs_gcc
def test_a_c_file_by_another_name_is_compiled_as_c(tmp_path):
    """helper-89: optimize writes OUT.c.unverified when verification fails; `verify ORIG.c
    OUT.c.unverified` was "does not build" (gcc read the name as a linker script)."""
    source = tmp_path / "out.c.unverified"
    source.write_text('#include <stdio.h>\nint main(void) { printf("7\\n"); return 0; }\n')
    result = compile_c(source, tmp_path / "p", cflags=FAST)
    assert result.ok, result.reason
    assert run_binary(tmp_path / "p").stdout.split() == ["7"]


def test_missing_compiler_is_a_result(tmp_path):
    source = tmp_path / "p.c"
    source.write_text("int main(void) { return 0; }\n")
    result = compile_c(source, tmp_path / "p", cc="no-such-compiler-xyz")
    assert not result.ok
    assert "not found" in result.reason
    assert portable_cflags("no-such-compiler-xyz", ["-O2", "-march=native"]) == ["-O2"]


def test_missing_source_is_a_result(tmp_path):
    result = compile_c(tmp_path / "absent.c", tmp_path / "x")
    assert not result.ok and "no such file" in result.reason


# ----------------------------------------------------------------- run_binary

def _build(tmp_path: Path, name: str, body: str, openmp: bool = False) -> Path:
    source = tmp_path / f"{name}.c"
    source.write_text(body)
    result = compile_c(source, tmp_path / name, cflags=FAST, openmp=openmp)
    assert result.ok, result.reason
    return tmp_path / name


@needs_gcc
def test_run_segfault_reported(tmp_path):
    binary = _build(tmp_path, "crash", "#include <signal.h>\nint main(void) { raise(SIGSEGV); return 0; }\n")
    result = run_binary(binary)
    assert not result.ok and not result.timed_out
    assert result.reason == "killed by SIGSEGV"


@needs_gcc
def test_run_infinite_loop_times_out(tmp_path):
    binary = _build(tmp_path, "loop", "int main(void) { volatile int x = 0; for (;;) x++; }\n")
    result = run_binary(binary, timeout=1)
    assert not result.ok and result.timed_out
    assert result.reason == "timed out after 1 s"


@needs_gcc
def test_run_nonzero_exit_reported(tmp_path):
    binary = _build(tmp_path, "three", '#include <stdio.h>\nint main(void) { puts("partial"); return 3; }\n')
    result = run_binary(binary)
    assert not result.ok
    assert result.returncode == 3
    assert result.reason == "exited with status 3"
    assert result.stdout == "partial\n"


@needs_gcc
def test_run_parses_kernel_time_and_threads(tmp_path):
    binary = _build(tmp_path, "timed", '#include <stdio.h>\n#include <stdlib.h>\n'
                    'int main(void) { fprintf(stderr, "polysched-time: 0.25\\n");'
                    ' fprintf(stderr, "polysched-checksum: 12.5\\n");'
                    ' printf("%s\\n", getenv("OMP_NUM_THREADS")); return 0; }\n')
    result = run_binary(binary, threads=3)
    assert result.ok
    assert result.kernel_seconds == 0.25
    assert result.checksum == "12.5"
    assert result.stdout.strip() == "3"
    assert parse_kernel_seconds("no time here") is None


@needs_gcc
def test_interleaved_timing_keeps_each_binary_s_own_times_and_drops_failed_runs(tmp_path):
    """Rounds a, b, c, a, b, c: each binary's ``polysched-time:`` per round; a run that
    fails or prints no time adds no sample."""
    timed = _build(tmp_path, "timed", '#include <stdio.h>\nint main(void) { fprintf(stderr, "polysched-time: 0.5\\n"); return 0; }\n')
    silent = _build(tmp_path, "silent", "int main(void) { return 0; }\n")
    failing = _build(tmp_path, "failing", '#include <stdio.h>\nint main(void) { fprintf(stderr, "polysched-time: 1\\n"); return 2; }\n')
    times = time_interleaved({"timed": timed, "silent": silent, "failing": failing}, threads=1, repeat=3)
    assert times == {"timed": [0.5, 0.5, 0.5], "silent": [], "failing": []}


@needs_gcc
def test_timed_runs_bind_the_openmp_threads(tmp_path, monkeypatch):
    """A timed run binds the threads (OpenMP itself reports it), an untimed one does not,
    and the user's own OMP_PROC_BIND wins. (A timed run's stdout is discarded: the
    program reports on stderr.)"""
    binary = _build(tmp_path, "bind", '#include <stdio.h>\n#include <omp.h>\n'
                    'int main(void) { printf("out\\n"); fprintf(stderr, "%d\\n", (int)omp_get_proc_bind());'
                    ' return 0; }\n', openmp=True)
    monkeypatch.delenv("OMP_PROC_BIND", raising=False)
    untimed = run_binary(binary, threads=2)
    assert (untimed.stdout, untimed.stderr.strip()) == ("out\n", "0")         # omp_proc_bind_false
    timed = run_binary(binary, threads=2, timed=True)
    assert (timed.stdout, timed.stderr.strip()) == ("", "1")                  # omp_proc_bind_true
    monkeypatch.setenv("OMP_PROC_BIND", "spread")
    assert run_binary(binary, threads=2, timed=True).stderr.strip() == "4"   # omp_proc_bind_spread


def test_run_missing_binary(tmp_path):
    result = run_binary(tmp_path / "nothing")
    assert not result.ok and "no such executable" in result.reason


def test_run_a_file_that_is_not_a_program(tmp_path):
    junk = tmp_path / "junk.exe"
    junk.write_text("garbage\n")
    junk.chmod(0o755)
    result = run_binary(junk)
    assert not result.ok and result.reason == f"{junk}: cannot execute (Exec format error)"
    junk.chmod(0o644)
    assert run_binary(junk).reason == f"{junk}: not executable"


@needs_gcc
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_program_being_run_dies_with_the_process_running_it(tmp_path):
    """helper-46 F21: `kill -9` of bench or tune left the program it was timing running
    (forever, for a loop that does not end), in its own session, stealing a core."""
    import signal
    import subprocess
    from polysched.bench.harness import _dies_with_parent
    if not _dies_with_parent():
        pytest.skip("no setpriv --pdeathsig here")
    source = tmp_path / "spin.c"
    source.write_text("int main(void) { volatile unsigned long n = 0; for (;;) n++; }\n")
    binary = tmp_path / "spin-forever.exe"
    assert compile_c(source, binary, cflags=["-O0"]).ok
    runner = subprocess.Popen([sys.executable, "-c", "import sys\nfrom polysched.bench.harness import run_binary\n"
                               "run_binary(sys.argv[1], timeout=120, timed=True)", str(binary)])

    def spinning() -> list[str]:
        found = subprocess.run(["pgrep", "-f", str(binary)], capture_output=True, text=True).stdout.split()
        return [pid for pid in found if int(pid) != runner.pid]
    deadline = time.monotonic() + 60
    while not spinning() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert spinning(), "the program never started"
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    deadline = time.monotonic() + 10
    while spinning() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = spinning()
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    assert not left, "the program outlived the process running it"


# ----------------------------------------------------------------- verify

PROGRAM = r"""
#include <stdio.h>
#ifdef MINI_DATASET
#define N 12
#else
#define N 300
#endif
static double A[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
  /* KERNEL */
#ifdef POLYSCHED_DUMP
  printf("== A ==\n");
  for (int i = 0; i < N; i++) { for (int j = 0; j < N; j++) printf("%.10g ", A[i][j]); printf("\n"); }
#endif
  fprintf(stderr, "polysched-time: 0\n");
  return 0;
}
"""
KERNEL = "for (int i = 1; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = 0.5 * A[i-1][j] + A[i][j];"
# Legal interchange: the dependence (1, 0) stays lexicographically positive.
INTERCHANGED = "for (int j = 0; j < N; j++) for (int i = 1; i < N; i++) A[i][j] = 0.5 * A[i-1][j] + A[i][j];"
# Illegal "parallel" reversal of i: reads A[i-1] before it is updated.
REVERSED = "for (int i = N - 1; i >= 1; i--) for (int j = 0; j < N; j++) A[i][j] = 0.5 * A[i-1][j] + A[i][j];"
OPENMP = ("_Pragma(\"omp parallel for\")\n  for (int j = 0; j < N; j++) for (int i = 1; i < N; i++)"
          " A[i][j] = 0.5 * A[i-1][j] + A[i][j];")


def write_variant(tmp_path: Path, name: str, kernel: str) -> Path:
    path = tmp_path / f"{name}.c"
    path.write_text(PROGRAM.replace("/* KERNEL */", kernel))
    return path


@needs_gcc
def test_verify_equivalent_interchange(tmp_path):
    original = write_variant(tmp_path, "orig", KERNEL)
    new = write_variant(tmp_path, "interchanged", INTERCHANGED)
    result = verify(original, new, cflags=FAST, dataset="mini")
    assert result.ok and result.status == "equal", result.reason
    assert result.comparison.n_values == 12 * 12
    assert "-DPOLYSCHED_DUMP" in result.original_compile.command
    # Identical flags: the commands differ only in the source and output paths.
    strip = lambda cmd: [c for c in cmd if not c.endswith((".c", ".exe"))]
    assert strip(result.original_compile.command) == strip(result.transformed_compile.command)


@needs_gcc
def test_verify_wrong_transformation_differs(tmp_path):
    original = write_variant(tmp_path, "orig", KERNEL)
    new = write_variant(tmp_path, "reversed", REVERSED)
    result = verify(original, new, cflags=FAST, defines={"MINI_DATASET": None})
    assert not result.ok and result.status == "differ"
    # Rows 0 and 1 come out right; row 2 misses 0.25 * A[0][j], and A[0][0] == 0, so the
    # first wrong value is A[2][1], element 2 * 12 + 1 of the dump.
    assert "A[25]" in result.comparison.first_mismatch
    assert "A[25]" in result.reason


@needs_gcc
def test_verify_openmp_compiles_both_with_fopenmp(tmp_path):
    original = write_variant(tmp_path, "orig", KERNEL)
    new = write_variant(tmp_path, "omp", OPENMP.replace('_Pragma("omp parallel for")', "#pragma omp parallel for"))
    result = verify(original, new, cflags=FAST, defines={"MINI_DATASET": None}, threads=2)
    assert result.ok, result.reason
    assert "-fopenmp" in result.original_compile.command
    assert "-fopenmp" in result.transformed_compile.command


@needs_gcc
def test_verify_errors(tmp_path):
    original = write_variant(tmp_path, "orig", KERNEL)
    crash = write_variant(tmp_path, "crash", "*(volatile int *)0 = 1;")
    result = verify(original, crash, cflags=FAST)
    assert result.status == "error" and "SIGSEGV" in result.reason
    broken = write_variant(tmp_path, "broken", "this is not C;")
    result = verify(original, broken, cflags=FAST)
    assert result.status == "error" and "failed" in result.reason
    silent = tmp_path / "silent.c"
    silent.write_text("int main(void) { return 0; }\n")
    result = verify(silent, silent, cflags=FAST)
    assert result.status == "error" and "nothing to compare" in result.reason
    assert verify(tmp_path / "absent.c", original).status == "error"


@needs_gcc
def test_verify_compares_exit_statuses(tmp_path):
    """helper-28: a program that exits with a status of its own on purpose could not be
    verified ("original run exited with status 3"); both must exit with it."""
    def program(name: str, value: str, status: int):
        path = tmp_path / f"{name}.c"
        path.write_text(f'#include <stdio.h>\nint main(void) {{ printf("%.17g\\n", {value}); return {status}; }}\n')
        return path
    three = program("three", "0.5", 3)
    assert verify(three, program("same", "0.5", 3), cflags=FAST).status == "equal"
    result = verify(three, program("zero", "0.5", 0), cflags=FAST)
    assert result.status == "differ" and "exited with status 3, the transformed program with 0" in result.reason
    assert verify(program("ok", "0.5", 0), program("four", "0.5", 4), cflags=FAST).status == "differ"
    assert verify(three, program("other", "0.25", 3), cflags=FAST).status == "differ"


@needs_gcc
def test_verify_workdir_kept_and_tempdir_cleaned(tmp_path):
    original = write_variant(tmp_path, "orig", KERNEL)
    result = verify(original, original, cflags=FAST, defines={"MINI_DATASET": None},
                    workdir=tmp_path / "build")
    assert result.ok
    assert (tmp_path / "build" / "original.exe").exists()
    result = verify(original, original, cflags=FAST, defines={"MINI_DATASET": None})
    assert not result.original_compile.output.exists()


# ----------------------------------------------------------------- machine

def test_parse_size():
    assert parse_size("48K") == 48 * 1024
    assert parse_size("1M") == 1024 ** 2
    assert parse_size("512") == 512
    assert parse_size("junk") is None


def test_cache_sizes_are_sane():
    l1, l2, l3 = cache_size(1), cache_size("L2"), cache_size("L3")
    assert 4 * 1024 <= l1 <= l2 <= l3
    assert cache_size("L1d") == l1
    with pytest.raises(ValueError):
        cache_size(5)


def test_machine_info_fields():
    info = machine_info()
    for key in ("cpu_model", "cores_logical", "caches", "compiler_version", "os", "python",
                "polysched_version", "git_commit", "date"):
        assert key in info
    assert info["cores_logical"] >= 1
    assert info["date"].endswith("+00:00")
    if shutil.which("gcc"):
        assert "gcc" in info["compiler_version"].lower()
    import json
    json.dumps(info)


def test_scratch_directories_of_processes_gone_are_removed(tmp_path, monkeypatch):
    """helper-46 F21: `kill -9` of bench or tune left /tmp/polysched-* behind, binaries
    and all; the next campaign removes those whose process no longer runs."""
    import tempfile
    from polysched.bench.harness import scratch_directory
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = tmp_path / "polysched-bench-999999999-abc"           # no such process
    mine = tmp_path / f"polysched-bench-{os.getpid()}-def"       # running
    other = tmp_path / "polysched-tune-999999999-ghi"            # another kind
    for folder in (gone, mine, other):
        (folder / "k").mkdir(parents=True)
        (folder / "k" / "a.exe").write_bytes(b"\x7fELF")
    with scratch_directory("bench") as made:
        assert Path(made).name.startswith(f"polysched-bench-{os.getpid()}-")
        assert not gone.exists() and mine.exists() and other.exists()
    assert not Path(made).exists()
