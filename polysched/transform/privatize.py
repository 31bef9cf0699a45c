"""Array privatization: a temporary array that every iteration of a loop fills before
it reads it gets a copy per iteration, so that the loop becomes parallel.

doitgen keeps each row's product in ``sum``, which every ``(r, q)`` iteration reuses::

    for (r) for (q) {                      { S0[r, q, p] -> sum[p] }
      for (p) { sum[p] = 0; for (s) sum[p] += A[r][q][s] * C4[s][p]; }
      for (p) A[r][q][p] = sum[p];
    }

The reuse orders every iteration of ``r`` after the one before (memory dependences on
``sum[p]``), though no value flows between them: each iteration writes the elements
it reads. The scheduler then finds only the inner ``p`` parallel, and the region forks
a team for every ``(r, q)``. With a copy per iteration of ``r``::

    { S0[r, q, p] -> sum[p] }   becomes   { S0[r, q, p] -> sum_x[r, p] }

``r`` carries nothing and runs in parallel, once per region. The last iteration's
copy is copied back after the region (``sum[p] = sum_x[NR - 1][p]``, a statement
scheduled last), so the array ends with the values the original leaves; the order of
every operation on each element is unchanged (outputs are bit-identical).

    plan = privatization_plan(scop)        # [Privatization(...)], possibly empty
    scop2 = privatize(scop, plan)

An array is privatized at the outermost loop (of the original schedule) around all its
references where:
- it is a C array with declared rows (not a scalar, not linearised, not a member, not
  declared in the region), of a plain element type, each reference spelled
  ``name[e0]...[e{n-1}]`` in the statement's text;
- it is private to the loop (`polysched.dependence.scalars.private_reason`: every
  value read in an iteration was written in that iteration; no may-write);
- the loop's iterations write other arrays at elements it selects (not a loop that
  repeats one computation, ``for (t) { B[i][j] = ...; ... B[i][j] ... }``);
- the loop carries no dependence but through this array, and does carry one through
  it (else nothing is gained);
- every element's last write is in one iteration, whose value is an affine function of
  the parameters (the copy-out reads that iteration's copy);
- the loop starts at a constant and its trip count is affine; the touched elements
  start at constants and their counts are affine; the copy fits in ``HEAP_BYTES``.

The copy lives on the heap (`polysched.emit_c.body.heap_arrays`: allocated by the
region once its run-time check holds, else the original code runs).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polysched.dependence.loops import is_parallel, rows, same_value
from polysched.dependence.scalars import ScopAccesses, private_reason, restrict_to_array
from polysched.emit_c.names import NameAllocator
from polysched.emit_c.scalar_replace import plain_element_type
from polysched.islutil import maps_of
from polysched.scop.model import Access, Array, Scop, Statement, fix_parameters, statements_domain
from polysched.scop.source import line_starts

from .expand import (_fits_heap, _trip, affine_text, constant_value, involved_dims, loop_groups, loop_rows,
                     offset_text, only_dimension, positive_extents)
from .layout import _alone, _shifted, fresh_statement_name, references, touched_bounds


@dataclass
class Privatization:
    """``array`` (``{ [e] }``, its touched elements starting at ``lows``) becomes
    ``copy[i - lower][e - lows]`` in the statements of the loop of iterator ``loop`` (at
    ``depth``; ``extent`` iterations, C text ``extent_text``); ``extents``/``texts``: the
    counts of touched elements per subscript; ``last``: C text of the loop's value in
    the iteration that writes every element last."""

    array: str
    copy: str
    element_type: str
    loop: str
    depth: int
    lower: int
    extent: isl.PwAff
    extent_text: str
    lows: tuple[int, ...]
    extents: tuple[isl.PwAff, ...]
    texts: tuple[str, ...]
    last: str
    statements: tuple[str, ...]

    def describe(self) -> str:
        dims = "".join(f"[{t}]" for t in (self.extent_text,) + self.texts)
        return (f"privatized array {self.array} into {self.copy}{dims} on the heap (each iteration of loop "
                f"{self.loop} writes the elements it reads, and the loop is parallel but for it; the last "
                f"iteration's copy is copied back after the region)")


def _iterator_rows(statements: list[Statement], depth: int, ctx: isl.Context) -> isl.UnionMap:
    """``{ S[i0, ..., in] -> [i_depth] }`` for each of ``statements``."""
    result = None
    for stmt in statements:
        names = ", ".join(f"i{k}" for k in range(len(stmt.iterators)))
        one = isl.UnionMap(isl.Map(f"{{ {stmt.name}[{names}] -> [i{depth}] }}", context=ctx))
        result = one if result is None else result.union(one)
    return result


def _last_iteration(scop: Scop, accesses: ScopAccesses, name: str, statements: list[Statement],
                    depth: int) -> isl.PwAff | None:
    """The value of the loop's iterator (at ``depth``) in the iteration that writes,
    in the original order, every written element of ``name`` last: a function of the
    parameters, None when the elements' last writes are in different iterations."""
    writes = restrict_to_array(accesses.writes, name)
    times = scop.schedule_map.intersect_domain(writes.domain())
    last = writes.reverse().apply_range(times).lexmax().apply_range(times.reverse())
    iterations = last.apply_range(_iterator_rows(statements, depth, scop.context.get_ctx()))
    values = iterations.range().intersect_params(scop.context).coalesce()
    if values.is_empty() or values.n_set() != 1:
        return None
    value = isl.Set.from_union_set(values)
    top, bottom = value.dim_max(0), value.dim_min(0)
    if constant_value(top.sub(bottom).gist_params(scop.context)) != 0:
        return None
    return top.gist_params(scop.context)


