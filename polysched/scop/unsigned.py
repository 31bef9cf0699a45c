"""Unsigned arithmetic in loop bounds and conditions: where the affine model is exact.

The front end models C integer expressions as exact integers. For signed types that is
the program's own semantics (overflow is undefined). Unsigned arithmetic instead wraps
modulo 2^w: with ``unsigned i``, ``i - 1 >= 0`` is always true in C while the model
says ``i >= 1``; with ``unsigned n = 0``, ``i < n - 1`` loops almost forever. The model
is exact exactly where no compared value wraps, so, like Polly's no-wrap assumptions,
each operation and comparison that C computes in an unsigned type contributes the
assumption (the type as C gives it, bottom up with the promotions and the usual
arithmetic conversions, `value_kind`: ``i + j * n`` with ``unsigned i, j`` and ``long n``
is ``long``, exact; ``i - 1`` is ``unsigned``)

    [params] -> { : for every point where the comparison is evaluated, 0 <= side <= 2^w - 1 }

to the context. The optimized code runs only under the context (a run-time check, see
emit_c/versioning.py); elsewhere the original code runs, wrap-around included.
"""
from __future__ import annotations

from typing import Callable

import islpy as isl
from pycparser import c_ast, c_generator

from polysched.islutil import val
from .macros import int_literal_value

_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


# operators whose operand is not evaluated and whose value is a size_t constant
SIZE_OPERATORS = ("sizeof", "_Alignof")


def literal_unsigned_width(text: str) -> int | None:
    """32 or 64 when the integer literal ``text`` has an unsigned type (C11 6.4.4.1),
    else None: a ``u`` suffix, or a hexadecimal or octal literal too large for the
    signed type of its rank (``0xFFFFFFFF`` is an ``unsigned int``; a decimal one
    without ``u`` is always signed)."""
    body = text.rstrip("uUlL")
    suffix = text[len(body):].lower()
    value = int_literal_value(text)
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


_RANGES = {8: (-2 ** 7, 2 ** 7 - 1), 16: (-2 ** 15, 2 ** 15 - 1), 32: (-2 ** 31, 2 ** 31 - 1),
           64: (-2 ** 63, 2 ** 63 - 1)}
_FIXED_WIDTH = {"int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True), "uint16_t": (16, False),
                "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True), "uint64_t": (64, False),
                "intptr_t": (64, True), "uintptr_t": (64, False), "ptrdiff_t": (64, True),
                "ssize_t": (64, True), "size_t": (64, False), "intmax_t": (64, True), "uintmax_t": (64, False)}
_ARITHMETIC = ("+", "-", "*", "/", "%", "&", "|", "^")
# pycparser's types of integer constants (``Constant.type``)
INTEGER_CONSTANT_TYPES = ("int", "long int", "unsigned int", "unsigned long int", "long long int",
                          "unsigned long long int", "long", "unsigned", "long long")
_GEN = c_generator.CGenerator()
# what C gives an expression it cannot type here (an unknown typedef, a float): 'int',
# the lowest rank, which never turns an unsigned operand signed (so the no-wrap
# assumptions err on the side of being recorded)
_INT = (32, True)


def integer_kind(c_type: str) -> tuple[int, bool] | None:
    """``(width, signed)`` of the integer type ``c_type`` (LP64), or None for anything
    else (floating types, typedefs it does not know, ``_Bool``)."""
    words = [w for w in c_type.split() if w not in ("const", "volatile", "static", "register")]
    if len(words) == 1 and words[0] in _FIXED_WIDTH:
        return _FIXED_WIDTH[words[0]]
    if words and set(words) <= {"signed", "unsigned", "char", "short", "int", "long"}:
        return 8 if "char" in words else 16 if "short" in words else 64 if "long" in words else 32, \
            "unsigned" not in words
    return None


def integer_range(c_type: str) -> tuple[int, int] | None:
    """``(low, high)``: the values of the integer type ``c_type`` (LP64), or None for
    anything else (floating types, typedefs it does not know, ``_Bool``)."""
    kind = integer_kind(c_type)
    if kind is None:
        return None
    width, signed = kind
    low, high = _RANGES[width]
    if c_type.split() == ["char"]:      # signed on x86, unsigned on aarch64: what both hold
        return 0, high
    return (low, high) if signed else (0, 2 * high + 1)


def _promoted(kind: tuple[int, bool] | None) -> tuple[int, bool]:
    """C's integer promotion: types narrower than ``int`` compute as ``int``."""
    return _INT if kind is None or kind[0] < 32 else kind


