"""Forward substitution: a temporary scalar's value written into the statements that read it.

A loop body that names a partial result keeps it in a scalar::

    for (i ...) for (j ...) {
      double s = A[i-1][j] + A[i+1][j];             { S0[i, j] -> s[] }
      B[i][j] = 0.25 * (s + A[i][j]);               { S1[i, j] -> s[] }
    }

Every iteration writes the one ``s``, so its memory dependences order each iteration
after all earlier ones: no scheduler may interchange or tile ``i`` and ``j``, although
each value lives within one iteration. With the value written where it is read::

    B[i][j] = 0.25 * (((double)(A[i-1][j] + A[i+1][j])) + A[i][j]);

the statement ``S0`` and the scalar are gone and ``(i, j)`` is a permutable band. The
cast is the assignment's conversion (a ``float s`` of a double product rounds to float
as before); the expression is evaluated in the same order with the same operands, so
the results are bit-identical.

    plan = substitution_plan(scop)         # [Substitution(...)], possibly empty
    scop2 = substitute(scop, plan)         # a new Scop, one statement fewer per entry

A scalar ``x`` is substituted when (all checked with isl on the region's model):

- one statement ``D`` writes it, as ``x = e;`` with ``e`` not naming ``x``, and nothing
  may-writes it; ``x`` is an arithmetic scalar whose address is not taken;
- every statement ``U`` that reads ``x`` comes after ``D`` in ``D``'s loops, in the same
  body or in a loop inside it (``double ai = alpha * a[i]; for (j) y[j] += ai * A[i][j];``),
  maybe on fewer instances (``if (j > 5) B[i][j] += x;``), and each read sees the value
  ``D`` wrote in that iteration of ``D``'s loops (flow ``{ D[i] -> U[i, j] }``, no read of
  a value from before the region);
- ``x`` is not read after the region (it is the region's own, or dead after it);
- no statement from ``D`` to the last ``U`` writes an array or scalar ``e`` reads (so ``e``
  has the same value at each use); with a ``U`` in a loop inside ``D``'s, no statement
  after ``D`` in ``D``'s loop body does;
- ``e`` is evaluated once as written, or it is cheap (no call, no division): a value used
  twice, or in a loop inside ``D``'s, is computed each time.

Only for loops (a statement outside every loop gains nothing), and with the scheduler's
order differing from the source's (`polysched.pipeline` redoes a region without it when
the schedule stays the source's, keeping the source text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import islpy as isl

from polysched.dependence.scalars import restrict_to_array, used_after_scop
from polysched.emit_c.names import tokenize
from polysched.emit_c.scalar_replace import plain_element_type
from polysched.scop.declarations import header_typedef
from polysched.scop.model import Scop, Statement, statements_domain
from polysched.scop.source import line_starts

from .expand import scalar_tokens
from .loops import statement_loops

# the types whose conversion on assignment a cast repeats exactly
_ARITHMETIC_WORDS = {"char", "short", "int", "long", "signed", "unsigned", "float", "double", "_Bool", "bool",
                     "size_t", "ptrdiff_t"}
_FIXED_WIDTH = re.compile(r"u?int(8|16|32|64)_t|u?intptr_t")
# a value computed twice where it is used twice: loads and + - * only
_EXPENSIVE = re.compile(r"[/%]|\b[A-Za-z_]\w*\s*\(")


@dataclass
class Substitution:
    """Scalar ``scalar``'s value ``value`` (the C text ``(T)(e)``), written by statement
    ``definition``, replaces each read of it in ``uses``; ``loop``: the innermost loop's
    iterator, for messages."""

    scalar: str
    definition: str
    uses: list[str]
    value: str
    loop: str = ""

    def describe(self) -> str:
        return (f"substituted scalar {self.scalar} (written by {self.definition}) into "
                f"{', '.join(self.uses)} (a value private to each iteration of loop {self.loop})")


def _arithmetic(c_type: str, source: str) -> str | None:
    """``c_type`` without qualifiers when a cast to it converts as an assignment does: an
    arithmetic type, or a name the file defines as one (``typedef float real;``,
    ``#define DATA_TYPE double``: not a struct, whose cast would not compile)."""
    plain = plain_element_type(c_type)
    if plain is None:
        return None
    resolved = plain
    for _ in range(4):
        words = set(resolved.split())
        if words <= _ARITHMETIC_WORDS or (len(words) == 1 and _FIXED_WIDTH.fullmatch(resolved)):
            return plain
        if len(words) != 1:
            return None
        macro = re.search(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(resolved)}[ \t]+([A-Za-z_][\w \t]*?)[ \t]*$",
                          source, re.M)
        resolved = macro.group(1) if macro else header_typedef(source, resolved)
        if resolved is None:
            return None
    return None