def _writes_apart(statements: list[Statement], name: str, depth: int) -> bool:
    """Does some statement write another array than ``name`` at elements that the
    loop's iterator (at ``depth``) selects (doitgen's ``A[r][q][p]``)? Else the
    iterations redo one computation (a repetition loop ``t`` around a kernel), which a
    copy per iteration would only run in parallel, redundantly."""
    for stmt in statements:
        for access in stmt.accesses:
            if access.array != name and access.kind != "read":
                subscripts = involved_dims(access.relation)
                if subscripts is not None and any(depth in s for s in subscripts):
                    return True
    return False


def privatization_plan(scop: Scop) -> list[Privatization]:
    """The arrays worth privatizing (see the module doc); an empty list when none is."""
    candidates = [a for a in scop.arrays.values()
                  if a.dims and not a.is_scalar and not a.linearized and not a.text and not a.member
                  and not a.declared_as
                  and a.origin not in ("region", "expanded") and plain_element_type(a.element_type)]
    users = {a.name: [s for s in scop.statements if any(x.array == a.name for x in s.accesses)]
             for a in candidates}
    may_written = {m.get_tuple_name(isl.dim_type.out) for m in maps_of(scop.may_writes)}
    candidates = [a for a in candidates if users[a.name] and a.name not in may_written
                  and any(x.kind == "read" and x.array == a.name for s in users[a.name] for x in s.accesses)]
    if not candidates:
        return []
    groups = sorted(loop_groups(scop).items(), key=lambda item: item[1][0][1])    # the outermost loop first
    accesses = ScopAccesses(scop)
    starts = line_starts(scop.source)
    names = NameAllocator(set(scop.identifiers) | set(scop.arrays))
    everything = accesses.all_memory()
    plan = []
    for array in candidates:
        touching = users[array.name]
        dims = len(array.dims)
        if any(references(s, scop, array.name, starts, dims) is None for s in touching):
            continue
        element = plain_element_type(array.element_type)
        others_all = accesses.memory_except({array.name})
        for (path, member), members in groups:
            depth = members[0][1]
            statements = [s for s, _ in members]
            if any(d != depth for _, d in members) or not {s.name for s in touching} <= {s.name for s in statements}:
                continue
            domain = statements_domain(statements, scop.context.get_space())
            outer, row = loop_rows(scop, path, member, domain)
            iteration = rows(outer, row)
            if not all(only_dimension(s, iteration, depth) for s in statements):
                continue
            iterator = statements[0].iterators[depth]
            if any(s.iterators[depth] != iterator or iterator in s.iterators[depth + 1:] for s in touching):
                continue        # (an inner loop's iterator shadows the loop's name)
            if not _writes_apart(statements, array.name, depth):
                continue        # (the iterations would all compute the same elements)
            mine = everything.intersect_domain(domain).intersect_range(domain)
            if is_parallel(mine, outer, row):
                continue        # nothing to gain here
            others = others_all.intersect_domain(domain).intersect_range(domain)
            if not is_parallel(others, outer, row):
                continue
            if private_reason(scop, accesses, array.name, domain, same_value(iteration), live_after=True):
                continue
            trip = _trip(statements, depth, scop.context)
            bounds = touched_bounds(scop, array.name, dims)
            if trip is None or bounds is None or not isinstance(trip[0], int):
                break
            lower, extent, extent_text = trip
            lows, extents, texts = bounds
            if not _fits_heap(scop, element, [extent, *extents]):
                continue        # an inner loop needs a smaller copy
            last = _last_iteration(scop, accesses, array.name, touching, depth)
            last_text = None if last is None else affine_text(last, scop.context)
            if last_text is None:
                break
            context = positive_extents(scop.context, [extent, *extents])
            if fix_parameters(context, scop.parameter_values).is_empty():
                break
            plan.append(Privatization(array.name, names.fresh(f"{array.name}_x"), element, iterator, depth, lower,
                                      extent, extent_text, lows, extents, texts, last_text,
                                      tuple(s.name for s in touching)))
            break
    return plan