def _common(a: tuple[int, bool], b: tuple[int, bool]) -> tuple[int, bool]:
    """C's usual arithmetic conversions of two promoted integer kinds (C11 6.3.1.8, LP64):
    the wider type, and unsigned when the unsigned operand is at least as wide (a
    ``long`` holds every ``unsigned int``, so ``unsigned int`` op ``long`` is signed)."""
    if a[1] == b[1]:
        return max(a[0], b[0]), a[1]
    unsigned, signed = (a, b) if b[1] else (b, a)
    return unsigned if unsigned[0] >= signed[0] else signed


def _literal_kind(text: str) -> tuple[int, bool]:
    """The type of the integer literal ``text`` (C11 6.4.4.1)."""
    unsigned = literal_unsigned_width(text)
    if unsigned is not None:
        return unsigned, False
    body = text.rstrip("uUlL")
    value = int_literal_value(text)
    return (64, True) if "l" in text[len(body):].lower() or value is None or value > 2 ** 31 - 1 else _INT


def value_kind(node: c_ast.Node, type_of: Callable[[str], str | None],
               known: dict[int, tuple[c_ast.Node, tuple[int, bool]]] | None = None) -> tuple[int, bool]:
    """``(width, signed)``: the integer type C gives the value of ``node``, typed bottom
    up with the promotions and usual arithmetic conversions (``int`` where it cannot
    tell, see _INT). ``known`` keeps the kinds already found, by node identity (with
    the node, so that its id is not reused): pass one dict to type many subexpressions
    of one expression in linear time."""
    if known is None:
        known = {}
    hit = known.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    if isinstance(node, c_ast.BinaryOp) and node.op in _ARITHMETIC:
        # a long sum nests to the left as deep as it is long: walk its spine in a loop
        spine = []
        while isinstance(node, c_ast.BinaryOp) and node.op in _ARITHMETIC and \
                known.get(id(node), (None,))[0] is not node:
            spine.append(node)
            node = node.left
        kind = value_kind(node, type_of, known)
        for partial in reversed(spine):
            kind = _common(kind, value_kind(partial.right, type_of, known))
            known[id(partial)] = partial, kind
        return kind
    kind = _kind(node, type_of, known)
    known[id(node)] = node, kind
    return kind


def _kind(node: c_ast.Node, type_of: Callable[[str], str | None], known: dict) -> tuple[int, bool]:
    """value_kind for every node but the arithmetic operations."""
    if isinstance(node, c_ast.ID):
        c_type = type_of(node.name)
        return _promoted(integer_kind(c_type) if c_type else None)
    if isinstance(node, c_ast.Constant):
        return _literal_kind(node.value) if node.type in INTEGER_CONSTANT_TYPES else _INT
    if isinstance(node, c_ast.Cast):
        return _promoted(integer_kind(_GEN.visit(node.to_type)))
    if isinstance(node, c_ast.UnaryOp):
        if node.op in SIZE_OPERATORS:
            return 64, False
        if node.op in ("-", "+", "~", "++", "--", "p++", "p--"):
            return _promoted(value_kind(node.expr, type_of, known))
        return _INT
    if isinstance(node, c_ast.BinaryOp) and node.op in ("<<", ">>"):
        return value_kind(node.left, type_of, known)
    if isinstance(node, c_ast.TernaryOp):
        return _common(value_kind(node.iftrue, type_of, known), value_kind(node.iffalse, type_of, known))
    if isinstance(node, c_ast.FuncCall) and node.args is not None:
        # a function-like macro (MIN, MAX, CEIL_DIV): computed in its operands' type
        kind = _INT
        for arg in node.args.exprs:
            kind = _common(kind, value_kind(arg, type_of, known))
        return kind
    return _INT                         # comparisons, && and || give an int


def unsigned_width_of(node: c_ast.Node, type_of: Callable[[str], str | None], known: dict | None = None) \
        -> int | None:
    """The width of the unsigned type C computes the value of ``node`` in (None when it
    is signed): ``i - 1`` with ``unsigned i`` is 32; ``i + j * n`` with ``long n`` is
    signed, C converts ``i`` and ``j`` to ``long`` first."""
    width, signed = value_kind(node, type_of, known)
    return None if signed else width


