"""Declarations visible from a SCoP: the enclosing function's parameters, its local
declarations before the region, and file-scope declarations.

Declaration text is macro-expanded with the file's macro table (integer size macros
kept as names, so ``DATA_TYPE POLYBENCH_2D(A, N, M, n, m)`` becomes ``double
A[N][M]``) and parsed piecewise with pycparser: one chunk per ``;``/brace-delimited
piece, chunks that are not declarations are skipped. System headers are never parsed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator, c_parser

from .affine import basic_type_size
from .macros import MacroTable, char_literal_value, int_literal_value
from .source import IDENT_RE, FunctionText, blank_strings, top_level_text
from .unsigned import SIZE_OPERATORS

# GCC's and Clang's extra floating types (pycparser knows none of them)
EXTRA_FLOATING_TYPES = ("_Float16 _Float32 _Float64 _Float128 _Float32x _Float64x __fp16 __bf16 __float80 "
                        "__float128").split()
# Typedef names commonly used without their headers being parsed.
COMMON_TYPEDEFS = (
    "size_t ssize_t ptrdiff_t intptr_t uintptr_t int8_t int16_t int32_t int64_t uint8_t "
    "uint16_t uint32_t uint64_t intmax_t uintmax_t FILE bool wchar_t __m128 __m256 __m512 __m128d __m256d "
    "__m512d __m128i __m256i __m512i"
).split() + EXTRA_FLOATING_TYPES
# <stdint.h>'s fastest and smallest integer types, as glibc defines them on LP64
# (x86-64 and aarch64 Linux): the basic type each one is
STDINT_TYPES = {
    "int_fast8_t": "signed char", "int_fast16_t": "long", "int_fast32_t": "long", "int_fast64_t": "long",
    "uint_fast8_t": "unsigned char", "uint_fast16_t": "unsigned long", "uint_fast32_t": "unsigned long",
    "uint_fast64_t": "unsigned long", "int_least8_t": "signed char", "int_least16_t": "short",
    "int_least32_t": "int", "int_least64_t": "long", "uint_least8_t": "unsigned char",
    "uint_least16_t": "unsigned short", "uint_least32_t": "unsigned int", "uint_least64_t": "unsigned long"}
_INTEGER_WORDS = {"char", "short", "int", "long", "signed", "unsigned", "_Bool", "bool", "size_t",
                  "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int8_t", "int16_t", "int32_t",
                  "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intmax_t", "uintmax_t"}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "static", "extern",
               "register", "inline", "auto"}
_TYPEDEF_RE = re.compile(r"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*(?:\[[^;]*\])?\s*;")
_GENERATOR = c_generator.CGenerator()
_RESTRICT_RE = re.compile(r"\b__restrict(?:__)?\b")


@dataclass
class Declaration:
    """A declared variable: ``element_type`` (``double``), declared ``dims`` as C text
    (``["N", "M"]``; a pointer level adds ``""``), and whether it is an integer scalar.

    ``origin`` is ``"global"``, ``"param"`` (a function parameter: an array parameter
    is a pointer in C) or ``"local"``; ``restrict`` is set when the outermost pointer
    level is ``restrict``-qualified (which rules out aliasing with other names)."""

    name: str
    element_type: str
    dims: list[str] = field(default_factory=list)
    origin: str = "global"
    restrict: bool = False
    # "volatile" or "_Atomic" at any level (else ""): the order and number of its
    # accesses are part of what the program does
    volatile: str = ""
    # declared 'static': a global no other file can name
    internal: bool = False
    # a struct member of some bits (int n : 12): no address of it, so no pointer reaches it
    bitfield: bool = False
    # a 'const' one-dimensional integer array initialised with integer literals (const
    # int dx[4] = {0, 1, 0, -1};): the values listed (the others are 0; see
    # AffineConverter.table); None for anything else
    table: tuple[int, ...] | None = None
    table_refusal: str = ""     # why ``table`` is None for a one-dimensional integer array

    @property
    def through_pointer(self) -> bool:
        """Whether the data is reached through a pointer, so that another name may
        denote the same memory (a pointer or array parameter, or a pointer variable)."""
        return bool(self.dims) and (self.origin == "param" or "" in self.dims)

    @property
    def is_integer_scalar(self) -> bool:
        return not self.dims and bool(set(self.element_type.split()) & _INTEGER_WORDS) \
            and not set(self.element_type.split()) & {"float", "double"}


@dataclass
class Visible:
    """What the region can see: the function name and its declarations."""

    function: str
    declarations: dict[str, Declaration]
    typedefs: set[str]
    # enumeration constants with their values (``enum { N = 100, M = N + 20 };``),
    # unless a later declaration of the same name hides them
    enumerators: dict[str, int] = field(default_factory=dict)
    # the members of the structs defined at file scope: "struct img" (and a typedef
    # name of it, "img_t") -> member name -> its declaration
    structs: dict[str, dict[str, Declaration]] = field(default_factory=dict)
    # every enumeration constant's name, its value folded or not (enum { Z = sizeof(x) })
    enumerator_names: set[str] = field(default_factory=set)
    # the enclosing function's header when this front end could not read it (K&R
    # parameter lists): its parameters' types are unknown
    unread_header: str = ""
    # typedef names of basic types, with the type each one is ("idx_t" -> "long")
    typedef_types: dict[str, str] = field(default_factory=dict)
    # typedef names of array types, with the shape each one is ("vec4" -> a Declaration
    # of element type "double" and dims ["4"])
    array_typedefs: dict[str, Declaration] = field(default_factory=dict)
    # every variable name in scope, whatever its type, function pointers included
    # (``double (*f)(double)``, ``unop tanh``): a call of such a name is a call through
    # a pointer, not of the file's or <math.h>'s function of that name
    variables: set[str] = field(default_factory=set)


def _chunks(text: str) -> list[str]:
    """Split at ';', '{', '}' outside parentheses; a declaration's initialiser is left
    out (``const int ex[5] = {...}, ey[5] = {...};`` gives ``const int ex[5], ey[5]``)."""
    pieces, depth, cur = [], 0, []
    k = 0
    while k < len(text):
        c = text[k]
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        if c == "{" and depth == 0 and "".join(cur).rstrip().endswith("="):
            nested, k = 1, k + 1            # an initialiser list: skip it
            while k < len(text) and nested:
                nested += {"{": 1, "}": -1}.get(text[k], 0)
                k += 1
            cur = list("".join(cur).rstrip()[:-1])
            continue
        if c in ";{}" and depth == 0:
            pieces.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        k += 1
    pieces.append("".join(cur))
    # at file scope 'double w[3] = {...}, v[3] = {...};' arrives with its braces made
    # ';' (top_level_text): 'double w[3] =' and ', v[3] =', joined again
    chunks: list[str] = []
    for piece in (p.strip().rstrip("=").rstrip() for p in pieces):
        if piece.startswith(",") and chunks:
            chunks[-1] += piece
        elif piece:
            chunks.append(piece)
    return chunks


def type_text(node: c_ast.Node) -> str:
    """The C text of a declarator's base type, qualifiers left out (``const float`` is
    ``float``): a `Declaration`'s ``element_type``."""
    while isinstance(node, (c_ast.TypeDecl,)):
        node = node.type
    if isinstance(node, c_ast.IdentifierType):
        return " ".join(n for n in node.names if n not in _QUALIFIERS)
    if isinstance(node, (c_ast.Struct, c_ast.Union)):
        return f"{'struct' if isinstance(node, c_ast.Struct) else 'union'} {node.name}"
    if isinstance(node, c_ast.Enum):
        return f"enum {node.name}"
    return _GENERATOR.visit(node)


