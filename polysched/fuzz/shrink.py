"""Reduce a failing program to a minimal one that still fails the same way.

Delta debugging over the generator's structure rather than over text: every
candidate is a :class:`~polysched.fuzz.generator.Program` one edit smaller than the
current one (a region, statement, loop or guard removed; a loop unwrapped into its
body with the iterator replaced by its first value; a min/max bound replaced by one
of its parts; a parameter inlined as its value; a downward or strided loop made
upward and unit-stride; a read, subscript term or aliased pointer removed; a
loop's literal extent reduced; types made plain ``int``; a C term of an expression (a
cast, an unsigned subtraction, a shift, ``sizeof``) dropped or replaced by the affine
expression inside it; a ``!=`` test or a loop offset near ``INT_MAX`` removed; an array
declared in the region (generator v7) with a shorter initialiser or none, sized, not
``const``, of ``double`` elements ...).
Candidates are re-rendered by
:func:`~polysched.fuzz.generator.render`, which re-lays-out the arrays, so every
candidate is again a program without undefined behaviour (or is skipped). The
first candidate that still fails is taken and the search restarts from it (greedy,
largest edits first) until no edit keeps the failure or the budget is spent.
"""
from __future__ import annotations

import copy
import time
from typing import Callable, Iterator

from .generator import (Aff, Bound, Guard, InvalidProgram, Local, Loop, Program, Ref, Stmt, X, all_nodes,
                        map_affs, render, statements, walk)

Path_ = tuple[int, ...]


# --------------------------------------------------------------------------- addressing

def _paths(nodes: list, prefix: Path_) -> Iterator[Path_]:
    for k, node in enumerate(nodes):
        path = prefix + (k,)
        yield path
        if isinstance(node, (Loop, Guard)):
            yield from _paths(node.body, path)


def node_paths(program: Program) -> list[Path_]:
    """Every node as ``(region, child, child, ...)``, outermost first."""
    out: list[Path_] = []
    for r, region in enumerate(program.regions):
        out.extend(_paths(region, (r,)))
    return out


def _container(program: Program, path: Path_) -> tuple[list, int]:
    nodes = program.regions[path[0]]
    for k in path[1:-1]:
        nodes = nodes[k].body
    return nodes, path[-1]


def _node(program: Program, path: Path_):
    nodes, k = _container(program, path)
    return nodes[k]


def _edit(program: Program, fn) -> Program | None:
    clone = copy.deepcopy(program)
    try:
        if fn(clone) is False:
            return None
    except (IndexError, KeyError, ValueError, AttributeError, TypeError):
        return None
    return clone


# --------------------------------------------------------------------------- rewriting

def _ext_affs(program: Program) -> list[Aff]:
    """The expressions with C terms, in the order :func:`_map_nth_ext_aff` numbers them."""
    found: list[Aff] = []

    def note(a: Aff) -> Aff:
        if a.ext:
            found.append(a)
        return a
    for region in program.regions:
        map_affs(region, note)
    return found


def _map_nth_ext_aff(program: Program, n: int, fn: Callable[[Aff], Aff]) -> bool:
    seen = [0]

    def apply(a: Aff) -> Aff:
        if not a.ext:
            return a
        k = seen[0]
        seen[0] += 1
        return fn(a) if k == n else a
    for region in program.regions:
        map_affs(region, apply)
    return seen[0] > n


def _first_aff(x: X) -> Aff | None:
    if x.op == "aff":
        return x.args[0]
    for a in x.args:
        if isinstance(a, X):
            found = _first_aff(a)
            if found is not None:
                return found
    return None


def _drop_ext(a: Aff, j: int) -> Aff:
    return Aff(a.terms, a.const, a.ext[:j] + a.ext[j + 1:])


def _flatten_ext(a: Aff, j: int) -> Aff:
    """C term ``j`` replaced by the affine expression inside it (``(unsigned
    char)(i + 250)`` -> ``i + 250``)."""
    c, x = a.ext[j]
    inner = _first_aff(x)
    if inner is None:
        raise ValueError("no affine expression inside")
    merged: dict[str, int] = {}
    for n, k in a.terms + tuple((n, c * k) for n, k in inner.terms):
        merged[n] = merged.get(n, 0) + k
    ext = a.ext[:j] + a.ext[j + 1:] + tuple((c * k, e) for k, e in inner.ext)
    return Aff(Aff.of(merged).terms, a.const + c * inner.const, ext)


def _unwrap_loop(program: Program, path: Path_) -> bool:
    nodes, k = _container(program, path)
    loop = nodes[k]
    if not isinstance(loop, Loop):
        return False
    first = (loop.upper if loop.down else loop.lower).parts[0]
    body = loop.body
    map_affs(body, lambda a: a.substitute(loop.var, first))
    for node, _ in walk(body):
        if isinstance(node, Stmt) and node.iter_var == loop.var:
            node.iter_var = None
    nodes[k:k + 1] = body
    return True


