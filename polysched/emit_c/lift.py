"""Domain lifting: band values as explicit statement dimensions, so isl's AST
generator never sees integer divisions in a schedule.

isl's AST generation slows down badly (superlinearly in the tile size) when a band
member is a sum of floors, as in a wavefront over tiles of a skewed band:

    { S0[t, i] -> [floor(t/256) + floor((2t + i)/256)] }     (minutes, or worse)

Lifting gives every statement instance its schedule values as extra dimensions,

    domain  { S0[t, i, b0, b1, b2, b3] : 0 <= t < T ... and b0 = floor(t/256) + ... }
    bands   { S0[t, i, b0, ...] -> [b0] }, { ... -> [b1] }, ...

where the existentials are expressible from the b's and disappear: the same schedule
(the map from instances to dates is unchanged), generated in milliseconds. The AST
calls become ``S0(t, i, b0, ...)``; the printer uses the first arguments only.
"""
from __future__ import annotations

import islpy as isl

from polysched.islutil import maps_of, sets_of


def has_integer_division(schedule: isl.Schedule) -> bool:
    """Whether some band member's affine expression uses floor/mod (an integer division)."""

    def aff_has_div(aff: isl.Aff) -> bool:
        return aff.dim(isl.dim_type.div) > 0

    def band_has_div(node: isl.ScheduleNode) -> bool:
        mupa = node.band_get_partial_schedule()
        for k in range(node.band_n_member()):
            pieces: list[isl.Aff] = []
            for pa in _pw_affs(mupa.get_union_pw_aff(k)):
                pa.foreach_piece(lambda _set, aff: pieces.append(aff))
            if any(aff_has_div(aff) for aff in pieces):
                return True
        return False

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band and band_has_div(node):
            return True
        return any(visit(node.child(k)) for k in range(node.n_children()))

    return visit(schedule.get_root())


def _pw_affs(upa: isl.UnionPwAff) -> list[isl.PwAff]:
    result: list[isl.PwAff] = []
    upa.foreach_pw_aff(result.append)
    return result


def _leaves(node: isl.ScheduleNode):
    if node.n_children() == 0:
        yield node
    for k in range(node.n_children()):
        yield from _leaves(node.child(k))




def _lifting_map(schedule: isl.Schedule) -> tuple[isl.UnionMap | None, dict[str, int]]:
    """``{ S[i] -> S[i, b] }`` (b: the band values along S's path, zero-padded to the
    statement's largest schedule depth) and ``{S: number of original iterators}``."""
    per_statement: dict[str, list[isl.Map]] = {}
    for leaf in _leaves(schedule.get_root()):
        prefix = leaf.get_prefix_schedule_union_map().intersect_domain(leaf.get_domain())
        for m in maps_of(prefix):
            identity = isl.Map.identity(m.get_space().domain().map_from_set())
            per_statement.setdefault(m.get_tuple_name(isl.dim_type.in_), []).append(identity.flat_range_product(m))
    result, original_dims = None, {}
    for name, maps in per_statement.items():
        n_in = maps[0].dim(isl.dim_type.in_)
        original_dims[name] = n_in
        width = max(m.dim(isl.dim_type.out) for m in maps)
        for m in maps:
            base = m.dim(isl.dim_type.out)
            if base < width:
                m = m.add_dims(isl.dim_type.out, width - base)
                for k in range(base, width):
                    m = m.fix_val(isl.dim_type.out, k, isl.Val(0))
            um = isl.UnionMap.from_map(m.set_tuple_name(isl.dim_type.out, name))
            result = um if result is None else result.union(um)
    return result, original_dims


def lift_schedule(schedule: isl.Schedule) -> isl.Schedule:
    """The same schedule over the lifted domain ``{ S[i, b] }`` with bands ``[b_d, ...]``.

    Statement ``S`` with ``n`` iterators keeps its name; its first ``n`` dimensions are
    the original iterators.
    """
    lifting, original_dims = _lifting_map(schedule)
    if lifting is None:
        return schedule
    lifted_domain = schedule.get_domain().apply(lifting)
    projection = isl.UnionPwMultiAff.from_union_map(lifting.reverse().intersect_domain(lifted_domain))
    lifted = schedule.pullback_union_pw_multi_aff(projection).intersect_domain(lifted_domain)

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.band:
            node = _replace_band(node, original_dims)
        for k in range(node.n_children()):
            node = visit(node.child(k)).parent()
        return node

    return visit(lifted.get_root()).get_schedule()


def _replace_band(node: isl.ScheduleNode, original_dims: dict[str, int]) -> isl.ScheduleNode:
    """The band at schedule depth d with n members becomes ``S[i, b] -> [b_d, ..., b_{d+n-1}]``,
    keeping its permutable/coincident flags, AST loop types and AST build options (an
    ``isolate[[P] -> [B]]`` is over schedule values, which lifting keeps)."""
    depth, n = node.get_schedule_depth(), node.band_n_member()
    permutable = node.band_get_permutable()
    coincident = [node.band_member_get_coincident(k) for k in range(n)]
    loop_types = [node.band_member_get_ast_loop_type(k) for k in range(n)]
    build_options = node.band_get_ast_build_options()
    mupa = node.band_get_partial_schedule()
    statements = [s for s in sets_of(node.get_domain()) if not s.is_empty()]
    if not statements:
        # no instance reaches this band (a statement whose domain is empty under the
        # outer loops' values): it generates no code, so it is left as it is
        return node
    for k in range(n):
        member = None
        for stmt in statements:
            position = original_dims[stmt.get_tuple_name()] + depth + k
            aff = isl.Aff.var_on_domain(isl.LocalSpace.from_space(stmt.get_space()), isl.dim_type.set, position)
            upa = isl.UnionPwAff.from_pw_aff(isl.PwAff.from_aff(aff))
            member = upa if member is None else member.union_add(upa)
        mupa = mupa.set_union_pw_aff(k, member)
    node = node.delete().insert_partial_schedule(mupa)
    node = node.band_set_permutable(permutable)
    for k in range(n):
        node = node.band_member_set_coincident(k, coincident[k])
        node = node.band_member_set_ast_loop_type(k, loop_types[k])
    return node.band_set_ast_build_options(build_options)

