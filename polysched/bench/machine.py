"""Provenance of a measurement: the machine, compiler, software versions and commit.

A figure without the machine, compiler and commit it was measured with cannot be
compared or reproduced, so every results file carries :func:`machine_info`.
:func:`cache_size` reports the sizes the tiling model uses (``polysched.tiling.cache``).
"""
from __future__ import annotations

import datetime
import functools
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

from polysched.errors import ArgumentError
from polysched.tiling.cache import cache_sizes, parse_size

FALLBACK_LINE_BYTES = 64

_SYSFS_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _sysfs_caches(root: Path = _SYSFS_CACHE) -> list[dict]:
    caches = []
    for index in sorted(root.glob("index*")):
        level, kind, size = (_read(index / name) for name in ("level", "type", "size"))
        if level is None or size is None or parse_size(size) is None:
            continue
        line = _read(index / "coherency_line_size")
        caches.append({"level": int(level), "type": kind or "Unknown",
                       "size": parse_size(size),
                       "line_size": int(line) if line and line.isdigit() else None,
                       "source": "sysfs"})
    return caches


def _getconf_caches() -> list[dict]:
    caches = []
    for level, kind, name in ((1, "Data", "LEVEL1_DCACHE"), (1, "Instruction", "LEVEL1_ICACHE"),
                              (2, "Unified", "LEVEL2_CACHE"), (3, "Unified", "LEVEL3_CACHE")):
        size = _command_output(["getconf", f"{name}_SIZE"])
        line = _command_output(["getconf", f"{name}_LINESIZE"])
        if size and size.isdigit() and int(size) > 0:
            caches.append({"level": level, "type": kind, "size": int(size),
                           "line_size": int(line) if line and line.isdigit() and int(line) > 0 else None,
                           "source": "getconf"})
    return caches


@functools.lru_cache(maxsize=1)
def caches() -> tuple[dict, ...]:
    """The caches seen by CPU 0: ``{"level", "type" (Data/Instruction/Unified),
    "size" (bytes), "line_size" (bytes or None), "source"}``; sysfs first, then
    getconf; empty if neither knows."""
    return tuple(_sysfs_caches() or _getconf_caches())


def cache_size(level: int | str = 1) -> int:
    """Size in bytes of the data (or unified) cache at ``level`` (1, 2, 3 or "L1d",
    "L2", "L3"), falling back to 32 KiB / 512 KiB / 8 MiB when unknown."""
    if isinstance(level, str):
        match = re.fullmatch(r"[Ll]?([123])[dD]?", level.strip())
        if not match:
            raise ArgumentError(f"unknown cache level {level!r}; expected 1, 2, 3, 'L1d', 'L2' or 'L3'")
        level = int(match.group(1))
    sizes = cache_sizes()
    try:
        return {1: sizes.l1d, 2: sizes.l2, 3: sizes.l3}[level]
    except KeyError:
        raise ArgumentError(f"unknown cache level {level!r}; expected 1, 2 or 3") from None


def cache_line_size() -> int:
    """Line size in bytes of the L1 data cache (64 when unknown)."""
    for cache in caches():
        if cache["level"] == 1 and cache["type"] in ("Data", "Unified") and cache["line_size"]:
            return cache["line_size"]
    return FALLBACK_LINE_BYTES


def _command_output(command: list[str], cwd: Path | None = None) -> str | None:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=20, cwd=cwd,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _cpu_model() -> str:
    text = _read(Path("/proc/cpuinfo")) or ""
    for key in ("model name", "Model", "Hardware", "cpu model"):
        match = re.search(rf"^{key}\s*:\s*(.+)$", text, re.MULTILINE)
        if match:
            return match.group(1).strip()
    return platform.processor() or platform.machine() or "unknown"


