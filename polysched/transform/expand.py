"""Scalar expansion: a scalar private to a loop becomes an array indexed by that loop.

A loop nest that walks columns keeps its recurrence in scalars (deriche's vertical
sweeps; a column scan; a dot product written ``s = 0; for (k) s += A[i][k] * B[k][j];
C[i][j] = s;``)::

    for (j = 0; j < H; j++) {          { S0[j] -> ym1[] }, { S1[j, i] -> ym1[] }
      ym1 = 0.0;
      for (i = 0; i < W; i++) { y[i][j] = a * x[i][j] + b * ym1; ym1 = y[i][j]; }
    }

The scalar orders every instance of the nest after every other (memory dependences on
``ym1[]``), so no scheduler may run ``i`` outside ``j``, and the inner loop walks ``x``
and ``y`` with a stride of a row. When the scalar is private to the ``j`` loop (every
read sees a value written in the same iteration, no value leaves the iteration: see
`polysched.dependence.scalars.private_reason`), each iteration may have its own copy:

    { S0[j] -> ym1_x[j] }, { S1[j, i] -> ym1_x[j] }

which leaves only the true recurrence ``S1[j, i] -> S1[j, i + 1]``: ``i`` and ``j``
form a permutable band, ``j`` innermost is stride 1 and vectorizes, and each column's
operations keep their order (bit-identical results).

    plan = expansion_plan(scop)            # [Expansion(...)], possibly empty
    scop2 = expand(scop, plan)             # a new Scop; bodies name the new arrays

Only where it pays and is cheap: the loop has a loop inside it that walks an array
across rows while the expanded loop's iterator indexes that array's last subscript
(stride 1), the loop's lower bound is a constant or an affine function of the
parameters (``for (j = lo; ...)``: ``s_x[j - (lo)]``) and its extent an affine function
of the parameters. The new arrays live on the heap: the region allocates them once its
run-time check holds and their size is at most ``HEAP_BYTES`` (else, or when the
allocation fails, the original code runs); see `polysched.emit_c.body.heap_arrays`. (On
the stack, up to 1 MiB of them crashed threads with small stacks, ``OMP_STACKSIZE=1M``
or ``ulimit -s 1024``, where the original ran.)

When the scalar's last statements in each iteration set one element that nothing else
of the iteration touches (``A[i][j] = w / A[j][j];`` under ``j < i``, ``A[i][j] = w;``
elsewhere: ludcmp), that element holds the scalar instead: no new array, so this is
also done where the loop carries a dependence and sits between others (a
factorisation's ``j``, between ``i`` and ``k``), which the scalar kept in their order.

A scalar private to ``j`` in ``for (i) for (j)`` is private to each ``(i, j)`` too. When
the loops around ``j`` carry no dependence but through the expanded scalars (a user's
``s = 0; for (k) s += A[i][k] * B[k][j]; C[i][j] = beta * C[i][j] + alpha * s;``), a
one-dimensional ``s_x[j]`` would still order the ``i`` iterations (each reuses it), so
the array gets those loops too: ``s_x[i][j]``, which leaves ``i`` and ``j`` free and the
product a matmul the tensorizer maps.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import islpy as isl

from polysched.dependence.loops import is_parallel, mupa_rows, prefix_rows, rows, same_value
from polysched.dependence.scalars import ScopAccesses, private_reason
from polysched.emit_c.body import HEAP_BYTES
from polysched.emit_c.names import NameAllocator, tokenize
from polysched.emit_c.scalar_replace import plain_element_type
from polysched.islutil import maps_of
from polysched.scop.affine import type_size
from polysched.scop.model import Array, Scop, Statement, fix_parameters, statements_domain
from polysched.scop.source import line_starts, offset_of

from .loops import node_at, statement_loops

@dataclass
class Expansion:
    """Scalar ``scalar`` of the statements ``statements`` becomes the element ``text`` of
    ``array``: ``target { [i0, ..., i_depth] -> array[f] }`` of the iterators of the
    loops down to the expanded one (``depth``), which the statements share.

    Either a new array (``extent`` ``[params] -> { [n] }`` elements, the loop's trip
    count; ``text`` ``x_x[j]``), or (``in_place``), when the scalar's last use in each
    iteration sets an element that no other access of the iteration touches (``C[i][j]
    = x;``, ``A[i][j] = w / A[j][j];``), that element. ``dropped``: the statements that
    were plain copies ``C[i][j] = x;``, which become ``C[i][j] = C[i][j]`` and are
    removed."""

    scalar: str
    array: str
    text: str
    statements: list[str]
    depth: int
    target: isl.Map
    element_type: str
    extent: isl.PwAff | None = None
    extent_text: str = ""
    in_place: bool = False
    dropped: tuple[str, ...] = ()
    loop: str = ""            # the loop's iterator, for messages
    why: str = ""
    # the loops around it that the array spans too, outermost first: (iterator, lower
    # bound, extent, its C text) each; the array is then on the heap
    outer: list[tuple[str, int | str, isl.PwAff, str]] = field(default_factory=list)

    def describe(self) -> str:
        if self.in_place:
            into = f"its destination {self.text}"
        else:
            into = self.array + "".join(f"[{text}]" for *_, text in self.outer) + f"[{self.extent_text}]"
            into += " on the heap" if self.outer else ""
        loops = "loops " + ", ".join([o[0] for o in self.outer] + [self.loop]) if self.outer else f"loop {self.loop}"
        return f"expanded scalar {self.scalar} into {into} (private to {loops}: {self.why})"


def _element_size(c_type: str) -> int | None:
    """``sizeof`` of the scalar's type, None for what an array of it cannot hold alike
    (volatile, pointers, unknown typedefs)."""
    plain = plain_element_type(c_type)
    return None if plain is None else type_size(plain)


def involved_dims(access: isl.Map) -> list[set[int]] | None:
    """Per subscript of ``{ S[i] -> A[f(i)] }``, the input dimensions it depends on."""
    try:
        pma = isl.PwMultiAff.from_map(access)
    except isl.Error:
        return None
    n_in = access.dim(isl.dim_type.in_)
    result = []
    for out in range(pma.dim(isl.dim_type.out)):
        involved: set[int] = set()

        def piece(_where, aff):
            # the affine expression, not the domain of its piece
            involved.update(k for k in range(n_in) if aff.involves_dims(isl.dim_type.in_, k, 1))
        pma.get_pw_aff(out).foreach_piece(piece)
        result.append(involved)
    return result


def _walks_across_rows(scop: Scop, statements: list[Statement], depth: int) -> str | None:
    """An array reference of the loop's inner loops that the loop at ``depth`` indexes at
    stride 1 and an inner loop across rows (``y[i][j]`` in ``for (j) for (i)``), or None."""
    for stmt in statements:
        if len(stmt.iterators) <= depth + 1:
            continue
        for access in stmt.accesses:
            array = scop.arrays.get(access.array)
            if array is None or array.is_scalar:
                continue
            subscripts = involved_dims(access.relation)
            if not subscripts or len(subscripts) < 2:
                continue
            inner = set(range(depth + 1, len(stmt.iterators)))
            if depth in subscripts[-1] and \
                    any(s & inner for s in subscripts[:-1]):
                return f"{array.name} is walked across rows inside it"
    return None


def loop_groups(scop: Scop) -> dict[tuple, list[tuple[Statement, int]]]:
    """The loops of the original schedule: ``(path, member) -> [(statement, depth)]``."""
    groups: dict[tuple, list[tuple[Statement, int]]] = {}
    for stmt in scop.statements:
        try:
            loops = statement_loops(scop, scop.schedule, stmt.name)
        except Exception:   # noqa: BLE001 - a statement split over branches: not a candidate
            continue
        for lp in loops:
            groups.setdefault((lp.path, lp.member), []).append((stmt, lp.depth))
    return groups


def loop_rows(scop: Scop, path: tuple, member: int, domain: isl.UnionSet) -> tuple[isl.UnionMap, isl.UnionMap]:
    """``({ S[i] -> [outer rows...] }, { S[i] -> [loop] })`` of the loop at ``(path, member)``."""
    node = node_at(scop.schedule, path)
    partial = node.band_get_partial_schedule()
    outer = prefix_rows(node)
    if member:
        outer = rows(outer, mupa_rows(partial, list(range(member))))
    return outer.intersect_domain(domain), mupa_rows(partial, [member]).intersect_domain(domain)


def only_dimension(stmt: Statement, row: isl.UnionMap, depth: int) -> bool:
    """The loop's row for ``stmt`` is ``±i_depth + c``: its iterator is that dimension."""
    for m in maps_of(row):
        if m.get_tuple_name(isl.dim_type.in_) != stmt.name:
            continue
        last = m.dim(isl.dim_type.out) - 1
        m = m.project_out(isl.dim_type.out, 0, last)
        involved = involved_dims(m)
        if involved is not None and involved[0] == {depth}:
            return True
        # (a statement whose domain ties the iterator to another, S2[i, j = i], may see
        # its row written in the other: it is still the iterator plus a constant)
        dims = ", ".join(f"i{k}" for k in range(m.dim(isl.dim_type.in_)))
        iterator = isl.Map(f"{{ {stmt.name}[{dims}] -> [i{depth}] }}", context=m.get_ctx())
        along = iterator.align_params(m.get_space()).intersect_domain(m.domain()).reverse().apply_range(m)
        return along.is_single_valued() and along.deltas().is_singleton()
    return False


