"""`polysched bench` on a store (issue 13, item 8): every measurement in a JSON Lines
log as it is taken (a real ``kill -9`` loses nothing recorded; ``--resume`` measures
only what is missing), datasets normalised or refused, the exact flags and the build
per record, load and sub-millisecond warnings, live progress per variant, C files and
parameterised variants, ``plot(ax=...)``, ``to_dataframe``."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from polysched.bench import Variant, get, load_results, report, run_benchmarks
from polysched.cli import main

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
ROOT = Path(__file__).resolve().parent.parent

# A program in the suite's conventions. Timed runs (no POLYSCHED_DUMP) sleep SLEEP_US,
# append TAG to LOGFILE when LOGFILE is defined, and report KERNEL_SECONDS.
PROGRAM = r"""
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <unistd.h>
#ifndef KERNEL_SECONDS
#define KERNEL_SECONDS 0.002
#endif
#ifndef SLEEP_US
#define SLEEP_US 0
#endif
#if defined(MINI_DATASET)
#define N 8
#else
#define N 40
#endif
static double A[N];
int main(void) {
  for (int i = 0; i < N; i++) A[i] = i * 0.5;
  /* BODY */
#ifdef POLYSCHED_DUMP
  printf("== A ==\n");
  for (int i = 0; i < N; i++) printf("%.10g ", A[i]);
  printf("\n");
#else
  if (SLEEP_US) usleep(SLEEP_US);
#ifdef LOGFILE
  FILE *log = fopen(LOGFILE, "a"); fputs(TAG, log); fclose(log);
#endif
  fprintf(stderr, "polysched-checksum: %.10g\n", A[N - 1]);
#endif
  fprintf(stderr, "polysched-time: %g\n", (double)KERNEL_SECONDS);
  return 0;
}
"""


@dataclass
class TinyKernel:
    name: str
    path: Path

    def flops(self, dataset):
        return None


def maker(text: str, build: dict | None = None):
    def make_source(kernel, workdir: Path):
        path = workdir / f"{kernel.name}.c"
        path.write_text(text)
        return (path, build) if build is not None else path
    return make_source


def tiny(tmp_path: Path, body: str = "", name: str = "tiny") -> TinyKernel:
    path = tmp_path / f"{name}.c"
    path.write_text(PROGRAM.replace("/* BODY */", body))
    return TinyKernel(name, path)


def log_entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ----------------------------------------------------------------- 1. the log, kill -9, resume

DRIVER = r"""
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_bench_store import TinyKernel, maker
from polysched.bench import Variant, run_benchmarks
source = Path({source!r})
defines = {{"LOGFILE": '"{runs}"', "SLEEP_US": "250000"}}
variants = [Variant("orig", None, cflags=["-O0"], defines={{**defines, "TAG": '"o"'}}),
            Variant("copy", maker(source.read_text()), cflags=["-O0"], defines={{**defines, "TAG": '"c"'}})]
run_benchmarks([TinyKernel("tiny", source)], variants, dataset="SMALL", repeat=4, progress=False,
               log={log!r}, resume={resume})
