"""Array transposition: a matrix walked down its columns by a recurrence gets a
transposed copy that the region works on.

ADI's sweeps carry a recurrence along ``j`` inside rows ``i`` that are independent::

    for (t) for (i) {                       i: parallel; j: a chain of updates
      p[i][0] = 0.0;
      for (j = 1; j < n - 1; j++) p[i][j] = -c / (a * p[i][j - 1] + b);
      ...
    }

The tiler puts the parallel ``i`` innermost to vectorize it (the recurrence cannot
be), and ``p[i][j]`` is then read with the stride of a row. In a transposed copy,
``p_t[j][i]``, the same loop order reads it at stride 1::

    { S[t, i, j] -> p[i, j] }   becomes   { S[t, i, j] -> p_t[j - c0, i - r0] }

with two statements around the region: a copy-in of the elements the region touches,
``p_t[c - c0][r - r0] = p[r][c]``, first, and a copy-out of those it writes last, so
the array ends with the values the original code leaves (every other array, and the
order of every operation on each element, is unchanged: outputs are bit-identical).

    plan = transposition_plan(scop)        # [Transposition(...)], possibly empty
    scop2 = transpose(scop, plan)

An array is transposed when:
- it is a C matrix with rows of a declared size (``double p[N][N]``, ``(*p)[N]``; not
  rows through pointers, not a linearised buffer, not a struct member);
- in each statement that references it, the *vector loop* indexes only its first
  subscript, in at least one statement because of a recurrence, and no reference has
  the vector loop in its last subscript (``v[0][i]``: transposing would make that one
  strided). The vector loop is the one the tiler puts innermost to vectorize: the
  innermost loop, unless it carries a chain of updates (each instance reading what an
  earlier one wrote to another element: ``p[i][j - 1]``, not a sum into one element),
  in which case the deepest loop that carries no dependence (``i`` above);
- a loop around its references indexes neither subscript (``t`` above: the copies,
  twice the touched elements, are paid once for many sweeps);
- the touched rows and columns start at constants, and their counts are affine.

The copy lives on the heap (`polysched.emit_c.body.heap_arrays`: allocated by the
region once its run-time check holds, else the original code runs).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polysched.dependence.loops import is_parallel, rows
from polysched.dependence.scalars import ScopAccesses
from polysched.emit_c.names import NameAllocator, tokenize
from polysched.emit_c.scalar_replace import plain_element_type
from polysched.islutil import maps_of
from polysched.scop.model import Access, Array, Scop, Statement, fix_parameters, statements_domain
from polysched.scop.source import line_starts

from .expand import (affine_text, constant_value, involved_dims, loop_groups, loop_rows, offset_text,
                     only_dimension, positive_extents, shows_every_access)


@dataclass
class Transposition:
    """``array`` (``{ [r, c] }``) is replaced by ``copy[c - lows[1]][r - lows[0]]``, a
    ``extents[1]`` x ``extents[0]`` matrix (the counts of touched columns and rows, C
    texts ``texts``); ``vector``/``recurrence``: the loops that made it worth it, for
    messages."""

    array: str
    copy: str
    element_type: str
    lows: tuple[int, int]
    extents: tuple[isl.PwAff, isl.PwAff]
    texts: tuple[str, str]
    vector: str = ""
    recurrence: str = ""

    def describe(self) -> str:
        return (f"transposed array {self.array} into {self.copy}[{self.texts[1]}][{self.texts[0]}] on the heap "
                f"(its columns are walked by a recurrence along {self.recurrence} inside the parallel loop "
                f"{self.vector}; copied in before the region and out after it)")


def _chains(accesses: ScopAccesses) -> set[str]:
    """The statements whose innermost loop carries a chain of updates (each instance
    reading what an earlier one wrote to another element)."""
    chains = set()
    for m in maps_of(accesses.recurrences()):
        n = m.dim(isl.dim_type.in_)
        # a pair of instances apart along the innermost loop, either way round (not
        # m.deltas(): projecting a relation with integer divisions, subscripts with %
        # and /, ran isl for minutes, out of reach of any operation cap)
        universe = isl.Map.universe(m.get_space())
        if n and any(not m.intersect(apart).is_empty() for apart in (
                universe.order_lt(isl.dim_type.in_, n - 1, isl.dim_type.out, n - 1),
                universe.order_gt(isl.dim_type.in_, n - 1, isl.dim_type.out, n - 1))):
            chains.add(m.get_tuple_name(isl.dim_type.in_))
    return chains


def _parallel_loops(scop: Scop, accesses: ScopAccesses) -> dict[tuple[str, int], bool]:
    """``(statement, depth) -> carries no dependence`` for the loops of the original
    schedule (memory-based dependences among the statements of each loop); loops of a
    statement split over branches are absent."""
    memory = accesses.all_memory()
    found: dict[tuple[str, int], bool] = {}
    for (path, member), members in loop_groups(scop).items():
        statements = [s for s, _ in members]
        domain = statements_domain(statements, scop.context.get_space())
        outer, row = loop_rows(scop, path, member, domain)
        plain = all(only_dimension(s, rows(outer, row), d) for s, d in members)
        parallel = plain and is_parallel(memory.intersect_domain(domain).intersect_range(domain), outer, row)
        for s, d in members:
            found[(s.name, d)] = parallel
    return found


def _vector_loop(stmt: Statement, parallel: dict[tuple[str, int], bool], chains: set[str]) \
        -> tuple[int | None, int | None]:
    """``(vector loop, the innermost loop when it carries a chain of updates, else
    None)`` of ``stmt`` (see the module doc); ``(None, None)`` without loops or when a
    loop's verdict is unknown."""
    depth = len(stmt.iterators)
    verdicts = [parallel.get((stmt.name, d)) for d in range(depth)]
    if not depth or None in verdicts:
        return None, None
    if verdicts[-1] or stmt.name not in chains:
        return depth - 1, None      # the innermost loop vectorizes, or stays innermost
    inside = next((d for d in range(depth - 2, -1, -1) if verdicts[d]), None)
    return (depth - 1, None) if inside is None else (inside, depth - 1)