def scalar_tokens(stmt: Statement, scop: Scop, name: str, starts) -> list[int] | None:
    """Offsets in ``stmt.body`` of the references to scalar ``name``: one per access of
    it, each at a plain token ``name`` (not ``&name``, not a member); None when the text
    does not show every access (a macro hides one). A body the front end rewrote (a
    scalar declared in the region, renamed) is matched by the number of references."""
    found, pos, previous = [], 0, None
    for tok in tokenize(stmt.body):
        if tok.kind == "ident" and tok.text == name:
            if previous is not None and (previous.text in ("&", ".") or previous.kind == "arrow"):
                return None
            found.append(pos)
        if tok.kind not in ("space", "comment"):
            previous = tok
        pos += len(tok.text)
    return found if found and shows_every_access(stmt, scop, name, starts, found) else None


def shows_every_access(stmt: Statement, scop: Scop, name: str, starts, found: list[int]) -> bool:
    """Are ``found`` (offsets in ``stmt.body``) the references of every access of
    ``name``? By position when the body is the source's text, else (a body the front
    end rewrote) by their number."""
    positions = {(a.line, a.col) for a in stmt.accesses if a.array == name}
    base = offset_of(starts, stmt.line, stmt.col) if stmt.line else None
    if base is not None and scop.source[base:base + len(stmt.body)] == stmt.body:
        return set(found) == {offset_of(starts, line, col) - base for line, col in positions}
    return len(found) == len(positions)