"""


@needs_gcc
def test_kill_9_loses_nothing_and_resume_measures_only_what_is_missing(tmp_path):
    kernel = tiny(tmp_path)
    log, runs = tmp_path / "bench.jsonl", tmp_path / "runs.txt"
    script = tmp_path / "driver.py"

    def driver(resume: bool) -> list[str]:
        script.write_text(DRIVER.format(tests=str(Path(__file__).parent), source=str(kernel.path),
                                        runs=str(runs), log=str(log), resume=resume))
        return [sys.executable, str(script)]

    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen(driver(False), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if log.exists() and sum(e["type"] == "sample" for e in log_entries(log)) >= 3:
            break
        time.sleep(0.02)
    assert proc.poll() is None, proc.stderr.read().decode()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    time.sleep(0.5)      # the run in flight (its own session) finishes on its own
    before = log.read_bytes()
    samples_before = [e for e in log_entries(log) if e["type"] == "sample"]
    assert len(samples_before) >= 3 and not any(e["type"] == "end" for e in log_entries(log))
    runs_before = len(runs.read_text())

    # the killed run's log reads as results: what it finished, and what was cut short
    partial = load_results(log)
    assert {r["status"] for r in partial["results"]} <= {"INCOMPLETE", "OK"}
    assert "INCOMPLETE" in report(partial)

    done = subprocess.run(driver(True), env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = log.read_bytes()
    assert after.startswith(before)                     # nothing recorded was lost or rewritten
    entries = log_entries(log)
    samples = [e for e in entries if e["type"] == "sample"]
    assert samples[:len(samples_before)] == samples_before
    # every variant has its 4 runs, and only the missing ones were measured again
    assert sorted((e["variant"], e["run"]) for e in samples) == \
        sorted((v, k) for v in ("orig", "copy") for k in range(1, 5))
    assert len(runs.read_text()) - runs_before == 8 - len(samples_before)
    results = load_results(log)
    assert [(r["variant"], r["status"], len(r["times"])) for r in results["results"]] == \
        [("orig", "OK", 4), ("copy", "OK", 4)]
    assert results["resumed"] == 1 and results["finished"]


@needs_gcc
def test_log_refuses_overwrite_and_other_settings(tmp_path):
    kernel = tiny(tmp_path)
    log = tmp_path / "r.jsonl"
    variants = [Variant("orig", None, cflags=["-O0"])]
    first = run_benchmarks([kernel], variants, dataset="MINI", repeat=1, progress=False, log=log)
    assert [r["status"] for r in first["results"]] == ["OK"]
    with pytest.raises(ValueError, match="already exists"):
        run_benchmarks([kernel], variants, dataset="MINI", repeat=1, progress=False, log=log)
    with pytest.raises(ValueError, match="dataset"):
        run_benchmarks([kernel], variants, dataset="SMALL", repeat=1, progress=False, log=log, resume=True)
    # a torn last line (a kill in the middle of a write) is ignored and cut on resume
    with open(log, "ab") as f:
        f.write(b'{"type": "sample", "kern')
    again = run_benchmarks([kernel], variants, dataset="MINI", repeat=1, progress=False, log=log,
                           resume=True)
    assert [r["status"] for r in again["results"]] == ["OK"]
    assert all(line.startswith("{") and line.endswith("}") for line in log.read_text().splitlines())


# ----------------------------------------------------------------- 2. datasets

@needs_gcc
def test_dataset_names_are_normalised_and_saved_as_run(tmp_path):
    kernel = tiny(tmp_path)
    results = run_benchmarks([kernel], [Variant("orig", None, cflags=["-O0"])], dataset="small",
                             verify_dataset=" mini ", repeat=1, progress=False)
    assert results["config"]["dataset"] == "SMALL" and results["config"]["verify_dataset"] == "MINI"
    [record] = results["results"]
    assert record["dataset"] == "SMALL" and "-DSMALL_DATASET" in record["compile_command"]
    with pytest.raises(ValueError, match="HUGE"):
        run_benchmarks([kernel], [], dataset="HUGE", progress=False)


def test_cli_unknown_dataset_is_one_line_exit_2(tmp_path, capfd):
    out = tmp_path / "r.json"
    status = main(["bench", "gemm", "--variants", "orig", "--repeat", "1", "--timeout", "1",
                   "--dataset", "HUGE", "-o", str(out)])
    _, err = capfd.readouterr()
    assert status == 2
    assert err.count("\n") == 1 and "HUGE" in err and "LARGE" in err and "Traceback" not in err
    assert not out.exists() and not out.with_suffix(".jsonl").exists()


# ----------------------------------------------------------------- 3. what each record says

@needs_gcc
def test_record_has_exact_command_flags_hash_and_build(tmp_path):
    kernel = tiny(tmp_path)
    # a file with an OpenMP pragma gets -fopenmp although the variant does not ask for it
    simd = PROGRAM.replace("/* BODY */", "#pragma omp simd\n  for (int i = 0; i < N; i++) A[i] *= 1.0;")
    build = {"regions": [{"tile_sizes": [[4, 4]], "schedule": "{ S0[i] -> [i] }"}]}
    results = run_benchmarks([kernel], [Variant("orig", None, cflags=["-O0"]),
                                        Variant("simd", maker(simd, build), cflags=["-O0"])],
                             dataset="MINI", repeat=1, progress=False, workdir=tmp_path / "w")
    orig, simd_record = results["results"]
    assert simd_record["status"] == "OK", simd_record["reason"]
    assert simd_record["openmp"] is True and simd_record["flags"] == ["-O0", "-fopenmp"]
    assert " -fopenmp " in f" {simd_record['compile_command']} "
    assert simd_record["compile_command"].startswith("gcc -O0 ")
    assert orig["flags"] == ["-O0"] and "-fopenmp" not in orig["compile_command"]
    generated = Path(simd_record["source"]).read_bytes()
    assert simd_record["source_sha256"] == hashlib.sha256(generated).hexdigest()
    assert orig["source_sha256"] == hashlib.sha256(kernel.path.read_bytes()).hexdigest()
    assert simd_record["build"] == build
    table = report(results)
    assert "| simd | " in table and re.search(r"\| simd \|.*\| -O0 -fopenmp \|", table)


# ----------------------------------------------------------------- 4. warnings

@needs_gcc
def test_warnings_for_load_and_sub_millisecond_medians(tmp_path, monkeypatch, capsys):
    import polysched.bench.runner as runner
    monkeypatch.setattr(runner, "load_average", lambda: [7.5, 7.0, 6.0])
    monkeypatch.setattr(runner, "usable_cores", lambda: 2)
    fast = tiny(tmp_path, name="fast")
    fast.path.write_text(fast.path.read_text().replace("0.002", "0.0004"))
    results = run_benchmarks([fast], [Variant("orig", None, cflags=["-O0"])], dataset="MINI",
                             repeat=1, progress=True)
    err = capsys.readouterr().err
    assert any("load average 7.50 exceeds the 2 usable cores" in w for w in results["warnings"])
    assert any("fast/orig: median 0.4 ms is under 1 ms" in w for w in results["warnings"])
    assert results["results"][0]["warnings"] and results["results"][0]["loadavg"] == [7.5, 7.0, 6.0]
    assert "warning: load average" in err and "warning: fast/orig: median" in err
    assert "Warnings:" in report(results)


# ----------------------------------------------------------------- 5. C files, parameterised variants

SCOP_FILE = r"""
#include <stdio.h>
#ifdef MINI_DATASET
#define N 12
#else
#define N 60
#endif
double A[N][N], B[N][N];
static void kernel_k(int n) {
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i - 1][j] * 0.5 + B[i][j];
#pragma endscop
}
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = (i + j) % 7; B[i][j] = (i * j) % 5; }
  kernel_k(N);
