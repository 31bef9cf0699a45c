"""No path of the CLI prints a Python traceback (issue 9, item 5; issue 8, item 8).

User errors: one line, exit 2. Internal failures: one line ``polysched: internal
error: ...``, exit 3, the traceback only with ``--debug``. Output files are written
atomically, never over the input, and not at all when ``--verify`` fails. ``verify``
compares everything two programs print, links extra sources, and runs OpenMP programs
at 1 and 2 threads.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from polysched.bench import get
from polysched.cli import main

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

KERNEL = Path(get("jacobi-1d").path)

SIMPLE = """\
#include <stdio.h>
#define N 50
double A[N], B[N];
void kernel(int n) {
  int i;
#pragma scop
  for (i = 1; i < n; i++)
    B[i] = A[i - 1] * 3.0;
#pragma endscop
}
int main(void) {
  int i;
  for (i = 0; i < N; i++) A[i] = i * 0.5;
  kernel(N);
  for (i = 0; i < N; i++) printf("%.10g\\n", B[i]);
  return 0;
}
"""


def polysched(*args: str, cwd: Path | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polysched", *args], capture_output=True,
                          text=True, timeout=600, cwd=cwd, **kwargs)


def in_process(capfd, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capfd.readouterr()
    return status, out, err


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip("\n").splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.fixture
def simple(tmp_path) -> Path:
    path = tmp_path / "simple.c"
    path.write_text(SIMPLE)
    return path


# ----------------------------------------------------------------- exceptions of the stages

def test_schedule_error_is_one_line_exit_2(simple, tmp_path, monkeypatch, capfd):
    from polysched.schedule import ScheduleError

    def fail(*args, **kwargs):
        raise ScheduleError("no legal affine hyperplane for statements S0 within coefficient bound 4")

    monkeypatch.setattr("polysched.pipeline.compute", fail)
    out = tmp_path / "out.c"
    status, stdout, stderr = in_process(capfd, "optimize", str(simple), "-o", str(out))
    assert status == 2
    line = one_line(stderr)
    assert "cannot schedule" in line and "no legal affine hyperplane" in line
    assert not out.exists() and stdout == ""


def test_tiling_error_is_internal_exit_3_traceback_only_with_debug(simple, tmp_path, monkeypatch, capfd):
    from polysched.tiling import TilingError

    def fail(*args, **kwargs):
        raise TilingError("the schedule to tile violates dependences: { S0[i] -> S0[i + 1] }")

    monkeypatch.setattr("polysched.pipeline.tile_with_report", fail)
    out = tmp_path / "out.c"
    status, _, stderr = in_process(capfd, "optimize", str(simple), "-o", str(out), "--tile")
    assert status == 3
    line = one_line(stderr)
    assert line.startswith("polysched: internal error: TilingError: the schedule to tile violates")
    assert "--debug" in line
    assert not out.exists()

    status, _, stderr = in_process(capfd, "--debug", "optimize", str(simple), "-o", str(out), "--tile")
    assert status == 3
    assert "Traceback (most recent call last)" in stderr
    assert stderr.strip().splitlines()[-1].startswith("polysched: internal error: TilingError")
    assert not out.exists()


@pytest.mark.parametrize("exception", [RuntimeError("boom"), KeyError("S7"), ZeroDivisionError(),
                                       "isl"])
def test_any_internal_failure_is_one_line_exit_3(simple, tmp_path, monkeypatch, capfd, exception):
    if exception == "isl":
        import islpy as isl
        exception = isl.Error("call to isl_schedule_node_band_member_set_coincident failed: "
                              "invalid member position\nmore")

    def fail(*args, **kwargs):
        raise exception

    monkeypatch.setattr("polysched.pipeline.analyze", fail)
    out = tmp_path / "out.c"
    status, _, stderr = in_process(capfd, "optimize", str(simple), "-o", str(out))
    assert status == 3
    assert one_line(stderr).startswith("polysched: internal error: ")
    assert not out.exists()


@pytest.mark.parametrize("exception", [RecursionError("maximum recursion depth exceeded"),
                                       TypeError("__init__(): incompatible function arguments"),
                                       ValueError("bad"), AttributeError("none")])
def test_front_end_crash_is_one_line_exit_2_with_location(simple, tmp_path, monkeypatch, capfd, exception):
    """A failure inside the C front end that should have been a ScopError (the
    RecursionError of a 600-term right-hand side, the TypeError of a literal wider than
    64 bits): one line at the statement being converted, exit 2 (whether the front end
    or the CLI turns it into that line)."""
    from polysched.scop import affine

    def fail(self, node, *args, **kwargs):
        raise exception

    monkeypatch.setattr(affine.AffineConverter, "pw_aff", fail)
    out = tmp_path / "out.c"
    status, _, stderr = in_process(capfd, "optimize", str(simple), "-o", str(out))
    assert status == 2
    line = one_line(stderr)
    assert line.startswith(f"{simple}:")
    position = line[len(str(simple)) + 1:].split(":")
    assert 6 <= int(position[0]) <= 8 and position[1].isdigit(), line   # in the region
    assert not out.exists()


@pytest.mark.parametrize("terms", [700])
def test_long_right_hand_side_and_subscript_no_traceback(tmp_path, terms):
    body = " + ".join(f"B[{k % 100}]" for k in range(terms))
    src = tmp_path / "long.c"
    src.write_text("void f(int n, double B[100], double C[100]) {\n  int i;\n#pragma scop\n"
                   f"  for (i = 0; i < n; i++)\n    C[i] = {body};\n"
                   f"  for (i = 0; i < n; i++)\n    C[i{' + 1 - 1' * terms}] = 0;\n"
                   "#pragma endscop\n}\n")
    proc = polysched("optimize", str(src), "-o", str(tmp_path / "out.c"))
    assert proc.returncode in (0, 2), proc.stderr
    assert "Traceback" not in proc.stderr
    if proc.returncode == 2:
        one_line(proc.stderr)
        assert proc.stderr.startswith(f"{src}:")


# ----------------------------------------------------------------- isl callbacks

def test_isl_callback_exceptions_print_nothing(capfd):
    import islpy as isl

    from polysched.cli.common import hide_callback_tracebacks

    class Stop(Exception):
        pass

    def visit(point):
        raise Stop()

    with hide_callback_tracebacks():
        try:
            isl.Set("{ [i] : 0 <= i < 10 }").foreach_point(visit)
        except (Stop, isl.Error):
            pass
        print("after", flush=True)
        print("to stderr", file=sys.stderr, flush=True)
    out, err = capfd.readouterr()
    assert out == "after\n"
    assert err == "to stderr\n"


def test_the_output_filter_ends_although_a_child_keeps_the_pipe_open():
    """A child started under the filter (tune's process pool starts a forkserver that
    lives on) holds the pipe's write end: the filter waited for an end of file that did
    not come, 2 x 5 s after every `polysched tune`. Now it drains and ends at once."""
    program = (
        "import subprocess, sys, time\n"
        "from polysched.cli.common import hide_callback_tracebacks\n"
        "with hide_callback_tracebacks():\n"
        "    child = subprocess.Popen(['sleep', '30'])\n"
        "    print('before', flush=True); print('err', file=sys.stderr, flush=True)\n"
        "    start = time.monotonic()\n"
        "print(f'closed in {time.monotonic() - start:.1f} s', flush=True)\n"
        "child.kill()\n")
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    before, closed = proc.stdout.splitlines()
    assert before == "before" and float(closed.split()[2]) < 3, proc.stdout      # (10.0 s before)
    assert proc.stderr == "err\n"


def test_the_output_filter_loses_no_line_written_just_before_it_closes():
    """The first version of the draining above lost a line written between the pump's
    wait and its look at the stop flag (error messages of `polysched` came out empty)."""
    program = (
        "import random, sys, time\n"
        "from polysched.cli.common import hide_callback_tracebacks\n"
        "random.seed(1)\n"
        "for k in range(200):\n"
        "    with hide_callback_tracebacks():\n"
        "        time.sleep(random.uniform(0.0, 0.06))     # near the end of the pump's 50 ms wait\n"
        "        x = sum(range(20000))                      # holding the GIL as the wait ends\n"
        "        print(k, file=sys.stderr, flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert proc.stderr.split() == [str(k) for k in range(200)]


def test_successful_run_prints_no_isl_callback_noise(tmp_path):
    """Dependence distances of a reduction with a parametric outer loop: the
    enumeration stops inside an isl callback."""
    src = tmp_path / "reduce.c"
    src.write_text("void f(int n, double A[100], double B[100]) {\n  int i, j;\n#pragma scop\n"
                   "  for (i = 0; i < n; i++)\n    for (j = 0; j < 100; j++)\n"
                   "      A[i] = A[i] + B[j];\n#pragma endscop\n}\n")
    proc = polysched("optimize", str(src), "-o", str(tmp_path / "out.c"))
    assert proc.returncode == 0, proc.stderr
    assert "islpy" not in proc.stdout and "islpy" not in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr == ""
    assert proc.stdout.startswith("wrote ")


# ----------------------------------------------------------------- options

def test_unknown_option_shows_the_subcommand_usage(tmp_path):
    proc = polysched("optimize", "--tiles", "3", "x.c", "-o", "y.c", cwd=tmp_path)
    assert proc.returncode == 2
    assert "usage: polysched optimize" in proc.stderr
    assert "unrecognized arguments: --tiles" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_demo_unknown_kernel_lists_close_names(tmp_path):
    proc = polysched("demo", "--kernel", "gemmm", "--out-dir", str(tmp_path / "d"))
    assert proc.returncode == 2
    line = one_line(proc.stderr)
    assert "gemmm" in line and "did you mean" in line and "gemm" in line
    assert not (tmp_path / "d").exists()


def test_bench_unknown_kernel_lists_close_names(tmp_path):
    proc = polysched("bench", "jacobi2d", "--no-polly", "-o", str(tmp_path / "r.json"))
    assert proc.returncode == 2
    line = one_line(proc.stderr)
    assert "did you mean" in line and "jacobi-2d" in line


@pytest.mark.parametrize("value, ok", [("100000", False), ("65", False), ("0", False), ("64", True)])
def test_unroll_bounds(simple, tmp_path, value, ok):
    out = tmp_path / "out.c"
    proc = polysched("optimize", str(simple), "-o", str(out), "--unroll", value)
    if ok:
        assert proc.returncode == 0, proc.stderr
        assert "unroll 100000" not in out.read_text()
    else:
        assert proc.returncode == 2
        assert "--unroll" in one_line(proc.stderr) and "64" in proc.stderr
        assert not out.exists()


# ----------------------------------------------------------------- report

RESULTS = {"schema": "polysched-bench/1", "kernels": {}, "variants": [], "results": [],
           "config": {}, "machine": {}}


def test_report_bad_plot_extension_fails_before_printing(tmp_path):
    results = tmp_path / "r.json"
    results.write_text(json.dumps(RESULTS))
    proc = polysched("report", str(results), "--plot", str(tmp_path / "out.xyz"))
    assert proc.returncode == 2
    assert proc.stdout == ""
    line = one_line(proc.stderr)
    assert ".xyz" in line and "png" in line
    assert not (tmp_path / "out.xyz").exists()


def test_report_plot_to_missing_directory_fails_before_printing(tmp_path):
    results = tmp_path / "r.json"
    results.write_text(json.dumps(RESULTS))
    proc = polysched("report", str(results), "--plot", str(tmp_path / "no" / "out.png"))
    assert proc.returncode == 2 and proc.stdout == ""
    one_line(proc.stderr)


@pytest.mark.parametrize("content", [b"", b"{not json", b"\x00\xff\xfe", b"[1, 2]",
                                     b'{"schema": "polysched-bench/1", "results": [{"x": 1}]}'])
def test_report_bad_results_file(tmp_path, content):
    results = tmp_path / "r.json"
    results.write_bytes(content)
    proc = polysched("report", str(results))
    assert proc.returncode == 2, proc.stderr
    assert str(results) in one_line(proc.stderr)


# ----------------------------------------------------------------- output files

def test_output_equal_to_input_is_refused(simple, tmp_path):
    before = simple.read_bytes()
    link = tmp_path / "link.c"
    link.symlink_to(simple)
    for output in (str(simple), f"{tmp_path}/./simple.c", str(link)):
        proc = polysched("optimize", str(simple), "-o", output)
        assert proc.returncode == 2
        assert "input" in one_line(proc.stderr)
        assert simple.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.c", "simple.c"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_output_to_dev_full_is_one_line(simple):
    proc = polysched("optimize", str(simple), "-o", "/dev/full")
    assert proc.returncode == 2
    line = one_line(proc.stderr)
    assert "/dev/full" in line and "No space left" in line


@pytest.mark.skipif(not os.path.exists("/proc/version"), reason="no /proc")
def test_output_to_proc_file_is_one_line(simple):
    before = Path("/proc/version").read_text()
    proc = polysched("optimize", str(simple), "-o", "/proc/version")
    assert proc.returncode == 2
    assert "/proc/version" in one_line(proc.stderr)
    assert Path("/proc/version").read_text() == before


def test_full_disk_leaves_the_existing_output_untouched(simple, tmp_path, monkeypatch, capfd):
    out = tmp_path / "out.c"
    out.write_text("the previous, complete output\n")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    status, _, stderr = in_process(capfd, "optimize", str(simple), "-o", str(out))
    assert status == 2
    line = one_line(stderr)
    assert str(out) in line and "No space left" in line
    assert out.read_text() == "the previous, complete output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.c", "simple.c"]   # no temp file


def test_output_through_a_symbolic_link_replaces_its_target(simple, tmp_path):
    """As the shell's `>` does (helper-43: the link was replaced by a regular file and
    its target left as it was)."""
    target = tmp_path / "target.c"
    target.write_text("old\n")
    link = tmp_path / "link.c"
    link.symlink_to(target.name)
    proc = polysched("optimize", str(simple), "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and os.readlink(link) == "target.c"
    assert "kernel" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.c", "simple.c", "target.c"]


def test_output_replaced_atomically_keeps_mode(simple, tmp_path):
    out = tmp_path / "out.c"
    out.write_text("old\n")
    out.chmod(0o640)
    proc = polysched("optimize", str(simple), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "#pragma" not in out.read_text() or "kernel" in out.read_text()
    assert out.read_text() != "old\n"
    assert out.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.c", "simple.c"]


def test_output_in_missing_directory_is_refused_before_work(simple, tmp_path):
    proc = polysched("optimize", str(simple), "-o", str(tmp_path / "no" / "out.c"))
    assert proc.returncode == 2
    assert "no such directory" in one_line(proc.stderr)


def test_broken_pipe_exits_quietly(tmp_path):
    """``polysched optimize big.c -o /dev/stdout | head -1``."""
    src = tmp_path / "big.c"
    padding = "".join(f"/* padding line {k} ............................................ */\n"
                      for k in range(20000))
    src.write_text(padding + SIMPLE)
    proc = subprocess.Popen([sys.executable, "-m", "polysched", "optimize", str(src), "-o", "/dev/stdout"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    status = proc.wait(timeout=300)
    assert first.startswith(b"/* padding line 0")
    assert status == 1
    assert stderr == "", stderr


@pytest.mark.parametrize("output", ["/dev/stdout", "-"])
def test_output_to_stdout_keeps_messages_off_stdout(simple, output):
    """(`-o -` wrote a file named '-', helper-43.)"""
    proc = polysched("optimize", str(simple), "-o", output, "--verify")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("#include <stdio.h>") and "#pragma scop" in proc.stdout
    assert "wrote /dev/stdout" in proc.stderr and "verify: equal" in proc.stderr and "wrote" not in proc.stdout
    assert not (simple.parent / "-").exists() and not Path("-").exists()


# ----------------------------------------------------------------- optimize --verify

def _tamper(monkeypatch, change):
    """Make the pipeline's output wrong (as a scheduling bug would)."""
    import polysched.pipeline as pipeline

    real = pipeline.optimize

    def wrong(path, options=None):
        result = real(path, options)
        result.text = change(result.text)
        return result

    monkeypatch.setattr(pipeline, "optimize", wrong)


