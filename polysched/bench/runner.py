"""Run a benchmark campaign: every kernel under every variant, verified then timed.

A *variant* is a way of building a kernel: a C file (the kernel's own, or one made
from it, e.g. by ``polysched optimize``) plus compiler, flags and OpenMP. For each
(kernel, variant):

1. ``make_source(kernel, workdir)`` writes the C file to build (``orig``: the kernel
   file unchanged); it returns the file's path, or ``(path, build_info)`` where
   ``build_info`` (JSON-able: tile sizes, schedule, options...) is recorded;
2. it is verified against the kernel's own file at ``verify_dataset`` (both built with
   the variant's flags + -DPOLYSCHED_DUMP, outputs compared); a mismatch is status
   ``FAILED`` and the variant is not timed;
3. it is compiled at ``dataset`` and run ``repeat`` times with ``threads`` threads; the
   figure is the median of the program's own ``polysched-time`` (kernel only).

Nothing here is fatal: a variant that cannot be generated, compiled, run or verified
gets a status and a reason in the results, and the campaign goes on.

Results are one JSON-able dict::

    {"schema": "polysched-bench/1", "machine": machine_info(), "machine_fp": ...,
     "config": {...}, "variants": [{"name", "cc", "cflags", "openmp", "defines"}],
     "kernels": {name: {"path", "flops"}},
     "results": [{"kernel", "variant", "status", "reason", "verify", "times",
                  "median_seconds", "compile_command", "flags", "openmp", "dataset",
                  "threads", "source_sha256", "build", "loadavg", "date", "warnings", ...}],
     "warnings": [...], "started", "finished"}

**The log.** With ``log=PATH`` every measurement is appended to a JSON Lines file as
it is taken, one ``write`` + ``fsync`` per line: a ``start`` line (provenance and
configuration), a ``sample`` line per timed run, a ``record`` line per finished
(kernel, variant). ``kill -9`` at any moment loses at most the run in flight; a torn
last line is ignored. ``resume=True`` continues such a log: finished records are kept
as they are, and a (kernel, variant) cut short keeps the samples it had (when its
source and flags are the same again) and only takes the runs it lacks.
:func:`load_results` reads a log as a results dict (a record cut short shows as
``INCOMPLETE``). JSON Lines rather than the tuning database: a bench record is not a
trace of primitives (``orig``, Polly), and rows without a replayable trace in the
tuning store's ``measurements`` table would be offered to ``optimize --from-db``; a
text log is also readable and mergeable without polysched. The provenance it carries
is the tuning store's: the same machine fingerprint (``polysched.tune.db``), git
commit, date and load average.
"""
from __future__ import annotations

import datetime
import hashlib
import inspect
import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from polysched.errors import ArgumentError
from polysched.tiling.cache import usable_cores

from .compare import DEFAULT_ATOL, DEFAULT_RTOL, compare_outputs
from .harness import (DEFAULT_CC, DEFAULT_CFLAGS, compile_c, dataset_define, portable_cflags,
                      run_binary, scratch_directory, timed_proc_bind, untested_datasets, uses_openmp, verify)
from .machine import load_average, machine_info

SCHEMA = "polysched-bench/1"
LOG_SCHEMA = "polysched-bench-log/1"
ORIG = "orig"

# Status of one (kernel, variant) in the results.
OK = "OK"
FAILED = "FAILED"                # verification found different output
ERROR = "ERROR"                  # could not generate the source or could not verify
COMPILE_ERROR = "COMPILE_ERROR"
RUN_ERROR = "RUN_ERROR"          # crash or non-zero exit at the timed dataset
TIMEOUT = "TIMEOUT"
INCOMPLETE = "INCOMPLETE"        # only in a log read back: the run was cut short
STATUSES = (OK, FAILED, ERROR, COMPILE_ERROR, RUN_ERROR, TIMEOUT, INCOMPLETE)

# A median below this is mostly timer and start-up noise.
SHORT_MEDIAN_SECONDS = 1e-3


def short_median_warning(subject: str, median: float, command: str) -> str:
    """The warning, bench's and tune's, for a median under SHORT_MEDIAN_SECONDS:
    ``gemm/orig: median 0.4 ms is under 1 ms: ... (time at a larger --dataset)``."""
    return (f"{subject}: median {median * 1e3:.3g} ms is under 1 ms: timer and start-up noise dominate "
            f"({command} at a larger --dataset)")


