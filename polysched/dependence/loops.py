"""What each loop carries: the dependence questions of scheduling, tiling and ``check``.

Notation: a dependence relation is ``D = { S[i] -> T[j] }`` (source instance to sink
instance); a schedule "row set" is a union map ``R = { S[i] -> [t0, ..., tk] }`` giving
the values of some schedule dimensions (outer dimensions first) for every instance.
A loop is one row ``m = { S[i] -> [m(i)] }`` inside the rows ``outer`` around it:

    live(D, outer)       = D ∩ { S[i] -> T[j] : outer(S[i]) = outer(T[j]) }
    carried(D, outer, m) = live(D, outer) ∩ { S[i] -> T[j] : m(S[i]) < m(T[j]) }
    distances(D, R)      = { [R(T[j]) - R(S[i])] : S[i] -> T[j] ∈ D }
    is_parallel(D, outer, m)      : distances(live(D, outer), m) ⊆ { [0] }
                                    (the loop carries no dependence)
    is_forward(D, outer, m)       : distances(live(D, outer), m) ⊆ { [d] : d >= 0 }
    is_permutable(D, outer, band) : every member of the band is forward at ``outer``

Only dependences both of whose ends the rows are defined on count (the others are
ordered by a sequence above, or belong to another band). ``band_flags`` answers both
band questions at once (member ``k`` parallel inside the outer rows and members
``0..k-1``; the band permutable): what ``check`` reports in ``BandInfo``, what
``transform.set_flags`` writes into trees, what the tiler decides with.

Parallelism is always recomputed from the dependences; the coincident and permutable
flags stored in a tree are never trusted.
"""
from __future__ import annotations

from typing import NamedTuple

import islpy as isl

from polysched.islutil import maps_of, sets_of


def rows(*parts: isl.UnionMap) -> isl.UnionMap:
    """Concatenate row sets ``{ S -> [a] }``, ``{ S -> [b] }`` into ``{ S -> [a, b] }``."""
    result = parts[0]
    for part in parts[1:]:
        result = result.flat_range_product(part)
    return result


def mupa_rows(mupa: isl.MultiUnionPwAff, members: list[int] | None = None) -> isl.UnionMap:
    """``{ S[i] -> [m_k(i) for k in members] }`` from a band's partial schedule
    (every member when ``members`` is None)."""
    members = list(range(mupa.dim(isl.dim_type.set))) if members is None else members
    result = None
    for k in members:
        part = isl.UnionMap.from_union_pw_aff(mupa.get_at(k))
        result = part if result is None else result.flat_range_product(part)
    return result


def same_value(row_set: isl.UnionMap) -> isl.UnionMap:
    """``{ S[i] -> T[j] : R(S[i]) = R(T[j]) }`` for a row set ``R``."""
    return row_set.apply_range(row_set.reverse())


def live(deps: isl.UnionMap, outer: isl.UnionMap | None) -> isl.UnionMap:
    """The dependences not yet carried by the ``outer`` rows (equal outer values).

    Also restricts both ends to the instances ``outer`` is defined on, so dependences
    between different children of a sequence above are dropped (the sequence orders them).
    ``outer`` None: no rows around, every dependence is live.
    """
    return deps if outer is None else deps.intersect(same_value(outer))


def carried(deps: isl.UnionMap, outer: isl.UnionMap | None, member: isl.UnionMap) -> isl.UnionMap:
    """``{ S[i] -> T[j] }``: the dependences the loop of ``member`` carries inside the
    loops of ``outer`` (live at ``outer``, ``member(source) < member(sink)``)."""
    return live(deps, outer).intersect(member.lex_lt_union_map(member))


def distances(deps: isl.UnionMap, row_set: isl.UnionMap) -> list[isl.Set]:
    """``{ [R(T[j]) - R(S[i])] : S[i] -> T[j] ∈ D }`` for the row set ``R``: the distance
    vectors of the dependences both of whose ends ``R`` is defined on."""
    return sets_of(deps.apply_domain(row_set).apply_range(row_set).deltas())


class _Deltas(NamedTuple):
    """One dependence map ``S -> T`` as the set ``W = { [S[i] -> T[j]] }`` of its
    pairs and the entries ``f_k = R_k(T[j]) - R_k(S[i])`` as functions on ``W``: the
    distance vectors of `distances` without projecting ``W`` onto them."""

    pairs: isl.Set
    entries: list[isl.PwAff]

    def some(self, condition: isl.Set) -> bool:
        return not self.pairs.intersect(condition).is_empty()

    def zero(self) -> isl.PwAff:
        return isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(self.pairs.get_space()))


def _deltas(deps: isl.UnionMap, row_set: isl.UnionMap) -> list[_Deltas] | None:
    """`distances` as `_Deltas`, one per dependence map (None when some row map is not
    a function). The questions of `band_flags` asked on them are emptiness tests of
    ``W ∩ { f_k < 0 }`` and the like; projecting ``W`` onto the vectors is what costs:
    an 8-deep band's tile rows (floors) took 27 s for one `distances`, 0.4 s this way."""
    row_maps = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(row_set)}
    functions: dict[str, isl.PwMultiAff] = {}       # each statement's rows, converted once
    result = []
    for dep in maps_of(deps):
        source = row_maps.get(dep.get_tuple_name(isl.dim_type.in_))
        sink = row_maps.get(dep.get_tuple_name(isl.dim_type.out))
        if source is None or sink is None:
            continue
        dep = dep.intersect_domain(source.domain()).intersect_range(sink.domain())
        if dep.is_empty():
            continue
        if not (source.is_single_valued() and sink.is_single_valued()):
            return None
        for rows in (source, sink):
            name = rows.get_tuple_name(isl.dim_type.in_)
            if name not in functions:
                functions[name] = isl.PwMultiAff.from_map(rows)
        # the projections [S[i] -> T[j]] -> S[i] and -> T[j] as plain affine functions
        # on the whole space (every question intersects W): as PwMultiAff.from_map of
        # dep.domain_map() isl solved a parametric lexmin on W per map, 10 s of a
        # fuzzed 7-deep nest's 15 s of tiling
        space = dep.get_space()
        at_source = functions[source.get_tuple_name(isl.dim_type.in_)].pullback_multi_aff(
            isl.MultiAff.domain_map(space))
        at_sink = functions[sink.get_tuple_name(isl.dim_type.in_)].pullback_multi_aff(isl.MultiAff.range_map(space))
        diff = isl.MultiPwAff.from_pw_multi_aff(at_sink).sub(isl.MultiPwAff.from_pw_multi_aff(at_source))
        result.append(_Deltas(dep.wrap(), [diff.get_at(k) for k in range(diff.dim(isl.dim_type.out))]))
    return result


