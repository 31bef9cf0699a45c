"""Which functions of the file a SCoP may call: the pure ones.

A helper such as ``static double clamp(double v, double lo, double hi)`` or
``sigmoid(x)`` is as safe inside a statement as ``sqrt``: its value depends only on its
arguments and it changes nothing. The front end models its arguments as the reads, and
the emitted code calls it as the original does. Pure here means, read off the
function's definition as the compiler reads it (the preprocessed file: ``#if``
branches taken, macros expanded, so neither a pure copy under ``#if 0`` nor
``#define exp fast_exp`` can hide what is compiled):

- its parameters and its result are scalars (no pointer or array can carry a write
  out, or a read the model does not see);
- its body names only its parameters, its own non-static locals (scalars or arrays),
  and enumeration constants: no global, so nothing the SCoP writes is read unseen;
- it calls only pure ``<math.h>`` functions and other pure functions of the file (not
  itself: the check stops at recursion);
- no ``*``, ``&``, struct members, ``static`` or ``volatile`` locals.

Anything the check cannot read (a syntax this parser lacks, ``__attribute__``) makes
the function not pure: the call stays an error. So does a call of a name that a
variable in scope holds (a function pointer ``double (*f)(double)`` or ``unop tanh``
shadowing a function of that name), which the front end refuses first.
"""
from __future__ import annotations

import re
from typing import Callable

from pycparser import c_ast, c_parser


def function_definition(plain: str, name: str) -> str | None:
    """The text of the definition of function ``name`` in ``plain`` (the preprocessed
    file, strings blanked), from the end of the previous declaration to the closing
    brace of its body, or None."""
    match = re.search(rf"\b{re.escape(name)}\s*\([^()]*\)\s*\{{", plain)
    if match is None:
        return None
    start = max(plain.rfind(";", 0, match.start()), plain.rfind("}", 0, match.start())) + 1
    depth = 0
    for end in range(match.end() - 1, len(plain)):
        depth += {"{": 1, "}": -1}.get(plain[end], 0)
        if depth == 0:
            return plain[start:end + 1]
    return None


_BASIC = {"char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool", "bool",
          "size_t", "ssize_t", "ptrdiff_t"}
_STDINT = re.compile(r"u?int(8|16|32|64|ptr|max)_t|u?int_(fast|least)(8|16|32|64)_t")


def _is_scalar(decl_type: c_ast.Node, scalar_typedefs) -> bool:
    """A non-volatile arithmetic type: C's words, <stdint.h>'s names, and typedef
    names known to stand for one (a typedef of a pointer is no scalar)."""
    if not (isinstance(decl_type, c_ast.TypeDecl) and isinstance(decl_type.type, c_ast.IdentifierType)):
        return False
    if "volatile" in (decl_type.quals or []):
        return False
    return all(word in _BASIC or _STDINT.fullmatch(word) or word in scalar_typedefs
               for word in decl_type.type.names)


class _Impure(Exception):
    pass


class PurityChecker:
    """``problem(name)``: why function ``name`` of the file is not pure, or None when
    it is (cached). ``typedefs``: every typedef name of the file (for the parser);
    ``scalar_typedefs``: those of arithmetic types. ``is_math(name)``: a pure library
    function; ``is_file_function``: a function (or function pointer) of the file,
    checked in turn."""

    def __init__(self, plain: str, typedefs, scalar_typedefs, enumerators,
                 is_file_function: Callable[[str], bool], is_math: Callable[[str], bool]):
        self.plain = plain
        self.typedef_line = "".join(f"typedef int {name};" for name in sorted(typedefs))
        self.scalar_typedefs = set(scalar_typedefs)
        self.enumerators = set(enumerators)
        self.is_file_function = is_file_function
        self.is_math = is_math
        self._verdicts: dict[str, str | None] = {}
        self._checking: set[str] = set()

    def problem(self, name: str) -> str | None:
        if name in self._checking:
            return "is recursive"
        if name not in self._verdicts:
            self._checking.add(name)
            try:
                self._verdicts[name] = self._problem(name)
            finally:
                self._checking.discard(name)
        return self._verdicts[name]

    def _problem(self, name: str) -> str | None:
        text = function_definition(self.plain, name)
        if text is None:
            return "is not defined here as a function (a function pointer?)"
        try:
            ast = c_parser.CParser().parse(self.typedef_line + "\n" + text, filename="<function>")
        except Exception:       # noqa: BLE001 - any parse failure: not known to be pure
            return "this front end cannot read"
        definition = ast.ext[-1] if ast.ext else None
        if not isinstance(definition, c_ast.FuncDef) or definition.decl.name != name:
            return "this front end cannot read"
        function = definition.decl.type
        if not self.is_scalar(function.type):
            return "does not return a scalar"
        names = set()
        for param in (function.args.params if function.args else []):
            if isinstance(param, c_ast.Typename):       # (void)
                continue
            if not isinstance(param, c_ast.Decl) or not self.is_scalar(param.type):
                return "takes a pointer or an array"
            names.add(param.name)
        try:
            self._visit(definition.body, names)
        except _Impure as why:
            return str(why)
        return None

    def is_scalar(self, decl_type: c_ast.Node) -> bool:
        return _is_scalar(decl_type, self.scalar_typedefs)

    def _visit(self, node: c_ast.Node | None, scope: set[str]) -> None:
        if node is None:
            return
        if isinstance(node, (c_ast.Compound, c_ast.For)):
            inner = set(scope)          # a block's declarations end with it
            for child in node:
                self._visit(child, inner)
        elif isinstance(node, c_ast.Decl):
            if "static" in (node.storage or []) or "extern" in (node.storage or []):
                raise _Impure(f"declares '{node.name}' {(node.storage or [''])[0]}")
            element = node.type
            while isinstance(element, c_ast.ArrayDecl):
                self._visit(element.dim, scope)
                element = element.type
            if "volatile" in (node.quals or []) or "volatile" in getattr(element, "quals", []):
                raise _Impure(f"declares '{node.name}' volatile")
            if not self.is_scalar(element):
                raise _Impure(f"declares '{node.name}', which is not a scalar or an array of scalars")
            self._visit(node.init, scope)
            scope.add(node.name)
        elif isinstance(node, c_ast.ID):
            if node.name not in scope and node.name not in self.enumerators:
                raise _Impure(f"reads or writes '{node.name}', which is not its own")
        elif isinstance(node, c_ast.FuncCall):
            callee = node.name.name if isinstance(node.name, c_ast.ID) else None
            if callee is None:
                raise _Impure("calls through a function pointer")
            if self.is_file_function(callee):
                why = self.problem(callee)
                if why is not None:
                    raise _Impure(f"calls '{callee}', which {why}")
            elif not self.is_math(callee):
                raise _Impure(f"calls '{callee}', which may have side effects")
            self._visit(node.args, scope)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("*", "&"):
            raise _Impure(f"uses '{node.op}'")
        elif isinstance(node, c_ast.StructRef):
            raise _Impure("uses a struct member")
        elif isinstance(node, c_ast.Typename):
            return                      # a cast's type or sizeof's: no variable
        else:
            for child in node:
                self._visit(child, scope)
