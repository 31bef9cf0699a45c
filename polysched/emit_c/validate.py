"""Translation validation of isl's AST: the loops run every statement instance once,
in an order that respects the dependences.

isl's AST generator has bugs. Found by the fuzzer (seed 3, program 865): for

    domain { S[i, j, k] : 2 <= i <= 3 and 0 <= j <= 3 and 0 <= k <= 1 }
    band   [{ S[i, j, k] -> [(4i + j)] }, { S[i, j, k] -> [(i + 2k)] }]

islpy 2026.2.2 prints ``for (c0 = 8; c0 <= 15; c0++) S(c0 / 4, c0 % 4, 0);``: the
second member's loop is gone and the instances with k = 1 never run (its stride
detection with an offset floor(c0/4)). So the AST is read back as isl relations and
checked before any C is printed:

    dates  { S[i, j, k] -> [b0, c0, b1, c1, ...] }   (per user node of the AST)

where ``c_d`` are the loop counters around the call and ``b_d`` the position of the
call in each block (0 where there is none); ``if`` nodes add conditions only. The
AST is right iff ``dates`` is defined on exactly the iteration domain, single-valued
(no instance twice), and maps every validity dependence to a pair of dates in
lexicographic order.
"""
from __future__ import annotations

import islpy as isl

from polysched.errors import PolyschedError
from polysched.islutil import maps_of, sets_of, val

_op = isl.ast_expr_op_type
_expr = isl.ast_expr_type
_node = isl.ast_node_type


class CodegenError(PolyschedError, ValueError):
    """No correct code for a schedule: isl's AST for it is wrong (a missing, repeated or
    misordered instance), or isl's AST generator gave up on it."""


_COMPARE = (_op.eq, _op.le, _op.lt, _op.ge, _op.gt)
_FLIP = {_op.le: _op.ge, _op.lt: _op.gt, _op.ge: _op.le, _op.gt: _op.lt}    # a op b == b FLIP[op] a