@needs_gcc
@pytest.mark.parametrize("existing", [False, True])
def test_verify_that_differs_writes_nothing(simple, tmp_path, monkeypatch, capfd, existing):
    def change(text: str) -> str:
        region = text[text.index("#pragma scop"):text.index("#pragma endscop")]
        assert "3.0" in region
        return text.replace(region, region.replace("3.0", "4.0"))

    _tamper(monkeypatch, change)
    out = tmp_path / "out.c"
    if existing:
        out.write_text("previous\n")
    status, stdout, stderr = in_process(capfd, "optimize", str(simple), "-o", str(out), "--verify")
    assert status == 1
    assert "verify: differ" in stdout
    line = one_line(stderr)
    assert "nothing written" in line and "out.c.unverified" in line
    assert (out.read_text() == "previous\n") if existing else not out.exists()
    assert "4.0" in (tmp_path / "out.c.unverified").read_text()


@needs_gcc
def test_verify_of_a_program_without_main_is_a_usage_error(tmp_path, capfd):
    """helper-42: the input itself could not be built (no main()), and the exit status
    was 1, which says the output differs; it is the input's problem: 2, one line."""
    src = tmp_path / "nomain.c"
    src.write_text("double A[10];\nvoid f(void) {\n  int i;\n#pragma scop\n"
                   "  for (i = 1; i < 10; i++) A[i] = A[i-1] + 1;\n#pragma endscop\n}\n")
    out = tmp_path / "out.c"
    status, stdout, stderr = in_process(capfd, "optimize", str(src), "-o", str(out), "--verify")
    assert status == 2
    line = one_line(stderr)
    assert "cannot be verified" in line and "main" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nomain.c"]


