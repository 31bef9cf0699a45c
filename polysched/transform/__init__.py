"""Schedule primitives on the isl schedule tree, each checked against the exact dependences.

    from polysched.transform import apply, primitives
    new = apply(scop, deps, "interchange('S0', 0, 1)",
                primitives.interchange, scop, schedule, "S0", 0, 1)

Most users go through :class:`polysched.Program`, whose methods are these primitives.
``apply`` runs a primitive (a function returning a new tree, see primitives.py),
checks the result with :func:`polysched.dependence.check` (validity dependences,
``set`` nodes and marks) and raises :class:`TransformError` naming the first violated
dependence and its witness; on success the band flags (permutable, coincident) of the
result are set from the dependences.
"""
from __future__ import annotations

import islpy as isl

from polysched.dependence import Dependences, Legality, check
from polysched.errors import TransformError

from . import primitives
from .loops import Loop, describe_loops, loop, node_at, path_of, statement_loops
from .primitives import set_flags


def explain(violation, scop) -> str:
    """One line: the violated dependence (kind, statements, relation in isl notation)
    and its witness."""
    if violation.kind == "mark":
        return str(violation)
    relation = violation.relation
    try:
        relation = relation.gist_params(scop.context)
    except (isl.Error, AttributeError):
        pass
    return (f"{violation.kind} dependence {violation.source} -> {violation.sink} is violated: "
            f"{violation.witness}; the dependence: {relation}{_through_scalars(violation, scop)}")


def _through_scalars(violation, scop) -> str:
    """When the statements of a violated dependence meet only in scalars: that it is
    their one storage, reused by every iteration, and how to give each its own."""
    kinds = {"raw": ("write", "read"), "flow": ("write", "read"), "war": ("read", "write"), "waw": ("write", "write")}
    if violation.kind not in kinds:
        return ""
    statements = {s.name: s for s in scop.statements}
    source, sink = statements.get(violation.source), statements.get(violation.sink)
    if source is None or sink is None:
        return ""
    first, second = kinds[violation.kind]
    common = {a.array for a in source.accesses if a.kind.endswith(first)} & \
        {a.array for a in sink.accesses if a.kind.endswith(second)}
    scalars = sorted(name for name in common if scop.arrays[name].is_scalar and not scop.arrays[name].text)
    blocks = sorted(name for name in common if not scop.arrays[name].is_scalar
                    and getattr(scop.arrays[name], "origin", "") == "region")
    if blocks and len(blocks) == len(common):
        # (helper-58: refusals through a loop body's 'double tmp[4];' named nothing)
        names = ", ".join(f"'{scop.arrays[name].declared_as or name}'" for name in blocks)
        return (f" (through {names}, declared in a block of the region: one array every iteration "
                f"reuses, which only parallel() can give each thread its own, as private)")
    if not scalars or len(scalars) != len(common):
        return ""
    names = ", ".join(f"'{name}'" for name in scalars)
    return (f" (through the scalar{'s' if len(scalars) > 1 else ''} {names}, whose one storage every iteration "
            f"reuses: expand_scalars({scalars!r}) as the first step gives each iteration its own where it can)")


def legal_or_raise(scop, deps: Dependences, schedule: isl.Schedule, what: str,
                   hint: str = "") -> Legality:
    """``check(scop, deps, schedule)`` if legal, else :class:`TransformError` with the
    first violation (``violation``, ``witness`` attributes set)."""
    verdict = check(scop, deps, schedule)
    if not verdict.legal:
        violation = verdict.violations[0]
        more = len(verdict.violations) - 1
        tail = f" (and {more} more violation{'s' if more > 1 else ''})" if more else ""
        raise TransformError(f"{what} is illegal{hint}: {explain(violation, scop)}{tail}",
                             violation=violation, primitive=what, schedule=schedule)
    return verdict


def apply(scop, deps: Dependences, what: str, build, *args, hint: str = "", **kwargs) -> isl.Schedule:
    """``build(*args, **kwargs)`` (a primitive returning a tree), checked; the result
    with its band flags set from the dependences."""
    schedule = build(*args, **kwargs)
    verdict = legal_or_raise(scop, deps, schedule, what, hint)
    return set_flags(schedule, verdict.bands)


__all__ = ["Loop", "TransformError", "apply", "describe_loops", "explain", "legal_or_raise", "loop",
           "node_at", "path_of", "primitives", "set_flags", "statement_loops"]
