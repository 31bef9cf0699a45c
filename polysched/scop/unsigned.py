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
    try:
        value = int(body, 16) if body[:2].lower() == "0x" else int(body, 8) if body[:1] == "0" and len(body) > 1 \
            else int(body)
    except ValueError:
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


def unsigned_width_of(node: c_ast.Node, type_of: Callable[[str], str | None]) -> int | None:
    """The widest unsigned type among the variables, ``u``-suffixed constants and casts
    in ``node`` (None if there is none): C converts the operation to it."""
    widest = None
    stack = [node]
    while stack:
        n = stack.pop()
        width = None
        if isinstance(n, c_ast.ID):
            c_type = type_of(n.name)
            width = unsigned_width(c_type) if c_type else None
        elif isinstance(n, c_ast.Constant) and n.type in ("int", "long int", "unsigned int",
                                                          "unsigned long int", "unsigned long long int"):
            width = literal_unsigned_width(n.value)
        elif isinstance(n, c_ast.UnaryOp) and n.op == "sizeof":
            widest = max(widest or 0, 64)       # a size_t; what it measures does not count
            continue
        elif isinstance(n, c_ast.Cast):
            from pycparser import c_generator
            width = unsigned_width(c_generator.CGenerator().visit(n.to_type))
        if width is not None:
            widest = max(widest or 0, width)
        # the value of a cast has the cast's type, whatever its operand's ('(int) u' is
        # signed; arithmetic inside the operand is checked where it is converted)
        if not isinstance(n, c_ast.Cast):
            stack.extend(child for _, child in n.children())
    return widest


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
