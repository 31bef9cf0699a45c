"""The whole run's CPU budget (`OptimizeOptions.budget`, ``optimize --budget``): each
region's scheduler and code generator get at most what is left, and a region reached
with nothing left is kept as written, with a notice, in an output that still verifies."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from polysched import pipeline
from polysched.bench import verify
from polysched.fuzz import runner

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data" / "fuzz"

TWO_REGIONS = r"""
#include <stdio.h>
#define N 40
double A[N][N], B[N][N];
int main(void) {
  int i, j, t;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = i * 0.5 + j; B[i][j] = 0; }
#pragma scop
  for (t = 0; t < 4; t++)
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        B[i][j] = 0.25 * (A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[j][i] = B[i][j] * 2.0;
#pragma endscop
  for (i = 0; i < N; i++) printf("%.17g %.17g\n", A[i][i], B[i][N - 1 - i]);
  return 0;
}
"""


@pytest.fixture
def two_regions(tmp_path):
    path = tmp_path / "two.c"
    path.write_text(TWO_REGIONS)
    return path


def test_a_used_up_budget_keeps_every_region_as_written(two_regions, capsys):
    options = pipeline.OptimizeOptions.from_flags(tile=True, parallel=True)
    options.budget = 1e-9
    result = pipeline.optimize(two_regions, options)
    assert result.text == TWO_REGIONS
    assert [r.kept_as_written for r in result.regions] == [True, True]
    assert all("budget of 1e-09 CPU seconds was used up" in r.fallback for r in result.regions)
    err = capsys.readouterr().err.splitlines()
    assert [line.split(": ")[1] for line in err] == [f"{two_regions}:8", f"{two_regions}:14"]
    assert "code generated from the source as written (the run's budget" in result.summary()


def test_with_a_budget_the_same_file_is_optimized(two_regions, tmp_path):
    """The control: the default budget leaves both regions to the pipeline (tiled and
    parallel), and the output verifies."""
    result = pipeline.optimize(two_regions, pipeline.OptimizeOptions.from_flags(tile=True, parallel=True))
    assert [r.kept_as_written for r in result.regions] == [False, False]
    assert "#pragma omp parallel" in result.text
    out = tmp_path / "out.c"
    out.write_text(result.text)
    assert verify(two_regions, out).ok


def test_tensorization_past_the_budget_is_stopped(two_regions, capfd, monkeypatch, tmp_path):
    """Tensorization runs in a child process too: one that never ends (a stand-in for
    a fuzzed 7-deep nest whose match took 7 s) is stopped when the run's budget is used
    up, with a notice; the rest of the run is kept as written and verifies."""
    def endless(*args):
        while True:
            pass

    monkeypatch.setattr(pipeline, "_tensorized", endless)
    options = pipeline.OptimizeOptions.from_flags(tile=True)
    options.budget = 3.0
    start = time.monotonic()
    result = pipeline.optimize(two_regions, options)
    assert time.monotonic() - start < 60
    assert "tensorization stopped: the run's budget of 3 CPU seconds was used up" in capfd.readouterr().err
    assert all(not region.trace_steps for region in result.regions)
    out = tmp_path / "out.c"
    out.write_text(result.text)
    assert verify(two_regions, out).ok


def test_each_stage_gets_at_most_what_is_left(two_regions, monkeypatch):
    """The scheduler's own budget (6 s by default) and the code generator's (10 s) are
    cut to what is left of a 2 s run; the dependence analysis, the tiler, the last
    legality check and tensorization (in child processes too) get what is left."""
    asked = {"schedule": [], "isolated": []}
    compute = pipeline.compute

    def recording_compute(scop, deps, options, stats=None):
        asked["schedule"].append(options.budget)
        return compute(scop, deps, options, stats=stats)

    def in_process(fn, seconds):
        asked["isolated"].append(seconds)
        return fn()

    monkeypatch.setattr(pipeline, "compute", recording_compute)
    monkeypatch.setattr(pipeline, "run_isolated", in_process)
    options = pipeline.OptimizeOptions.from_flags(tile=True)
    options.budget = 2.0
    assert options.schedule.budget > 2.0 and pipeline.CODEGEN_BUDGET > 2.0
    pipeline.optimize(two_regions, options)
    # deps, tiling, check, tensorization, codegen x 2
    assert len(asked["schedule"]) == 2 and len(asked["isolated"]) == 10
    assert all(0 < s <= 2.0 for s in asked["schedule"] + asked["isolated"])
    # the second region is offered less than the first: the first one's time counts
    assert asked["schedule"][1] < asked["schedule"][0]


def _spinning(*args, **kwargs):
    end = time.process_time() + 60
    while time.process_time() < end:
        pass
    raise AssertionError("not stopped")


def _optimized_with_a_spinning(stage: str, path: Path, budget: float, monkeypatch):
    """``optimize`` of ``path`` with ``pipeline.<stage>`` replaced by a minute of spinning:
    it must end well before the minute is up."""
    monkeypatch.setattr(pipeline, stage, _spinning)
    options = pipeline.OptimizeOptions.from_flags(tile=True, parallel=True)
    options.budget = budget
    started = time.monotonic()
    result = pipeline.optimize(path, options)
    assert time.monotonic() - started < 30
    return result


def test_a_dependence_analysis_running_past_the_budget_is_stopped(two_regions, monkeypatch, capsys):
    """The dependence analysis runs in a child process killed when the run's budget is
    used up: the region is kept as written, with a notice."""
    result = _optimized_with_a_spinning("analyze", two_regions, 3.0, monkeypatch)
    assert [r.kept_as_written for r in result.regions] == [True, True]
    assert result.text == TWO_REGIONS
    assert "budget of 3 CPU seconds was used up" in capsys.readouterr().err


def test_a_tiler_running_past_the_budget_is_stopped(two_regions, monkeypatch, capsys, tmp_path):
    """The tiler runs in a child process killed when the run's budget is used up (isl
    cannot be interrupted): the region keeps its schedule untiled, with a notice, and
    the output verifies."""
    result = _optimized_with_a_spinning("tile_with_report", two_regions, 4.0, monkeypatch)
    notices = [line for line in capsys.readouterr().err.splitlines() if "tiling stopped" in line]
    assert notices and "budget of 4 CPU seconds was used up; the region is not tiled" in notices[0]
    assert all(r.tiling is None for r in result.regions)
    out = tmp_path / "out.c"
    out.write_text(result.text)
    assert verify(two_regions, out).ok


def test_a_legality_check_running_past_the_budget_keeps_the_region_as_written(two_regions, monkeypatch,
                                                                              capsys):
    """The last legality check runs in a child process killed when the run's budget is
    used up (on a domain cut by % and || guards it took 40 s in the parent, past any
    budget): a schedule that was not checked is never emitted, the region is kept as
    written."""
    start = time.process_time()
    result = _optimized_with_a_spinning("check", two_regions, 3.0, monkeypatch)
    assert time.process_time() - start < 3.0
    assert [r.kept_as_written for r in result.regions] == [True, True]
    assert result.text == TWO_REGIONS
    assert "budget of 3 CPU seconds was used up" in capsys.readouterr().err


def test_slow_code_generation_stops_at_the_run_budget(capsys, tmp_path):
    """Fuzz seed 3 program 221 (shrunk): isl's AST generation with two levels of tiles
    takes far longer than a 3 s run (26 s when found); the attempts stop at the budget
    and the region is kept as written (or generated from a simpler schedule), and the
    output verifies."""
    path = DATA / "s3-p00221-slow-codegen.c"
    # (smartfuse: under fusion by cost its small inner loops keep the source's nests)
    options = pipeline.OptimizeOptions.from_flags(tile=True, l2tile=True, fuse="smart")
    options.budget = 3.0
    result = pipeline.optimize(path, options)
    [region] = result.regions
    assert region.fallback, "the region was generated from its two-level tiled schedule within 3 s"
    assert "budget of 3 CPU seconds was used up" in capsys.readouterr().err
    out = tmp_path / "out.c"
    out.write_text(result.text)
    assert verify(path, out).ok


def test_fuzzed_optimize_runs_with_a_budget_under_its_timeout():
    """The fuzzer's hang verdict is then a run that overshot its own budget."""
    options = runner._options("l2tile", 20.0)
    assert options.budget == pytest.approx(runner.BUDGET_SHARE * 20.0) and options.budget < 20.0


