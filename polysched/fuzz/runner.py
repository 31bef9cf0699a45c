"""Differential testing: each generated program through every mode of polysched,
compiled and run next to the original, outputs compared exactly.

Per program (one task of the process pool):

1. render the program, compile it (``gcc -O2 -fopenmp -ffp-contract=off ... -lm``) and
   run it: its stdout is the reference. It is built and run at ``-O0`` too: a program
   on which the two disagree (gcc 12.2's vectorizer miscompiles some of them) is
   ``skipped``, since it would test gcc;
2. per mode: ``polysched.pipeline.optimize`` in a forked child (so that a hang can be
   killed and a crash of isl cannot take the worker down), with a time limit in CPU
   seconds (the machine may be shared) and a wall-clock limit ``WALL_FACTOR`` times
   longer.
   A :class:`~polysched.scop.ScopError` is ``rejected`` (fine), any other exception
   or the death of the child is ``crash``, running past the limit is ``hang`` (a mode
   the wall clock stopped while it used little CPU, as on a loaded or paused machine,
   is run once more first);
3. the output is compiled with the same flags and run (at ``OMP_NUM_THREADS`` 1 and 2
   when it contains OpenMP); an output that does not compile, crashes, exits non-zero
   or prints anything else than the original is ``wrong``, one that runs past the
   limit is ``hang``;
4. each failure kind of the program is shrunk (:mod:`polysched.fuzz.shrink`) and the
   repro files are written to the output directory.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import re
import select
import signal
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from polysched.errors import ArgumentError

from .generator import GENERATOR_VERSION, InvalidProgram, Program, features, generate, render

# mode name -> OptimizeOptions.from_flags arguments
MODES: dict[str, dict] = {
    "identity": {"scheduler": "identity"},
    "isl-no": {"scheduler": "isl", "fuse": "no"},
    "isl-smart": {"scheduler": "isl", "fuse": "smart"},
    "isl-max": {"scheduler": "isl", "fuse": "max"},
    "pluto-no": {"scheduler": "pluto", "fuse": "no"},
    "pluto-smart": {"scheduler": "pluto", "fuse": "smart"},
    "pluto-max": {"scheduler": "pluto", "fuse": "max"},
    "tile": {"scheduler": "pluto", "fuse": "smart", "tile": True},
    "tile-par": {"scheduler": "pluto", "fuse": "cost", "tile": True, "parallel": True},  # the default
    # the default, with micro-kernel calls wherever one matches, however small (_options)
    "tensorize": {"scheduler": "pluto", "fuse": "cost", "tile": True, "parallel": True},
    "l2tile": {"scheduler": "pluto", "fuse": "smart", "tile": True, "l2tile": True},
    "unroll": {"scheduler": "pluto", "fuse": "smart", "unroll": 4},
    # not in the default set
    "isl-tile-par": {"scheduler": "isl", "fuse": "smart", "tile": True, "parallel": True},
    "l2tile-par": {"scheduler": "pluto", "fuse": "smart", "tile": True, "l2tile": True, "parallel": True},
    "tile-unroll": {"scheduler": "pluto", "fuse": "smart", "tile": True, "unroll": 2},
}
DEFAULT_MODES = ("identity", "isl-no", "isl-smart", "isl-max", "pluto-no", "pluto-smart",
                 "pluto-max", "tile", "tile-par", "tensorize", "l2tile", "unroll")
KINDS = ("ok", "rejected", "wrong", "crash", "hang")
FAILURES = ("wrong", "crash", "hang")
CC = "gcc"
# every build's flags after the optimization level ('polysched fuzz --cflags' replaces
# only that): no FMA contraction, polysched's parallel loops fork at any size
FIXED_CFLAGS = ("-ffp-contract=off", "-w", "-DPOLYSCHED_PARALLEL_MIN_WORK=0")
CFLAGS = ("-O2", *FIXED_CFLAGS)
# The original is also built without optimization: where gcc -O2 prints something else
# (gcc 12.2's vectorizer miscompiles some generated nests), the program tests gcc, not us.
REFERENCE_CFLAGS = ("-O0", *FIXED_CFLAGS)
MEMORY_LIMIT = 6 << 30        # bytes of address space for one optimize child
WALL_FACTOR = 4               # optimize is stopped at timeout CPU seconds or this x timeout wall seconds
WALL_ONLY = "wall-clock limit"   # the log of a hang the wall clock stopped: run again once
# Each optimize runs with this share of the timeout as its own budget (OptimizeOptions.
# budget), so a slow program tests the budget: only a run that overshoots it by more
# than the rest of the timeout is a hang.
BUDGET_SHARE = 0.6


@dataclass
class ModeResult:
    mode: str
    kind: str                 # one of KINDS
    detail: str = ""          # one line: why
    seconds: float = 0.0
    output: str | None = None  # the C text polysched wrote (None if none)
    log: str = ""             # traceback or differing lines

    def signature(self) -> str:
        """Kind plus the first words of the detail: what makes failures 'the same'."""
        return f"{self.kind}: {self.detail.split(':')[0][:80]}"


@dataclass
class Shrunk:
    kind: str
    mode: str
    detail: str
    path: str                 # minimal C file
    lines: int
    evaluations: int


@dataclass
class ProgramResult:
    index: int
    results: list[ModeResult] = field(default_factory=list)
    invalid: str = ""         # the generator produced something unusable (a fuzzer bug)
    skipped: str = ""         # gcc -O2 and -O0 disagree on the original: not a test of polysched
    shrunk: list[Shrunk] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    seconds: float = 0.0
    features: list[str] = field(default_factory=list)


@dataclass
class FuzzConfig:
    seed: int = 1
    programs: int = 100
    start: int = 0
    modes: tuple[str, ...] = DEFAULT_MODES
    jobs: int = 1
    out: Path | None = Path("fuzz-out")
    timeout: float = 20.0
    shrink: bool = True
    shrink_evaluations: int = 250
    shrink_seconds: float = 240.0
    shrink_limit: int = 2     # shrinks per failure class over the whole run (0: no limit)
    # the constructs of generator v4 every program has (generate's v4; None: as drawn)
    v4: tuple[str, ...] | None = None
    # the constructs of generator v5 every program has (generate's v5; None: as drawn)
    v5: tuple[str, ...] | None = None
    # generator v6's, which are opt-in (generate's v6): False none (the programs of v5),
    # True drawn ('polysched fuzz --generator 6'), a tuple of kinds those
    v6: bool | tuple[str, ...] = False
    # generator v7's likewise (arrays declared in the region; 'polysched fuzz --generator
    # 7' asks for v6's and v7's)
    v7: bool | tuple[str, ...] = False
    # generator v8's layout (declarations at the top of the regions; '--generator 8')
    v8: bool = False
    # generator v9's nests of temporaries added ('--generator 9', with v6 to v8)
    v9: bool = False
    # how the original and the outputs are compiled ('polysched fuzz --cflags'): gcc
    # miscompiles some programs under one flag set only
    cflags: tuple[str, ...] = CFLAGS


# --------------------------------------------------------------------------- optimize

def _options(mode: str, timeout: float):
    from polysched.pipeline import OptimizeOptions
    options = OptimizeOptions.from_flags(**MODES[mode])
    options.budget = BUDGET_SHARE * timeout
    if mode == "tensorize":
        options.tensorize_min_gain = 0.0
    return options


def optimize_isolated(path: Path, modes: list[str], timeout: float) -> dict[str, tuple[str, str, str]]:
    """``polysched.pipeline.optimize`` of ``path`` under each of ``modes``, in a forked
    child, one mode after the other with one `StageCache` (the modes that share a
    schedule compute it once). Per mode that got an answer: ``("ok", text, "")``,
    ``("rejected", message, "")``, ``("crash", message, traceback)`` or ``("hang",
    message, "")``; the run stops at the first hang or death of the child, so the
    modes after it have none (the caller starts them again).

    The child leads its own process group and reports on a pipe when it starts a mode
    and what the mode gave. Each mode has ``timeout`` seconds of the child's CPU time
    (``WALL_FACTOR`` times as many of wall time); past it, or when the child dies, the
    whole group is killed (polysched may fork helpers, e.g. a time-limited isl
    scheduler, which must not outlive it). The pipeline is looked up at call time
    (tests patch it)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child_optimize(path, modes, write_fd, timeout)
    os.close(write_fd)
    results: dict[str, tuple[str, str, str]] = {}
    buffer = bytearray()
    current, mode_cpu, mode_wall = None, 0.0, time.monotonic()
    cpu = 0.0
    status = 0
    eof = timed_out = False
    try:
        while not eof:
            ready, _, _ = select.select([read_fd], [], [], 0.05)
            if ready:
                chunk = os.read(read_fd, 1 << 20)
                eof = not chunk
                buffer += chunk
                stream = io.BytesIO(bytes(buffer))
                while True:
                    position = stream.tell()
                    try:
                        event, mode, payload = pickle.load(stream)
                    except (EOFError, pickle.UnpicklingError, ValueError, IndexError):
                        stream.seek(position)
                        break
                    if event == "start":
                        current, mode_cpu, mode_wall = mode, max(_cpu_seconds(pid), 0.0), time.monotonic()
                    else:
                        results[mode], current = payload, None
                del buffer[:stream.tell()]
            if current is not None and not eof:
                cpu = _cpu_seconds(pid)
                wall = time.monotonic() - mode_wall
                # CPU time when the system tells it (a shared, loaded machine must not
                # turn slow runs into hangs), and a generous wall-clock limit in any case.
                if (cpu - mode_cpu if cpu >= 0 else wall) > timeout or wall > WALL_FACTOR * timeout:
                    timed_out = True
                    break
    finally:
        os.close(read_fd)
        _kill_group(pid)
        _, status = os.waitpid(pid, 0)
    if current is None:
        if len(results) == len(modes):
            return results
        current = modes[len(results)]      # died between two modes: the next one is blamed
    if timed_out:
        wall = time.monotonic() - mode_wall
        # stopped by the wall clock with little CPU used: the machine was busy (or the
        # fuzzer paused), which the caller tells apart by running the mode again
        by_wall = cpu < 0 or cpu - mode_cpu <= timeout
        results[current] = ("hang", (f"optimize did not finish in {timeout:g} s (CPU "
                                     f"{max(cpu - mode_cpu, 0):.0f} s, wall {wall:.0f} s)"),
                            WALL_ONLY if by_wall else "")
    elif os.WIFSIGNALED(status):
        results[current] = ("crash", f"optimize killed by {signal.Signals(os.WTERMSIG(status)).name}", "")
    else:
        results[current] = ("crash", f"optimize exited with status {os.WEXITSTATUS(status)} "
                                     "without an answer", "")
    return results


