"""Unsigned arithmetic in loop bounds and conditions: where the affine model is exact.

The front end models C integer expressions as exact integers. For signed types that is
the program's own semantics (overflow is undefined). Unsigned arithmetic instead wraps
modulo 2^w: with ``unsigned i``, ``i - 1 >= 0`` is always true in C while the model
says ``i >= 1``; with ``unsigned n = 0``, ``i < n - 1`` loops almost forever. The model
is exact exactly where no compared value wraps, so, like Polly's no-wrap assumptions,
each comparison whose operands involve an unsigned variable contributes the assumption

    [params] -> { : for every point where the comparison is evaluated, 0 <= side <= 2^w - 1 }

to the context. The optimized code runs only under the context (a run-time check, see
emit_c/versioning.py); elsewhere the original code runs, wrap-around included.
"""
from __future__ import annotations

from typing import Callable

import islpy as isl
from pycparser import c_ast

_UNSIGNED_WORDS = {"unsigned", "size_t", "uintptr_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
                   "uintmax_t"}
_WIDE_WORDS = {"long", "size_t", "uintptr_t", "uint64_t", "uintmax_t"}
_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


def unsigned_width(c_type: str) -> int | None:
    """64 or 32 for an unsigned type of at least ``int``'s rank, else None (narrower
    unsigned types promote to ``int``: signed arithmetic)."""
    words = set(c_type.split())
    if not words & _UNSIGNED_WORDS or words & {"char", "short"} or words & {"uint8_t", "uint16_t"}:
        return None
    return 64 if words & _WIDE_WORDS else 32


def literal_unsigned_width(text: str) -> int | None:
    """32 or 64 when the integer literal ``text`` has an unsigned type (C11 6.4.4.1),
    else None: a ``u`` suffix, or a hexadecimal or octal literal too large for the
    signed type of its rank (``0xFFFFFFFF`` is an ``unsigned int``; a decimal one
    without ``u`` is always signed)."""
    body = text.rstrip("uUlL")
    suffix = text[len(body):].lower()
    value = _literal_value(body)
    if value is None:
        return None
    based = body[:1] == "0" and len(body) > 1
    if "u" in suffix:
        return 64 if "l" in suffix or value > 2 ** 32 - 1 else 32
    if not based:
        return None
    if "l" not in suffix and value <= 2 ** 31 - 1:
        return None
    if "l" not in suffix and value <= 2 ** 32 - 1:
        return 32
    return None if value <= 2 ** 63 - 1 else 64


def _literal_value(body: str) -> int | None:
    """The value of an integer literal without its suffix (decimal, 0x..., octal)."""
    try:
        return int(body, 16) if body[:2].lower() == "0x" else int(body, 8) if body[:1] == "0" and len(body) > 1 \
            else int(body)
    except ValueError:
        return None


IntegerType = tuple[int, bool]          # (width, unsigned) after the integer promotions
_INT: IntegerType = (32, False)
_ARITHMETIC = ("+", "-", "*", "/", "%", "&", "|", "^")
_FLOATING_WORDS = {"float", "double", "_Complex"}


def _declared_type(c_type: str | None) -> IntegerType | None:
    """The promoted type of a variable declared ``c_type``; None when it is not an
    integer (floating). A type polysched does not know counts as ``int``: C converts
    ``int`` to the other operand's type, so an unsigned operand is never missed."""
    if c_type is None:
        return _INT
    width = unsigned_width(c_type)
    if width is not None:
        return width, True
    words = set(c_type.split())
    if words & _FLOATING_WORDS or "*" in c_type:
        return None
    return (64, False) if words & {"long", "int64_t", "intptr_t", "ptrdiff_t", "ssize_t", "intmax_t"} else _INT


def _converted(a: IntegerType | None, b: IntegerType | None) -> IntegerType | None:
    """The usual arithmetic conversions (C11 6.3.1.8) of two promoted types, LP64: the
    wider signed type wins over a narrower unsigned one (``unsigned * long`` is ``long``),
    else the unsigned one."""
    if a is None or b is None:
        return None
    if a[1] == b[1]:
        return max(a[0], b[0]), a[1]
    unsigned, signed = (a, b) if a[1] else (b, a)
    return unsigned if unsigned[0] >= signed[0] else signed


