"""The stride-1 loop order of untiled code (``optimize`` without ``--tile``/``--parallel``).

Pluto's scheduler puts the members of a permutable band in the order it found them:
the ones that carry no dependence first, for outer parallelism. Without a tiling
stage nothing reorders them afterwards, so ``for i for j y[j] += A[i][j] * x[i]``
came out as ``for j for i``: ``A`` walked down its columns and a reduction innermost,
4.5-5.8x slower than the source (tester helper-102, D3).

`stride_one_order` moves, in each innermost permutable band, a member that can be the
vector loop to the innermost place, but only where the innermost member walks some
array across rows (a new cache line per iteration) and the one moved walks none. It is
the tiling policy's point order (`polysched.tiling.stride.point_order`) restricted to
the cases where it cannot lose: gesummv's ``y[i] += B[i][j] * x[j]``, a reduction
along a row, keeps its order (with ``i`` innermost, ``B`` would be walked by columns).
"""
from __future__ import annotations

import islpy as isl

from polysched.dependence import is_legal
from polysched.dependence.loops import band_flags, is_parallel, mupa_rows, prefix_rows, rows
from polysched.dependence.scalars import ScopAccesses
from polysched.errors import TransformError
from polysched.islutil import sets_of
from polysched.scop.model import Scop
from polysched.transform import primitives
from polysched.transform.loops import node_at, path_of

from .transform import band_first_loop, memory_validity
from .stride import Stride, member_scores, member_strides, unit_stride_writes

_band = isl.schedule_node_type.band


def stride_one_order(scop: Scop, deps, schedule: isl.Schedule) -> tuple[isl.Schedule, list[dict], list[str]]:
    """``(schedule, steps, notes)``: ``schedule`` (a tree over ``scop.domain``) with the
    members of its innermost permutable bands reordered as the module docstring says;
    ``steps``: the `polysched.Program` ``permute`` steps that did it; ``notes``: one
    sentence per reordered band. ``deps``: a ``Dependences``, a validity
    ``isl.UnionMap`` or None (memory dependences per array are always added)."""
    validity = memory_validity(scop, ScopAccesses(scop), deps)
    result, steps, notes = schedule, [], []
    for path in _leaf_bands(schedule):
        node = node_at(result, path)
        order = _order(scop, validity, node)
        if order is None:
            continue
        present = {s.get_tuple_name() for s in sets_of(node.get_domain())}
        loop = band_first_loop(scop, result, path, present, {})
        if loop is None:
            continue
        stmt, depth = loop
        try:
            candidate = primitives.permute(scop, result, stmt, [depth + k for k in order])
        except TransformError:
            continue
        if not is_legal(candidate, validity):     # (permutable: cannot happen; never hand it out)
            continue
        result = candidate
        steps.append({"op": "permute", "args": {"stmt": stmt, "order": [depth + k for k in order]}})
        notes.append(f"loops of {stmt} from depth {depth} reordered {order}: the innermost walks "
                     f"no array across rows")
    return result, steps, notes


def _leaf_bands(schedule: isl.Schedule) -> list[tuple[int, ...]]:
    """Paths of the bands of two or more members with no band below them."""
    found = []

    def visit(node: isl.ScheduleNode) -> bool:
        below = False
        for i in range(node.n_children()):
            below = visit(node.child(i)) or below
        is_band = node.get_type() == _band and node.band_n_member() > 0
        if is_band and not below and node.band_n_member() >= 2:
            found.append(path_of(node))
        return below or is_band

    visit(schedule.get_root())
    return found


def _order(scop: Scop, validity: isl.UnionMap, node: isl.ScheduleNode) -> list[int] | None:
    """The new member order of the band at ``node``, or None to keep it."""
    n = node.band_n_member()
    mupa = node.band_get_partial_schedule()
    domain = node.get_domain()
    inside = validity.intersect_domain(domain).intersect_range(domain)
    prefix = prefix_rows(node)
    if not band_flags(inside, prefix, mupa).permutable:
        return None
    n_prefix = node.get_schedule_depth()
    strided = [Stride.STRIDED in member_strides(scop, node, n_prefix, k) for k in range(n)]
    if not strided[-1]:
        return None
    unit_writes = unit_stride_writes(scop, node, n_prefix)
    members = [mupa_rows(mupa, [k]) for k in range(n)]
    candidates = [k for k in range(n - 1) if unit_writes[k] and not strided[k] and
                  is_parallel(inside, rows(prefix, *(members[m] for m in range(n) if m != k)), members[k])]
    if not candidates:
        return None
    scores = member_scores(scop, node, n_prefix)
    best = max(candidates, key=lambda k: (scores[k], k))
    return [k for k in range(n) if k != best] + [best]