def _child_optimize(path: Path, modes: list[str], out_fd: int, timeout: float) -> None:
    """The child of `_optimize_batch`: never returns."""
    code = 0
    try:
        os.setpgid(0, 0)
        _die_with_parent()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        except (ImportError, ValueError, OSError):
            pass
        from polysched import pipeline
        from polysched.scop import ScopError
        cache = pipeline.StageCache()
        with os.fdopen(out_fd, "wb") as out:
            for mode in modes:
                pickle.dump(("start", mode, None), out)
                out.flush()
                try:
                    payload = ("ok", pipeline.optimize(path, _options(mode, timeout), cache=cache).text, "")
                except ScopError as err:
                    payload = ("rejected", str(err).replace("\n", " "), "")
                except BaseException as err:     # noqa: BLE001 - everything else is a crash
                    first = str(err).strip().splitlines()[0] if str(err).strip() else ""
                    payload = ("crash", f"{type(err).__name__}: {first}"[:300], traceback.format_exc())
                pickle.dump(("done", mode, payload), out)
                out.flush()
    except BaseException:               # noqa: BLE001
        code = 1
    finally:
        os._exit(code)


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent dies (an interrupted run leaves no
    optimize child behind)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)      # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and of its children it has
    reaped, from /proc; -1 where /proc is not available."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        ticks = sum(int(x) for x in fields[11:15])     # utime stime cutime cstime
        return ticks / _CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return -1.0


