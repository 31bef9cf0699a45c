"""Exact dependence analysis of a SCoP with isl.

``analyze(scop)`` returns a ``Dependences`` whose relations are isl union maps over
statement instances, ``[params] -> { S1[i, j] -> S2[i', j'] : ... }``, each pair
meaning "the source instance runs before the sink instance in the original schedule
and both touch the same array element":

- ``flow``: value-based read-after-write (the last writer of the value a read sees),
  from isl's dataflow analysis with must-writes as killing sources and may-writes as
  non-killing sources;
- ``raw``, ``war``, ``waw``: memory-based read-after-write, write-after-read (anti) and
  write-after-write (output), every earlier conflicting access, no kills;
- ``rar``: read-after-read (input), for locality only, never for legality.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cached_property

import islpy as isl
import networkx as nx

from polysched.errors import ArgumentError
from polysched.islutil import isl_operation_cap, maps_of

from polysched.scop.model import Scop

from .flatten import FlatSchedule, flatten
from .vectors import summarize

KINDS = ("flow", "raw", "war", "waw", "rar")
VALIDITY_KINDS = ("raw", "war", "waw")


@dataclass
class PairDependence:
    """The dependences of one kind from statement ``source`` to statement ``sink``.

    ``relation``: ``[params] -> { S[i] -> T[j] : ... }``. Vectors are over the
    ``common_loops`` loops surrounding both statements in the original schedule, in
    schedule coordinates (sink minus source). ``levels``: the 1-based common loops
    that carry some instance pair, 0 for loop-independent pairs. ``distance``: the
    constant difference vector when the dependence is uniform, else ``None``.
    ``direction``: Wolfe direction per common loop (``<``, ``=``, ``>``, ``<=``,
    ``>=``, ``*``). ``distances``: all distance vectors when the dependence is a
    finite union of uniform ones, else ``None``. ``vectors``: mixed vectors, ints
    where constant and direction symbols elsewhere, e.g. ``(1, -1, '*')``: the
    distances grouped on their last component, or else one per carrying level.
    """

    kind: str
    source: str
    sink: str
    relation: isl.Map
    common_loops: int
    levels: list[int]
    distance: tuple[int, ...] | None
    direction: tuple[str, ...]
    distances: list[tuple[int, ...]] | None = None
    vectors: list[tuple] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "source": self.source,
            "sink": self.sink,
            "relation": str(self.relation),
            "common_loops": self.common_loops,
            "levels": self.levels,
            "distance": list(self.distance) if self.distance is not None else None,
            "direction": list(self.direction),
            "distances": [list(v) for v in self.distances] if self.distances is not None else None,
            "vectors": [list(v) for v in self.vectors],
        }



class Dependences:
    """All dependences of one SCoP (see the module docstring for each kind).

    Attributes ``flow, raw, war, waw, rar`` are ``isl.UnionMap`` in the SCoP's
    parameter space, ``{ S[i] -> T[j] }``, restricted to the SCoP's context.
    """

    def __init__(self, scop: Scop, flow: isl.UnionMap, raw: isl.UnionMap,
                 war: isl.UnionMap, waw: isl.UnionMap, rar: isl.UnionMap,
                 original: FlatSchedule):
        self.scop = scop
        self.flow = flow
        self.raw = raw
        self.war = war
        self.waw = waw
        self.rar = rar
        self.original = original
        self._pairs: dict[str, list[PairDependence]] = {}
        # one line per approximation analyze() made (exact dataflow past its budget)
        self.notes: list[str] = []

    @property
    def validity(self) -> isl.UnionMap:
        """raw ∪ war ∪ waw: what a schedule that does not expand arrays must respect."""
        return self.raw.union(self.war).union(self.waw)

    @property
    def proximity(self) -> isl.UnionMap:
        """flow ∪ rar: reuse a schedule should bring close together."""
        return self.flow.union(self.rar)

    def relation(self, kind: str) -> isl.UnionMap:
        if kind not in KINDS:
            raise ArgumentError(f"unknown dependence kind {kind!r} (expected one of {', '.join(KINDS)})")
        return getattr(self, kind)

    def pairs(self, kind: str) -> list[PairDependence]:
        """Per (source statement, sink statement) records of ``kind``, in statement order."""
        if kind not in self._pairs:
            order = {s.name: k for k, s in enumerate(self.scop.statements)}
            records = []
            for m in maps_of(self.relation(kind)):
                if m.is_empty():
                    continue
                m = self._named(m.coalesce())
                info = summarize(m, self.original)
                records.append(PairDependence(
                    kind=kind,
                    source=m.get_tuple_name(isl.dim_type.in_),
                    sink=m.get_tuple_name(isl.dim_type.out),
                    relation=m, **info))
            records.sort(key=lambda r: (order.get(r.source, 1 << 30), order.get(r.sink, 1 << 30)))
            self._pairs[kind] = records
        return self._pairs[kind]

    def _named(self, m: isl.Map) -> isl.Map:
        """``m`` with the statements' iterator names on its input and output dimensions
        (isl's dataflow result carries the schedule's names)."""
        for dim_type in (isl.dim_type.in_, isl.dim_type.out):
            try:
                stmt = self.scop.statement(m.get_tuple_name(dim_type))
            except KeyError:
                continue
            if len(stmt.iterators) == m.dim(dim_type):
                for pos, name in enumerate(stmt.iterators):
                    m = m.set_dim_name(dim_type, pos, name)
        return m

    def display(self, m: isl.Map) -> isl.Map:
        """``m`` simplified under the SCoP's context, for printing."""
        return m.gist_params(self.scop.context)

    def graph(self, kinds: tuple[str, ...] = VALIDITY_KINDS) -> nx.DiGraph:
        """Statements as nodes (attribute ``index``: textual order), an edge S -> T when
        some dependence of ``kinds`` goes from an instance of S to one of T; edge
        attribute ``kinds`` lists which, ``relations`` maps kind -> ``isl.Map``."""
        g = nx.DiGraph()
        for k, stmt in enumerate(self.scop.statements):
            g.add_node(stmt.name, index=k)
        for kind in kinds:
            for rec in self.pairs(kind):
                if not g.has_edge(rec.source, rec.sink):
                    g.add_edge(rec.source, rec.sink, kinds=[], relations={})
                data = g.edges[rec.source, rec.sink]
                data["kinds"].append(kind)
                data["relations"][kind] = rec.relation
        return g

    def sccs(self, kinds: tuple[str, ...] = VALIDITY_KINDS) -> list[list[str]]:
        """Strongly connected components of ``graph(kinds)`` in a topological order
        (ties broken by textual order), each listed in textual order."""
        g = self.graph(kinds)
        index = nx.get_node_attributes(g, "index")
        cond = nx.condensation(g)
        members = {c: sorted(cond.nodes[c]["members"], key=index.get) for c in cond.nodes}
        order = nx.lexicographical_topological_sort(cond, key=lambda c: index[members[c][0]])
        return [members[c] for c in order]

    def __repr__(self) -> str:
        from polysched.display import deps_summary
        return deps_summary(self)

    def _repr_html_(self) -> str:
        from polysched.display import deps_html
        return deps_html(self)

    def __str__(self) -> str:
        lines = []
        for kind in KINDS:
            for rec in self.pairs(kind):
                lines.append(f"{kind} {rec.source} -> {rec.sink}: {rec.relation}")
        return "\n".join(lines)


