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
from polysched.dependence.legality import _to_tree, check_tree_instances
from polysched.islutil import sets_of


def as_tree(scop, schedule) -> isl.Schedule:
    """An ``isl.Schedule`` over ``scop.domain`` (``ScheduleError`` if unparsable)."""
    if isinstance(schedule, str):
        schedule = parse_schedule(schedule, scop.domain.get_ctx())
    if isinstance(schedule, isl.Schedule):
        _check_parameters(scop, schedule.get_map())
        _check_statements(scop, schedule.get_domain())
        check_tree_instances(schedule, scop.domain, scop.context)
        return schedule
    if isinstance(schedule, isl.Map):
        schedule = isl.UnionMap.from_map(schedule)
    if isinstance(schedule, isl.UnionMap):
        _check_parameters(scop, schedule)
        _check_statements(scop, schedule.domain())
        maps = flatten_map(schedule.intersect_domain(scop.domain))
        for name, time in maps.items():
            # isl refuses to make a band of a relation (MultiUnionPwAff.from_union_map)
            if not time.is_single_valued():
                raise ScheduleError(f"the schedule gives several times to some instance of {name}")
        return _to_tree(scop.domain, maps)
    raise ScheduleError(f"a schedule is an isl.Schedule, an isl.UnionMap or isl text, "
                        f"not {type(schedule).__name__}")


def _check_statements(scop, domain: isl.UnionSet) -> None:
    """Refuse a schedule over a statement the region does not have (a map's extra
    statement would be dropped without a word: most likely a typo or another program's)."""
    known = [s.name for s in scop.statements]
    unknown = sorted({s.get_tuple_name() or "an unnamed tuple" for s in sets_of(domain)} - set(known))
    if unknown:
        raise ScheduleError(f"the schedule names {', '.join(unknown)}, which the region does not have "
                            f"(its statements: {', '.join(known)})")
    depth = {s.name: s.domain.dim(isl.dim_type.set) for s in scop.statements}
    for instances in sets_of(domain):
        name = instances.get_tuple_name()
        if instances.dim(isl.dim_type.set) != depth[name]:
            raise ScheduleError(f"the schedule's {name} has {instances.dim(isl.dim_type.set)} dimension(s); "
                                f"the region's {name} has {depth[name]} (its loops)")


def _parameter_names(obj) -> list[str]:
    space = obj.get_space()
    return [space.get_dim_name(isl.dim_type.param, k) for k in range(space.dim(isl.dim_type.param))]


def _check_parameters(scop, schedule: isl.UnionMap) -> None:
    """Refuse a schedule naming a parameter the region does not have: isl's code
    generator would stop on it ("band node is not allowed to introduce new parameters")."""
    known = set(_parameter_names(scop.domain)) | set(_parameter_names(scop.context))
    unknown = [name for name in _parameter_names(schedule) if name not in known]
    if unknown:
        have = ", ".join(sorted(known)) or "none"
        raise ScheduleError(f"the schedule uses parameter {', '.join(unknown)}, which the region "
                            f"does not have (its parameters: {have})")
