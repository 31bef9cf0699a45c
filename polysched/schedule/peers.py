"""The peers of our scheduler on identical input: isl's scheduler and the identity."""
from __future__ import annotations

from contextlib import contextmanager

import islpy as isl

from .options import ScheduleOptions


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


def isl_schedule(domain: isl.UnionSet, context: isl.Set, validity: isl.UnionMap,
                 proximity: isl.UnionMap, options: ScheduleOptions) -> isl.Schedule:
    """isl's scheduler (Pluto-like with Feautrier fallback) on the same dependences.

    validity = coincidence = ``validity``; proximity = ``validity ∪ proximity`` (Pluto bounds
    every dependence distance). Options mapped to Pluto's: outer coincidence (prefer
    outer parallel loops), ``serialize_sccs`` for nofuse, ``whole_component`` (schedule a
    connected component as a whole, i.e. fuse as much as possible) for maxfuse.
    ``negative_coefficients`` has no isl equivalent for iterators (isl allows negative
    coefficients by default); ``coefficient_bound`` maps to ``schedule_max_coefficient``.
    """
    ctx = domain.get_ctx()
    values = {
        "outer_coincidence": 1,
        "serialize_sccs": 1 if options.fuse == "no" else 0,
        "whole_component": 1 if options.fuse == "max" else 0,
    }
    with _isl_options(ctx, **values):
        constraints = (isl.ScheduleConstraints.on_domain(domain)
                       .set_context(context)
                       .set_validity(validity)
                       .set_coincidence(validity)
                       .set_proximity(validity.union(proximity)))
        return constraints.compute_schedule()
