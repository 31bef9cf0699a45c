"""Flags that contradict each other or would have no effect are refused (one line,
exit 2, nothing written), as are values that would silently do something else:
a dataset no file tests, a compiler that is not there, per-statement tile sizes for
a statement that does not exist (issue 9, the CLI probe)."""
from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from polysched.bench import get
from polysched.cli import main

KERNEL = Path(get("gemm").path)
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


def _refused(capfd, argv: list[str], message: str) -> None:
    status = main(argv)
    err = capfd.readouterr().err.strip().splitlines()
    assert status == 2, err
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0], err


@pytest.mark.parametrize("flags, message", [
    (["--identity", "--tile"], "--identity keeps the original schedule"),
    (["--identity", "--parallel"], "does not combine with --parallel"),
    (["--identity", "--unroll", "2"], "does not combine with --unroll"),
    (["--identity", "--scheduler", "isl"], "does not combine with --scheduler isl"),
    # helper-90: these were accepted, and the output was the run's without them
    (["--identity", "--fuse", "max"], "does not combine with --fuse max"),
    (["--identity", "--no-expand"], "does not combine with --no-expand"),
    (["--identity", "--negative"], "does not combine with --negative"),
    (["--tile-sizes", "8,8"], "--tile-sizes needs --tile"),
    (["--l2tile"], "--l2tile needs --tile"),
    (["--tile", "--tensorize", "--no-tensorize"], "contradict each other"),
    (["--tile", "--tile-sizes", "S9=4,4"], "tile sizes for S9"),
    (["--verify", "--cc", "no-such-cc-xyz"], "--cc no-such-cc-xyz: no such compiler"),
    (["--tile", "--threads", "4"], "--threads makes the code for that many threads: it needs --parallel"),
    (["--tile", "--parallel", "--threads", "0"], "--threads 0: the thread count must be between 1 and 1024"),
    # these changed nothing: the stage they tune did not run
    (["--no-point-wavefront"], "--no-point-wavefront chooses how the tiling stage orders"),
    (["--register-tile", "2"], "--register-tile chooses how the tiling stage orders"),
    # (a value out of range is told first: it was told to add --tile)
    (["--register-tile", "-3"], "--register-tile -3: the factor must be between 0 and 64"),
    (["--unroll", "0", "--identity"], "--unroll 0: the unroll factor must be between 1 and 64"),
    (["--parallel", "--no-tensorize"], "--no-tensorize turns off the micro-kernel calls --tile makes"),
    (["--reassociate"], "--reassociate allows parallel reductions"),
    (["--tile", "--no-tensorize", "--reassociate"], "it needs --parallel"),
    # (helper-94: the replayed trace's calls were written all the same)
    (["--schedule", "{ S0[i, j, k] -> [i, j, k] }", "--no-tensorize"], "--no-tensorize would have no effect"),
])
def test_optimize_refuses_contradicting_or_ineffective_flags(tmp_path, capfd, flags, message):
    out = tmp_path / "o.c"
    out.write_text("keep me\n")
    _refused(capfd, ["optimize", str(KERNEL), "-o", str(out), *flags], message)
    assert out.read_text() == "keep me\n"


def test_tile_sizes_and_a_sizes_file_are_alternatives(tmp_path, capfd):
    sizes = tmp_path / "sizes.txt"
    sizes.write_text("8,8,8\n")
    _refused(capfd, ["optimize", str(KERNEL), "-o", str(tmp_path / "o.c"), "--tile",
                     "--tile-sizes", "4,4", "--tile-sizes-file", str(sizes)], "alternatives")


def test_per_statement_sizes_of_a_statement_that_exists_are_used(tmp_path, capfd):
    out = tmp_path / "o.c"
    assert main(["optimize", str(KERNEL), "-o", str(out), "--tile", "--tile-sizes", "S1=8,16,32"]) == 0
    assert "8" in capfd.readouterr().out


def test_per_statement_sizes_a_shared_band_does_not_take_are_named(tmp_path, capfd):
    """helper-90: sizes for two statements fused into one band: the first statement's
    were taken, the other's dropped without a word."""
    source = tmp_path / "two.c"
    source.write_text("void f(int n, double A[n][n], double B[n][n]) {\n#pragma scop\n"
                      "  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++) {\n"
                      "      A[i][j] = A[i][j] * 2.0;\n      B[i][j] = B[i][j] + A[i][j];\n    }\n"
                      "#pragma endscop\n}\n")
    assert main(["optimize", str(source), "-o", str(tmp_path / "o.c"), "--tile", "--tile-sizes", "S0=16,32;S1=8,8"]) == 0
    band = next(line for line in capfd.readouterr().out.splitlines() if "band@0" in line)
    assert "tiled [16, 32]" in band and "tile sizes of S1 unused: S1 shares this band with S0" in band