def declaration_of(decl: c_ast.Decl, origin: str = "global") -> Declaration | None:
    """The :class:`Declaration` of a pycparser ``Decl`` (None for functions)."""
    node = decl.type
    dims: list[str] = []
    restrict = False
    quals = list(getattr(decl, "quals", None) or [])
    while True:
        if isinstance(node, c_ast.ArrayDecl):
            if not dims:
                restrict = "restrict" in (node.dim_quals or [])
            quals += node.dim_quals or []
            dims.append(_GENERATOR.visit(node.dim) if node.dim is not None else "")
            node = node.type
        elif isinstance(node, c_ast.PtrDecl):
            if not dims:
                restrict = "restrict" in (node.quals or [])
            quals += node.quals or []
            dims.append("")
            node = node.type
        elif isinstance(node, c_ast.FuncDecl):
            return None
        else:
            break
    if decl.name is None:
        return None
    quals += getattr(node, "quals", None) or []
    volatile = next((q for q in ("volatile", "_Atomic") if q in quals), "")
    return Declaration(decl.name, type_text(node), dims, origin, restrict, volatile,
                       internal="static" in (decl.storage or []), bitfield=getattr(decl, "bitsize", None) is not None)


_TYPE_START = r"\b(?:const|static|volatile|int|char|short|long|signed|unsigned|_Bool|bool|\w+_t)\b"