def constant_value(pa: isl.PwAff) -> int | None:
    if pa.n_piece() != 1 or not pa.is_cst():
        return None
    value = None

    def each(_set, aff):
        nonlocal value
        value = aff.get_constant_val()
    pa.foreach_piece(each)
    return int(value.to_str()) if value is not None and value.is_int() else None


def affine_text(pa: isl.PwAff, context: isl.Set) -> str | None:
    """C text of a one-piece affine function of the parameters, else None."""
    pa = pa.gist_params(context) if not context.is_empty() else pa
    if pa.n_piece() != 1:
        return None
    pieces = []
    pa.foreach_piece(lambda s, aff: pieces.append(aff))
    if not pieces[0].is_cst() and any(not pieces[0].get_coefficient_val(isl.dim_type.param, k).is_int()
                                      for k in range(pieces[0].dim(isl.dim_type.param))):
        return None
    if not pieces[0].get_constant_val().is_int() or pieces[0].dim(isl.dim_type.div):
        return None     # (isl would print floord(), which C does not have)
    build = isl.AstBuild.from_context(isl.Set.universe(context.get_space()))
    return build.expr_from_pw_aff(isl.PwAff.from_aff(pieces[0])).to_C_str()


@dataclass
class _Candidate:
    """A loop `expansion_plan` tries: its group in `loop_groups` (``path``, ``member``),
    how many loops enclose it, its statements, why expanding there may pay, the
    scalars written in it, and whether only an element they end in may hold them."""
    path: tuple
    member: int
    depth: int
    statements: list[Statement]
    why: str
    scalars: list[str]
    in_place_only: bool


