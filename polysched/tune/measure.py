"""Measuring one candidate: replay, verify, compile, time (with the bench harness).

:func:`prepare` (parallel-safe: replays the trace, writes the C, verifies it against
the original with ``polysched.bench.verify`` at the verification dataset, compiles it
for the timed dataset with ``compile_c``) and :func:`time_prepared` (runs the binary
``repeat`` times with ``run_binary``; the median is kept) are separate so that an
executor can compile many candidates at once and time them one at a time.
:func:`measure` does both (what a Dask worker runs).

A :class:`Job` carries the original's text, not only its path, so that a worker on
another machine can measure it. ``timer``: ``"module:function"`` called with
``(steps, config)`` instead of running the binary (a deterministic fake time, for tests
of the search and the executors; everything else still runs).
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import io
import json
import os
import statistics
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Job:
    index: int
    trace: str                       # the trace JSON
    config: dict | None
    source: str                      # the original file's text
    filename: str                    # its name (kept: the generated file has the same)
    region: int = 0
    defines: dict = field(default_factory=dict)
    include_dirs: list = field(default_factory=list)
    dataset: str | None = "LARGE"
    verify_dataset: str | None = "MINI"
    threads: int | None = None
    repeat: int = 3
    timeout: float = 120.0
    compile_timeout: float = 300.0
    cc: str = "gcc"
    cflags: tuple = ("-O3", "-march=native")
    workdir: str | None = None       # None: a temporary directory of the worker
    timer: str | None = None
    # the original's ``polysched-checksum:`` at ``dataset`` (:func:`original_checksum`);
    # a timed run printing another is wrong at that size though right at verify_dataset
    reference_checksum: str | None = None
    phase: str = "search"            # or "confirm": the best re-timed against the default


@dataclass
class Result:
    index: int
    status: str
    reason: str = ""
    samples: list = field(default_factory=list)
    median: float | None = None
    compiler: str | None = None
    compiler_version: str | None = None
    command: str | None = None
    flags: dict | None = None
    dataset: str | None = None
    threads: int | None = None
    verify: str | None = None
    source_hash: str | None = None
    seconds: float = 0.0
    binary: str | None = None        # between prepare and time only
    worker: str | None = None
    checksum: str | None = None      # the first timed run's polysched-checksum, if it prints one

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# --------------------------------------------------------------------------- programs

_BASES: OrderedDict = OrderedDict()
_PREFIXES: OrderedDict = OrderedDict()
_CACHE_SIZE = 16


def _lru_get(cache: OrderedDict, key, make):
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    value = make()
    cache[key] = value
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def program_of(job: Job):
    """The program the job's trace gives (the scheduled prefix cached per process)."""
    from polysched.program import Program, Trace
    from polysched.bench import dataset_define
    # the sizes of the timed dataset, as the campaign's space saw them (Target.program)
    defines = {**job.defines, **dataset_define(job.dataset)}
    base_key = (hashlib.sha256(job.source.encode(errors="surrogateescape")).hexdigest(), job.filename,
                job.region, json.dumps(defines, sort_keys=True), tuple(job.include_dirs))
    def base_program():
        # (the campaign printed the file's notes when it read the region: once, not
        # again from each worker)
        with contextlib.redirect_stderr(io.StringIO()):
            return Program.from_source(job.source, region=job.region, defines=defines or None,
                                       include_dirs=job.include_dirs or None, filename=job.filename)
    base = _lru_get(_BASES, base_key, base_program)
    steps = list(Trace.from_json(job.trace).steps)
    # the steps up to the scheduler's (expand_scalars, transpose_arrays, auto_schedule) are shared by most jobs
    scheduled = next((k + 1 for k, step in enumerate(steps) if step["op"] == "auto_schedule"), 0)
    if scheduled:
        prefix = _lru_get(_PREFIXES, (base_key, json.dumps(steps[:scheduled], sort_keys=True)),
                          lambda: base.replay(steps[:scheduled]))
        return prefix.replay(steps[scheduled:])
    return base.replay(steps)


@functools.lru_cache(maxsize=None)
def _compiler_version(cc: str) -> str | None:
    from polysched.bench import compiler_version
    return compiler_version(cc)


def _fake_timer(spec: str):
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


# --------------------------------------------------------------------------- prepare / time