@dataclass
class Variant:
    """How to build a kernel. ``make_source(kernel, workdir) -> Path`` (or ``(Path,
    build_info)``) returns the C file to compile (written inside ``workdir``); None
    means the kernel file unchanged. One that takes a ``threads`` keyword is told the
    threads the runs will have (polysched's variants make their code for them). ``openmp`` forces -fopenmp (it is also added when
    the file has ``#pragma omp``). ``threads``: OMP_NUM_THREADS for this variant
    (None: the campaign's)."""

    name: str
    make_source: Callable[[Any, Path], Any] | None = None
    cc: str = DEFAULT_CC
    cflags: Sequence[str] = DEFAULT_CFLAGS
    openmp: bool = False
    defines: Mapping[str, str | None] = field(default_factory=dict)
    threads: int | None = None

    def describe(self) -> dict:
        described = {"name": self.name, "cc": self.cc, "cflags": list(self.cflags),
                     "openmp": self.openmp, "defines": dict(self.defines),
                     "source": "kernel file" if self.make_source is None
                     else getattr(self.make_source, "__name__", repr(self.make_source))}
        if self.threads is not None:
            described["threads"] = self.threads
        return described


def orig_variant(cc: str = DEFAULT_CC, cflags: Sequence[str] = DEFAULT_CFLAGS,
                 openmp: bool = False) -> Variant:
    """The reference: the kernel file unchanged."""
    return Variant(ORIG, None, cc, tuple(cflags), openmp)


# --------------------------------------------------------------------------- C files as kernels

_SCOP_PRAGMA = re.compile(r"^\s*#\s*pragma\s+scop\b", re.MULTILINE)


@dataclass(frozen=True)
class FileKernel:
    """A C file benchmarked as it is: its own ``orig``, a ``#pragma scop`` region for
    the optimizing variants. No flop count (the report shows ``-`` for GFLOP/s)."""

    name: str
    path: Path
    defines: Mapping[str, str | None] = field(default_factory=dict)

    def flops(self, dataset: str | None) -> float | None:
        return None


def kernel_of(name: str | os.PathLike):
    """A suite kernel by name, or a C file by path (:func:`file_kernel`), as the command
    line reads them: a directory that bears a kernel's name ("lu" in the current
    directory) does not hide the suite kernel. KeyError for an unknown name."""
    from .suite import get, kernels
    text = os.fspath(name)
    known = [kernel.name for kernel in kernels()]
    if isinstance(name, os.PathLike) or text.endswith(".c") or Path(text).is_file() or "/" in text \
            or (Path(text).exists() and text not in known):
        return file_kernel(text)
    if text in known:
        return get(text)
    raise KeyError(text)


def file_kernel(path: Path | str, name: str | None = None) -> FileKernel:
    """A :class:`FileKernel` for ``path``; ValueError (one line) when it is not a
    readable C file with a ``#pragma scop`` region."""
    path = Path(path)
    if not path.exists():
        raise ArgumentError(f"{path}: no such file")
    if not path.is_file():
        raise ArgumentError(f"{path}: not a regular file")
    try:
        text = path.read_text(errors="replace")
    except OSError as err:
        raise ArgumentError(f"{path}: cannot read: {err.strerror or err}") from None
    if not _SCOP_PRAGMA.search(text):
        raise ArgumentError(f"{path}: no '#pragma scop' region to optimize")
    return FileKernel(name or path.stem, path.resolve())


# --------------------------------------------------------------------------- helpers

def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _kernel_flops(kernel, dataset: str | None) -> float | None:
    flops = getattr(kernel, "flops", None)
    if not callable(flops) or dataset is None:
        return None
    try:
        value = flops(dataset)
    except Exception:  # a suite bug must not sink the campaign; the report shows "-"
        return None
    return float(value) if value else None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _sha256_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _safe(name: str) -> str:
    """A variant name as a file name (``pluto-tile:sizes=32,32`` -> ``pluto-tile_sizes_32_32``)."""
    return re.sub(r"[^\w.+-]+", "_", name)


def _normalize(dataset: str | None, what: str) -> str | None:
    if dataset is None:
        return None
    from .suite import normalize_dataset
    try:
        return normalize_dataset(dataset)
    except ValueError as err:
        raise ArgumentError(f"{what}: {err}") from None


def _new_record(kernel, variant: Variant) -> dict:
    return {"kernel": kernel.name, "variant": variant.name, "status": OK, "reason": "",
            "verify": None, "verify_message": None, "times": [], "wall_times": [],
            "median_seconds": None, "min_seconds": None, "checksum": None,
            "compile_seconds": None, "compile_command": None, "flags": None, "openmp": None,
            "dataset": None, "threads": None, "source": None, "source_sha256": None,
            "build": None, "build_key": None, "loadavg": None, "date": None, "warnings": []}