def expansion_plan(scop: Scop, only: set[str] | None = None,
                   why_not: dict[str, str] | None = None) -> list[Expansion]:
    """The scalars worth expanding (see the module doc), at most one array per (scalar,
    loop); an empty list when none is. ``only``: these scalars, wherever they are
    private to a loop whether or not it walks arrays across rows (a user's request:
    their storage, reused by every iteration, orders the iterations), each at the
    innermost such loop (with the free loops around it). ``why_not``: filled with the
    reason a scalar is not private to a loop it was tried at (innermost first)."""
    groups = loop_groups(scop)
    written_scalars = {a.array for s in scop.statements for a in s.accesses
                       if a.kind in ("write", "may_write") and a.array in scop.arrays
                       and scop.arrays[a.array].is_scalar and not scop.arrays[a.array].text}
    if not written_scalars:
        return []
    candidates = []
    for (path, member), members in groups.items():
        depth = members[0][1]
        if any(d != depth for _, d in members):
            continue
        statements = [s for s, _ in members]
        why = _walks_across_rows(scop, statements, depth) or ("asked for" if only is not None else None)
        in_place_only = False
        if why is None and depth >= 1 and any(len(s.iterators) > depth + 1 for s in statements):
            # an element the scalar ends in costs nothing: tried too where the loop sits
            # between others (a factorisation's j, between i and k), which the scalar,
            # gone, lets the scheduler reorder (a row-wise Cholesky: 2.5x at 2 threads);
            # not where the loop, or the one around it, would be parallel but for the
            # scalar, private there, nor where it does not walk the elements along a row
            why, in_place_only = "the loops around and inside it may then be reordered", True
        if why is None:
            continue
        mine = {a.array for s in statements for a in s.accesses if a.array in written_scalars}
        if only is not None:
            mine &= only
        if mine:
            candidates.append(_Candidate(path, member, depth, statements, why, sorted(mine), in_place_only))
    if not candidates:
        return []
    if only is not None:
        candidates.sort(key=lambda candidate: -candidate.depth)        # the innermost loop first
    accesses = ScopAccesses(scop)
    starts = line_starts(scop.source)
    names = NameAllocator(set(scop.identifiers) | set(scop.arrays))
    plan: list[Expansion] = []
    taken: set[tuple[str, str]] = set()      # (scalar, statement) already expanded
    for candidate in candidates:
        path, member, depth, statements = candidate.path, candidate.member, candidate.depth, candidate.statements
        why, scalars, in_place_only = candidate.why, candidate.scalars, candidate.in_place_only
        domain = statements_domain(statements, scop.context.get_space())
        outer, row = loop_rows(scop, path, member, domain)
        iteration = rows(outer, row)
        if not all(only_dimension(s, iteration, depth) for s in statements):
            continue
        # a new array only where the columns are independent but for these scalars: else
        # the loop stays outside whatever the scalars become, and the array would only
        # cost (gramschmidt's nrm, in the sequential k loop). An element the scalar ends
        # in costs nothing, and frees the schedule (ludcmp's w, in A[i][j]: 6x at 2 threads)
        others = accesses.memory_except(set(scalars)).intersect_domain(domain).intersect_range(domain)
        columns_free = is_parallel(others, outer, row)
        if columns_free and in_place_only:
            continue
        trip = _trip(statements, depth, scop.context) if columns_free else None
        lower, extent, extent_text = trip or (None, None, "")
        # the loops around this one that are parallel but for these scalars: asked of isl
        # once, and only where an expansion needs them
        loops_around = functools.cache(lambda: _outer_loops(scop, groups, statements, depth, accesses, scalars))
        for scalar in scalars:
            array = scop.arrays[scalar]
            if _element_size(array.element_type) is None:
                continue
            touching = [s for s in statements if any(a.array == scalar for a in s.accesses)]
            if any((scalar, s.name) in taken for s in touching):
                continue
            if any(scalar_tokens(s, scop, scalar, starts) is None for s in touching):
                continue
            reason = private_reason(scop, accesses, scalar, domain, same_value(iteration))
            if reason is not None:
                if why_not is not None:
                    why_not.setdefault(scalar, f"at loop {statements[0].iterators[depth]}: {reason}")
                continue
            iterator = statements[0].iterators[depth]
            if any(s.iterators[depth] != iterator or iterator in s.iterators[depth + 1:] for s in touching):
                continue        # (an inner loop's iterator shadows the loop's name)
            element = plain_element_type(array.element_type)
            destination = _destination(scop, statements, touching, scalar, depth, iteration, element)
            if destination is not None and in_place_only:
                if depth not in (involved_dims(destination[1]) or [set()])[-1] or loops_around():
                    # the loop walks the elements across rows: reordered, each
                    # iteration's sum would be strided (a Crout LU's a[i][j] at loop i:
                    # 8x slower); or the loop around it is parallel already, the scalar
                    # private (a triangular solve per right-hand side: 0.9x in place)
                    destination = None
            if destination is not None:
                copies, target, text = destination
                plan.append(Expansion(scalar, target.get_tuple_name(isl.dim_type.out), text,
                                      [s.name for s in touching if s.name not in copies], depth, target, element,
                                      in_place=True, dropped=copies, loop=iterator, why=why))
            elif in_place_only or not columns_free or trip is None:
                continue
            else:
                name = names.fresh(f"{scalar}_x")
                outer = loops_around()
                if any(o[0] in s.iterators[depth:] for o in outer for s in touching) or \
                        (outer and not _fits_heap(scop, element, [o[2] for o in outer] + [extent])):
                    outer = []
                spanned = [(o[0], o[1], depth - len(outer) + k) for k, o in enumerate(outer)] + \
                    [(iterator, lower, depth)]
                text = name + "".join(f"[{offset_text(it, low)}]" for it, low, _ in spanned)
                target = isl.Map(f"[{', '.join(scop.parameters)}] -> "
                                 f"{{ [{', '.join(f'i{k}' for k in range(depth + 1))}] -> "
                                 f"{name}[{', '.join(f'i{d} - ({low})' for _, low, d in spanned)}] }}",
                                 context=scop.context.get_ctx())
                plan.append(Expansion(scalar, name, text, [s.name for s in touching], depth, target, element,
                                      extent, extent_text, loop=iterator, why=why, outer=outer))
            taken.update((scalar, s.name) for s in touching)
    return _with_elements(scop, plan)