def _constant_table(parser: "_Parser", file_plain: str, decl: Declaration,
                    conditional: frozenset[int]) -> tuple[tuple[int, ...] | None, str]:
    """The integer literals listed by the one declaration of ``decl`` in the file when
    it is ``const int name[extent] = {...};`` (the chunks the declarations are read
    from leave initialisers out), and "". Else None and why not, e.g. when the file
    declares the name as an array more than once (another scope's array may be the one
    the region sees), or where it is on a ``conditional`` line (compiled under another
    -D, another branch's table)."""
    name = re.escape(decl.name)
    # what may stand between the type and the name: declarators, and the flat
    # initialisers of those before it (static const int ex[Q] = {...}, ey[Q] = {...};)
    before = r"(?:[^;{}()=]|=\s*\{[^{}]*\})*"
    declared = re.findall(rf"{_TYPE_START}{before}\b{name}\s*\[", file_plain)
    found = list(re.finditer(rf"\bconst\b{before}\b{name}\s*\[([^\]]*)\]\s*=\s*(\{{[^{{}}]*\}})\s*[;,]",
                             file_plain))
    if len(declared) > 1:
        return None, "the file declares it more than once (the region may see another one)"
    if len(found) != 1 or found[0].group(1).strip() != decl.dims[0].strip():
        return None, "it is not declared 'const' with a list of values"
    first, last = (file_plain.count("\n", 0, k) + 1 for k in (found[0].start(), found[0].end()))
    if any(line in conditional for line in range(first, last + 1)):
        return None, "it is declared under '#if' (compiled with another -D it may hold other values)"
    nodes = parser.parse(f"int polysched_table[] = {found[0].group(2)}")
    if len(nodes) != 1 or not isinstance(nodes[0], c_ast.Decl) or not isinstance(nodes[0].init, c_ast.InitList):
        return None, "its list of values is not a flat list"
    values = integer_literals(nodes[0].init, decl.element_type)
    return values, "" if values is not None else literals_refusal(decl.element_type)


def _listed_count(parser: "_Parser", file_plain: str, decl: Declaration, conditional: frozenset[int]) -> int | None:
    """How many elements ``T name[] = {a, b, c};`` lists (3), when it is the file's one
    declaration of ``name`` as an array, on no ``conditional`` line, and lists its
    values in order (no ``[k] =`` designators); else None."""
    name = re.escape(decl.name)
    before = r"(?:[^;{}()=]|=\s*\{[^{}]*\})*"
    declared = re.findall(rf"(?:{_TYPE_START}|\b(?:float|double)\b){before}\b{name}\s*\[", file_plain)
    found = list(re.finditer(rf"\b{name}\s*\[\s*\]\s*=\s*(\{{[^{{}}]*\}})\s*[;,]", file_plain))
    if len(declared) != 1 or len(found) != 1:
        return None
    first, last = (file_plain.count("\n", 0, k) + 1 for k in (found[0].start(), found[0].end()))
    if any(line in conditional for line in range(first, last + 1)):
        return None
    nodes = parser.parse(f"double polysched_list[] = {found[0].group(1)}")
    if len(nodes) != 1 or not isinstance(nodes[0], c_ast.Decl) or not isinstance(nodes[0].init, c_ast.InitList) \
            or any(isinstance(e, c_ast.NamedInitializer) for e in nodes[0].init.exprs or []):
        return None
    return len(nodes[0].init.exprs or []) or None


def table_shape_refusal(decl: Declaration) -> str:
    """Why an array declared as ``decl`` is no table of integer constants whatever its
    values ("" when it may be one): a table has one dimension of integers, not volatile."""
    if len(decl.dims) != 1:
        return f"it has {len(decl.dims)} dimensions"
    if not set(decl.element_type.replace("const", " ").split()) <= _INTEGER_WORDS:
        return f"its elements are '{decl.element_type}', not integers"
    return f"it is {decl.volatile}" if decl.volatile else ""


def literals_refusal(element_type: str) -> str:
    """Why `integer_literals` gave None for a list of ``element_type``."""
    if _sure_range(element_type) is None:
        if set(element_type.split()) & _WRAPPING_WORDS:
            return f"sums with '{element_type}' elements wrap around, which the model's integers do not"
        return f"'{element_type}' has no range every C implementation agrees on"
    return f"its values are not all integer literals '{element_type}' holds (a macro may differ under -D)"


