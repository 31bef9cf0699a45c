"""A ``Tensorize`` mark becomes a call of the intrinsic's C function.

Below the mark (see polysched/tensorize/apply.py) isl prints the point loops of one
full block, in the intrinsic's loop order, around one statement instance (gemm, k in
blocks of 256)::

    for (int c4 = 256 * c1; c4 <= polysched_min(NK - 1, 256 * c1 + 255); c4 += 1)
      for (int c5 = 4 * c3; c5 <= 4 * c3 + 3; c5 += 1)
        for (int c6 = 8 * c2; c6 <= 8 * c2 + 7; c6 += 1)
          S1(c5, c4, c6);

which becomes, with the iterators at the block's origin::

    {
      int c4 = 256 * c1;
      int c5 = 4 * c3;
      int c6 = 8 * c2;
      if (c4 <= polysched_min(NK - 1, 256 * c1 + 255) && c5 <= 4 * c3 + 3 && c6 <= 8 * c2 + 7) {
        /* polysched: tensorize dgemm_4x8_scaled */
        polysched_dgemm_4x8_scaled(((polysched_min(NK - 1, 256 * c1 + 255)) - (256 * c1) + 1),
            alpha, &A[c5][c4], (long)(NK), 1, &B[c4][c6], (long)(NJ), &C[c5][c6], (long)(NJ));
      }
    }

(the guard is what the loops would test first: isl may leave a block's loops empty
rather than guard them, when an outer loop is shared with the remainder tiles)

The call template's ``base(X)`` is the address of operand X's element at the origin,
``rs(X)``/``cs(X)`` the strides (in elements, from the array's declared sizes, or
the row sizes of the reference's view: ``Ref.extents``) of the
program dimensions that X's dimensions 0/1 map to, ``st(X, l)`` the stride of X's
address along the program loop intrinsic loop ``l`` maps to, a free loop's parameter the loop's
trip count, a scalar operand its reference. When the AST is not this shape (isl
dropped a loop), None: the caller prints the loops (correct, just not a call).
"""
from __future__ import annotations

import re

import islpy as isl

from polysched.islutil import val
from polysched.marks import Tensorize, try_parse_mark
from polysched.textio import PASTED_END, PASTED_START

from .body import substitute
from .versioning import written_arrays

_node = isl.ast_node_type


def _strip_blocks(node):
    while node.get_type() == _node.block:
        children = node.block_get_children()
        if children.n_ast_node() != 1:
            return node
        node = children.get_at(0)
    return node


def can_call(mark: Tensorize, statements) -> bool:
    """Does ``mark`` name a known intrinsic and a statement (as Program.tensorize
    writes it)? Other tensorize marks are requests emit_c cannot honour."""
    from polysched.tensorize.intrinsic import IntrinsicError, lookup

    params = dict(mark.params)
    if str(params.get("stmt")) not in statements:
        return False
    try:
        intrinsic = lookup(mark.name)
    except IntrinsicError:
        return False
    if intrinsic.init is not None and (str(params.get("init")) not in statements or not all(
            f"il_{loop}" in params for loop in intrinsic.init.loops)):
        return False
    return all(f"l_{loop}" in params for loop in intrinsic.loops) and all(
        f"a_{o}" in params for o in intrinsic.operands + intrinsic.init_operands)


def tensorize_mark_problem(scop, tree: isl.Schedule) -> str | None:
    """Why a tensorize mark of ``tree`` cannot be printed as calls, or None: it does
    not name a statement, its loops and operands (`can_call`: a mark written by hand,
    ``tensorize(dgemm_4x8)``), or its block is not one call (`block_mismatch`: the
    shape, the computation and the operand types). Checked before any printing
    (helper-61: hand-made marks over partial 8 x 4 blocks, or naming a double kernel
    on ``long`` data, were printed as calls that computed something else)."""
    statements = [s.name for s in scop.statements]

    def marks(node: isl.ScheduleNode):
        if node.get_type() == isl.schedule_node_type.mark:
            yield node
        for k in range(node.n_children()):
            yield from marks(node.child(k))

    for node in marks(tree.get_root()):
        name = node.mark_get_id().get_name()
        mark = try_parse_mark(name)
        if not isinstance(mark, Tensorize):
            continue
        if not can_call(mark, statements):
            return f"the tensorize mark '{name}' does not map a statement, its loops and operands"
        mismatch = block_mismatch(scop, node, mark)
        if mismatch is not None:
            return f"the tensorize mark of {mark.name}: {mismatch}"
    return None