def comparison_width(node: c_ast.Node, type_of: Callable[[str], str | None], known: dict | None = None) \
        -> int | None:
    """The width of the unsigned type in which C compares the operands of the comparison
    ``node`` (None when signed, or when ``node`` is not a comparison)."""
    if not (isinstance(node, c_ast.BinaryOp) and node.op in _COMPARISONS):
        return None
    width, signed = _common(value_kind(node.left, type_of, known), value_kind(node.right, type_of, known))
    return None if signed else width


def wraps_at_32_bits(node: c_ast.Node, type_of: Callable[[str], str | None]) -> bool:
    """Whether some operation (or conversion) inside ``node`` computes in 32-bit
    unsigned arithmetic, where C's value is the exact one modulo 2**32 only."""
    known = {}
    for n in _walk(node):
        if isinstance(n, c_ast.Cast) or (isinstance(n, c_ast.UnaryOp) and n.op in ("-", "~")) or \
                (isinstance(n, c_ast.BinaryOp) and n.op in _ARITHMETIC + ("<<", ">>")):
            if value_kind(n, type_of, known) == (32, False):
                return True
    return False


def modular_kind(node: c_ast.Node, type_of: Callable[[str], str | None],
                 unfold: Callable[[c_ast.Node], c_ast.Node | None] = lambda node: None) -> tuple[int, bool] | None:
    """``(width, signed)`` of ``node`` when it is computed by ``+``, ``-`` and ``*`` only
    (and unary ``-``, and conversions to 32-bit types), over integer variables and
    literals, every value in a type of at most 32 bits; else None. Macro uses and the
    region's constants are read as ``unfold`` gives them. Such an expression of type
    ``unsigned int`` is the exact integer modulo 2**32: the operations are those of a
    ring, and each conversion to ``unsigned`` is modulo 2**32 too (a signed operation
    is exact: its overflow is undefined). So C's value is the exact one wherever that
    lies in [0, 2**32)."""
    return _ring_kind(node, type_of, unfold, 32)


def _ring_kind(node: c_ast.Node, type_of: Callable[[str], str | None],
               unfold: Callable[[c_ast.Node], c_ast.Node | None], widest: int, depth: int = 0) \
        -> tuple[int, bool] | None:
    """`modular_kind` with values in types of at most ``widest`` bits. The operand of a
    conversion (to a type of 32 bits or more: ``(unsigned) (y)`` of an index helper's
    parameter, extract.inline_function) may be of any width up to 64: its value modulo
    2**32 is the exact one's (2**32 divides 2**64, where 64-bit unsigned values wrap),
    and a conversion to 32 bits keeps that (gcc's to int too)."""
    if depth > 200:
        return None
    unfolded = unfold(node) if isinstance(node, (c_ast.ID, c_ast.FuncCall)) else None
    if unfolded is not None:
        return _ring_kind(unfolded, type_of, unfold, widest, depth + 1)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        left = _ring_kind(node.left, type_of, unfold, widest, depth + 1)
        right = _ring_kind(node.right, type_of, unfold, widest, depth + 1) if left is not None else None
        kind = _common(left, right) if right is not None else None
    elif isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        kind = _ring_kind(node.expr, type_of, unfold, widest, depth + 1)
        kind = _promoted(kind) if kind is not None else None
    elif isinstance(node, c_ast.ID):
        c_type = type_of(node.name)
        declared = integer_kind(c_type) if c_type else None
        kind = _promoted(declared) if declared is not None else None
    elif isinstance(node, c_ast.Constant) and node.type in INTEGER_CONSTANT_TYPES:
        kind = _literal_kind(node.value)
    elif isinstance(node, c_ast.Cast):
        target = integer_kind(_GEN.visit(node.to_type))
        kind = target if target and target[0] >= 32 and _ring_kind(node.expr, type_of, unfold, 64, depth + 1) \
            else None
    else:
        kind = None
    return kind if kind is not None and kind[0] <= widest else None


def _walk(node: c_ast.Node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(child for _, child in n.children())


def unsigned_comparisons(node: c_ast.Node, type_of: Callable[[str], str | None]) \
        -> list[tuple[c_ast.Node, c_ast.Node, int]]:
    """``(left, right, width)`` for every comparison in the condition ``node`` that C
    evaluates in unsigned arithmetic of ``width`` bits."""
    found, known = [], {}
    for n in _walk(node):
        width = comparison_width(n, type_of, known)
        if width is not None:
            found.append((n.left, n.right, width))
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
            outside = outside.union(value.lt_set(zero.add_constant_val(val(low))))
        if high < 2 ** 62:
            outside = outside.union(value.gt_set(zero.add_constant_val(val(high))))
    return outside.params().complement()
