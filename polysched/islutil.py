"""Small conveniences over islpy shared by every stage (no polyhedral logic here)."""
from __future__ import annotations

from contextlib import contextmanager

import islpy as isl


def val(value: int) -> isl.Val:
    """``value`` as an isl value, exact for any size (islpy's ``Val(int)`` only takes a
    C ``long``)."""
    if -2 ** 62 < value < 2 ** 62:
        return isl.Val(value)
    return isl.Val(str(value))


def foreach_band_piece(schedule: isl.Schedule, piece) -> None:
    """``piece(set, aff)`` for every piece of every member of every band of
    ``schedule`` (``{ S[i, j] -> [(2i + j)] }`` gives one call per statement)."""

    def visit(node: isl.ScheduleNode) -> None:
        if node.get_type() == isl.schedule_node_type.band:
            partial = node.band_get_partial_schedule()
            for k in range(partial.dim(isl.dim_type.set)):
                partial.get_at(k).foreach_pw_aff(lambda pa: pa.foreach_piece(piece))
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(schedule.get_root())


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The per-space pieces of ``{ S0[i] -> ...; S1[i, j] -> ... }`` as a list."""
    result: list[isl.Map] = []
    umap.foreach_map(result.append)
    return result


def sets_of(uset: isl.UnionSet) -> list[isl.Set]:
    """The per-space pieces of ``{ S0[i] : ...; S1[i, j] : ... }`` as a list."""
    result: list[isl.Set] = []
    uset.foreach_set(result.append)
    return result


def without_ast_options(node: isl.ScheduleNode, loop_types: bool = True) -> isl.ScheduleNode:
    """Band ``node`` without its AST build options (``isolate``) and, with
    ``loop_types``, with its members' AST loop types (unroll, separate) back to the
    default; any other node as it is. AST options never change what runs or when."""
    if node.get_type() != isl.schedule_node_type.band:
        return node
    # (isl keeps the loop types among the options: setting the options sets them too)
    kept = [isl.ast_loop_type.default if loop_types else node.band_member_get_ast_loop_type(k)
            for k in range(node.band_n_member())]
    node = node.band_set_ast_build_options(isl.UnionSet.empty(node.band_get_ast_build_options().get_space()))
    for k, loop_type in enumerate(kept):
        node = node.band_member_set_ast_loop_type(k, loop_type)
    return node


def isl_message(error: Exception) -> str:
    """``call to isl_... failed: unable to carry dependences in /path:123`` -> the
    middle: isl's own words, without the call and isl's source path."""
    text = str(error)
    if "failed: " in text:
        text = text.split("failed: ", 1)[1]
    return text.split(" in /", 1)[0].strip()


@contextmanager
def isl_operation_cap(ctx: isl.Context, operations: int):
    """Make isl give up (an ``isl.Error`` mentioning "operations") after ``operations``
    elementary steps inside the block: isl cannot be interrupted otherwise."""
    previous = ctx.get_max_operations()
    ctx.reset_operations()
    ctx.set_max_operations(operations)
    try:
        yield
    finally:
        ctx.reset_operations()
        ctx.set_max_operations(previous)
