"""Which band member walks memory with stride 1: the point-loop order model.

For one statement ``S`` with full schedule rows ``F: { S[i] -> [v] }`` (outer rows,
then the band, then everything below) and an access ``A: { S[i] -> X[a] }``, moving
band member ``k`` by one with all other rows fixed changes the subscript by
``deltas { A(F^-1(v)) -> A(F^-1(v + e_k)) }``:

- ``{ [0, ..., 0, ±1] }``: stride 1 (the last subscript moves by one, no other does);
- ``{ [0, ..., 0] }``: invariant (the reference is reused in registers);
- anything else: strided (a new cache line per iteration).
"""
from __future__ import annotations

from enum import Enum

import islpy as isl

from polysched.islutil import maps_of, val
from polysched.scop.model import Scop


class Stride(Enum):
    UNIT = "unit"
    INVARIANT = "invariant"
    STRIDED = "strided"
    UNKNOWN = "unknown"


_SCORE = {Stride.UNIT: 2, Stride.INVARIANT: 1, Stride.STRIDED: -2, Stride.UNKNOWN: 0}


def _shift(n_dims: int, k: int) -> isl.Map:
    """``{ [v0, ..., vn-1] -> [v0, ..., vk + 1, ...] }``."""
    names = [f"v{i}" for i in range(n_dims)]
    image = [f"{n} + 1" if i == k else n for i, n in enumerate(names)]
    return isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(image)}] }}")


def classify(full_rows: isl.Map, access: isl.Map, position: int) -> Stride:
    """Stride of ``access`` (``{ S[i] -> X[a] }``) along row ``position`` of
    ``full_rows`` (``{ S[i] -> [v] }``, injective on the statement's domain)."""
    n_subscripts = access.dim(isl.dim_type.out)
    if n_subscripts == 0:
        return Stride.INVARIANT
    n_rows = full_rows.dim(isl.dim_type.out)
    # drop tuple names so the anonymous shift map fits the row space
    rows = full_rows.reset_tuple_id(isl.dim_type.out)
    by_rows = rows.reverse().apply_range(access)                # { [v] -> X[a] }
    moved = by_rows.reverse().apply_range(_shift(n_rows, position).align_params(
        by_rows.get_space())).apply_range(by_rows)             # { X[a] -> X[a'] }
    deltas = moved.deltas()
    if deltas.is_empty():
        return Stride.UNKNOWN
    zero = [0] * n_subscripts
    if _is_points(deltas, [zero]):
        return Stride.INVARIANT
    if _is_points(deltas, [zero[:-1] + [1], zero[:-1] + [-1]]):
        return Stride.UNIT
    return Stride.STRIDED


def _is_points(deltas: isl.Set, points: list[list[int]]) -> bool:
    allowed = None
    for point in points:
        s = isl.Set.universe(deltas.get_space())
        for i, value in enumerate(point):
            s = s.fix_val(isl.dim_type.set, i, val(value))
        allowed = s if allowed is None else allowed.union(s)
    return deltas.is_subset(allowed)


def _array_references(scop: Scop, node: isl.ScheduleNode):
    """Every (schedule rows, access, relation) of a non-scalar reference under the band
    at ``node``: ``rows`` is ``{ S[i] -> [outer rows, band rows, inner rows] }`` and
    ``relation`` the access restricted to the instances reaching the band."""
    full = node.get_prefix_schedule_union_map().flat_range_product(
        node.get_subtree_schedule_union_map()).intersect_domain(node.get_domain())
    for rows in maps_of(full):
        try:
            stmt = scop.statement(rows.get_tuple_name(isl.dim_type.in_))
        except KeyError:
            continue
        for acc in stmt.accesses:
            array = scop.arrays.get(acc.array)
            if array is not None and array.is_scalar:
                continue
            yield rows, acc, acc.relation.intersect_domain(rows.domain())


def member_scores(scop: Scop, node: isl.ScheduleNode, n_prefix: int) -> list[int]:
    """Score of each member of the band at ``node``: +2 per stride-1 reference, +1 per
    invariant one, -2 per strided one, over every statement under the band."""
    scores = [0] * node.band_n_member()
    for rows, _, relation in _array_references(scop, node):
        for k in range(len(scores)):
            scores[k] += _SCORE[classify(rows, relation, n_prefix + k)]
    return scores


def _write_strides(scop: Scop, node: isl.ScheduleNode, n_prefix: int) -> list[list[Stride]]:
    """Per member of the band at ``node``: the stride class of every array write under it."""
    result: list[list[Stride]] = [[] for _ in range(node.band_n_member())]
    for rows, acc, relation in _array_references(scop, node):
        if acc.kind == "read":
            continue
        for k, strides in enumerate(result):
            strides.append(classify(rows, relation, n_prefix + k))
    return result


def unit_stride_writes(scop: Scop, node: isl.ScheduleNode, n_prefix: int) -> list[bool]:
    """Per member of the band at ``node``: does some array write walk stride 1 along it?"""
    return [Stride.UNIT in strides for strides in _write_strides(scop, node, n_prefix)]


def invariant_writes(scop: Scop, node: isl.ScheduleNode, n_prefix: int) -> list[bool]:
    """Per member of the band at ``node``: is every array write under the band the same
    element all along it (gemm's ``C[i][j]`` along ``k``), so that copies of that loop
    jammed together update one element in a register?"""
    return [bool(strides) and all(x == Stride.INVARIANT for x in strides)
            for strides in _write_strides(scop, node, n_prefix)]


def member_strides(scop: Scop, node: isl.ScheduleNode, n_prefix: int, member: int) -> list[Stride]:
    """The stride class of every array reference under the band along ``member``."""
    return [classify(rows, relation, n_prefix + member)
            for rows, _, relation in _array_references(scop, node)]


def point_order(scores: list[int], vectorizable: list[bool] | None = None) -> list[int]:
    """Member order with the best-scoring member innermost, others in their order.

    ``vectorizable[k]``: member ``k`` would be a parallel innermost loop storing with
    stride 1 (a SIMD loop); such members are preferred over a better-scoring one that
    is not (a reduction innermost does not vectorise without reassociation).
    ``point_order([-5, 7, 2]) == [0, 2, 1]`` (gemm: (i, j, k) -> (i, k, j)). The
    order is kept when the current innermost member is already (one of) the best.
    """
    n = len(scores)
    vectorizable = vectorizable or [False] * n
    key = lambda k: (vectorizable[k], scores[k], k)  # noqa: E731
    best = max(range(n), key=key)
    if key(best)[:2] <= key(n - 1)[:2]:
        return list(range(n))
    return [k for k in range(n) if k != best] + [best]