class _Reader:
    """Reads isl AST expressions as ``isl.PwAff`` (integers) or ``isl.Set``
    (conditions) over ``space``: the set space of all loop counters, plus parameters."""

    def __init__(self, space: isl.Space):
        self.space = space
        self.local = isl.LocalSpace.from_space(space)
        self.positions = {space.get_dim_name(isl.dim_type.set, k): (isl.dim_type.set, k)
                          for k in range(space.dim(isl.dim_type.set))}
        self.positions.update({space.get_dim_name(isl.dim_type.param, k): (isl.dim_type.param, k)
                               for k in range(space.dim(isl.dim_type.param))})
        self.universe = isl.Set.universe(space)
        # of / and %, to be non-negative where evaluated: (dividend, C text, the set
        # where C evaluates it, as far as && and || short-circuit)
        self.dividends: list[tuple[isl.PwAff, str, isl.Set]] = []

    def constant(self, value: int) -> isl.PwAff:
        aff = isl.Aff.zero_on_domain(self.local).set_constant_val(val(value))
        return isl.PwAff.from_aff(aff)

    def value(self, expr: isl.AstExpr) -> isl.PwAff:
        kind = expr.get_type()
        if kind == _expr.int:
            value = int(expr.get_val().to_str())
            if abs(value) >= 2 ** 63:       # C has no such literal: the printed code would be wrong
                raise CodegenError(f"isl's AST has the constant {value}, past 64 bits")
            return self.constant(value)
        if kind == _expr.id:
            name = expr.get_id().get_name()
            if name not in self.positions:
                raise CodegenError(f"the AST uses {name!r}, neither a loop counter nor a parameter")
            return isl.PwAff.from_aff(isl.Aff.var_on_domain(self.local, *self.positions[name]))
        op = expr.get_op_type()
        args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
        if op == _op.minus:
            return self.value(args[0]).neg()
        if op in (_op.add, _op.sub, _op.mul):
            left, right = self.value(args[0]), self.value(args[1])
            return {_op.add: left.add, _op.sub: left.sub, _op.mul: left.mul}[op](right)
        if op in (_op.min, _op.max):
            result = self.value(args[0])
            for arg in args[1:]:
                result = result.min(self.value(arg)) if op == _op.min else result.max(self.value(arg))
            return result
        if op in (_op.pdiv_q, _op.pdiv_r):
            # printed as C's / and %, which are floor and mod for a non-negative
            # dividend only: isl promises one, `check_dividends` makes sure
            self.dividends.append((self.value(args[0]), expr.to_C_str(), self.universe))
        if op in (_op.div, _op.fdiv_q, _op.pdiv_q):    # div: exact
            return self.value(args[0]).div(self.value(args[1])).floor()
        if op in (_op.pdiv_r, _op.zdiv_r):
            # zdiv_r is only compared with 0, where C's % and mod agree
            return self.value(args[0]).mod_val(args[1].get_val())
        if op in (_op.cond, _op.select):
            return self.condition(args[0]).indicator_function().cond(self.value(args[1]), self.value(args[2]))
        raise CodegenError(f"unexpected integer expression in the AST: {expr.to_C_str()}")

    def check_dividends(self, where: isl.Set) -> None:
        """The dividends of the ``/`` and ``%`` read since the last call are
        non-negative wherever ``where`` holds (where those expressions are evaluated)."""
        pending, self.dividends = self.dividends, []
        zero = self.constant(0)
        for dividend, text, evaluated in pending:
            if not dividend.lt_set(zero).intersect(where).intersect(evaluated).is_empty():
                raise CodegenError(f"isl's AST divides a negative value in {text} (printed as C's / or %)")

    def condition(self, expr: isl.AstExpr) -> isl.Set:
        op = expr.get_op_type() if expr.get_type() == _expr.op else None
        if op in (_op.and_, _op.and_then, _op.or_, _op.or_else):
            # C's && and || evaluate the right side only where the left one does not
            # decide (isl guards `(n - 2) % 4` with `n >= 6 &&`)
            left = self.condition(expr.get_op_arg(0))
            first = len(self.dividends)
            right = self.condition(expr.get_op_arg(1))
            conjunction = op in (_op.and_, _op.and_then)
            right_evaluated = left if conjunction else left.complement()
            self.dividends[first:] = [(d, text, where.intersect(right_evaluated))
                                      for d, text, where in self.dividends[first:]]
            return left.intersect(right) if conjunction else left.union(right)
        if op in _COMPARE:
            return self.compare(op, expr.get_op_arg(0), expr.get_op_arg(1))
        if expr.get_type() == _expr.int:        # isl's 'if (1)' around an unrolled copy
            zero = self.constant(0)
            return zero.eq_set(zero) if not expr.get_val().is_zero() else zero.ne_set(zero)
        raise CodegenError(f"unexpected condition in the AST: {expr.to_C_str()}")

    def compare(self, op, left: isl.AstExpr, right: isl.AstExpr) -> isl.Set:
        """``left op right``. A min or max operand is split into one comparison per
        argument (``c >= max(a, b)`` is ``c >= a and c >= b``): a loop bound then
        gives convex pieces, where comparing piecewise values would multiply them."""
        if op != _op.eq and _min_or_max(left) is not None and _min_or_max(right) is None:
            return self.compare(_FLIP[op], right, left)
        kind = _min_or_max(right)
        if op == _op.eq or kind is None:
            compare = {_op.eq: "eq_set", _op.le: "le_set", _op.lt: "lt_set", _op.ge: "ge_set", _op.gt: "gt_set"}
            return getattr(self.value(left), compare[op])(self.value(right))
        # x >= max(a, b): for every argument; x <= max(a, b): for some (and mirrored for min)
        every = (kind == _op.max) == (op in (_op.ge, _op.gt))
        parts = [self.compare(op, left, right.get_op_arg(k)) for k in range(right.get_op_n_arg())]
        result = parts[0]
        for part in parts[1:]:
            result = result.intersect(part) if every else result.union(part)
        return result


def _min_or_max(expr: isl.AstExpr):
    if expr.get_type() == _expr.op and expr.get_op_type() in (_op.min, _op.max):
        return expr.get_op_type()
    return None


