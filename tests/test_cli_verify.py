"""`polysched verify` exit codes and messages, through a real subprocess."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

PROGRAM = r"""
#include <stdio.h>
#ifdef MINI_DATASET
#define N 10
#else
#define N 2000
#endif
#ifndef SCALE
#define SCALE 1
#endif
static int B[N];
int main(void) {
  for (int i = 0; i < N; i++) B[i] = i * SCALE;
  /* KERNEL */
#ifdef POLYSCHED_DUMP
  printf("== B ==\n");
  for (int i = 0; i < N; i++) printf("%d\n", B[i]);
#endif
  fprintf(stderr, "polysched-time: 0\n");
  return 0;
}
"""
PREFIX_SUM = "for (int i = 1; i < N; i++) B[i] += B[i-1];"
WRONG_SUM = "for (int i = N - 1; i >= 1; i--) B[i] += B[i-1];"


def polysched(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polysched", "verify", *args],
                          capture_output=True, text=True, timeout=120)


def write(tmp_path: Path, name: str, kernel: str) -> str:
    path = tmp_path / f"{name}.c"
    path.write_text(PROGRAM.replace("/* KERNEL */", kernel))
    return str(path)


def test_equal_exit_0(tmp_path):
    original = write(tmp_path, "orig", PREFIX_SUM)
    copy = write(tmp_path, "copy", "/* same */ " + PREFIX_SUM)
    proc = polysched(original, copy, "--cflags=-O1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("equal: 10 values equal")   # MINI chosen by default
    assert proc.stdout.count("\n") == 1


def test_a_preset_dataset_the_program_never_tests_is_a_warning(tmp_path):
    """helper-46 F15: `--dataset SMALL` on a program that tests MINI only said "equal"
    without a word that it ran at the size it is written with."""
    original = write(tmp_path, "orig", PREFIX_SUM)
    copy = write(tmp_path, "copy", "/* same */ " + PREFIX_SUM)
    proc = polysched(original, copy, "--cflags=-O1", "--dataset", "small")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("equal: 2000 values equal")
    assert proc.stderr == ("polysched verify: warning: the program never tests SMALL_DATASET: compared at the "
                           "sizes it is written with\n")
    quiet = polysched(original, copy, "--cflags=-O1", "--dataset", "mini")
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_a_program_printing_its_file_name_verifies(tmp_path):
    """helper-12: a program that prints ``__FILE__`` printed the other file's name when
    built from the transformed copy, so every variant of it was recorded as wrong."""
    kernel = PREFIX_SUM + ' printf("%s %s\\n", __FILE__, __BASE_FILE__);'
    original = write(tmp_path, "orig", kernel)
    copy = write(tmp_path, "copy", kernel)
    proc = polysched(original, copy, "--cflags=-O1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("equal: 12 values equal")


def test_differ_exit_1_with_location(tmp_path):
    original = write(tmp_path, "orig", PREFIX_SUM)
    wrong = write(tmp_path, "wrong", WRONG_SUM)
    proc = polysched(original, wrong, "--cflags", "-O1 -g")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("differ:")
    # B = 0 1 2 3 ...; prefix sums 0 1 3 6; the reversed loop gives 0 1 3 5: B[3] first.
    assert "B[3]" in proc.stdout and "expected 6, got 5" in proc.stdout


def test_defines_reach_both_programs(tmp_path):
    original = write(tmp_path, "orig", PREFIX_SUM)
    proc = polysched(original, original, "--cflags=-O1", "-D", "SCALE=3", "-DUNUSED",
                     "--dataset", "none", "--verbose")
    assert proc.returncode == 0, proc.stderr
    assert "2000 values equal" in proc.stdout
    assert "-DSCALE=3" in proc.stderr and "-DUNUSED" in proc.stderr
    assert "MINI_DATASET" not in proc.stderr


def test_a_dataset_given_with_d_is_the_one_verified(tmp_path):
    """helper-12: -D SMALL_DATASET also got the default -DMINI_DATASET, so the run was
    at MINI (10 values), not at the dataset asked for."""
    original = write(tmp_path, "orig", PREFIX_SUM)
    proc = polysched(original, original, "--cflags=-O1", "-D", "SMALL_DATASET", "--verbose")
    assert proc.returncode == 0, proc.stderr
    assert "2000 values equal" in proc.stdout and "MINI_DATASET" not in proc.stderr


@pytest.mark.parametrize("case", ["missing", "compile", "crash", "timeout", "badflag", "original crashes"])
def test_errors_one_line_exit_1_for_a_broken_transformation(tmp_path, case):
    """A NEW.c that does not build, crashes or hangs where ORIG.c runs fails the check
    (exit 1, as optimize --verify); exit 2 is for what could not be checked: a missing
    file, a bad flag, an ORIG.c that does not run (helper-46: all were 2, and a script
    reading 2 as "could not check" accepted a crashing transformation)."""
    original = write(tmp_path, "orig", PREFIX_SUM)
    extra: list[str] = []
    if case == "missing":
        other = str(tmp_path / "absent.c")
    elif case == "compile":
        other = write(tmp_path, "broken", "B[0] = undeclared_name;")
    elif case == "crash":
        other = write(tmp_path, "crash", "*(volatile int *)0 = 1;")
    elif case == "timeout":
        other = write(tmp_path, "hang", "for (volatile int k = 0; ; k++) ;")
        extra = ["--timeout", "1"]
    elif case == "original crashes":
        other, original = original, write(tmp_path, "crash", "*(volatile int *)0 = 1;")
    else:
        other = original
        extra = ["--cflags='-O1"]
    proc = polysched(original, other, "--cflags=-O1", *extra) if case != "badflag" \
        else polysched(original, other, *extra)
    assert proc.returncode == (1 if case in ("compile", "crash", "timeout") else 2), (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0]
    expected = {"missing": "absent.c: no such file", "compile": "undeclared_name",
                "crash": "SIGSEGV", "timeout": "timed out after 1 s", "badflag": "--cflags",
                "original crashes": "original run killed by SIGSEGV"}[case]
    assert expected in lines[0]


OWN_REDUCTION = r"""
#include <stdio.h>
double x[5000];
int main(void) {
  double tot = 0.0;
  for (int i = 0; i < 5000; i++) x[i] = 1.0 / (i + 1);
  PRAGMA
  for (int i = 0; i < 5000; i++)
    tot += x[ORDER];
  printf("%.17g\n", tot);
  return 0;
}
"""


def test_an_original_whose_own_pragmas_vary_with_the_threads_is_not_blamed_on_the_output(tmp_path):
    """helper-80: the original's own 'reduction(+:tot)' sums in another order at 2
    threads (its last digits change); an output whose loop keeps the order printed the
    original's 1-thread result and verify said it differed. It is compared with the
    original's first run then, and said so; an output that matches neither (a reduction
    of its own in another order) differs."""
    def program(name: str, pragma: str, order: str) -> str:
        path = tmp_path / f"{name}.c"
        path.write_text(OWN_REDUCTION.replace("PRAGMA", pragma).replace("ORDER", order))
        return str(path)
    original = program("orig", "#pragma omp parallel for reduction(+:tot)", "i")
    in_order = program("in_order", "", "i")
    interleaved = program("interleaved", "#pragma omp parallel for reduction(+:tot) schedule(static, 1)", "i")
    runs = [subprocess.run([str(tmp_path / "probe")], capture_output=True, text=True, timeout=60,
                           env={"OMP_NUM_THREADS": str(t)}).stdout
            for t in (1, 2) if subprocess.run(["gcc", "-O2", "-fopenmp", original, "-o", str(tmp_path / "probe")],
                                              timeout=120).returncode == 0]
    assert len(runs) == 2 and runs[0] != runs[1]       # (the premise: the original varies)
    proc = polysched(original, in_order, "--rtol", "0", "--atol", "0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the original itself prints other results at 2 threads" in proc.stdout
    proc = polysched(original, interleaved, "--rtol", "0", "--atol", "0")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "(the original itself prints other results at 2 threads than at 1 thread)" in proc.stdout
