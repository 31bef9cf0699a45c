"""How large the integers of the emitted loop code can get: interval arithmetic over
isl AST expressions.

The counter type (``int`` or ``long long``, versioning.py) must hold every value the
generated code computes, not only the counters: isl's expressions for a schedule with
large coefficients multiply a counter by them (``(2147483644 * c0 + 2147483644) /
2147483645`` for the schedule ``{ S[i, j] -> [2147483644i + j, i] }``, which isl's
scheduler gave for a loop whose bounds carried the 2**31 of an ``unsigned``: the
product wrapped around and a hoisted load read far outside its array).

`Ranges` records every expression the printer prints, with the loops around it
(``for (c1 = init; c1 <= bound; c1 += step)``). `Ranges.largest` then bounds each
counter by its loop's bounds (evaluated with the loops outside it), each parameter by
the ranges it is given, and returns the largest magnitude any sub-expression reaches:
a sound over-approximation (intervals ignore the correlation between terms), cheap
enough to evaluate again under narrower parameter ranges.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import islpy as isl

_op = isl.ast_expr_op_type
_type = isl.ast_expr_type

UNBOUNDED = 1 << 200        # stands for "no bound known"

Interval = tuple[int, int]


@dataclass(frozen=True, eq=False)      # (by identity: a key of the cache of `Ranges`)
class Loop:
    """A printed loop: ``for (iterator = init; cond; iterator += inc)``, or the one
    value ``init`` when ``degenerate``."""

    iterator: str
    init: isl.AstExpr
    cond: isl.AstExpr | None
    inc: isl.AstExpr | None
    degenerate: bool

    @staticmethod
    def of(node: isl.AstNode) -> "Loop":
        degenerate = node.for_is_degenerate()
        return Loop(node.for_get_iterator().get_id().get_name(), node.for_get_init(),
                    None if degenerate else node.for_get_cond(), None if degenerate else node.for_get_inc(),
                    degenerate)


class Ranges:
    """The expressions printed for one region, each with its enclosing loops.

    ``counters``: the names isl may give loop counters; one that is not an enclosing
    loop's (an expression printed outside its loop) is unbounded.
    """

    def __init__(self, counters: list[str]):
        self.counters = set(counters)
        self.loops: list[Loop] = []
        self.recorded: list[tuple[isl.AstExpr, tuple[Loop, ...]]] = []

    def record(self, expr: isl.AstExpr) -> None:
        self.recorded.append((expr, tuple(self.loops)))

    @contextmanager
    def inside(self, loops: list[isl.AstNode]):
        """Expressions recorded in the block are evaluated inside the isl AST ``for``
        nodes ``loops`` (outermost first)."""
        self.loops += [Loop.of(node) for node in loops]
        try:
            yield
        finally:
            del self.loops[len(self.loops) - len(loops):]

    def largest(self, parameters: dict[str, Interval]) -> int:
        """The largest magnitude of any integer the recorded expressions compute (their
        sub-expressions, the loop counters and each counter's value after its last
        increment included) when every parameter lies in its interval of
        ``parameters``; `UNBOUNDED` or more when nothing bounds one."""
        worst = 0
        environments: dict[tuple[Loop, ...], dict[str, Interval]] = {(): dict(parameters)}
        for expr, loops in self.recorded:
            env, seen = self._environment(loops, environments)
            worst = max(worst, seen)
            _, magnitude = _evaluate(expr, env, self.counters)
            worst = max(worst, magnitude)
        return worst

    def _environment(self, loops: tuple[Loop, ...], cache: dict) -> tuple[dict[str, Interval], int]:
        """(counter and parameter intervals inside ``loops``, the largest magnitude the
        loop control computes)."""
        if loops in cache:
            return cache[loops], 0
        outer, seen = self._environment(loops[:-1], cache)
        loop = loops[-1]
        env = dict(outer)
        start, magnitude = _evaluate(loop.init, outer, self.counters)
        seen = max(seen, magnitude)
        if start is None:
            start = (-UNBOUNDED, UNBOUNDED)
        if loop.degenerate:
            env[loop.iterator] = start
        else:
            high = UNBOUNDED
            for bound in _upper_bounds(loop.cond, loop.iterator):
                value, magnitude = _evaluate(bound[0], outer, self.counters)
                seen = max(seen, magnitude)
                if value is not None:
                    high = min(high, value[1] - bound[1])
            step, magnitude = _evaluate(loop.inc, outer, self.counters) if loop.inc is not None else ((1, 1), 1)
            step = step or (-UNBOUNDED, UNBOUNDED)
            # the counter's value after its last increment is computed (and compared)
            seen = max(seen, magnitude, abs(high + max(abs(step[0]), abs(step[1]))))
            env[loop.iterator] = (start[0], max(start[0], high))
        cache[loops] = env
        return env, seen


def largest_of(expr: isl.AstExpr, parameters: dict[str, Interval]) -> int:
    """`Ranges.largest` of the one expression ``expr``, printed outside every loop (a
    run-time check, an address, a work estimate)."""
    ranges = Ranges([])
    ranges.record(expr)
    return ranges.largest(parameters)


def _upper_bounds(cond: isl.AstExpr | None, iterator: str) -> list[tuple[isl.AstExpr, int]]:
    """(e, d) for each conjunct ``iterator <= e`` (d = 0) or ``iterator < e`` (d = 1) of
    ``cond``, the forms isl gives loop conditions."""
    if cond is None or cond.get_type() != _type.op:
        return []
    op = cond.get_op_type()
    if op in (_op.and_, _op.and_then):
        return [b for k in range(cond.get_op_n_arg()) for b in _upper_bounds(cond.get_op_arg(k), iterator)]
    if op in (_op.le, _op.lt):
        left = cond.get_op_arg(0)
        if left.get_type() == _type.id and left.get_id().get_name() == iterator:
            return [(cond.get_op_arg(1), 1 if op == _op.lt else 0)]
    return []


def _evaluate(expr: isl.AstExpr, env: dict[str, Interval], counters: set[str]) -> tuple[Interval | None, int]:
    """(the interval of ``expr``'s value, None when it is not an integer: an array
    element, a call; the largest magnitude of it and of its sub-expressions)."""
    kind = expr.get_type()
    if kind == _type.int:
        value = int(expr.get_val().to_python())
        return (value, value), abs(value)
    if kind == _type.id:
        name = expr.get_id().get_name()
        if name in env:
            lo, hi = env[name]
            return (lo, hi), max(abs(lo), abs(hi))
        if name in counters:
            return (-UNBOUNDED, UNBOUNDED), UNBOUNDED
        return None, 0          # an array or a function: not an integer of ours
    op = expr.get_op_type()
    parts = [_evaluate(expr.get_op_arg(k), env, counters) for k in range(expr.get_op_n_arg())]
    seen = max((m for _, m in parts), default=0)
    values = [v for v, _ in parts]
    result = _combine(op, values)
    if result is not None:
        result = (max(result[0], -UNBOUNDED), min(result[1], UNBOUNDED))
        seen = max(seen, abs(result[0]), abs(result[1]))
    return result, seen


def _combine(op, values: list[Interval | None]) -> Interval | None:
    if op in (_op.call, _op.access, _op.member, _op.address_of):
        return None
    if op in (_op.and_, _op.and_then, _op.or_, _op.or_else, _op.eq, _op.le, _op.lt, _op.ge, _op.gt):
        return (0, 1)
    if any(v is None for v in values[1:] if op in (_op.cond, _op.select)) or \
            (op not in (_op.cond, _op.select) and any(v is None for v in values)):
        return (-UNBOUNDED, UNBOUNDED)
    if op == _op.minus:
        lo, hi = values[0]
        return (-hi, -lo)
    if op in (_op.min, _op.max):
        pick = min if op == _op.min else max
        return (pick(v[0] for v in values), pick(v[1] for v in values))
    if op in (_op.cond, _op.select):
        return (min(values[1][0], values[2][0]), max(values[1][1], values[2][1]))
    (a, b), (c, d) = values[0], values[1]
    if op == _op.add:
        return (a + c, b + d)
    if op == _op.sub:
        return (a - d, b - c)
    if op == _op.mul:
        corners = [a * c, a * d, b * c, b * d]
        return (min(corners), max(corners))
    if op in (_op.div, _op.pdiv_q, _op.fdiv_q):
        if c > 0 or d < 0:              # the divisor keeps its sign
            corners = [x // y for x in (a, b) for y in (c, d)] + [-(-x // y) for x in (a, b) for y in (c, d)]
            return (min(corners), max(corners))
        size = max(abs(a), abs(b))
        return (-size, size)
    if op in (_op.pdiv_r, _op.zdiv_r):
        size = min(max(abs(c), abs(d)) - 1, max(abs(a), abs(b)))
        return (-max(size, 0), max(size, 0))
    return (-UNBOUNDED, UNBOUNDED)