def references(stmt: Statement, scop: Scop, name: str, starts, dims: int = 2) \
        -> list[tuple[int, int, list[str]]] | None:
    """The references ``name[e0]...[e{dims - 1}]`` in ``stmt.body``: ``(start, end, [e0,
    ...])``, one per access of ``name``; None when the text does not show each one so (a
    macro hides one, ``&name``, a row ``name[i]`` passed on, a member)."""
    tokens = tokenize(stmt.body)
    found, pos, previous = [], 0, None
    offsets = []
    for tok in tokens:
        offsets.append(pos)
        pos += len(tok.text)
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        if tok.kind == "ident" and tok.text == name:
            if previous is not None and (previous.text in ("&", ".") or previous.kind == "arrow"):
                return None
            start, subscripts, j, close = offsets[k], [], k + 1, k
            while len(subscripts) <= dims:
                while j < len(tokens) and tokens[j].kind in ("space", "comment"):
                    j += 1
                if j >= len(tokens) or tokens[j].text != "[":
                    break
                depth, first = 0, j
                while j < len(tokens):
                    depth += {"[": 1, "]": -1}.get(tokens[j].text, 0)
                    if depth == 0:
                        break
                    j += 1
                if j >= len(tokens):
                    return None
                subscripts.append("".join(t.text for t in tokens[first + 1:j]).strip())
                close, j = j, j + 1
            if len(subscripts) != dims:
                return None
            found.append((start, offsets[close] + 1, subscripts))
            previous, k = tokens[close], close + 1
            continue
        if tok.kind not in ("space", "comment"):
            previous = tok
        k += 1
    return found if shows_every_access(stmt, scop, name, starts, [f[0] for f in found]) else None