def privatize(scop: Scop, plan: list[Privatization]) -> Scop:
    """``scop`` with each `Privatization` of ``plan`` applied: the references name the
    copy's element of their iteration, a copy-out statement runs last (see the module
    doc), the region declares the copies, and the context keeps their counts positive."""
    if not plan:
        return scop
    starts = line_starts(scop.source)
    ctx = scop.context.get_ctx()
    arrays = dict(scop.arrays)
    statements = list(scop.statements)
    names = NameAllocator(set(scop.identifiers) | set(scop.arrays) | {p.copy for p in plan})
    taken = {s.name for s in statements}
    after = []
    context = scop.context
    for p in plan:
        arrays[p.copy] = Array(p.copy, p.element_type, [p.extent_text, *p.texts], origin="expanded")
        subscripts = [f"e{k}" for k in range(len(p.lows))]
        shifted = ", ".join(f"{e} - ({low})" for e, low in zip(subscripts, p.lows))
        written = None
        for k, stmt in enumerate(statements):
            if stmt.name in p.statements:
                for a in stmt.accesses:
                    if a.array == p.array and a.kind != "read":
                        written = a.relation.range() if written is None else written.union(a.relation.range())
                statements[k] = _rewritten(scop, stmt, p, starts, subscripts, shifted)
        name = fresh_statement_name(taken, len(statements) + len(after))
        iterators = [names.fresh(f"polysched_{e}") for e in subscripts]
        domain = written.coalesce().set_tuple_name(name)
        for d, it in enumerate(iterators):
            domain = domain.set_dim_name(isl.dim_type.set, d, it)
        plain = isl.Map.identity(domain.get_space().map_from_set()).intersect_domain(domain) \
            .set_tuple_name(isl.dim_type.out, p.array)
        copy_of = isl.Map(f"[{', '.join(scop.parameters)}] -> {{ {p.array}[{', '.join(subscripts)}] -> "
                          f"{p.copy}[({p.last}) - ({p.lower}), {shifted}] }}", context=ctx) \
            .align_params(domain.get_space())
        element = p.copy + f"[{_shifted(p.last, p.lower)}]" + \
            "".join(f"[{offset_text(it, low)}]" for it, low in zip(iterators, p.lows))
        source = p.array + "".join(f"[{it}]" for it in iterators)
        accesses = [Access(p.copy, "read", plain.apply_range(copy_of)), Access(p.array, "write", plain)]
        after.append(Statement(name, iterators, domain, accesses, f"{source} = {element};"))
        context = positive_extents(context, [p.extent, *p.extents])
    schedule = scop.schedule
    for stmt in after:
        schedule = schedule.sequence(_alone(stmt))
    return replace(scop, statements=statements + after, arrays=arrays, schedule=schedule,
                   context=context.coalesce(), identifiers=scop.identifiers | {p.copy for p in plan})


def _rewritten(scop: Scop, stmt: Statement, p: Privatization, starts, subscripts: list[str],
               shifted: str) -> Statement:
    """``stmt`` with its references to ``p.array`` naming the copy of their iteration."""
    body = stmt.body
    for start, end, found in reversed(references(stmt, scop, p.array, starts, len(p.lows))):
        text = p.copy + f"[{offset_text(p.loop, p.lower)}]" + \
            "".join(f"[{_shifted(e, low)}]" for e, low in zip(found, p.lows))
        body = body[:start] + text + body[end:]
    n = len(stmt.iterators)
    own = ", ".join(f"i{k}" for k in range(n))
    ctx = scop.context.get_ctx()
    # { S[i] -> [i_depth] } x { A[e] -> [e - lows] }, named as the copy
    prefix = isl.Map(f"{{ {stmt.name}[{own}] -> [i{p.depth} - ({p.lower})] }}", context=ctx)
    shift = isl.Map(f"{{ {p.array}[{', '.join(subscripts)}] -> [{shifted}] }}", context=ctx)

    def moved(relation: isl.Map) -> isl.Map:
        space = relation.get_space()
        return prefix.align_params(space).intersect_domain(relation.domain()).flat_range_product(
            relation.apply_range(shift.align_params(space))).set_tuple_name(isl.dim_type.out, p.copy)
    accesses = [replace(a, array=p.copy, relation=moved(a.relation)) if a.array == p.array else a
                for a in stmt.accesses]
    return replace(stmt, body=body, accesses=accesses)


__all__ = ["Privatization", "privatization_plan", "privatize"]
