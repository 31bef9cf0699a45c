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

import math
import sys
from dataclasses import replace

import islpy as isl

from .describe import describe_schedule
from .edges import access_conflicts
from .fusion import NOMINAL_EXTENT, extra_passes, footprints
from .ilp import spatial_weights
from polysched.dependence import dependences_without_reductions, is_legal, violated_dependences
from polysched.islutil import isl_message, isl_operation_cap, maps_of
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
        ordering = dependences_without_reductions(scop, options.reassociate) if cost else None
        small = _small_loop_dims(scop, _small_loops(scop)) if cost else None
        edge_cache: dict = {}
        for k, opts in enumerate(attempts):
            try:
                schedule = pluto_schedule(domain, scop.context, validity, proximity, opts,
                                          statement_order=order, stats=child_stats,
                                          conflicts=conflicts, budget=budget, spatial=spatial,
                                          footprints=prints, strides=strides, edge_cache=edge_cache,
                                          ordering=ordering, small=small)
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


# gcc unrolls loops of at most this many iterations in all whole (its
# max-completely-peel-times): they are part of their statement's body
SMALL_LOOP = 16
# and a nest of them while the copies stay under its max-completely-peeled-insns
# (200): a 5 x 5 convolution's 25 multiply-adds (helper-102: counted as one loop of 25,
# its taps were skewed by the pixel loop, 4x + ky, and the code ran 10x slower)
SMALL_NEST = 64


def small_inner_loops(domain: isl.Set, values: dict[str, int] | None = None) -> list[int]:
    """The trip counts of the innermost loops of a statement with ``domain``
    (``[N] -> { S[i, a, b] : ... }``) that run at most `SMALL_LOOP` times each and
    `SMALL_NEST` times together (``0 <= a < 3``, ``i <= b <= i + 2``: 9), for every
    value of the loops around them and of the parameters, outermost first, inside a
    loop that is not small (more iterations, or a number that depends on a
    parameter), the parameters of known ``values`` (``{"K": 3}``: a ``#define``,
    which the compiler sees) fixed. A loop of one iteration is none; a nest of small
    loops only has none (a 16 x 16 product with ``#define N 16`` is tiled as it was)."""
    n = domain.dim(isl.dim_type.set)
    for name, value in (values or {}).items():
        at = domain.find_dim_by_name(isl.dim_type.param, name)
        if at >= 0:
            domain = domain.fix_val(isl.dim_type.param, at, isl.Val(str(value), domain.get_ctx()))
    if n < 2 or domain.is_empty():
        return []
    trips: list[int] = []
    for d in range(n - 1, 0, -1):
        count = _trip_count(domain, d)
        if count is None or count < 2 or count > SMALL_LOOP or count * math.prod(trips) > SMALL_NEST:
            break       # (a loop of one iteration is none: any place suits it)
        trips.insert(0, count)
    # (the loops around them counted only then, outermost first: most statements have
    # none, and the outermost loop of the others is rarely small)
    outer = (_trip_count(domain, d) for d in range(n - len(trips)))
    if not trips or not any(count is None or count > SMALL_LOOP for count in outer):
        return []
    return trips


# isl steps one trip count may take: a heuristic's question, not worth a long wait
# (helper-82: six parameters, min/max bounds and '% 3' guards spun the tiling stage for
# minutes in dim_max); past it the count is unknown, as a parameter's would be
TRIP_COUNT_OPERATIONS = 2_000_000


def _trip_count(domain: isl.Set, d: int) -> int | None:
    """The most iterations loop ``d`` of ``domain`` runs for one value of the loops
    around it, when that is a constant (None: not constant, or not found within
    `TRIP_COUNT_OPERATIONS`)."""
    n = domain.dim(isl.dim_type.set)
    rows = isl.Map.from_range(domain.project_out(isl.dim_type.set, d + 1, n - d - 1)) \
        .move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, d)
    try:
        with isl_operation_cap(domain.get_ctx(), TRIP_COUNT_OPERATIONS):
            spread = rows.reverse().apply_range(rows).deltas().dim_max(0)     # max(a2 - a1), same outer
    except isl.Error:
        return None
    if not spread.is_cst():
        return None
    pieces: list[int] = []
    spread.foreach_piece(lambda _set, aff: pieces.append(aff.get_constant_val().to_python()))
    return max(pieces, default=0) + 1


def _small_loops(scop) -> dict[str, list[int]]:
    """Statement -> the trip counts of its small inner loops (`small_inner_loops`)."""
    return {stmt.name: trips for stmt in scop.statements
            if (trips := small_inner_loops(stmt.domain, scop.parameter_values))}


def _small_loop_dims(scop, small: dict[str, list[int]]) -> dict[str, frozenset[int]]:
    """Statement -> the positions of its ``small`` inner loops (`_small_loops`) among
    its iterators."""
    depths = {stmt.name: len(stmt.iterators) for stmt in scop.statements}
    return {name: frozenset(range(depths[name] - len(trips), depths[name])) for name, trips in small.items()}