@needs_gcc
def test_verify_refuses_a_dataset_the_program_never_tests(tmp_path, capfd):
    _refused(capfd, ["verify", str(KERNEL), str(KERNEL), "--dataset", "HUGE"],
             "the program never tests HUGE_DATASET")
    own = tmp_path / "own.c"     # a program with a dataset of its own
    own.write_text('#include <stdio.h>\n#ifdef HUGE_DATASET\n#define N 3\n#else\n#define N 2\n#endif\n'
                   'int main(void) { printf("%d\\n", N); return 0; }\n')
    assert main(["verify", str(own), str(own), "--dataset", "huge"]) == 0
    assert "equal" in capfd.readouterr().out


def test_verify_and_tune_refuse_a_missing_compiler(tmp_path, capfd):
    _refused(capfd, ["verify", str(KERNEL), str(KERNEL), "--cc", "no-such-cc-xyz"], "no such compiler")
    db = tmp_path / "t.sqlite"
    _refused(capfd, ["tune", "gemm", "--db", str(db), "--cc", "no-such-cc-xyz", "--quiet"], "no such compiler")
    assert not db.exists()


def test_tune_checks_the_plot_path_first_and_leaves_no_empty_database(tmp_path, capfd):
    db = tmp_path / "t.sqlite"
    _refused(capfd, ["tune", "gemm", "--db", str(db), "--plot", str(tmp_path / "curve.xyz"), "--quiet"],
             "unknown plot format")
    _refused(capfd, ["tune", str(tmp_path / "missing.c"), "--db", str(db), "--quiet"], "no such file")
    assert not db.exists()


def test_tune_keeps_a_database_that_existed(tmp_path, capfd):
    db = tmp_path / "t.sqlite"
    with sqlite3.connect(db) as connection:
        connection.execute("create table notes (x)")
    _refused(capfd, ["tune", str(tmp_path / "missing.c"), "--db", str(db), "--quiet"], "no such file")
    assert db.exists()


def test_parallel_private_takes_one_name_as_a_string():
    import polysched as ps
    source = """double A[100], B[100]; static double t;
void f(void) { int i;
#pragma scop
  for (i = 0; i < 100; i++) {
    t = A[i] * 2.0;
    B[i] = t + 1.0;
  }
#pragma endscop
}
"""
    program = ps.Program.from_source(source)
    marked = program.parallel("S0", 0, private="t")
    assert "parallel(private=t)" in str(marked.schedule)
    with pytest.raises(ps.TransformError, match="'tx'"):
        program.parallel("S0", 0, private="tx")