def _build_key(record: dict, cc: str, defines: Mapping) -> str:
    """What makes two binaries the same program: source, compiler, flags, defines."""
    data = {"source": record["source_sha256"], "cc": cc, "flags": record["flags"],
            "defines": {str(k): v for k, v in defines.items()}}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def _prepare(kernel, variant: Variant, workdir: Path, *, dataset: str | None,
             threads: int | None, verify_dataset: str | None, timeout: float,
             compile_timeout: float, rtol: float, atol: float,
             progress: "_Progress | None" = None,
             reference: Variant | None = None) -> tuple[dict, Path | None]:
    """Generate, verify and compile one (kernel, variant) for timing: the result
    record, and the binary to time (None when a step failed; the record says why).
    A variant of the kernel file itself under another compiler or flags (Polly) is
    verified against ``reference`` (orig) building the same file."""
    kernel_path = Path(kernel.path)
    record = _new_record(kernel, variant)
    record["dataset"], record["threads"] = dataset, threads
    workdir.mkdir(parents=True, exist_ok=True)
    say = progress.describe if progress is not None else (lambda text: None)
    if variant.make_source is None:
        source = kernel_path
    else:
        say(f"{kernel.name}/{variant.name}: generating")
        try:
            told = {"threads": threads} if "threads" in inspect.signature(variant.make_source).parameters else {}
            made = variant.make_source(kernel, workdir, **told)
            if isinstance(made, tuple):
                made, record["build"] = made
            source = Path(made)
        except Exception as err:  # noqa: BLE001 -- any failure of a generator is a result
            record.update(status=ERROR, reason=f"making the source failed: {type(err).__name__}: {err}")
            return record, None
        if not source.is_file():
            record.update(status=ERROR, reason=f"make_source returned {source}, which is not a file")
            return record, None
    record["source"] = str(source)
    record["source_sha256"] = _sha256_file(source)
    openmp = variant.openmp or uses_openmp(source)
    defines = {**dict(getattr(kernel, "defines", None) or {}), **dict(variant.defines)}
    include_dirs = [str(kernel_path.resolve().parent)]
    record["openmp"] = openmp
    record["flags"] = [*portable_cflags(variant.cc, list(variant.cflags)), *(["-fopenmp"] if openmp else [])]

    # 1. verification against the kernel's own file, same flags (not for the reference;
    # the file itself under another compiler against the reference's build of it)
    peer = variant.make_source is None and reference is not None and variant.name != reference.name
    if (variant.make_source is not None or peer) and verify_dataset is not None:
        say(f"{kernel.name}/{variant.name}: verifying at {verify_dataset}")
        compilers = dict(cc=reference.cc, cflags=reference.cflags, transformed_cc=variant.cc,
                         transformed_cflags=variant.cflags) if peer else dict(cc=variant.cc, cflags=variant.cflags)
        verdict = verify(kernel_path, source, **compilers,
                         defines={**defines, **dataset_define(verify_dataset)},
                         include_dirs=include_dirs, openmp=openmp, timeout=timeout,
                         compile_timeout=compile_timeout, threads=threads,
                         workdir=workdir / "verify", rtol=rtol, atol=atol)
        record["verify"] = verdict.status
        record["verify_message"] = verdict.reason
        if verdict.status == "differ":
            record.update(status=FAILED, reason=f"output differs at {verify_dataset}: {verdict.reason}")
            return record, None
        if verdict.status == "error":
            record.update(status=ERROR, reason=f"verification at {verify_dataset}: {verdict.reason}")
            return record, None

    # 2. the binary to time, at the measured dataset.
    say(f"{kernel.name}/{variant.name}: compiling")
    binary = workdir / f"{kernel.name}.{_safe(variant.name)}.exe"
    timed_defines = {**defines, **dataset_define(dataset)}
    build = compile_c(source, binary, cc=variant.cc, cflags=variant.cflags,
                      defines=timed_defines, include_dirs=include_dirs,
                      openmp=openmp, timeout=compile_timeout, file_name=kernel_path)
    record["compile_seconds"] = round(build.seconds, 4)
    record["compile_command"] = build.command_line
    record["build_key"] = _build_key(record, variant.cc, timed_defines)
    if not build.ok:
        record.update(status=COMPILE_ERROR, reason=build.reason)
        return record, None
    return record, binary


