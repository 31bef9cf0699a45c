"""Printing isl AST expressions (``isl.AstExpr``) as C.

Integer division and min/max go through helper macros (``floord``, ``min``, ``max``
with fresh names chosen by :class:`Helpers`) whose definitions are exact for
negative operands: C's ``/`` truncates towards zero, ``floord`` rounds down.
Parentheses follow C precedence, so the output stays readable
(``c0 + 2 * c1 - 1`` rather than ``((c0 + (2 * c1)) - 1)``).
"""
from __future__ import annotations

import islpy as isl

from .names import NameAllocator

_op = isl.ast_expr_op_type

# C precedence levels (higher binds tighter).
_PREC_TERNARY, _PREC_OR, _PREC_AND = 3, 4, 5
_PREC_EQ, _PREC_REL, _PREC_ADD, _PREC_MUL, _PREC_UNARY, _PREC_ATOM = 9, 10, 12, 13, 14, 16

_BINARY = {
    _op.add: ("+", _PREC_ADD),
    _op.sub: ("-", _PREC_ADD),
    _op.mul: ("*", _PREC_MUL),
    _op.div: ("/", _PREC_MUL),  # exact division: the remainder is known to be zero
    _op.pdiv_q: ("/", _PREC_MUL),  # dividend known non-negative, divisor positive
    _op.pdiv_r: ("%", _PREC_MUL),  # dividend known non-negative
    _op.zdiv_r: ("%", _PREC_MUL),  # only ever compared with zero: C's % is exact for that
    _op.and_: ("&&", _PREC_AND),  # both sides are side-effect free
    _op.and_then: ("&&", _PREC_AND),
    _op.or_: ("||", _PREC_OR),
    _op.or_else: ("||", _PREC_OR),
    _op.eq: ("==", _PREC_EQ),
    _op.le: ("<=", _PREC_REL),
    _op.lt: ("<", _PREC_REL),
    _op.ge: (">=", _PREC_REL),
    _op.gt: (">", _PREC_REL),
}

# (parameter list, body) of each helper; the body is exact for every sign.
_HELPER_DEFINITIONS = {
    "floord": ("(n, d)", "(((n) / (d)) - ((((n) % (d)) != 0) & (((n) < 0) != ((d) < 0))))"),
    "min": ("(x, y)", "((x) < (y) ? (x) : (y))"),
    "max": ("(x, y)", "((x) > (y) ? (x) : (y))"),
    # a macro use's expansion as a string literal (a header macro's check, codegen.py)
    "stringify": ("(...)", "#__VA_ARGS__"),
    "expansion": ("(...)", "{stringify}(__VA_ARGS__)"),
}


class Helpers:
    """The helper macros used by one emitted region, under names free in the file."""

    def __init__(self, names: NameAllocator):
        self._names = names
        self._chosen: dict[str, str] = {}

    def name(self, helper: str) -> str:
        if helper == "expansion":
            self.name("stringify")
        if helper not in self._chosen:
            self._chosen[helper] = self._names.fresh(f"polysched_{helper}")
        return self._chosen[helper]

    def definitions(self) -> list[str]:
        """``#define`` lines for the helpers used so far, in a stable order."""
        return [
            f"#define {self._chosen[h]}{_HELPER_DEFINITIONS[h][0]} "
            + _HELPER_DEFINITIONS[h][1].replace("{stringify}", self._chosen.get("stringify", ""))
            for h in _HELPER_DEFINITIONS
            if h in self._chosen
        ]

    def undefinitions(self) -> list[str]:
        return [f"#undef {self._chosen[h]}" for h in _HELPER_DEFINITIONS if h in self._chosen]