def _unwrap_guard(program: Program, path: Path_) -> bool:
    nodes, k = _container(program, path)
    guard = nodes[k]
    if not isinstance(guard, Guard):
        return False
    nodes[k:k + 1] = guard.body
    return True


def _delete(program: Program, path: Path_) -> bool:
    nodes, k = _container(program, path)
    del nodes[k]
    return True


def _inline_param(program: Program, name: str) -> bool:
    param = program.param(name)
    if param is None or abs(param.value) > 2 ** 20:
        return False
    for region in program.regions:
        map_affs(region, lambda a: a.substitute(name, Aff.of({}, param.value)))
    program.params = [p for p in program.params if p.name != name]
    return True


def _drop_shifts(program: Program) -> bool:
    changed = False
    for node, _ in all_nodes(program):
        if isinstance(node, Loop) and node.shift:
            node.shift = None
            changed = True
    return changed


def _merge_view(program: Program, view_name: str) -> bool:
    """Accesses through the pointer parameter become accesses to the global array."""
    view = program.view(view_name)
    if view is None:
        return False
    for stmt in statements(program):
        for ref in (stmt.target, *stmt.reads):
            if ref.name == view_name:
                ref.name = view.storage
                if ref.subs and view.delta:
                    ref.subs[0] = ref.subs[0].plus(view.delta)
    program.views = [v for v in program.views if v.name != view_name]
    return True


# --------------------------------------------------------------------------- candidates

def candidates(program: Program) -> Iterator[Program]:
    """Programs one edit smaller than ``program``, biggest edits first."""
    def edit(fn):
        return _edit(program, fn)

    for r in range(len(program.regions)):
        if len(program.regions) > 1:
            yield edit(lambda p, r=r: p.regions.pop(r) and True)
    paths = node_paths(program)
    for path in paths:
        yield edit(lambda p, path=path: _delete(p, path))
    for path in paths:
        node = _node(program, path)
        if isinstance(node, Loop):
            yield edit(lambda p, path=path: _unwrap_loop(p, path))
        elif isinstance(node, Guard):
            yield edit(lambda p, path=path: _unwrap_guard(p, path))
    if program.print_iters:
        yield edit(lambda p: setattr(p, "print_iters", False))
    if program.glue:
        yield edit(lambda p: setattr(p, "glue", False))
    yield edit(_drop_shifts)
    for param in list(program.params):
        yield edit(lambda p, n=param.name: _inline_param(p, n))
    for view in list(program.views):
        yield edit(lambda p, n=view.name: _merge_view(p, n))
    for n, aff in enumerate(_ext_affs(program)):
        for j in range(len(aff.ext)):
            yield edit(lambda p, n=n, j=j: _map_nth_ext_aff(p, n, lambda a: _flatten_ext(a, j)))
            yield edit(lambda p, n=n, j=j: _map_nth_ext_aff(p, n, lambda a: _drop_ext(a, j)))
    if program.param_type != "int" or program.iter_type != "int":
        yield edit(lambda p: (setattr(p, "param_type", "int"), setattr(p, "iter_type", "int")))
    for path in paths:
        node = _node(program, path)
        if isinstance(node, Loop):
            yield from _loop_candidates(program, path, node)
        elif isinstance(node, Guard):
            for c in range(len(node.conds)):
                if len(node.conds) > 1:
                    yield edit(lambda p, path=path, c=c: _node(p, path).conds.pop(c) and True)
        elif isinstance(node, Stmt):
            yield from _stmt_candidates(program, path, node)
        elif isinstance(node, Local):
            yield from _local_candidates(program, path, node)
    for scalar in program.scalars:
        if scalar.dtype == "int":
            yield edit(lambda p, n=scalar.name: setattr(p.scalar(n), "dtype", "double"))
    for array in program.arrays:
        if array.dtype == "int" or (array.region and array.dtype == "float"):
            yield edit(lambda p, n=array.name: setattr(p.array(n), "dtype", "double"))


def _local_candidates(program: Program, path: Path_, local: Local) -> Iterator[Program]:
    """v7: the declaration of an array of the region with a shorter initialiser (or
    none), sized (``w[3]`` for ``w[]``), not ``const``."""
    def edit(fn):
        return _edit(program, lambda p: fn(_node(p, path)))

    if local.init is not None and not local.unsized:
        yield edit(lambda n: setattr(n, "init", None))
    if local.init is not None and len(local.init) > 1:
        if local.unsized:
            yield edit(lambda n: (setattr(n, "unsized", False), setattr(n, "dims", [Aff.of({}, len(n.init))]),
                                  setattr(n, "init", n.init[:-1])))
        else:
            yield edit(lambda n: setattr(n, "init", n.init[:-1]))
    if local.unsized:
        yield edit(lambda n: (setattr(n, "unsized", False), setattr(n, "dims", [Aff.of({}, len(n.init))])))
    if local.const:
        yield edit(lambda n: setattr(n, "const", False))