# the values every C implementation gives a type with these words, the first set that
# matches (long may be 32 bits): (lowest, highest). No unsigned type of int's rank or
# wider: i + d[q] is then computed modulo 2**w (an unsigned d[q] = 0xFFFFFFFF makes it
# i - 1), which the model's exact integers are not; narrower ones promote to int
_SURE_RANGES = [({"_Bool"}, 0, 1), ({"bool"}, 0, 1), ({"int8_t"}, -128, 127),
                ({"uint8_t"}, 0, 255), ({"unsigned", "short"}, 0, 65535), ({"short"}, -32768, 32767),
                ({"int16_t"}, -32768, 32767), ({"uint16_t"}, 0, 65535),
                ({"int"}, -2 ** 31, 2 ** 31 - 1), ({"long"}, -2 ** 31, 2 ** 31 - 1),
                ({"int32_t"}, -2 ** 31, 2 ** 31 - 1), ({"int64_t"}, -2 ** 63, 2 ** 63 - 1),
                ({"signed"}, -2 ** 31, 2 ** 31 - 1)]
_WRAPPING_WORDS = frozenset("unsigned size_t uint32_t uint64_t uintptr_t uintmax_t".split())


def _sure_range(element_type: str) -> tuple[int, int] | None:
    """The values an integer type holds on every implementation (a plain ``char`` may
    be signed or not: 0..127), None for a type not listed."""
    words = set(element_type.replace("const", " ").split())
    if "char" in words:
        return (0, 255) if "unsigned" in words else (-128, 127) if "signed" in words else (0, 127)
    if words & _WRAPPING_WORDS and not ("short" in words or words & {"uint8_t", "uint16_t"}):
        return None
    for needed, low, high in _SURE_RANGES:
        if needed <= words:
            return low, high
    return None


def integer_literals(init: c_ast.InitList, element_type: str = "int") -> tuple[int, ...] | None:
    """The values of ``{0, 1, -1, 0}`` as elements of ``element_type``, None unless
    every element is an integer literal, maybe negated, that the type holds on every
    implementation (``unsigned char d[] = {-255}`` holds 1, not -255)."""
    values = []
    for expr in init.exprs or []:
        sign = 1
        while isinstance(expr, c_ast.UnaryOp) and expr.op in ("-", "+"):
            sign, expr = (-sign if expr.op == "-" else sign), expr.expr
        if not (isinstance(expr, c_ast.Constant) and expr.type == "int"):
            return None
        try:
            values.append(sign * int(expr.value.rstrip("uUlL"), 0))
        except ValueError:
            return None
    bounds = _sure_range(element_type)
    if bounds is None or any(not bounds[0] <= v <= bounds[1] for v in values):
        return None
    return tuple(values)


class _Parser:
    def __init__(self, typedefs: set[str]):
        self.typedefs = set(typedefs)
        self.parser = c_parser.CParser()

    def parse(self, chunk: str) -> list[c_ast.Node]:
        # Declare only the typedef names this chunk uses (keeps pycparser's input tiny).
        chunk = _RESTRICT_RE.sub("restrict", chunk)  # GNU spellings pycparser does not know
        if "__" in chunk:       # double A[N] __attribute__((aligned(64))): pycparser stops there
            chunk = _without_attributes(chunk)
        words = set(IDENT_RE.findall(chunk))
        defining = set(_TYPEDEF_RE.findall(chunk + ";"))
        prefix = "".join(f"typedef int {t};" for t in sorted((self.typedefs & words) - defining))
        try:
            ast = self.parser.parse(prefix + "\n" + chunk + ";", filename="<decl>")
        except Exception:  # any pycparser failure: the chunk is not a declaration we need
            return []
        return [n for n in ast.ext if not (isinstance(n, c_ast.Typedef) and n.coord and n.coord.line == 1)]


_BASIC_WORDS = _INTEGER_WORDS | {"float", "double"}


def is_arithmetic_type(c_type: str) -> bool:
    """Is ``c_type`` (qualifiers allowed) spelled with basic integer and floating
    words only? A typedef name is not known to be one (it may stand for a struct)."""
    words = set(c_type.split()) - _QUALIFIERS
    return bool(words) and words <= _BASIC_WORDS


def header_typedef(code: str, name: str, depth: int = 8) -> str | None:
    """The basic type the headers' ``typedef`` of ``name`` stands for (``uid_t`` ->
    ``__uid_t`` -> ``unsigned int``), or None (a struct, pointer or array type, or no
    such typedef): the type C computes with where such a variable bounds a loop."""
    for m in re.finditer(rf"\btypedef\s+([A-Za-z_][\w\s]*?)\s+{re.escape(name)}\s*;", code):
        words = m.group(1).split()
        if set(words) <= _BASIC_WORDS | {"const"}:
            return " ".join(w for w in words if w != "const")
        if len(words) == 1 and depth > 0:
            return header_typedef(code, words[0], depth - 1)
    return None