def block_mismatch(scop, node: isl.ScheduleNode, mark: Tensorize) -> str | None:
    """Why the block of statement instances under the tensorize mark ``node`` is not
    one call of its intrinsic, or None. Per value of the loops above the mark, each
    program loop the mark maps to an intrinsic loop of fixed extent E must run E
    values (remainders run as loops, outside the mark) and every other
    loop of the statement one value: a hand-edited mark naming another intrinsic
    (``dgemm_4x8`` over a 64 x 64 block) would otherwise call it on part of the block.

    ``node``: a mark node; the instances ``{ S[i] }`` under it and its prefix schedule
    ``{ S[i] -> [p] }`` give ``{ [p] -> S[i] }``, whose per-``p`` range is checked."""
    from polysched.tensorize.intrinsic import lookup
    from polysched.tensorize.match import structural_matches
    from polysched.tensorize.problem import make_problem

    params = dict(mark.params)
    stmt = scop.statement(str(params.get("stmt")))
    intrinsic = lookup(mark.name)
    # the mapping must be one the matcher finds: same computation, operand types included
    # (structurally: the schedule's legality is checked as a whole, by the caller)
    mapping = ({loop: str(params[f"l_{loop}"]) for loop in intrinsic.loops},
               {o: str(params[f"a_{o}"]) for o in intrinsic.operands})
    found = structural_matches(make_problem(scop, stmt, intrinsic))
    if not any((dict(loops), dict(arrays)) == mapping for (loops, arrays), _ in found):
        return f"{stmt.name} does not compute what {mark.name} does with this loop and operand mapping"
    under = node.get_domain().intersect(isl.UnionSet.from_set(stmt.domain))
    if under.is_empty():
        return None
    blocks = isl.Map.from_union_map(node.get_prefix_schedule_union_map().intersect_domain(under).reverse())
    fixed = {str(params[f"l_{loop}"]): extent
             for loop, extent in zip(intrinsic.loops, intrinsic.extents) if extent is not None}
    mapped = {str(params[f"l_{loop}"]) for loop in intrinsic.loops}
    n = blocks.dim(isl.dim_type.out)
    for d, iterator in enumerate(stmt.iterators):
        values = blocks.project_out(isl.dim_type.out, d + 1, n - d - 1).project_out(isl.dim_type.out, 0, d)
        width = values.lexmax_pw_multi_aff().get_pw_aff(0).sub(values.lexmin_pw_multi_aff().get_pw_aff(0))
        if iterator in fixed:
            extent = fixed[iterator]
            if not width.ne_set(isl.PwAff.val_on_domain(width.domain(), val(extent - 1))).is_empty():
                return f"loop {iterator} of {stmt.name} does not run {extent} values per call of {mark.name}"
        elif iterator not in mapped and not width.ne_set(
                isl.PwAff.val_on_domain(width.domain(), isl.Val(0))).is_empty():
            return f"loop {iterator} of {stmt.name}, which {mark.name} does not map, runs inside its calls"
    return None


def _main_part(node, stmt: str, init: str):
    """A block inside a band match's loops (``{ S0(c4, c5); for (c6 ...) S1(...); }``):
    its part running the main statement, when every other part runs only ``init``
    (None otherwise)."""
    parts = [node.block_get_children().get_at(k) for k in range(node.block_get_children().n_ast_node())]
    mains = [part for part in parts if stmt in _called(part)]
    if len(mains) != 1 or any(_called(part) - {init} for part in parts if part is not mains[0]):
        return None
    return mains[0]