@pytest.mark.parametrize("value", ["-1", "nan", "x"])
def test_bad_budget_values_are_refused(two_regions, tmp_path, value):
    """Exit 2, the reason on the last line (after the usage for what argparse refuses)."""
    out = tmp_path / "out.c"
    proc = subprocess.run([sys.executable, "-m", "polysched", "optimize", str(two_regions), "-o", str(out),
                           "--tile", "--budget", value], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "--budget" in proc.stderr.strip().splitlines()[-1]
    if value != "x":
        assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_budget_zero_means_no_limit(two_regions, tmp_path):
    out = tmp_path / "out.c"
    proc = subprocess.run([sys.executable, "-m", "polysched", "optimize", str(two_regions), "-o", str(out),
                           "--tile", "--budget", "0"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "used up" not in proc.stdout + proc.stderr
    assert out.read_text() != TWO_REGIONS


DIV_MOD = r"""#include <stdio.h>
int A[120][120];
void f(int n)
{
  int i, j;
#pragma scop
  for (i = -n; i < n; i++)
    for (j = (i - 3) / 2; j < n; j++)
      A[j % 2 + 60][2 * j - i + 60] = A[j % 5 + 2 * i % 5 + 60][i / 3 + 60];
#pragma endscop
}
int main(void)
{
  int i, j;
  for (i = 0; i < 120; i++) for (j = 0; j < 120; j++) A[i][j] = (i * 7 + j * 3) % 11;
  f(25);
  for (i = 0; i < 120; i++) for (j = 0; j < 120; j++) printf("%d\n", A[i][j]);
  return 0;
}
"""


def test_subscripts_with_div_and_mod_do_not_stall_the_layout_pass(tmp_path):
    """A probe: the transposition pass asked isl for the dependence distances of this
    statement (m.deltas(), a projection of a relation with integer divisions), which ran
    for minutes inside isl, where neither --budget nor an operation cap reaches. It now
    asks whether two instances lie apart along the innermost loop (emptiness tests); the
    whole run takes about a second."""
    source = tmp_path / "divmod.c"
    source.write_text(DIV_MOD)
    out = tmp_path / "out.c"
    proc = subprocess.run([sys.executable, "-m", "polysched", "optimize", str(source), "-o", str(out),
                           "--tile", "--parallel"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert verify(source, out, workdir=tmp_path).ok


def _allocating(megabytes: int):
    def allocate(*args, **kwargs):
        return len(bytearray(megabytes * 2**20))
    return allocate


def test_a_child_past_its_memory_limit_fails_alone(monkeypatch):
    """A stage's child process may add POLYSCHED_MEMORY_GB of address space to what it
    inherits: past it, its allocation fails there (IsolatedOutOfMemory in the parent),
    not in the whole run; below it, the stage runs."""
    from polysched.schedule.isolated import IsolatedOutOfMemory, run_isolated
    monkeypatch.setenv("POLYSCHED_MEMORY_GB", "0.25")
    assert run_isolated(_allocating(64), 30.0) == 64 * 2**20
    with pytest.raises(IsolatedOutOfMemory, match=r"ran out of memory .* limit of 0.25 GB \(POLYSCHED_MEMORY_GB\)"):
        run_isolated(_allocating(1024), 30.0)
    bytearray(1024 * 2**20)          # this process has no such limit


def test_a_tiler_out_of_memory_leaves_the_region_untiled(two_regions, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("POLYSCHED_MEMORY_GB", "0.25")
    monkeypatch.setattr(pipeline, "tile_with_report", _allocating(1024))
    options = pipeline.OptimizeOptions.from_flags(tile=True, parallel=True)
    result = pipeline.optimize(two_regions, options)
    notices = [line for line in capsys.readouterr().err.splitlines() if "tiling stopped" in line]
    assert len(notices) == 2 and "ran out of memory" in notices[0] and notices[0].endswith("the region is not tiled")
    assert all(r.tiling is None for r in result.regions)
    out = tmp_path / "out.c"
    out.write_text(result.text)
    assert verify(two_regions, out).ok


def _isl_hog(*args, **kwargs):
    import islpy as isl
    kept = []
    space = isl.BasicSet.read_from_str(isl.DEFAULT_CONTEXT, "[n] -> { [i, j] : 0 <= j < i < n }")
    while True:
        kept.append(space.copy())


def test_isl_out_of_memory_in_the_dependence_analysis_keeps_the_region(two_regions, monkeypatch, capsys):
    """isl's allocations fail in the child under the limit (islpy's C++ layer then aborts
    the child): the regions are kept as written, each with a one-line notice saying why."""
    monkeypatch.setenv("POLYSCHED_MEMORY_GB", "0.2")
    monkeypatch.setattr(pipeline, "analyze", _isl_hog)
    result = pipeline.optimize(two_regions, pipeline.OptimizeOptions.from_flags(tile=True, parallel=True))
    assert result.text == TWO_REGIONS
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("out of memory" in line and line.endswith("the region is kept as written")
                                 for line in err)


def test_a_trace_replay_past_the_budget_is_stopped(two_regions, monkeypatch, capsys, tmp_path):
    """helper-11: --trace replayed in the main process, without the budget (a trace of
    repeated tilings and wavefronts ran 152 CPU seconds under --budget 20). A replay
    that does not finish within the budget is an error now (exit 2, nothing written);
    the same trace within it gives the program it records."""
    import json

    from polysched.cli import main
    from polysched.program import Program
    trace = [Program.from_file(two_regions, region=k).tile("S0", [8, 8]).trace.to_dict() for k in (0, 1)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace))
    out = tmp_path / "out.c"
    real = Program.replay

    def slow(self, steps):
        time.sleep(0.3)
        end = time.process_time() + 3
        while time.process_time() < end:
            pass
        return real(self, steps)

    monkeypatch.setattr(Program, "replay", slow)
    assert main(["optimize", str(two_regions), "-o", str(out), "--trace", str(path), "--budget", "1"]) == 2
    assert "did not finish within the budget of 1 CPU seconds" in capsys.readouterr().err
    assert not out.exists()
    monkeypatch.setattr(Program, "replay", real)
    assert main(["optimize", str(two_regions), "-o", str(out), "--trace", str(path), "--budget", "60"]) == 0
    assert verify(two_regions, out).ok