def header_declaration(macros: MacroTable, name: str, typedefs: set[str]) -> Declaration | None:
    """The declaration of the variable ``name`` in the code of the included headers
    (``extern int optind;`` from <unistd.h>), or None: a name used in a bound must have
    a known type (an unsigned one compares differently)."""
    code = macros.header_code
    parser = _Parser(typedefs | set(macros.typedef_names))
    for m in re.finditer(rf"\b{re.escape(name)}\b", code):
        start = max(code.rfind(";", 0, m.start()), code.rfind("{", 0, m.start()), code.rfind("}", 0, m.start())) + 1
        end = code.find(";", m.end())
        if end < 0:
            break
        chunk = "\n".join(line for line in code[start:end].splitlines() if not line.lstrip().startswith("#"))
        for node in parser.parse(chunk):
            if isinstance(node, c_ast.Decl) and node.name == name:
                found = declaration_of(node, "global")
                if found is not None:
                    return found
    return None


def visible_declarations(macros: MacroTable, file_plain: str, top_level: str,
                         function: FunctionText | None, file_text: str | None = None,
                         conditional: frozenset[int] = frozenset()) -> Visible:
    """Declarations visible at the region (locals shadow parameters shadow globals).
    ``file_text``: ``file_plain`` with its literals (character constants in enum
    values), offset for offset; without it no enumerator is read. ``conditional``: the
    lines inside ``#if`` blocks (`macros.conditional_lines`), whose tables of constants
    another -D may replace."""
    typedefs = set(COMMON_TYPEDEFS) | set(STDINT_TYPES) | set(_TYPEDEF_RE.findall(file_plain)) \
        | set(macros.typedef_names)
    names = set(IDENT_RE.findall(file_plain))
    typedefs |= {name for name in names if name in macros and macros.is_type(name)}
    parser = _Parser(typedefs)
    declarations: dict[str, Declaration] = {}
    variables: set[str] = set()

    def note_variable(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Decl) and node.name and not isinstance(node.type, c_ast.FuncDecl):
            variables.add(node.name)

    # the file's typedefs of basic types, arrays and pointers: "row_t" -> double [N]
    # (``typedef double row_t[N]``), "vdouble" -> volatile double
    shapes: dict[str, Declaration] = {name: Declaration(name, basic) for name, basic in STDINT_TYPES.items()}

    def resolved(d: Declaration) -> Declaration:
        shape = shapes.get(d.element_type)
        if shape is None and re.fullmatch(r"[A-Za-z_]\w*", d.element_type) \
                and d.element_type not in _INTEGER_WORDS and d.element_type in macros.header_identifiers:
            # integers only: a floating type keeps its name (real_t), the code written with
            # it does too
            basic = header_typedef(macros.header_code, d.element_type)
            if basic is not None and not set(basic.split()) & {"float", "double"}:
                shape = shapes[d.element_type] = Declaration(d.element_type, basic)
        if shape is None:
            return d
        return Declaration(d.name, shape.element_type, d.dims + shape.dims, d.origin, d.restrict or
                           (shape.restrict and not d.dims), d.volatile or shape.volatile)

    def declare(d: Declaration | None) -> None:
        if d is not None:
            declarations[d.name] = resolved(d)

    def take(chunks: list[str], origin: str):
        for chunk in chunks:
            if not re.search(r"[A-Za-z_]", chunk):
                continue
            for node in parser.parse(macros.expand(chunk)):
                if isinstance(node, c_ast.Typedef):
                    parser.typedefs.add(node.name)
                    named = declaration_of(node, origin)
                    # an anonymous struct's typedef names it in ``structs`` (not resolved here)
                    if named is not None and named.element_type not in ("struct None", "union None", "enum None"):
                        shapes[node.name] = resolved(named)
                elif isinstance(node, c_ast.Decl):
                    note_variable(node)
                    declare(declaration_of(node, origin))

    take(_chunks(top_level), "global")
    if file_text is None or len(file_text) != len(file_plain):
        file_text = None

    def enum_text(start: int, end: int, file_scope: bool) -> str:
        """The enum definitions starting in ``file_plain[start:end]`` (at file scope:
        those ``top_level`` keeps), read from ``file_text``."""
        if file_text is None:
            return ""
        return macros.expand(" ".join(file_text[m.start():m.end()] for m in _ENUM_RE.finditer(file_plain, start, end)
                                      if not file_scope or top_level[m.start()] == "e"))

    # the included headers' enumerators at file scope (enum { NX = 40 } in "grid.h"; not
    # those of a header's inline function), then the file's
    header_top = top_level_text(blank_strings(macros.header_code))
    header_enums = " ".join(m.group(0) for m in _ENUM_RE.finditer(macros.header_code) if header_top[m.start()] == "e")
    enumerators = _enumerators(parser, header_enums + " " + enum_text(0, len(file_plain), True), {})
    structs = _structs(parser, [macros.expand(file_text[m.start():m.end()]) for m in _STRUCT_RE.finditer(file_plain)
                                if top_level[m.start()] in "stu"] if file_text is not None else [], declare)
    name = "<file scope>"
    unread_header = ""
    if function is not None:
        header = _without_attributes(macros.expand(function.header.replace("\ufeff", " ")))   # a BOM too
        for node in parser.parse(header):
            if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl):
                name = node.name
                for param in (node.type.args.params if node.type.args else []):
                    if isinstance(param, c_ast.Decl):
                        note_variable(param)
                        declare(declaration_of(param, "param"))
                    elif isinstance(param, c_ast.ID):
                        # a K&R parameter (its type is declared after the list, unread):
                        # it hides a global of its name, whose type it need not have
                        declarations.pop(param.name, None)
                        variables.add(param.name)
        if name == "<file scope>":
            m = re.search(r"([A-Za-z_]\w*)\s*\(", function.header)
            name = m.group(1) if m else name
            unread_header = header
            # its parameters hide globals of their names, whatever types they have
            for word in set(IDENT_RE.findall(header)):
                declarations.pop(word, None)
        # the blocks closed before the region: what they declare is out of scope there
        open_prefix = _without_closed_blocks(function.body_prefix)
        for chunk in _chunks(open_prefix):
            take([chunk], "local")
            for hidden in _unread_declared_names(chunk):
                # typeof(1u) m, __auto_type m: a type this front end does not read
                # hides the outer m all the same (the region is then refused on m)
                declarations.pop(hidden, None)
                variables.add(hidden)
        # 'for (unsigned m = 1; ...) { #pragma scop ...': the loops around the region
        # declare their counters for it
        take(_open_loop_declarations(open_prefix), "local")
        for hidden in [n for n, d in declarations.items() if d.origin != "global"]:
            enumerators.pop(hidden, None)   # a parameter or local hides a file-scope enumerator
        body = function.body_offset
        local = _enumerators(parser, " ".join(enum_text(body + m.start(), body + m.end(), False)
                                              for m in _ENUM_RE.finditer(open_prefix)), enumerators)
        for hidden in set(local) & set(declarations):
            del declarations[hidden]        # a local enumerator hides a file-scope variable
        enumerators.update(local)
        # struct types the function defines before the region (struct loc { ... } l;)
        if file_text is not None:
            structs.update(_structs(parser, [macros.expand(file_text[body + m.start():body + m.end()])
                                             for m in _STRUCT_RE.finditer(open_prefix)], declare, "local"))
    names = {n for n in re.findall(r"[A-Za-z_]\w*", " ".join(m.group(0) for m in _ENUM_RE.finditer(file_plain))
                                   + " " + header_enums) if n != "enum"} - set(declarations)
    typedef_types = {t: shape.element_type for t, shape in shapes.items() if not shape.dims and not shape.volatile}
    for decl in declarations.values():
        if decl.origin in ("global", "local") and not table_shape_refusal(decl):
            decl.table, decl.table_refusal = _constant_table(parser, file_plain, decl, conditional)
        if decl.origin in ("global", "local") and decl.dims == [""]:
            count = _listed_count(parser, file_plain, decl, conditional)
            if count is not None:       # double w[] = {...}: an array of that many, not a pointer
                decl.dims = [str(count)]
    return Visible(name, declarations, parser.typedefs, enumerators, structs,
                   enumerator_names=names, unread_header=unread_header, typedef_types=typedef_types,
                   variables=variables,
                   array_typedefs={t: shape for t, shape in shapes.items() if shape.dims and "" not in shape.dims})