class ExprPrinter:
    """Turns ``isl.AstExpr`` into C text; ``rename`` maps isl ids to C names."""

    def __init__(self, helpers: Helpers, rename: dict[str, str] | None = None, record=None):
        self.helpers = helpers
        self.rename = rename or {}
        self.record = record        # called with each expression printed (ranges.py)

    def __call__(self, expr: isl.AstExpr, record: bool = True) -> str:
        """C text of ``expr``; ``record``: pass it to ``self.record`` (when there is
        one), i.e. it is computed in the counter type."""
        if record and self.record is not None:
            self.record(expr)
        return self._print(expr)[0]

    def _text(self, expr: isl.AstExpr) -> str:
        return self._print(expr)[0]

    def is_additive(self, expr: isl.AstExpr) -> bool:
        """Whether the printed ``expr`` has no operator looser than ``+``/``-`` on top."""
        return self._print(expr)[1] >= _PREC_ADD

    def _print(self, expr: isl.AstExpr) -> tuple[str, int]:
        """(text, precedence of its outermost operator)."""
        kind = expr.get_type()
        if kind == isl.ast_expr_type.id:
            name = expr.get_id().get_name()
            return self.rename.get(name, name), _PREC_ATOM
        if kind == isl.ast_expr_type.int:
            value = int(expr.get_val().to_python())
            return str(value), (_PREC_ATOM if value >= 0 else _PREC_UNARY)
        if kind != isl.ast_expr_type.op:
            raise ValueError(f"unsupported isl AST expression: {expr.to_C_str()}")
        op = expr.get_op_type()
        args = [expr.get_op_arg(i) for i in range(expr.get_op_n_arg())]
        if op in _BINARY:
            symbol, prec = _BINARY[op]
            return self._binary(symbol, prec, args), prec
        if op == _op.minus:
            return "-" + self._operand(args[0], _PREC_UNARY + 1), _PREC_UNARY
        if op in (_op.min, _op.max):
            return self._nary_helper("min" if op == _op.min else "max", args), _PREC_ATOM
        if op == _op.fdiv_q:
            return f"{self.helpers.name('floord')}({self._text(args[0])}, {self._text(args[1])})", _PREC_ATOM
        if op in (_op.cond, _op.select):  # select evaluates both arms: pure here, so ?: is fine
            cond = self._operand(args[0], _PREC_TERNARY + 1)
            then = self._operand(args[1], _PREC_TERNARY + 1)
            other = self._operand(args[2], _PREC_TERNARY)
            return f"{cond} ? {then} : {other}", _PREC_TERNARY
        if op == _op.call:
            callee = self._text(args[0])
            return f"{callee}({', '.join(self._text(a) for a in args[1:])})", _PREC_ATOM
        if op == _op.access:
            base = self._operand(args[0], _PREC_ATOM)
            return base + "".join(f"[{self._text(a)}]" for a in args[1:]), _PREC_ATOM
        if op == _op.member:
            return f"{self._operand(args[0], _PREC_ATOM)}.{self._text(args[1])}", _PREC_ATOM
        if op == _op.address_of:
            return "&" + self._operand(args[0], _PREC_UNARY), _PREC_UNARY
        raise ValueError(f"unsupported isl AST operation {op}: {expr.to_C_str()}")

    def _operand(self, expr: isl.AstExpr, min_prec: int) -> str:
        text, prec = self._print(expr)
        return text if prec >= min_prec else f"({text})"

    def _binary(self, symbol: str, prec: int, args: list[isl.AstExpr]) -> str:
        # left-associative: the right operand needs strictly tighter binding; '&&'
        # inside '||' gets parentheses all the same (what gcc's -Wparentheses asks)
        tighter = _PREC_AND + 1 if prec == _PREC_OR else prec + 1
        left = self._operand(args[0], prec if prec != _PREC_OR else tighter)
        right = self._operand(args[1], tighter)
        return f"{left} {symbol} {right}"

    def _nary_helper(self, helper: str, args: list[isl.AstExpr]) -> str:
        name = self.helpers.name(helper)
        text = self._text(args[-1])
        for arg in reversed(args[:-1]):
            text = f"{name}({self._text(arg)}, {text})"
        return text