def _called(node) -> set[str]:
    """The statements called in an AST subtree."""
    found: set[str] = set()

    def visit(n):
        kind = n.get_type()
        if kind == _node.user:
            found.add(n.user_get_expr().get_op_arg(0).get_id().get_name())
        elif kind == _node.block:
            children = n.block_get_children()
            for k in range(children.n_ast_node()):
                visit(children.get_at(k))
        elif kind == _node.for_:
            visit(n.for_get_body())
        elif kind == _node.if_:
            visit(n.if_get_then_node())
            if n.if_has_else_node():
                visit(n.if_get_else_node())
        elif kind == _node.mark:
            visit(n.mark_get_node())
        else:
            found.add("?")
    visit(node)
    return found


def call_lines(printer, mark: Tensorize, child: isl.AstNode, pad: str, indent: str) -> list[str] | None:
    """The C lines replacing the marked subtree, or None (see the module doc)."""
    from polysched.tensorize.intrinsic import lookup

    params = dict(mark.params)
    intrinsic = lookup(mark.name)
    stmt = printer.statements.get(str(params.get("stmt")))
    if stmt is None:
        return None
    init_name = str(params.get("init"))
    # a band match's call runs both statements: below the mark there must be both (isl
    # prints a mark once per component of its subtree; a part with one of them is
    # printed as loops, and so is the other part then, as its call would need both)
    if intrinsic.init is not None and _called(child) != {stmt.name, init_name}:
        return None
    loops = []
    node = _strip_blocks(child)
    while node.get_type() == _node.for_ or (intrinsic.init is not None and node.get_type() == _node.block):
        if node.get_type() == _node.block:      # the init next to the main statement's loops
            node = _main_part(node, stmt.name, init_name)
            if node is None:
                return None
        else:
            loops.append(node)
            node = node.for_get_body()
        node = _strip_blocks(node)
    if node.get_type() != _node.user or not 0 < len(loops) <= len(intrinsic.loops):
        return None
    call = node.user_get_expr()
    if call.get_op_arg(0).get_id().get_name() != stmt.name:
        return None
    # (the arguments and the loop conditions below compute with the loops' counters)
    with printer.ranges.inside(loops):
        return _call_of(printer, stmt, init_name, intrinsic, params, loops, call, pad, indent)


