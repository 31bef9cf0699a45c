"""Flatten a schedule tree into one schedule map with labelled dimensions.

``flatten(schedule)`` returns, for every statement, its flat schedule map
``{ S[i, j] -> [t0, ..., t_{n-1}] }`` (all statements padded with zeros to the
same ``n`` and to one anonymous range space, so that ``lex_lt_map`` compares any
two of them) and the *label* of every dimension: a loop (one member of a band
node) or a sequence position (the index of the child of a sequence/set node).

Why not just ``Schedule.get_map()``: we need to know which flat dimensions are
loops (to report carrying loop levels and distance vectors over the loops two
statements share) and isl does not say; building the map ourselves guarantees
that the labels and the dimensions agree.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polysched.islutil import maps_of


@dataclass(frozen=True)
class DimLabel:
    """One flat schedule dimension.

    ``kind`` is ``"loop"`` (member ``member`` of the band at tree path ``path``) or
    ``"seq"`` (child ``member`` of the sequence/set node at ``path``). Two
    statements share a dimension exactly when their labels are equal.
    """

    kind: str
    path: tuple[int, ...]
    member: int

    @property
    def is_loop(self) -> bool:
        return self.kind == "loop"


@dataclass
class FlatSchedule:
    """``maps[S]``: ``{ S[i] -> [t0, ..., t_{n-1}] }``; ``labels[S]``: the labels of
    S's own dimensions (``len(labels[S]) <= n``; the rest is zero padding)."""

    maps: dict[str, isl.Map]
    labels: dict[str, list[DimLabel]]
    n_dims: int

    @property
    def union_map(self) -> isl.UnionMap:
        result = None
        for m in self.maps.values():
            um = isl.UnionMap.from_map(m)
            result = um if result is None else result.union(um)
        return result

    def common_prefix(self, source: str, sink: str) -> int:
        """Number of leading flat dimensions that ``source`` and ``sink`` share."""
        a, b = self.labels[source], self.labels[sink]
        n = 0
        while n < len(a) and n < len(b) and a[n] == b[n]:
            n += 1
        return n

    def common_loops(self, source: str, sink: str) -> list[int]:
        """Flat positions of the loops surrounding both statements, outermost first."""
        n = self.common_prefix(source, sink)
        return [p for p in range(n) if self.labels[source][p].is_loop]



def _constant(domain: isl.UnionSet, value: int) -> isl.UnionMap:
    """``{ S[i] -> [value] : S[i] in domain }``."""
    target = isl.UnionSet(isl.Set(f"{{ [{value}] }}", context=domain.get_ctx()))
    return isl.UnionMap.from_domain_and_range(domain, target)


def flatten(schedule: isl.Schedule) -> FlatSchedule:
    """Flatten ``schedule`` (domain, band, sequence, set, filter, mark, context nodes).

    Raises ``ValueError`` for node types that change the instance set (extension,
    expansion), which the original schedule and computed schedules never contain.
    """
    pieces: list[tuple[isl.UnionMap, list[DimLabel]]] = []

    def walk(node: isl.ScheduleNode, path: tuple[int, ...], current: isl.UnionMap,
             labels: list[DimLabel]) -> None:
        kind = node.get_type()
        t = isl.schedule_node_type
        if kind == t.leaf:
            pieces.append((current, labels))
            return
        if kind == t.band:
            n = node.band_n_member()
            if n > 0:
                partial = node.band_get_partial_schedule_union_map()
                current = current.flat_range_product(partial.intersect_domain(current.domain()))
                labels = labels + [DimLabel("loop", path, k) for k in range(n)]
            walk(node.child(0), path + (0,), current, labels)
            return
        if kind in (t.sequence, t.set):
            for k in range(node.n_children()):
                child = node.child(k)
                filt = child.filter_get_filter()
                sub = current.intersect_domain(filt)
                if sub.is_empty():
                    continue
                sub = sub.flat_range_product(_constant(sub.domain(), k))
                walk(child, path + (k,), sub, labels + [DimLabel("seq", path, k)])
            return
        if kind == t.filter:
            current = current.intersect_domain(node.filter_get_filter())
        elif kind in (t.extension, t.expansion):
            raise ValueError(f"schedule trees with {kind} nodes are not supported")
        for k in range(node.n_children()):
            walk(node.child(k), path + (k,), current, labels)

    root = schedule.get_root()
    domain = schedule.get_domain()
    walk(root, (), isl.UnionMap.from_domain(domain), [])

    n_dims = max((len(lbl) for _, lbl in pieces), default=0)
    maps: dict[str, isl.Map] = {}
    labels: dict[str, list[DimLabel]] = {}
    for umap, lbl in pieces:
        for m in maps_of(umap):
            name = m.get_tuple_name(isl.dim_type.in_)
            m = pad(m, n_dims)
            maps[name] = maps[name].union(m) if name in maps else m
            labels.setdefault(name, lbl)
    return FlatSchedule(maps, labels, n_dims)


def pad(m: isl.Map, n_dims: int) -> isl.Map:
    """``{ S[i] -> [t] }`` padded with zeros to ``n_dims`` output dimensions, with an
    anonymous range tuple."""
    have = m.dim(isl.dim_type.out)
    if have < n_dims:
        m = m.add_dims(isl.dim_type.out, n_dims - have)
        for p in range(have, n_dims):
            m = m.fix_val(isl.dim_type.out, p, isl.Val(0))
    if m.has_tuple_id(isl.dim_type.out):
        m = m.reset_tuple_id(isl.dim_type.out)
    return m


def flatten_map(schedule_map: isl.UnionMap) -> dict[str, isl.Map]:
    """Per statement ``{ S[i] -> [t] }`` from a union schedule map, padded to one space."""
    ms = maps_of(schedule_map)
    n_dims = max((m.dim(isl.dim_type.out) for m in ms), default=0)
    result: dict[str, isl.Map] = {}
    for m in ms:
        name = m.get_tuple_name(isl.dim_type.in_)
        m = pad(m, n_dims)
        result[name] = result[name].union(m) if name in result else m
    return result
