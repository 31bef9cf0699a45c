"""Scalar replacement in innermost loops.

An innermost loop that reuses one array element in every iteration (the jammed copies
below a ``Jam`` mark written by ``unroll_and_jam``, or a plain loop's accumulator) gets
that element in a local scalar: loaded once before the loop, stored once after it,
so the C compiler keeps it in a register (gemm with ``i`` jammed by 2 and ``k`` innermost):

    {
      double C_r0 = C[2 * c0][c1];
      double C_r1;
      if (NI >= 2 * c0 + 2)
        C_r1 = C[2 * c0 + 1][c1];
      for (int c2 = 0; c2 < NK; c2 += 1) {
        C_r0 += alpha * A[2 * c0][c2] * B[c2][c1];
        if (NI >= 2 * c0 + 2) {
          C_r1 += alpha * A[2 * c0 + 1][c2] * B[c2][c1];
        }
      }
      C[2 * c0][c1] = C_r0;
      if (NI >= 2 * c0 + 2)
        C[2 * c0 + 1][c1] = C_r1;
    }

Only loads and stores move (same operations in the same order: bit-identical
results). Everything is decided with isl on the AST being printed, never on text:
each statement call of the loop comes with its schedule (``at_each_domain``: which
instances it runs at which loop values), composed with the statement's access
relations that gives, per reference R, ``{ [c0, ..., cd] -> A[e] }`` over the loop's
iterator ``cd`` and the outer ones ``o = (c0, ..., c(d-1))``. Elements of array ``A``
go into a scalar when

  (a) the reference touches one element per outer iteration, ``o -> A[e]`` single
      valued (invariant in ``cd``); references that touch the same element for some
      ``o`` share the scalar, and together must still be single valued;
  (b) no other reference to ``A`` in the loop (any statement, any copy, any
      iteration) touches that element for the same ``o``;
  (c) ``A`` cannot overlap the other arrays the loop touches: distinct objects,
      ``restrict``, or a pair the run-time check of versioning.py tests (a pointer to
      pointers, whose rows may overlap each other, never qualifies); no ``volatile``;
  (d) every reference to ``A`` in the statements' text is one of the modelled
      references and a plain ``A[..]..[..]`` (no ``&A[..]``, no ``A`` passed whole).

The load runs only when some iteration of the loop touches the element (the exact
set of outer iterations, simplified under the conditions of the enclosing loops and
``if``s, which hold whenever the loop is reached): an element the original never
touches is never read, also when the loop runs zero times. The store runs when some
iteration writes it. The load is left out for an element only written, by a
definite write in every outer iteration that touches it, and for one that a definite
write reaches before each of its reads (`_written_first`). Written elements stay in
memory in a loop that carries a ``parallel``/``simd``/``ivdep`` pragma.

The same questions, with the loop's own counter among the outer ones, find the
elements that several calls of one iteration write (jammed copies updating one
``R[c0][c4]``): their scalar is loaded at the start of the body and stored at its end
(`plan`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import islpy as isl

from polysched.islutil import isl_operation_cap, maps_of
from polysched.scop.declarations import is_arithmetic_type
from polysched.scop.source import line_starts, offset_of

from .names import tokenize
from .versioning import kept_apart

_node = isl.ast_node_type
_op = isl.ast_expr_op_type
_in, _out, _param = isl.dim_type.in_, isl.dim_type.out, isl.dim_type.param

# isl operations one loop's plan may take: the guards of a jammed fdtd-2d tile took
# minutes in isl's gist (a tuning candidate); past the cap nothing is replaced, which is
# always right
PLAN_OPERATIONS = 2_000_000
KNOWN_PIECES = 8        # `reached` leaves out a fact that splits its set into more pieces
# A load or store guard of more pieces is not worth its text (helper-30's 1-d stencil with
# a parametric start: 6 pieces, 1,100 characters, 2 s in isl's AST builder): the element
# is not replaced
GUARD_PIECES = 2
_QUALIFIERS = {"const", "static", "register", "auto", "extern", "inline", "restrict", "__restrict",
               "__restrict__"}
_LOOP_CLAIMS = ("omp_parallel", "omp_simd", "gcc_ivdep")


# -- what the AST generator tells about each statement call ------------------------------

def annotate(build: isl.AstBuild, table: dict, iterators: list[str]) -> tuple[isl.AstBuild, object]:
    """Make ``build`` annotate every statement call with an id whose entry in ``table``
    is the flattened schedule map of the instances that call runs
    (``{ S[i, ...] -> [c0, ..., cm] }``, output dimension k the loop of iterator
    ``iterators[k]``; None if isl's answer had an unexpected form). Returns the build
    and the callback handle (keep it alive while generating)."""

    def at_each_domain(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        key = f"polysched_call_{len(table)}"
        try:
            found = maps_of(build.get_schedule())
            sched = found[0] if len(found) == 1 else None
            while sched is not None and sched.range_is_wrapping():
                sched = sched.flatten_range()
            table[key] = _by_iterator(sched, build.get_schedule_space(), iterators)
        except isl.Error:
            table[key] = None
        return node.set_annotation(isl.Id(key, context=node.get_ctx()))

    return build.set_at_each_domain(at_each_domain)


def _by_iterator(sched: isl.Map | None, space: isl.Space, iterators: list[str]) -> isl.Map | None:
    """``sched`` with output dimension k the value of ``iterators[k]``. isl leaves out of
    a call's schedule space the dimensions it fixed when it generated an isolated band's
    other part (``[c1, c2]`` under a strip ``c0`` of one value): a free dimension is put
    back in its place, so positions always mean the same loops. None when the names
    are not the iterators in order."""
    if sched is None:
        return None
    names = [space.get_dim_name(isl.dim_type.set, k) for k in range(space.dim(isl.dim_type.set))]
    if len(names) != sched.dim(_out) or any(name not in iterators for name in names):
        return None
    positions = [iterators.index(name) for name in names]
    if positions != sorted(positions):
        return None
    for k in range(positions[-1] + 1 if positions else 0):
        if k >= len(positions) or positions[k] != k:
            sched = sched.insert_dims(_out, k, 1)
            positions.insert(k, k)
    return sched


# -- the conditions under which a loop is reached -----------------------------------------

class _Affine:
    """isl values of AST expressions over parameters named like the C identifiers."""

    def __init__(self, ctx: isl.Context, names: list[str]):
        space = isl.Space.set_alloc(ctx, len(names), 0)
        for k, name in enumerate(names):
            space = space.set_dim_name(_param, k, name)
        self.space = space
        self.local = isl.LocalSpace.from_space(space)
        self.position = {name: k for k, name in enumerate(names)}

    def universe(self) -> isl.Set:
        return isl.Set.universe(self.space).params()

    def value(self, expr: isl.AstExpr) -> isl.PwAff:
        """A ``PwAff``; ``ValueError`` for what is not affine or unknown."""
        kind = expr.get_type()
        if kind == isl.ast_expr_type.id:
            name = expr.get_id().get_name()
            if name not in self.position:
                raise ValueError(name)
            return isl.PwAff.from_aff(isl.Aff.var_on_domain(self.local, _param, self.position[name]))
        if kind == isl.ast_expr_type.int:
            return isl.PwAff.from_aff(isl.Aff.val_on_domain(self.local, expr.get_val()))
        if kind != isl.ast_expr_type.op:
            raise ValueError("expression")
        op = expr.get_op_type()
        args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
        if op == _op.minus:
            return self.value(args[0]).neg()
        if op in (_op.min, _op.max):
            values = [self.value(a) for a in args]
            result = values[0]
            for v in values[1:]:
                result = result.min(v) if op == _op.min else result.max(v)
            return result
        if op not in (_op.add, _op.sub, _op.mul, _op.div, _op.fdiv_q, _op.pdiv_q, _op.pdiv_r):
            raise ValueError(str(op))
        a, b = self.value(args[0]), self.value(args[1])
        if op == _op.add:
            return a.add(b)
        if op == _op.sub:
            return a.sub(b)
        if op == _op.mul:
            if not (a.is_cst() or b.is_cst()):
                raise ValueError("product")
            return a.mul(b)
        if not b.is_cst():
            raise ValueError("division")
        if op == _op.pdiv_r:        # dividend known non-negative: C's % is mod
            return a.mod_val(_constant(b))
        return a.div(b).floor()     # exact, or rounded down (pdiv_q: non-negative dividend)

    def condition(self, expr: isl.AstExpr) -> isl.Set:
        """A set containing every point where ``expr`` is true (a superset when a
        conjunct cannot be converted; ``ValueError`` when nothing sound is left)."""
        op = expr.get_op_type() if expr.get_type() == isl.ast_expr_type.op else None
        args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())] if op is not None else []
        if op in (_op.and_, _op.and_then):
            result = self.universe()
            for arg in args:
                try:
                    result = result.intersect(self.condition(arg))
                except (ValueError, isl.Error):
                    pass                              # dropped: a superset stays sound
            return result
        if op in (_op.or_, _op.or_else):
            return self.condition(args[0]).union(self.condition(args[1]))
        compare = {_op.eq: "eq_set", _op.le: "le_set", _op.lt: "lt_set", _op.ge: "ge_set",
                   _op.gt: "gt_set"}
        if op in compare:
            if op == _op.eq and args[0].get_type() == isl.ast_expr_type.op and \
                    args[0].get_op_type() == _op.zdiv_r and _is_zero(args[1]):
                # "x % k == 0" (isl's zdiv_r is only compared with zero)
                inner = [args[0].get_op_arg(k) for k in range(2)]
                divisor = self.value(inner[1])
                if not divisor.is_cst():
                    raise ValueError("modulo")
                return self.value(inner[0]).mod_val(_constant(divisor)).zero_set().params()
            return getattr(self.value(args[0]), compare[op])(self.value(args[1])).params()
        raise ValueError(str(op))


def _constant(pa: isl.PwAff) -> isl.Val:
    pieces = []
    pa.foreach_piece(lambda _s, aff: pieces.append(aff.get_constant_val()))
    if len(pieces) != 1:
        raise ValueError("constant")
    return pieces[0]


def _is_zero(expr: isl.AstExpr) -> bool:
    return expr.get_type() == isl.ast_expr_type.int and expr.get_val().is_zero()


def declared(printer, enclosing: list[tuple], depth: int) -> list[str]:
    """The outer iterators ``c0 .. c(depth-1)`` that the C code declares around the
    loop (isl prints no loop for a dimension with one value: that one is not)."""
    names = {item.for_get_iterator().get_id().get_name() for kind, item in enclosing if kind == "for"}
    return [name for name in printer.iterators[:depth] if name in names]


def reached(printer, enclosing: list[tuple], depth: int) -> isl.Set:
    """A set of values of ``params + declared iterators`` (all parameters) containing
    every point where the code below ``enclosing`` runs (``("for", node)`` and
    ``("if", condition)`` entries, outermost first) under the parameter context."""
    params = printer.scop.context.get_space()
    names = [params.get_dim_name(_param, k) for k in range(params.dim(_param))]
    names += declared(printer, enclosing, depth)
    affine = _Affine(printer.scop.context.get_ctx(), names)
    known = affine.universe()
    context = printer.scop.context
    if printer.options.versioning:
        context = context.intersect(printer.version.assumed)
    known = known.intersect(context.align_params(known.get_space()))

    def knowing(fact: isl.Set) -> isl.Set:
        # A fact that splits the set into more than KNOWN_PIECES pieces (C's truncating
        # division in tile bounds splits on each operand's sign) is left out: less known
        # is still sound, and every later question on a set of 30 pieces took seconds
        # (helper-30's 1-d stencil with a parametric start: 18 s per innermost loop)
        joined = known.intersect(fact)
        # not coalesced unless it has many pieces: isl's coalescing of one set (read from
        # one text) gave one of two equal forms from one call to the next ((N) mod 6 = 5 or
        # (-5 + N) mod 6 = 0), and the guards simplified against it with them (helper-19:
        # one primitive sequence, two texts; a replay differed from its recording). With
        # many pieces, simplifying against it uncoalesced costs too much (fdtd-2d's code
        # generation took 2.7 s instead of 1.4 s)
        if joined.n_basic_set() > KNOWN_PIECES:
            joined = joined.coalesce()
        return joined if joined.n_basic_set() <= KNOWN_PIECES else known

    for kind, item in enclosing:
        try:
            if kind == "if":
                known = knowing(affine.condition(item))
                continue
            iterator = affine.value(item.for_get_iterator())
            init = affine.value(item.for_get_init())
            if item.for_is_degenerate():
                known = knowing(iterator.eq_set(init).params())
            else:
                known = knowing(iterator.ge_set(init).params())
                known = knowing(affine.condition(item.for_get_cond()))
        except (ValueError, isl.Error):
            continue                                  # less known: still sound
    return known


# -- the references of one loop ------------------------------------------------------------

@dataclass
class _Ref:
    call: str                         # annotation of the statement call
    array: str
    kinds: set[str]
    span: tuple[int, int] | None      # in the statement's body text
    access: isl.Map                   # { [c0, ..., cd] -> A[e] }
    outer: isl.Map | None = None      # { [c0, ..., c(d-1)] -> A[e] } when single valued
    sure: bool = True                 # the program surely touches it (no conditional access)


@dataclass
class Group:
    """One local scalar: the array element it holds and the C around the loop."""

    array: str
    name: str
    c_type: str
    element: str                      # "C[2 * c0][c1]"
    load: bool
    load_guard: str                   # "" when the load always runs
    store: bool
    store_guard: str


@dataclass
class Replacement:
    groups: list[Group]
    spans: dict[str, dict[tuple[int, int], str]] = field(default_factory=dict)

    def before(self, pad: str, indent: str) -> list[str]:
        """Declarations (with the loads that always run), then the guarded loads."""
        lines, guarded = [], []
        for g in self.groups:
            if g.load and not g.load_guard:
                lines.append(pad + f"{g.c_type} {g.name} = {g.element};")
                continue
            # initialised, though every use follows its guarded load: gcc cannot see that
            # the guards agree and would warn (-Wmaybe-uninitialized) under -Wall
            # ({0} initialises any object type: a struct element's copy, `struct pt P_r0 = 0`,
            # did not compile)
            zero = "0" if is_arithmetic_type(g.c_type) else "{0}"
            lines.append(pad + f"{g.c_type} {g.name} = {zero};")
            if g.load:
                guarded += _guarded(f"{g.name} = {g.element};", g.load_guard, pad, indent)
        return lines + guarded

    def after(self, pad: str, indent: str) -> list[str]:
        lines = []
        for g in self.groups:
            if g.store:
                lines += _guarded(f"{g.element} = {g.name};", g.store_guard, pad, indent)
        return lines


def _guarded(statement: str, guard: str, pad: str, indent: str) -> list[str]:
    if not guard:
        return [pad + statement]
    return [pad + f"if ({guard})", pad + indent + statement]


def rewrite(body: str, spans: dict[tuple[int, int], str]) -> str:
    """``body`` with each ``(start, end)`` span replaced by its scalar's name."""
    for (start, end), name in sorted(spans.items(), reverse=True):
        body = body[:start] + name + body[end:]
    return body


def _written_first(group: list[_Ref], depth: int, order: dict[str, int], within: bool = False) -> bool:
    """Does a definite write of the group's element come before each of its reads in
    the loop at ``depth``, in every iteration of the loops around it: an earlier
    iteration's (not when the scalar lives ``within`` one iteration), or one of an
    earlier statement call (``order``: the calls' places in the body) of the same
    iteration? A call's own write comes after its reads
    (``r += x``). Then the value before the loop is never read, and not loaded (a
    write-first element of an uninitialised local array: gcc -Wall warned
    -Wuninitialized at ``r_r0 = r[0]``)."""
    writes = [(order.get(r.call), r.access) for r in group if "write" in r.kinds]
    reads = [(order.get(r.call), r.access) for r in group if "read" in r.kinds]
    if not writes or any(k is None for k, _ in writes + reads):
        return False
    pairs = isl.Map.universe(writes[0][1].get_space().domain().map_from_set())
    for j in range(depth):
        pairs = pairs.equate(_in, j, _out, j)
    earlier = pairs.order_gt(_in, depth, _out, depth)     # { [o, t] -> [o, t'] : t' < t }
    for k, read in reads:
        covered = None
        for w, write in writes:
            part = isl.Map.empty(write.get_space()) if within else earlier.apply_range(write)
            if w < k:
                part = part.union(write)
            covered = part if covered is None else covered.union(part)
        if not read.is_subset(covered):
            return False
    return True


def _calls(node: isl.AstNode, out: list[isl.AstNode]) -> bool:
    """The statement calls below ``node``; False when there is a loop (not innermost)
    or a node kind this pass does not know."""
    kind = node.get_type()
    if kind == _node.user:
        out.append(node)
        return True
    if kind == _node.block:
        children = node.block_get_children()
        return all(_calls(children.get_at(k), out) for k in range(children.n_ast_node()))
    if kind == _node.if_:
        if not _calls(node.if_get_then_node(), out):
            return False
        return _calls(node.if_get_else_node(), out) if node.if_has_else_node() else True
    return False                 # a loop, or a mark (e.g. an intrinsic call): left alone


@lru_cache(maxsize=64)
def _token_offsets(body: str) -> tuple[tuple, tuple[int, ...], tuple[int, ...]]:
    """``body``'s tokens, the offset of each, and the positions of those that are
    neither space nor comment. Cached: every reference of a statement is looked for
    in its body, in each innermost loop that runs it (a 20-stencil chain: 1,200
    look-ups of 49 loops, a third of its scalar-replacement plans' time)."""
    tokens = tuple(tokenize(body))
    offsets, pos = [], 0
    for tok in tokens:
        offsets.append(pos)
        pos += len(tok.text)
    significant = tuple(k for k, tok in enumerate(tokens) if tok.kind not in ("space", "comment"))
    return tokens, tuple(offsets), significant


def _reference_span(body: str, start: int, name: str, rank: int) -> tuple[int, int] | None:
    """``(start, end)`` of the plain reference ``name[..]...[..]`` (``rank`` subscripts)
    that begins at ``start`` in ``body``, or None."""
    tokens, offsets, significant = _token_offsets(body)
    at = [k for k in significant if offsets[k] == start]
    if not at or tokens[at[0]].kind != "ident" or tokens[at[0]].text != name:
        return None
    index = significant.index(at[0])
    if index > 0 and tokens[significant[index - 1]].text in ("&", ".") or \
            index > 0 and tokens[significant[index - 1]].kind == "arrow":
        return None
    k, groups, end = index + 1, 0, None
    while k < len(significant) and tokens[significant[k]].text == "[":
        depth = 0
        while k < len(significant):
            text = tokens[significant[k]].text
            depth += text == "["
            depth -= text == "]"
            k += 1
            if depth == 0:
                break
        if depth:
            return None
        groups += 1
        end = offsets[significant[k - 1]] + 1
    if groups != rank or end is None:
        return None
    if k < len(significant) and (tokens[significant[k]].text in ("[", ".", "(")
                                 or tokens[significant[k]].kind == "arrow"):
        return None
    return start, end


def _only_reference_span(body: str, name: str, rank: int) -> tuple[int, int] | None:
    """The span of the plain reference ``name[..]...[..]`` in ``body``, which names
    ``name`` once (not as a member), or None."""
    tokens, offsets, significant = _token_offsets(body)
    for index, k in enumerate(significant):
        before = tokens[significant[index - 1]] if index else None
        if tokens[k].kind == "ident" and tokens[k].text == name and not (
                before is not None and (before.text == "." or before.kind == "arrow")):
            return _reference_span(body, offsets[k], name, rank)
    return None


def _mentions(body: str) -> dict[str, int]:
    """How many times ``body`` names each identifier (not as a member after ``.``/``->``)."""
    tokens = [t for t in tokenize(body) if t.kind not in ("space", "comment")]
    counts: dict[str, int] = {}
    for k, t in enumerate(tokens):
        if t.kind == "ident" and not (k > 0 and (tokens[k - 1].text == "." or tokens[k - 1].kind == "arrow")):
            counts[t.text] = counts.get(t.text, 0) + 1
    return counts


def plain_element_type(c_type: str) -> str | None:
    """``c_type`` without qualifiers, the type a local copy of an element is declared
    with; None for what such a copy cannot stand for (volatile, pointers, arrays)."""
    words = c_type.split()
    if not words or "volatile" in words or "*" in c_type or "[" in c_type:
        return None
    kept = [w for w in words if w not in _QUALIFIERS]
    return " ".join(kept) or None


def _never_overlap(printer, a, b, written: set[str]) -> bool:
    """Whether the emitted code may assume arrays ``a`` and ``b`` share no byte: the
    reasoning of versioning.py's plan, which checks at run time the pairs it cannot
    settle statically."""
    version = printer.version
    if printer.options.versioning and any({x.name, y.name} == {a.name, b.name}
                                          for x, y in version.alias_checks + version.row_pair_checks):
        return True

    if a.is_scalar and a.origin not in ("global", "") or b.is_scalar and b.origin not in ("global", ""):
        return True                    # a local or by-value scalar is an object of its own
    if {a.origin, b.origin} & {"region", "expanded"}:
        return True                    # and so is an array the region declares or allocates
    if kept_apart(a, b):
        return True
    return a.name not in written and b.name not in written


def _element_per_outer_iteration(access: isl.Map, depth: int) -> isl.Map | None:
    """``{ [c0..c(depth-1)] -> A[...] }``: the element ``access`` (``{ [c0..c(depth)] ->
    A[...] }``) touches in each iteration of the loops outside counter ``depth``, when
    that is one element; else None. First a quick no: at one sample point (parameters
    and outer counters fixed), the loop touching more than one element. Projecting the
    counter out of a tiled access is what costs (heat-3d's diamond tiles: 4 ms per
    reference, 0.29 s of its code generation), and innermost references that move
    with the loop are the usual case."""
    point = access.domain().sample_point()
    if point.is_void():
        return None
    one = access
    for k in range(access.dim(isl.dim_type.param)):
        one = one.fix_val(isl.dim_type.param, k, point.get_coordinate_val(isl.dim_type.param, k))
    for k in range(depth):
        one = one.fix_val(_in, k, point.get_coordinate_val(isl.dim_type.set, k))
    if not one.range().is_singleton():
        return None
    outer = access.project_out(_in, depth, 1)
    return outer if outer.is_single_valued() else None


def plan(printer, loop: isl.AstNode, depth: int, enclosing: list[tuple],
         loop_pragmas: set[str]) -> tuple[Replacement | None, Replacement | None]:
    """The scalar replacements of the innermost for loop ``loop`` (iterator at
    ``depth``; ``enclosing``: the ``("for", node)`` / ``("if", cond)`` entries around
    it): the one around the loop, and the one within each iteration. Either is None
    when it replaces nothing (also when isl fails on some question: replacing nothing
    is always right).

    Within one iteration: an element that moves with the loop but that several
    statement calls of its body write in the same iteration (the jammed copies
    ``R[c0][c4] += Q_r0 * A[4 * c3][c4]; R[c0][c4] += Q_r1 * A[4 * c3 + 1][c4]; ...`` of
    gramschmidt) is loaded into a scalar at the start of the body and stored at its
    end. gcc does that itself only when it knows the arrays apart, which it no longer
    does inside an outlined OpenMP region (the arrays become fields of a struct): each
    copy stored and reloaded the element. The conditions are those above with the
    loop's own counter among the outer ones (``{ [c0, ..., cd] -> A[e] }`` single
    valued), and the load and store need no guard; the scalar is local to the
    iteration, so a ``parallel``/``simd`` loop may hold written ones too. Arrays the
    replacement around the loop holds are left alone."""
    found = around = within = None
    try:
        with isl_operation_cap(loop.get_ctx(), PLAN_OPERATIONS):
            found = _references(printer, loop, depth)
            if found is not None:
                around = _choose(printer, loop, depth, enclosing, loop_pragmas, found)
    except (isl.Error, ValueError):
        pass
    if found is None:
        return None, None
    try:
        with isl_operation_cap(loop.get_ctx(), PLAN_OPERATIONS):
            within = _choose(printer, loop, depth, enclosing, loop_pragmas, found, within=True,
                             taken={g.array for g in around.groups} if around is not None else set())
    except (isl.Error, ValueError):
        pass
    return around, within


@dataclass
class _References:
    """The statement calls of an innermost loop's body and what they touch."""

    calls: list[isl.AstNode]
    refs: list[_Ref]
    mentioned: dict[str, set[str]]       # statement -> arrays whose text is not all modelled
    order: dict[str, int]                # call annotation -> its place in the body
    written_anywhere: set[str]           # arrays the region writes


def _references(printer, loop, depth) -> _References | None:
    calls: list[isl.AstNode] = []
    if not _calls(loop.for_get_body(), calls) or not calls:
        return None
    scop = printer.scop
    context = scop.context
    if printer.options.versioning:
        context = context.intersect(printer.version.assumed)
    starts = line_starts(scop.source)
    refs: list[_Ref] = []
    mentioned: dict[str, set[str]] = {}
    for call in calls:
        key = call.get_annotation()
        key = key.get_name() if key is not None else None
        sched = printer.call_schedules.get(key)
        if sched is None:
            return None
        name = call.user_get_expr().get_op_arg(0).get_id().get_name()
        stmt = printer.statements.get(name)
        if stmt is None:
            return None
        n_out, n_in, rank = sched.dim(_out), sched.dim(_in), len(stmt.iterators)
        if n_out <= depth or n_in < rank:
            return None
        sched = sched.project_out(_out, depth + 1, n_out - depth - 1)
        sched = sched.project_out(_in, rank, n_in - rank).set_tuple_name(_in, stmt.name)
        instances = sched.reverse().intersect_params(context)   # { [c0..cd] -> S[i] }
        body = stmt.body
        base = offset_of(starts, stmt.line, stmt.col) if stmt.line else None
        verbatim = base is not None and scop.source[base:base + len(body)] == body
        positions: dict[tuple, list] = {}
        for access in stmt.accesses:
            positions.setdefault((access.array, access.line, access.col), []).append(access)
        located: dict[str, int] = {}
        mentions = _mentions(body)
        for (array_name, line, col), accesses in positions.items():
            array = scop.arrays.get(array_name)
            span = None
            if array is not None:
                # a linearised array is one subscript in the text (``C[i * ldc + j]``)
                rank = 1 if array.linearized else len(array.dims)
                if verbatim and line:
                    span = _reference_span(body, offset_of(starts, line, col) - base, array_name, rank)
                elif not verbatim and mentions.get(array_name) == 1 and \
                        sum(1 for key in positions if key[0] == array_name) == 1:
                    # a body rewritten from the source (an expanded scalar's element,
                    # ``acc_x[j] += ...``): its one reference is the one the text names
                    span = _only_reference_span(body, array_name, rank)
            if span is not None:
                located[array_name] = located.get(array_name, 0) + 1
            relation = accesses[0].relation
            for other in accesses[1:]:
                relation = relation.union(other.relation)
            refs.append(_Ref(key, array_name, {a.kind for a in accesses}, span,
                             instances.apply_range(relation).coalesce(),
                             sure=any(a.kind == "write" or (a.kind == "read" and not a.conditional)
                                      for a in accesses)))
        for array_name, count in mentions.items():
            if array_name in scop.arrays and located.get(array_name, 0) != count:
                mentioned.setdefault(name, set()).add(array_name)
    order = {call.get_annotation().get_name(): k for k, call in enumerate(calls) if call.get_annotation()}
    written_anywhere = {m.get_tuple_name(_out) for m in maps_of(scop.writes.union(scop.may_writes))}
    return _References(calls, refs, mentioned, order, written_anywhere)


def _choose(printer, loop, depth, enclosing, loop_pragmas, found: _References, within: bool = False,
            taken: set[str] = frozenset()) -> Replacement | None:
    """The replacement around the loop, or ``within`` each iteration, of the
    references ``found``; arrays ``taken`` are left alone."""
    if within and len(found.calls) < 2:
        return None
    refs, mentioned, order, written_anywhere = found.refs, found.mentioned, found.order, found.written_anywhere
    scop = printer.scop
    arrays_here = {r.array for r in refs}
    # (a scalar within one iteration is the iteration's own, also in a parallel loop)
    claimed = not within and bool(loop_pragmas & set(_LOOP_CLAIMS))
    # the counters that fix the element a scalar holds: the loops outside this one, or
    # with its own counter too (one iteration)
    fixed = depth + 1 if within else depth

    candidates: list[list[_Ref]] = []
    for name in sorted(arrays_here - set(taken)):
        array = scop.arrays.get(name)
        mine = [replace(r) for r in refs if r.array == name]       # (each pass sets its own .outer)
        if array is None or array.is_scalar or "" in array.dims[1:]:     # rows may overlap
            continue
        if name in printer.reduced_cells:       # a parallel loop's copy holds it (codegen)
            continue
        if plain_element_type(array.element_type) is None:
            continue
        if any(r.span is None for r in mine) or any(name in arrays for arrays in mentioned.values()):
            continue
        others = [scop.arrays.get(o) for o in arrays_here if o != name]
        if any(o is None or not _never_overlap(printer, array, o, written_anywhere) for o in others):
            continue
        for r in mine:
            if within:
                r.outer = r.access if r.access.is_single_valued() else None
            else:
                r.outer = _element_per_outer_iteration(r.access, depth)
        # references that touch one element in some outer iteration share a scalar
        groups: list[list[_Ref]] = []
        for r in (r for r in mine if r.outer is not None):
            joined = [g for g in groups if any(not r.outer.intersect(s.outer).is_empty() for s in g)]
            merged = [r] + [s for g in joined for s in g]
            groups = [g for g in groups if g not in joined] + [merged]
        for group in groups:
            element = group[0].outer
            for r in group[1:]:
                element = element.union(r.outer)
            element = element.coalesce()
            if not element.is_single_valued():
                continue
            is_written = any(r.kinds & {"write", "may_write"} for r in group)
            if within and (len({r.call for r in group}) < 2 or not is_written):
                # one statement's element, or one only read (no store between the
                # reads forces a reload): the compiler's own business
                continue
            lifted = element if within else element.insert_dims(_in, depth, 1)
            if any(not r.access.intersect(lifted).is_empty() for r in mine if r not in group):
                continue
            if is_written and claimed:
                continue
            candidates.append(group)
    if not candidates:
        return None

    if within:
        enclosing = enclosing + [("for", loop)]
    known = reached(printer, enclosing, fixed)
    outer = (printer.iterators[:fixed], declared(printer, enclosing, fixed))
    build = isl.AstBuild.from_context(known)
    result = Replacement([])
    for group in candidates:
        name = group[0].array
        element = group[0].outer
        for r in group[1:]:
            element = element.union(r.outer)
        element = _to_params(element, *outer).coalesce()
        if not element.is_single_valued():      # the C variables do not determine it
            continue
        touched = _domain(group, outer, known)
        if touched.is_empty():
            continue
        writes = [r for r in group if r.kinds & {"write", "may_write"}]
        must = [r for r in group if "write" in r.kinds]
        reads = [r for r in group if "read" in r.kinds]
        stored = _domain(writes, outer, known)
        defined = _domain(must, outer, known)
        # no load or store of an element the program may not touch there (a read in a
        # ?: arm, a write under a data-dependent condition): memory it never reads may
        # be unmapped, memory it never writes read-only or another thread's
        surely = _domain([r for r in group if r.sure], outer, known)
        if surely is None or not touched.is_subset(surely) or \
                (stored is not None and (defined is None or not stored.is_subset(defined))):
            continue
        if within and not (known.is_subset(touched) and (stored is None or known.is_subset(stored))):
            # a guard inside a tile (deriche's: "128 * W + 127 * c2 >= 128 * c1 + 256")
            # is not worth its text, and its products pushed the counters to long long
            continue
        load = (bool(reads) and not _written_first(group, depth, order, within)) or stored is None or \
            defined is None or not touched.is_subset(defined)
        point = element.range().intersect_params(touched)
        try:
            subscripts = point.lexmin_pw_multi_aff()
            inner = isl.AstBuild.from_context(touched)
            # (a linearised array's element is one subscript: C[(a) * (ldc) + (b)])
            element_text = scop.arrays[name].element(
                [printer.expr(inner.expr_from_pw_aff(subscripts.get_pw_aff(j)))
                 for j in range(subscripts.dim(_out))])
            load_guard = _guard_text(printer, build, touched, known)
            store_guard = _guard_text(printer, build, stored, known) if stored is not None else ""
        except (isl.Error, ValueError):
            continue
        array = scop.arrays[name]
        scalar = printer.scalar_name(name, sum(g.array == name for g in result.groups))
        result.groups.append(Group(name, scalar, plain_element_type(array.element_type), element_text, load,
                                   load_guard, stored is not None, store_guard))
        for r in group:
            result.spans.setdefault(r.call, {})[r.span] = scalar
    return result if result.groups else None


def _to_params(umap: isl.Map, names: list[str], kept: list[str]) -> isl.Map:
    """``{ [c0, ..., c(d-1)] -> A[e] }`` as ``[.., c0, ..] -> { [] -> A[e] }`` over the
    iterators ``kept`` of ``names`` (the others, which have no C variable, projected out)."""
    for k in reversed(range(len(names))):
        if names[k] not in kept:
            umap = umap.project_out(_in, k, 1)
    for k, name in enumerate(kept):
        umap = umap.set_dim_name(_in, k, name)
    return umap.move_dims(_param, umap.dim(_param), _in, 0, len(kept))


def _domain(refs: list[_Ref], outer: tuple[list[str], list[str]], known: isl.Set) -> isl.Set | None:
    """The outer iterations (a parameter set) where some reference of ``refs`` runs."""
    if not refs:
        return None
    result = None
    for r in refs:
        piece = _to_params(r.outer, *outer).domain().params()
        result = piece if result is None else result.union(piece)
    return result.align_params(known.get_space()).intersect(known).coalesce()


def _guard_text(printer, build: isl.AstBuild, condition: isl.Set, known: isl.Set) -> str:
    """C text of ``condition`` where ``known`` holds; "" when it always holds there.
    ValueError when the guard has more than ``GUARD_PIECES`` pieces."""
    if known.is_subset(condition):
        return ""
    condition = condition.gist(known)
    if condition.n_basic_set() > GUARD_PIECES:
        raise ValueError("the guard has too many pieces")
    return printer.expr(build.expr_from_set(condition))