def ast_dates(ast: isl.AstNode, iterators: list[str], params: isl.Space,
              arity: dict[str, int], context: isl.Set | None = None) -> isl.UnionMap:
    """``{ S[i...] -> [b0, c0, b1, c1, ...] }``: when the AST runs each instance (see the
    module docstring). ``iterators``: the AST's loop counter names, by depth;
    ``params``: the parameter space; ``arity[S]``: S's number of iterators (the AST
    may pass more arguments, see lift.py: the first ones are the instance);
    ``context``: the parameter values the AST was built for. Raises `CodegenError`
    where a ``/`` or ``%`` could see a negative dividend there."""
    space = isl.Space.set_alloc(params.get_ctx(), params.dim(isl.dim_type.param), len(iterators))
    for k in range(params.dim(isl.dim_type.param)):
        space = space.set_dim_name(isl.dim_type.param, k, params.get_dim_name(isl.dim_type.param, k))
    for k, name in enumerate(iterators):
        space = space.set_dim_name(isl.dim_type.set, k, name)
    reader = _Reader(space)
    if context is not None:
        reader.universe = reader.universe.intersect_params(context)
    calls: list[tuple[str, list[isl.PwAff], isl.Set, list[isl.PwAff]]] = []

    def visit(node: isl.AstNode, where: isl.Set, date: list[isl.PwAff]) -> None:
        kind = node.get_type()
        if kind == _node.block:
            children = node.block_get_children()
            for k in range(children.n_ast_node()):
                visit(children.get_at(k), where, date + [reader.constant(k)])
        elif kind == _node.mark:
            visit(node.mark_get_node(), where, date)
        elif kind == _node.if_:
            condition = reader.condition(node.if_get_cond())
            reader.check_dividends(where)
            visit(node.if_get_then_node(), where.intersect(condition), date)
            if node.if_has_else_node():
                visit(node.if_get_else_node(), where.subtract(condition), date)
        elif kind == _node.for_:
            counter = reader.value(node.for_get_iterator())
            start = reader.value(node.for_get_init())
            if node.for_is_degenerate():
                runs = counter.eq_set(start)
                reader.check_dividends(where)
            else:
                step = node.for_get_inc().get_val()
                # counter = start + step * n for some n >= 0, while the condition holds
                # (isl's loop conditions are upper bounds: false once, false after)
                runs = reader.compare(_op.ge, node.for_get_iterator(), node.for_get_init())
                if not step.is_one():
                    runs = runs.intersect(counter.sub(start).mod_val(step).eq_set(reader.constant(0)))
                reader.check_dividends(where)                 # the start, once
                condition = reader.condition(node.for_get_cond())
                reader.check_dividends(where.intersect(runs))    # each counter value from the start
                runs = runs.intersect(condition)
            visit(node.for_get_body(), where.intersect(runs), date + [counter])
        elif kind == _node.user:
            call = node.user_get_expr()
            name = call.get_op_arg(0).get_id().get_name()
            if name not in arity:
                raise CodegenError(f"the AST calls {name!r}, which is not a statement")
            args = [reader.value(call.get_op_arg(k)) for k in range(1, 1 + arity[name])]
            reader.check_dividends(where)
            calls.append((name, args, where, date))
        else:
            raise CodegenError(f"unexpected AST node: {node.to_C_str()}")

    visit(ast, reader.universe, [])
    length = max((len(date) for *_, date in calls), default=0)
    result = None
    for name, args, where, date in calls:
        date = date + [reader.constant(0)] * (length - len(date))
        instance = _tuple_map(reader, where, args).set_tuple_name(isl.dim_type.out, name)
        when = _tuple_map(reader, where, date)
        dates = isl.UnionMap.from_map(instance.reverse().apply_range(when))
        result = dates if result is None else result.union(dates)
    return result if result is not None else isl.UnionMap.empty(params)


def _tuple_map(reader: _Reader, where: isl.Set, values: list[isl.PwAff]) -> isl.Map:
    """``{ [counters] -> [values...] : counters in where }``. A piecewise value is cut
    to ``where`` first: the map multiplies the values' pieces, and those outside
    ``where`` (a min or max bound's other cases) made a fuzzed region's validation
    twice as slow. (A value of one piece stays whole: cut to a ``where`` of many
    disjuncts, it would gain their pieces.)"""
    space = reader.space.from_domain().add_dims(isl.dim_type.out, len(values))
    pieces = isl.PwAffList.alloc(where.get_ctx(), len(values))
    for value in values:
        pieces = pieces.add(value.intersect_domain(where) if value.n_piece() > 1 else value)
    return isl.Map.from_multi_pw_aff(isl.MultiPwAff.from_pw_aff_list(space, pieces)).intersect_domain(where)


