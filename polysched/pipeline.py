"""The whole job on one C file: extract -> dependences -> schedule -> tile -> emit.

This is what ``polysched optimize`` and ``polysched bench`` call. Each phase is timed;
every schedule is checked for legality against the dependences before any code is
emitted (an illegal schedule is a bug, reported, never emitted).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import islpy as isl

from polysched import emit_c
from polysched.dependence import Dependences, analyze, check
from polysched.schedule import ScheduleOptions, compute
from polysched.scop import Scop, ScopError, extract
from polysched.tiling import TileOptions, tile_with_report


class IllegalScheduleError(RuntimeError):
    """A stage produced a schedule that violates a dependence (a polysched bug)."""


@dataclass
class OptimizeOptions:
    """What ``polysched optimize`` does. ``scheduler="identity"`` with ``tile=False``
    re-emits the original schedule."""

    scheduler: str = "pluto"
    fuse: str = "smart"
    negative_coefficients: bool = False
    tile: bool = False
    tile_sizes: list[int] | dict[str, list[int]] | None = None
    l2tile: bool = False
    parallel: bool = False
    unroll: int | None = None
    reassociate: bool = False
    defines: dict[str, str | None] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)


@dataclass
class ScopResult:
    """One region's outcome: ``schedule`` is the final (marked) isl schedule tree."""

    scop: Scop
    deps: Dependences
    schedule: isl.Schedule
    tiling: object | None = None


@dataclass
class OptimizeResult:
    source: Path
    text: str
    regions: list[ScopResult]
    phase_seconds: dict[str, float]

    def summary(self) -> str:
        lines = []
        for k, region in enumerate(self.regions):
            scop = region.scop
            lines.append(
                f"region {k} ({scop.function}, lines {scop.start_line}-{scop.end_line}): "
                f"{len(scop.statements)} statements"
            )
            if region.tiling is not None:
                lines.extend("  " + line for line in str(region.tiling).splitlines())
            lines.extend("  " + line for line in emit_c.versioning_plan(scop).describe())
        times = ", ".join(f"{name} {sec * 1e3:.0f} ms" for name, sec in self.phase_seconds.items())
        lines.append(f"time: {times}")
        return "\n".join(lines)


def optimize(path: str | Path, options: OptimizeOptions | None = None) -> OptimizeResult:
    """Optimize every SCoP of the C file at ``path``; returns the new file text."""
    options = options or OptimizeOptions()
    phases = {name: 0.0 for name in ("extract", "deps", "schedule", "tile", "codegen")}

    def timed(name, fn, *args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            phases[name] += time.perf_counter() - start

    scops = timed("extract", extract, Path(path), defines=options.defines,
                  include_dirs=options.include_dirs)
    if not scops:
        raise ScopError(str(path), 1, 1, "no '#pragma scop' ... '#pragma endscop' region to optimize")
    regions = []
    for scop in scops:
        deps = timed("deps", analyze, scop)
        sched_options = ScheduleOptions(
            scheduler=options.scheduler, fuse=options.fuse,
            negative_coefficients=options.negative_coefficients,
            # Pluto first; only when the non-negative space has no schedule (a loop
            # must be reversed) is the SCoP scheduled again, Pluto+-style, with
            # negative coefficients allowed.
            negative_fallback=True,
        )
        schedule = timed("schedule", compute, scop, deps, sched_options)
        report = None
        if options.tile or options.parallel or options.unroll:
            tile_options = TileOptions(
                tile=options.tile, sizes=options.tile_sizes, l2tile=options.l2tile,
                parallel=options.parallel, unroll=options.unroll, reassociate=options.reassociate,
            )
            schedule, report = timed("tile", tile_with_report, scop, deps, schedule, tile_options)
        verdict = check(scop, deps, schedule)
        if not verdict.legal:
            raise IllegalScheduleError(
                f"{scop.filename}:{scop.start_line}: internal error: the computed schedule is "
                f"illegal: {verdict}"
            )
        regions.append(ScopResult(scop, deps, schedule, report))
    text = timed("codegen", emit_c.emit_file, scops, [r.schedule for r in regions])
    return OptimizeResult(Path(path), text, regions, phases)