def offset_text(iterator: str, lower: int | str) -> str:
    """C text of ``iterator - lower`` (``j``, ``j - 2``, ``j + 1``; ``j - (lo)`` for
    the C text of a parametric lower bound)."""
    if isinstance(lower, str):
        return f"{iterator} - ({lower})"
    return iterator if lower == 0 else f"{iterator} - {lower}" if lower > 0 else f"{iterator} + {-lower}"


def _outer_loops(scop: Scop, groups, statements: list[Statement], depth: int, accesses: ScopAccesses,
                 scalars: list[str]) -> list[tuple[str, int | str, isl.PwAff, str]]:
    """The loops around the loop at ``depth`` of ``statements`` that carry no dependence
    but through ``scalars`` (``i`` of ``for (i) for (j) { s = 0; ... }``), innermost
    outward up to the first that does not, each with a lower bound and an affine trip
    count (`_trip`): ``[(iterator, lower, extent, its C text)]``, outermost first."""
    try:
        loops = statement_loops(scop, scop.schedule, statements[0].name)
    except Exception:   # noqa: BLE001 - as in loop_groups
        return []
    found = []
    for d in range(depth - 1, -1, -1):
        inside = [s for s, _ in groups.get((loops[d].path, loops[d].member), [])]
        if not inside or any(len(s.iterators) <= d for s in inside):
            break
        domain = statements_domain(inside, scop.context.get_space())
        outer, row = loop_rows(scop, loops[d].path, loops[d].member, domain)
        if not all(only_dimension(s, rows(outer, row), d) for s in inside):
            break
        others = accesses.memory_except(set(scalars)).intersect_domain(domain).intersect_range(domain)
        trip = _trip(statements, d, scop.context)
        if trip is None or not is_parallel(others, outer, row):
            break
        found.append((statements[0].iterators[d], *trip))
    return found[::-1]


