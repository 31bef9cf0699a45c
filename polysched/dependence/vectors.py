"""Carrying loop levels, distance vectors and direction vectors of one dependence.

All vectors are taken over the loops that surround both the source and the sink in
the original schedule (outermost first), in *schedule* coordinates: component k is
``t_k(sink) - t_k(source)`` for the k-th common loop, so a positive entry means the
sink runs in a later iteration of that loop (direction ``<`` in Wolfe's notation).
"""
from __future__ import annotations

import islpy as isl

from .flatten import FlatSchedule

# (some difference > 0, some == 0, some < 0) -> Wolfe direction symbol
_SYMBOL = {
    (True, False, False): "<",
    (False, True, False): "=",
    (False, False, True): ">",
    (True, True, False): "<=",
    (False, True, True): ">=",
}


def loop_deltas(relation: isl.Map, flat: FlatSchedule) -> tuple[isl.Set, list[int]]:
    """``{ [d_0, ..., d_{c-1}] }``: the differences ``t(sink) - t(source)`` of the
    original schedule on the ``c`` common flat dimensions of ``relation``
    (``{ S[i] -> T[j] }``), and the positions of the common loops among them."""
    source = relation.get_tuple_name(isl.dim_type.in_)
    sink = relation.get_tuple_name(isl.dim_type.out)
    n_common = flat.common_prefix(source, sink)
    loops = flat.common_loops(source, sink)
    n = flat.n_dims

    def prefix(m: isl.Map) -> isl.Map:
        return m.project_out(isl.dim_type.out, n_common, n - n_common)

    times = relation.apply_domain(prefix(flat.maps[source])).apply_range(prefix(flat.maps[sink]))
    return times.deltas(), loops


def _only_loops(deltas: isl.Set, loops: list[int]) -> isl.Set:
    """Drop the sequence positions of the common prefix (their difference is 0)."""
    for pos in reversed(range(deltas.dim(isl.dim_type.set))):
        if pos not in loops:
            deltas = deltas.project_out(isl.dim_type.set, pos, 1)
    return deltas


def carrying_levels(deltas: isl.Set, loops: list[int]) -> list[int]:
    """1-based levels of the common loops that carry some instance pair of the
    dependence; 0 stands for loop-independent (ordered by statement order within the
    innermost common loop iteration)."""
    levels = []
    rest = deltas
    for level, pos in enumerate(loops, start=1):
        carried = rest.lower_bound_val(isl.dim_type.set, pos, isl.Val(1))
        if not carried.is_empty():
            levels.append(level)
        rest = rest.fix_val(isl.dim_type.set, pos, isl.Val(0))
        if rest.is_empty():
            return levels
    if not rest.is_empty():
        levels.append(0)
    return levels


def component(deltas: isl.Set, pos: int) -> int | str:
    """The difference on dimension ``pos``: an int when it is the same for every
    instance pair, else its Wolfe direction (``<``, ``=``, ``>``, ``<=``, ``>=``, ``*``)."""
    fixed = deltas.plain_get_val_if_fixed(isl.dim_type.set, pos)
    if not fixed.is_nan():
        return fixed.to_python()
    positive = not deltas.lower_bound_val(isl.dim_type.set, pos, isl.Val(1)).is_empty()
    zero = not deltas.fix_val(isl.dim_type.set, pos, isl.Val(0)).is_empty()
    negative = not deltas.upper_bound_val(isl.dim_type.set, pos, isl.Val(-1)).is_empty()
    if zero and not positive and not negative:
        return 0
    return _SYMBOL.get((positive, zero, negative), "*")


def direction(value: int | str) -> str:
    if isinstance(value, int):
        return "<" if value > 0 else ">" if value < 0 else "="
    return value


def distances(deltas: isl.Set, limit: int = 64) -> list[tuple[int, ...]] | None:
    """Every distance vector of ``deltas`` over all parameter values, when that is a
    finite set of at most ``limit`` constant vectors (the dependence is a union of
    uniform ones), else ``None``."""
    n_params = deltas.dim(isl.dim_type.param)
    flat = deltas.project_out(isl.dim_type.param, 0, n_params) if n_params else deltas
    if not flat.is_bounded():
        return None
    points: list[tuple[int, ...]] = []
    n = flat.dim(isl.dim_type.set)
    # Never raise inside isl's callback (islpy prints the traceback): enumerate only
    # when the bounding box is small, then compare the count with the limit.
    volume = 1
    try:
        for k in range(n):
            low, high = flat.dim_min_val(k), flat.dim_max_val(k)
            if not (low.is_int() and high.is_int()):
                return None
            volume *= max(0, high.to_python() - low.to_python() + 1)
            if volume > 64 * limit:
                return None
        flat.foreach_point(lambda point: points.append(
            tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n))))
    except isl.Error:
        return None
    if len(points) > limit:
        return None
    return sorted(points, reverse=True)


def _group_last(vectors: list[tuple[int, ...]]) -> list[tuple]:
    """Collapse vectors that differ only in their last component: ``(1, -1, -1)``,
    ``(1, -1, 0)``, ``(1, -1, 1)`` -> ``(1, -1, '*')``."""
    if not vectors or not vectors[0]:
        return [tuple(v) for v in vectors]
    groups: dict[tuple, list[int]] = {}
    for v in vectors:
        groups.setdefault(v[:-1], []).append(v[-1])
    result = []
    for prefix, lasts in groups.items():
        if len(lasts) == 1:
            result.append(prefix + (lasts[0],))
        else:
            key = (any(x > 0 for x in lasts), 0 in lasts, any(x < 0 for x in lasts))
            result.append(prefix + (_SYMBOL.get(key, "*"),))
    return result


def level_vectors(deltas: isl.Set, loops: list[int]) -> list[tuple]:
    """One mixed vector per carrying level: the part of ``deltas`` carried by common
    loop ``l`` (earlier loops 0, loop ``l`` > 0), e.g. ``(0, '<', '*')``."""
    result = []
    rest = deltas
    dims = range(len(loops))
    for pos in loops:
        carried = rest.lower_bound_val(isl.dim_type.set, pos, isl.Val(1))
        if not carried.is_empty():
            only = _only_loops(carried, loops).detect_equalities()
            result.append(tuple(component(only, p) for p in dims))
        rest = rest.fix_val(isl.dim_type.set, pos, isl.Val(0))
    if not rest.is_empty():
        result.append(tuple(0 for _ in dims))
    return result


def summarize(relation: isl.Map, flat: FlatSchedule) -> dict:
    """Levels, distance (if uniform), direction, distances (if a finite union of
    uniform ones) and mixed vectors (ints where constant, direction symbols elsewhere:
    finite distance sets grouped on their last loop, else one vector per carrying
    level), e.g. ``(1, -1, '*')``."""
    deltas, loop_positions = loop_deltas(relation, flat)
    deltas = deltas.coalesce().detect_equalities()
    levels = carrying_levels(deltas, loop_positions)
    loop_deltas_only = _only_loops(deltas, loop_positions).coalesce()
    dims = range(len(loop_positions))
    overall = tuple(component(loop_deltas_only, p) for p in dims)
    distance = overall if all(isinstance(c, int) for c in overall) else None
    finite = distances(loop_deltas_only)
    vectors = _group_last(finite) if finite is not None else level_vectors(deltas, loop_positions)
    return {
        "common_loops": len(loop_positions),
        "levels": levels,
        "distance": distance,
        "direction": tuple(direction(c) for c in overall),
        "distances": finite,
        "vectors": vectors,
    }