def validate_ast(ast: isl.AstNode, iterators: list[str], scop, deps,
                 ast_domain: isl.UnionSet | None = None) -> None:
    """Raise `CodegenError` unless ``ast`` runs exactly the instances of ``scop``, each
    once, respecting every validity dependence of ``deps`` (None: instances only).

    ``ast_domain``: the domain of the schedule the AST was built from when it is
    lifted (lift.py: ``S[i, j, b0, ...]`` with the b's functions of the i's); the AST's
    calls are then checked against it, where their arguments are plain counters
    (far cheaper than the divisions of the original iterators), and the
    dependences are carried over to it."""
    context = scop.context
    domain = scop.domain.intersect_params(context)
    lifted = ast_domain is not None
    if lifted:
        ast_domain = ast_domain.intersect_params(context)
        to_ast = _lifting(ast_domain, {stmt.name: len(stmt.iterators) for stmt in scop.statements})
        if not (to_ast.domain().is_equal(domain) and to_ast.is_single_valued()):
            raise CodegenError("the lifted domain is not a function of the iteration domain")
    else:
        ast_domain = domain
    arity = {s.get_tuple_name(): s.dim(isl.dim_type.set) for s in sets_of(ast_domain)}
    dates = ast_dates(ast, iterators, context.get_space(), arity, context).intersect_params(context).coalesce()
    ran = dates.domain()
    if not ast_domain.is_subset(ran):
        raise CodegenError(f"isl's AST never runs: {_example(ast_domain.subtract(ran))}")
    if not ran.is_subset(ast_domain):
        raise CodegenError(f"isl's AST runs outside the iteration domain: {_example(ran.subtract(ast_domain))}")
    if not dates.is_single_valued():
        repeated = dates.subtract(dates.lexmin()).domain()
        raise CodegenError(f"isl's AST runs an instance twice: {_example(repeated)}")
    if deps is None:
        return
    if lifted:     # the AST's instances in the order the original instances have
        dates = to_ast.apply_range(dates)
    # each validity dependence s -> t as the pair of dates (AST(s), AST(t)): all of one
    # space, so a single subset test against the lexicographic order
    ordered = deps.validity.apply_domain(dates).apply_range(dates)
    for pairs in maps_of(ordered):
        earlier = isl.Map.lex_lt(pairs.get_space().domain())
        if pairs.is_subset(earlier):
            continue
        wrong = isl.Set.from_point(pairs.subtract(earlier).wrap().sample_point()).unwrap()
        source, sink = (_example(dates.intersect_range(isl.UnionSet.from_set(date)).domain())
                        for date in (wrong.domain(), wrong.range()))
        raise CodegenError(f"isl's AST breaks a dependence: it runs {sink} before (or with) "
                           f"{source}, which it depends on")


def _lifting(ast_domain: isl.UnionSet, original: dict[str, int]) -> isl.UnionMap:
    """``{ S[i...] -> S[i..., b...] }`` for a lifted domain (lift.py: the original
    iterators come first, ``original[S]`` of them)."""
    result = isl.UnionMap.empty(ast_domain.get_space())
    for piece in sets_of(ast_domain):
        name, n = piece.get_tuple_name(), piece.dim(isl.dim_type.set)
        identity = isl.Map.identity(piece.get_space().map_from_set()).intersect_domain(piece)
        extra = n - original[name]
        lifting = identity.project_out(isl.dim_type.in_, n - extra, extra).set_tuple_name(isl.dim_type.in_, name)
        result = result.union(isl.UnionMap.from_map(lifting))
    return result


def _example(instances: isl.UnionSet | isl.Set) -> str:
    if isinstance(instances, isl.Set):
        instances = isl.UnionSet.from_set(instances)
    for piece in sets_of(instances.coalesce()):
        if not piece.is_empty():
            point = piece.sample_point()
            return str(point) if not point.is_void() else str(piece)
    return str(instances)
