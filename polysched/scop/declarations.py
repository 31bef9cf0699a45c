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

from .macros import MacroTable
from .source import IDENT_RE, FunctionText

# Typedef names commonly used without their headers being parsed.
COMMON_TYPEDEFS = (
    "size_t ssize_t ptrdiff_t intptr_t uintptr_t int8_t int16_t int32_t int64_t uint8_t "
    "uint16_t uint32_t uint64_t intmax_t uintmax_t FILE bool wchar_t __m128 __m256 __m512"
).split()
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


def _chunks(text: str) -> list[str]:
    """Split at ';', '{', '}' outside parentheses."""
    pieces, depth, cur = [], 0, []
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        if c in ";{}" and depth == 0:
            pieces.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    pieces.append("".join(cur))
    return [p for p in (p.strip() for p in pieces) if p]


def _type_text(node: c_ast.Node) -> str:
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
    while True:
        if isinstance(node, c_ast.ArrayDecl):
            if not dims:
                restrict = "restrict" in (node.dim_quals or [])
            dims.append(_GENERATOR.visit(node.dim) if node.dim is not None else "")
            node = node.type
        elif isinstance(node, c_ast.PtrDecl):
            if not dims:
                restrict = "restrict" in (node.quals or [])
            dims.append("")
            node = node.type
        elif isinstance(node, c_ast.FuncDecl):
            return None
        else:
            break
    if decl.name is None:
        return None
    return Declaration(decl.name, _type_text(node), dims, origin, restrict)


class _Parser:
    def __init__(self, typedefs: set[str]):
        self.typedefs = set(typedefs)
        self.parser = c_parser.CParser()

    def parse(self, chunk: str) -> list[c_ast.Node]:
        # Declare only the typedef names this chunk uses (keeps pycparser's input tiny).
        chunk = _RESTRICT_RE.sub("restrict", chunk)  # GNU spellings pycparser does not know
        words = set(IDENT_RE.findall(chunk))
        defining = set(_TYPEDEF_RE.findall(chunk + ";"))
        prefix = "".join(f"typedef int {t};" for t in sorted((self.typedefs & words) - defining))
        try:
            ast = self.parser.parse(prefix + "\n" + chunk + ";", filename="<decl>")
        except Exception:  # any pycparser failure: the chunk is not a declaration we need
            return []
        return [n for n in ast.ext if not (isinstance(n, c_ast.Typedef) and n.coord and n.coord.line == 1)]


def visible_declarations(macros: MacroTable, file_plain: str, top_level: str,
                         function: FunctionText | None) -> Visible:
    """Declarations visible at the region (locals shadow parameters shadow globals)."""
    typedefs = set(COMMON_TYPEDEFS) | set(_TYPEDEF_RE.findall(file_plain)) | set(macros.typedef_names)
    names = set(IDENT_RE.findall(file_plain))
    typedefs |= {name for name in names if name in macros and macros.is_type(name)}
    parser = _Parser(typedefs)
    declarations: dict[str, Declaration] = {}

    def take(chunks: list[str], origin: str):
        for chunk in chunks:
            if not re.search(r"[A-Za-z_]", chunk):
                continue
            for node in parser.parse(macros.expand(chunk)):
                if isinstance(node, c_ast.Typedef):
                    parser.typedefs.add(node.name)
                elif isinstance(node, c_ast.Decl):
                    d = declaration_of(node, origin)
                    if d is not None:
                        declarations[d.name] = d

    take(_chunks(top_level), "global")
    name = "<file scope>"
    if function is not None:
        header = macros.expand(function.header)
        for node in parser.parse(header):
            if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl):
                name = node.name
                for param in (node.type.args.params if node.type.args else []):
                    if isinstance(param, c_ast.Decl):
                        d = declaration_of(param, "param")
                        if d is not None:
                            declarations[d.name] = d
        if name == "<file scope>":
            m = re.search(r"([A-Za-z_]\w*)\s*\(", function.header)
            name = m.group(1) if m else name
        take([c for c in _chunks(function.body_prefix)], "local")
    return Visible(name, declarations, parser.typedefs)
