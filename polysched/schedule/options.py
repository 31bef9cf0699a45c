"""Options of the scheduler (`ScheduleOptions`) and its error type."""
from __future__ import annotations

import time
from dataclasses import dataclass

from polysched.errors import PolyschedError

SCHEDULERS = ("pluto", "isl", "identity")
FUSION_POLICIES = ("smart", "cost", "max", "no")
# automatic diamond tiling (ScheduleOptions.diamond None): bands of at least this many members
DIAMOND_MIN_MEMBERS = 4


class ScheduleError(PolyschedError):
    """No legal schedule within the search space (e.g. a loop reversal is needed but
    ``negative_coefficients`` is off), or bad options. One readable sentence."""


class BudgetExceeded(Exception):
    """The Pluto scheduler ran past its compute budget (``ScheduleOptions.budget`` seconds,
    ``max_constraints`` rows in one ILP, or isl's operation cap on a Farkas cone).
    `compute` catches it and falls back (see there); never raised to its callers."""


class Budget:
    """``seconds`` of this process's CPU time (``time.process_time``: what other processes
    on a shared machine do not change, so the same input falls back, or not, the same way
    under load), with a wall-clock backstop of ``4 x seconds + 10`` (never a hang)."""

    WALL_FACTOR = 4
    WALL_EXTRA = 10.0

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.cpu_end = time.process_time() + seconds
        self.wall_end = time.monotonic() + self.WALL_FACTOR * seconds + self.WALL_EXTRA

    def cpu_left(self) -> float:
        return self.cpu_end - time.process_time()

    def wall_left(self) -> float:
        return self.wall_end - time.monotonic()

    def check(self, doing: str = "") -> None:
        """Raise `BudgetExceeded` once either limit is reached."""
        if self.cpu_left() <= 0 or self.wall_left() <= 0:
            raise BudgetExceeded(f"{self.seconds:g} s budget used up" + (f" {doing}" if doing else ""))


@dataclass
class ScheduleOptions:
    """How `compute` schedules.

    - ``scheduler``: ``"pluto"`` (our ILP scheduler), ``"isl"`` (isl's scheduler on the same
      dependences) or ``"identity"`` (keep ``scop.schedule``).
    - ``fuse``: ``"cost"`` (the default, below) or Pluto's fusion policies: ``"smart"``
      (separate SCCs of different loop depth up front, fuse the rest as long as
      hyperplanes exist), ``"max"`` (cut only where no hyperplane exists, and then as
      little as possible), ``"no"`` (distribute every SCC),
      ``"cost"`` (smart, but a fusion that loses a band member, a parallel loop or a
      stride-1 loop is undone, and parts of one loop depth that are not neighbours are
      joined when they share data and lose none of these: fusion.py; isl's scheduler
      treats it as ``"smart"``).
    - ``negative_coefficients``: allow iterator coefficients in
      ``[-coefficient_bound, coefficient_bound]`` (Pluto+), so loop reversal and negative
      skews are found; by default coefficients are in ``[0, coefficient_bound]``.
    - ``shift_bound``: bound of the constant (shift) coefficient of each statement.
    - ``time_limit``: seconds per CP-SAT solve; when reached, the best solution found so
      far is kept for that objective level (still a legal hyperplane).
    - ``rar``: use read-after-read (input) dependences as a locality tie-break.
    - ``reassociate``: the floating-point reductions the tiling pass will run in
      parallel (`polysched.tiling.TileOptions.reassociate`: True, or scalar names): the
      ``"cost"`` fusion counts a loop that carries only their updates as parallel.
    - ``spatial``: spatial locality, after the bounding function: among hyperplanes that
      bound the dependence distances equally well, prefer those that leave out the
      iterators of the arrays' fastest-varying (last) subscripts, so that those loops
      end up innermost and walk memory with stride 1 (``ilp.spatial_weights``).
    - ``negative_fallback``: when the non-negative space has no legal schedule (a loop
      must be reversed), schedule again with negative coefficients instead of raising
      `ScheduleError` (for drivers that must always produce a schedule).
    - ``diamond``: diamond (concurrent-start) tiling hyperplanes for an outermost band
      of two or more members none of which is parallel (a stencil's time band): its
      first member (the face, ``t``) is replaced by ``λ·t - h1`` (``h1`` the second),
      so that tiles all along ``t = 0`` can start at once (`ilp.HyperplaneProblem.solve_diamond`).
      ``True``: for every such band; ``False``: never; ``None`` (default): for bands of
      ``DIAMOND_MIN_MEMBERS`` members or more, where it measured faster than the tile
      wavefront (heat-3d's 4-member band, LARGE: 1.14x at 2 threads, 1.16x at 1;
      jacobi-1d, jacobi-2d and fdtd-2d, 2 or 3 members: 0.94x, 1.00x, 0.94x).
    - ``budget``: CPU seconds scheduling one SCoP may take, fallbacks included: the
      scheduler asked for gets two thirds of it, its fallback (isl's scheduler for Pluto
      and the other way round) the rest, each in a child process killed past its share
      (isl cannot always be interrupted). ``max_constraints``: rows one ILP may have.
      Past either, `compute` falls back, and when the fallback fails too, keeps the
      original schedule, with a one-line notice on stderr and in ``stats["fallback"]``:
      a slow case never hangs.
    """

    scheduler: str = "pluto"
    fuse: str = "cost"
    negative_coefficients: bool = False
    coefficient_bound: int = 4
    shift_bound: int = 16
    time_limit: float = 10.0
    rar: bool = True
    spatial: bool = True
    negative_fallback: bool = False
    diamond: bool | None = None
    reassociate: bool | tuple[str, ...] = False
    budget: float = 6.0
    max_constraints: int = 200_000
    isl_max_operations: int = 200_000_000

    def validate(self) -> "ScheduleOptions":
        if self.scheduler not in SCHEDULERS:
            raise ScheduleError(f"unknown scheduler {self.scheduler!r} (expected one of {', '.join(SCHEDULERS)})")
        if self.fuse not in FUSION_POLICIES:
            raise ScheduleError(f"unknown fusion policy {self.fuse!r} (expected one of {', '.join(FUSION_POLICIES)})")
        if self.coefficient_bound < 1:
            raise ScheduleError("coefficient_bound must be at least 1")
        if self.shift_bound < 0:
            raise ScheduleError("shift_bound must be non-negative")
        if self.time_limit <= 0:
            raise ScheduleError("time_limit must be positive")
        if self.budget <= 0 or self.max_constraints < 1 or self.isl_max_operations < 1:
            raise ScheduleError("budget, max_constraints and isl_max_operations must be positive")
        if self.diamond and self.scheduler != "pluto":
            # (it did nothing: only the Pluto scheduler places diamond hyperplanes)
            raise ScheduleError(f"diamond hyperplanes are the pluto scheduler's; the {self.scheduler} "
                                "scheduler places none")
        return self
