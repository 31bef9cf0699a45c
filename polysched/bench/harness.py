"""Compile and run C programs through the system compiler, and verify a transformed
program against its original by running both and comparing what they print.

Everything here goes through ``subprocess`` with argument lists and timeouts, and
reports failures as values (``ok=False`` plus a one-line ``reason``), never as
exceptions: a benchmark campaign must survive a kernel that crashes or hangs.

Kernel program conventions (see ``polysched.bench.suite``):
- sizes chosen by ``-D<DATASET>_DATASET`` (MINI, SMALL, MEDIUM, LARGE, EXTRALARGE);
- ``-DPOLYSCHED_DUMP`` makes the program print its output arrays on stdout
  (``== A ==`` header lines, then numbers printed with ``%.10g`` or as ints);
- stderr always carries ``polysched-time: <seconds>`` (kernel time only) and, without
  DUMP, ``polysched-checksum: <value>``.
"""
from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from polysched.arguments import compile_options

from .compare import DEFAULT_ATOL, DEFAULT_RTOL, Comparison, compare_outputs

DEFAULT_CC = "gcc"
DEFAULT_CFLAGS: tuple[str, ...] = ("-O3", "-march=native")
DUMP_DEFINE = "POLYSCHED_DUMP"
DATASETS_KNOWN = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")

_TIME_LINE = re.compile(r"^\s*polysched-time:\s*(\S+)\s*$", re.MULTILINE)
_CHECKSUM_LINE = re.compile(r"^\s*polysched-checksum:\s*(.*?)\s*$", re.MULTILINE)


# --------------------------------------------------------------------------- compile

@dataclass
class CompileResult:
    """Outcome of one compiler invocation. ``command`` is the argument list actually run
    (after flag probing), so it can be pasted into a shell to reproduce."""

    ok: bool
    command: list[str]
    stderr: str = ""
    seconds: float = 0.0
    reason: str = ""
    output: Path | None = None

    @property
    def command_line(self) -> str:
        import shlex
        return " ".join(shlex.quote(part) for part in self.command)