def _flow(sinks: isl.UnionMap, must: isl.UnionMap | None, may: isl.UnionMap | None,
          schedule: isl.Schedule) -> isl.UnionMap:
    """isl dataflow: every (source, sink) instance pair where the source is a may
    source not killed by a later must source before the sink."""
    info = isl.UnionAccessInfo.from_sink(sinks)
    if must is not None:
        info = info.set_must_source(must)
    if may is not None:
        info = info.set_may_source(may)
    flow = info.set_schedule(schedule).compute_flow()
    return flow.get_may_dependence()


def statement_times(scop: Scop) -> dict[str, isl.Map]:
    """Each statement's original schedule ``{ S[s] -> [time] }`` under the context, all in
    one flat time space (isl pads the schedule map to one dimension)."""
    domain = scop.domain.intersect_params(scop.context)
    return {m.get_tuple_name(isl.dim_type.in_): m
            for m in maps_of(scop.schedule.get_map().intersect_domain(domain))}


def memory_dependences(sources: isl.UnionMap, sinks: isl.UnionMap,
                       times: dict[str, isl.Map]) -> isl.UnionMap:
    """``{ source[s] -> sink[t] : source accesses an element sink accesses, s before t }``
    from access relations ``{ S[s] -> A[a] }`` and ``times`` (`statement_times`).

    Memory-based dependences kill nothing, so they need no dataflow: this join is the
    relation isl's dataflow gives with may-sources only, and 10-100x faster when
    accesses have parameter offsets (a fuzzed ``y[l - m + 3]``: 2 s per kind in
    dataflow). The order is built per statement pair that shares an element, not for
    every pair (47 statements: 2209 pairs)."""
    out = isl.UnionMap.empty(sources.get_space())
    for pair in maps_of(sources.apply_range(sinks.reverse())):
        source = pair.get_tuple_name(isl.dim_type.in_)
        sink = pair.get_tuple_name(isl.dim_type.out)
        if source in times and sink in times:
            order = times[source].lex_lt_map(times[sink])
            out = out.union(isl.UnionMap.from_map(pair.intersect(order)))
    return out


