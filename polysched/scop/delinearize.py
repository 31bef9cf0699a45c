"""Linearised subscripts read as the multi-dimensional accesses they stand for.

C over buffers from ``malloc`` writes ``A[i * n + j]`` for the element ``(i, j)`` of an
``n``-column matrix. The product of an iterator and a parameter is not affine, but the
subscript is ``i`` rows of ``n`` plus ``j``: the access is modelled as ``A[i, j]`` over
an array of rows of ``n`` elements (as Polly's delinearisation does), under the
assumption ``0 <= j < n`` wherever it is evaluated, so that distinct pairs are distinct
addresses. The assumption joins the region's context and is checked at run time with
the others (the original code runs where it fails).

A subscript is expanded into terms ``sign * factors * sizes``: ``sizes`` the size
parameters multiplied in (``("m", "n")`` for ``i * n * m``), ``factors`` the rest
(iterators, constants, casts, anything the affine converter reads). The *chain* of an
array is its size monomials, outermost first, each the next one times one parameter:
``[("m", "n"), ("n",), ()]`` for ``A[(i * m + j) * n + k]``, a view of rows of ``n``
in planes of ``m`` rows; the dimension sizes are the parameters that tell the
monomials apart (``m``, ``n``). Every access of the array is read through the same
chain: ``A[k]`` becomes ``A[0, 0, k]`` with ``0 <= k < n`` assumed.

A row size may be a sum of sizes (times integer constants) and integer constants, as a
convolution's output width is: in ``out[(b * k + o) * (len - 2) + x]`` the factor
``len - 2`` is one size, named by its C text ``(len - 2)`` (the ``compound`` callback
of `expand` names and remembers it), so the chain is ``[("(len - 2)", "k"),
("(len - 2)",), ()]``; a strided convolution's padded input has rows of
``(2 * w + 2)``. Distributed, its terms would not form a chain. A constant row size, a
literal or an integer macro (``#define C 24``), counts when it multiplies a sum that
holds a size: ``((b * h + y) * w + x) * C + c``.

A column that leaves its row in some iterations only (``D[i * n + j - 1]`` at ``j = 0``
is ``D[i - 1, n - 1]``) is read piecewise (``Extractor.delinearized``): each column
borrows a row where it is negative and gives one back past its extent, so nothing is
assumed for such an access.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, NamedTuple

from pycparser import c_ast

MAX_TERMS = 64        # expanding a product of sums multiplies their terms


class Term(NamedTuple):
    sign: int
    factors: tuple[c_ast.Node, ...]
    sizes: tuple[str, ...]      # sorted


def literal_row(node: c_ast.Node) -> str | None:
    """The digits of a positive decimal ``int`` constant (a row size named by them)."""
    if isinstance(node, c_ast.Constant) and node.type == "int" and node.value.isdigit() \
            and not node.value.startswith("0"):
        return node.value
    return None


def expand(node: c_ast.Node, is_size: Callable[[str], bool],
           unfold: Callable[[c_ast.Node], c_ast.Node | None] = lambda node: None, depth: int = 0,
           compound: Callable[[c_ast.Node], str | None] = lambda node: None,
           row_constant: Callable[[c_ast.Node], str | None] = literal_row,
           widening: Callable[[c_ast.Cast], bool] = lambda node: False) -> list[Term] | None:
    """``node`` as a sum of terms, products distributed over sums, macro uses replaced
    by ``unfold(node)`` (their parsed expansion, or None); None past ``MAX_TERMS``. A
    factor of a product that ``compound`` names (a sum of sizes and constants) is one
    size of that name; a constant factor that ``row_constant`` names (a literal, an
    integer macro) is a row size when it multiplies a sum holding a size. A cast that
    ``widening`` accepts (to a 64-bit integer type: ``i * (size_t)n``, ``(long)(i * n
    + j)``) is its operand: 64-bit sums wrap like the addresses they make."""
    if depth > 64:
        return None
    unfolded = unfold(node) if isinstance(node, (c_ast.ID, c_ast.FuncCall)) else None
    if unfolded is not None:
        return expand(unfolded, is_size, unfold, depth + 1, compound, row_constant, widening)

    def sub(n: c_ast.Node) -> list[Term] | None:
        return expand(n, is_size, unfold, depth + 1, compound, row_constant, widening)

    if isinstance(node, c_ast.Cast) and widening(node):
        return sub(node.expr)

    def factor(n: c_ast.Node) -> list[Term] | None:
        name = compound(n)
        return [Term(1, (), (name,))] if name is not None else sub(n)

    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        left, right = sub(node.left), sub(node.right)
        if left is None or right is None or len(left) + len(right) > MAX_TERMS:
            return None
        if node.op == "-":
            right = [t._replace(sign=-t.sign) for t in right]
        return left + right
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        inner = sub(node.expr)
        if inner is None or node.op == "+":
            return inner
        return [t._replace(sign=-t.sign) for t in inner]
    if isinstance(node, c_ast.BinaryOp) and node.op == "*":
        left, right = factor(node.left), factor(node.right)
        if left is None or right is None or len(left) * len(right) > MAX_TERMS:
            return None
        right = _constant_row(node.left, left, right, row_constant)       # (o * c + ci) * 3
        left = _constant_row(node.right, right, left, row_constant)       # 3 * (o * c + ci)
        return [Term(a.sign * b.sign, a.factors + b.factors, tuple(sorted(a.sizes + b.sizes)))
                for a in left for b in right]
    if isinstance(node, c_ast.ID) and is_size(node.name):
        return [Term(1, (), (node.name,))]
    return [Term(1, (node,), ())]


def _constant_row(node: c_ast.Node, terms: list[Term], constant: list[Term],
                  row_constant: Callable[[c_ast.Node], str | None] = literal_row) -> list[Term]:
    """``constant``, one size named by ``row_constant`` (a literal by its digits, an
    integer macro by its name), when it multiplies ``node``, a sum of ``terms`` with a
    size in it: ``(o * c + ci) * 3`` is rows of 3 in planes of ``c`` (kept a factor,
    the rows of ``c`` would hold ``3 * ci + r``, which leaves them); else ``constant``
    unchanged (``2 * j``, ``i * n * 2``)."""
    if not (isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-") and any(t.sizes for t in terms)):
        return constant
    if len(constant) != 1 or constant[0].sizes or len(constant[0].factors) != 1:
        return constant
    name = row_constant(constant[0].factors[0])
    if name is None:
        return constant
    return [Term(constant[0].sign, (), (name,))]


def iterator_monomials(subscripts: list[list[Term]],
                       mentions_iterator: Callable[[c_ast.Node], bool]) -> set[tuple[str, ...]]:
    """The size monomials that multiply an iterator in ``subscripts`` (``("n",)`` for
    ``i * n``): the row sizes the subscripts stand for."""
    return {t.sizes for terms in subscripts for t in terms
            if t.sizes and any(mentions_iterator(f) for f in t.factors)}


def chain_of(subscripts: list[list[Term]], mentions_iterator: Callable[[c_ast.Node], bool]) -> list[tuple[str, ...]] | None:
    """The chain of an array whose subscripts expand to ``subscripts`` (outermost
    monomial first, ending with ``()``): the monomials that multiply an iterator. None
    when there is none (the subscripts are affine: nothing to do) or when they do not
    form a chain. A monomial without an iterator is folded into a dimension by
    ``grouped`` (``(n - 1 - i) * n`` is row ``n - 1 - i``)."""
    monomials = iterator_monomials(subscripts, mentions_iterator)
    if not monomials:
        return None
    chain = sorted(monomials | {()}, key=len, reverse=True)
    for outer, inner in zip(chain, chain[1:]):
        if len(_quotient(outer, inner) or ()) != 1:
            return None
    return chain


def dimension_sizes(chain: list[tuple[str, ...]]) -> list[str]:
    """The size parameter of each inner dimension: ``["m", "n"]`` for
    ``[("m", "n"), ("n",), ()]``."""
    return [_quotient(outer, inner)[0] for outer, inner in zip(chain, chain[1:])]


def grouped(terms: list[Term], chain: list[tuple[str, ...]],
            mentions_iterator: Callable[[c_ast.Node], bool],
            size_node: Callable[[str], c_ast.Node] = c_ast.ID) -> list[c_ast.Node] | None:
    """One subscript expression per dimension of ``chain`` (the coefficient of its
    monomial), or None when a term fits no dimension: a term whose monomial is a chain
    monomial times one more size, with no iterator, becomes that size in the
    dimension (``A[n * m + i * n + j]`` with chain ``[("n",), ()]``: ``(m + i, j)``).
    ``size_node``: the expression of a size by its name."""
    groups: list[list[c_ast.Node]] = [[] for _ in chain]
    for term in terms:
        factors = term.factors
        if term.sizes in chain:
            k = chain.index(term.sizes)
        else:
            if any(mentions_iterator(f) for f in factors):
                return None
            fits = [k for k, monomial in enumerate(chain) if len(_quotient(term.sizes, monomial) or ()) == 1]
            if not fits:
                return None
            k = fits[0]
            factors = factors + (size_node(_quotient(term.sizes, chain[k])[0]),)
        groups[k].append(_signed(term.sign, _product(factors)))
    return [_sum(parts) for parts in groups]


def _quotient(outer: tuple[str, ...], inner: tuple[str, ...]) -> tuple[str, ...] | None:
    """``outer / inner`` as a sorted monomial, None unless ``inner`` divides ``outer``."""
    rest = Counter(outer)
    rest.subtract(Counter(inner))
    if any(v < 0 for v in rest.values()):
        return None
    return tuple(sorted(rest.elements()))


def _folded(op: str, operands, empty: str) -> c_ast.Node:
    """``a op b op ...`` as a pycparser tree (the constant ``empty`` for no operand)."""
    if not operands:
        return c_ast.Constant("int", empty)
    node = operands[0]
    for operand in operands[1:]:
        node = c_ast.BinaryOp(op, node, operand)
    return node


def _product(factors: tuple[c_ast.Node, ...]) -> c_ast.Node:
    return _folded("*", factors, "1")


def _signed(sign: int, node: c_ast.Node) -> c_ast.Node:
    return node if sign > 0 else c_ast.UnaryOp("-", node)


def _sum(parts: list[c_ast.Node]) -> c_ast.Node:
    return _folded("+", parts, "0")
