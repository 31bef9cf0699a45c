"""A statement as the matcher sees it: loops, an expression tree, and one affine access
matrix per array reference (its coefficients on the statement's loops).

For ``S1[i, k, j]`` with body ``C[i][j] += alpha * A[i][k] * B[k][j]``::

    loops   ["i", "k", "j"]                   (the domain's set dimensions)
    tree    ("=", ref0, ("+", ref1, ("*", ("*", ref2, ref3), ref4)))
    refs    ref0 = C, rows [[1,0,0],[0,0,1]]  from { S1[i, k, j] -> C[i, j] }
            ref2 = alpha, rows []             from { S1[i, k, j] -> alpha[] }

Compound assignments are normalised (``x op= e`` is ``x = x op e``), so an intrinsic
written with ``+=`` matches ``x = x + e`` and, by commutativity, ``x = e + x``.
Parameter and constant parts of a subscript are dropped: the matcher compares only
the coefficients of loops. Subscripts are read with isl (``{ S[i, k, j] -> A[i, k] }``)
from the statement's own text; one that isl cannot read makes the statement
unmatchable (``Pattern.error``).

A one-dimensional reference with constant strides (``C[i * M + j]`` with ``#define M
192``, which the front end folds to ``{ S[i, j, k] -> C[192i + j] }``) is read as the
element ``(i, j)`` of a row-major view of rows of 192 (``Ref.sizes``) when isl proves
that, over the statement's domain, the part inside a row stays in it
(:func:`constant_rows`); a call then gets the row size as leading dimension.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast, c_generator, c_parser

from polysched.dependence import reduced_cell
from polysched.islutil import val
from polysched.scop import Scop, Statement

COMMUTATIVE = ("+", "*")
_TYPE_ALIASES = {
    "int": "int32_t", "signed int": "int32_t", "signed": "int32_t", "unsigned": "uint32_t",
    "unsigned int": "uint32_t", "signed char": "int8_t", "unsigned char": "uint8_t",
    "short": "int16_t", "unsigned short": "uint16_t", "long long": "int64_t",
    "float": "float", "double": "double",
}


def normalize_type(c_type: str) -> str:
    """``"unsigned char"`` -> ``"uint8_t"``; qualifiers dropped."""
    words = [w for w in c_type.replace("const", " ").replace("volatile", " ")
             .replace("restrict", " ").split() if w]
    text = " ".join(words)
    return _TYPE_ALIASES.get(text, text)


@dataclass(frozen=True)
class Ref:
    """One array (or scalar) reference: ``rows[d][p]`` is the coefficient of loop ``p``
    in subscript ``d``."""

    array: str
    rows: tuple[tuple[int, ...], ...]
    text: str
    # the extents of a one-dimensional reference read as a row-major view (``("", "192")``,
    # see :func:`constant_rows`); None: the array's own (``Array.dims``)
    sizes: tuple[str, ...] | None = None

    def extents(self, array) -> list[str]:
        """The extents the reference's subscripts index (C text): its view's, or
        ``array``'s declared ones; a call's strides are products of the later ones."""
        return list(self.sizes) if self.sizes is not None else array.dims


@dataclass
class Pattern:
    """Loops, expression tree and references of one statement (see module doc).
    Tree nodes: ``("ref", n)`` (index into ``refs``), ``("const", text)``,
    ``(op, child, ...)`` for operators, ``("cast", type, child)``, ``("call", name, ...)``;
    the root is ``("=", ("ref", n), rhs)``."""

    statement: str
    loops: list[str]
    tree: tuple | None
    refs: list[Ref] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)      # array -> normalised type
    ranks: dict[str, int] = field(default_factory=dict)      # array -> declared rank
    error: str = ""

    def nodes(self) -> list[tuple]:
        """Every node of ``tree``, parents before children (the matcher's node ids)."""
        out: list[tuple] = []

        def walk(node):
            out.append(node)
            if node[0] not in ("ref", "const"):
                for child in children(node):
                    walk(child)
        if self.tree is not None:
            walk(self.tree)
        return out


def children(node: tuple) -> tuple:
    """The operand subtrees of a tree node."""
    if node[0] in ("ref", "const"):
        return ()
    if node[0] in ("cast", "call"):
        return node[2:]
    return node[1:]


def label(node: tuple) -> tuple:
    """What two nodes must share to match: kind, operator / type / value, arity."""
    if node[0] == "ref":
        return ("ref",)
    if node[0] == "const":
        return node
    if node[0] in ("cast", "call"):
        return (node[0], node[1], len(node) - 2)
    return (node[0], len(node) - 1)


class _Unsupported(Exception):
    pass


def constant_rows(subscript: isl.Aff, domain: isl.Set) -> tuple[list[isl.Aff], list[int]]:
    """The one-dimensional ``subscript`` ``e`` as the subscripts of a row-major view with
    constant row sizes: ``(affs, sizes)``, outermost first, ``sizes`` the extents of all
    dimensions but the first.

    ``e = c * r + q`` with ``c`` the absolute value of a loop's coefficient, ``q`` the
    loops whose coefficients ``c`` does not divide, the parameters and a constant
    congruent to ``e``'s modulo ``c`` (the one putting q's minimum in ``[0, c)``), and
    ``r = (e - q) / c`` the rest; it holds when

        domain ⊆ { S[x] : 0 <= q(x) < c }

    for then ``(r, q)`` is the element at address ``e`` of rows of ``c``, and distinct
    elements of the view are distinct addresses (a call may hold them in distinct
    registers). ``r`` is split again the same way (``A[(b * M + i) * K + k]``: planes
    of rows). Row sizes are tried smallest first, each only when ``q`` involves a loop.
    ``{ S[i, j] -> [192i + j] }`` on ``{ S[i, j] : 0 <= j < 192 }`` gives ``([i, j],
    [192])``; with ``j < 194``, ``([192i + j], [])`` (rows would overlap: no view)."""
    affs, sizes = [subscript], []
    while True:
        split = _row_split(affs[0], domain)
        if split is None:
            return affs, sizes
        r, q, c = split
        affs[:1] = [r, q]
        sizes.insert(0, c)


def _row_split(e: isl.Aff, domain: isl.Set) -> tuple[isl.Aff, isl.Aff, int] | None:
    """``(r, q, c)`` of one step of :func:`constant_rows`, or None."""
    if e.dim(isl.dim_type.div) or not e.get_denominator_val().is_one():
        return None
    e = e.align_params(domain.get_space())
    loops = range(e.dim(isl.dim_type.in_))
    coefficients = [int(e.get_coefficient_val(isl.dim_type.in_, p).to_python()) for p in loops]
    constant = int(e.get_constant_val().to_python())
    for c in sorted({abs(v) for v in coefficients if abs(v) > 1}):
        if all(v % c == 0 for v in coefficients):
            continue        # no loop inside a row: the view would add nothing
        q = e.set_constant_val(val(constant % c))
        for p, v in enumerate(coefficients):
            if v % c == 0:
                q = q.set_coefficient_val(isl.dim_type.in_, p, isl.Val(0))
        # the rows may start at another multiple of c (``C[i * M + j - 1]`` for 1 <= j
        # <= M: q = j - 1, not j + M - 1): shift q by whole rows to start in [0, c)
        low = domain.min_val(q)
        if low.is_int():
            q = q.add_constant_val(val(-c * (int(low.to_python()) // c)))
        q_pw = isl.PwAff.from_aff(q)
        inside = q_pw.nonneg_set().intersect(q_pw.neg().add_constant_val(val(c - 1)).nonneg_set())
        if domain.is_subset(inside):
            return e.sub(q).scale_down_val(val(c)), q, c
    return None


# the <stdint.h>/<stddef.h> names a statement may cast to ("(int32_t)A8[i][k]"): the
# parser must know them as type names
_TYPEDEFS = "".join(f"typedef int {name}; " for name in (
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "size_t", "ptrdiff_t", "intptr_t", "uintptr_t"))


@functools.lru_cache(maxsize=4096)
def _parse_body(body: str) -> c_ast.Node:
    """The statement ``body`` as a pycparser node, read once per text: matching asks
    for the pattern of a statement once per intrinsic and per band candidate, and
    nothing here changes the node."""
    text = _TYPEDEFS + "void __polysched_f(void) { " + body.strip().rstrip(";") + "; }"
    ast = c_parser.CParser().parse(text)
    block = ast.ext[-1].body.block_items
    if not block or len(block) != 1:
        raise _Unsupported("not one statement")
    return block[0]


def statement_pattern(scop: Scop, stmt: Statement, description: bool = False) -> Pattern:
    """The :class:`Pattern` of ``stmt``; ``error`` says why it has none.
    ``description``: ``stmt`` is an intrinsic's semantics, not the program's (whose
    out-parameters a parallel loop may reduce in a copy, and are not matched)."""
    loops = list(stmt.iterators)
    pattern = Pattern(stmt.name, loops, None)
    for array in scop.arrays.values():
        pattern.types[array.name] = normalize_type(array.element_type)
        pattern.ranks[array.name] = len(array.dims)
    # calls take a base and leading dimensions from the declared shape and name (of a
    # linearised array, ``A[i * n + k]``: its text and its row sizes)
    for array in (scop.arrays[name] for name in sorted({a.array for a in stmt.accesses})):
        if array.text:
            pattern.error = f"'{array.c_text}' is a struct member: not matched"
            return pattern
        if not description and reduced_cell(scop, array.name):
            # a parallel loop around the call may reduce it in a copy, which the call
            # would not update (emit_c's cell reductions)
            pattern.error = f"'*{array.c_text}' is one element, an out-parameter: not matched"
            return pattern
        if "" in array.dims[1:]:
            # a call takes a base address and a fixed distance between rows
            pattern.error = f"'{array.c_text}' is reached through a pointer per row: not matched"
            return pattern
    if any(a.kind == "may_write" for a in stmt.accesses):
        pattern.error = "a conditional statement (its writes may not happen): not matched"
        return pattern
    try:
        node = _parse_body(stmt.body)
        pattern.tree = _Builder(scop, stmt, pattern).statement(node)
    except _Unsupported as err:
        pattern.error = str(err)
    except Exception as err:     # pycparser or isl could not read it: not matchable
        pattern.error = f"cannot read the statement: {err}"
    return pattern


class _Builder:
    def __init__(self, scop: Scop, stmt: Statement, pattern: Pattern):
        self.scop = scop
        self.stmt = stmt
        self.pattern = pattern
        self.gen = c_generator.CGenerator()
        self.params = ", ".join(scop.parameters)

    def statement(self, node) -> tuple:
        if not isinstance(node, c_ast.Assignment):
            raise _Unsupported("not an assignment")
        lhs = self.expr(node.lvalue)
        if lhs[0] != "ref":
            raise _Unsupported("the left-hand side is not an array element or scalar")
        rhs = self.expr(node.rvalue)
        if node.op != "=":
            op = node.op[:-1]
            rhs = (op, self.expr(node.lvalue), rhs)
        return ("=", lhs, rhs)

    def expr(self, node) -> tuple:
        if isinstance(node, (c_ast.ArrayRef, c_ast.ID)):
            return self.ref(node)
        if isinstance(node, c_ast.Constant):
            return ("const", node.value)
        if isinstance(node, c_ast.BinaryOp):
            return (node.op, self.expr(node.left), self.expr(node.right))
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "!", "~"):
            return ("u" + node.op, self.expr(node.expr))
        if isinstance(node, c_ast.Cast):
            to_type, child = normalize_type(self.gen.visit(node.to_type)), self.expr(node.expr)
            if to_type == "int32_t" and self._narrow_integer(child):
                return child        # what C's integer promotion does anyway: "(int32_t)A8[i][k]"
            return ("cast", to_type, child)
        if isinstance(node, c_ast.FuncCall):
            args = node.args.exprs if node.args else []
            return ("call", self.gen.visit(node.name)) + tuple(self.expr(a) for a in args)
        raise _Unsupported(f"unsupported expression {self.gen.visit(node)!r}")

    def _linearised(self, name: str) -> isl.PwMultiAff:
        """The subscripts of linearised ``name`` (``A[i * n + k]``, modelled as
        ``A[i, k]``; or ``A[i * K + k]`` with a ``#define`` size, modelled as ``A[160i +
        k]``): the front end's access relation, which every reference of the statement
        to ``name`` must share (the text alone is not affine)."""
        relations = [a.relation for a in self.stmt.accesses if a.array == name]
        if any(not r.is_equal(relations[0]) for r in relations[1:]):
            raise _Unsupported(f"linearised '{name}' is referenced at several elements")
        relation = relations[0].gist_domain(relations[0].domain())     # (one piece, not the domain's)
        try:
            return isl.PwMultiAff.from_map(relation)
        except isl.Error:
            raise _Unsupported(f"subscript of {name} is not affine for isl") from None

    def _narrow_integer(self, tree: tuple) -> bool:
        """``tree`` is a reference to an integer array narrower than ``int``."""
        if tree[0] != "ref":
            return False
        return self.pattern.types.get(self.pattern.refs[tree[1]].array) in ("int8_t", "uint8_t", "int16_t", "uint16_t")

    def ref(self, node) -> tuple:
        subscripts = []
        while isinstance(node, c_ast.ArrayRef):
            subscripts.append(self.gen.visit(node.subscript))
            node = node.name
        if not isinstance(node, c_ast.ID):
            raise _Unsupported("array reference through an expression")
        name = node.name
        if name not in self.scop.arrays:
            # a loop iterator or parameter used as a value
            return ("const", name)
        subscripts.reverse()
        loops = self.pattern.loops
        array = self.scop.arrays[name]
        if array.linearized:
            pma = self._linearised(name)
        else:
            text = (f"[{self.params}] -> {{ {self.stmt.name}[{', '.join(loops)}] -> "
                    f"{name}[{', '.join(subscripts)}] }}")
            try:
                pma = isl.PwMultiAff.from_map(isl.Map(text))
            except isl.Error:
                if len(array.dims) != 1 or len(subscripts) != 1:
                    raise _Unsupported(f"subscript of {name} is not affine for isl") from None
                # a product of sizes the front end folded (``C[i * M + j]`` with a
                # #define M): its relation has the constant stride
                pma = self._linearised(name)
        if pma.n_piece() != 1:
            raise _Unsupported(f"subscript of {name} is piecewise")
        affs = []
        for d in range(pma.dim(isl.dim_type.out)):
            pieces = pma.get_pw_aff(d).get_pieces()
            if len(pieces) != 1:
                raise _Unsupported(f"subscript of {name} is piecewise")
            aff = pieces[0][1]
            # a floor (``A[i / 2]``) is a local variable of the aff, not a coefficient:
            # the row would say the subscript does not vary along i
            if aff.dim(isl.dim_type.div) or not aff.get_denominator_val().is_one():
                raise _Unsupported(f"subscript of {name} has a division")
            affs.append(aff)
        sizes = None
        if not array.linearized and len(array.dims) == 1 and len(affs) == 1:
            # the view holds where the optimized code runs: the checked context
            domain = self.stmt.domain.intersect_params(self.scop.context)
            affs, row_sizes = constant_rows(affs[0], domain)
            if row_sizes:
                sizes = ("",) + tuple(str(c) for c in row_sizes)
        rows = []
        for aff in affs:
            row = []
            for p in range(len(loops)):
                row.append(int(aff.get_coefficient_val(isl.dim_type.in_, p).to_python()))
            rows.append(tuple(row))
        index = len(self.pattern.refs)
        self.pattern.refs.append(Ref(name, tuple(rows), self.gen.visit(node) +
                                     "".join(f"[{s}]" for s in subscripts), sizes))
        return ("ref", index)
