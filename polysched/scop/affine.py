"""C expressions -> isl piecewise affine functions and sets.

An expression in an affine position (loop bound, subscript, ``if`` condition) is
converted over the space of the enclosing loop iterators, e.g. for ``i < N - 1`` under
loops ``i, j``: ``[N] -> { [i, j] : i < N - 1 }``. Size macros and ``int`` parameters
become isl parameters; other macros are expanded (function-like ones with their actual
arguments) and parsed; ternaries become piecewise functions (``min``/``max`` when
recognisable; ``x <= min(a, b)`` becomes ``x <= a and x <= b``, one convex piece); C
division and remainder truncate toward zero and are modelled exactly (``floor`` when
the dividend is provably non-negative, ``tdiv_q``/``tdiv_r`` otherwise). A size macro
multiplying or dividing an iterator (``i * M``) is read as its known value, reported
through ``on_fixed`` so that the scop assumes (and its code checks) that value.
Long sums are walked in loops, not recursion (thousands of terms).
"""
from __future__ import annotations

from typing import Callable

import islpy as isl
from pycparser import c_ast, c_generator

from polysched.islutil import val

from .unsigned import INTEGER_CONSTANT_TYPES, comparison_width, integer_range, unsigned_width_of
from .macros import MacroTable, char_literal_value, int_literal_value

_GEN = c_generator.CGenerator()
_CMP = {"<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set", "==": "eq_set", "!=": "ne_set"}


# C integer constants in affine positions must fit in a signed 64-bit integer (a wider
# literal changes type and wraps in C; isl itself has arbitrary precision).
INT64_MAX = 2 ** 63 - 1


def parameters_at_least(space: isl.Space, lowest: int, names=None) -> isl.Set:
    """``[p, q, ...] -> { : p >= lowest and q >= lowest ... }`` for the parameters of
    ``space`` (those in ``names`` only, when given)."""
    params = space.params()
    ctx = isl.Set.universe(params)
    for k in range(params.dim(isl.dim_type.param)):
        if names is None or params.get_dim_name(isl.dim_type.param, k) in names:
            ctx = ctx.lower_bound_val(isl.dim_type.param, k, val(lowest))
    return ctx


def positive_parameters(space: isl.Space) -> isl.Set:
    """``[p, q, ...] -> { : p >= 1 and q >= 1 ... }``: every parameter a size."""
    return parameters_at_least(space, 1)


def parameter_names(obj) -> set[str]:
    """The parameters ``obj`` (an isl set, map or piecewise expression) depends on."""
    space = obj.get_space()
    return {space.get_dim_name(isl.dim_type.param, k) for k in range(space.dim(isl.dim_type.param))
            if obj.involves_dims(isl.dim_type.param, k, 1)}


def _affine_c_text(terms: list[tuple[int, str]], constant: int) -> str:
    """``sum(c * name) + constant`` as C in ``long long``: every variable is cast, so
    that no ``int`` sum overflows and no ``unsigned`` one wraps (``un <= -1`` is true
    in C for an unsigned ``un``; ``(long long) un <= -1`` is not)."""
    parts = [(c, f"(long long) {name}") for c, name in terms if c]
    parts += [(constant, "")] if constant or not parts else []
    text = ""
    for k, (c, name) in enumerate(parts):
        magnitude = abs(c)
        literal = str(magnitude) if magnitude < 2 ** 31 else f"{magnitude}LL"
        term = literal if not name else name if magnitude == 1 else f"{literal} * {name}"
        text += (("-" if c < 0 else "") if k == 0 else (" - " if c < 0 else " + ")) + term
    return text