def transposition_plan(scop: Scop) -> list[Transposition]:
    """The arrays worth transposing (see the module doc); an empty list when none is."""
    candidates = [a for a in scop.arrays.values()
                  if len(a.dims) == 2 and a.dims[-1] and not a.linearized and not a.text
                  and a.origin not in ("region", "expanded") and plain_element_type(a.element_type)]
    users = {a.name: [s for s in scop.statements if any(x.array == a.name for x in s.accesses)]
             for a in candidates}
    candidates = [a for a in candidates if users[a.name]]
    if not candidates:
        return []
    accesses = ScopAccesses(scop)
    chains = _chains(accesses)
    # (only a user with a chain of updates can vote for a transposition, see _votes:
    # the loops' verdicts, the costly part, are computed only then)
    candidates = [a for a in candidates if any(s.name in chains for s in users[a.name])]
    if not candidates:
        return []
    parallel = (_parallel_loops(scop, accesses), chains)
    starts = line_starts(scop.source)
    names = NameAllocator(set(scop.identifiers) | set(scop.arrays))
    plan = []
    for array in candidates:
        votes = _votes(scop, array.name, users[array.name], parallel, starts)
        if votes is None:
            continue
        vector, recurrence = votes
        bounds = touched_bounds(scop, array.name)
        if bounds is None:
            continue
        lows, extents, texts = bounds
        if fix_parameters(positive_extents(scop.context, extents), scop.parameter_values).is_empty():
            continue        # (the known sizes leave nothing to copy)
        plan.append(Transposition(array.name, names.fresh(f"{array.name}_t"), plain_element_type(array.element_type),
                                  lows, extents, texts, vector, recurrence))
    return plan


def _votes(scop: Scop, name: str, statements: list[Statement], parallel, starts) -> tuple[str, str] | None:
    """``(vector loop, recurrence loop)`` (iterators) when the references to ``name``
    in ``statements`` favour transposing it, else None."""
    favour, recurrence, reuse = None, None, False
    for stmt in statements:
        if references(stmt, scop, name, starts) is None:
            return None
        vector, inner = _vector_loop(stmt, *parallel)
        for access in (a for a in stmt.accesses if a.array == name):
            subscripts = involved_dims(access.relation)
            if subscripts is None or len(subscripts) != 2 or any(len(s) > 1 for s in subscripts):
                return None
            if vector is None:
                return None
            if vector in subscripts[1]:
                return None
            if vector in subscripts[0]:
                favour = favour or stmt.iterators[vector]
                if inner is not None and recurrence is None:
                    recurrence, favour = stmt.iterators[inner], stmt.iterators[vector]
            reuse = reuse or bool(set(range(len(stmt.iterators))) - subscripts[0] - subscripts[1])
    if favour is None or recurrence is None or not reuse:
        return None
    return favour, recurrence


def touched_bounds(scop: Scop, name: str, dims: int = 2):
    """``(lows, extents, texts)`` of the elements of ``name`` the region touches, per
    subscript (of ``dims``; a matrix: ``((row0, col0), (rows, cols), (rows text, cols
    text))``): constant first indices, affine counts; else None."""
    touched = None
    for stmt in scop.statements:
        for access in (a for a in stmt.accesses if a.array == name):
            part = access.relation.range()
            touched = part if touched is None else touched.union(part)
    touched = touched.intersect_params(scop.context).coalesce()
    if touched.is_empty() or touched.dim(isl.dim_type.set) != dims:
        return None
    lows, extents, texts = [], [], []
    for dim in range(dims):
        low = constant_value(touched.dim_min(dim).gist_params(scop.context))
        if low is None:
            return None
        extent = touched.dim_max(dim).gist_params(scop.context).add_constant_val(
            isl.Val.int_from_si(scop.context.get_ctx(), 1 - low))
        text = affine_text(extent, scop.context)
        if text is None:
            return None
        lows.append(low)
        extents.append(extent)
        texts.append(text)
    return tuple(lows), tuple(extents), tuple(texts)


