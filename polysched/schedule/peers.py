"""The peers of our scheduler on identical input: isl's scheduler and the identity."""
from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction

import islpy as isl

from polysched.islutil import foreach_band_piece, isl_message, isl_operation_cap, sets_of

from polysched.dependence import is_legal

from .isolated import IsolatedTimeout, run_isolated
from .options import ScheduleOptions


# isl's carrying step may use a large constant of the dependences' bounds as a
# coefficient: { S[i, j] -> [2147483644i + j, i] } where an unsigned j is below 2**31.
# Legal, but its loop code multiplies counters by it (and overflows); such a schedule
# counts as a failure, and the next attempt, or the Pluto scheduler, stands in
MAX_COEFFICIENT = 1024


def largest_coefficient(schedule: isl.Schedule) -> int:
    """The largest magnitude of an iterator or parameter coefficient in the bands of
    ``schedule``."""
    largest = [0]

    def piece(_set: isl.Set, aff: isl.Aff) -> None:
        for kind in (isl.dim_type.in_, isl.dim_type.param):
            for k in range(aff.dim(kind)):
                value = abs(Fraction(str(aff.get_coefficient_val(kind, k))))
                largest[0] = max(largest[0], math.ceil(value))

    foreach_band_piece(schedule, piece)
    return largest[0]


@contextmanager
def _isl_options(ctx: isl.Context, **values):
    """Set ``schedule_*`` options of ``ctx`` for the duration of the block (they are
    per-context and the context is shared by the whole process)."""
    saved = {}
    try:
        for name, value in values.items():
            saved[name] = getattr(ctx, f"get_schedule_{name}")()
            getattr(ctx, f"set_schedule_{name}")(value)
        yield
    finally:
        for name, value in saved.items():
            getattr(ctx, f"set_schedule_{name}")(value)


def _attempts(options: ScheduleOptions) -> list[tuple[str, dict, bool, bool]]:
    """(description, isl options, use the context, coincidence constraints) in the order
    tried. isl's carrying step fails on parametric distances it could carry (``A[i] =
    A[i - pad]`` under ``pad >= 1``: "unable to carry dependences") unless the context is
    left out; the dependences themselves keep their parameter conditions, so a schedule
    found without the context is as legal."""
    values = {
        "outer_coincidence": 1,
        "serialize_sccs": 1 if options.fuse == "no" else 0,
        "whole_component": 1 if options.fuse == "max" else 0,
    }
    plain = {"outer_coincidence": 0, "serialize_sccs": 1, "whole_component": 0}
    return [("", values, True, True),
            ("without the parameter context", values, False, True),
            ("without the context and coincidence constraints, SCCs serialized", plain, False, False)]


def isl_schedule(domain: isl.UnionSet, context: isl.Set, validity: isl.UnionMap,
                 proximity: isl.UnionMap, options: ScheduleOptions,
                 notes: list[str] | None = None, timeout: float | None = None) -> isl.Schedule:
    """isl's scheduler (Pluto-like with Feautrier fallback) on the same dependences.

    validity = coincidence = ``validity``; proximity = ``validity ∪ proximity`` (Pluto bounds
    every dependence distance). Options mapped to Pluto's: outer coincidence (prefer
    outer parallel loops), ``serialize_sccs`` for nofuse, ``whole_component`` (schedule a
    connected component as a whole, i.e. fuse as much as possible) for maxfuse.
    ``negative_coefficients`` has no isl equivalent for iterators (isl allows negative
    coefficients by default).

    When isl fails, it is retried with other settings (see `_attempts`); ``notes`` (a list)
    receives one line saying which one worked. Every result is checked against
    ``validity``. ``timeout`` (seconds): isl cannot be interrupted (its operation cap
    does not count the scheduler's LPs: 100 s for a 10-deep ``s += 1`` nest), so it then
    runs in a forked child process that is killed when time is up. Raises ``isl.Error``
    when every attempt fails or time runs out.
    """
    def run():
        child_notes: list[str] = []
        try:
            text = str(_isl_schedule(domain, context, validity, proximity, options, child_notes))
        except isl.Error as exc:
            return None, str(exc)
        return text, child_notes

    try:
        text, child_notes = run_isolated(run, timeout)
    except IsolatedTimeout as exc:
        raise isl.Error(str(exc)) from None
    if text is None:
        raise isl.Error(child_notes)
    if notes is not None:
        notes.extend(child_notes)
    return isl.Schedule.read_from_str(domain.get_ctx(), text)


def _isl_schedule(domain, context, validity, proximity, options, notes) -> isl.Schedule:
    ctx = domain.get_ctx()
    failure = None
    # coalesced: isl's scheduler builds constraints per basic relation. On heat-3d it took
    # 3.3 s of its 4 s share uncoalesced (1.8 s coalesced), so the scheduler used depended on
    # the machine's speed; and its schedules are faster on 8 of 10 kernels whose schedule
    # changes (geomean 2.1x, experiments/results/isl_coalesced_2threads.md)
    proximity = validity.union(proximity).coalesce()
    validity = validity.coalesce()
    for k, (how, values, use_context, coincidence) in enumerate(_attempts(options)):
        try:
            with _isl_options(ctx, **values), isl_operation_cap(ctx, options.isl_max_operations):
                constraints = isl.ScheduleConstraints.on_domain(domain)
                if use_context:
                    constraints = constraints.set_context(context)
                constraints = constraints.set_validity(validity).set_proximity(proximity)
                if coincidence:
                    constraints = constraints.set_coincidence(validity)
                schedule = constraints.compute_schedule()
            scheduled = {piece.get_tuple_name() for piece in sets_of(schedule.get_map().domain())}
            if any(not piece.is_empty() and piece.get_tuple_name() not in scheduled for piece in sets_of(domain)):
                # with the context, isl leaves out of its bands a statement that never
                # runs under it, which its own AST generator then refuses ("band node is
                # not allowed to drop statement instances"); without the context it
                # schedules every statement
                raise isl.Error("isl's schedule drops the instances of a statement that never runs "
                                "under the context")
            if not is_legal(schedule, validity):
                raise isl.Error("isl's schedule violates a dependence")
            largest = largest_coefficient(schedule)
            if largest > MAX_COEFFICIENT:
                raise isl.Error(f"isl's schedule has a coefficient of {largest}")
        except isl.Error as exc:
            failure = exc
            if "operations" in str(exc):
                break  # a larger problem than we afford: other settings will not help
            continue
        if k and notes is not None:
            notes.append(f"isl's scheduler failed ({isl_message(failure)}); it succeeded {how}")
        return schedule
    raise failure



