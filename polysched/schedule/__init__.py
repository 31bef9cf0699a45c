"""The affine scheduler: Pluto-style ILP on OR-Tools CP-SAT, with isl's scheduler and the
identity as peers on identical input.

    compute(scop, deps, ScheduleOptions(scheduler="pluto", fuse="cost")) -> isl.Schedule

The result is an isl schedule tree over ``scop.domain`` whose bands are marked permutable
and whose members are marked coincident (parallel); sequence nodes order distributed
SCCs or statements inside a fused loop.

Never a hang, never an isl traceback: the Pluto scheduler has a compute budget
(``ScheduleOptions.budget`` / ``max_constraints``); past it, isl's scheduler is used, and
when isl fails too (``--scheduler isl`` included: "unable to carry dependences", its
operation cap), the other scheduler and finally the original schedule. Each fallback
prints one line ``polysched: note: ...`` on stderr and is recorded in
``stats["fallback"]``.
"""
from __future__ import annotations

import sys
from dataclasses import replace

import islpy as isl

from .describe import describe_schedule
from .edges import access_conflicts
from .fusion import NOMINAL_EXTENT, extra_passes, footprints
from .ilp import spatial_weights
from polysched.dependence import dependences_without_integer_reductions, is_legal, violated_dependences
from polysched.islutil import isl_message
from .options import Budget, BudgetExceeded, ScheduleError, ScheduleOptions
from .peers import isl_schedule
from .isolated import IsolatedTimeout, run_isolated, stop_reason
from .pluto import needs_reversal, pluto_schedule


def _notice(stats: dict | None, message: str) -> None:
    """One line on stderr, and in ``stats["fallback"]`` (all of them in ``stats["notes"]``)."""
    print(f"polysched: note: {message}", file=sys.stderr, flush=True)
    if stats is not None:
        stats["fallback"] = message
        stats.setdefault("notes", []).append(message)


# Of the budget, the first scheduler tried gets this share and its fallback the rest.
FIRST_SHARE = 2 / 3
KILL_MARGIN = 1.0  # CPU seconds past its budget before a scheduler's process is killed


class _Illegal(Exception):
    """A scheduler's result violates a dependence (a bug: never returned)."""


def _pluto(scop, domain, validity, proximity, options, stats, seconds: float) -> isl.Schedule:
    """Pluto, and again with negative coefficients when the options allow (at once when
    `needs_reversal` proves the first search would fail); one budget of
    ``seconds`` CPU seconds for both runs, in a child process killed past it (isl inside
    cannot always be interrupted, see `isolated`). The result is checked against
    ``validity`` (under the SCoP's context, as the dependences are): an illegal schedule
    raises `_Illegal`, it is never returned."""
    order = [s.name for s in scop.statements]
    conflicts = access_conflicts(scop.statements)

    def run():
        attempts = [options]
        if not options.negative_coefficients and options.negative_fallback:
            negative = replace(options, negative_coefficients=True)
            # (in the child: isl questions are not interruptible)
            attempts = [negative] if needs_reversal(validity, scop.context) else [options, negative]
        child_stats: dict = {}
        budget = Budget(seconds)
        # the same for both attempts (they differ in negative_coefficients only)
        spatial = spatial_weights(scop.statements) if options.spatial else None
        cost = options.fuse == "cost"
        prints = footprints(scop.statements, scop.context) if cost else None
        strides = spatial_weights(scop.statements, NOMINAL_EXTENT) if cost else None
        ordering = dependences_without_integer_reductions(scop) if cost else None
        edge_cache: dict = {}
        for k, opts in enumerate(attempts):
            try:
                schedule = pluto_schedule(domain, scop.context, validity, proximity, opts,
                                          statement_order=order, stats=child_stats,
                                          conflicts=conflicts, budget=budget, spatial=spatial,
                                          footprints=prints, strides=strides, edge_cache=edge_cache,
                                          ordering=ordering)
                return str(schedule), child_stats
            except ScheduleError:
                if k == len(attempts) - 1:
                    raise

    try:
        # the child's own budget stops it first; the kill is the backstop
        text, child_stats = run_isolated(run, seconds + KILL_MARGIN)
    except IsolatedTimeout as stop:
        raise BudgetExceeded(stop_reason(stop, f"{seconds:g} s budget used up")) from None
    if stats is not None:
        stats.update(child_stats)
    schedule = isl.Schedule.read_from_str(domain.get_ctx(), text)
    if not is_legal(schedule, validity):
        raise _Illegal("its schedule violates a dependence")
    return schedule