def _without_attributes(header: str) -> str:
    """``header`` without GNU ``__attribute__((...))`` and ``__declspec(...)``, which
    pycparser does not read."""
    while True:
        m = re.search(r"\b(?:__attribute__|__attribute|__declspec)\s*\(", header)
        if m is None:
            return header
        k = closing_paren(header, m.end() - 1)
        header = header[:m.start()] + " " + header[k + 1:]


# a declarator and its initializer, if any: braces two deep ({{1, 2}, {3}}), a value
# with parentheses one deep (= f(a, b)); where an initializer is deeper the match ends
# inside it, and the declarators after it are not read
_INITIALIZER = r"\s*=\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|(?:[^,;{}()]|\([^()]*\))+)"
_DECLARATOR = rf"[\s*]*[A-Za-z_]\w*(?:\s*\[[^\[\]]*\])*(?:{_INITIALIZER})?"
# a definition and the variables it declares: struct p { ... } a, *b, table[4]; (static:
# variables no other file names)
_STRUCT_RE = re.compile(r"\b(?:typedef\s+|static\s+)?(?:struct|union)\s*(?:[A-Za-z_]\w*\s*)?\{[^{}]*\}"
                        rf"\s*(?:{_DECLARATOR}(?:\s*,{_DECLARATOR})*)?")