def prepare(job: Job) -> Result:
    """Replay, write, verify, compile. ``status`` "ok" with ``binary`` set, or why not."""
    from polysched.bench import compile_c, dataset_define, verify
    from polysched.bench.harness import timed_proc_bind
    from polysched.errors import PolyschedError
    from polysched.pipeline import CODEGEN_BUDGET
    from polysched.schedule.isolated import IsolatedTimeout, run_isolated

    start = time.perf_counter()
    result = Result(job.index, "ok", compiler=job.cc, compiler_version=_compiler_version(job.cc),
                    dataset=job.dataset, threads=job.threads, worker=f"{os.uname().nodename}:{os.getpid()}")

    def done(status: str, reason: str = "") -> Result:
        result.status, result.reason = status, " ".join(str(reason).split())[:500]
        result.seconds = time.perf_counter() - start
        return result

    try:
        program = program_of(job)
    except PolyschedError as err:          # TransformError, ScheduleError, TilingError...
        return done("illegal", f"{type(err).__name__}: {err}")
    try:
        # in a child killed past the pipeline's code generation budget, as optimize does:
        # isl's AST generation and its validation cannot be interrupted, and one fdtd-2d
        # candidate (250x8x32 tiles, unroll-and-jam 4, unroll 8) took 44 s
        text = run_isolated(program.c_code, CODEGEN_BUDGET)
    except IsolatedTimeout:
        return done("timeout", f"code generation ran past {CODEGEN_BUDGET:g} s")
    except Exception as err:  # noqa: BLE001 -- a code generator failure is a result
        return done("error", f"code generation failed: {type(err).__name__}: {err}")
    result.source_hash = hashlib.sha256(text.encode(errors="surrogateescape")).hexdigest()[:24]

    owned = None
    if job.workdir is None:
        owned = tempfile.mkdtemp(prefix="polysched-tune-")
        root = Path(owned)
    else:
        root = Path(job.workdir)
    folder = root / f"c{job.index:05d}-{result.source_hash[:10]}"
    (folder / "orig").mkdir(parents=True, exist_ok=True)
    original = folder / "orig" / job.filename
    original.write_text(job.source, errors="surrogateescape")
    candidate = folder / job.filename
    candidate.write_text(text, errors="surrogateescape")
    includes = [str(d) for d in job.include_dirs]
    if "polysched_intrinsics.h" in text:
        from polysched.tensorize import INCLUDE_DIR
        includes.append(str(INCLUDE_DIR))
    openmp = "#pragma omp" in text

    # 1. the same results as the original, at the verification size
    if job.verify_dataset is not None:
        verdict = verify(original, candidate, cc=job.cc, cflags=list(job.cflags), defines=job.defines,
                         dataset=job.verify_dataset, include_dirs=includes, timeout=max(30.0, job.timeout),
                         compile_timeout=job.compile_timeout, workdir=folder / "verify")
        result.verify = f"{verdict.status}: {verdict.reason}"
        if verdict.status == "differ":
            return done("wrong", f"output differs at {job.verify_dataset}: {verdict.reason}")
        if verdict.status == "error":
            transformed_compile = verdict.transformed_compile
            if verdict.original_compile is not None and not verdict.original_compile.ok:
                return done("error", f"the original does not compile: {verdict.reason}")
            if transformed_compile is not None and not transformed_compile.ok:
                return done("compile_error", verdict.reason)
            run = verdict.transformed_run
            if run is not None and run.timed_out:
                return done("timeout", f"verification: {verdict.reason}")
            if run is not None and not run.ok:
                return done("wrong", f"verification: {verdict.reason}")
            return done("error", f"verification: {verdict.reason}")

    # 2. the binary to time
    defines = {**dict(job.defines), **dataset_define(job.dataset)}
    binary = folder / "timed.exe"
    built = compile_c(candidate, binary, cc=job.cc, cflags=list(job.cflags), defines=defines,
                      include_dirs=[*includes, str(original.parent)], openmp=openmp,
                      timeout=job.compile_timeout, file_name=original)
    result.command = built.command_line
    result.flags = {"cflags": list(job.cflags), "defines": defines, "openmp": openmp,
                    "omp_proc_bind": timed_proc_bind(),
                    "verify_dataset": job.verify_dataset, "verify_fp_contract_off": True}
    if not built.ok:
        return done("compile_error", built.reason)
    result.binary = str(binary)
    done("ok")
    if owned is not None:
        result.flags["workdir"] = owned
    return result