@needs_gcc
def test_verify_that_cannot_compile_writes_nothing(simple, tmp_path, monkeypatch, capfd):
    _tamper(monkeypatch, lambda text: text.replace("#pragma endscop", "#pragma endscop\n this is not C;", 1))
    out = tmp_path / "out.c"
    status, stdout, stderr = in_process(capfd, "optimize", str(simple), "-o", str(out), "--verify")
    assert status == 1
    assert "verify: error" in stdout
    assert "could not be verified" in one_line(stderr)
    assert not out.exists() and (tmp_path / "out.c.unverified").exists()


@needs_gcc
def test_verify_that_passes_writes_the_output(simple, tmp_path):
    out = tmp_path / "out.c"
    proc = polysched("optimize", str(simple), "-o", str(out), "--tile", "--parallel", "--verify")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"wrote {out}") and "verify: equal" in proc.stdout
    assert out.exists() and not (tmp_path / "out.c.unverified").exists()


# ----------------------------------------------------------------- multi-file programs

UTIL = "double polysched_test_scale(double x) { return 2.0 * x; }\n"
MULTI = """\
#include <stdio.h>
double polysched_test_scale(double x);
double A[40][40];
void kernel(int n) {
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i - 1][j] * 0.5 + A[i][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 40; i++) for (int j = 0; j < 40; j++) A[i][j] = polysched_test_scale(i + j);
  kernel(40);
  double sum = 0;
  for (int i = 0; i < 40; i++) for (int j = 0; j < 40; j++) sum += A[i][j];
  printf("sum = %.12g\\n", sum);
  fprintf(stderr, "corner: %.12g\\n", A[39][39]);
  return 0;
}
"""