def _structs(parser: "_Parser", definitions: list[str], declare=None,
             origin: str = "global") -> dict[str, dict[str, Declaration]]:
    """The members of each struct definition, under ``struct TAG`` and under the name a
    ``typedef`` gives it. Nested definitions and unions are not read. ``declare`` gets
    the variable a definition declares (``struct p { ... } origin;``)."""
    found: dict[str, dict[str, Declaration]] = {}
    for text in definitions:
        for node in parser.parse(text):
            names = []
            if isinstance(node, c_ast.Typedef):
                parser.typedefs.add(node.name)
                if isinstance(node.type, c_ast.TypeDecl):      # not 'typedef struct {...} *p_t'
                    names.append(node.name)
            kind = node.type if isinstance(node, (c_ast.Typedef, c_ast.Decl)) else None
            while isinstance(kind, (c_ast.TypeDecl, c_ast.ArrayDecl, c_ast.PtrDecl)):
                kind = kind.type                    # struct p { ... } origin, table[4];
            if declare is not None and isinstance(node, c_ast.Decl) and node.name:
                variable = declaration_of(node, origin)
                if variable is not None and isinstance(kind, c_ast.Struct) and not kind.name:
                    variable.element_type = f"struct <{node.name}>"     # struct { ... } coef;
                    names.append(variable.element_type)
                declare(variable)
            # a union's members share their memory: read as variables of their own,
            # writing one would not change the others (so unions are not read)
            if not isinstance(kind, c_ast.Struct) or kind.decls is None:
                continue
            if kind.name:
                names.append(f"struct {kind.name}")
            members = {d.name: d for d in (declaration_of(m, "member") for m in kind.decls) if d is not None}
            for name in names:
                found[name] = members
    return found


def blank_attributes(text: str) -> str:
    """``text`` with each GNU ``__attribute__((...))`` blanked (spaces, its newlines
    kept: every other character stays where it was), which pycparser does not read."""
    while True:
        m = re.search(r"\b(?:__attribute__|__attribute)\s*\(", text)
        if m is None:
            return text
        k = closing_paren(text, m.end() - 1)
        text = text[:m.start()] + re.sub(r"[^\n]", " ", text[m.start():k + 1]) + text[k + 1:]