def _negative_at(vectors: isl.Set, k: int) -> bool:
    """Some distance vector has entry ``k`` < 0."""
    return not vectors.upper_bound_val(isl.dim_type.set, k, isl.Val(-1)).is_empty()


def _nonzero_at(vectors: isl.Set, k: int) -> bool:
    """Some distance vector has entry ``k`` != 0."""
    return _negative_at(vectors, k) or \
        not vectors.lower_bound_val(isl.dim_type.set, k, isl.Val(1)).is_empty()


def is_parallel(deps: isl.UnionMap, outer: isl.UnionMap | None, member: isl.UnionMap) -> bool:
    """True when every dependence with equal ``outer`` rows has equal ``member`` value:
    the loop of ``member`` inside the loops of ``outer`` carries no dependence
    (``distances(live(D, outer), member) ⊆ { [0] }``)."""
    pieces = _deltas(live(deps, outer), member)
    if pieces is not None:
        return not any(piece.some(entry.ne_set(piece.zero())) for piece in pieces for entry in piece.entries)
    return all(not _nonzero_at(vectors, k)
               for vectors in distances(live(deps, outer), member)
               for k in range(vectors.dim(isl.dim_type.set)))


def is_forward(deps: isl.UnionMap, outer: isl.UnionMap | None, member: isl.UnionMap) -> bool:
    """True when ``member(sink) >= member(source)`` (lexicographically) for every
    dependence live at ``outer``: ``distances(live(D, outer), member)`` has no negative
    entry (no lexicographically negative vector for a member of several rows)."""
    pieces = _deltas(live(deps, outer), member)
    if pieces is not None:
        for piece in pieces:
            zero, rest = piece.zero(), piece.pairs
            for entry in piece.entries:
                if not rest.intersect(entry.lt_set(zero)).is_empty():
                    return False
                rest = rest.intersect(entry.eq_set(zero))
        return True
    for vectors in distances(live(deps, outer), member):
        for k in range(vectors.dim(isl.dim_type.set)):
            if _negative_at(vectors, k):
                return False
            vectors = vectors.fix_val(isl.dim_type.set, k, isl.Val(0))
    return True


class BandFlags(NamedTuple):
    """``parallel[k]``: member ``k`` carries no dependence inside the outer rows and the
    members before it; ``permutable``: every member is forward at the outer rows."""

    parallel: list[bool]
    permutable: bool


def band_flags(deps: isl.UnionMap, outer: isl.UnionMap | None,
               mupa: isl.MultiUnionPwAff) -> BandFlags:
    """The flags of the band ``mupa`` (its members ``m_0, ..., m_{n-1}``) below the rows
    ``outer``: ``parallel[k] = is_parallel(D, rows(outer, m_0..m_{k-1}), m_k)``,
    ``permutable``: every member forward at ``outer``. All read off one set of vectors
    ``distances(live(D, outer), rows(m_0, ..., m_{n-1}))``: member ``k`` is parallel when
    the vectors with entries ``0..k-1`` equal to 0 have entry ``k`` equal to 0, and the band
    is permutable when no vector has a negative entry."""
    n = mupa.dim(isl.dim_type.set)
    parallel = [True] * n
    permutable = True
    pieces = _deltas(live(deps, outer), mupa_rows(mupa)) if n else None
    if pieces is not None:
        for piece in pieces:
            zero, rest = piece.zero(), piece.pairs
            for k, entry in enumerate(piece.entries):
                if parallel[k] and not rest.intersect(entry.ne_set(zero)).is_empty():
                    parallel[k] = False
                if any(parallel[k + 1:]):     # (else no later member asks)
                    rest = rest.intersect(entry.eq_set(zero))
                if permutable and piece.some(entry.lt_set(zero)):
                    permutable = False
        return BandFlags(parallel, permutable)
    for vectors in distances(live(deps, outer), mupa_rows(mupa)):
        rest = vectors
        for k in range(n):
            if _nonzero_at(rest, k):
                parallel[k] = False
            rest = rest.fix_val(isl.dim_type.set, k, isl.Val(0))
            if permutable and _negative_at(vectors, k):
                permutable = False
    return BandFlags(parallel, permutable)


def is_permutable(deps: isl.UnionMap, outer: isl.UnionMap | None, mupa: isl.MultiUnionPwAff) -> bool:
    """A band is permutable (rectangular tiling is legal) when each member is forward on
    every dependence not carried by the outer rows."""
    return band_flags(deps, outer, mupa).permutable


def node_band_flags(deps: isl.UnionMap, node: isl.ScheduleNode) -> BandFlags:
    """``band_flags`` of the band at ``node`` with its outer rows in the tree
    (``prefix_rows``): only dependences between instances reaching ``node`` count."""
    return band_flags(deps, prefix_rows(node), node.band_get_partial_schedule())


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