def _loop_candidates(program: Program, path: Path_, loop: Loop) -> Iterator[Program]:
    def edit(fn):
        return _edit(program, lambda p: fn(_node(p, path)))

    if loop.ne:
        yield edit(lambda n: setattr(n, "ne", False))
    if loop.offset:
        yield edit(lambda n: setattr(n, "offset", 0))
    if loop.down:
        yield edit(lambda n: setattr(n, "down", False))
    if loop.step != 1:
        yield edit(lambda n: setattr(n, "step", 1))
    if loop.strict:
        yield edit(lambda n: setattr(n, "strict", False))
    for attr in ("lower", "upper"):
        bound: Bound = getattr(loop, attr)
        if bound.div > 1:
            yield edit(lambda n, attr=attr: setattr(getattr(n, attr), "div", 1))
        if len(bound.parts) > 1:
            for k in range(len(bound.parts)):
                yield edit(lambda n, attr=attr, k=k: setattr(n, attr, Bound([getattr(n, attr).parts[k]],
                                                                            div=getattr(n, attr).div)))
        for k, part in enumerate(bound.parts):
            for name in sorted(part.names()):
                yield edit(lambda n, attr=attr, k=k, name=name:
                           _set_part(getattr(n, attr), k, getattr(n, attr).parts[k].without(name)))
    # smaller literal extents
    lower, upper = loop.lower.parts, loop.upper.parts
    if len(lower) == 1 and len(upper) == 1 and not lower[0].names() and not upper[0].names():
        lo, hi = lower[0].const, upper[0].const
        if hi > lo:
            yield edit(lambda n: _set_part(n.upper, 0, Aff.of({}, n.lower.parts[0].const)))
            if hi - lo > 1:
                yield edit(lambda n: _set_part(n.upper, 0, n.upper.parts[0].plus(-1)))
        if lo != 0:
            yield edit(lambda n: (_set_part(n.lower, 0, Aff.of({}, 0)),
                                  _set_part(n.upper, 0, n.upper.parts[0].plus(-lo))))


def _set_part(bound: Bound, k: int, aff: Aff) -> None:
    bound.parts[k] = aff


def _stmt_candidates(program: Program, path: Path_, stmt: Stmt) -> Iterator[Program]:
    def edit(fn):
        return _edit(program, lambda p: fn(_node(p, path)))

    for k in range(len(stmt.reads)):
        yield edit(lambda n, k=k: (n.reads.pop(k), n.coeffs.pop(k)))
    if stmt.iter_var:
        yield edit(lambda n: setattr(n, "iter_var", None))
    if stmt.op != "=":
        yield edit(lambda n: setattr(n, "op", "="))
    if stmt.const:
        yield edit(lambda n: setattr(n, "const", 0))
    for r, ref in enumerate([stmt.target, *stmt.reads]):
        for d, sub in enumerate(ref.subs):
            for name in sorted(sub.names()):
                yield edit(lambda n, r=r, d=d, name=name: _set_sub(n, r, d, lambda a: a.without(name)))
            if sub.const:
                yield edit(lambda n, r=r, d=d: _set_sub(n, r, d, lambda a: Aff(a.terms, 0)))
    for k, c in enumerate(stmt.coeffs):
        if c:
            yield edit(lambda n, k=k: n.coeffs.__setitem__(k, 0))


def _set_sub(stmt: Stmt, r: int, d: int, fn: Callable[[Aff], Aff]) -> None:
    ref: Ref = stmt.target if r == 0 else stmt.reads[r - 1]
    ref.subs[d] = fn(ref.subs[d])


# --------------------------------------------------------------------------- the search

def size(program: Program) -> int:
    """A measure the shrinker decreases (nodes, reads, terms)."""
    total = 0
    for node, _ in all_nodes(program):
        total += 3
        if isinstance(node, Stmt):
            total += len(node.reads) + sum(len(a.terms) + len(a.ext) for r in (node.target, *node.reads)
                                           for a in r.subs)
        elif isinstance(node, Loop):
            total += node.ne + bool(node.offset) + sum(len(a.ext) for a in node.lower.parts + node.upper.parts)
        elif isinstance(node, Guard):
            total += sum(len(a.ext) for c in node.conds for a in (c.lhs, c.rhs))
        elif isinstance(node, Local):
            total += len(node.init or ()) + node.const + node.unsized
    return total


def shrink(program: Program, still_fails: Callable[[str], bool], *, max_evaluations: int = 250,
           max_seconds: float = 300.0) -> tuple[Program, int]:
    """The smallest program reachable from ``program`` by single edits for which
    ``still_fails(rendered C text)`` holds (``program`` itself is assumed to fail).
    Returns it and the number of ``still_fails`` calls."""
    deadline = time.monotonic() + max_seconds
    best = program
    seen = {render(program)}
    evaluations = 0
    progress = True
    while progress:
        progress = False
        for candidate in candidates(best):
            if candidate is None:
                continue
            try:
                text = render(candidate)
            except InvalidProgram:
                continue
            if text in seen:
                continue
            seen.add(text)
            if evaluations >= max_evaluations or time.monotonic() > deadline:
                return best, evaluations
            evaluations += 1
            if still_fails(text):
                best = candidate
                progress = True
                break
    return best, evaluations
