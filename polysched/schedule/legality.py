"""A self-contained legality check of a schedule against dependences (isl only)."""
from __future__ import annotations

import islpy as isl


def violated_dependences(schedule: isl.Schedule, validity: isl.UnionMap) -> isl.UnionMap:
    """The pairs ``{ S[s] -> T[t] }`` of ``validity`` that ``schedule`` does not run in
    order (``sched(s) lex< sched(t)`` fails); empty when the schedule is legal."""
    smap = schedule.get_map().intersect_domain(schedule.get_domain())
    before = smap.lex_lt_union_map(smap)
    return validity.intersect_domain(schedule.get_domain()).subtract(before)
