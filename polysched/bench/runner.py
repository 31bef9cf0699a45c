"""Run a benchmark campaign: every kernel under every variant, verified then timed.

A *variant* is a way of building a kernel: a C file (the kernel's own, or one made
from it, e.g. by ``polysched optimize``) plus compiler, flags and OpenMP. For each
(kernel, variant):

1. ``make_source(kernel, workdir)`` writes the C file to build (``orig``: the kernel
   file unchanged);
2. it is verified against the kernel's own file at ``verify_dataset`` (both built with
   the variant's flags + -DPOLYSCHED_DUMP, outputs compared); a mismatch is status
   ``FAILED`` and the variant is not timed;
3. it is compiled at ``dataset`` and run ``repeat`` times with ``threads`` threads; the
   figure is the median of the program's own ``polysched-time`` (kernel only).

Nothing here is fatal: a variant that cannot be generated, compiled, run or verified
gets a status and a reason in the results, and the campaign goes on.

Results are one JSON-able dict::

    {"schema": "polysched-bench/1", "machine": machine_info(), "config": {...},
     "variants": [{"name", "cc", "cflags", "openmp", "defines"}],
     "kernels": {name: {"path", "flops"}},
     "results": [{"kernel", "variant", "status", "reason", "verify", "times",
                  "median_seconds", ...}],
     "started", "finished"}
"""
from __future__ import annotations

import datetime
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .compare import DEFAULT_ATOL, DEFAULT_RTOL, compare_outputs
from .harness import (DEFAULT_CC, DEFAULT_CFLAGS, compile_c, dataset_define, run_binary,
                      uses_openmp, verify)
from .machine import machine_info

SCHEMA = "polysched-bench/1"
ORIG = "orig"

# Status of one (kernel, variant) in the results.
OK = "OK"
FAILED = "FAILED"                # verification found different output
ERROR = "ERROR"                  # could not generate the source or could not verify
COMPILE_ERROR = "COMPILE_ERROR"
RUN_ERROR = "RUN_ERROR"          # crash or non-zero exit at the timed dataset
TIMEOUT = "TIMEOUT"
STATUSES = (OK, FAILED, ERROR, COMPILE_ERROR, RUN_ERROR, TIMEOUT)


@dataclass
class Variant:
    """How to build a kernel. ``make_source(kernel, workdir) -> Path`` returns the C file
    to compile (written inside ``workdir``); None means the kernel file unchanged.
    ``openmp`` forces -fopenmp (it is also added when the file has ``#pragma omp``)."""

    name: str
    make_source: Callable[[Any, Path], Path] | None = None
    cc: str = DEFAULT_CC
    cflags: Sequence[str] = DEFAULT_CFLAGS
    openmp: bool = False
    defines: Mapping[str, str | None] = field(default_factory=dict)

    def describe(self) -> dict:
        return {"name": self.name, "cc": self.cc, "cflags": list(self.cflags),
                "openmp": self.openmp, "defines": dict(self.defines),
                "source": "kernel file" if self.make_source is None
                else getattr(self.make_source, "__name__", repr(self.make_source))}


def orig_variant(cc: str = DEFAULT_CC, cflags: Sequence[str] = DEFAULT_CFLAGS,
                 openmp: bool = False) -> Variant:
    """The reference: the kernel file unchanged."""
    return Variant(ORIG, None, cc, tuple(cflags), openmp)


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


def _progress(line: str, enabled: bool) -> None:
    if enabled:
        print(line, file=sys.stderr, flush=True)


def _new_record(kernel, variant: Variant) -> dict:
    return {"kernel": kernel.name, "variant": variant.name, "status": OK, "reason": "",
            "verify": None, "verify_message": None, "times": [], "wall_times": [],
            "median_seconds": None, "min_seconds": None, "checksum": None,
            "compile_seconds": None, "compile_command": None, "source": None}