def _call_of(printer, stmt, init_name: str, intrinsic, params: dict, loops: list, call: isl.AstExpr,
             pad: str, indent: str) -> list[str] | None:
    """`call_lines` once the loops under the mark and the statement call are found."""
    from polysched.tensorize.apply import alignment
    from polysched.tensorize.problem import make_problem

    args = [printer.expr(call.get_op_arg(k)) for k in range(1, call.get_op_n_arg())]
    if printer.lifted:     # S(i..., b...): the original iterators come first (see lift.py)
        args = args[:len(stmt.iterators)]
    if len(args) != len(stmt.iterators):
        return None
    values = dict(zip(stmt.iterators, args))

    problem = make_problem(printer.scop, stmt, intrinsic)
    prog_loops = problem.pattern.loops
    loop_map = [(l, prog_loops.index(str(params[f"l_{name}"]))) for l, name in enumerate(intrinsic.loops)]
    arrays = {o: str(params[f"a_{o}"]) for o in intrinsic.operands}
    aligned = alignment(problem, loop_map, arrays)
    scalars_of_init = {}
    if intrinsic.init is not None:
        # the init statement's own operands are scalars (see intrinsic._init_pattern)
        init = printer.scop.statement(str(params["init"]))
        part = make_problem(printer.scop, init, intrinsic.init_part())
        init_map = [(l, part.pattern.loops.index(str(params[f"il_{name}"])))
                    for l, name in enumerate(intrinsic.init.loops)]
        init_arrays = {o: str(params[f"a_{o}"]) for o in part.intrinsic.operands}
        for o, (index, _dims) in alignment(part, init_map, init_arrays).items():
            if o in intrinsic.init_operands:
                scalars_of_init[o] = part.pattern.refs[index].text

    # the loops isl printed, in the intrinsic's order; a point loop that runs once for
    # every outer iteration (extent 1) is not printed: its statement argument is then
    # not one of these iterators, and its trip count is 1
    names = [loop.for_get_iterator().get_id().get_name() for loop in loops]
    which = []
    for l, name in enumerate(intrinsic.loops):
        arg = values[str(params[f"l_{name}"])].strip()
        while arg.startswith("(") and arg.endswith(")"):
            arg = arg[1:-1].strip()
        which.append(arg in names)
    if sum(which) != len(loops):
        return None
    printed = [l for l, present in enumerate(which) if present]
    if [names.index(values[str(params[f"l_{intrinsic.loops[l]}"])].strip("() ")) for l in printed] \
            != list(range(len(loops))):
        return None
    decls, trip, guards = [], {name: "1" for l, name in enumerate(intrinsic.loops) if not which[l]}, []
    for l, loop in zip(printed, loops):
        iterator = loop.for_get_iterator().get_id().get_name()
        init = printer.expr(loop.for_get_init())
        decls.append(f"{printer.version.counter_type} {iterator} = {init};")
        if loop.for_is_degenerate():
            trip[intrinsic.loops[l]] = "1"
            continue
        cond = loop.for_get_cond()
        if cond.get_type() != isl.ast_expr_type.op or cond.get_op_type() not in (
                isl.ast_expr_op_type.le, isl.ast_expr_op_type.lt):
            return None
        # isl may run a block's loop over an empty range instead of guarding it (the
        # outer loop shared with the remainder tiles): call only when each loop runs
        guards.append(printer.expr(cond))
        bound = printer.expr(cond.get_op_arg(1))
        extra = " + 1" if cond.get_op_type() == isl.ast_expr_op_type.le else ""
        # the trip count is computed too (in the counter type): its range is checked
        printer.ranges.record(cond.get_op_arg(1).sub(loop.for_get_init()).add(
            isl.AstExpr.from_val(isl.Val(1 if extra else 0))))
        trip[intrinsic.loops[l]] = f"({bound}) - ({init}){extra}"

    def ref_text(operand):
        if operand in scalars_of_init:
            return scalars_of_init[operand]
        index, _dims = aligned[operand]
        return substitute(problem.pattern.refs[index].text, values)

    def later_extents(ref, d: int) -> list[str]:
        """The product of the extents after dimension ``d`` of ``ref``'s array, as C
        factors. Of a declared array whose extents are not constants, C's own row size
        (``sizeof``): a VLA type keeps the size its declaration saw (``double (*A)[m]``,
        then ``m = 40``), which the region's ``m`` need not be."""
        array = printer.scop.arrays[ref.array]
        extents = ref.extents(array)
        later = extents[d + 1:]
        constant = all(name in printer.scop.parameter_values for size in later
                       for name in re.findall(r"\b[A-Za-z_]\w*", size))
        if later and not constant and ref.sizes is None and not array.linearized and not array.member \
                and all(later):
            base = array.c_text
            return [f"(long)(sizeof({base}{'[0]' * (d + 1)}) / sizeof({base}{'[0]' * len(extents)}))"]
        return [f"(long)({size})" for size in later]

    def stride(operand, which):
        index, dims = aligned[operand]
        if which >= len(dims):
            return "0"
        return " * ".join(later_extents(problem.pattern.refs[index], dims[which])) or "1"

    def loop_stride(operand, loop):
        """The stride of the operand's address along intrinsic loop ``loop``: the
        program loop's coefficient in the row-major linearised subscript."""
        index, _dims = aligned[operand]
        ref = problem.pattern.refs[index]
        p = prog_loops.index(str(params[f"l_{loop}"]))
        terms = []
        for d, row in enumerate(ref.rows):
            if row[p]:
                terms.append(" * ".join([f"{row[p]}L", *later_extents(ref, d)]))
        return f"({' + '.join(terms)})" if terms else "0"

    def epoch(operand):
        """The region run's epoch when the region writes nothing of the operand's array
        (the run-time check keeps every written array apart from it), else 0: its
        content is then the same in every call of the run."""
        index, _dims = aligned[operand]
        array = problem.pattern.refs[index].array
        return "0UL" if array in written_arrays(printer.scop) else printer.region_epoch()

    scalars = {o for o in intrinsic.operands + intrinsic.init_operands if not intrinsic.pattern.ranks.get(o)}
    by_param = {param: loop for loop, param in intrinsic.extent_params.items()}

    def word(m):
        name = m.group(0)
        if name in by_param:
            return f"({trip[by_param[name]]})"
        if name in scalars:
            return ref_text(name)
        return name
    # the template's own words first, so that inserted program text is never rewritten
    text = re.sub(r"(?<!base\()(?<!rs\()(?<!cs\()\b[A-Za-z_]\w*\b(?!\s*\()", word,
                  intrinsic.call)
    # an element type from a header's #if may differ under another -D: the call is then
    # not run (versioning.type_checks), but it must still compile, and GCC 14 refuses
    # a float * for a double * parameter; void * converts to either without a word
    address = "(void *)&" if printer.scop.types_from_headers else "&"
    text = re.sub(r"\bbase\(\s*(\w+)\s*\)", lambda m: address + ref_text(m.group(1)), text)
    text = re.sub(r"\brs\(\s*(\w+)\s*\)", lambda m: stride(m.group(1), 0), text)
    text = re.sub(r"\bcs\(\s*(\w+)\s*\)", lambda m: stride(m.group(1), 1), text)
    text = re.sub(r"\bst\(\s*(\w+)\s*,\s*(\w+)\s*\)", lambda m: loop_stride(m.group(1), m.group(2)), text)
    text = re.sub(r"\bepoch\(\s*(\w+)\s*\)", lambda m: epoch(m.group(1)), text)
    inner = pad + indent
    call = [inner + f"/* polysched: tensorize {intrinsic.name} */", inner + text.rstrip(";") + ";"]
    if guards:
        call = ([inner + f"if ({' && '.join(guards)}) {{"] + [indent + line for line in call]
                + [inner + "}"])
    return [pad + "{"] + [inner + d for d in decls] + call + [pad + "}"]