def _fits_heap(scop: Scop, element_type: str, extents: list[isl.PwAff]) -> bool:
    """An array of ``element_type`` and ``extents`` has at most ``HEAP_BYTES`` for the
    known parameter values (``-D``/``#define`` defaults; when some are unknown, the
    run-time check decides)."""
    known = fix_parameters(scop.context, scop.parameter_values)
    size = _element_size(element_type)
    for extent in extents:
        top = extent.intersect_params(known).max_val()
        if not top.is_int():
            return True
        size *= max(int(top.to_str()), 0)
    return size <= HEAP_BYTES


def _destination(scop: Scop, statements: list[Statement], touching: list[Statement], scalar: str, depth: int,
                 iteration: isl.UnionMap, element: str):
    """``(copies, target, text)`` when the statements of the loop's body that use
    ``scalar`` last (its tail, one per iteration at most: ``if (j < i) A[i][j] = w /
    A[j][j]; if (j >= i) A[i][j] = w;``) each set (plain ``=``) the element ``D[f]``,
    with ``f`` a function of the loops down to ``depth`` (``target { [i0..i_depth] ->
    D[f] }``, ``text`` its C text), one element per iteration, of the scalar's very type;
    a tail statement runs in every iteration that uses the scalar, and no other access of
    the iteration touches that element: then ``D[f]`` can hold the scalar's values
    (Polly's DeLICM does this mapping in general). ``copies``: the tail's plain copies
    ``D[f] = scalar;`` and a first statement ``scalar = D[f];``, which become no-ops.
    Else None."""
    order = scop.statements.index
    tail: list[Statement] = []
    for stmt in sorted(touching, key=order, reverse=True):
        written_arrays = [a.array for a in stmt.accesses if a.kind == "write"]
        if len(stmt.iterators) != depth + 1 or len(written_arrays) != 1 or written_arrays[0] == scalar \
                or not any(a.array == scalar for a in stmt.accesses):
            break
        tail.append(stmt)
    if not tail:
        return None
    destination = scop.arrays.get(next(a.array for a in tail[0].accesses if a.kind == "write"))
    if destination is None or destination.is_scalar or plain_element_type(destination.element_type) != element:
        return None
    for stmt in tail:
        lhs, equals, rhs = stmt.body.partition("=")
        # (a plain '=': 'D[f] += s' would read what the element then holds, s)
        if not equals or rhs.startswith("=") or lhs.count("[") != lhs.count("]") \
                or lhs.rstrip().endswith(("+", "-", "*", "/", "%", "&", "|", "^", "<", ">", "!")) \
                or next(a.array for a in stmt.accesses if a.kind == "write") != destination.name:
            return None
    # the element, as the text of one tail statement's left-hand side that names it for
    # every tail statement where it runs ('A[i][j]' for 'A[i][i] = sqrt(s)' under i == j)
    writes = []
    for stmt in tail:
        try:
            pma = isl.PwMultiAff.from_map(next(a.relation for a in stmt.accesses if a.kind == "write"))
        except isl.Error:
            return None
        if pma.n_piece() != 1:
            return None
        pma.foreach_piece(lambda _where, maff: writes.append(isl.Map.from_multi_aff(maff)
                                                              .reset_tuple_id(isl.dim_type.in_)))
    loops = [stmt.domain.reset_tuple_id() for stmt in tail]
    chosen = next((k for k, target in enumerate(writes)
                   if all(w.intersect_domain(d).is_subset(target) for w, d in zip(writes, loops))), None)
    if chosen is None:
        return None
    target, text = writes[chosen], tail[chosen].body.partition("=")[0].strip()
    known = set(tail[0].iterators) | set(scop.parameters) | {destination.c_text}
    names = {tok.text for tok in tokenize(text) if tok.kind == "ident"}
    if names - known:
        return None
    # the text means the same element in every statement: no inner loop's iterator
    # shadows a name it uses
    if any(stmt.iterators[:depth + 1] != tail[0].iterators or names & set(stmt.iterators[depth + 1:])
           for stmt in touching):
        return None
    ends = statements_domain(tail, scop.context.get_space())
    domain = loops[0]
    for other in loops[1:]:
        domain = domain.union(other)
    if not target.intersect_domain(domain).is_injective():
        return None
    # one tail statement per iteration (a copy after 'D[f] = 2 * s' would then copy the
    # doubled value), and one in every iteration that uses the scalar
    if not iteration.intersect_domain(ends).reverse().is_single_valued():
        return None
    uses = statements_domain(touching, scop.context.get_space())
    if not uses.apply(iteration).is_subset(ends.apply(iteration)):
        return None
    # no other access of the iteration touches the element, but for reads by the
    # statement that first sets the scalar, once per iteration (``s = C[i][j];``: it
    # reads the element before anything changed it, as the source does)
    in_tail = {stmt.name for stmt in tail}
    first = min(touching, key=order)
    init = first if len(first.iterators) == depth + 1 and first.name not in in_tail and \
        any(a.array == scalar and a.kind == "write" for a in first.accesses) and \
        not any(a.array == scalar and a.kind != "write" for a in first.accesses) else None
    others = isl.UnionMap.empty(scop.context.get_space())
    tail_writes = isl.UnionMap.empty(scop.context.get_space())
    for stmt in statements:
        for a in stmt.accesses:
            if stmt.name in in_tail and a.kind == "write":
                tail_writes = tail_writes.union(isl.UnionMap.from_map(a.relation))
            elif a.array == destination.name and not (stmt is init and a.kind == "read"):
                others = others.union(isl.UnionMap.from_map(a.relation))
    same_element = others.apply_range(tail_writes.reverse())
    if not same_element.intersect(same_value(iteration)).is_empty():
        return None
    copies = [stmt.name for stmt in tail if _rhs(stmt) == scalar]
    if init is not None and init.body.partition("=")[0].strip() == scalar and _rhs(init) == text:
        copies.append(init.name)
    return tuple(copies), target, text