def _physical_cores() -> int | None:
    """Distinct (package, core) pairs in /proc/cpuinfo; None if not reported."""
    text = _read(Path("/proc/cpuinfo")) or ""
    cores = set()
    for block in text.split("\n\n"):
        package = re.search(r"^physical id\s*:\s*(\d+)", block, re.MULTILINE)
        core = re.search(r"^core id\s*:\s*(\d+)", block, re.MULTILINE)
        if package and core:
            cores.add((package.group(1), core.group(1)))
    return len(cores) or None


def compiler_version(cc: str = "gcc") -> str | None:
    """First line of ``cc --version`` (None if the compiler is missing)."""
    output = _command_output([cc, "--version"])
    return output.splitlines()[0] if output else None


def git_commit(directory: Path = _PACKAGE_DIR) -> dict:
    """``{"commit": sha or None, "dirty": bool or None}`` of the checkout holding
    the polysched package (None when not installed from a git checkout)."""
    top = _command_output(["git", "rev-parse", "--show-toplevel"], cwd=directory)
    if not top or not (Path(top) / "polysched").resolve() == directory.resolve():
        return {"commit": None, "dirty": None}
    commit = _command_output(["git", "rev-parse", "HEAD"], cwd=directory)
    status = _command_output(["git", "status", "--porcelain", "--untracked-files=no"], cwd=directory)
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def machine_info(cc: str = "gcc") -> dict:
    """JSON-able provenance: CPU model, logical/physical cores, caches, compiler and
    version, OS, Python and polysched versions, git commit, UTC date (ISO 8601)."""
    from polysched import __version__
    git = git_commit()
    try:
        affinity = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        affinity = None
    return {
        "cpu_model": _cpu_model(),
        "machine": platform.machine(),
        "cores_logical": os.cpu_count(),
        "cores_physical": _physical_cores(),
        "cores_usable": affinity,
        "caches": [dict(cache) for cache in caches()],
        "cache_bytes": {"L1d": cache_size(1), "L2": cache_size(2), "L3": cache_size(3)},
        "compiler": cc,
        "compiler_version": compiler_version(cc),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "polysched_version": __version__,
        "git_commit": git["commit"],
        "git_dirty": git["dirty"],
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the OS does not say)."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def machine_fingerprint(cc: str = "gcc") -> str:
    """The tuning database's machine fingerprint (``polysched.tune.db``): CPU model,
    cores, caches, compiler and its version. Bench logs carry the same one, so that a
    resumed run refuses another machine or compiler, and bench and tune records of one
    machine can be matched."""
    from polysched.tune.db import machine_fingerprint as fingerprint, machine_identity
    return fingerprint(machine_identity(cc))


def provenance(cc: str = "gcc", **settings) -> dict:
    """The one provenance record of a measurement script (``polysched bench`` logs and
    the experiments): :func:`machine_info`, the tuning store's machine fingerprint,
    the load average now, the command line and the script's own ``settings``
    (dataset, threads, repeat...)."""
    info = machine_info(cc)
    info["machine_fp"] = machine_fingerprint(cc)
    info["loadavg"] = load_average()
    info["argv"] = list(sys.argv)
    info["settings"] = {key: value if isinstance(value, (str, int, float, bool, type(None), list))
                        else str(value) for key, value in settings.items()}
    return info


def provenance_line(info: dict) -> str:
    """:func:`provenance` on one line, for the head of a script's printed table."""
    commit = info.get("git_commit")
    commit = (commit[:12] + ("+dirty" if info.get("git_dirty") else "")) if commit else "unknown"
    load = info.get("loadavg")
    settings = ", ".join(f"{k} {v}" for k, v in (info.get("settings") or {}).items())
    return (f"# polysched {info.get('polysched_version')} commit {commit}; {info.get('cpu_model')}, "
            f"{info.get('cores_usable') or info.get('cores_logical')} cores (machine {info.get('machine_fp')}); "
            f"{info.get('compiler_version')}; load {load[0] if load else '?'}; {info.get('date')}"
            + (f"; {settings}" if settings else ""))
