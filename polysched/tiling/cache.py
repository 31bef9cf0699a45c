"""Data cache sizes of this machine, read from Linux sysfs, with fallbacks; and the
number of threads its OpenMP programs run on.

Used by the tile-size model only; a wrong value gives slower code, never wrong code.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")

# Typical of current x86 cores; used when sysfs does not answer.
FALLBACK_L1D = 32 * 1024
FALLBACK_L2 = 512 * 1024
FALLBACK_L3 = 8 * 1024 * 1024


@dataclass(frozen=True)
class CacheSizes:
    """Sizes in bytes of the level-1 data, level-2 and level-3 caches."""

    l1d: int = FALLBACK_L1D
    l2: int = FALLBACK_L2
    l3: int = FALLBACK_L3


def parse_size(text: str) -> int | None:
    """``"48K"`` -> 49152, ``"1024K"``, ``"32M"``, ``"512"`` (bytes); None if unreadable."""
    match = re.fullmatch(r"\s*([0-9]+)\s*([KMG]?)i?B?\s*", text, re.IGNORECASE)
    if not match:
        return None
    scale = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[match.group(2).upper()]
    return int(match.group(1)) * scale


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


@lru_cache(maxsize=None)
def cache_sizes(root: Path = _SYSFS) -> CacheSizes:
    """Cache sizes from ``<root>/index*/{level,type,size}``; fallbacks for what is missing."""
    found: dict[str, int] = {}
    for index in sorted(root.glob("index*")) if root.is_dir() else []:
        level, kind, size = (_read(index / name) for name in ("level", "type", "size"))
        if level is None or kind is None or size is None:
            continue
        value = parse_size(size)
        if value is None or kind == "Instruction":
            continue
        key = {"1": "l1d", "2": "l2", "3": "l3"}.get(level)
        if key is not None and (kind == "Data" or kind == "Unified" or key != "l1d"):
            found.setdefault(key, value)
    return CacheSizes(**found)


def openmp_threads() -> int:
    """The threads an OpenMP program started from here runs on: ``OMP_NUM_THREADS``
    (its first value: ``"4,2"`` nests 2 inside 4) when it is a positive integer, else
    the CPUs this process may run on (its affinity mask; ``os.cpu_count()`` where
    there is none). libgomp itself starts that many."""
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if first.isdigit() and int(first) >= 1:
        return int(first)
    return usable_cores()


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask), else ``os.cpu_count()``."""
    try:
        return len(os.sched_getaffinity(0)) or (os.cpu_count() or 1)
    except (AttributeError, OSError):
        return os.cpu_count() or 1