COMPACT_PIECES = 16

# isl operations the exact dataflow may take (isl_ctx_set_max_operations). Every suite
# kernel needs under 0.3 M; a fuzzed 9-deep imperfect nest of one array (seed 3, program
# 2166) needed about 20 M, 10 s. Past the cap the flow dependences are the memory-based
# read-after-write ones: a superset, so schedules stay legal (validity never uses flow).
FLOW_OPERATIONS = 3_000_000


def _compact(umap: isl.UnionMap) -> isl.UnionMap:
    """``umap`` with each per-space map of more than COMPACT_PIECES basic maps coalesced.
    The k reads of one array by one statement (``A[i] + A[i + 1] + ... + A[i + 95]``)
    are one access map of k pieces, which isl's dataflow pairs up piece by piece (5 s for
    96 reads); coalesced it is one piece (``i <= a <= i + 95``), the same relation. Maps
    of few pieces (every suite kernel: at most 9) are left as they are, so that their
    dependences keep their exact shape."""
    maps = maps_of(umap)
    if all(m.n_basic_map() <= COMPACT_PIECES for m in maps):
        return umap
    out = isl.UnionMap.empty(umap.get_space())
    for m in maps:
        out = out.union(isl.UnionMap.from_map(m.coalesce() if m.n_basic_map() > COMPACT_PIECES else m))
    return out


def analyze(scop: Scop) -> Dependences:
    """Dependences of ``scop`` under its original schedule (``scop.schedule``).

    Access relations are intersected with the statement domains again (cheap, and
    unbounded accesses would silently lose dependences); many-piece ones are coalesced
    (see `_compact`).
    """
    # Under the context first: the answer is the same (each parameter value is its own
    # problem), and isl no longer splits on cases the context rules out (a fuzzed nest
    # with 'y[l - m + 3]' took 1.6 s for m of any sign, 0.01 s for m >= 1).
    domain = scop.domain.intersect_params(scop.context)
    reads = _compact(scop.reads.intersect_domain(domain))
    writes = _compact(scop.writes.intersect_domain(domain))
    may_writes = _compact(scop.may_writes.intersect_domain(domain))
    all_writes = _compact(writes.union(may_writes))
    schedule = scop.schedule
    context = scop.context

    def finish(umap: isl.UnionMap) -> isl.UnionMap:
        return umap.intersect_params(context).coalesce()

    times = statement_times(scop)
    raw = finish(memory_dependences(all_writes, reads, times))
    notes = []
    try:
        with isl_operation_cap(domain.get_ctx(), FLOW_OPERATIONS):
            flow = finish(_flow(reads, writes, may_writes, schedule))
    except isl.Error as error:
        # isl's dataflow can fail on strided domains ("affine expression involves some
        # of the domain dimensions": fuzz seed 3 program 290, `i += 2` with `k--`), or
        # run past its cap; every value-based dependence is a memory-based one, so the
        # read-after-write dependences stand in for it (more proximity, never less)
        flow = raw
        if "operations" in str(error):
            notes.append(f"{scop.filename}:{scop.start_line}: exact dataflow ran past its budget; "
                         "flow dependences are the memory-based ones")
            print(f"polysched: note: {notes[-1]}", file=sys.stderr, flush=True)
    war = finish(memory_dependences(reads, all_writes, times))
    waw = finish(memory_dependences(all_writes, all_writes, times))
    rar = finish(memory_dependences(reads, reads, times))
    deps = Dependences(scop, flow, raw, war, waw, rar, flatten(schedule))
    deps.notes = notes
    return deps