def _assigned_value(body: str, name: str) -> str | None:
    """``e`` of a body ``name = e;`` (a plain assignment, nothing else), else None."""
    match = re.fullmatch(rf"\s*{re.escape(name)}\s*=(?!=)(.*);\s*", body, re.S)
    if match is None:
        return None
    value = match.group(1).strip()
    # an assignment inside (the tokens are single characters: a comparison's '=' is
    # none; a tester's 'c = D[i-1][j-1] + (a[j] != 0)' was never substituted)
    if "=" in re.sub(r"[!<>=]=", "  ", re.sub(r"<<=|>>=", "=", value)) or re.search(r"\+\+|--", value):
        return None
    tokens = [t for t in tokenize(value) if t.kind not in ("space", "comment")]
    depth = 0
    for tok in tokens:
        depth += tok.text in "([{" and len(tok.text) == 1
        depth -= tok.text in ")]}" and len(tok.text) == 1
        if (tok.text == "," and depth == 0) or (tok.kind == "ident" and tok.text == name):
            return None
    return value or None


def _loops(scop: Scop, stmt: Statement) -> list[tuple] | None:
    """The loops around ``stmt`` in the source's schedule, outermost first, as (path,
    member) of their bands; None when it has none or is split over branches."""
    try:
        loops = statement_loops(scop, scop.schedule, stmt.name)
    except Exception:    # noqa: BLE001 - split over branches: not a candidate
        return None
    if not loops or len(loops) != len(stmt.iterators):
        return None
    return [(lp.path, lp.member) for lp in loops]


def _same_instances(d: Statement, u: Statement, ctx: isl.Context) -> isl.Map:
    """``{ D[i] -> U[i, j] }`` over ``u``'s instances: ``u`` runs in ``d``'s loops (and
    maybe in loops inside them, ``j``)."""
    its = [f"i{k}" for k in range(len(u.iterators))]
    same = isl.Map(f"{{ {d.name}[{', '.join(its[:len(d.iterators)])}] -> {u.name}[{', '.join(its)}] }}", context=ctx)
    return same.align_params(u.domain.get_space()).intersect_range(u.domain)


def _candidate(scop: Scop, name: str, starts) -> Substitution | None:
    """The substitution of scalar ``name`` (see the module doc), None when it is none."""
    array = scop.arrays[name]
    c_type = _arithmetic(array.element_type, scop.source)
    if c_type is None or array.text or name in scop.address_taken or used_after_scop(scop, name):
        return None
    writers = [s for s in scop.statements if any(a.array == name and a.kind != "read" for a in s.accesses)]
    if len(writers) != 1:
        return None
    d = writers[0]
    if [a.kind for a in d.accesses if a.array == name] != ["write"]:
        return None
    value = _assigned_value(d.body, name)
    order = {s.name: k for k, s in enumerate(scop.statements)}
    uses = [s for s in scop.statements if any(a.array == name and a.kind == "read" for a in s.accesses)]
    if value is None or not uses or any(order[u.name] <= order[d.name] for u in uses):
        return None
    ctx = scop.context.get_ctx()
    loops = _loops(scop, d)
    if loops is None:
        return None
    occurrences, inner = 0, False
    for u in uses:
        u_loops = _loops(scop, u)
        if u_loops is None or u_loops[:len(loops)] != loops or u.iterators[:len(loops)] != d.iterators:
            return None
        inner = inner or len(u_loops) > len(loops)
        found = scalar_tokens(u, scop, name, starts)
        if found is None:
            return None
        occurrences += len(found)
    # computed as often as it is used: once per use and iteration of the loops inside
    if (occurrences > 1 or inner) and _EXPENSIVE.search(value):
        return None
    # each read sees the value D wrote in the same iteration of D's loops (isl's dataflow)
    reads = restrict_to_array(scop.reads, name)
    info = isl.UnionAccessInfo.from_sink(reads).set_must_source(restrict_to_array(scop.writes, name))
    try:
        flow = info.set_schedule(scop.schedule).compute_flow()
    except isl.Error:
        return None
    if not flow.get_may_no_source().is_empty():
        return None
    same = isl.UnionMap.empty(scop.context.get_space())
    for u in uses:
        same = same.union(isl.UnionMap.from_map(_same_instances(d, u, ctx)))
    if not flow.get_may_dependence().is_subset(same):
        return None
    # e has the same value at each use: nothing from D to the last use writes what it
    # reads; with a use in a loop inside D's, that is everything after D in D's loop body
    # (an iteration of the inner loop runs after the statements below it ran before)
    read_names = {a.array for a in d.accesses if a.kind == "read"}
    last = max(order[u.name] for u in uses)
    after = [s for s in scop.statements[order[d.name] + 1:]
             if order[s.name] < last or (inner and s.iterators[:len(loops)] == d.iterators
                                         and (_loops(scop, s) or [])[:len(loops)] == loops)]
    if any(a.array in read_names for stmt in after for a in stmt.accesses if a.kind != "read"):
        return None
    return Substitution(name, d.name, [u.name for u in uses], f"(({c_type})({value}))", d.iterators[-1])