def integer_type_of(node: c_ast.Node, type_of: Callable[[str], str | None]) -> IntegerType | None:
    """The C type of the expression ``node`` (promoted; None for a floating or pointer
    value). Nodes it does not type (calls of function-like macros, array elements) take
    the widest unsigned type among their leaves, as if converted to it: never narrower
    or more signed than C's, which would miss a wrap-around."""
    if isinstance(node, c_ast.ID):
        return _declared_type(type_of(node.name))
    if isinstance(node, c_ast.Constant):
        if node.type == "char":
            return _INT
        if node.type not in ("int", "long int", "unsigned int", "unsigned long int", "unsigned long long int"):
            return None
        width = literal_unsigned_width(node.value)
        if width is not None:
            return width, True
        body = node.value.rstrip("uUlL")
        value = _literal_value(body)
        long = "l" in node.value[len(body):].lower() or value is None or value > 2 ** 31 - 1
        return (64, False) if long else _INT
    if isinstance(node, c_ast.Cast):
        from pycparser import c_generator
        return _declared_type(c_generator.CGenerator().visit(node.to_type))
    if isinstance(node, c_ast.UnaryOp):
        if node.op == "sizeof":
            return 64, True
        if node.op in ("-", "+", "~", "++", "--", "p++", "p--"):
            return integer_type_of(node.expr, type_of)
        if node.op == "!":
            return _INT
    elif isinstance(node, c_ast.BinaryOp):
        if node.op in _ARITHMETIC:
            return _converted(integer_type_of(node.left, type_of), integer_type_of(node.right, type_of))
        if node.op in ("<<", ">>"):
            return integer_type_of(node.left, type_of)
        if node.op in _COMPARISONS or node.op in ("&&", "||"):
            return _INT
    elif isinstance(node, c_ast.TernaryOp):
        return _converted(integer_type_of(node.iftrue, type_of), integer_type_of(node.iffalse, type_of))
    widest = _widest_unsigned_leaf(node, type_of)
    return (widest, True) if widest else _INT


def _widest_unsigned_leaf(node: c_ast.Node, type_of: Callable[[str], str | None]) -> int | None:
    widest = None
    for _, child in node.children():
        found = integer_type_of(child, type_of)
        if found is not None and found[1]:
            widest = max(widest or 0, found[0])
    return widest


def unsigned_width_of(node: c_ast.Node, type_of: Callable[[str], str | None]) -> int | None:
    """32 or 64 when C computes ``node`` in unsigned arithmetic of that width (for a
    comparison: when it compares in it, ``-1 < sizeof(x)`` is false), else None.
    Casts, ``u``-suffixed and large hexadecimal constants and ``sizeof`` count, and the
    usual arithmetic conversions: ``u * n`` with ``unsigned u`` and ``long n`` is signed."""
    if isinstance(node, c_ast.BinaryOp) and node.op in _COMPARISONS:
        found = _converted(integer_type_of(node.left, type_of), integer_type_of(node.right, type_of))
    else:
        found = integer_type_of(node, type_of)
    return found[0] if found is not None and found[1] else None


def unsigned_comparisons(node: c_ast.Node, type_of: Callable[[str], str | None]) \
        -> list[tuple[c_ast.Node, c_ast.Node, int]]:
    """``(left, right, width)`` for every comparison in the condition ``node`` that C
    evaluates in unsigned arithmetic of ``width`` bits."""
    found = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.BinaryOp) and n.op in _COMPARISONS:
            width = unsigned_width_of(n, type_of)
            if width is not None:
                found.append((n.left, n.right, width))
        stack.extend(child for _, child in n.children())
    return found


def no_wrap(values: list[tuple[isl.PwAff, int]], evaluated_on: isl.Set) -> isl.Set:
    """``[params] -> { : ... }``: the parameters for which every ``(value, width)`` stays
    in ``[0, 2^width - 1]`` at every point of ``evaluated_on`` (a set over the iterators
    that the values are functions of)."""
    return in_range([(value, 0, 2 ** width - 1) for value, width in values], evaluated_on)


def in_range(values: list[tuple[isl.PwAff, int, int]], evaluated_on: isl.Set) -> isl.Set:
    """``[params] -> { : ... }``: the parameters for which every ``(value, low, high)``
    has ``low <= value <= high`` at every point of ``evaluated_on``."""
    outside = isl.Set.empty(evaluated_on.get_space())
    for value, low, high in values:
        value = value.intersect_domain(evaluated_on)
        zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(evaluated_on.get_space()))
        # bounds of 64-bit types are not tested: emit_c/versioning.py keeps parameters
        # below 2**56 and iterators below 2**60
        if low > -2 ** 62:
            outside = outside.union(value.lt_set(zero.add_constant_val(isl.Val(low))))
        if high < 2 ** 62:
            outside = outside.union(value.gt_set(zero.add_constant_val(isl.Val(high))))
    return outside.params().complement()
