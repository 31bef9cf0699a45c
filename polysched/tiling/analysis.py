"""Dependence questions asked by the tiling pass, answered with isl.

Notation: a dependence relation is ``{ S[i] -> T[j] }`` (source instance to sink
instance); a schedule "row set" is a union map ``{ S[i] -> [t0, ..., tk] }`` giving the
values of some schedule dimensions (outer dimensions first) for every instance.

Parallelism is always recomputed here from the dependences; the coincident flags of
a tree handed to us are never trusted.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polysched.dependence import memory_dependences, statement_times, violated_dependences
from polysched.islutil import maps_of, sets_of
from polysched.scop.model import Scop




def restrict_to_array(umap: isl.UnionMap, array: str) -> isl.UnionMap:
    """The part of an access relation ``{ S[i] -> A[f(i)] }`` that touches ``array``."""
    result = isl.UnionMap.empty(umap.get_space())
    for m in maps_of(umap):
        if m.get_tuple_name(isl.dim_type.out) == array:
            result = result.union(isl.UnionMap.from_map(m))
    return result


@dataclass
class ScalarFlow:
    """Value-based dataflow of one scalar ``x``: ``flow { W[i] -> R[j] }`` (the write
    whose value the read sees) and ``live_in { R[j] }`` (reads that may see the value
    from before the scop)."""

    flow: isl.UnionMap
    live_in: isl.UnionSet


class ScopAccesses:
    """Per-array memory dependences and scalar dataflow of a scop, computed once.

    Memory-based (every write a may-source, nothing killed), with the original
    schedule: ``memory[A] = raw ∪ war ∪ waw`` restricted to accesses of ``A``.
    """

    def __init__(self, scop: Scop):
        self.scop = scop
        self.reads = scop.reads
        self.writes = scop.writes.union(scop.may_writes)
        self.memory: dict[str, isl.UnionMap] = {}
        times = statement_times(scop)
        for name in scop.arrays:
            reads = restrict_to_array(self.reads, name)
            writes = restrict_to_array(self.writes, name)
            self.memory[name] = memory_dependences(writes, reads, times).union(
                memory_dependences(reads, writes, times)).union(memory_dependences(writes, writes, times))
        self._scalar_flow: dict[str, ScalarFlow] = {}

    def all_memory(self) -> isl.UnionMap:
        result = isl.UnionMap.empty(self.scop.context.get_space())
        for deps in self.memory.values():
            result = result.union(deps)
        return result

    def memory_except(self, names: set[str]) -> isl.UnionMap:
        result = isl.UnionMap.empty(self.scop.context.get_space())
        for name, deps in self.memory.items():
            if name not in names:
                result = result.union(deps)
        return result

    def scalar_flow(self, name: str) -> ScalarFlow:
        """Value-based flow of scalar ``name`` (must-writes kill earlier values)."""
        if name not in self._scalar_flow:
            reads = restrict_to_array(self.reads, name)
            must = restrict_to_array(self.scop.writes, name)
            may = restrict_to_array(self.scop.may_writes, name)
            info = isl.UnionAccessInfo.from_sink(reads).set_must_source(must).set_may_source(may)
            flow = info.set_schedule(self.scop.schedule).compute_flow()
            self._scalar_flow[name] = ScalarFlow(
                flow.get_may_dependence(), flow.get_may_no_source().domain())
        return self._scalar_flow[name]


def rows(*parts: isl.UnionMap) -> isl.UnionMap:
    """Concatenate schedule row sets ``{ S -> [a] }``, ``{ S -> [b] }`` into ``{ S -> [a, b] }``."""
    result = parts[0]
    for part in parts[1:]:
        result = result.flat_range_product(part)
    return result


def mupa_rows(mupa: isl.MultiUnionPwAff, members: list[int] | None = None) -> isl.UnionMap:
    """``{ S[i] -> [m_k(i) for k in members] }`` from a band's partial schedule."""
    members = list(range(mupa.dim(isl.dim_type.set))) if members is None else members
    result = None
    for k in members:
        part = isl.UnionMap.from_union_pw_aff(mupa.get_at(k))
        result = part if result is None else result.flat_range_product(part)
    return result


def same_value(row_set: isl.UnionMap) -> isl.UnionMap:
    """``{ S[i] -> T[j] : R(S[i]) = R(T[j]) }`` for a row set ``R``."""
    return row_set.apply_range(row_set.reverse())


def live(deps: isl.UnionMap, outer: isl.UnionMap) -> isl.UnionMap:
    """The dependences not yet carried by the ``outer`` rows (equal outer values).

    Also restricts both ends to the instances ``outer`` is defined on, so dependences
    between different children of a sequence above are dropped (the sequence orders them).
    """
    return deps.intersect(same_value(outer))


def is_parallel(deps: isl.UnionMap, outer: isl.UnionMap, member: isl.UnionMap) -> bool:
    """True when every dependence with equal ``outer`` rows has equal ``member`` value:
    the loop of ``member`` inside the loops of ``outer`` carries no dependence."""
    return live(deps, outer).is_subset(same_value(member))


def is_forward(deps: isl.UnionMap, outer: isl.UnionMap, member: isl.UnionMap) -> bool:
    """True when ``member(sink) >= member(source)`` for every dependence live at ``outer``."""
    return live(deps, outer).is_subset(member.lex_le_union_map(member))


def is_permutable(deps: isl.UnionMap, outer: isl.UnionMap, mupa: isl.MultiUnionPwAff) -> bool:
    """A band is permutable (rectangular tiling is legal) when each member is forward on
    every dependence not carried by the outer rows."""
    return all(is_forward(deps, outer, mupa_rows(mupa, [k]))
               for k in range(mupa.dim(isl.dim_type.set)))


def empty_rows(domain: isl.UnionSet) -> isl.UnionMap:
    """``{ S[i] -> [] }`` on ``domain``: the row set of no dimension."""
    return isl.UnionMap.from_domain_and_range(
        domain, isl.UnionSet(isl.Set.universe(isl.Space.set_alloc(domain.get_ctx(), 0, 0))))


def prefix_rows(node: isl.ScheduleNode) -> isl.UnionMap:
    """The outer band rows at ``node`` restricted to the instances reaching it."""
    return node.get_prefix_schedule_union_map().intersect_domain(node.get_domain())


def prefix_is_empty(prefix: isl.UnionMap) -> bool:
    """True when the row set ``{ S[i] -> [] }`` has no dimension (a band at the root)."""
    found = maps_of(prefix)
    return not found or found[0].dim(isl.dim_type.out) == 0


def is_legal(schedule: isl.Schedule, validity: isl.UnionMap) -> bool:
    return violated_dependences(schedule, validity).is_empty()