try:
    _CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
except (ValueError, OSError, AttributeError):
    _CLOCK_TICKS = 100


def _kill_group(pid: int) -> None:
    """SIGKILL the process group led by our (not yet reaped) child ``pid``, or the
    child alone if it has not made its group yet."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# --------------------------------------------------------------------------- compile/run

def compile_program(source: Path, binary: Path, timeout: float, cflags=CFLAGS):
    from polysched.bench.harness import compile_c
    return compile_c(source, binary, cc=CC, cflags=cflags, openmp=True, timeout=timeout)


def run_program(binary: Path, timeout: float, threads: int):
    from polysched.bench.harness import run_binary
    return run_binary(binary, timeout=timeout, threads=threads)


def first_difference(expected: str, actual: str) -> str:
    exp, act = expected.splitlines(), actual.splitlines()
    differing = sum(1 for a, b in zip(exp, act) if a != b) + abs(len(exp) - len(act))
    for k, (a, b) in enumerate(zip(exp, act)):
        if a != b:
            return f"{differing} lines differ, first at line {k + 1}: expected '{a}', got '{b}'"
    return f"{len(exp)} lines expected, {len(act)} printed"


class Evaluator:
    """Evaluates one program text (original compiled and run once) under modes."""

    def __init__(self, text: str, workdir: Path, timeout: float, cflags: tuple[str, ...] = CFLAGS):
        self.text = text
        self.workdir = workdir
        self.timeout = timeout
        self.cflags = cflags      # original and outputs alike (the reference: REFERENCE_CFLAGS)
        self.source = workdir / "prog.c"
        self.source.write_text(text)
        self.reference: str | None = None
        self.invalid = ""
        self.skipped = ""
        self._by_output: dict[str, tuple[str, str, str]] = {}
        self._hung_schedules: dict[tuple[str, str], str] = {}
        binary = workdir / "prog.exe"
        compiled = compile_program(self.source, binary, max(timeout, 60), cflags)
        if not compiled.ok:
            self.invalid = f"the original does not compile: {compiled.reason}"
            return
        run = run_program(binary, max(timeout, 20), 1)
        if not run.ok:
            self.invalid = f"the original failed: {run.reason}"
            return
        self.reference = run.stdout
        plain = workdir / "prog-O0.exe"
        compiled = compile_program(self.source, plain, max(timeout, 60), REFERENCE_CFLAGS)
        run = run_program(plain, max(timeout, 20), 1) if compiled.ok else None
        if run is None or not run.ok or run.stdout != self.reference:
            self.skipped = (f"gcc {cflags[0]} and -O0 disagree on the original: "
                            + (first_difference(run.stdout, self.reference) if run is not None and run.ok
                               else "-O0 build failed"))

    def evaluate(self, mode: str) -> ModeResult:
        return self.evaluate_all([mode])[0]

    def evaluate_all(self, modes: list[str]) -> list[ModeResult]:
        """Each mode's result, in the order of ``modes``; optimize runs for all of them
        in one child (see `optimize_isolated`), started again after a hang or crash."""
        start = time.perf_counter()
        answers: dict[str, tuple[str, str, str]] = {}
        pending = list(modes)
        retried: set[str] = set()
        while pending:
            answers.update(optimize_isolated(self.source, pending, self.timeout))
            for mode in pending:
                # a run the wall clock stopped (a loaded or paused machine) gets a second try
                if answers.get(mode, ("", "", ""))[2] == WALL_ONLY and mode not in retried:
                    retried.add(mode)
                    del answers[mode]
            for mode in pending:
                options = MODES[mode]
                if answers.get(mode, ("",))[0] == "hang" and \
                        not any(options.get(k) for k in ("tile", "parallel", "unroll")):
                    self._hung_schedules.setdefault(self._schedule_key(mode), mode)
            pending = [m for m in pending if m not in answers]
            for mode in pending:
                # The pipeline computes the same schedule first, which already ran past
                # the limit in a mode that does nothing else: not run again.
                key = self._schedule_key(mode)
                if key in self._hung_schedules:
                    answers[mode] = ("hang", f"optimize did not finish in {self.timeout:g} s "
                                     f"(not run; inferred: scheduling with {key[0]}/{key[1]} "
                                     f"timed out in mode {self._hung_schedules[key]})", "")
            pending = [m for m in pending if m not in answers]
        optimize_seconds = (time.perf_counter() - start) / max(len(modes), 1)
        results = []
        for mode in modes:
            start = time.perf_counter()
            result = self._judge(mode, *answers[mode])
            result.seconds = time.perf_counter() - start + optimize_seconds
            results.append(result)
        return results

    @staticmethod
    def _schedule_key(mode: str) -> tuple[str, str]:
        options = MODES[mode]
        return options.get("scheduler", "pluto"), options.get("fuse", "smart")

    def _judge(self, mode: str, kind: str, message: str, log: str) -> ModeResult:
        """The mode's result from optimize's answer: its output compiled and run."""
        if kind != "ok":
            return ModeResult(mode, kind, message.replace(str(self.source), self.source.name), log=log)
        output = message
        key = hashlib.sha1(output.encode()).hexdigest()
        if key in self._by_output:
            kind, detail, log = self._by_output[key]
            return ModeResult(mode, kind, detail, output=output, log=log)
        kind, detail, log = self._check_output(output, key[:12])
        self._by_output[key] = (kind, detail, log)
        return ModeResult(mode, kind, detail, output=output, log=log)

    def _check_output(self, output: str, tag: str) -> tuple[str, str, str]:
        source = self.workdir / f"out-{tag}.c"
        binary = self.workdir / f"out-{tag}.exe"
        source.write_text(output)
        compiled = compile_program(source, binary, max(self.timeout, 60), self.cflags)
        if not compiled.ok:
            if "timed out" in compiled.reason:
                return "hang", "the output's compilation timed out", compiled.stderr[-2000:]
            return "wrong", f"output does not compile: {compiled.reason}", compiled.stderr[-4000:]
        threads = (1, 2) if "#pragma omp" in output else (1,)
        try:
            for n in threads:
                run = run_program(binary, self.timeout, n)
                if run.timed_out:
                    return "hang", f"output runs past {self.timeout:g} s ({n} thread{'s' * (n > 1)})", ""
                if not run.ok:
                    return "wrong", f"output {run.reason} ({n} thread{'s' * (n > 1)})", run.stderr[-2000:]
                if run.stdout != self.reference:
                    diff = first_difference(self.reference, run.stdout)
                    return "wrong", f"output differs ({n} thread{'s' * (n > 1)}): {diff}", ""
        finally:
            for path in (source, binary):
                try:
                    path.unlink()
                except OSError:
                    pass
        return "ok", "", ""


def evaluate_text(text: str, mode: str, timeout: float, cflags: tuple[str, ...] = CFLAGS) -> ModeResult:
    """One program text under one mode, in a fresh temporary directory (the
    shrinker's oracle). A program whose original fails is ``invalid``."""
    with tempfile.TemporaryDirectory(prefix="polysched-fuzz-") as tmp:
        evaluator = Evaluator(text, Path(tmp), timeout, cflags)
        if evaluator.invalid or evaluator.skipped:
            return ModeResult(mode, "invalid", evaluator.invalid or evaluator.skipped)
        return evaluator.evaluate(mode)


# --------------------------------------------------------------------------- one program

def same_failure(reference: ModeResult, candidate: ModeResult) -> bool:
    """The shrinker keeps a candidate when it fails the same way: same kind, and for
    crashes the same exception type, for hangs the same phase."""
    if candidate.kind != reference.kind:
        return False
    if reference.kind == "crash":
        return candidate.detail.split(":")[0] == reference.detail.split(":")[0]
    if reference.kind == "hang":
        return candidate.detail.split(" ")[0] == reference.detail.split(" ")[0]
    if reference.kind == "wrong":
        compiles = lambda r: r.detail.startswith("output does not compile")  # noqa: E731
        return compiles(candidate) == compiles(reference)
    return True


def fuzz_program(index: int, config: FuzzConfig) -> ProgramResult:
    start = time.perf_counter()
    result = ProgramResult(index)
    try:
        program = generate(config.seed, index, v4=config.v4, v5=config.v5, v6=config.v6, v7=config.v7,
                           v8=config.v8, v9=config.v9)
        text = render(program)
    except Exception as err:               # noqa: BLE001
        result.invalid = f"generator: {type(err).__name__}: {err}"
        return result
    result.features = sorted(features(program))
    with tempfile.TemporaryDirectory(prefix="polysched-fuzz-") as tmp:
        evaluator = Evaluator(text, Path(tmp), config.timeout, config.cflags)
        if evaluator.invalid:
            result.invalid = evaluator.invalid
            _write_invalid(config, program, text, result)
            return result
        if evaluator.skipped:
            result.skipped = evaluator.skipped
            if config.out is not None:
                config.out.mkdir(parents=True, exist_ok=True)
                path = config.out / f"{_base_name(config, program.index)}-skipped.c"
                path.write_text(f"/* not run: {result.skipped} */\n" + text)
            return result
        result.results.extend(evaluator.evaluate_all(list(config.modes)))
    failures = [r for r in result.results if r.kind in FAILURES]
    if failures and config.out is not None:
        _write_failures(config, program, text, failures, result)
    result.seconds = time.perf_counter() - start
    return result


RISKY_FEATURES = ("param_zero", "param_negative", "unsigned", "size_t", "long", "big_offset",
                  "live_out_iterators", "aliased", "no_params")


def failure_class(failure: ModeResult, program: Program) -> str:
    """What makes two failures 'probably the same bug': the kind, the head of the
    detail (numbers dropped) and which of the issue-8 input classes the program has."""
    head = re.sub(r"\d+", "#", failure.detail.split(":")[0])
    if failure.kind == "hang":          # a hang is about size: one class per phase and scheduler
        return f"hang|{failure.detail.split(' ')[0]}|{MODES[failure.mode].get('scheduler')}"
    if failure.kind == "crash":         # same exception, same message: same bug
        return f"crash|{re.sub(r'[0-9]+', '#', re.sub(r'/tmp/[^: ]*', '', failure.detail))[:90]}"
    risky = sorted(set(features(program)) & set(RISKY_FEATURES))
    return f"{failure.kind}|{head}|{','.join(risky)}"


def _claim_shrink(config: FuzzConfig, key: str) -> bool:
    """Whether this process may shrink one more failure of class ``key`` (claims are
    files in the output directory, so they work across the pool's processes)."""
    if config.shrink_limit <= 0:
        return True
    claims = config.out / ".shrink-claims"
    claims.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(f"{config.seed}|{key}".encode()).hexdigest()[:16]
    for k in range(config.shrink_limit):
        try:
            fd = os.open(claims / f"{digest}-{k}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            continue
        os.write(fd, key.encode())
        os.close(fd)
        return True
    return False


def _generator_note(program: Program) -> str:
    """How to write the program again, when the default generator does not: ``,
    generator v6`` (``polysched fuzz --generator 6``; v7 likewise)."""
    return f", generator v{program.version}" if program.version != GENERATOR_VERSION else ""


def _base_name(config: FuzzConfig, index: int) -> str:
    return f"s{config.seed}-p{index:05d}"


def _write_invalid(config: FuzzConfig, program: Program, text: str, result: ProgramResult) -> None:
    if config.out is None:
        return
    config.out.mkdir(parents=True, exist_ok=True)
    path = config.out / f"{_base_name(config, program.index)}-invalid.c"
    path.write_text(f"/* fuzzer bug: {result.invalid} */\n" + text)
    result.files.append(str(path))


def _write_failures(config: FuzzConfig, program: Program, text: str,
                    failures: list[ModeResult], result: ProgramResult) -> None:
    from .shrink import shrink

    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    base = _base_name(config, program.index)
    original = out / f"{base}.c"
    original.write_text(text)
    result.files.append(str(original))
    for failure in failures:
        stem = out / f"{base}-{failure.kind}-{failure.mode}"
        if failure.output is not None:
            Path(f"{stem}.out.c").write_text(failure.output)
            result.files.append(f"{stem}.out.c")
        Path(f"{stem}.txt").write_text(
            f"program: seed {config.seed}, index {program.index}{_generator_note(program)} ({original.name})\n"
            f"mode: {failure.mode} {MODES[failure.mode]}\n"
            f"kind: {failure.kind}\ndetail: {failure.detail}\n\n{failure.log}\n")
        result.files.append(f"{stem}.txt")
    if not config.shrink:
        return
    # One shrink per failure kind: the first mode (in mode order) that failed that way,
    # and at most config.shrink_limit shrinks per failure class over the whole run.
    done: set[str] = set()
    for failure in failures:
        key = failure.kind if failure.kind != "wrong" else \
            ("wrong-compile" if failure.detail.startswith("output does not compile") else "wrong")
        if key in done:
            continue
        done.add(key)
        if not _claim_shrink(config, failure_class(failure, program)):
            continue

        def still_fails(candidate_text: str, failure=failure) -> bool:
            return same_failure(failure, evaluate_text(candidate_text, failure.mode, config.timeout, config.cflags))

        small, evaluations = shrink(program, still_fails, max_evaluations=config.shrink_evaluations,
                                    max_seconds=config.shrink_seconds)
        small_text = render(small)
        final = evaluate_text(small_text, failure.mode, config.timeout, config.cflags)
        stem = out / f"{base}-{failure.kind}-{failure.mode}-min"
        header = (f"/* polysched fuzz repro: {failure.kind} in mode {failure.mode} "
                  f"({' '.join(f'{k}={v}' for k, v in MODES[failure.mode].items())})\n"
                  f"   {final.detail or failure.detail}\n"
                  f"   shrunk from {original.name} in {evaluations} evaluations */\n")
        Path(f"{stem}.c").write_text(header + small_text)
        if final.output is not None:
            Path(f"{stem}.out.c").write_text(final.output)
            result.files.append(f"{stem}.out.c")
        if final.log:
            Path(f"{stem}.txt").write_text(final.log)
        result.files.append(f"{stem}.c")
        result.shrunk.append(Shrunk(failure.kind, failure.mode, final.detail or failure.detail,
                                    f"{stem}.c", small_text.count("\n"), evaluations))


# --------------------------------------------------------------------------- the batch

@dataclass
class Summary:
    programs: int
    modes: int
    seed: int
    counts: dict[str, int]
    invalid: int
    seconds: float
    results: list[ProgramResult]
    generator: int = GENERATOR_VERSION      # the programs' generator (6: FuzzConfig.v6, 7: .v7)
    cflags: tuple[str, ...] = CFLAGS

    @property
    def skipped(self) -> int:
        return sum(1 for r in self.results if r.skipped)

    def line(self) -> str:
        c = self.counts
        which = f" (generator v{self.generator})" if self.generator != GENERATOR_VERSION else ""
        if self.cflags != CFLAGS:
            which += f" (compiled with {' '.join(self.cflags)})"
        text = (f"fuzz: {self.programs} programs x {self.modes} modes, seed {self.seed}{which}: "
                f"{c['ok']} ok, {c['rejected']} rejected, {c['wrong']} wrong, "
                f"{c['crash']} crash, {c['hang']} hang in {self.seconds:.0f} s")
        if self.invalid:
            text += f" ({self.invalid} invalid programs: fuzzer bug)"
        if self.skipped:
            text += f" ({self.skipped} skipped: gcc {self.cflags[0]} and -O0 disagree on the original)"
        return text

    @property
    def failed(self) -> bool:
        return any(self.counts[k] for k in FAILURES) or bool(self.invalid)


def _worker_init() -> None:
    # Import the heavy modules once per worker: every forked optimize inherits them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import polysched.pipeline  # noqa: F401


def run_fuzz(config: FuzzConfig, progress: Callable[[ProgramResult], None] | None = None) -> Summary:
    """Fuzz programs ``start .. start + programs - 1`` of batch ``seed``."""
    for mode in config.modes:
        if mode not in MODES:
            raise ArgumentError(f"unknown mode {mode!r} (known: {', '.join(MODES)})")
    start = time.perf_counter()
    indices = range(config.start, config.start + config.programs)
    if config.out is not None:
        import shutil
        shutil.rmtree(config.out / ".shrink-claims", ignore_errors=True)
    results: list[ProgramResult] = []
    if config.jobs <= 1:
        import polysched.pipeline  # noqa: F401
        for index in indices:
            r = fuzz_program(index, config)
            results.append(r)
            if progress:
                progress(r)
    else:
        import multiprocessing
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=config.jobs, mp_context=context,
                                 initializer=_worker_init) as pool:
            futures = {pool.submit(fuzz_program, index, config): index for index in indices}
            try:
                for future in as_completed(futures):
                    try:
                        r = future.result()
                    except Exception as err:      # noqa: BLE001 - a worker died: report, go on
                        r = ProgramResult(futures[future], invalid=f"worker: {type(err).__name__}: {err}")
                    results.append(r)
                    if progress:
                        progress(r)
            except KeyboardInterrupt:
                for future in futures:
                    future.cancel()
                for process in list(getattr(pool, "_processes", {}).values()):
                    process.kill()          # their optimize children die with them
                raise
    results.sort(key=lambda r: r.index)
    counts = {k: 0 for k in KINDS}
    for r in results:
        for m in r.results:
            counts[m.kind] = counts.get(m.kind, 0) + 1
    summary = Summary(config.programs, len(config.modes), config.seed, counts,
                      sum(1 for r in results if r.invalid), time.perf_counter() - start, results,
                      9 if config.v9 else 8 if config.v8 else 7 if config.v7 else 6 if config.v6 else GENERATOR_VERSION, config.cflags)
    if config.out is not None:
        _write_report(config, summary)
    return summary


def _write_report(config: FuzzConfig, summary: Summary) -> None:
    failing = [r for r in summary.results if r.invalid or any(m.kind in FAILURES for m in r.results)]
    if not failing and not config.out.exists():
        return
    config.out.mkdir(parents=True, exist_ok=True)
    with open(config.out / f"s{config.seed}-results.jsonl", "w") as f:
        for r in failing:
            record = asdict(r)
            for m in record["results"]:
                m.pop("output", None)
                m.pop("log", None)
            f.write(json.dumps(record) + "\n")
    (config.out / f"s{config.seed}-summary.txt").write_text(
        summary.line() + "\n" + "\n".join(distinct_failures(summary)) + "\n")


def distinct_failures(summary: Summary) -> list[str]:
    """One line per distinct (kind, mode, detail head), with a count and an example."""
    groups: dict[tuple[str, str], list[tuple[ProgramResult, ModeResult]]] = {}
    for r in summary.results:
        for m in r.results:
            if m.kind in FAILURES:
                groups.setdefault((m.signature(), m.mode), []).append((r, m))
    lines = []
    for (signature, mode), items in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        r, m = items[0]
        shrunk = next((s.path for s in r.shrunk if s.kind == m.kind), "")
        lines.append(f"{len(items):5d} x {mode:12s} {signature}  e.g. program {r.index}"
                     + (f" -> {shrunk}" if shrunk else ""))
    return lines