def substitution_plan(scop: Scop) -> list[Substitution]:
    """The scalars to substitute (see the module doc), in an order `substitute` applies
    them in: a chain ``s = ...; t = s * 2; B[i] = t;`` substitutes ``s`` into ``t``'s
    statement, then ``t``'s value (naming ``s``'s) into ``B[i]``'s."""
    plan: list[Substitution] = []
    starts = line_starts(scop.source)
    current = scop
    while True:
        for name in sorted(current.arrays):
            if current.arrays[name].is_scalar and (found := _candidate(current, name, starts)) is not None:
                break
        else:
            return plan
        plan.append(found)
        current = substitute(current, [found])


def _substituted(stmt: Statement, definition: Statement, sub: Substitution, scop: Scop, starts) -> Statement:
    """``stmt`` reading ``sub.value`` where it read the scalar, with the accesses of the
    definition's value (its reads, on ``stmt``'s instances)."""
    body = stmt.body
    for offset in sorted(scalar_tokens(stmt, scop, sub.scalar, starts), reverse=True):
        body = body[:offset] + sub.value + body[offset + len(sub.scalar):]
    same = _same_instances(definition, stmt, scop.context.get_ctx()).reverse()
    moved = [replace(a, relation=same.apply_range(a.relation.align_params(same.get_space())))
             for a in definition.accesses if a.kind == "read"]
    accesses = [a for a in stmt.accesses if a.array != sub.scalar] + moved
    types = {**definition.iterator_types, **stmt.iterator_types}
    return replace(stmt, body=body, accesses=accesses, floating=stmt.floating or definition.floating,
                   iterator_types=types)


def substitute(scop: Scop, plan: list[Substitution]) -> Scop:
    """``scop`` with each entry of ``plan`` applied in order: the definitions gone (to
    ``removed``), their values in the statements that read them, scalars no statement
    accesses left out of ``arrays``, and the schedule restricted to the statements left."""
    starts = line_starts(scop.source)
    for sub in plan:
        definition = scop.statement(sub.definition)
        statements = [_substituted(s, definition, sub, scop, starts) if s.name in sub.uses else s
                      for s in scop.statements if s.name != sub.definition]
        accessed = {a.array for s in statements for a in s.accesses}
        arrays = {name: a for name, a in scop.arrays.items() if name in accessed or not a.is_scalar}
        domain = statements_domain(statements, scop.context.get_space())
        # (the definition goes on ``removed``: the skeleton that leaves the iterators at
        # their final values blanks it as it blanks the statements; helper-65's fuzzer:
        # 'u = 0.5 * t;' stayed there, reading a block's 't' out of its scope)
        scop = replace(scop, statements=statements, arrays=arrays, removed=scop.removed + (definition,),
                       schedule=scop.schedule.intersect_domain(domain))
    return scop


__all__ = ["Substitution", "substitute", "substitution_plan"]