def _time_once(record: dict, binary: Path, *, threads: int | None, timeout: float) -> dict | None:
    """One timed run, appended to the record; a failure sets the status (no more runs).
    Returns the sample (``time``, ``wall``, ``checksum``, ``time_source``) or None."""
    run = run_binary(binary, timeout=timeout, threads=threads, timed=True)
    record["omp_proc_bind"] = timed_proc_bind()
    if not run.ok:
        record.update(status=TIMEOUT if run.timed_out else RUN_ERROR,
                      reason=f"run {len(record['wall_times']) + 1}: {run.reason}")
        return None
    # Kernel-only time when the program reports it; otherwise the process wall time.
    sample = {"time": run.kernel_seconds if run.kernel_seconds is not None else run.seconds,
              "wall": run.seconds, "checksum": run.checksum,
              "time_source": "kernel" if run.kernel_seconds is not None else "wall"}
    _add_sample(record, sample)
    return sample


def _add_sample(record: dict, sample: dict) -> None:
    record["wall_times"].append(sample["wall"])
    record["times"].append(sample["time"])
    record["time_source"] = sample["time_source"]
    record["checksum"] = sample["checksum"]


# --------------------------------------------------------------------------- progress

class _Progress:
    """A tqdm bar over every step (one per preparation, one per timed run) whose
    description names the kernel, variant and what is being done, and one line per
    finished (kernel, variant) above it. Off: nothing is printed."""

    def __init__(self, total: int, enabled: bool):
        self.enabled = enabled
        self.bar = None
        if not enabled or not sys.stderr.isatty():
            return          # (a log file: the finished lines alone, no bar redrawn in it; helper-92)
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover -- tqdm is a dependency; plain lines then
            return
        self.bar = tqdm(total=total, file=sys.stderr, unit="step", dynamic_ncols=True,
                        bar_format="{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                                   "[{elapsed}<{remaining}]", leave=False)

    def describe(self, text: str) -> None:
        if self.bar is not None:
            self.bar.set_description_str(text, refresh=True)

    def grow(self, n: int) -> None:
        if self.bar is not None and n:
            self.bar.total += n
            self.bar.refresh()

    def step(self, n: int = 1) -> None:
        if self.bar is not None and n:
            self.bar.update(n)

    def write(self, line: str) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _progress(line: str, enabled: bool) -> None:
    if enabled:
        print(line, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- the log

def read_log(path: Path | str) -> tuple[list[dict], int]:
    """The entries of a JSON Lines log, and the byte length of its whole lines (a
    torn or unreadable last line, as a kill during a write leaves, is not counted).
    ValueError when a line before the last is not JSON or the first is not a start."""
    data = Path(path).read_bytes()
    entries: list[dict] = []
    position = 0
    while position < len(data):
        newline = data.find(b"\n", position)
        if newline < 0:
            break                                     # torn last line
        line = data[position:newline].strip()
        if line:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as err:
                if data[newline + 1:].strip():
                    number = data.count(b"\n", 0, position) + 1
                    raise ArgumentError(f"{path}: line {number} is not JSON ({err})") from None
                break                                 # a torn last line ending in a newline
            if not isinstance(entry, dict) or (not entries and entry.get("type") != "start"):
                raise ArgumentError(f"{path}: not a polysched bench log (schema {LOG_SCHEMA!r} expected)")
            entries.append(entry)
        position = newline + 1
    if entries and entries[0].get("schema") != LOG_SCHEMA:
        raise ArgumentError(f"{path}: not a polysched bench log (schema {LOG_SCHEMA!r} expected)")
    return entries, position


class ResultsLog:
    """Append-only JSON Lines file: each :meth:`append` is one ``write`` of a whole
    line followed by ``fsync``."""

    def __init__(self, path: Path | str, *, truncate_to: int | None = None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        if truncate_to is not None:
            os.ftruncate(self.fd, truncate_to)

    def append(self, entry: dict) -> None:
        data = (json.dumps(entry, sort_keys=False) + "\n").encode()
        written = os.write(self.fd, data)
        while written < len(data):                     # a short write: finish the line
            written += os.write(self.fd, data[written:])
        os.fsync(self.fd)

    lock: int = -1          # the descriptor holding `_lock_log`'s lock, if any

    def close(self) -> None:
        for fd in (self.fd, self.lock):
            if fd >= 0:
                os.close(fd)
        self.fd = self.lock = -1


def _lock_log(path: Path) -> int:
    """An exclusive lock on the log ``path`` (created empty when missing) for this run:
    two runs on one log measured everything twice, interleaving their lines. ValueError
    when another run holds it."""
    import fcntl
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise ArgumentError(f"{path}: another polysched bench run is writing this log") from None
    return fd


def results_from_log(entries: list[dict]) -> dict:
    """A results dict (as :func:`run_benchmarks` returns) from the entries of a log:
    the records in the order they finished; a (kernel, variant) with samples but no
    record is ``INCOMPLETE`` (its samples are kept, no median)."""
    if not entries:
        raise ArgumentError("empty log")
    first = entries[0]
    results: dict = {"schema": SCHEMA, "machine": first.get("machine", {}),
                     "machine_fp": first.get("machine_fp"), "config": first.get("config", {}),
                     "variants": [], "kernels": {}, "results": [], "warnings": [],
                     "started": first.get("started"), "finished": None, "resumed": 0}
    variants: dict[str, dict] = {}
    records: dict[tuple[str, str], dict] = {}
    partial: dict[tuple[str, str], dict] = {}
    for entry in entries:
        kind = entry.get("type")
        if kind == "start":
            for described in entry.get("variants", []):
                variants.setdefault(described["name"], described)
            results["kernels"].update(entry.get("kernels", {}))
            results["warnings"].extend(entry.get("warnings", []))
            if entry is not first:
                results["resumed"] += 1
            results["finished"] = None
        elif kind == "sample":
            key = (entry["kernel"], entry["variant"])
            record = partial.get(key)
            if record is None or record["build_key"] != entry.get("build_key"):
                record = {"kernel": key[0], "variant": key[1], "status": INCOMPLETE,
                          "reason": "", "times": [], "wall_times": [], "median_seconds": None,
                          "min_seconds": None, "checksum": None, "build_key": entry.get("build_key"),
                          "warnings": []}
                partial[key] = record
            _add_sample(record, entry)
        elif kind == "record":
            record = entry["record"]
            key = (record["kernel"], record["variant"])
            records.pop(key, None)
            records[key] = record
            partial.pop(key, None)
            results["warnings"].extend(record.get("warnings") or [])
        elif kind == "end":
            results["finished"] = entry.get("finished")
    repeat = results["config"].get("repeat")
    for key, record in partial.items():
        if key not in records:
            record["reason"] = f"cut short after {len(record['times'])} of {repeat} runs (--resume continues)"
            records[key] = record
    results["variants"] = list(variants.values())
    results["results"] = list(records.values())
    return results


def _kernel_files(kernels) -> dict[str, list]:
    """``{kernel name: [its file's resolved path, the SHA-256 of its text]}``."""
    return {kernel.name: [str(Path(kernel.path).resolve()), _sha256_file(Path(kernel.path))]
            for kernel in kernels}


def _resume_state(entries: list[dict], config: dict, machine_fp: str, variants: list[Variant],
                  path: Path, kernel_files: dict[str, list] | None = None) -> tuple[dict, dict]:
    """The finished records and the samples of unfinished ones in a log to resume;
    ValueError when the log was taken with other settings, on another machine, or
    with a variant of the same name built differently. What the log holds of a kernel
    whose file is another one now (another path, or edited since) is left out: it is
    measured again."""
    first = entries[0]
    if first.get("type") != "start" or not isinstance(first.get("config"), dict):
        raise ArgumentError(f"cannot resume {path}: its first line is not the start of a polysched bench run")
    for key in ("dataset", "verify_dataset", "threads", "repeat", "rtol", "atol"):
        if first["config"].get(key) != config.get(key):
            raise ArgumentError(f"cannot resume {path}: it was run with {key} {first['config'].get(key)!r}, "
                             f"not {config.get(key)!r}")
    if first.get("machine_fp") != machine_fp:
        raise ArgumentError(f"cannot resume {path}: it was measured on another machine or compiler "
                         f"(fingerprint {first.get('machine_fp')}, this one {machine_fp})")
    logged: dict[str, dict] = {}
    for entry in entries:
        if entry.get("type") == "start":
            for described in entry.get("variants", []):
                logged.setdefault(described["name"], described)
    for variant in variants:
        before = logged.get(variant.name)
        if before is not None and before != variant.describe():
            raise ArgumentError(f"cannot resume {path}: variant {variant.name!r} was built differently "
                             f"({before} vs {variant.describe()})")
    files: dict[str, list] = {}
    for entry in entries:
        if entry.get("type") == "start":
            for name, described in (entry.get("kernels") or {}).items():
                files[name] = described.get("file") if isinstance(described, dict) else None
    changed = {name for name, now in (kernel_files or {}).items() if files.get(name) != now}
    done: dict[tuple[str, str], dict] = {}
    samples: dict[tuple[str, str], list[dict]] = {}
    for entry in entries:
        kernel = entry.get("record", {}).get("kernel") if entry.get("type") == "record" else entry.get("kernel")
        if kernel in changed:
            continue
        if entry.get("type") == "record":
            record = entry["record"]
            done[(record["kernel"], record["variant"])] = record
        elif entry.get("type") == "sample":
            key = (entry["kernel"], entry["variant"])
            group = samples.setdefault(key, [])
            if group and group[-1].get("build_key") != entry.get("build_key"):
                group.clear()                          # another build: its samples do not count
            group.append(entry)
    return done, samples


# --------------------------------------------------------------------------- the campaign

def _warn(results: dict, progress: _Progress, message: str, record: dict | None = None) -> None:
    results["warnings"].append(message)
    if record is not None:
        record["warnings"].append(message)
    progress.write(f"warning: {message}")


def load_warning(cores: int) -> str | None:
    load = load_average()
    if load is not None and load[0] > cores:
        return (f"load average {load[0]:.2f} exceeds the {cores} usable core{'s' if cores != 1 else ''}: "
                "other programs compete for the CPU, timings are unreliable")
    return None


def run_benchmarks(kernels: Sequence, variants: Sequence[Variant], dataset: str | None = "LARGE",
                   threads: int | None = None, repeat: int = 5, verify_dataset: str | None = "MINI",
                   progress: bool = True, *, timeout: float = 600, compile_timeout: float = 300,
                   workdir: Path | str | None = None, rtol: float = DEFAULT_RTOL,
                   atol: float = DEFAULT_ATOL, log: Path | str | None = None,
                   resume: bool = False) -> dict:
    """Verify and time every kernel under every variant (see the module docstring).

    ``kernels``: suite kernels or :class:`FileKernel` (anything with ``name``, ``path``
    and optionally ``flops(dataset)`` and ``defines``). ``variants``: an ``orig``
    variant is added first when none is named ``orig`` (speedups are relative to it).
    ``dataset`` and ``verify_dataset`` are normalised (``"large"`` -> ``"LARGE"``);
    an unknown name is a ValueError. ``threads`` sets OMP_NUM_THREADS for every run
    (a variant's own ``threads`` wins); ``timeout`` bounds each run. Generated sources
    and binaries go to ``workdir`` (kept) or to a temporary directory (removed).
    The ``repeat`` runs of a kernel's variants are interleaved (orig, v1, v2, orig,
    v1, ...) so that a load change on a shared machine hits every variant alike.
    ``log``: the JSON Lines file every measurement is appended to as it is taken (it
    must not exist, unless ``resume``: then what it records is not measured again).
    Warns (stderr and ``results["warnings"]``) when the load average exceeds the usable
    cores or a median is under 1 ms. Returns the JSON-able results dict; a live
    progress bar and one line per finished (kernel, variant) on stderr.
    """
    if repeat < 1:
        raise ArgumentError("repeat must be at least 1")
    dataset = _normalize(dataset, "dataset")
    verify_dataset = _normalize(verify_dataset, "verify dataset")
    # names as the command line takes them (helper-46 F14: a bare AttributeError)
    from .variants import make_variants
    variants = [make_variants([variant])[-1] if isinstance(variant, str) else variant for variant in variants]
    names = [variant.name for variant in variants]
    if len(set(names)) != len(names):
        raise ArgumentError(f"variant names must be unique, got {names}")
    if ORIG not in names:
        variants.insert(0, orig_variant())
    else:  # the reference first: it is the one the others are compared with
        variants.sort(key=lambda variant: variant.name != ORIG)
    reference = variants[0]
    try:
        kernels = [kernel_of(kernel) if isinstance(kernel, (str, os.PathLike)) else kernel for kernel in kernels]
    except KeyError as err:
        raise ArgumentError(f"no suite kernel named {err.args[0]!r} (or give a C file)") from None
    kernel_names = [kernel.name for kernel in kernels]
    if len(set(kernel_names)) != len(kernel_names):
        raise ArgumentError(f"kernel names must be unique, got {kernel_names}")

    config = {"dataset": dataset, "verify_dataset": verify_dataset, "threads": threads,
              "repeat": repeat, "timeout": timeout, "rtol": rtol, "atol": atol}
    done: dict[tuple[str, str], dict] = {}
    prior: dict[tuple[str, str], list[dict]] = {}
    store: ResultsLog | None = None
    machine_fp = None
    kernel_files = _kernel_files(kernels)      # (each file read and hashed once)
    if workdir is not None:
        # before the log gets its start line: a run refused here leaves nothing behind
        try:
            Path(workdir).mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ArgumentError(f"--workdir {workdir}: cannot create it: {err.strerror or err}") from None
    if log is not None:
        from .machine import machine_fingerprint
        log = Path(log)
        machine_fp = machine_fingerprint(reference.cc)
        entries, valid_bytes = ([], 0)
        log_lock = _lock_log(log)           # held to the end of the run (closed with the log)
        try:
            if log.stat().st_size > 0:
                if not resume:
                    raise ArgumentError(f"{log}: a results log already exists (resume to continue it)")
                entries, valid_bytes = read_log(log)
            if entries:
                done, prior = _resume_state(entries, config, machine_fp, variants, log, kernel_files)
            store = ResultsLog(log, truncate_to=valid_bytes)
        except BaseException:
            os.close(log_lock)
            raise
        store.lock = log_lock

    started = _now()
    results: dict = {
        "schema": SCHEMA,
        "machine": machine_info(reference.cc),
        "machine_fp": machine_fp,
        "config": config,
        "variants": [variant.describe() for variant in variants],
        "kernels": {kernel.name: {"path": str(kernel.path), "flops": _kernel_flops(kernel, dataset),
                                  "file": kernel_files[kernel.name]}
                    for kernel in kernels},
        "results": [],
        "warnings": [],
        "started": started,
    }
    cores = usable_cores()
    steps_per = 1 + repeat
    total_steps = 0
    for kernel in kernels:
        for variant in variants:
            key = (kernel.name, variant.name)
            total_steps += 0 if key in done else steps_per - min(repeat, len(prior.get(key, [])))
    bar = _Progress(total_steps, progress)
    warning = load_warning(cores)
    if warning:
        _warn(results, bar, warning)
    for kernel in kernels:
        # in the results, not only on stderr: the report would show a dataset not used
        # (helper-46 F6)
        for untested in untested_datasets(kernel.path, {"dataset": dataset, "verify_dataset": verify_dataset}):
            _warn(results, bar, untested)
    if store is not None:
        store.append({"type": "start", "schema": LOG_SCHEMA, "machine": results["machine"],
                      "machine_fp": machine_fp, "config": config, "variants": results["variants"],
                      "kernels": results["kernels"], "started": started, "resume": bool(done or prior),
                      "warnings": list(results["warnings"])})

    owned_tmp = None
    if workdir is None:
        owned_tmp = scratch_directory("bench")
        root = Path(owned_tmp.name)
    else:
        root = Path(workdir)
    total = len(kernels) * len(variants)
    counter = [0]
    loaded = {"warned": warning is not None}

    def finish(record: dict, reference_record: dict | None) -> None:
        counter[0] += 1
        if store is not None:
            store.append({"type": "record", "record": record})
        bar.write(_progress_line(counter[0], total, record, reference_record))

    try:
        for kernel in kernels:
            begin = time.perf_counter()
            warning = load_warning(cores)
            if warning and not loaded["warned"]:
                _warn(results, bar, warning)
            loaded["warned"] = warning is not None
            prepared: list[tuple[dict, Path | None, int | None, bool]] = []
            for variant in variants:
                key = (kernel.name, variant.name)
                if key in done:                       # resumed: recorded, not measured again
                    counter[0] += 1
                    bar.write(f"[{counter[0]}/{total}] {kernel.name}/{variant.name}: "
                              f"{done[key]['status']} (recorded in the log)")
                    prepared.append((done[key], None, None, True))
                    continue
                run_threads = variant.threads if variant.threads is not None else threads
                record, binary = _prepare(kernel, variant, root / kernel.name / _safe(variant.name),
                                          dataset=dataset, threads=run_threads,
                                          verify_dataset=verify_dataset, timeout=timeout,
                                          compile_timeout=compile_timeout, rtol=rtol, atol=atol,
                                          progress=bar, reference=variants[0])
                if owned_tmp is not None and variant.make_source is not None:
                    record["source"] = None   # it is about to be deleted
                bar.step()
                if binary is None:
                    bar.step(repeat - min(repeat, len(prior.get(key, []))))
                    _stamp(record)
                    finish(record, None)
                else:
                    earlier = [s for s in prior.get(key, []) if s.get("build_key") == record["build_key"]]
                    for sample in earlier[:repeat]:
                        _add_sample(record, sample)
                    record["resumed_runs"] = len(record["times"]) or None
                    # logged samples of another build do not count: their runs are taken again
                    bar.grow(min(repeat, len(prior.get(key, []))) - min(repeat, len(earlier)))
                prepared.append((record, binary, run_threads, False))
            for run in range(repeat):
                for record, binary, run_threads, reused in prepared:
                    if reused or binary is None or record["status"] != OK or len(record["times"]) > run:
                        continue
                    bar.describe(f"{kernel.name}/{record['variant']}: run {run + 1}/{repeat}")
                    sample = _time_once(record, binary, threads=run_threads, timeout=timeout)
                    bar.step()
                    if sample is None:
                        bar.step(repeat - run - 1)
                    elif store is not None:
                        store.append({"type": "sample", "kernel": kernel.name, "variant": record["variant"],
                                      "run": run + 1, "build_key": record["build_key"], **sample,
                                      "date": _now()})
            reference_record = prepared[0][0]
            for record, binary, _, reused in prepared:
                if reused or binary is None:
                    continue
                record["median_seconds"] = _median(record["times"])
                record["min_seconds"] = min(record["times"]) if record["times"] else None
            for record, binary, _, reused in prepared:
                if reused or binary is None:
                    continue
                if record is not reference_record and record["checksum"] is not None \
                        and reference_record.get("checksum") is not None:
                    # A second, weaker check at the timed size: the programs' checksums.
                    record["checksum_agrees"] = compare_outputs(
                        reference_record["checksum"], record["checksum"],
                        rtol=max(rtol, 1e-6), atol=atol).equal
                    if not record["checksum_agrees"] and record["status"] == OK:
                        # right at the verification size, wrong at the timed one
                        record.update(status=FAILED, reason=f"its checksum at {dataset} differs from "
                                      f"{reference_record['variant']}'s: {record['checksum']} against "
                                      f"{reference_record['checksum']}")
                _stamp(record)
                median = record["median_seconds"]
                if record["status"] == OK and median is not None and median < SHORT_MEDIAN_SECONDS:
                    _warn(results, bar, short_median_warning(f"{kernel.name}/{record['variant']}", median, "time"),
                          record)
                finish(record, reference_record)
            for record, _, _, _ in prepared:
                results["results"].append(record)
            bar.write(f"    {kernel.name}: {time.perf_counter() - begin:.1f} s")
        results["finished"] = _now()
        if store is not None:
            store.append({"type": "end", "finished": results["finished"]})
    finally:
        bar.close()
        if owned_tmp is not None:
            owned_tmp.cleanup()
        if store is not None:
            store.close()
    if store is not None:
        merged = results_from_log(read_log(log)[0])
        merged["warnings"] = list(dict.fromkeys(merged["warnings"]))
        merged["machine"] = results["machine"]
        return merged
    return results


def _stamp(record: dict) -> None:
    record["date"] = _now()
    record["loadavg"] = load_average()


# --------------------------------------------------------------------------- files

def save_results(results: dict, path: Path | str) -> Path:
    """Write a results dict as indented JSON (creating parent directories)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, sort_keys=False) + "\n")
    return path


def load_results(path: Path | str) -> dict:
    """Read a results file written by :func:`save_results`, or the JSON Lines log of
    a run (finished or not, see :func:`results_from_log`); ValueError if it is neither."""
    path = Path(path)
    text = path.read_text(errors="replace")
    try:
        results = json.loads(text)
    except json.JSONDecodeError as err:
        first = text.lstrip().split("\n", 1)[0]
        try:
            head = json.loads(first)
        except json.JSONDecodeError:
            head = None
        if isinstance(head, dict) and head.get("type") == "start":
            return results_from_log(read_log(path)[0])
        raise ArgumentError(f"{path}: not a JSON results file ({err})") from None
    if isinstance(results, dict) and results.get("type") == "start":     # a log of one line
        return results_from_log(read_log(path)[0])
    if not isinstance(results, dict) or results.get("schema") != SCHEMA:
        raise ArgumentError(f"{path}: not a polysched results file (schema {SCHEMA!r} expected)")
    return results


def _progress_line(step: int, total: int, record: dict, reference: dict | None) -> str:
    head = f"[{step}/{total}] {record['kernel']}/{record['variant']}: {record['status']}"
    if record["status"] != OK:
        return f"{head}: {record['reason']}"
    median = record["median_seconds"]
    speedup = ""
    if (reference is not None and reference is not record and reference["status"] == OK
            and reference["median_seconds"] and median):
        speedup = f", {reference['median_seconds'] / median:.2f}x vs {ORIG}"
    verified = ", verified" if record["verify"] == "equal" else ""
    resumed = f" ({record['resumed_runs']} from the log)" if record.get("resumed_runs") else ""
    return f"{head}: median {median:.4g} s over {len(record['times'])} runs{resumed}{speedup}{verified}"
