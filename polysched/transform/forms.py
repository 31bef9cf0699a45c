"""The forms a schedule may be given in, made into one isl schedule tree.

``as_tree(scop, schedule)`` accepts what ``check`` accepts and what
``--save-schedule`` writes: an ``isl.Schedule``; a schedule map
``[N] -> { S0[i, j] -> [t0, t1, ...]; S1[i] -> [...] }`` (statements may have
different numbers of output dimensions, padded with zeros like ``check`` does), as
``isl.UnionMap``/``isl.Map``; or the isl text of either. A map becomes a tree with
one band.
"""
from __future__ import annotations

import islpy as isl

from polysched.dependence import ScheduleError, parse_schedule
from polysched.dependence.flatten import flatten_map
from polysched.dependence.legality import _to_tree, check_parameters, check_statements, check_tree_instances


def as_tree(scop, schedule) -> isl.Schedule:
    """An ``isl.Schedule`` over ``scop.domain`` (``ScheduleError`` if unparsable)."""
    if isinstance(schedule, str):
        schedule = parse_schedule(schedule, scop.domain.get_ctx())
    if isinstance(schedule, isl.Schedule):
        check_parameters(scop, schedule.get_map())
        check_statements(scop, schedule.get_domain())
        check_tree_instances(schedule, scop.domain, scop.context)
        return schedule
    if isinstance(schedule, isl.Map):
        schedule = isl.UnionMap.from_map(schedule)
    if isinstance(schedule, isl.UnionMap):
        check_parameters(scop, schedule)
        check_statements(scop, schedule.domain())
        maps = flatten_map(schedule.intersect_domain(scop.domain))
        for name, time in maps.items():
            # isl refuses to make a band of a relation (MultiUnionPwAff.from_union_map)
            if not time.is_single_valued():
                raise ScheduleError(f"the schedule gives several times to some instance of {name}")
        return _to_tree(scop.domain, maps)
    raise ScheduleError(f"a schedule is an isl.Schedule, an isl.UnionMap or isl text, "
                        f"not {type(schedule).__name__}")