def _rhs(stmt: Statement) -> str:
    """The right-hand side of ``stmt``'s plain assignment, as written (``s`` of ``C[i][j] = s;``)."""
    return stmt.body.partition("=")[2].strip().rstrip(";").strip()


def _trip(statements: list[Statement], depth: int, context: isl.Set):
    """``(lower, extent, extent_text)`` of the loop at ``depth``: a lower bound, constant
    (an int) or an affine function of the parameters (its C text: ``for (i = lo; ...)``),
    and an affine trip count, else None."""
    values = None
    for stmt in statements:
        n = stmt.domain.dim(isl.dim_type.set)
        one = stmt.domain.project_out(isl.dim_type.set, depth + 1, n - depth - 1) \
            .project_out(isl.dim_type.set, 0, depth).reset_tuple_id()
        values = one if values is None else values.union(one)
    values = values.coalesce().intersect_params(context)
    if values.is_empty():
        return None
    low = values.dim_min(0).gist_params(context)
    lower = constant_value(low)
    if lower is None:
        lower = affine_text(low, context)
        if lower is None:
            return None
        extent = values.dim_max(0).sub(low).gist_params(context).add_constant_val(isl.Val.one(context.get_ctx()))
    else:
        extent = values.dim_max(0).gist_params(context).add_constant_val(isl.Val.int_from_si(
            context.get_ctx(), 1 - lower))
    text = affine_text(extent, context)
    return None if text is None else (lower, extent, text)


def _with_elements(scop: Scop, plan: list[Expansion]) -> list[Expansion]:
    """``plan``, as long as its arrays can have an element for the known parameter
    values (``-D``/``#define`` defaults) and for some values of the context."""
    kept: list[Expansion] = []
    for expansion in plan:
        if expansion.in_place or _expanded_context(scop, [e for e in kept if not e.in_place] + [expansion]) is not None:
            kept.append(expansion)
    return kept


