"""``polysched optimize --save-trace/--trace/--save-schedule/--schedule``: what was
saved reproduces the same file; a hand-written schedule is checked."""
from __future__ import annotations

import json
from pathlib import Path
import subprocess
import sys

import pytest

from polysched.bench import get
from polysched.tensorize import builtin_intrinsics
from polysched.tensorize.cost import native_path


def _optimize(*args, cwd):
    return subprocess.run([sys.executable, "-m", "polysched", "optimize", *map(str, args)],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


NATIVE = any(native_path(i) for i in builtin_intrinsics() if i.name == "dgemm_packed_scaled")


@pytest.mark.parametrize("kernel", ["gemm", "jacobi-1d", "trmm"])
def test_saved_trace_and_schedule_reproduce_the_output(kernel, tmp_path):
    """(trmm: Program.auto_tile used the tiler's tree itself, optimize the tree read
    back from its child's text, and the replay had other, equivalent, guards)"""
    source = get(kernel).path
    first = _optimize(source, "-o", "a.c", "--tile", "--parallel", "--save-trace", "t.json",
                      "--save-schedule", "s.txt", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    trace = json.loads((tmp_path / "t.json").read_text())
    # gemm's product runs as micro-kernel calls where this CPU has the ISA
    expected_ops = ["tensorize"] if kernel == "gemm" and NATIVE else ["auto_schedule", "auto_tile"]
    assert [s["op"] for s in trace["steps"]] == expected_ops
    assert len((tmp_path / "s.txt").read_text().splitlines()) == 1
    by_trace = _optimize(source, "-o", "b.c", "--trace", "t.json", cwd=tmp_path)
    by_schedule = _optimize(source, "-o", "c.c", "--schedule", "s.txt", "--save-trace", "t2.json",
                            cwd=tmp_path)
    assert by_trace.returncode == 0 and by_schedule.returncode == 0, by_trace.stderr + by_schedule.stderr
    expected = (tmp_path / "a.c").read_text()
    assert (tmp_path / "b.c").read_text() == expected == (tmp_path / "c.c").read_text()
    assert json.loads((tmp_path / "t2.json").read_text())["steps"][0]["op"] == "set_schedule"


def test_a_region_the_policy_kept_as_written_replays_as_written(tmp_path):
    """ludcmp's triangular solves: their floating-point sums keep every loop
    sequential, optimize keeps the source as written, and its saved trace
    (auto_schedule, auto_tile) replayed wrote the loops regenerated under a run-time
    check instead."""
    from test_cli_optimize import SOLVES
    source = tmp_path / "solves.c"
    source.write_text(SOLVES)
    first = _optimize(source, "-o", "a.c", "--tile", "--parallel", "--save-trace", "t.json", cwd=tmp_path)
    assert first.returncode == 0 and "the region is kept as written" in first.stdout, first.stdout + first.stderr
    replayed = _optimize(source, "-o", "b.c", "--trace", "t.json", cwd=tmp_path)
    assert replayed.returncode == 0 and "the region is kept as written" in replayed.stdout, replayed.stderr
    assert (tmp_path / "b.c").read_text() == (tmp_path / "a.c").read_text() == Path(source).read_text()


def test_illegal_schedule_is_refused_with_a_witness(tmp_path):
    (tmp_path / "s.txt").write_text("[TSTEPS, N] -> { S0[t, i, j] -> [i, t, j] }\n")
    proc = _optimize(get("seidel-2d").path, "-o", "x.c", "--schedule", "s.txt", cwd=tmp_path)
    assert proc.returncode == 2
    assert "is illegal" in proc.stderr and "must run before" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "x.c").exists()


def test_a_schedule_given_as_text_is_the_schedule_itself(tmp_path):
    """As ``check --schedule`` takes it: text with braces is the schedule, not a file
    name ("No such file or directory" before). Its file and its text give one output;
    a statement the region does not have is refused."""
    interchange = "[NI, NJ, NK] -> { S0[i, j] -> [0, j, i, 0]; S1[i, k, j] -> [1, j, i, k] }"
    (tmp_path / "s.txt").write_text(interchange + "\n")
    by_file = _optimize(get("gemm").path, "-o", "a.c", "--schedule", "s.txt", cwd=tmp_path)
    by_text = _optimize(get("gemm").path, "-o", "b.c", "--schedule", interchange, "--verify", cwd=tmp_path)
    assert by_file.returncode == by_text.returncode == 0, by_file.stderr + by_text.stderr
    assert "verify: equal" in by_text.stdout
    assert (tmp_path / "a.c").read_text() == (tmp_path / "b.c").read_text()
    typo = _optimize(get("gemm").path, "-o", "c.c", "--schedule", interchange.replace("S1", "S2"), cwd=tmp_path)
    assert typo.returncode == 2 and not (tmp_path / "c.c").exists()
    assert typo.stderr.strip() == ("polysched: error: --schedule: region 0: the schedule names S2, which the "
                                   "region does not have (its statements: S0, S1)")


def test_trace_and_schedule_are_alternatives(tmp_path):
    (tmp_path / "t.json").write_text('{"steps": []}')
    (tmp_path / "s.txt").write_text("{ S0[i, j] -> [i, j] }\n")
    proc = _optimize(get("gemm").path, "-o", "x.c", "--trace", "t.json", "--schedule", "s.txt", cwd=tmp_path)
    assert proc.returncode == 2 and "alternatives" in proc.stderr


ST2D = """#include <stdio.h>
static double A[40][50], B[40][50];
static void kernel(int n, int m)
{
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 1; j < m - 1; j++)
      B[i][j] = A[i - 1][j] + A[i][j + 1] * 0.5;
#pragma endscop
}
int main(void)
{
  int i, j;
  for (i = 0; i < 40; i++) for (j = 0; j < 50; j++) A[i][j] = (i * 7 + j) % 11;
  kernel(40, 50);
  for (i = 0; i < 40; i++) for (j = 0; j < 50; j++) printf("%g\\n", B[i][j]);
  return 0;
}
"""
ROWS_COLUMNS = 'child: { schedule: "[n, m] -> [{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]" }'


@pytest.mark.parametrize("schedule, message", [
    # instances the region does not run (the code would run them): was an internal error
    ('{ domain: "[n, m] -> { S0[i, j] : 0 <= i < n and 0 <= j < m }", ' + ROWS_COLUMNS + " }",
     "instances the region does not run"),
    # a tensorize mark written by hand: was an internal error ("unknown mark")
    ('{ domain: "[n, m] -> { S0[i, j] : 0 < i < n and 0 < j < m - 1 }", child: { mark: "tensorize(dgemm_4x8)", '
     + ROWS_COLUMNS + " } }", "does not map a statement"),
    # a statement of other dimensions: was isl's "spaces don't match"
    ("[n, m] -> { S0[i] -> [i] }", "the schedule's S0 has 1 dimension(s); the region's S0 has 2"),
])
def test_a_schedule_file_the_region_cannot_use(tmp_path, schedule, message):
    (tmp_path / "k.c").write_text(ST2D)
    (tmp_path / "s.txt").write_text("# a comment line\n" + schedule + "\n")
    proc = _optimize("k.c", "-o", "x.c", "--schedule", "s.txt", cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert not (tmp_path / "x.c").exists()
    if "tensorize" not in schedule:       # check reads the same file (its line of region 0)
        check = subprocess.run([sys.executable, "-m", "polysched", "check", "k.c", "--schedule", "s.txt"],
                               capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert check.returncode == 2, check.stdout + check.stderr


@pytest.mark.parametrize("flag", [["--tile"], ["--parallel"], ["--unroll", "4"], ["--scheduler", "isl"],
                                  ["--diamond"], ["--fuse", "max"]])
def test_flags_a_schedule_file_makes_void_are_refused(tmp_path, flag):
    """--schedule/--trace give the whole schedule: these flags were silently ignored."""
    (tmp_path / "k.c").write_text(ST2D)
    (tmp_path / "s.txt").write_text("[n, m] -> { S0[i, j] -> [i, j] }\n")
    proc = _optimize("k.c", "-o", "x.c", "--schedule", "s.txt", *flag, cwd=tmp_path)
    assert proc.returncode == 2 and "would have no effect" in proc.stderr, proc.stderr
    proc = _optimize("k.c", "-o", "x.c", "--schedule", "s.txt", "--debug", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr          # --debug after the command, as the hint says


TWO_REGIONS = """#include <stdio.h>
#define N 64
double A[N][N], B[N][N];
int main(void) {
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = (i * 3 + j) % 7; B[i][j] = 0; }
#pragma scop
  for (int i = 1; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = A[i - 1][j] + A[i][j];
#pragma endscop
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      B[j][i] = A[i][j] * 2.0;
#pragma endscop
  double s = 0; for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += B[i][j] * (i + 1) + A[i][j] * j;
  printf("%.17g\\n", s);
  return 0;
}
"""


def test_traces_of_a_file_of_two_regions_go_between_the_command_and_the_api(tmp_path):
    """helper-90: the command's list of traces (one per region) was read by
    Program.replay as a list of steps ("trace step 0: {...the whole trace...}"), and one
    region's trace from the API was refused by the command ("1 entry for 2 scop
    regions")."""
    import polysched as ps
    source = tmp_path / "two.c"
    source.write_text(TWO_REGIONS)
    done = _optimize(source, "-o", "a.c", "--tile", "--parallel", "--save-trace", "t.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    saved = json.loads((tmp_path / "t.json").read_text())
    second = ps.Program.from_file(source, region=1)
    assert [dict(s) for s in second.replay(tmp_path / "t.json").trace] == saved[1]["steps"]
    with pytest.raises(ps.TransformError, match="a list of 2 traces, one per region"):
        ps.Trace.from_json(tmp_path / "t.json")
    (tmp_path / "r1.json").write_text(second.tile("S0", [16, 16]).trace.to_json())
    done = _optimize(source, "-o", "b.c", "--trace", "r1.json", "--verify", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "region 0 (main, lines 6-10): 1 statements\n  the schedule keeps the original order and marks no loop: " \
           "the region is kept as written" in done.stdout and "verify: equal" in done.stdout
    out = (tmp_path / "b.c").read_text()
    assert out.count("A[i][j] = A[i - 1][j] + A[i][j];") == 1 and "16 * c0 + 15" in out