# what the region calls once where it starts, when a call takes epoch(X)
EPOCH_FUNCTION = "polysched_pk_next_epoch()"
_CALL_NOTE = re.compile(r"/\* polysched: tensorize (\w+) \*/")


def intrinsic_includes(texts: list[str]) -> str:
    """What the intrinsic calls in the generated region ``texts`` need at the top of the
    file: the text of each header polysched ships (``polysched_intrinsics.h``, pasted
    in so that the output compiles as it is, without ``-I``), an ``#include`` line for a
    header of the user's own (``header:`` of a description in ``--intrinsics DIR``).
    A library the calls use and polysched found (``library: cblas``) is named above
    them as the program's default."""
    from polysched.tensorize.intrinsic import INCLUDE_DIR, lookup
    from polysched.tensorize.library import library_defines

    headers, libraries = [], []
    for text in texts:
        for name in _CALL_NOTE.findall(text):
            intrinsic = lookup(name)
            if intrinsic.header and intrinsic.header not in headers:
                headers.append(intrinsic.header)
            if intrinsic.library and intrinsic.library not in libraries:
                libraries.append(intrinsic.library)
        if EPOCH_FUNCTION in text and "polysched_intrinsics.h" not in headers:
            headers.append("polysched_intrinsics.h")      # a user's intrinsic that takes epoch(X)
    included = "".join(f"{PASTED_START.format(h)}\n{(INCLUDE_DIR / h).read_text()}{PASTED_END.format(h)}\n"
                       if (INCLUDE_DIR / h).is_file() else f'#include "{h}"\n' for h in headers)
    return "".join(library_defines(kind) for kind in libraries) + included