@needs_gcc
def test_verify_and_optimize_verify_link_extra_sources(tmp_path):
    (tmp_path / "util.c").write_text(UTIL)
    src = tmp_path / "multi.c"
    src.write_text(MULTI)
    out = tmp_path / "out.c"

    proc = polysched("verify", str(src), str(src), "--cflags=-O1")
    assert proc.returncode == 2
    assert "undefined reference" in one_line(proc.stderr)
    proc = polysched("verify", str(src), str(src), "--cflags=-O1", "--extra-source", str(tmp_path / "util.c"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("equal:")

    proc = polysched("optimize", str(src), "-o", str(out), "--tile", "--verify")
    assert proc.returncode == 2 and not out.exists()        # the input itself does not link
    assert "undefined reference" in one_line(proc.stderr)
    proc = polysched("optimize", str(src), "-o", str(out), "--tile", "--parallel", "--verify",
                     "--extra-source", str(tmp_path / "util.c"), "--cflags", "-O2 -g")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verify: equal" in proc.stdout and out.exists()


def test_extra_source_without_verify_is_refused(simple, tmp_path):
    (tmp_path / "util.c").write_text(UTIL)
    proc = polysched("optimize", str(simple), "-o", str(tmp_path / "out.c"),
                     "--extra-source", str(tmp_path / "util.c"))
    assert proc.returncode == 2 and "--verify" in one_line(proc.stderr)


# ----------------------------------------------------------------- verify: what is compared

def _program(body: str, includes: str = "#include <stdio.h>\n") -> str:
    return includes + "int main(void) {\n" + body + "\n  return 0;\n}\n"


def _verify(tmp_path, original: str, transformed: str, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "a.c").write_text(original)
    (tmp_path / "b.c").write_text(transformed)
    return polysched("verify", str(tmp_path / "a.c"), str(tmp_path / "b.c"), "--cflags=-O1", *extra)


@needs_gcc
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_verify_compares_what_programs_print(tmp_path, stream):
    """No POLYSCHED_DUMP needed: everything printed, on either stream, is compared."""
    def prog(value: str) -> str:
        return _program(f'  double x = {value};\n  fprintf({stream}, "result: x=%.12g, n=%d\\n", x, 7);')

    proc = _verify(tmp_path, prog("1.0 / 3.0"), prog("1.0 / 3.0 + 1e-13"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("equal:")
    proc = _verify(tmp_path, prog("1.0 / 3.0"), prog("1.0 / 3.0 + 1e-3"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.startswith("differ:")
    if stream == "stderr":
        assert "stderr" in proc.stdout


@needs_gcc
def test_verify_text_must_match_exactly(tmp_path):
    proc = _verify(tmp_path, _program('  puts("status: ok");'), _program('  puts("status: bad");'))
    assert proc.returncode == 1 and "'ok'" in proc.stdout


@needs_gcc
def test_verify_ignores_kernel_timing_lines(tmp_path):
    def prog(seconds: str) -> str:
        return _program(f'  printf("%d\\n", 42);\n  fprintf(stderr, "polysched-time: {seconds}\\n");')

    proc = _verify(tmp_path, prog("0.125"), prog("7.5"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@needs_gcc
def test_verify_nothing_printed_is_an_error_and_dump_is_optional(tmp_path):
    prog = _program('#ifdef POLYSCHED_DUMP\n  printf("1 2 3\\n");\n#endif')
    proc = _verify(tmp_path, prog, prog)
    assert proc.returncode == 0, proc.stderr
    proc = _verify(tmp_path, prog, prog, "--no-dump")
    assert proc.returncode == 2
    assert "nothing to compare" in one_line(proc.stderr)


@needs_gcc
def test_verify_openmp_runs_at_1_and_2_threads(tmp_path):
    includes = "#include <stdio.h>\n#include <omp.h>\n"
    original = _program('  int t = 1;\n#pragma omp parallel\n  { }\n  printf("%d\\n", t);', includes)
    threads = _program('  int t = 1;\n#pragma omp parallel\n  {\n#pragma omp single\n'
                       '    t = omp_get_num_threads();\n  }\n  printf("%d\\n", t);', includes)
    proc = _verify(tmp_path, original, original)
    assert proc.returncode == 0, proc.stderr
    assert "1 and 2 threads" in proc.stdout
    proc = _verify(tmp_path, original, threads)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "at 2 threads" in proc.stdout


@needs_gcc
def test_verify_compiles_without_fp_contraction(tmp_path):
    prog = _program('  printf("1\\n");')
    proc = _verify(tmp_path, prog, prog, "--verbose")
    assert proc.returncode == 0
    commands = [line for line in proc.stderr.splitlines() if line.startswith("[") and "$" in line]
    assert len(commands) == 2 and all("-ffp-contract=off" in c for c in commands)
    (tmp_path / "a.c").write_text(prog)
    proc = polysched("verify", str(tmp_path / "a.c"), str(tmp_path / "a.c"), "--verbose",
                     "--cflags", "-O1 -ffp-contract=fast")
    assert "-ffp-contract=off" not in proc.stderr and "-ffp-contract=fast" in proc.stderr


def test_compare_numbers_inside_words():
    from polysched.bench import compare_outputs

    assert compare_outputs("x=1.0000000001, n=3", "x=1.0, n=3").equal
    assert not compare_outputs("x=1.1, n=3", "x=1.0, n=3").equal
    assert not compare_outputs("n=3", "n=4").equal
    assert not compare_outputs("A2", "A3").equal
    assert compare_outputs("sum:3.0e2;", "sum:300.0000001;").equal


# -- found by a probe of the CLI ------------------------------------------------------------

def test_bench_never_writes_over_its_input(tmp_path, capfd):
    source = tmp_path / "k.c"
    source.write_text(KERNEL.read_text())
    before = source.read_bytes()
    assert main(["bench", str(source), "--dataset", "MINI", "--variants", "orig", "--repeat", "1",
                 "-o", str(source)]) == 2
    assert source.read_bytes() == before and not list(tmp_path.glob("*.jsonl"))
    assert "is the input file" in capfd.readouterr().err
    assert main(["bench", "jacobi-1d", "--dataset", "MINI", "--cc", "no-such-cc-xyz",
                 "-o", str(tmp_path / "r.json")]) == 2
    assert "--cc no-such-cc-xyz: no such compiler" in capfd.readouterr().err
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "r.jsonl").exists()


def test_extract_reads_a_one_line_file_as_text(tmp_path, capfd):
    trick = tmp_path / "trick.c"
    trick.write_text(str(KERNEL))            # its text is a path to a real kernel
    assert main(["extract", str(trick)]) == 2
    captured = capfd.readouterr()
    assert captured.err.strip() == f"{trick}:1:1: error: no '#pragma scop' ... '#pragma endscop' region"
    assert "scop " not in captured.out


@pytest.mark.parametrize("command", [["extract"], ["extract", "--json"], ["deps"], ["schedule"],
                                     ["check", "--schedule", "{ S0[i] -> [i] }"], ["tensorize"], ["optimize"]])
def test_every_command_refuses_a_file_without_a_region_alike(tmp_path, capfd, command):
    """(helper-43: `extract` printed a notice on stdout and exited 0; the others exit 2.)"""
    source = tmp_path / "plain.c"
    source.write_text("int main(void)\n{\n  return 0;\n}\n")
    args = [command[0], str(source), *command[1:]] + (["-o", str(tmp_path / "o.c")] if command == ["optimize"] else [])
    assert main(args) == 2
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"{source}:1:1: error: no '#pragma scop' ... '#pragma endscop' region")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.c"]


def test_an_empty_list_of_traces_is_zero_entries(tmp_path, capfd):
    """(helper-44: on a two-region file, `[]` was "1 entry for 2 scop regions"; on a
    one-region file it was taken as a trace without steps. The trace of no step is
    {"steps": []}.)"""
    trace = tmp_path / "t.json"
    trace.write_text("[]\n")
    out = tmp_path / "o.c"
    assert main(["optimize", str(KERNEL), "-o", str(out), "--trace", str(trace)]) == 2
    assert capfd.readouterr().err.strip() == f"polysched: error: --trace {trace}: 0 entries for 1 scop region"
    trace.write_text('{"steps": []}\n')
    assert main(["optimize", str(KERNEL), "-o", str(out), "--trace", str(trace)]) == 0


@pytest.mark.parametrize("sizes", ["32,,32", "9223372036854775808,32", "32,32,", "S1=4,4;S1=8,8", "-4,8", "", " "])
def test_tile_sizes_that_are_not_a_list_of_sizes(tmp_path, capfd, sizes):
    out = tmp_path / "o.c"
    assert main(["optimize", str(KERNEL), "-o", str(out), "--tile", "--tile-sizes", sizes]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--tile-sizes" in err[0] and not out.exists()


def test_binary_trace_schedule_and_intrinsics(tmp_path, capfd):
    garbage = tmp_path / "bin.c"
    garbage.write_bytes(bytes(range(128, 256)) * 3)
    for flag in ("--trace", "--schedule", "--tensorize"):
        out = tmp_path / "o.c"
        tile = ["--tile"] if flag == "--tensorize" else []       # the others give the whole schedule
        assert main(["optimize", str(KERNEL), "-o", str(out), *tile, flag, str(garbage)]) == 2
        err = capfd.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(garbage) in err[0] and not out.exists(), (flag, err)


def test_intrinsic_call_naming_no_operand_is_refused_when_loaded(tmp_path, capfd):
    shipped = Path(__file__).parent.parent / "polysched" / "tensorize" / "intrinsics" / "dgemm_4x8.c"
    (tmp_path / "dgemm_4x8.c").write_text(shipped.read_text().replace("base(A)", "base(Z)"))
    assert main(["tensorize", str(get("gemm").path), "--intrinsics", str(tmp_path)]) == 2
    assert "call: base(Z) does not name an operand" in capfd.readouterr().err


def test_two_outputs_of_one_run_on_one_path(tmp_path, capfd):
    out = tmp_path / "o.c"
    assert main(["optimize", str(KERNEL), "-o", str(out), "--tile", "--save-trace", str(out)]) == 2
    assert "--save-trace" in capfd.readouterr().err and not out.exists()


RECURRENCE = """#include <stdio.h>
#define N 10
int a[N];
int main(void) {
  int i;
#pragma scop
  for (i = 1; i < N; i++) a[i] = a[i - 1] + 1;
#pragma endscop
  printf("%d\\n", a[3]);
  return 0;
}
"""


@pytest.mark.parametrize("command", [["deps"], ["schedule"], ["check", "--schedule", "[N] -> { S0[i] -> [i] }"]])
def test_a_budget_of_0_is_no_limit_in_every_command(command, tmp_path):
    """helper-87: '--budget 0', documented as no limit, was an internal error (exit 3,
    "unsupported format string passed to NoneType") in deps, schedule and check."""
    source = tmp_path / "rec.c"
    source.write_text(RECURRENCE)
    done = polysched(command[0], str(source), *command[1:], "--budget", "0")
    assert done.returncode == 0 and "internal error" not in done.stderr, done.stderr


def test_an_unbalanced_quote_in_the_fuzzers_cflags_is_a_usage_error(tmp_path):
    """helper-87: 'fuzz --cflags "'x"' was an internal error (exit 3) where verify says
    what is wrong in one line."""
    done = polysched("fuzz", "--programs", "1", "--cflags", "'x", "--out", str(tmp_path / "f"))
    assert done.returncode == 2 and done.stderr.strip() == "polysched: error: --cflags: No closing quotation", \
        done.stderr