#ifdef POLYSCHED_DUMP
  printf("== A ==\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.10g\n", A[i][j]);
#endif
  fprintf(stderr, "polysched-time: 0.002\n");
  return 0;
}
"""


@needs_gcc
def test_cli_benches_c_file_with_parameterised_variant(tmp_path, capfd):
    source = tmp_path / "mine.c"
    source.write_text(SCOP_FILE)
    out = tmp_path / "r.json"
    status = main(["bench", str(source), "--dataset", "mini", "--repeat", "1", "--threads", "1",
                   "--variants", "pluto-tile:sizes=4,4,pluto-tile-par:threads=1,pluto-tile:fuse=no,"
                   "pluto-tile:pointwave=no",
                   "-o", str(out)])
    _, err = capfd.readouterr()
    assert status == 0, err
    # stderr is no terminal here: the finished lines, no progress bar redrawn (helper-92)
    assert "%|" not in err and "\r" not in err and "[2/5] mine/pluto-tile:sizes=4,4: OK" in err, err
    results = json.loads(out.read_text())
    assert results["config"]["dataset"] == "MINI"
    by_variant = {r["variant"]: r for r in results["results"]}
    assert list(by_variant) == ["orig", "pluto-tile:sizes=4,4", "pluto-tile-par:threads=1", "pluto-tile:fuse=no",
                                "pluto-tile:pointwave=no"]
    assert all(r["status"] == "OK" for r in results["results"]), err
    assert by_variant["orig"]["source_sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    tiled = by_variant["pluto-tile:sizes=4,4"]
    assert tiled["verify"] == "equal"
    assert tiled["build"]["options"]["tile_sizes"] == [4, 4]
    assert tiled["build"]["regions"][0]["tile_sizes"] == [[4, 4]]
    assert "domain" in tiled["build"]["regions"][0]["schedule"]
    assert tiled["build"]["regions"][0]["fusion"] == []          # one statement: nothing to decide
    assert tiled["build"]["regions"][0]["expansions"] == []      # no scalar
    assert by_variant["pluto-tile-par:threads=1"]["threads"] == 1
    assert by_variant["pluto-tile-par:threads=1"]["openmp"] is True
    assert by_variant["pluto-tile:fuse=no"]["build"]["options"]["fuse"] == "no"
    assert by_variant["pluto-tile:fuse=no"]["verify"] == "equal"
    # every parameter reaches optimize (pointwave= was parsed and then dropped)
    assert by_variant["pluto-tile:pointwave=no"]["build"]["options"]["point_wavefront"] is False
    assert load_results(out.with_suffix(".jsonl"))["results"] == results["results"]
    # the same -o again: the log is there, so not without --resume
    status = main(["bench", str(source), "--dataset", "MINI", "--variants", "orig", "-o", str(out)])
    _, err = capfd.readouterr()
    assert status == 2 and "--resume" in err and err.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["--variants", "pluto-tile:size=3"], "unknown parameter 'size'"),
    (["--variants", "pluto-sched:sizes=4,4"], "tile and tile-par variants only"),
    (["--variants", "pluto-tile:threads=0"], "threads=0 is not an integer from 1"),
    (["--variants", "pluto-tile:fuse=some"], "not one of cost, smart, max, no"),
    (["--variants", "pluto-tile:pointwave=maybe"], "pointwave=maybe is not yes or no"),
    (["--variants", "pluto-sched:tensorize=no"], "tensorize= applies to the tile and tile-par variants only"),
    (["--variants", "isl-sched:pointwave=no"], "pointwave= applies to the tile and tile-par variants only"),
    (["--variants", "plutoo-tile"], "unknown variant"),
    # helper-92: taken though unlisted, recorded as tiled where nothing was
    (["--variants", "identity-tile:sizes=8,8,8"], "unknown variant 'identity-tile'"),
    (["NOSCOP"], "no '#pragma scop'"),
    (["missing.c"], "no such file"),
])
def test_cli_bad_kernels_and_variants_are_one_line_exit_2(tmp_path, capfd, args, message):
    plain = tmp_path / "plain.c"
    plain.write_text("int main(void) { return 0; }\n")
    args = [str(plain) if a == "NOSCOP" else str(tmp_path / a) if a.endswith(".c") else a for a in args]
    if not any(a.endswith(".c") for a in args):
        args = ["gemm", *args]
    status = main(["bench", *args, "--repeat", "1", "--timeout", "1", "--dataset", "MINI",
                   "-o", str(tmp_path / "r.json")])
    _, err = capfd.readouterr()
    assert status == 2, err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_a_directory_named_like_a_kernel_does_not_hide_it(tmp_path, monkeypatch):
    """helper-12: ``bench lu`` in a directory holding a directory ``lu`` failed with
    "lu: not a regular file"."""
    from polysched.cli.bench import _kernels

    (tmp_path / "lu").mkdir()
    monkeypatch.chdir(tmp_path)
    assert [kernel.path for kernel in _kernels(["lu"], classic=False)] == [get("lu").path]


def test_a_workdir_that_cannot_be_made_leaves_no_log(tmp_path, capfd):
    """helper-12: a refused --workdir left a log holding only its start line, and
    every later run on that log was refused as "an earlier run exists"."""
    (tmp_path / "afile").write_text("")
    args = ["bench", "jacobi-1d", "--variants", "orig", "--repeat", "1", "--dataset", "MINI",
            "-o", str(tmp_path / "r.json")]
    assert main([*args, "--workdir", str(tmp_path / "afile" / "x")]) == 2
    _, err = capfd.readouterr()
    assert f"--workdir {tmp_path / 'afile' / 'x'}: no such directory" in err and err.count("\n") == 1
    assert not (tmp_path / "r.jsonl").exists() and not (tmp_path / "r.json").exists()


# ----------------------------------------------------------------- 6. live progress

@needs_gcc
def test_progress_is_live_per_variant(tmp_path, capsys, monkeypatch):
    kernel = tiny(tmp_path)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)     # the bar is drawn on a terminal only
    run_benchmarks([kernel], [Variant("orig", None, cflags=["-O0"]),
                              Variant("copy", maker(kernel.path.read_text()), cflags=["-O0"])],
                   dataset="MINI", repeat=2, progress=True)
    err = capsys.readouterr().err
    assert "tiny/copy: verifying at MINI" in err
    assert "tiny/orig: run 2/2" in err and "tiny/copy: run 2/2" in err
    assert re.search(r"\d+/6 \[", err)     # the bar: steps done of all (2 variants x (build + 2 runs))


# ----------------------------------------------------------------- 7. plot on an ax

def synthetic() -> dict:
    def record(kernel, variant, median, status="OK"):
        return {"kernel": kernel, "variant": variant, "status": status, "reason": "",
                "times": [median] if median else [], "median_seconds": median}
    return {"schema": "polysched-bench/1", "machine": {}, "config": {"dataset": "LARGE", "threads": 2,
                                                                     "repeat": 3},
            "variants": [{"name": n, "cflags": ["-O3"], "openmp": False} for n in ("orig", "tiled", "bad")],
            "kernels": {"gemm": {"flops": 2e9}, "jacobi": {"flops": None}},
            "results": [record("gemm", "orig", 2.0), record("gemm", "tiled", 0.5),
                        record("gemm", "bad", None, "FAILED"), record("jacobi", "orig", 1.0),
                        record("jacobi", "tiled", 2.0), record("jacobi", "bad", 0.8)]}


def test_plot_takes_and_returns_ax_legend_off_the_bars_ratio_ticks(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from polysched.bench import plot          # (as the README writes it)

    figure = Figure(figsize=(8, 4))
    FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    assert plot(synthetic(), ax=ax) is ax
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    for patch in ax.patches:
        assert not legend.overlaps(patch.get_window_extent(renderer))
    labels = [tick.get_text() for tick in ax.get_yticklabels() if tick.get_text()]
    assert {"0.5x", "1x", "2x", "4x"} <= set(labels), labels
    assert all(re.fullmatch(r"\d+(\.\d+)?x", label) for label in labels), labels
    assert not [t.get_text() for t in ax.yaxis.get_minorticklabels() if t.get_text()]
    # with a path and an ax: drawn there and saved
    assert plot(synthetic(), tmp_path / "s.png", ax=ax) is ax
    assert (tmp_path / "s.png").read_bytes().startswith(b"\x89PNG")


# ----------------------------------------------------------------- 8. DataFrame

def test_to_dataframe_and_without_pandas(monkeypatch):
    from polysched.bench import to_dataframe  # (as the README writes it)

    pytest.importorskip("pandas")
    frame = to_dataframe(synthetic())
    assert len(frame) == 6
    row = frame[(frame.kernel == "gemm") & (frame.variant == "tiled")].iloc[0]
    assert row.speedup == 4.0 and row.gflops == 4.0 and row.status == "OK"
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        to_dataframe(synthetic())


# ----------------------------------------------------------------- helper-12's probes

@needs_gcc
def test_a_peer_compiling_the_file_itself_is_verified_against_orig(tmp_path):
    """helper-12: Polly-like variants (the kernel file under another compiler or flags)
    were never verified, and recorded OK. One whose build prints something else (here
    a macro only its flags define) is FAILED now."""
    kernel = tiny(tmp_path, body="#ifdef PEER_BUG\n  A[3] += 1;\n#endif")
    variants = [Variant("orig", None), Variant("peer", None, cflags=["-O2", "-DPEER_BUG"]),
                Variant("peer-ok", None, cflags=["-O1"])]
    results = run_benchmarks([kernel], variants, dataset="SMALL", repeat=1, progress=False)
    status = {r["variant"]: (r["status"], r["verify"]) for r in results["results"]}
    assert status["peer"][0] == "FAILED" and status["peer"][1] == "differ"
    assert status["peer-ok"] == ("OK", "equal") and status["orig"][0] == "OK"


@needs_gcc
def test_a_checksum_that_differs_at_the_timed_size_fails_the_variant(tmp_path):
    """helper-12: right at MINI, wrong at the timed size: ``checksum_agrees`` was False
    and nothing read it (OK, with a speedup)."""
    kernel = tiny(tmp_path)
    wrong_when_large = PROGRAM.replace("/* BODY */", "if (N > 8) A[N - 1] += 1;")
    results = run_benchmarks([kernel], [Variant("mine", maker(wrong_when_large))], dataset="SMALL", repeat=1,
                             progress=False)
    [mine] = [r for r in results["results"] if r["variant"] == "mine"]
    assert mine["verify"] == "equal" and mine["checksum_agrees"] is False
    assert mine["status"] == "FAILED" and "checksum" in mine["reason"]


@needs_gcc
def test_resume_measures_again_a_kernel_whose_file_changed(tmp_path):
    """helper-12: --resume kept the records of a file edited since (or of another file
    of the same name), so speedups compared two programs. Its records are dropped."""
    kernel = tiny(tmp_path, body="A[1] = 1;")
    log = tmp_path / "bench.jsonl"
    first = run_benchmarks([kernel], [Variant("orig", None)], dataset="SMALL", repeat=1, progress=False, log=log)
    assert first["results"][0]["checksum"] is not None
    kernel.path.write_text(PROGRAM.replace("/* BODY */", "A[N - 1] = 7;"))
    again = run_benchmarks([kernel], [Variant("orig", None)], dataset="SMALL", repeat=1, progress=False,
                           log=log, resume=True)
    records = [e for e in log_entries(log) if e["type"] == "record"]
    assert len(records) == 2                                  # measured again, not reused
    assert float(again["results"][0]["checksum"]) == 7.0
    unchanged = run_benchmarks([kernel], [Variant("orig", None)], dataset="SMALL", repeat=1, progress=False,
                               log=log, resume=True)
    assert len([e for e in log_entries(log) if e["type"] == "record"]) == 2   # reused
    assert float(unchanged["results"][0]["checksum"]) == 7.0


@needs_gcc
@pytest.mark.parametrize("reported", ["0.0 / 0.0", "1.0 / 0.0", "-1.0"])
def test_a_kernel_time_that_is_no_time_is_a_failed_run(reported, tmp_path):
    """helper-12: 'polysched-time: nan' (or inf, or -1) was an OK sample; the median
    was NaN, the JSON not JSON, and report --plot crashed."""
    kernel = tiny(tmp_path)
    kernel.path.write_text(kernel.path.read_text().replace("(double)KERNEL_SECONDS", f"({reported})"))
    results = run_benchmarks([kernel], [Variant("orig", None)], dataset="SMALL", repeat=1, progress=False)
    [record] = results["results"]
    assert record["status"] == "RUN_ERROR" and "kernel time" in record["reason"]
    assert not record["times"] and record["median_seconds"] is None


def test_a_log_another_run_is_writing_is_refused(tmp_path):
    """helper-12: two runs on one log both measured everything, their lines interleaved."""
    import fcntl
    log = tmp_path / "bench.jsonl"
    kernel = tiny(tmp_path)
    with open(log, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(ValueError, match="another polysched bench run is writing this log"):
            run_benchmarks([kernel], [Variant("orig", None)], dataset="SMALL", repeat=1, progress=False, log=log)


@pytest.mark.parametrize("variants, message", [
    ("pluto-tile:sizes=32,-1", "sizes=32,-1 is not a list of integers from 1"),     # was "unknown variant '-1'"
    ("pluto-tile:sizes=99999999999999999999", "is not a list of integers from 1"),  # was an ERROR record
    (",", "no variant named"),                                                       # ran orig alone
])
def test_variant_lists_that_cannot_run_are_refused(variants, message, tmp_path, capsys):
    out = tmp_path / "r.json"
    (tmp_path / "r.jsonl").write_text('{"type": "start"}\n')
    assert main(["bench", "gemm", "--variants", variants, "-o", str(out), "--overwrite"]) == 2
    assert message in capsys.readouterr().err
    assert (tmp_path / "r.jsonl").exists()          # the earlier log is kept on a refusal


@needs_gcc
def test_cli_exit_status_and_output_rules(tmp_path, capfd):
    """helper-46 F12: bench exited 0 when every run failed; F5: `-o x.csv` got JSON;
    F23: an existing results file was replaced without --overwrite, `-o -` made files
    named '-'."""
    source = tmp_path / "mine.c"
    source.write_text(SCOP_FILE)
    base = ["bench", str(source), "--dataset", "MINI", "--repeat", "1", "--threads", "1", "--variants", "orig"]
    out = tmp_path / "r.json"
    assert main([*base, "--cflags=-fno-such-flag-xyz", "-o", str(out)]) == 1
    _, err = capfd.readouterr()
    assert "1 of 1 runs did not end OK (COMPILE_ERROR 1): mine/orig" in err
    assert json.loads(out.read_text())["results"][0]["status"] == "COMPILE_ERROR"
    # a results file whose log is gone is not replaced without --overwrite
    out.with_suffix(".jsonl").unlink()
    assert main([*base, "-o", str(out)]) == 2
    _, err = capfd.readouterr()
    assert "the file exists (--overwrite replaces it)" in err and err.count("\n") == 1
    # nor with --resume, which has no log to continue (helper-56: it replaced the results)
    before = out.read_text()
    assert main([*base, "-o", str(out), "--resume"]) == 2
    _, err = capfd.readouterr()
    assert f"the file exists and there is no log {out.with_suffix('.jsonl')} to resume" in err
    assert err.count("\n") == 1 and out.read_text() == before
    assert main([*base, "-o", str(out), "--overwrite"]) == 0
    capfd.readouterr()
    assert json.loads(out.read_text())["results"][0]["status"] == "OK"
    for name, message in (("x.csv", "results are JSON; name the file .json or .jsonl"),
                          ("-", "-o -: bench writes a results file and its log")):
        assert main([*base, "-o", name if name == "-" else str(tmp_path / name)]) == 2
        _, err = capfd.readouterr()
        assert message in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.c", "r.json", "r.jsonl"]


@needs_gcc
def test_a_dataset_the_file_does_not_test_is_a_warning_of_the_results(tmp_path):
    """helper-46 F6: said on stderr only; the results and their report named a dataset
    the kernel was not run at, without a word."""
    from polysched.bench import report
    kernel = tiny(tmp_path)
    fixed = tmp_path / "fixed.c"
    fixed.write_text(kernel.path.read_text().replace("#if defined(MINI_DATASET)", "#if 0"))
    results = run_benchmarks([TinyKernel("fixed", fixed)], [Variant("orig", None, cflags=["-O0"])],
                             dataset="SMALL", repeat=1, progress=False)
    expected = f"{fixed} does not test MINI_DATASET: verify_dataset MINI runs it at the sizes it is written with"
    assert [w for w in results["warnings"] if "does not test" in w] == [
        f"{fixed} does not test SMALL_DATASET: dataset SMALL runs it at the sizes it is written with", expected]
    assert f"- {expected}" in report(results, "md")
    # (helper-46 F7) a program without a polysched-time: line is timed as a whole process
    plain = tmp_path / "plain.c"
    plain.write_text(SCOP_FILE.replace('  fprintf(stderr, "polysched-time: 0.002\\n");\n', ""))
    mixed = run_benchmarks([kernel, TinyKernel("plain", plain)], [Variant("orig", None, cflags=["-O0"])],
                           dataset="MINI", repeat=1, progress=False)
    assert [r["time_source"] for r in mixed["results"]] == ["kernel", "wall"]
    assert "- plain: timed as whole processes" in report(mixed, "md")
    tested = run_benchmarks([kernel], [Variant("orig", None, cflags=["-O0"])], dataset="MINI", repeat=1,
                            progress=False)
    assert not [w for w in tested["warnings"] if "does not test" in w]


@needs_gcc
def test_run_benchmarks_takes_names_and_paths_as_the_command_line_does(tmp_path):
    """helper-46 F14: `run_benchmarks(["atax", "mm.c"], ["orig", "pluto-tile"])` was a
    bare AttributeError ('str' object has no attribute 'name')."""
    from polysched.bench import kernel_of, make_variants
    source = tmp_path / "mine.c"
    source.write_text(SCOP_FILE)
    results = run_benchmarks([str(source), "jacobi-1d"], ["orig", "pluto-tile:sizes=4,4"], dataset="MINI",
                             repeat=1, threads=1, progress=False)
    assert [(r["kernel"], r["variant"], r["status"]) for r in results["results"]] == [
        ("mine", "orig", "OK"), ("mine", "pluto-tile:sizes=4,4", "OK"),
        ("jacobi-1d", "orig", "OK"), ("jacobi-1d", "pluto-tile:sizes=4,4", "OK")]
    assert results["results"][1]["build"]["options"]["tile_sizes"] == [4, 4]
    assert kernel_of("jacobi-1d").path == get("jacobi-1d").path and kernel_of(source).path == source
    assert [v.name for v in make_variants(["pluto-tile"])] == ["orig", "pluto-tile"]
    with pytest.raises(ValueError, match="no suite kernel named 'jacobi1d'"):
        run_benchmarks(["jacobi1d"], ["orig"], dataset="MINI", repeat=1, progress=False)


def test_a_c_file_that_does_not_parse_is_refused_up_front(tmp_path, capfd):
    """helper-92: bench recorded a syntax error as compile errors of every variant and
    exited 1, where every other command says file:line:col and exits 2."""
    broken = tmp_path / "syntax.c"
    broken.write_text("int main(){int i; double A[10];\n#pragma scop\nfor(i=0;i<10;i++) A[i] = A[i] +;\n"
                      "#pragma endscop\nreturn 0;}\n")
    assert main(["bench", str(broken), "--dataset", "MINI", "-o", str(tmp_path / "r.json")]) == 2
    err = capfd.readouterr().err.strip()
    assert err == f"{broken}:3:32: error: syntax error: invalid expression"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["syntax.c"]