def _small_loops_kept(scop, schedule: isl.Schedule, small: dict[str, list[int]]) -> str | None:
    """None when ``schedule`` keeps every statement's ``small`` inner loops
    (`_small_loops`) innermost, as they are (each its iterator plus a constant,
    nothing else depending on them, in their order), else what it did to the first
    one that it does not."""
    dates = schedule.get_map()
    for name, trips in small.items():
        stmt = scop.statement(name)
        n = stmt.domain.dim(isl.dim_type.set)
        timing = dates.intersect_domain(isl.UnionSet.from_set(stmt.domain))
        if timing.is_empty():
            continue
        rows = isl.PwMultiAff.from_map(isl.Map.from_union_map(timing))
        members = [_coefficients(rows.get_pw_aff(j), n) for j in range(rows.dim(isl.dim_type.out))]
        loops = [c for c in members if any(c[d] != {0} for d in range(n))]
        for k, count in enumerate(trips):
            d = n - len(trips) + k
            member = loops[len(loops) - len(trips) + k] if len(loops) >= len(trips) else None
            what = f"the {count}-iteration loop '{stmt.iterators[d]}' of {stmt.name}"
            if member is None or member[d] != {1} or any(member[e] != {0} for e in range(n) if e != d):
                return f"skews, reverses or moves {what}"
            if sum(c[d] != {0} for c in members) != 1:
                return f"moves {what}"
    return None


def _small_loops_apart(scop, schedule: isl.Schedule, small: dict[str, list[int]]) -> isl.Schedule:
    """``schedule`` with the band members that are ``small`` inner loops
    (`_small_loops`, for every statement of their band) split off their band,
    one band each: the tiler tiles and reorders a band of two members or more, and a
    5-tap FIR's (i, k), tiled [256, 8] with k outside i, ran 2x slower than the
    source."""
    small = _small_loop_dims(scop, small)

    def is_small(member: isl.UnionPwAff) -> bool:
        for timing in maps_of(isl.UnionMap.from_union_pw_aff(member)):
            n, dims = timing.dim(isl.dim_type.in_), small.get(timing.get_tuple_name(isl.dim_type.in_), frozenset())
            used = [(d, c) for d, c in enumerate(_coefficients(isl.PwMultiAff.from_map(timing).get_pw_aff(0), n))
                    if c != {0}]
            if used and not (len(used) == 1 and used[0][0] in dims and used[0][1] == {1}):
                return False
        return True

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.band:
            return node
        n = node.band_n_member()
        mupa = node.band_get_partial_schedule()
        first = n
        while first > 0 and is_small(mupa.get_at(first - 1)):
            first -= 1
        if first == n or n == 1:
            return node
        down = 0
        if first > 0:
            node, down = node.band_split(first).child(0), down + 1
        while node.band_n_member() > 1:
            node, down = node.band_split(1).child(0), down + 1
        for _ in range(down):       # back where isl called: the top of the split band
            node = node.parent()
        return node

    return schedule.map_schedule_node_bottom_up(visit)


def _coefficients(member: isl.PwAff, n: int) -> list[set[int]]:
    """The coefficients of each of the ``n`` iterators in the pieces of ``member``."""
    found: list[set[int]] = [set() for _ in range(n)]

    def piece(_set, aff):
        for d in range(n):
            found[d].add(aff.get_coefficient_val(isl.dim_type.in_, d).to_python())

    member.foreach_piece(piece)
    return found


def _small_loops_checked(scop, schedule: isl.Schedule, options: ScheduleOptions,
                         stats: dict | None) -> isl.Schedule:
    """``schedule``, or the original one when fusion by cost (the default) moved or
    skewed a statement's small innermost loop (`_small_loops_kept`). gcc unrolls such a
    loop whole and keeps its accumulator in a register; Pluto's hyperplanes skew it to
    keep the statements that set and store the accumulator in one band (a 5-tap FIR:
    (i, 4i + k)) and tiling then splits it: a 3x3 convolution ran 4x slower than the
    source at 2 threads, a FIR 4x (issue #12). The parallel marks still come."""
    if options.fuse != "cost":
        return schedule
    small = _small_loops(scop)
    if not small:
        return schedule
    why = _small_loops_kept(scop, schedule, small)
    if why is None:
        return _small_loops_apart(scop, schedule, small)
    if stats is not None:
        stats.setdefault("fusion", []).append(f"kept the source's loop nests: the schedule found {why} "
                                              "(gcc unrolls it whole)")
    return scop.schedule


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
        schedule = _pluto(scop, domain, validity, proximity, options, stats, first)
        return _small_loops_checked(scop, _streaming_checked(scop, schedule, options, stats), options, stats)
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