@functools.lru_cache(maxsize=None)
def compiler_accepts(cc: str, flag: str) -> bool:
    """Whether ``cc`` compiles and links a trivial program with ``flag``
    (e.g. ``-march=native`` is unknown to some compilers and architectures).
    Probed once per (compiler, flag) and cached."""
    with tempfile.TemporaryDirectory(prefix="polysched-probe-") as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text("int main(void) { return 0; }\n")
        try:
            proc = subprocess.run([cc, flag, str(source), "-o", str(Path(tmp) / "probe")],
                                  capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return False
        # clang and gcc only warn on some unknown flags; treat a warning naming the
        # flag as a refusal so that the command line stays meaningful.
        return proc.returncode == 0 and flag not in proc.stderr


def portable_cflags(cc: str, cflags: Sequence[str]) -> list[str]:
    """``cflags`` with host-specific flags (``-march=native``, ``-mcpu=native``,
    ``-mtune=native``) dropped when the compiler refuses them."""
    kept = []
    for flag in cflags:
        if flag in ("-march=native", "-mcpu=native", "-mtune=native") and not compiler_accepts(cc, flag):
            continue
        kept.append(flag)
    return kept


def define_flags(defines: Mapping[str, str | None]) -> list[str]:
    """``{"N": "100", "MINI_DATASET": None}`` -> ``["-DN=100", "-DMINI_DATASET"]``."""
    return [f"-D{name}" if value is None else f"-D{name}={value}" for name, value in defines.items()]


def _first_error_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    # gcc/clang: "file.c:3:5: error: ..."; linker: "ld: ... undefined reference" / "error:".
    for pattern in (r":\d+:(?:\d+:)? (?:fatal )?error: ", r"undefined reference|multiple definition",
                    r"\berror\b:"):
        for line in lines:
            if re.search(pattern, line):
                return line
    return lines[0] if lines else ""


def compile_c(source: Path | str, output: Path | str, *, cc: str = DEFAULT_CC,
              cflags: Sequence[str] = DEFAULT_CFLAGS,
              defines: Mapping[str, str | None] | None = None,
              include_dirs: Sequence[Path | str] = (), openmp: bool = False,
              timeout: float = 300, extra_sources: Sequence[Path | str] = (),
              file_name: Path | str | None = None) -> CompileResult:
    """Compile one C file (plus ``extra_sources``, e.g. a utilities file, linked in)
    into an executable: ``cc CFLAGS -I.. -D.. [-fopenmp] SOURCE EXTRA... -o OUTPUT
    -lm``. Never raises for a compiler problem: a missing compiler, a compile error
    or a timeout is a ``CompileResult`` with ``ok=False`` and a reason.

    ``file_name``: the name ``__FILE__`` spells in ``source`` (the original's, when
    ``source`` is a transformed copy of it), so that a program printing its own name
    prints the same from either file (``-fmacro-prefix-map``, where the compiler has it).
    """
    source, output = Path(source), Path(output)
    extras = [Path(extra) for extra in extra_sources]
    command = [cc, *portable_cflags(cc, list(cflags))]
    if file_name is not None and str(file_name) != str(source) and compiler_accepts(cc, "-fmacro-prefix-map=a=b"):
        command.append(f"-fmacro-prefix-map={source}={file_name}")
    command += [f"-I{directory}" for directory in include_dirs]
    command += define_flags(defines or {})
    if openmp:
        command.append("-fopenmp")
    # a C file by another name (optimize's OUT.c.unverified): gcc took it for a linker script
    named = [str(source)] if source.suffix == ".c" else ["-x", "c", str(source), "-x", "none"]
    command += [*named, *map(str, extras), "-o", str(output), "-lm"]
    for path in (source, *extras):
        if not path.is_file():
            return CompileResult(False, command, reason=f"{path}: no such file")
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, errors="replace",
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return CompileResult(False, command, reason=f"compiler '{cc}' not found")
    except PermissionError:
        return CompileResult(False, command, reason=f"compiler '{cc}' is not executable")
    except subprocess.TimeoutExpired as err:
        stderr = err.stderr.decode(errors="replace") if isinstance(err.stderr, bytes) else (err.stderr or "")
        return CompileResult(False, command, stderr, time.perf_counter() - start,
                             reason=f"compiler timed out after {timeout:g} s")
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        detail = _first_error_line(proc.stderr) or f"exit status {proc.returncode}"
        return CompileResult(False, command, proc.stderr, seconds,
                             reason=f"compilation of {source.name} failed: {detail}")
    return CompileResult(True, command, proc.stderr, seconds, output=output)


# --------------------------------------------------------------------------- run

@dataclass
class RunResult:
    """Outcome of one run. ``seconds`` is wall time of the whole process;
    ``kernel_seconds`` is the program's own ``polysched-time:`` figure (None if absent)."""

    ok: bool
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    kernel_seconds: float | None = None
    timed_out: bool = False
    reason: str = ""
    checksum: str | None = None


def parse_kernel_seconds(stderr: str) -> float | None:
    """The last ``polysched-time: <seconds>`` value on stderr, or None."""
    matches = _TIME_LINE.findall(stderr)
    if not matches:
        return None
    try:
        return float(matches[-1])
    except ValueError:
        return None


def parse_checksum(stderr: str) -> str | None:
    matches = _CHECKSUM_LINE.findall(stderr)
    return matches[-1] if matches else None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _kill_group(proc: subprocess.Popen) -> None:
    # The program runs in its own session: kill the whole group so that a child it
    # forked cannot keep our pipes open.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


@functools.lru_cache(maxsize=None)
def _dies_with_parent() -> tuple[str, ...]:
    """The command prefix that makes a program die when the process running it dies
    (Linux ``PR_SET_PDEATHSIG`` through util-linux's ``setpriv``), or () where there is
    none: then a ``kill -9`` of bench or tune leaves the program it was timing running
    until it ends (helper-46 F21). Not ``preexec_fn``: unsafe with our threads."""
    import shutil
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return ()
    try:
        probe = subprocess.run([setpriv, "--pdeathsig", "KILL", "--", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return (setpriv, "--pdeathsig", "KILL", "--") if probe.returncode == 0 else ()


def _looks_executable(binary: Path) -> bool:
    """An ELF file or a script (``#!``)."""
    try:
        with open(binary, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return head == b"\x7fELF" or head.startswith(b"#!")


def scratch_directory(kind: str) -> tempfile.TemporaryDirectory:
    """A temporary directory ``polysched-KIND-PID-...`` for a campaign's sources and
    binaries, once those of processes that no longer run are removed: a ``kill -9``
    left them behind, binaries and all (helper-46 F21)."""
    import shutil
    for old in Path(tempfile.gettempdir()).glob(f"polysched-{kind}-*-*"):
        pid = old.name.split("-")[2]
        if pid.isdigit() and old.is_dir() and not _running(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return tempfile.TemporaryDirectory(prefix=f"polysched-{kind}-{os.getpid()}-")


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True             # another user's, or not a pid: left alone
    return True


def timed_proc_bind() -> str:
    """The ``OMP_PROC_BIND`` a timed run gets (:func:`run_binary` with ``timed``): the
    environment's, else ``true``. Benchmark records store it."""
    return os.environ.get("OMP_PROC_BIND", "true")


def run_binary(binary: Path | str, *, timeout: float = 60, threads: int | None = None,
               env: Mapping[str, str] | None = None, args: Sequence[str] = (),
               timed: bool = False) -> RunResult:
    """Run an executable, capturing stdout/stderr. ``threads`` sets OMP_NUM_THREADS;
    ``env`` adds to (not replaces) the current environment. A crash, a non-zero exit
    or a hang gives ``ok=False`` with a reason ("killed by SIGSEGV", "timed out after
    60 s", "exited with status 3"), never an exception.

    ``timed`` (a run whose time is kept) binds the OpenMP threads to CPUs
    (``OMP_PROC_BIND=true``, unless the environment says otherwise): unbound, Linux
    sometimes starts the second thread on the first one's CPU, where its spin-wait
    takes that CPU's time until the scheduler moves it. A MEDIUM gemm whose parallel
    loop had one iteration ran in 1.0 ms or in 4-9 ms, about half the runs each, on a
    2-vCPU machine; bound, 1.0-1.2 ms every run.

    A timed run's stdout is discarded, not kept: only its stderr (time and checksum
    lines) is read, and a program printing hundreds of MB must not take that much
    memory here."""
    binary = Path(binary)
    run_env = dict(os.environ)
    run_env.update(env or {})
    if threads is not None:
        run_env["OMP_NUM_THREADS"] = str(threads)
    if timed and "OMP_PROC_BIND" not in (env or {}):
        run_env["OMP_PROC_BIND"] = timed_proc_bind()
    command = [str(binary if binary.is_absolute() or binary.parent != Path(".") else Path(".") / binary),
               *args]
    if not binary.is_file():
        return RunResult(False, None, reason=f"{binary}: no such executable")
    if not os.access(binary, os.X_OK):
        return RunResult(False, None, reason=f"{binary}: not executable")
    prefix = _dies_with_parent()
    if prefix and not _looks_executable(binary):
        # (setpriv's execvp would hand it to /bin/sh, as Popen alone does not)
        return RunResult(False, None, reason=f"{binary}: cannot execute (Exec format error)")
    start = time.perf_counter()
    try:
        proc = subprocess.Popen([*prefix, *command], stdout=subprocess.DEVNULL if timed else subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=run_env, start_new_session=True)
    except FileNotFoundError:
        return RunResult(False, None, reason=f"{binary}: no such executable")
    except PermissionError:
        return RunResult(False, None, reason=f"{binary}: not executable")
    except OSError as err:
        return RunResult(False, None, reason=f"{binary}: cannot execute ({err.strerror})")
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        out, err = proc.communicate()
    except BaseException:
        _kill_group(proc)       # Ctrl-C: the program (its own session) must not run on
        raise
    seconds = time.perf_counter() - start
    stdout = out.decode(errors="replace") if out is not None else ""
    stderr = err.decode(errors="replace")
    result = RunResult(False, proc.returncode, stdout, stderr, seconds,
                       parse_kernel_seconds(stderr), timed_out, checksum=parse_checksum(stderr))
    if timed_out:
        result.reason = f"timed out after {timeout:g} s"
    elif proc.returncode < 0:
        result.reason = f"killed by {_signal_name(-proc.returncode)}"
    elif proc.returncode in (126, 127) and prefix and stderr.startswith("setpriv: "):
        result.reason = f"{binary}: cannot execute ({stderr.strip().rpartition(': ')[2]})"
    elif proc.returncode != 0:
        result.reason = f"exited with status {proc.returncode}"
    elif result.kernel_seconds is not None and not 0 <= result.kernel_seconds < float("inf"):
        result.reason = f"reported a kernel time of {result.kernel_seconds} s (polysched-time:)"
    else:
        result.ok = True
    return result


# --------------------------------------------------------------------------- verify

def time_interleaved(binaries: Mapping[str, Path | str], *, threads: int | None, repeat: int,
                     timeout: float = 600) -> dict[str, list[float]]:
    """Each binary's own ``polysched-time:`` seconds, ``repeat`` rounds run interleaved
    (a, b, c, a, b, c, ...) so that a load change on a shared machine hits them alike.
    A run that fails or prints no time adds no sample."""
    times: dict[str, list[float]] = {name: [] for name in binaries}
    for _ in range(repeat):
        for name, binary in binaries.items():
            run = run_binary(binary, threads=threads, timeout=timeout)
            if run.ok and run.kernel_seconds is not None:
                times[name].append(run.kernel_seconds)
    return times


@dataclass
class VerifyResult:
    """Original vs transformed: ``status`` is "equal", "differ" or "error" (could not
    decide: compile failure, crash, timeout, nothing printed). ``ok`` iff "equal".
    ``original_run``/``transformed_run`` are the runs of the last thread count tried
    (the failing or differing one, if any); ``thread_counts`` lists those tried."""

    ok: bool
    status: str
    reason: str
    comparison: Comparison | None = None
    original_compile: CompileResult | None = None
    transformed_compile: CompileResult | None = None
    original_run: RunResult | None = None
    transformed_run: RunResult | None = None
    flags: dict = field(default_factory=dict)
    thread_counts: list = field(default_factory=list)
    # with "error": which program failed to build or run ("original", "transformed"),
    # "" when neither (a missing file, output that cannot be compared)
    failed: str = ""

    def summary(self) -> str:
        return f"{self.status}: {self.reason}"

    # a summary only: the programs' whole output must never land in a notebook
    def __repr__(self) -> str:
        from polysched.display import verify_summary
        return verify_summary(self)

    def _repr_html_(self) -> str:
        from polysched.display import verify_html
        return verify_html(self)


def uses_openmp(path: Path | str) -> bool:
    """Whether the C file contains an OpenMP pragma (then it needs -fopenmp)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return False
    return re.search(r"^\s*#\s*pragma\s+omp\b", text, re.MULTILINE) is not None


def _error(reason: str, **parts) -> VerifyResult:
    return VerifyResult(False, "error", reason, **parts)


# Floating-point contraction (FMA) changes results in the last bits, differently for
# differently shaped loops: verification compiles both sides without it.
FP_CONTRACT_OFF = "-ffp-contract=off"

VERIFY_THREADS = (1, 2)


def comparable_stderr(stderr: str) -> str:
    """A program's stderr without the lines that legitimately differ between runs:
    the suite's ``polysched-time:`` kernel timings (see :func:`parse_kernel_seconds`)."""
    if "polysched-time" not in stderr:
        return stderr
    return "\n".join(line for line in stderr.splitlines() if not _TIME_LINE.match(line))


NOTHING_PRINTED = "neither program printed anything (stdout and stderr): nothing to compare"


def compare_runs(original: RunResult, transformed: RunResult, *, rtol: float = DEFAULT_RTOL,
                 atol: float = DEFAULT_ATOL) -> tuple[Comparison | None, str]:
    """Compare everything two runs printed, stdout and stderr (timing lines excluded):
    numbers under the tolerance, other text exactly. Returns the comparison that
    decides (the first differing stream, else stdout's or the only non-empty one) and
    a message; ``(None, reason)`` when neither program printed anything."""
    streams = []
    for name, expected, actual in (
            ("stdout", original.stdout, transformed.stdout),
            ("stderr", comparable_stderr(original.stderr), comparable_stderr(transformed.stderr))):
        if expected.strip() or actual.strip():
            streams.append((name, compare_outputs(expected, actual, rtol=rtol, atol=atol)))
    if not streams:
        return None, NOTHING_PRINTED
    for name, comparison in streams:
        if not comparison.equal:
            prefix = "" if name == "stdout" else f"{name}: "
            return comparison, prefix + comparison.message
    if len(streams) == 1:
        name, comparison = streams[0]
        return comparison, ("" if name == "stdout" else f"{name}: ") + comparison.message
    (_, out), (_, err) = streams
    total = Comparison(True, max(out.worst_abs, err.worst_abs), max(out.worst_rel, err.worst_rel),
                       out.n_values + err.n_values, None, "")
    total.message = (f"{total.n_values} values equal (stdout {out.n_values}, stderr {err.n_values}); "
                     f"worst abs err {total.worst_abs:.3g}, worst rel err {total.worst_rel:.3g} "
                     f"(rtol {rtol:g}, atol {atol:g})")
    return total, total.message


def verify(original: Path | str, transformed: Path | str, *, cc: str = DEFAULT_CC,
           cflags: Sequence[str] = DEFAULT_CFLAGS,
           defines: Mapping[str, str | None] | None = None, dataset: str | None = None,
           include_dirs: Sequence[Path | str] = (), openmp: bool | None = None,
           timeout: float = 60, compile_timeout: float = 300, threads: int | None = None,
           workdir: Path | str | None = None, rtol: float = DEFAULT_RTOL,
           atol: float = DEFAULT_ATOL, extra_sources: Sequence[Path | str] = (),
           dump: bool = True, fp_contract_off: bool = True, transformed_cc: str | None = None,
           transformed_cflags: Sequence[str] | None = None) -> VerifyResult:
    """Compile ``original`` and ``transformed`` with identical flags, run both, and
    compare everything they print, on stdout and on stderr (numbers under the
    tolerance, other text exactly; the suite's ``polysched-time:`` lines excluded),
    with :func:`compare_outputs`.

    - ``extra_sources``: more C files compiled and linked into both programs (a
      utilities file of a multi-file benchmark).
    - ``dump``: define ``POLYSCHED_DUMP`` (the suite's convention to print the output
      arrays); programs that print their results anyway need not know about it.
    - ``fp_contract_off``: add ``-ffp-contract=off`` to both sides (unless ``cflags``
      choose an ``-ffp-contract`` themselves), so that FMA contraction does not make
      equal computations print differently.
    - ``dataset="MINI"`` is a shorthand for ``defines={"MINI_DATASET": None}`` (verify
      at a small size: the suite's kernels default to LARGE).
    - ``openmp=None`` means: add -fopenmp (to both) iff either file contains
      ``#pragma omp``. With OpenMP and ``threads=None`` both programs run at 1 and at 2
      threads (``OMP_NUM_THREADS``), and must agree at each. ``-DPOLYSCHED_PARALLEL_MIN_WORK=0``
      (unless ``defines`` sets it) makes polysched's parallel loops fork at any size.
    - The directories of both files (and of the extra sources) are added as include
      paths (to both), so a transformed file written elsewhere still finds the
      original's headers.
    - Binaries go to ``workdir`` if given, else to a temporary directory that is removed.
    - ``transformed_cc`` / ``transformed_cflags``: build the transformed side with another
      compiler or flags (a peer such as Polly compiling the original file itself).

    Exit-status convention of the callers: "equal" 0, "differ" 1, "error" 2.
    """
    # (helper-94: a cflags string, "-O2", was taken character by character)
    checked = compile_options("verify", {"cc": cc, "cflags": cflags, "transformed_cc": transformed_cc,
                                         "transformed_cflags": transformed_cflags, "defines": defines,
                                         "include_dirs": include_dirs, "extra_sources": extra_sources})
    cflags, transformed_cflags, defines = checked["cflags"], checked["transformed_cflags"], checked["defines"]
    include_dirs, extra_sources = checked["include_dirs"], checked["extra_sources"]
    original, transformed = Path(original), Path(transformed)
    extras = [Path(extra) for extra in extra_sources]
    for path in (original, transformed, *extras):
        if not path.is_file():
            return _error(f"{path}: no such file")
    if openmp is None:
        openmp = uses_openmp(original) or uses_openmp(transformed)
    # parallel loops fork whatever the size (their if() clause would keep small runs
    # sequential, and a race would then go unseen)
    all_defines = {"POLYSCHED_PARALLEL_MIN_WORK": "0", **dataset_define(dataset), **dict(defines or {})}
    if dump:
        all_defines[DUMP_DEFINE] = None
    cflags = list(cflags)
    if fp_contract_off and not any(flag.startswith("-ffp-contract") for flag in cflags):
        cflags.append(FP_CONTRACT_OFF)
    other_cflags = cflags if transformed_cflags is None else list(transformed_cflags)
    if fp_contract_off and not any(flag.startswith("-ffp-contract") for flag in other_cflags):
        other_cflags.append(FP_CONTRACT_OFF)
    compilers = {"original": (cc, cflags), "transformed": (transformed_cc or cc, other_cflags)}
    includes: list[str] = []
    for directory in [*map(str, include_dirs), str(original.resolve().parent),
                      str(transformed.resolve().parent), *(str(e.resolve().parent) for e in extras)]:
        if directory not in includes:
            includes.append(directory)
    if threads is not None:
        thread_counts: list[int | None] = [threads]
    elif openmp:
        thread_counts = list(VERIFY_THREADS)
    else:
        thread_counts = [None]
    flags = {"cc": cc, "cflags": cflags, "defines": all_defines, "include_dirs": includes,
             "openmp": openmp, "extra_sources": [str(e) for e in extras],
             "threads": thread_counts}

    owned_tmp = None
    if workdir is None:
        owned_tmp = tempfile.TemporaryDirectory(prefix="polysched-verify-")
        build = Path(owned_tmp.name)
    else:
        build = Path(workdir)
        build.mkdir(parents=True, exist_ok=True)
    try:
        parts: dict = {"flags": flags, "thread_counts": []}
        binaries = {}
        for role, source in (("original", original), ("transformed", transformed)):
            binary = build / f"{role}.exe"
            role_cc, role_cflags = compilers[role]
            result = compile_c(source, binary, cc=role_cc, cflags=role_cflags, defines=all_defines,
                               include_dirs=includes, openmp=openmp, timeout=compile_timeout,
                               extra_sources=extras, file_name=original)
            parts[f"{role}_compile"] = result
            if not result.ok:
                return _error(f"{role} ({source}): {result.reason}", failed=role, **parts)
            binaries[role] = binary
        verdict = None
        first_original = None       # the original's run at the first thread count
        for count in thread_counts:
            parts["thread_counts"].append(count)
            at = f" at {count} thread{'s' if count != 1 else ''}" if len(thread_counts) > 1 else ""
            status = None     # a program may exit with a status of its own on purpose: both must
            for role in ("original", "transformed"):
                result = run_binary(binaries[role], timeout=timeout, threads=count)
                parts[f"{role}_run"] = result
                exited = not result.timed_out and result.returncode is not None and result.returncode > 0 \
                    and result.reason.startswith("exited with status")
                if role == "original":
                    status = result.returncode if exited else None
                    if not result.ok and not exited:
                        return _error(f"{role} run{at} {result.reason}", failed=role, **parts)
                elif result.returncode != (status or 0):
                    if not result.ok and not exited:
                        return _error(f"{role} run{at} {result.reason}", failed=role, **parts)
                    return VerifyResult(False, "differ", f"the original exited with status {status or 0}, "
                                        f"the transformed program with {result.returncode}{at}", **parts)
            comparison, message = compare_runs(parts["original_run"], parts["transformed_run"],
                                               rtol=rtol, atol=atol)
            if comparison is None:
                hint = f" (not even with -D{DUMP_DEFINE})" if dump else ""
                return _error(message + hint, **parts)
            if not comparison.equal and first_original is not None:
                # (helper-80: the original's own 'reduction(+:s)' sums in another order
                # at 2 threads; the transformed program, whose loops keep the order, was
                # blamed) the original varies with the thread count: its first run decides
                varies = compare_runs(first_original, parts["original_run"], rtol=rtol, atol=atol)[0]
                if varies is not None and not varies.equal:
                    again, again_message = compare_runs(first_original, parts["transformed_run"], rtol=rtol, atol=atol)
                    where = f" at {thread_counts[0]} thread{'s' if thread_counts[0] != 1 else ''}"
                    if again is not None and again.equal:
                        comparison, message = again, again_message + f" (against the original{where}: the " \
                            f"original itself prints other results{at}, its own OpenMP pragmas at work)"
                    else:
                        message += f" (the original itself prints other results{at} than{where})"
            parts["comparison"] = comparison
            if not comparison.equal:
                return VerifyResult(False, "differ", message + at, **parts)
            first_original = first_original or parts["original_run"]
            verdict = message
        if len(thread_counts) > 1:
            verdict += " (at " + " and ".join(str(c) for c in thread_counts) + " threads)"
        return VerifyResult(True, "equal", verdict, **parts)
    finally:
        if owned_tmp is not None:
            owned_tmp.cleanup()


def untested_datasets(path: Path | str, datasets: Mapping[str, str | None],
                      include_dirs: Sequence[Path | str] = ()) -> list[str]:
    """A warning for each of ``datasets`` (``{"dataset": "SMALL", "verify_dataset":
    "MINI"}``) that the file never tests: the run is at the sizes it is written with
    (bench's results and tune's campaigns say so)."""
    return [f"{path} does not test {value}_DATASET: {what} {value} runs it at the sizes it is written with"
            for what, value in datasets.items()
            if value is not None and not dataset_is_tested(value, [path], include_dirs)]


def _texts_with_headers(files: Sequence[Path | str], include_dirs: Sequence[Path | str] = ()):
    """The texts of ``files`` and of the headers they include with quotes (looked for
    beside the including file, then in ``include_dirs``), each once."""
    seen: set[Path] = set()
    pending = [Path(f) for f in files]
    while pending:
        path = pending.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        text = path.read_text(errors="replace")
        yield text
        for header in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, flags=re.M):
            pending += [Path(d) / header for d in (path.parent, *include_dirs)]


def dataset_is_tested(dataset: str, files: Sequence[Path | str], include_dirs: Sequence[Path | str] = ()) -> bool:
    """Whether ``<DATASET>_DATASET`` appears in one of ``files`` or in a header they
    include with quotes (looked for beside the including file, then in
    ``include_dirs``): a ``-D`` of a dataset the program never tests changes nothing."""
    macro = re.compile(rf"\b{re.escape(dataset)}_DATASET\b")
    return any(macro.search(text) for text in _texts_with_headers(files, include_dirs))


def tested_datasets(files: Sequence[Path | str], include_dirs: Sequence[Path | str] = ()) -> list[str]:
    """The ``<NAME>_DATASET`` names ``files`` (and the headers they include with quotes,
    as `dataset_is_tested` finds them) test: PolyBench's in their order, then the others."""
    from polysched.bench.suite import DATASETS
    found: set[str] = set()
    for text in _texts_with_headers(files, include_dirs):
        found.update(re.findall(r"\b([A-Za-z0-9_]+?)_DATASET\b", text))
    return [d for d in DATASETS if d in found] + sorted(found - set(DATASETS))


def dataset_define(dataset: str | None) -> dict[str, None]:
    """``"mini"`` -> ``{"MINI_DATASET": None}``; None or "" -> ``{}``."""
    if not dataset:
        return {}
    return {f"{dataset.upper()}_DATASET": None}
