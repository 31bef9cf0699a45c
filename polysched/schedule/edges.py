"""Dependence edges of the scheduling graph and their Farkas cones.

An edge is one basic map of a dependence relation between two statements,

    [N] -> { S[s0, s1] -> T[t0, t1] : ... }        (source instance -> sink instance)

together with the *Farkas cone* of its polyhedron: the set of all affine forms
``c_cst + c_par·N + c_src·s + c_snk·t`` that are non-negative on the edge. isl computes it
(`BasicSet.coefficients`, on the wrapped set ``{ [S[s] -> T[t]] }``) as a rational cone in
the space ``{ [[c_cst, c_N] -> [S[c_s0, c_s1] -> T[c_t0, c_t1]]] }``; we keep its
constraints as integer rows over the dimensions ``[cst, params..., src..., snk...]``.
A schedule difference ``φ_T(t) - φ_S(s) >= 0`` on the whole edge is then the linear
condition "the coefficient vector of that difference lies in the cone": that is the affine
form of Farkas' lemma with the multipliers already eliminated.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from polysched.islutil import maps_of, sets_of


@dataclass
class ConeRow:
    """``constant + sum(coefficients[j] * dim_j) >= 0`` (or ``== 0`` when ``equality``)."""

    equality: bool
    constant: int
    coefficients: list[int]


@dataclass
class Edge:
    """One convex piece ``{ S[s] -> T[t] : ... }`` of a dependence, ``kind`` being
    ``"validity"`` (must be respected) or ``"proximity"`` (input/RAR: locality only)."""

    source: str
    sink: str
    relation: isl.BasicMap
    kind: str = "validity"
    _cone: list[ConeRow] | None = field(default=None, repr=False)

    @property
    def n_params(self) -> int:
        return self.relation.dim(isl.dim_type.param)

    @property
    def n_source(self) -> int:
        return self.relation.dim(isl.dim_type.in_)

    @property
    def n_sink(self) -> int:
        return self.relation.dim(isl.dim_type.out)

    @property
    def cone(self) -> list[ConeRow]:
        """Constraints of the Farkas cone, computed once (it is the expensive part)."""
        if self._cone is None:
            self._cone = farkas_cone(self.relation)
        return self._cone

    def __str__(self) -> str:
        return f"{self.source}->{self.sink}"


def _val_to_int(val: isl.Val) -> int:
    return int(val.to_python())


def farkas_cone(relation: isl.BasicMap) -> list[ConeRow]:
    """Rows of the cone of affine forms non-negative on ``relation`` (see module doc).

    Existentially quantified variables are dropped first: that over-approximates the
    polyhedron, so the forms we accept stay non-negative on the exact relation.
    """
    # Redundant constraints make the dual computation explode (a 4-d stencil dependence
    # intersected again with its domain: 9 s -> 0.05 s once they are removed).
    bset = relation.remove_divs().remove_redundancies().wrap()
    cone = bset.coefficients()
    if cone.dim(isl.dim_type.div):  # never seen in practice; stay sound
        cone = cone.remove_divs()
    n = cone.dim(isl.dim_type.set)
    rows = []
    for con in cone.get_constraints():
        coefficients = [_val_to_int(con.get_coefficient_val(isl.dim_type.set, k)) for k in range(n)]
        rows.append(ConeRow(con.is_equality(), _val_to_int(con.get_constant_val()), coefficients))
    return rows


def access_conflicts(statements) -> dict[tuple[str, str], list[isl.Map]]:
    """For each statement pair (S, T), the relations ``{ S[s] -> T[t] }`` of instance pairs
    touching the same element through one pair of references to the same array.

    ``statements``: objects with ``name`` and ``accesses`` (``array``, ``relation``), as in
    polysched.scop.model.
    """
    out: dict[tuple[str, str], list[isl.Map]] = {}
    for s in statements:
        for t in statements:
            pairs = []
            for a in s.accesses:
                for b in t.accesses:
                    if a.array == b.array:
                        pairs.append(a.relation.apply_range(b.relation.reverse()))
            out[(s.name, t.name)] = pairs
    return out


def edges_from(relation: isl.UnionMap, context: isl.Set, kind: str = "validity",
               conflicts: dict[tuple[str, str], list[isl.Map]] | None = None) -> list[Edge]:
    """Split ``[N] -> { S[s] -> T[t] : ... }`` into convex, non-empty edges (params
    restricted to ``context``, which also fixes the parameter order).

    With ``conflicts`` (see `access_conflicts`), each dependence is first split per pair
    of references. Why: a coalesced union such as ``{ x -> x + e_k : k = 0..3 }`` is one
    basic map whose *rational* relaxation contains points like ``d = (-1/2, 1/2, 1/2, 1/2)``
    that no integer pair reaches, and Farkas' lemma works on the rational polyhedron: it
    would reject the hyperplane ``i0`` although every actual distance is ``>= 0``. One
    reference pair gives one exact equality-defined piece. The pieces cover the relation
    (every dependent pair touches a common element through some reference pair).
    """
    relation = relation.align_params(context.get_space()).intersect_params(context).coalesce()
    edges = []
    for m in maps_of(relation):
        src = m.get_tuple_name(isl.dim_type.in_)
        snk = m.get_tuple_name(isl.dim_type.out)
        pieces = [m]
        if conflicts is not None and conflicts.get((src, snk)):
            pieces = []
            for pair in conflicts[(src, snk)]:
                pair = pair.align_params(m.get_space())
                piece = m.intersect(pair).coalesce()
                if not piece.is_empty():
                    pieces.append(piece)
        seen = []
        for piece in pieces:
            for bm in piece.get_basic_maps():
                if bm.is_empty():
                    continue
                bm = bm.remove_redundancies()
                if any(bm.is_equal(other) for other in seen):
                    continue
                seen.append(bm)
                edges.append(Edge(src, snk, bm, kind))
    return edges


def same_time_restriction(edge: Edge, phi_source: isl.Map, phi_sink: isl.Map) -> Edge | None:
    """The part of ``edge`` where ``φ_S(s) = φ_T(t)`` (not strongly satisfied by this
    hyperplane), or None when that part is empty. ``phi_*``: ``{ S[s] -> [v] }``."""
    equal_time = phi_source.apply_range(phi_sink.reverse())
    rest = isl.Map.from_basic_map(edge.relation).intersect(equal_time)
    pieces = [bm for bm in rest.coalesce().get_basic_maps() if not bm.is_empty()]
    if not pieces:
        return None
    if len(pieces) == 1 and rest.is_equal(isl.Map.from_basic_map(edge.relation)):
        return edge  # nothing satisfied: keep the cached cone
    # An affine equality keeps a basic map convex, so one piece is expected; a union
    # would only come from divs and is handled by keeping the convex hull (sound: superset).
    return Edge(edge.source, edge.sink, pieces[0] if len(pieces) == 1 else rest.convex_hull(), edge.kind)