@needs_gcc
def test_scalar_replacement_temporaries_draw_no_gcc_warnings(tmp_path):
    """bicg's register-tiled rows load their scalars under guards that gcc cannot
    match with the uses: declared uninitialised, they drew -Wmaybe-uninitialized.
    (Distributed, as fusion by cost no longer leaves bicg: it keeps the source's nest.)"""
    kernel = Path(get("bicg").path)
    out = tmp_path / "bicg.c"
    assert main(["optimize", str(kernel), "-o", str(out), "--tile", "--parallel", "--fuse", "no"]) == 0
    assert "_r1 = 0;" in out.read_text()
    proc = subprocess.run(["gcc", "-O2", "-fopenmp", "-Wall", "-Wextra", "-Wno-unknown-pragmas",
                           "-I", str(kernel.parent), "-c", str(out), "-o", str(tmp_path / "b.o")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr


def test_a_subcommand_loads_only_its_own_module_and_help_lists_them_all(tmp_path):
    """``polysched optimize`` builds the optimize parser alone (the bench and fuzz
    modules cost 0.25 s of every run); ``polysched --help`` and a mistyped command
    still list every subcommand."""
    import sys

    from polysched.cli import SUBCOMMANDS

    code = ("import sys; from polysched.cli import main\n"
            "try:\n    main(['optimize', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('polysched.fuzz', 'polysched.bench'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "usage: polysched optimize" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout[-300:]
    listing = subprocess.run([sys.executable, "-m", "polysched", "--help"], capture_output=True,
                             text=True, timeout=120).stdout
    typo = subprocess.run([sys.executable, "-m", "polysched", "optimze", "x.c"], capture_output=True,
                          text=True, timeout=120)
    assert typo.returncode == 2
    for name in SUBCOMMANDS:
        assert name in listing and f"'{name}'" in typo.stderr


# gcc drops `#pragma GCC unroll` and `ivdep` ("ignoring loop annotation") from a loop whose
# exit test has a ?: (polysched_min): --unroll did nothing on a tiled 2-deep nest
UNROLLED = r"""#include <stdio.h>
#include <stdlib.h>
double A[300][300], B[300][300];
void transpose_add(int n) {
#pragma scop
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++)
      A[r][c] = 0.5 * A[r][c] + B[c][r];
#pragma endscop
}
int main(int argc, char **argv) {
  for (int r = 0; r < 300; r++) for (int c = 0; c < 300; c++) { A[r][c] = r - c * 0.25; B[r][c] = r * c % 7; }
  transpose_add(atoi(argv[1]));
  for (int r = 0; r < 300; r++) printf("%a %a\n", A[r][r], A[r][299 - r]);
  return 0;
}
"""


@needs_gcc
def test_gcc_keeps_the_loop_pragmas_of_tiled_loops(tmp_path):
    from compiled_runs import outputs_of

    src = tmp_path / "u.c"
    src.write_text(UNROLLED)
    out = tmp_path / "out.c"
    assert main(["optimize", str(src), "-o", str(out), "--tile", "--unroll", "4"]) == 0
    text = out.read_text()
    unrolled = text.split("#pragma GCC unroll 4\n")[1].splitlines()[0]
    assert "polysched_min" not in unrolled.split(";")[1], unrolled         # the exit test
    proc = subprocess.run(["gcc", "-O2", "-fopenmp", "-Wall", "-Wno-unknown-pragmas", "-c", str(out), "-o",
                           str(tmp_path / "u.o")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    sizes = [(0,), (1,), (5,), (300,)]
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(UNROLLED, tmp_path, "orig", sizes)


@pytest.mark.parametrize("argv", [
    ["optimize", str(KERNEL), "-o", ""],
    ["optimize", "", "-o", "out.c"],
    ["optimize", str(KERNEL), "-o", "out.c", "--save-trace", ""],
    ["tensorize", str(KERNEL), "--apply", "-o", ""],
    ["deps", ""],
    ["bench", "gemm", "-o", ""],
    ["tune", "gemm", "--db", ""],
    ["demo", "--out-dir", ""],
])
def test_an_empty_path_is_refused_as_such(tmp_path, monkeypatch, capfd, argv):
    """`Path("")` is the current directory: `-o ""` was reported as "-o .: is a directory"."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capfd.readouterr().err
    assert err.strip().splitlines()[-1].endswith(": an empty path") and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, message", [
    (["schedule", str(KERNEL), "--scheduler", "identity", "--diamond"], "the identity scheduler places none"),
    (["schedule", str(KERNEL), "--scheduler", "isl", "--diamond"], "the isl scheduler places none"),
    (["optimize", str(KERNEL), "-o", "out.c", "--scheduler", "isl", "--diamond"], "the isl scheduler places none"),
    (["tensorize", str(KERNEL), "--reassociate"], "it needs --apply"),
    (["fuzz", "--modes", "", "--programs", "1"], "--modes: no mode given"),
])
def test_options_that_would_do_nothing_are_refused(tmp_path, monkeypatch, capfd, argv, message):
    """Each of these ran, ignoring the option (fuzz: 0 runs reported as "0 wrong")."""
    monkeypatch.chdir(tmp_path)
    _refused(capfd, argv, message)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, message", [
    (["demo", "--out-dir", "missing/out"], "--out-dir missing/out: no such directory"),
    (["verify", str(KERNEL), str(KERNEL), "--workdir", "missing/wd"], "--workdir missing/wd: no such directory"),
    (["bench", "gemm", "-o", "r.json", "--workdir", "missing/wd"], "--workdir missing/wd: no such directory"),
    (["fuzz", "--programs", "1", "--out", "missing/f"], "--out missing/f: no such directory"),
    (["fuzz", "--programs", "1", "--out", "afile"], "--out afile: is a file, not a directory"),
    (["fuzz", "--show", "-1"], "--show -1: programs are numbered from 0"),
    (["fuzz", "--start", "-1", "--programs", "1"], "--start -1: programs are numbered from 0"),
])
def test_a_directory_to_write_into_needs_its_parent(tmp_path, monkeypatch, capfd, argv, message):
    """helper-90: `demo --out-dir /nonexist/x` made /nonexist (as root) and `verify
    --workdir` too, where -o and --db refuse a missing directory; `fuzz --out FILE`
    said "FILE: error: File exists", naming no option."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    _refused(capfd, argv, message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("argv, message", [
    (["optimize", str(KERNEL), "-o", "o.c", "--tile", "--tensorize", ""], "--tensorize: an empty list of intrinsics"),
    (["tensorize", str(KERNEL), "--intrinsics", ""], "an empty name"),
    (["check", str(KERNEL), "--schedule", ""], "--schedule: an empty schedule"),
    (["tune", "gemm", "--top", "0", "--db", "t.sqlite", "--quiet"], "--top 0: must be at least 1"),
])
def test_an_empty_or_zero_value_is_refused(tmp_path, monkeypatch, capfd, argv, message):
    """helper-90: `--tensorize ''` ran as without the flag, `--intrinsics ''` and
    `--schedule ''` read the current directory ('.'), `--top 0` printed an empty table."""
    monkeypatch.chdir(tmp_path)
    _refused(capfd, argv, message)
    assert list(tmp_path.iterdir()) == []


def test_a_suite_kernel_named_where_a_file_is_wanted_is_pointed_to(tmp_path, monkeypatch, capfd):
    """helper-94: `polysched optimize jacobi-1d -o x.c` said "No such file or directory",
    where tune and bench take the name: the message says where the kernel's file is."""
    monkeypatch.chdir(tmp_path)
    _refused(capfd, ["optimize", "jacobi-1d", "-o", "x.c"],
             f"jacobi-1d: no such file; this command takes a C file, and the suite kernel jacobi-1d is "
             f"{get('jacobi-1d').path}")
    assert not (tmp_path / "x.c").exists()