def _prepare(kernel, variant: Variant, workdir: Path, *, dataset: str | None,
             threads: int | None, verify_dataset: str | None, timeout: float,
             compile_timeout: float, rtol: float, atol: float) -> tuple[dict, Path | None]:
    """Generate, verify and compile one (kernel, variant) for timing: the result
    record, and the binary to time (None when a step failed; the record says why)."""
    kernel_path = Path(kernel.path)
    record = _new_record(kernel, variant)
    workdir.mkdir(parents=True, exist_ok=True)
    if variant.make_source is None:
        source = kernel_path
    else:
        try:
            source = Path(variant.make_source(kernel, workdir))
        except Exception as err:  # noqa: BLE001 -- any failure of a generator is a result
            record.update(status=ERROR, reason=f"making the source failed: {type(err).__name__}: {err}")
            return record, None
        if not source.is_file():
            record.update(status=ERROR, reason=f"make_source returned {source}, which is not a file")
            return record, None
    record["source"] = str(source)
    openmp = variant.openmp or uses_openmp(source)
    defines = {**dict(getattr(kernel, "defines", None) or {}), **dict(variant.defines)}
    include_dirs = [str(kernel_path.resolve().parent)]

    # 1. verification against the kernel's own file, same flags (not for the reference).
    if variant.make_source is not None and verify_dataset is not None:
        verdict = verify(kernel_path, source, cc=variant.cc, cflags=variant.cflags,
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
    binary = workdir / f"{kernel.name}.{variant.name}.exe"
    build = compile_c(source, binary, cc=variant.cc, cflags=variant.cflags,
                      defines={**defines, **dataset_define(dataset)}, include_dirs=include_dirs,
                      openmp=openmp, timeout=compile_timeout)
    record["compile_seconds"] = round(build.seconds, 4)
    record["compile_command"] = build.command_line
    if not build.ok:
        record.update(status=COMPILE_ERROR, reason=build.reason)
        return record, None
    return record, binary


def _time_once(record: dict, binary: Path, *, threads: int | None, timeout: float) -> None:
    """One timed run, appended to the record; a failure sets the status (no more runs)."""
    run = run_binary(binary, timeout=timeout, threads=threads)
    if not run.ok:
        record.update(status=TIMEOUT if run.timed_out else RUN_ERROR,
                      reason=f"run {len(record['wall_times']) + 1}: {run.reason}")
        return
    record["wall_times"].append(run.seconds)
    # Kernel-only time when the program reports it; otherwise the process wall time.
    record["times"].append(run.kernel_seconds if run.kernel_seconds is not None else run.seconds)
    record["time_source"] = "kernel" if run.kernel_seconds is not None else "wall"
    record["checksum"] = run.checksum


def run_benchmarks(kernels: Sequence, variants: Sequence[Variant], dataset: str | None = "LARGE",
                   threads: int | None = None, repeat: int = 5, verify_dataset: str | None = "MINI",
                   progress: bool = True, *, timeout: float = 600, compile_timeout: float = 300,
                   workdir: Path | str | None = None, rtol: float = DEFAULT_RTOL,
                   atol: float = DEFAULT_ATOL) -> dict:
    """Verify and time every kernel under every variant (see the module docstring).

    ``kernels``: suite kernels (anything with ``name``, ``path`` and optionally
    ``flops(dataset)`` and ``defines``). ``variants``: an ``orig`` variant is added
    first when none is named ``orig`` (speedups are relative to it). ``threads`` sets
    OMP_NUM_THREADS for every run; ``timeout`` bounds each run. Generated sources and
    binaries go to ``workdir`` (kept) or to a temporary directory (removed).
    The ``repeat`` runs of a kernel's variants are interleaved (orig, v1, v2, orig,
    v1, ...) so that a load change on a shared machine hits every variant alike.
    Returns the JSON-able results dict; one progress line per (kernel, variant) on stderr.
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    variants = list(variants)
    names = [variant.name for variant in variants]
    if len(set(names)) != len(names):
        raise ValueError(f"variant names must be unique, got {names}")
    if ORIG not in names:
        variants.insert(0, orig_variant())
    else:  # the reference first: it is the one the others are compared with
        variants.sort(key=lambda variant: variant.name != ORIG)
    reference = variants[0]
    kernels = list(kernels)

    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    results: dict = {
        "schema": SCHEMA,
        "machine": machine_info(reference.cc),
        "config": {"dataset": dataset, "verify_dataset": verify_dataset, "threads": threads,
                   "repeat": repeat, "timeout": timeout, "rtol": rtol, "atol": atol},
        "variants": [variant.describe() for variant in variants],
        "kernels": {kernel.name: {"path": str(kernel.path), "flops": _kernel_flops(kernel, dataset)}
                    for kernel in kernels},
        "results": [],
        "started": started,
    }
    owned_tmp = None
    if workdir is None:
        owned_tmp = tempfile.TemporaryDirectory(prefix="polysched-bench-")
        root = Path(owned_tmp.name)
    else:
        root = Path(workdir)
    total = len(kernels) * len(variants)
    done = 0
    try:
        for kernel in kernels:
            begin = time.perf_counter()
            prepared: list[tuple[dict, Path | None]] = []
            for variant in variants:
                record, binary = _prepare(kernel, variant, root / kernel.name / variant.name,
                                          dataset=dataset, threads=threads,
                                          verify_dataset=verify_dataset, timeout=timeout,
                                          compile_timeout=compile_timeout, rtol=rtol, atol=atol)
                if owned_tmp is not None and variant.make_source is not None:
                    record["source"] = None   # it is about to be deleted
                prepared.append((record, binary))
                if binary is None:
                    done += 1
                    _progress(_progress_line(done, total, record, None), progress)
            for _ in range(repeat):
                for record, binary in prepared:
                    if binary is not None and record["status"] == OK:
                        _time_once(record, binary, threads=threads, timeout=timeout)
            reference_record = prepared[0][0]
            for record, binary in prepared:
                record["median_seconds"] = _median(record["times"])
                record["min_seconds"] = min(record["times"]) if record["times"] else None
            for record, binary in prepared:
                if record is not reference_record and record["checksum"] is not None \
                        and reference_record["checksum"] is not None:
                    # A second, weaker check at the timed size: the programs' checksums.
                    record["checksum_agrees"] = compare_outputs(
                        reference_record["checksum"], record["checksum"],
                        rtol=max(rtol, 1e-6), atol=atol).equal
                if binary is not None:
                    done += 1
                    _progress(_progress_line(done, total, record, reference_record), progress)
            results["results"].extend(record for record, _ in prepared)
            _progress(f"    {kernel.name}: {time.perf_counter() - begin:.1f} s", progress)
    finally:
        if owned_tmp is not None:
            owned_tmp.cleanup()
    results["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return results


def save_results(results: dict, path: Path | str) -> Path:
    """Write a results dict as indented JSON (creating parent directories)."""
    import json
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, sort_keys=False) + "\n")
    return path


def load_results(path: Path | str) -> dict:
    """Read a results file written by :func:`save_results`; ValueError if it is not one."""
    import json
    try:
        results = json.loads(Path(path).read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not a JSON results file ({err})") from None
    if not isinstance(results, dict) or results.get("schema") != SCHEMA:
        raise ValueError(f"{path}: not a polysched results file (schema {SCHEMA!r} expected)")
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
    return f"{head}: median {median:.4g} s over {len(record['times'])} runs{speedup}{verified}"