def positive_extents(context: isl.Set, extents: list[isl.PwAff]) -> isl.Set:
    """``context`` where every one of ``extents`` (functions of the parameters) is at
    least 1."""
    for extent in extents:
        context = context.intersect(extent.ge_set(isl.PwAff.zero_on_domain(
            isl.LocalSpace.from_space(extent.get_domain_space())).add_constant_val(isl.Val.one(context.get_ctx()))))
    return context


def _expanded_context(scop: Scop, plan: list[Expansion]) -> isl.Set | None:
    """The context of ``scop`` where the arrays of ``plan`` have at least one element
    (their size in bytes is checked by the region, which allocates them: a product of
    extents is not affine); None when that excludes the known parameter values."""
    if not plan:
        return scop.context
    context = scop.context
    for expansion in plan:
        context = positive_extents(context, [o[2] for o in expansion.outer] + [expansion.extent])
    context = context.coalesce()
    if context.is_empty():
        return None
    if fix_parameters(context, scop.parameter_values).is_empty():
        return None
    return context


def expand(scop: Scop, plan: list[Expansion]) -> Scop:
    """``scop`` with each `Expansion` of ``plan`` applied: the scalar's accesses in its
    statements become accesses of the new array (or of its destination, whose copy
    statement is removed), their C text names the element, the region declares the new
    arrays, and the context keeps their extents positive (see `_expanded_context`)."""
    if not plan:
        return scop
    starts = line_starts(scop.source)
    arrays = dict(scop.arrays)
    for expansion in plan:
        if not expansion.in_place:
            arrays[expansion.array] = Array(expansion.array, expansion.element_type,
                                            [o[3] for o in expansion.outer] + [expansion.extent_text],
                                            origin="expanded")
    dropped = {name for e in plan for name in e.dropped}
    statements = []
    for stmt in scop.statements:
        if stmt.name in dropped:
            continue
        mine = [e for e in plan if stmt.name in e.statements]
        statements.append(_expanded_statement(scop, stmt, mine, starts) if mine else stmt)
    expanded = replace(scop, statements=statements, arrays=arrays,
                       context=_expanded_context(scop, [e for e in plan if not e.in_place]),
                       identifiers=scop.identifiers | {e.array for e in plan},
                       removed=scop.removed + tuple(s for s in scop.statements if s.name in dropped))
    # (a removed copy statement leaves the schedule)
    return replace(expanded, schedule=scop.schedule.intersect_domain(expanded.domain)) if dropped else expanded


def _expanded_statement(scop: Scop, stmt: Statement, plan: list[Expansion], starts) -> Statement:
    """``stmt`` with its scalars of ``plan`` replaced by their elements."""
    spans: dict[int, tuple[int, str]] = {}
    accesses = list(stmt.accesses)
    n = len(stmt.iterators)
    ctx = scop.context.get_ctx()
    for expansion in plan:
        for offset in scalar_tokens(stmt, scop, expansion.scalar, starts):
            spans[offset] = (len(expansion.scalar), expansion.text)
        # { S[i0..in] -> [i0..i_depth] } then the target: { S[i] -> X[f] }
        prefix = isl.Map(f"{{ {stmt.name}[{', '.join(f'i{k}' for k in range(n))}] -> "
                         f"[{', '.join(f'i{k}' for k in range(expansion.depth + 1))}] }}", context=ctx)
        relation = prefix.align_params(stmt.domain.get_space()).apply_range(
            expansion.target.align_params(stmt.domain.get_space())).intersect_domain(stmt.domain)
        accesses = [replace(a, array=expansion.array, relation=relation) if a.array == expansion.scalar else a
                    for a in accesses]
    body = stmt.body
    for offset in sorted(spans, reverse=True):      # right to left: offsets stay valid
        length, text = spans[offset]
        body = body[:offset] + text + body[offset + length:]
    return replace(stmt, accesses=accesses, body=body)


__all__ = ["Expansion", "expand", "expansion_plan", "HEAP_BYTES"]