def _streaming_checked(scop, schedule: isl.Schedule, options: ScheduleOptions, stats: dict | None) -> isl.Schedule:
    """``schedule``, or the original one when fusion by cost (the default) distributed
    the statements that stream a matrix into more nests than the source has
    (`fusion.extra_passes`): each extra pass over a matrix that does not stay in cache
    costs its size in memory traffic, more than two threads win back (bicg and atax at
    LARGE, 2 threads: 0.69x and 0.90x of the source, distributed)."""
    if options.fuse != "cost":
        return schedule
    extra = extra_passes(scop.statements, scop.schedule, schedule)
    if not extra:
        return schedule
    what = ", ".join(f"{array} {after} times (the source: {before})" for array, before, after in extra)
    if stats is not None:
        stats.setdefault("fusion", []).append(f"kept the source's loop nests: the schedule found streams {what}")
    return scop.schedule


def compute(scop, deps, options: ScheduleOptions | None = None, stats: dict | None = None) -> isl.Schedule:
    """A schedule tree for ``scop`` respecting ``deps.validity``
    (``[N] -> { S[s] -> T[t] }``, memory-based RAW ∪ WAR ∪ WAW) and using
    ``deps.proximity`` (flow ∪ input) for locality. ``stats`` (optional dict) receives
    counters such as the number of ILP solves, and ``"fallback"`` when another scheduler
    had to stand in (see the module doc). Raises `ScheduleError` when no legal schedule
    exists in the Pluto search space (e.g. reversal needed without negative coefficients)
    unless ``negative_fallback`` is set, which means "always return a schedule": then
    isl's scheduler and the original schedule stand in as for the budget."""
    options = (options or ScheduleOptions()).validate()
    if options.scheduler == "identity":
        return scop.schedule
    domain = scop.domain
    validity = deps.validity
    proximity = getattr(deps, "proximity", None)
    if proximity is None:
        proximity = isl.UnionMap.empty(validity.get_space())
    first = options.budget * FIRST_SHARE
    second = options.budget - first
    if options.scheduler == "isl":
        notes: list[str] = []
        try:
            schedule = isl_schedule(domain, scop.context, validity, proximity, options, notes,
                                    timeout=first)
        except isl.Error as exc:
            reason = f"isl's scheduler failed ({isl_message(exc)})"
        else:
            for note in notes:
                _notice(stats, note)
            return schedule
        try:
            schedule = _pluto(scop, domain, validity, proximity,
                              replace(options, negative_fallback=True), stats, second)
        except (BudgetExceeded, ScheduleError, _Illegal) as exc:
            _notice(stats, f"{reason}, and so did the Pluto scheduler ({exc}); "
                           "kept the original schedule")
            return scop.schedule
        _notice(stats, f"{reason}; used the Pluto scheduler instead")
        return schedule
    try:
        return _streaming_checked(scop, _pluto(scop, domain, validity, proximity, options, stats, first),
                                  options, stats)
    except BudgetExceeded as exc:
        reason = f"the Pluto scheduler gave up ({exc})"
    except _Illegal as exc:
        reason = f"the Pluto scheduler failed ({exc})"
    except ScheduleError as exc:
        if not options.negative_fallback:
            raise
        # a driver that must always produce a schedule: even negative coefficients did
        # not help (bounds of the search space); isl's scheduler has none of them
        reason = f"the Pluto scheduler found no schedule ({exc})"
    try:
        schedule = isl_schedule(domain, scop.context, validity, proximity, options,
                                timeout=second)
    except isl.Error as exc:
        _notice(stats, f"{reason}, and isl's scheduler failed ({isl_message(exc)}); "
                       "kept the original schedule")
        return scop.schedule
    _notice(stats, f"{reason}; used isl's scheduler instead")
    return schedule


__all__ = ["BudgetExceeded", "ScheduleError", "ScheduleOptions", "compute", "describe_schedule",
           "violated_dependences"]