def time_prepared(result: Result, job: Job) -> Result:
    """Run the prepared binary ``job.repeat`` times (or ask the fake timer); the median."""
    from polysched.bench import run_binary
    if not result.ok:
        return result
    start = time.perf_counter()
    if job.timer:
        from polysched.program import Trace
        value = float(_fake_timer(job.timer)(list(Trace.from_json(job.trace).steps), job.config))
        result.samples = [value] * max(1, job.repeat)
    else:
        samples = []
        for k in range(max(1, job.repeat)):
            run = run_binary(result.binary, timeout=job.timeout, threads=job.threads, timed=True)
            if not run.ok:
                result.status = "timeout" if run.timed_out else "wrong"
                result.reason = f"timed run {k + 1} at {job.dataset}: {run.reason}"
                break
            if k == 0:
                result.checksum = run.checksum
                reason = _checksum_differs(job, run.checksum)
                if reason:
                    result.status, result.reason = "wrong", reason
                    break
            samples.append(run.kernel_seconds if run.kernel_seconds is not None else run.seconds)
        result.samples = samples
    if result.ok and result.samples:
        result.median = statistics.median(result.samples)
    result.seconds += time.perf_counter() - start
    return result


def _checksum_differs(job: Job, checksum: str | None) -> str:
    """Why the timed run's checksum is not the original's at the timed size ("" if it is,
    or if either program prints none). The tolerance is bench's (its ``checksum_agrees``):
    the timed binaries are built with the user's flags, FMA contraction included."""
    from polysched.bench import DEFAULT_RTOL, compare_outputs
    if checksum is None or job.reference_checksum is None:
        return ""
    if compare_outputs(job.reference_checksum, checksum, rtol=max(DEFAULT_RTOL, 1e-6)).equal:
        return ""
    return (f"its checksum at {job.dataset} ({checksum}) differs from the original's "
            f"({job.reference_checksum}), though it verified at {job.verify_dataset}")


def original_checksum(job: Job) -> tuple[str | None, str, bool]:
    """Build the original as the candidates' timed binaries are built (``job.cflags``,
    ``job.dataset``), run it once, and return its ``polysched-checksum:`` (None when
    it prints none), why it cannot be had ("" when it can), and whether the original
    is broken (does not compile, crashes or exits non-zero; a timeout is not).
    One run per campaign: each candidate's first timed run is compared with it
    (:attr:`Job.reference_checksum`)."""
    from polysched.bench import compile_c, dataset_define, run_binary
    with tempfile.TemporaryDirectory(prefix="polysched-tune-orig-") as folder:
        original = Path(folder) / job.filename
        original.write_text(job.source, errors="surrogateescape")
        binary = Path(folder) / "orig.exe"
        built = compile_c(original, binary, cc=job.cc, cflags=list(job.cflags),
                          defines={**dict(job.defines), **dataset_define(job.dataset)},
                          include_dirs=[str(d) for d in job.include_dirs],
                          openmp="#pragma omp" in job.source, timeout=job.compile_timeout)
        if not built.ok:
            return None, f"the original does not compile: {built.reason}", True
        run = run_binary(binary, timeout=job.timeout, threads=job.threads, timed=True)
        if not run.ok:
            return None, f"the original at {job.dataset}: {run.reason}", not run.timed_out
        return run.checksum, "", False


def cleanup(result: Result) -> None:
    """Remove a worker-owned temporary directory."""
    import shutil
    owned = (result.flags or {}).pop("workdir", None)
    if owned:
        shutil.rmtree(owned, ignore_errors=True)


def _allow_children() -> None:
    """Dask's worker processes are daemonic, and a daemonic process may not start
    children; the scheduler (``polysched.schedule.isolated``) runs isl in a child it
    waits for, so the flag is lifted (the children never outlive the call)."""
    import multiprocessing
    process = multiprocessing.current_process()
    if process.daemon:
        process._config["daemon"] = False      # noqa: SLF001 -- no public way to do this


def measure(job: Job) -> Result:
    """prepare + time in one call (one program at a time on the calling worker)."""
    _allow_children()
    result = prepare(job)
    try:
        return time_prepared(result, job)
    finally:
        cleanup(result)
        result.binary = None


__all__ = ["Job", "Result", "cleanup", "measure", "original_checksum", "prepare", "program_of",
           "time_prepared"]
