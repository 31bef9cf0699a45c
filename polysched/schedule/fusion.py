"""Fusion chosen by cost: which groups of SCCs share a loop nest.

The ``cost`` fusion policy (the default) starts from smartfuse's partition (consecutive
SCCs of the same loop depth together, `pluto._Scheduler._dimension_cut`). A fused band
is kept only when it offers as much as the SCCs' own bands would (`pluto._worse`):
as many members (tiling depth) and parallel members as the best of them, and a loop
that walks memory with stride 1 for as many statements as they do together. Otherwise
the SCCs are distributed (atax and bicg, whose fused reductions leave no parallel loop;
mvt, whose fused products cannot both walk ``A`` by rows).

Then it joins parts that are *not* textual neighbours, when that saves memory traffic
and costs nothing:

- **traffic**: the elements two parts both touch (producer → consumer, or inputs they
  share) are read again from memory when the parts run as separate nests, and come
  from cache when they are fused. `shared_volume` estimates that number from the
  statements' footprints ``{ A[a] }``;
- **legality**: the parts, contracted to one node, must leave the graph of parts
  acyclic (no third part on a dependence path between them: `join_keeps_order`);
- **parallelism, tiling and stride**: the fused group's outermost band must not be
  worse than the parts' own, as above (checked by the scheduler with its ILP; 2mm's
  two products share ``tmp`` but fused they keep only 2 of their 3 permutable loops,
  so they stay apart).

Parts are only joined with parts of the same loop depth (typed fusion, Kennedy and
McKinley): fusing a 2-deep nest into a 3-deep one puts it under a guard or a shift.
"""
from __future__ import annotations

import islpy as isl
import networkx as nx

from polysched.islutil import sets_of

# The volume of an n-dimensional set of shared elements is taken as NOMINAL_EXTENT ** n:
# sizes are parameters, so only the dimension is known, and a shared matrix outweighs
# any number of shared vectors.
NOMINAL_EXTENT = 1000


def footprints(statements, context: isl.Set) -> dict[str, dict[str, isl.Set]]:
    """Per statement ``S``, per array ``A`` it references: ``[N] -> { A[a] }``, the
    elements of ``A`` that ``S`` touches over its whole domain (parameters aligned with
    ``context``)."""
    out: dict[str, dict[str, isl.Set]] = {}
    for stmt in statements:
        mine: dict[str, isl.Set] = {}
        for access in stmt.accesses:
            region = access.relation.range().align_params(context.get_space())
            mine[access.array] = mine[access.array].union(region) if access.array in mine else region
        out[stmt.name] = mine
    return out


def _dimension(region: isl.Set) -> int:
    """The dimension of ``region``'s affine hull (0 for a point, n for a full box)."""
    hull = region.affine_hull()
    equalities = sum(1 for c in hull.get_constraints() if c.is_equality())
    return hull.dim(isl.dim_type.set) - equalities


def shared_volume(first: list[str], second: list[str],
                  prints: dict[str, dict[str, isl.Set]]) -> int:
    """The nominal number of array elements that statements ``first`` and ``second``
    both touch: ``sum over arrays A of NOMINAL_EXTENT ** dim(F1(A) ∩ F2(A))``."""
    def union(stmts):
        regions: dict[str, isl.Set] = {}
        for s in stmts:
            for array, region in prints.get(s, {}).items():
                regions[array] = regions[array].union(region) if array in regions else region
        return regions

    one, two = union(first), union(second)
    total = 0
    for array in sorted(one.keys() & two.keys()):
        common = one[array].intersect(two[array])
        if not common.is_empty():
            total += NOMINAL_EXTENT ** _dimension(common)
    return total


def part_graph(parts: list[list[str]], edges) -> nx.DiGraph:
    """Parts as nodes (their index), an arc ``p -> q`` when an edge goes from a statement
    of ``p`` to one of ``q``."""
    where = {s: k for k, part in enumerate(parts) for s in part}
    g = nx.DiGraph()
    g.add_nodes_from(range(len(parts)))
    g.add_edges_from((where[e.source], where[e.sink]) for e in edges
                     if e.source in where and e.sink in where and where[e.source] != where[e.sink])
    return g


def join_keeps_order(graph: nx.DiGraph, p: int, q: int) -> bool:
    """Whether parts ``p`` and ``q`` can become one node: no dependence path between them
    passes through a third part (it would have to run both before and after it)."""
    return nx.is_directed_acyclic_graph(nx.contracted_nodes(graph, p, q, self_loops=False))


def ordered(parts: list[list[str]], edges, position: dict[str, int]) -> list[list[str]]:
    """``parts`` in a topological order of their dependences; ties: the part whose first
    statement comes first in ``position`` (the SCCs' order), so that unrelated parts keep
    their textual order."""
    graph = part_graph(parts, edges)
    first = {k: min(position[s] for s in part) for k, part in enumerate(parts)}
    return [parts[k] for k in nx.lexicographical_topological_sort(graph, key=first.get)]


def streamed_arrays(statements) -> list[str]:
    """The input matrices a memory-bound kernel streams: arrays of two or more
    dimensions that the region only reads, each element at most once per statement
    (every access injective on its domain: bicg's ``A[i][j]``, not gemm's ``C[i][j]``
    inside ``k``). Each pass over one costs its whole size in memory traffic. A matrix
    the region writes is left to the fusion policy: distributing a parallel producer
    from a reduction that consumes it is what a deep nest needs (#9's 5-deep nest)."""
    touched: dict[str, bool] = {}
    for stmt in statements:
        for access in stmt.accesses:
            relation = access.relation.intersect_domain(stmt.domain)
            streamed = access.kind == "read" and relation.dim(isl.dim_type.out) >= 2 and relation.is_injective()
            touched[access.array] = touched.get(access.array, True) and streamed
    return [name for name, streamed in touched.items() if streamed]


def nests(schedule: isl.Schedule) -> list[set[str]]:
    """The statements of each outermost loop nest of ``schedule`` (each band reached
    from the root through sequences and filters; statements outside every loop count
    as a nest of their own)."""
    found: list[set[str]] = []

    def visit(node: isl.ScheduleNode) -> None:
        kind = node.get_type()
        if kind in (isl.schedule_node_type.band, isl.schedule_node_type.leaf):
            names = {s.get_tuple_name() for s in sets_of(node.get_domain()) if not s.is_empty()}
            if names:
                found.append(names)
            return
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(schedule.get_root())
    return found


def extra_passes(statements, original: isl.Schedule, schedule: isl.Schedule) -> list[tuple[str, int, int]]:
    """``(array, passes in original, passes in schedule)`` for every streamed array
    (`streamed_arrays`) that ``schedule`` reads in more outermost nests than
    ``original`` does: distribution that reads the matrix twice where the source read
    it once (bicg: ``s += r A`` and ``q += A p`` apart; atax), a loss no parallel loop
    makes up for when the kernel is bound by memory bandwidth."""
    readers = {s.name: {a.array for a in s.accesses} for s in statements}
    before_nests, after_nests = nests(original), nests(schedule)

    def passes(found: list[set[str]], array: str) -> int:
        return sum(1 for nest in found if any(array in readers.get(s, ()) for s in nest))

    out = []
    for array in streamed_arrays(statements):
        before, after = passes(before_nests, array), passes(after_nests, array)
        if after > before:
            out.append((array, before, after))
    return out