def closing_paren(text: str, opening: int) -> int:
    """The offset of the ``)`` closing the ``(`` at ``opening`` (``len(text)`` if none)."""
    depth = 0
    for k in range(opening, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return k
    return len(text)


def _open_loop_declarations(text: str) -> list[str]:
    """The declarations in the headers of the ``for`` loops whose bodies are open at
    the end of ``text`` (a function body up to a region, closed blocks blanked by
    `_without_closed_blocks`): ``for (int r = 0; ...) {`` or a header right before the
    region (its body)."""
    found = []
    for m in re.finditer(r"\bfor\s*\(", text):
        k = closing_paren(text, m.end() - 1)
        after = text[k + 1:].lstrip()
        if k < len(text) and (not after or after.startswith("{")):
            init = text[m.end():k].split(";", 1)[0]
            if re.match(r"\s*[A-Za-z_]\w*[\s*]+[A-Za-z_]", init):     # a declaration, not 'i = 0'
                found.append(init)
    return found


def _unread_declared_names(chunk: str) -> list[str]:
    """The names a ``typeof(...)``/``__auto_type`` declaration declares (which the parser
    does not read): ``typeof(1u) m = 2, *k;`` gives m and k."""
    m = re.match(r"\s*(?:(?:const|volatile|static|register|auto)\s+)*"
                 r"(?:__auto_type\b|(?:typeof|__typeof__|__typeof)\s*\()", chunk)
    if m is None:
        return []
    rest = chunk[m.end():]
    if m.group(0).rstrip().endswith("("):
        rest = chunk[closing_paren(chunk, m.end() - 1) + 1:]
    names, depth, start = [], 0, 0
    for k, c in enumerate(rest + ","):
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(c, 0)
        if c == "," and depth == 0:
            word = re.match(r"[\s*]*([A-Za-z_]\w*)", rest[start:k])
            if word:
                names.append(word.group(1))
            start = k + 1
    return names


def _without_closed_blocks(text: str) -> str:
    """``text`` (a function body up to a region) with every block that closes in it
    blanked, offsets kept: ``{ int i = 1; }`` declares nothing the region sees. The
    braces of an enum, struct or initialiser are no block; a labelled one
    (``again: { ... }``) is. The closing brace becomes ``;``: the statement the block
    ended (``for (...) { ... }``) must not run into the declaration after it."""
    out, opened = list(text), []
    for k, c in enumerate(text):
        if c == "{":
            before = text[:k].rstrip()
            block = not before or before[-1] in ";{}):" or re.search(r"\b(?:else|do)$", before) is not None
            opened.append((k, block))
        elif c == "}" and opened:
            start, block = opened.pop()
            if block:
                out[start:k + 1] = [ch if ch == "\n" else " " for ch in text[start:k + 1]]
                out[k] = ";"
    return "".join(out)


_ENUM_RE = re.compile(r"\benum\s*(?:[A-Za-z_]\w*\s*)?\{[^{}]*\}")


def _enumerators(parser: "_Parser", text: str, outer: dict[str, int]) -> dict[str, int]:
    """The enumeration constants the enum definitions in ``text`` declare, with the
    values this front end can fold (``enum { N = 100, M = N + 20 };``; ``outer``: those
    of enclosing scopes)."""
    known = dict(outer)
    found: dict[str, int] = {}
    for m in _ENUM_RE.finditer(text):
        nodes = parser.parse(m.group(0))
        for node in nodes:
            for name, value in _enumerators_in(node, known):
                if value is None:
                    known.pop(name, None)
                    found.pop(name, None)
                else:
                    known[name] = found[name] = value
    return found


def _enumerators_in(node: c_ast.Node, known: dict[str, int]) -> list[tuple[str, int | None]]:
    """The enumeration constants ``node`` declares, in order, with their values (None
    where this front end cannot fold the value): ``enum { A, B = A + 4, C }`` gives
    A = 0, B = 4, C = 5."""
    found: list[tuple[str, int | None]] = []
    scope = dict(known)

    def visit(n: c_ast.Node) -> None:
        if isinstance(n, c_ast.Enum) and n.values is not None:
            following: int | None = 0
            for e in n.values.enumerators:
                value = following if e.value is None else _folded(e.value, scope)
                found.append((e.name, value))
                if value is None:
                    scope.pop(e.name, None)
                else:
                    scope[e.name] = value
                following = None if value is None else value + 1
            return
        for _, child in n.children():
            visit(child)

    visit(node)
    return found


def _folded(node: c_ast.Node, known: dict[str, int]) -> int | None:
    """The value of an integer constant expression of literals and enumeration constants
    ``known``, with C's operators (``/`` and ``%`` truncate toward zero), else None."""
    if isinstance(node, c_ast.Constant):
        if node.type == "char":
            return char_literal_value(node.value)
        return int_literal_value(node.value)
    if isinstance(node, c_ast.ID):
        return known.get(node.name)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "~", "!"):
        v = _folded(node.expr, known)
        if v is None:
            return None
        return {"-": -v, "+": v, "~": ~v, "!": int(not v)}[node.op]
    if isinstance(node, c_ast.UnaryOp) and node.op in SIZE_OPERATORS:
        return basic_type_size(node.expr)       # enum { M = sizeof(int) }
    if isinstance(node, c_ast.BinaryOp):
        a, b = _folded(node.left, known), _folded(node.right, known)
        if a is None or b is None:
            return None
        if node.op in ("/", "%"):
            if b == 0:
                return None
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return q if node.op == "/" else a - q * b
        if node.op in ("<<", ">>") and not 0 <= b < 64:
            return None
        ops = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b,
               "<<": a << b if node.op == "<<" else 0, ">>": a >> b if node.op == ">>" else 0,
               "<": int(a < b), ">": int(a > b), "<=": int(a <= b), ">=": int(a >= b),
               "==": int(a == b), "!=": int(a != b), "&&": int(bool(a and b)), "||": int(bool(a or b))}
        return ops.get(node.op)
    if isinstance(node, c_ast.TernaryOp):
        c = _folded(node.cond, known)
        return None if c is None else _folded(node.iftrue if c else node.iffalse, known)
    return None