def _terms(obj, kind) -> list[tuple[int, str]] | None:
    """The terms of ``obj`` (an isl Aff or Constraint) over its ``kind`` variables, its
    parameters and its divisions, as (coefficient, C text); None for a rational
    coefficient, a nameless variable or a division inside a division."""
    def integer(value: isl.Val) -> int | None:
        return int(value.to_python()) if value.is_int() else None

    terms = []
    for dim in (kind, isl.dim_type.param):
        for k in range(obj.dim(dim)):
            c, name = integer(obj.get_coefficient_val(dim, k)), obj.get_dim_name(dim, k)
            if c is None or name is None:
                return None
            terms.append((c, name))
    for k in range(obj.dim(isl.dim_type.div)):
        c = integer(obj.get_coefficient_val(isl.dim_type.div, k))
        if c is None:
            return None
        if not c:
            continue
        # floor(e / d): e's coefficients are those of the division times d
        division = obj.get_div(k)
        d = division.get_denominator_val()
        numerator = division.scale_val(d)
        inner = _terms(numerator, isl.dim_type.in_)
        constant = integer(numerator.get_constant_val())
        if inner is None or constant is None or any(
                not numerator.get_coefficient_val(isl.dim_type.div, j).is_zero()
                for j in range(numerator.dim(isl.dim_type.div))):
            return None
        e, d = _affine_c_text(inner, constant), int(d.to_python())
        if d == 1 or not any(c for c, _ in inner):
            terms.append((c, f"({e})" if d == 1 else str(constant // d)))
            continue
        # C's '/' truncates: below 0, floor(e / d) is (e - (d - 1)) / d, computed exactly
        terms.append((c, f"({e} >= 0 ? ({e}) / {d} : ({e} - {d - 1}) / {d})"))
    return terms


# an exit value longer than this is refused, not written into every statement that
# reads it (a loop bounded by six mins and maxes gave 23,000 characters, and a loop
# starting there 143,000 and two minutes of extraction)
MAX_VALUE_TEXT = 1500


def pw_aff_c_text(value: isl.PwAff) -> str | None:
    """``value`` (over named iterators and parameters) as a side-effect-free C
    expression in ``long long``, a ternary per piece: ``[n] -> { [i] -> [(n)] : n > i;
    [i] -> [(i)] : n <= i }`` gives ``((long long) n >= (long long) i + 1 ? (long long)
    n : (long long) i)``; ``floor(e / 2)`` is ``(e >= 0 ? (e) / 2 : (e - 1) / 2)``. None
    where a coefficient is rational, a division holds another or the text would be
    longer than MAX_VALUE_TEXT."""
    context = value.domain()
    pieces = value.coalesce().get_pieces()
    if not pieces:
        return None
    texts: list[str] = []
    for k, (where, aff) in enumerate(pieces):
        terms = _terms(aff, isl.dim_type.in_)
        if terms is None or not aff.get_constant_val().is_int():
            return None
        result = _affine_c_text(terms, int(aff.get_constant_val().to_python()))
        if k == len(pieces) - 1:        # the pieces cover the domain: the last needs no test
            texts.append(result)
            break
        alternatives = []
        for piece in where.gist(context).get_basic_sets():
            tests = []
            for constraint in piece.get_constraints():
                terms = _terms(constraint, isl.dim_type.set)
                if terms is None:
                    return None
                constant = int(constraint.get_constant_val().to_python())
                # 'positive terms >= negative terms - constant' reads as the source would
                left = [(c, name) for c, name in terms if c > 0]
                right = [(-c, name) for c, name in terms if c < 0]
                if not left:
                    left, right, constant = right, left, -constant
                    relation = "==" if constraint.is_equality() else "<="
                else:
                    relation = "==" if constraint.is_equality() else ">="
                tests.append(f"{_affine_c_text(left, 0)} {relation} {_affine_c_text(right, -constant)}")
            alternatives.append(" && ".join(tests) or "1")
        condition = " || ".join(f"({test})" if len(alternatives) > 1 else test for test in alternatives)
        texts.append(f"{condition} ? {result} : ")
        if sum(map(len, texts)) > MAX_VALUE_TEXT:
            return None
    text = "(" + "".join(texts) + ")"
    return text if len(text) <= MAX_VALUE_TEXT else None


_BYTES = {"char": 1, "_Bool": 1, "bool": 1, "short": 2, "int": 4, "float": 4, "long": 8, "double": 8,
          "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
          "int64_t": 8, "uint64_t": 8, "size_t": 8, "ssize_t": 8, "ptrdiff_t": 8, "intptr_t": 8,
          "uintptr_t": 8}


def type_size(c_type: str) -> int | None:
    """``sizeof`` of a basic C type (LP64: x86-64 and aarch64 Linux), or None."""
    words = [w for w in c_type.split() if w not in ("const", "volatile", "signed", "unsigned", "static")]
    if words == ["long", "double"]:
        return 16
    if "long" in words and set(words) <= {"long", "int"}:
        return 8                                  # long, long int, long long
    if len(words) > 1 and "int" in words:
        words = [w for w in words if w != "int"]  # short int, ...
    if not words:
        return 4                                  # "unsigned" alone is an int
    return _BYTES.get(words[0]) if len(words) == 1 else None


def basic_type_size(node: c_ast.Node) -> int | None:
    """:func:`type_size` of a type name of a basic type (``sizeof(double)``'s operand),
    which on LP64 is its alignment too; None for any other node."""
    if isinstance(node, c_ast.Typename) and isinstance(node.type, c_ast.TypeDecl):
        return type_size(_GEN.visit(node))
    return None


MAX_TABLE = 64      # constants of a table whose elements a subscript may read (table_element)


def assignment_target(node: c_ast.Node) -> c_ast.Node | None:
    """What ``node`` writes when it is an assignment (``lvalue = e``, ``lvalue += e``) or
    a step (``++``/``--``): its lvalue; else None."""
    if isinstance(node, c_ast.Assignment):
        return node.lvalue
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
        return node.expr
    return None


def array_root(ref: c_ast.ArrayRef) -> str | None:
    """``A`` of ``A[i][j]``; None for a computed base."""
    while isinstance(ref, c_ast.ArrayRef):
        ref = ref.name
    return ref.name if isinstance(ref, c_ast.ID) else None


class NotAffine(Exception):
    """Raised with the offending node and a one-sentence message; the extractor turns
    it into a ScopError at the node's original position. ``written``: the variable
    the region writes that the expression reads, when that is the reason."""

    def __init__(self, node: c_ast.Node, message: str, written: str | None = None):
        super().__init__(message)
        self.node = node
        self.message = message
        self.written = written


class AffineConverter:
    """Converts pycparser expressions over ``iterators`` (the set dimensions).

    ``classify(name, node)`` tells what an identifier that is neither an iterator nor a
    macro is: it returns None when it may be a parameter, else raises NotAffine.
    ``parse_expression(text, site)`` parses macro-expansion text to a pycparser node.
    ``on_parameter(name, value)`` is called for every parameter met.
    """

    def __init__(self, iterators: list[str], domain: isl.Set, macros: MacroTable,
                 classify: Callable[[str, c_ast.Node], None],
                 parse_expression: Callable[[str, c_ast.Node], c_ast.Node],
                 on_parameter: Callable[[str, int | None], None],
                 alias: Callable[[str], c_ast.Node | None] | None = None,
                 on_fixed: Callable[[str, int], None] | None = None,
                 on_range: Callable[[isl.PwAff, int, int], None] | None = None,
                 type_of: Callable[[str], str | None] | None = None,
                 size_of: Callable[[c_ast.Node], int | None] | None = None,
                 enumerator: Callable[[str], int | None] | None = None,
                 on_sizes: Callable[[set[str]], None] | None = None,
                 table: Callable[[str], tuple[int, ...] | None] | None = None,
                 not_a_table: Callable[[str], str] | None = None):
        self.iterators = iterators
        self.domain = domain
        # ``table(name)``: the values of a table of integer constants nothing writes
        # (``const int dx[4] = {0, 1, 0, -1};``), else None: ``dx[e]`` is then the
        # piecewise constant ``{ [..] -> [v_k] : e = k }``, wherever e stays in the table
        self.table = table
        self.not_a_table = not_a_table      # ``not_a_table(name)``: why table(name) is None
        self.universe = isl.Set.universe(domain.get_space())
        self.macros = macros
        self.classify = classify
        self.parse_expression = parse_expression
        self.on_parameter = on_parameter
        # ``alias(name)``: the affine initialiser standing for a block-scope integer
        # (``int ii = i + 1;``, never assigned), else None
        self.alias = alias
        # ``on_fixed(macro, value)``: a size macro's known value was used as a constant
        # (``i * M``, ``i % M``); without it such expressions are not affine
        self.on_fixed = on_fixed
        self._fixing: dict[str, int] | None = None     # macros read as their values
        # ``on_range(value, low, high)``: the model (exact integers) computes what C
        # computes only where ``low <= value <= high`` wherever it is evaluated: a cast
        # to a narrower integer type, unsigned arithmetic (modulo 2**w). The caller
        # turns that into an assumption on the parameters (checked at run time).
        # ``type_of(name)``: the C type of a variable, to tell unsigned arithmetic.
        self.on_range = on_range
        self._kinds = {}        # the C types of the subexpressions seen (unsigned.value_kind)
        # the unsigned width of the sum or product being converted when its operands are
        # (see `pw_aff`): None outside one, or where the operand is not a term of it
        self._ring_width: int | None = None
        self.type_of = type_of
        # ``size_of(operand)``: what ``sizeof operand`` is when the compiler knows it
        # (an array with constant sizes, a type), else None
        self.size_of = size_of
        # ``enumerator(name)``: the value of an enumeration constant the region sees
        # (a constant of the program, unlike a macro that -D can change), else None
        self.enumerator = enumerator
        # ``on_sizes(names)``: the conversion assumed these parameters >= 1 (the context
        # gives other parameters >= 0 only)
        self.on_sizes = on_sizes

    # -- values -------------------------------------------------------------------
    def constant(self, value: int) -> isl.PwAff:
        return isl.PwAff.val_on_domain(self.universe, val(value))

    def pw_aff(self, node: c_ast.Node, site: c_ast.Node | None = None, hide: frozenset = frozenset()) -> isl.PwAff:
        """``node`` as ``[params] -> { [iterators] -> [(expr)] }``; ``site`` is the
        node in the region a macro expansion came from (errors point there)."""
        # Unsigned sums, differences and products agree with the exact ones modulo 2^w:
        # inside a tree of them computed in one unsigned type only the whole needs to lie
        # in [0, 2^w - 1] (`u - n + 3` with u < n: the difference wraps, the sum is right).
        outer, self._ring_width = self._ring_width, None
        try:
            if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*") and self.type_of is not None:
                width = unsigned_width_of(node, self.type_of, self._kinds)
                if width is not None:
                    self._ring_width = width
                    value = self.binary(node, site, hide)
                    self._ring_width = None
                    return value if outer == width else self.in_unsigned_range(node, value)
            return self._pw_aff(node, site, hide)
        finally:
            self._ring_width = outer

    def _pw_aff(self, node: c_ast.Node, site: c_ast.Node | None, hide: frozenset) -> isl.PwAff:
        where = site or node
        if isinstance(node, c_ast.Constant):
            if node.type == "char":
                value = char_literal_value(node.value)           # an int in C
                if value is None:
                    raise NotAffine(where, f"character constant {node.value} in an affine expression (only plain "
                                           f"ASCII ones: the value of escapes may depend on the machine)")
                return self.constant(value)
            if node.type in INTEGER_CONSTANT_TYPES or \
                    int_literal_value(node.value) is not None:
                value = int_literal_value(node.value)
                if value is not None:
                    if value > INT64_MAX:
                        raise NotAffine(where, f"integer constant '{node.value}' is past 2**63 - 1, the range "
                                               f"of the loop code's long long arithmetic")
                    return self.constant(value)
            raise NotAffine(where, f"non-integer constant '{node.value}' in an affine expression")
        if isinstance(node, c_ast.ID):
            return self.identifier(node.name, where, hide)
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "-":
                return self.in_unsigned_range(node, self.pw_aff(node.expr, site, hide).neg())
            if node.op == "+":
                return self.pw_aff(node.expr, site, hide)
            if node.op == "~":          # two's complement: ~x is -x - 1 (2**w - 1 - x unsigned)
                value = self.pw_aff(node.expr, site, hide).neg().add(self.constant(-1))
                width = unsigned_width_of(node, self.type_of, self._kinds) if self.type_of is not None else None
                if width is not None:
                    value = value.add(self.constant(2 ** width))
                return self.in_unsigned_range(node, value)
            if node.op == "sizeof":
                size = self.size_of(node.expr) if self.size_of is not None else None
                if size is None:
                    raise NotAffine(where, f"'{_GEN.visit(node)}' is not a size polysched knows "
                                           f"(an array with constant sizes or a basic type)")
                return self.constant(size)
            if node.op == "_Alignof":
                # a basic type's alignment is its size (LP64), long double's too (16)
                align = basic_type_size(node.expr)
                if align is None:
                    raise NotAffine(where, f"'{_GEN.visit(node)}' is not an alignment polysched knows "
                                           f"(a basic type's)")
                return self.constant(align)
            if node.op in ("++", "--", "p++", "p--"):
                # (helper-80: 'out[k++] = ...' was told "operator 'p++' is not allowed")
                raise NotAffine(where, f"'{_GEN.visit(node)}' changes a variable inside an expression: step it in "
                                       f"a statement of its own")
            raise NotAffine(where, f"operator '{node.op}' is not allowed in an affine expression")
        if isinstance(node, c_ast.BinaryOp):
            if node.op in ("/", "%", ">>"):     # C divides the operands as they wrapped
                self.in_unsigned_range(node, self.pw_aff(node.left, site, hide))
            return self.in_unsigned_range(node, self.binary(node, site, hide))
        if isinstance(node, c_ast.TernaryOp):
            return self.ternary(node, site, hide)
        if isinstance(node, c_ast.FuncCall):
            return self.call(node, site, hide)
        if isinstance(node, c_ast.Cast):
            type_text = _GEN.visit(node.to_type)
            bounds = integer_range(type_text)
            if bounds is None:
                raise NotAffine(where, f"cast to '{type_text}' in an affine expression")
            literal, sign = node.expr, 1.0
            while isinstance(literal, c_ast.UnaryOp) and literal.op in ("-", "+"):
                sign, literal = (-sign if literal.op == "-" else sign), literal.expr
            if isinstance(literal, c_ast.Constant) and literal.type in ("float", "double", "long double"):
                # '(int)2.9': an integer constant expression, the value truncated toward zero
                try:
                    number = sign * float(literal.value.rstrip("fFlL"))
                except ValueError:
                    raise NotAffine(where, f"constant '{literal.value}' in an affine expression") from None
                if number != number or not bounds[0] <= int(number) <= bounds[1]:
                    raise NotAffine(where, f"'{_GEN.visit(node)}' does not fit in '{type_text}'")
                return self.constant(int(number))
            value = self.pw_aff(node.expr, site, hide)
            if self.on_range is not None:       # exact where the value fits the type
                self.on_range(value, *bounds)
            return value
        if isinstance(node, c_ast.ArrayRef):
            values = self.table(node.name.name) if self.table is not None and isinstance(node.name, c_ast.ID) \
                else None
            if values is not None:
                return self.table_element(node, values, site, hide)
            root = array_root(node)
            why = self.not_a_table(root) if self.not_a_table is not None and root else ""
            raise NotAffine(where, f"data-dependent expression: '{_GEN.visit(node)}' reads an array element "
                                   "in a loop bound, subscript or condition" + why)
        if isinstance(node, c_ast.StructRef):
            raise NotAffine(where, "struct member access in an affine expression")
        raise NotAffine(where, f"'{_GEN.visit(node)}' is not an affine expression")

    def in_unsigned_range(self, node: c_ast.Node, value: isl.PwAff) -> isl.PwAff:
        """``value``, the model of ``node``; when C computes ``node`` in unsigned
        arithmetic of ``w`` bits, reported to ``on_range`` with ``[0, 2**w - 1]``: the
        exact value is C's there (sums and products agree modulo ``2**w``)."""
        if self.on_range is not None and self.type_of is not None:
            width = unsigned_width_of(node, self.type_of, self._kinds)
            if width is not None:
                self.on_range(value, 0, 2 ** width - 1)
        return value

    def compared(self, node: c_ast.BinaryOp, left: isl.PwAff, right: isl.PwAff) -> None:
        """C evaluates the comparison ``node`` in unsigned arithmetic of ``w`` bits when an
        operand is unsigned (``(-1) > sizeof(a) - 2`` is true): the model's comparison is
        C's where both sides lie in ``[0, 2**w - 1]``, reported to ``on_range``. Covers
        comparisons in ternaries and macro bodies (``MAX(-1, sizeof ...)`` in a bound)."""
        if self.on_range is not None and self.type_of is not None:
            width = comparison_width(node, self.type_of, self._kinds)
            if width is not None:
                self.on_range(left, 0, 2 ** width - 1)
                self.on_range(right, 0, 2 ** width - 1)

    def identifier(self, name: str, where: c_ast.Node, hide: frozenset) -> isl.PwAff:
        if name in self.iterators:
            pos = len(self.iterators) - 1 - self.iterators[::-1].index(name)
            return isl.PwAff.var_on_domain(isl.LocalSpace.from_space(self.universe.get_space()),
                                           isl.dim_type.set, pos)
        alias = self.alias(name) if self.alias is not None and name not in hide else None
        if alias is not None:
            return self.pw_aff(alias, where, hide | {name})
        macro = self.macros.get(name)
        if macro is not None and name not in hide:
            if macro.is_function_like:
                raise NotAffine(where, f"function-like macro '{name}' used without arguments")
            value = self.macros.integer_value(name)
            if value is None:
                expansion = self.parse_expression(macro.body, where)
                return self.pw_aff(expansion, where, hide | {name})
            if self._fixing is not None:
                self.on_parameter(name, value)
                self._fixing[name] = value
                return self.constant(value)
            return self.parameter(name, value)
        value = self.enumerator(name) if self.enumerator is not None else None
        if value is not None:
            return self.constant(value)
        self.classify(name, where)
        return self.parameter(name, None)

    def table_element(self, node: c_ast.ArrayRef, values: tuple[int, ...], site, hide) -> isl.PwAff:
        """``dx[e]`` of a constant table: ``values[k]`` where ``e = k``, for every point
        of the domain (where ``e`` could leave the table the source reads past its end:
        not affine)."""
        if len(values) > MAX_TABLE:
            raise NotAffine(site or node.subscript, f"'{_GEN.visit(node)}' reads a table of {len(values)} constants (at most "
                                   f"{MAX_TABLE} are read as the values they are)")
        index = self.pw_aff(node.subscript, site, hide)
        inside = index.ge_set(self.constant(0)).intersect(index.lt_set(self.constant(len(values))))
        if not self.domain.is_subset(inside) and not self.inside_at_known_sizes(inside):
            raise NotAffine(site or node.subscript, f"'{_GEN.visit(node)}' may read past the {len(values)} "
                                                    "constants of its table")
        result = None
        for k, value in enumerate(values):
            piece = self.constant(value).intersect_domain(index.eq_set(self.constant(k)))
            result = piece if result is None else result.union_add(piece)
        return result.coalesce()

    def inside_at_known_sizes(self, inside: isl.Set) -> bool:
        """Whether the domain lies in ``inside`` once some size macros are read as their
        known values (``q < Q`` with ``#define Q 5`` reads a table of 5): those are then
        reported to ``on_fixed`` (the scop assumes the values, its code checks them)."""
        if self.on_fixed is None:
            return False
        space = self.domain.get_space()
        known = {}
        for k in range(space.dim(isl.dim_type.param)):
            name = space.get_dim_name(isl.dim_type.param, k)
            value = self.macros.integer_value(name) if name in self.macros else None
            if value is not None:
                known[name] = value

        def holds(names) -> bool:
            fixed = self.domain
            for name in names:
                fixed = fixed.intersect_params(isl.Set(f"[{name}] -> {{ : {name} = {known[name]} }}"))
            return fixed.is_subset(inside)

        if not known or not holds(known):
            return False
        needed = list(known)
        for name in list(needed):          # only the macros it takes
            if holds([n for n in needed if n != name]):
                needed.remove(name)
        for name in needed:
            self.on_fixed(name, known[name])
        return True

    def parameter(self, name: str, value: int | None) -> isl.PwAff:
        self.on_parameter(name, value)
        # Named through the space (not isl.Id(name), which islpy gives a user pointer,
        # making it differ from the same name parsed from isl notation).
        space = self.universe.get_space()
        if space.find_dim_by_name(isl.dim_type.param, name) < 0:
            space = space.insert_dims(isl.dim_type.param, 0, 1).set_dim_name(isl.dim_type.param, 0, name)
        pos = space.find_dim_by_name(isl.dim_type.param, name)
        return isl.PwAff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.param, pos)

    def binary(self, node: c_ast.BinaryOp, site, hide) -> isl.PwAff:
        where = site or node
        op = node.op
        if op in ("+", "-"):
            # a long sum nests to the left as deep as it is long: walk it in a loop
            sums = []
            while isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
                sums.append(node)
                node = node.left
            result = self.pw_aff(node, site, hide)
            for k, partial in enumerate(reversed(sums)):
                value = self.pw_aff(partial.right, site, hide)
                result = result.add(value) if partial.op == "+" else result.sub(value)
                if k < len(sums) - 1 and (self._ring_width is None or self._ring_width != unsigned_width_of(
                        partial, self.type_of, self._kinds)):   # the whole sum is pw_aff's to check
                    # each partial sum has its own type: '3 - 5u' wraps even when
                    # the long 'j' added next makes the whole sum long
                    result = self.in_unsigned_range(partial, result)
            return result
        if op == "*":
            left, right = self.pw_aff(node.left, site, hide), self.pw_aff(node.right, site, hide)
            if not (left.is_cst() or right.is_cst()):
                # 'i * M' with a size macro of known value: M as that constant (guarded)
                fixed = self.with_known_values(node.right, site, hide)
                if fixed is not None:
                    return left.mul(fixed)
                fixed = self.with_known_values(node.left, site, hide)
                if fixed is not None:
                    return fixed.mul(right)
                raise NotAffine(where, f"non-affine product '{_GEN.visit(node)}' (neither factor is a constant)")
            return left.mul(right)
        if op in ("/", "%"):
            left = self.pw_aff(node.left, site, hide)
            divisor = self.constant_value(self.pw_aff(node.right, site, hide))
            if divisor is None:
                fixed = self.with_known_values(node.right, site, hide)
                divisor = None if fixed is None else self.constant_value(fixed)
            if divisor is None or divisor == 0:
                raise NotAffine(where, f"'{_GEN.visit(node)}' divides by something other than a nonzero integer "
                                       f"constant")
            # C: a / -d is -(a / d) and a % -d is a % d (truncation is symmetric); in
            # unsigned arithmetic -d is a huge divisor instead
            if divisor < 0 and self.type_of is not None \
                    and unsigned_width_of(node, self.type_of, self._kinds) is not None:
                raise NotAffine(where, f"'{_GEN.visit(node)}' divides in unsigned arithmetic by a negated "
                                       "constant, which wraps to a huge divisor")
            negated, divisor = divisor < 0, abs(divisor)
            right = self.constant(divisor)
            # C truncates toward zero: floor is exact only for non-negative dividends
            # (on the domain, where every parameter is >= 1, and then the dividend's
            # parameters must stay sizes: ``(n - 1) / 2`` is floor for n >= 1 only).
            # The parameters kept sizes are the dividend's, or else all the domain's too:
            # in 'for (i = lo; ...)' the dividend i - 1 is negative at i = 0 only through
            # the loop's start lo (helper-13: lo = 0 ran a model of floor(-1 / 2) = -1).
            where_defined = self.domain.intersect_params(positive_parameters(left.get_space()))
            nonneg = where_defined.is_subset(left.nonneg_set())
            def nonneg_with_sizes(sizes: set[str]) -> bool:
                """Whether the dividend is non-negative when ``sizes`` are >= 1 and
                the other parameters (the domain's and its own) >= 0."""
                within = self.domain
                for space in (left.get_space(), self.domain.get_space()):
                    within = within.intersect_params(parameters_at_least(space, 0)) \
                        .intersect_params(parameters_at_least(space, 1, sizes))
                return within.is_subset(left.nonneg_set())

            if nonneg and not nonneg_with_sizes(set()):
                sizes = parameter_names(left)
                if not nonneg_with_sizes(sizes):
                    sizes = sizes | parameter_names(self.domain)
                if self.on_sizes is None:
                    nonneg = False          # no one to keep them sizes: truncate
                else:
                    self.on_sizes(sizes)
            if op == "/":
                quotient = left.scale_down_val(val(divisor)).floor() if nonneg else left.tdiv_q(right)
                return quotient.neg() if negated else quotient
            return left.mod_val(val(divisor)) if nonneg else left.tdiv_r(right)
        if op in ("<<", ">>"):
            left = self.pw_aff(node.left, site, hide)
            shift = self.constant_value(self.pw_aff(node.right, site, hide))
            if shift is None or not 0 <= shift < 31:
                raise NotAffine(where, f"'{_GEN.visit(node)}' shifts by something other than an integer "
                                       f"constant from 0 to 30")
            # a << k is a * 2**k (C leaves it undefined for negative a); a >> k is
            # floor(a / 2**k) (gcc shifts negative values arithmetically)
            factor = val(2 ** shift)
            return left.scale_val(factor) if op == "<<" else left.scale_down_val(factor).floor()
        if op in _CMP or op in ("&&", "||") or (op in ("&", "|", "^") and _is_boolean(node.left)
                                                 and _is_boolean(node.right)):
            return self.indicator(self.condition(node, site, hide))
        if op == "&":
            masked = self.masked(node, site, hide)
            if masked is not None:
                return masked
        if op == "^":
            flipped = self.flipped(node, site, hide)
            if flipped is not None:
                return flipped
        raise NotAffine(where, f"operator '{op}' is not allowed in an affine expression")

    def flipped(self, node: c_ast.BinaryOp, site, hide) -> isl.PwAff | None:
        """``x ^ (2**k - 1)`` as ``2**k - 1 - x`` where ``0 <= x < 2**k`` on the whole
        domain (a ping-pong buffer's other half, ``A[(t & 1) ^ 1]``: flipping every bit
        of ``x`` that can be set is subtracting it from the mask); None otherwise."""
        for value_side, mask_side in ((node.left, node.right), (node.right, node.left)):
            try:
                mask = self.constant_value(self.pw_aff(mask_side, site, hide))
            except NotAffine:
                continue
            if mask is None or mask < 0 or mask & (mask + 1):
                continue
            x = self.pw_aff(value_side, site, hide)
            within = x.ge_set(self.constant(0)).intersect(x.le_set(self.constant(mask)))
            if self.domain.is_subset(within):
                return self.constant(mask).sub(x)
            return None
        return None

    def masked(self, node: c_ast.BinaryOp, site, hide) -> isl.PwAff | None:
        """``x & (2**k - 1)`` as ``x mod 2**k`` and ``x & ~(2**k - 1)`` as ``x - x mod
        2**k`` (floor modulo: exact in two's complement for either sign, and for an
        unsigned ``x`` of ``w`` bits with the mask ``2**w - 2**k``); None for another
        mask."""
        width = unsigned_width_of(node, self.type_of, self._kinds) if self.type_of is not None else None
        for value_side, mask_side in ((node.left, node.right), (node.right, node.left)):
            try:
                mask = self.constant_value(self.pw_aff(mask_side, site, hide))
                if mask is None:        # i & (RB - 1), #define RB 16: RB at its value
                    fixed = self.with_known_values(mask_side, site, hide)
                    mask = None if fixed is None else self.constant_value(fixed)
            except NotAffine:
                continue
            if mask is None:
                continue
            if width is not None and mask >= 2 ** (width - 1):
                mask -= 2 ** width              # the same bits, as a negative mask
            x = self.pw_aff(value_side, site, hide)
            if mask >= 0 and mask & (mask + 1) == 0:
                return x.mod_val(val(mask + 1))
            if mask < 0 and (-mask) & (-mask - 1) == 0:
                return x.sub(x.mod_val(val(-mask)))
            return None
        return None

    def with_known_values(self, node: c_ast.Node, site, hide) -> isl.PwAff | None:
        """``node`` as a constant, reading size macros as their known values, when that
        makes it constant; the macros so read are reported to ``on_fixed`` (the scop
        then assumes those values, and its emitted code checks them). Else None."""
        if self.on_fixed is None or self._fixing is not None:
            return None
        self._fixing = {}
        try:
            value = self.pw_aff(node, site, hide)
        except NotAffine:
            return None
        else:
            if self.constant_value(value) is None or not self._fixing:
                return None
            for name, known in self._fixing.items():
                self.on_fixed(name, known)
            return self.constant(self.constant_value(value))
        finally:
            self._fixing = None

    def indicator(self, cond: isl.Set) -> isl.PwAff:
        one, zero = self.constant(1), self.constant(0)
        return one.intersect_domain(cond).union_add(zero.intersect_domain(cond.complement()))

    def constant_value(self, pa: isl.PwAff) -> int | None:
        """The integer value of a constant function, else None."""
        if not pa.is_cst() or not pa.isa_aff():
            return None
        constant = pa.as_aff().get_constant_val()
        if not constant.is_int():
            return None
        return int(constant.to_python())

    def ternary(self, node: c_ast.TernaryOp, site, hide) -> isl.PwAff:
        cond_node = node.cond
        a = self.pw_aff(node.iftrue, site, hide)
        b = self.pw_aff(node.iffalse, site, hide)
        if isinstance(cond_node, c_ast.BinaryOp) and cond_node.op in ("<", "<=", ">", ">="):
            left, right = _GEN.visit(cond_node.left), _GEN.visit(cond_node.right)
            t, f = _GEN.visit(node.iftrue), _GEN.visit(node.iffalse)
            smaller_first = cond_node.op in ("<", "<=")
            if (left, right) == (t, f):
                self.compared(cond_node, a, b)
                return a.min(b) if smaller_first else a.max(b)
            if (left, right) == (f, t):
                self.compared(cond_node, b, a)
                return a.max(b) if smaller_first else a.min(b)
        cond = self.condition(cond_node, site, hide)
        return a.intersect_domain(cond).union_add(b.intersect_domain(cond.complement()))

    def compare_extrema(self, node: c_ast.BinaryOp, site, hide) -> isl.Set | None:
        """``x <= min(a, b)`` as ``x <= a and x <= b`` (and ``max(a, b) < y``, mirrored for
        ``>``/``>=``): one convex piece instead of one piece per case of the minimum,
        which keeps the domains of tiled or guarded loops (``polysched_min(...)``) small.
        None when neither side is such an extremum."""
        small, large = (node.left, node.right) if node.op in ("<", "<=") else (node.right, node.left)
        op = "lt_set" if node.op in ("<", ">") else "le_set"
        lower = self.extremum_terms(small, "max", site, hide) or [(small, site, hide)]
        upper = self.extremum_terms(large, "min", site, hide) or [(large, site, hide)]
        if len(lower) == 1 and len(upper) == 1:
            return None
        result = None
        for l_node, l_site, l_hide in lower:
            left = self.pw_aff(l_node, l_site, l_hide)
            for u_node, u_site, u_hide in upper:
                right = self.pw_aff(u_node, u_site, u_hide)
                self.compared(node, left, right)
                part = getattr(left, op)(right)
                result = part if result is None else result.intersect(part)
        return result

    def extremum_terms(self, node: c_ast.Node, kind: str, site, hide) -> list[tuple] | None:
        """The operands ``(node, site, hide)`` of ``node`` if it is a ``kind`` ("min"
        or "max") of them: a ternary ``a < b ? a : b`` (or the mirrored forms), possibly
        written through function-like macros, nested extrema of the same kind
        flattened. None otherwise."""
        while isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            name = node.name.name
            macro = self.macros.get(name)
            if macro is None or not macro.is_function_like or name in hide:
                return None
            args = [_GEN.visit(a) for a in (node.args.exprs if node.args else [])]
            site = site or node
            node = self.parse_expression(self.macros.call_text(macro, args, True, hide), site)
            hide = hide | {name}
        if not isinstance(node, c_ast.TernaryOp) or not isinstance(node.cond, c_ast.BinaryOp) \
                or node.cond.op not in ("<", "<=", ">", ">="):
            return None
        left, right = _GEN.visit(node.cond.left), _GEN.visit(node.cond.right)
        t, f = _GEN.visit(node.iftrue), _GEN.visit(node.iffalse)
        smaller_first = node.cond.op in ("<", "<=")
        if (left, right) == (t, f):
            found = "min" if smaller_first else "max"
        elif (left, right) == (f, t):
            found = "max" if smaller_first else "min"
        else:
            return None
        if found != kind:
            return None
        if self.type_of is not None and comparison_width(node.cond, self.type_of, self._kinds):
            left, right = self.pw_aff(node.cond.left, site, hide), self.pw_aff(node.cond.right, site, hide)
            self.compared(node.cond, left, right)
        terms = []
        for operand in (node.iftrue, node.iffalse):
            terms += self.extremum_terms(operand, kind, site, hide) or [(operand, site, hide)]
        return terms

    def call(self, node: c_ast.FuncCall, site, hide) -> isl.PwAff:
        where = site or node
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        macro = self.macros.get(name) if name else None
        if macro is None or name in hide or (not macro.is_function_like and self.macros.integer_value(name) is not None):
            raise NotAffine(where, f"call of '{_GEN.visit(node.name)}' in a loop bound, subscript or condition "
                                   "(only macros with affine bodies, and functions of this file that are one "
                                   "'return' of int arithmetic on their int parameters, are allowed there)")
        args = [_GEN.visit(a) for a in (node.args.exprs if node.args else [])]
        if macro.is_function_like:
            text = self.macros.call_text(macro, args, True, hide)
        else:   # '-D F=min': the macro names the function-like macro (or function) to call
            text = f"{macro.body} ({', '.join(self.macros.expand(a, True, hide) for a in args)})"
        expansion = self.parse_expression(text, where)
        return self.pw_aff(expansion, where, hide | {name})

    # -- conditions ---------------------------------------------------------------
    def condition(self, node: c_ast.Node, site: c_ast.Node | None = None, hide: frozenset = frozenset()) -> isl.Set:
        """``node`` as the set of iterator values where it holds (non-zero)."""
        if isinstance(node, c_ast.BinaryOp):
            if node.op == "&&":
                return self.condition(node.left, site, hide).intersect(self.condition(node.right, site, hide))
            if node.op == "||":
                return self.condition(node.left, site, hide).union(self.condition(node.right, site, hide))
            if node.op in ("&", "|", "^") and _is_boolean(node.left) and _is_boolean(node.right):
                left, right = self.condition(node.left, site, hide), self.condition(node.right, site, hide)
                if node.op == "&":
                    return left.intersect(right)
                if node.op == "|":
                    return left.union(right)
                return left.subtract(right).union(right.subtract(left))
            if node.op in ("<", "<=", ">", ">="):
                split = self.compare_extrema(node, site, hide)
                if split is not None:
                    return split
            if node.op in _CMP:
                left, right = self.pw_aff(node.left, site, hide), self.pw_aff(node.right, site, hide)
                self.compared(node, left, right)
                return getattr(left, _CMP[node.op])(right)
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            return self.condition(node.expr, site, hide).complement()
        if isinstance(node, c_ast.TernaryOp):
            cond = self.condition(node.cond, site, hide)
            return cond.intersect(self.condition(node.iftrue, site, hide)).union(
                cond.complement().intersect(self.condition(node.iffalse, site, hide)))
        if isinstance(node, c_ast.ID) and node.name in self.macros and node.name not in hide \
                and self.macros.integer_value(node.name) is None and not self.macros.get(node.name).is_function_like:
            expansion = self.parse_expression(self.macros.get(node.name).body, site or node)
            return self.condition(expansion, site or node, hide | {node.name})
        return self.pw_aff(node, site, hide).non_zero_set()


def _is_boolean(node: c_ast.Node) -> bool:
    """Whether C gives ``node`` the value 0 or 1 (a comparison, ``!``, ``&&``, ``||``, or
    a bitwise ``&``/``|``/``^`` of such): bitwise operators on them are logical."""
    if isinstance(node, c_ast.UnaryOp) and node.op == "!":
        return True
    if isinstance(node, c_ast.BinaryOp):
        if node.op in _CMP or node.op in ("&&", "||"):
            return True
        if node.op in ("&", "|", "^"):
            return _is_boolean(node.left) and _is_boolean(node.right)
    return False
