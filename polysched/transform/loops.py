"""Naming loops of a schedule tree: ``(stmt, depth)``.

A statement's loops are the band members on the path from the root to its leaf,
outermost first: ``depth`` 0 is the first member of the first band above the
statement, and so on. Sequence and set nodes (the scalar dimensions of a flat
schedule) are not loops and are not counted; filters and marks are passed through.
A loop is shared by every statement below its band: transforming the loop transforms
it for all of them.

    gemm after auto_schedule("pluto"):
        sequence
          filter S0 -> band [i, j]          (S0, 0) = i, (S0, 1) = j
          filter S1 -> band [i, j, k]       (S1, 0) = i, (S1, 1) = j, (S1, 2) = k

Positions in the tree are *paths*: child indices from the root (the domain node).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import islpy as isl

from polysched.errors import TransformError
from polysched.islutil import sets_of

_t = isl.schedule_node_type


@dataclass(frozen=True)
class Loop:
    """Loop ``depth`` of statement ``stmt``: member ``member`` of the band at ``path``
    (which has ``n_member`` members)."""

    stmt: str
    depth: int
    path: tuple[int, ...]
    member: int
    n_member: int


def node_at(schedule: isl.Schedule, path: tuple[int, ...]) -> isl.ScheduleNode:
    node = schedule.get_root()
    for k in path:
        node = node.child(k)
    return node


def path_of(node: isl.ScheduleNode) -> tuple[int, ...]:
    path = []
    while node.has_parent():
        path.append(node.get_child_position())
        node = node.parent()
    return tuple(reversed(path))


def statement_names(scop) -> list[str]:
    return [s.name for s in scop.statements]


def _contains(filter_set: isl.UnionSet, stmt_domain: isl.UnionSet) -> bool:
    name = sets_of(stmt_domain)[0].get_tuple_name() if not stmt_domain.is_empty() else None
    if not any(s.get_tuple_name() == name for s in sets_of(filter_set)):
        return False
    return not filter_set.intersect(stmt_domain).is_empty()


def check_statement(scop, stmt: str, what: str | None = None) -> None:
    """A :class:`TransformError` (starting with the call ``what`` when given) unless
    ``stmt`` is a statement of ``scop``."""
    names = statement_names(scop)
    if stmt not in names:
        raise TransformError(f"{what + ': ' if what else ''}unknown statement {stmt!r} "
                             f"(the statements are {', '.join(names)})")


def _tensorized(node: isl.ScheduleNode, domain: isl.UnionSet) -> bool:
    """Whether a ``Tensorize`` mark below ``node`` runs instances of ``domain``."""
    from polysched.marks import Tensorize, try_parse_mark
    found = []

    def visit(n: isl.ScheduleNode) -> bool:
        if n.get_type() == _t.mark and isinstance(try_parse_mark(n.mark_get_id()), Tensorize) \
                and not n.get_domain().intersect(domain).is_empty():
            found.append(n)
        return not found
    node.foreach_descendant_top_down(visit)
    return bool(found)


def statement_loops(scop, schedule: isl.Schedule, stmt: str, what: str | None = None) -> list[Loop]:
    """Every loop of ``stmt`` in ``schedule``, outermost first; ``what``: the call a
    refusal starts with."""
    check_statement(scop, stmt, what)
    domain = isl.UnionSet.from_set(scop.statement(stmt).domain).intersect_params(scop.context)
    loops: list[Loop] = []
    node = schedule.get_root()
    path: tuple[int, ...] = ()
    while True:
        kind = node.get_type()
        if kind == _t.leaf:
            return loops
        if kind == _t.band:
            n = node.band_n_member()
            base = len(loops)
            loops += [Loop(stmt, base + m, path, m, n) for m in range(n)]
        if kind in (_t.sequence, _t.set):
            hits = [k for k in range(node.n_children())
                    if _contains(node.child(k).filter_get_filter(), domain)]
            if not hits:
                return loops
            if len(hits) > 1:
                where = f"several branches of the {kind.name if hasattr(kind, 'name') else 'sequence'} at {list(path)}"
                why = (f"{stmt} was tensorized: its full blocks are intrinsic calls and its remainder tiles "
                       f"loops, in {where}, so its loops have no single name (loop primitives go before "
                       "tensorize)") if _tensorized(node, domain) else \
                    f"the instances of {stmt} are split over {where}: its loops below it have no single name"
                # (a tester: tile, interchange and loops after tensorize said only the latter)
                raise TransformError(f"{what + ': ' if what else ''}{why}")
            node, path = node.child(hits[0]), path + (hits[0],)
            continue
        if kind == _t.filter and not _contains(node.filter_get_filter(), domain):
            return loops
        if node.n_children() == 0:
            return loops
        node, path = node.child(0), path + (0,)


def loop(scop, schedule: isl.Schedule, stmt: str, depth, what: str = "loop") -> Loop:
    """Loop ``(stmt, depth)``; a one-sentence :class:`TransformError` if there is none."""
    loops = statement_loops(scop, schedule, stmt, what)
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise TransformError(f"{what}: a loop depth is an int, got {depth!r}")
    if not 0 <= depth < len(loops):
        have = f"loops 0..{len(loops) - 1}" if loops else "no loop"
        raise TransformError(f"{what}: statement {stmt} has {have} in the current schedule, "
                             f"not loop {depth}")
    return loops[depth]


def describe_loops(scop, schedule: isl.Schedule, stmt: str, what: str | None = None) -> list[tuple[int, str]]:
    """``[(depth, "i + j"), ...]``: each loop of ``stmt`` with its schedule expression
    (``what``: the call a refusal starts with)."""
    loops = statement_loops(scop, schedule, stmt, what)      # (checks the statement first)
    out = []
    stmt_set = isl.UnionSet.from_set(scop.statement(stmt).domain)
    iterators = scop.statement(stmt).iterators
    for lp in loops:
        upa = node_at(schedule, lp.path).band_get_partial_schedule().get_at(lp.member)
        out.append((lp.depth, affine_text(upa.intersect_domain(stmt_set), iterators)))
    return out


def affine_text(upa: isl.UnionPwAff, iterators: list[str] | None = None) -> str:
    """``"floor(i/32)"``-like text of a one-statement union piecewise affine function."""
    pieces = []
    upa.foreach_pw_aff(pieces.append)
    if not pieces:
        return "?"
    pa = pieces[0]
    if iterators:
        for k, name in enumerate(iterators[: pa.dim(isl.dim_type.in_)]):
            pa = pa.set_dim_id(isl.dim_type.in_, k, isl.Id(name))
    text = str(pa.gist(pa.domain()))
    # "[N] -> { S[i, j] -> [(i + j)] }" -> "i + j"
    body = text.split("->")[-1].strip().rstrip("}").strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1].strip()
    body = re.sub(r"\(\(([A-Za-z_][A-Za-z0-9_]*)\)/", r"(\1/", body)     # floor((i)/32) -> floor(i/32)
    while body.startswith("(") and body.endswith(")") and _balanced(body[1:-1]):
        body = body[1:-1]
    if ":" in body or ";" in body:
        return text
    return body


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0