def transpose(scop: Scop, plan: list[Transposition]) -> Scop:
    """``scop`` with each `Transposition` of ``plan`` applied: the references name the
    copy, a copy-in statement runs first and a copy-out statement last (see the module
    doc), the region declares the copies, and the context keeps their counts positive."""
    if not plan:
        return scop
    starts = line_starts(scop.source)
    ctx = scop.context.get_ctx()
    arrays = dict(scop.arrays)
    statements = list(scop.statements)
    before, after = [], []
    names = NameAllocator(set(scop.identifiers) | set(scop.arrays) | {t.copy for t in plan})
    taken = {s.name for s in statements}

    def statement_name() -> str:
        return fresh_statement_name(taken, len(statements) + len(before) + len(after))
    context = scop.context
    for t in plan:
        original = arrays[t.array]
        arrays[t.copy] = Array(t.copy, t.element_type, [t.texts[1], t.texts[0]], origin="expanded")
        swap = isl.Map(f"{{ {t.array}[r, c] -> {t.copy}[c - ({t.lows[1]}), r - ({t.lows[0]})] }}",
                       context=ctx).align_params(scop.context.get_space())
        touched = written = None
        for k, stmt in enumerate(statements):
            mine = [a for a in stmt.accesses if a.array == t.array]
            if not mine:
                continue
            for a in mine:
                touched = a.relation.range() if touched is None else touched.union(a.relation.range())
                if a.kind != "read":
                    written = a.relation.range() if written is None else written.union(a.relation.range())
            statements[k] = _rewritten(scop, stmt, t, swap, starts)
        row, col = names.fresh("polysched_row"), names.fresh("polysched_col")
        element = f"{t.copy}[{offset_text(col, t.lows[1])}][{offset_text(row, t.lows[0])}]"
        source = original.element([row, col])
        before.append(_copy(statement_name(), touched, row, col, f"{element} = {source};",
                            (t.array, "read"), (t.copy, "write"), swap))
        if written is not None:
            after.append(_copy(statement_name(), written, row, col, f"{source} = {element};",
                               (t.copy, "read"), (t.array, "write"), swap))
        context = positive_extents(context, t.extents)
    schedule = scop.schedule
    for stmt in reversed(before):
        schedule = _alone(stmt).sequence(schedule)
    for stmt in after:
        schedule = schedule.sequence(_alone(stmt))
    context = context.coalesce()
    return replace(scop, statements=statements + before + after, arrays=arrays, schedule=schedule,
                   context=context, identifiers=scop.identifiers | {t.copy for t in plan})


def fresh_statement_name(taken: set[str], k: int) -> str:
    """The first of ``S{k}``, ``S{k + 1}``, ... (as the front end names statements) not
    in ``taken``, which it joins."""
    while f"S{k}" in taken:
        k += 1
    taken.add(f"S{k}")
    return f"S{k}"


def _rewritten(scop: Scop, stmt: Statement, t: Transposition, swap: isl.Map, starts) -> Statement:
    """``stmt`` with its references to ``t.array`` naming the copy."""
    body = stmt.body
    for start, end, (first, second) in reversed(references(stmt, scop, t.array, starts)):
        body = body[:start] + f"{t.copy}[{_shifted(second, t.lows[1])}][{_shifted(first, t.lows[0])}]" + body[end:]
    accesses = [replace(a, array=t.copy, relation=a.relation.apply_range(swap)) if a.array == t.array else a
                for a in stmt.accesses]
    return replace(stmt, body=body, accesses=accesses)


def _shifted(text: str, low: int) -> str:
    """The subscript ``text - low`` (``text`` parenthesised unless a name or a number)."""
    if low == 0:
        return text
    plain = [tok for tok in tokenize(text) if tok.kind not in ("space", "comment")]
    return offset_text(text if len(plain) == 1 else f"({text})", low)


def _copy(name: str, elements: isl.Set, row: str, col: str, body: str, read, write, swap: isl.Map) -> Statement:
    """A copy statement ``name`` over ``elements`` (``{ A[r, c] }``) between ``A`` and its
    copy (``swap``: ``{ A[r, c] -> A_t[...] }``); ``read``/``write``: (array, kind)."""
    domain = elements.coalesce().set_tuple_name(name).set_dim_name(isl.dim_type.set, 0, row) \
        .set_dim_name(isl.dim_type.set, 1, col)
    plain = isl.Map.identity(domain.get_space().map_from_set()).intersect_domain(domain) \
        .set_tuple_name(isl.dim_type.out, swap.get_tuple_name(isl.dim_type.in_))
    copy = swap.get_tuple_name(isl.dim_type.out)

    def relation(array: str) -> isl.Map:
        return plain.apply_range(swap) if array == copy else plain
    accesses = [Access(read[0], read[1], relation(read[0])), Access(write[0], write[1], relation(write[0]))]
    return Statement(name, [row, col], domain, accesses, body)


def _alone(stmt: Statement) -> isl.Schedule:
    """The schedule of ``stmt`` alone: its iterators in order."""
    identity = isl.Map.identity(stmt.domain.get_space().map_from_set()).intersect_domain(stmt.domain) \
        .reset_tuple_id(isl.dim_type.out)
    return isl.Schedule.from_domain(isl.UnionSet.from_set(stmt.domain)).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap.from_map(identity)))


__all__ = ["Transposition", "transpose", "transposition_plan"]
