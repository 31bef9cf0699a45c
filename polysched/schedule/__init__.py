"""The affine scheduler: Pluto-style ILP on OR-Tools CP-SAT, with isl's scheduler and the
identity as peers on identical input.

    compute(scop, deps, ScheduleOptions(scheduler="pluto", fuse="smart")) -> isl.Schedule

The result is an isl schedule tree over ``scop.domain`` whose bands are marked permutable
and whose members are marked coincident (parallel); sequence nodes order distributed
SCCs or statements inside a fused loop.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from .describe import describe_schedule
from .edges import access_conflicts
from polysched.dependence import violated_dependences
from .options import ScheduleError, ScheduleOptions
from .peers import isl_schedule
from .pluto import pluto_schedule


def compute(scop, deps, options: ScheduleOptions | None = None, stats: dict | None = None) -> isl.Schedule:
    """A schedule tree for ``scop`` respecting ``deps.validity``
    (``[N] -> { S[s] -> T[t] }``, memory-based RAW ∪ WAR ∪ WAW) and using
    ``deps.proximity`` (flow ∪ input) for locality. ``stats`` (optional dict) receives
    counters such as the number of ILP solves. Raises `ScheduleError` when no legal schedule
    exists in the search space (e.g. reversal needed without negative coefficients)."""
    options = (options or ScheduleOptions()).validate()
    if options.scheduler == "identity":
        return scop.schedule
    domain = scop.domain
    validity = deps.validity
    proximity = getattr(deps, "proximity", None)
    if proximity is None:
        proximity = isl.UnionMap.empty(validity.get_space())
    if options.scheduler == "isl":
        return isl_schedule(domain, scop.context, validity, proximity, options)
    order = [s.name for s in scop.statements]
    conflicts = access_conflicts(scop.statements)
    try:
        return pluto_schedule(domain, scop.context, validity, proximity, options,
                              statement_order=order, stats=stats, conflicts=conflicts)
    except ScheduleError:
        if options.negative_coefficients or not options.negative_fallback:
            raise
        options = replace(options, negative_coefficients=True)
        return pluto_schedule(domain, scop.context, validity, proximity, options,
                              statement_order=order, stats=stats, conflicts=conflicts)


__all__ = ["ScheduleError", "ScheduleOptions", "compute", "describe_schedule", "violated_dependences"]
