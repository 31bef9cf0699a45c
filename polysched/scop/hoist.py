"""Declarations at the top level of a region, moved before its ``#pragma scop``.

C lets code after a region use what the region declares at its top level::

    #pragma scop
      double s = 0.0;            // s lives on after the region
      int i, j;
      for (i = 0; i < n; i++) ...
    #pragma endscop
      printf("%f %d\\n", s, i);

The optimized code puts the original region in a block (the run-time check's
``else``), where such a declaration would end with the block. So the front end reads
the region as if the user had declared these variables just before ``#pragma scop``:

    double s; int i, j;          // one line inserted before the pragma
    #pragma scop
             s = 0.0;            // the initialiser stays where it ran, an assignment
    ...

The rewritten text is the file the model, the optimized output and its fallback come
from, so every other stage sees an ordinary variable declared before the region. A
declaration moves whole (initialiser included) when nothing in the region before it
can change what it evaluates: an initialiser and array extents of constants, macros,
enumerators and variables the region has not yet assigned and no pointer reaches (not a
global of external linkage, nor a variable whose address the file takes), macros expanded
(``int m = n / 2;``, ``double w[3] = {1, 2, 3};``, ``double t[n];``); anything when no
code of the region ran before it; a ``static`` (or ``extern``) one always, its initialiser
being a constant C evaluates once. Otherwise a scalar's initialiser stays in place as an
assignment (``double s = A[0];`` -> ``s = A[0];``, ``const`` dropped); an array, a pointer
or a ``const`` typedef's variable whose initialiser or extent depends on the region is
refused. So is a name the region uses (through a macro too) before declaring it, as a
variable, an enumeration constant or a struct tag: moving the declaration would change
what the earlier use means. A region with ``#if``s of its own keeps the refusal of every
top-level declaration (extract.py): the moved line would be there under every ``-D``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from .affine import assignment_target
from .unsigned import SIZE_OPERATORS
from .model import ScopError
from .source import offset_of, statement_end

# nodes of an expression whose value depends only on the variables it names (no
# memory reached through subscripts, members or pointers, no call, no side effect)
_PURE_NODES = (c_ast.Constant, c_ast.ID, c_ast.BinaryOp, c_ast.TernaryOp, c_ast.Cast, c_ast.Typename,
               c_ast.TypeDecl, c_ast.IdentifierType, c_ast.PtrDecl, c_ast.InitList, c_ast.NamedInitializer,
               c_ast.ExprList)
_PURE_UNARY = {"-", "+", "!", "~", *SIZE_OPERATORS}


@dataclass(frozen=True)
class Hoisting:
    """How one region's text changes: ``declarations`` (one indented line of C) is
    inserted at ``at``, the start of the ``#pragma scop`` line (line ``line``), and
    each ``(start, end, text)`` of ``edits`` replaces ``source[start:end]`` (a
    declaration in the region: its initialisers left in place, or nothing), with the
    same newlines. ``columns``: per line of the edited text (numbered after the
    insertion), the ``(column, column as written)`` pairs where text moved left."""

    at: int
    line: int
    declarations: str
    edits: tuple[tuple[int, int, str], ...]
    columns: dict[int, list[tuple[int, int]]]

    def apply(self, source: str, newline: str) -> str:
        pieces, cursor = [], 0
        for start, end, text in sorted(self.edits):
            pieces += [source[cursor:start], text]
            cursor = end
        pieces.append(source[cursor:])
        edited = "".join(pieces)
        return edited[:self.at] + self.declarations + newline + edited[self.at:]


class HoistDeclarations(Exception):
    """Raised by the region builder: read the file again with ``hoisting`` applied.
    ``refusal`` is the error to report where that cannot be done (the region's
    statement macros were expanded in place)."""

    def __init__(self, hoisting: Hoisting, refusal: ScopError):
        super().__init__(refusal.message)
        self.hoisting = hoisting
        self.refusal = refusal


def top_level_declarations(body: c_ast.Compound) -> list[c_ast.Node]:
    """The declarations (and typedefs) among the region's top-level statements."""
    return [item for item in (body.block_items or []) if isinstance(item, (c_ast.Decl, c_ast.Typedef))]


def plan(builder, body: c_ast.Compound) -> Hoisting | None:
    """The `Hoisting` of the region ``builder`` reads (its parsed ``body``), None when
    it declares nothing at its top level. Raises ScopError for a declaration that
    cannot move (see the module's docstring)."""
    declarations = top_level_declarations(body)
    if not declarations:
        return None
    region, plain, macros = builder.region, builder.plain, builder.macros
    moved, edits = [], []
    columns: dict[int, list[tuple[int, int]]] = {}
    # what the region assigned so far (a moved value must not read it), and from the
    # start what a pointer may write: a global another file may reach, a variable
    # whose address the file takes
    written: set[str] = set()
    for name, decl in builder.visible.declarations.items():
        if (decl.origin == "global" and not decl.internal) or re.search(rf"(?<!&)&\s*{re.escape(name)}\b", plain):
            written.add(name)
    ran = False         # whether any code of the region ran before (else any value moves)
    groups: dict[int, list[c_ast.Node]] = {}        # declarators by the declaration they are in
    for item in body.block_items or []:
        if isinstance(item, (c_ast.Decl, c_ast.Typedef)):
            groups.setdefault(_declaration_start(builder, item), []).append(item)
        else:
            groups.setdefault(-1 - len(groups), []).append(item)
    for start, nodes in groups.items():
        if start < 0:
            written |= _expanded(_assigned(nodes), macros)
            ran = True
            continue
        end = statement_end(plain, start, region.end)
        # (a member, p[i].s or p->s, is no use of a variable s)
        before = re.sub(r"(\.|->)\s*[A-Za-z_]\w*", " ", plain[region.start:start])
        used = _expanded(set(re.findall(r"[A-Za-z_]\w*", before)), macros)
        kept: list[tuple[int, int]] = []        # (name, initialiser end) of the initialisers left in place
        cut: list[tuple[int, int]] = []         # spans of ' = e' taken out of the moved declaration
        for node in nodes:
            name = getattr(node, "name", None)
            clash = sorted(_declared_names(node) & used)
            if clash:
                raise builder.error(node, f"'{clash[0]}' is declared at the top level of the region after the "
                                          f"region uses another '{clash[0]}': rename one of them, or declare it "
                                          f"before '#pragma scop'")
            # (a static's initialiser is a constant C evaluates once, before the program runs)
            static = bool({"static", "extern"} & set(getattr(node, "storage", None) or []))
            if ran and not static and any(not _movable(e, written, macros) for e in _extents(node)):
                raise builder.error(node, f"the extent of '{name}', declared at the top level of the region, "
                                          f"depends on what the region computes before it: declare '{name}' "
                                          f"before '#pragma scop'")
            init = getattr(node, "init", None)
            if init is None or static or not ran or _movable(init, written, macros):
                continue
            if not (isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.TypeDecl)) \
                    or isinstance(init, c_ast.InitList) or _const_typedef(node, builder):
                raise builder.error(node, f"'{name}' is declared at the top level of the region with an "
                                          f"initialiser that depends on what the region computes before it; only "
                                          f"a scalar's initialiser can stay in place (not a const typedef's): "
                                          f"declare '{name}' before '#pragma scop'")
            name_at = offset_of(builder.starts, *builder.position(c_ast.ID("", coord=node.coord)))
            equals, init_end = initialiser_span(plain, name_at + len(name), end)
            kept.append((name_at, init_end))
            cut.append((equals, init_end))
            written.add(name)           # assigned there, after what came before
            ran = True
        moved.append(_declaration_text(builder.stripped, start, end, cut))
        edits.append(_assignments(builder.text, start, end, kept, columns, builder.starts))
    first_line = builder.declaration_start(declarations[0])[0]
    indent = re.match(r"[ \t]*", builder.text[builder.starts[first_line - 1]:]).group(0)
    # after a label (`again:`, `case 1:`) C17 wants a statement, not a declaration
    # (gcc 12 accepts one as an extension; -pedantic-errors, older gcc and clang do not)
    labelled = plain[:region.scop_offset].rstrip().endswith(":")
    return Hoisting(region.scop_offset, region.scop_line, indent + "; " * labelled + " ".join(moved),
                    tuple(edits), columns)


def _declaration_start(builder, node: c_ast.Node) -> int:
    """The offset where the declaration holding ``node`` starts: from its first token
    (the type, ``struct pt { ... }`` included) back over qualifiers and storage."""
    k = offset_of(builder.starts, *builder.position(node))
    while k > builder.region.start and builder.plain[k - 1] not in ";{}":
        k -= 1
    while builder.plain[k].isspace():
        k += 1
    return k


def _declared_names(node: c_ast.Node) -> set[str]:
    """The names a declaration introduces: its declarator's, and the tags and
    enumeration constants of the types it defines (``struct pt {...}``, ``enum {K}``)."""
    names = {node.name} if getattr(node, "name", None) else set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.Enumerator):
            names.add(n.name)
        elif isinstance(n, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and n.name and \
                (getattr(n, "decls", None) is not None or getattr(n, "values", None) is not None):
            names.add(n.name)
        stack.extend(child for _, child in n.children())
    return names


def _expanded(names: set[str], macros) -> set[str]:
    """``names`` with the names their macros expand to, recursively (``#define GETS s``:
    reading GETS reads s)."""
    found, todo = set(names), list(names)
    while todo:
        macro = macros.get(todo.pop())
        if macro is None:
            continue
        for word in re.findall(r"[A-Za-z_]\w*", macro.body):
            if word not in found:
                found.add(word)
                todo.append(word)
    return found


def _const_typedef(node: c_ast.Decl, builder) -> bool:
    """Whether ``node``'s type is a typedef name the file declares ``const`` (or one
    it does not declare: a header's, unknown)."""
    names = getattr(getattr(node.type, "type", None), "names", None) or []
    for name in names:
        if name in builder.visible.typedefs:
            found = re.search(rf"\btypedef\b([^;]*?)\b{re.escape(name)}\s*;", builder.plain)
            if found is None or re.search(r"\bconst\b", found.group(1)):
                return True
    return False


def _assigned(nodes: list[c_ast.Node]) -> set[str]:
    """The variables (arrays by name, macros that expand to an lvalue by their name) that
    statements ``nodes`` assign or step."""
    names, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        target = assignment_target(node)
        while isinstance(target, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall)):
            target = target.name        # (SETN(0) = 4: the macro's name, expanded by the caller)
        if isinstance(target, c_ast.ID):
            names.add(target.name)
        stack.extend(child for _, child in node.children())
    return names


def initialiser_span(plain: str, after_name: int, end: int) -> tuple[int, int]:
    """(offset of the ``=``, offset just past the initialiser) of the declarator whose
    name ends at ``after_name``."""
    depth, k = 0, after_name
    while k < end and not (plain[k] == "=" and depth == 0):
        depth += plain[k] in "(["
        depth -= plain[k] in ")]"
        k += 1
    equals, depth = k, 0
    k += 1
    while k < end:
        c = plain[k]
        if c in ",;" and depth <= 0:
            break
        depth += c in "([{"
        depth -= c in ")]}"
        k += 1
    return equals, k


def _extents(node: c_ast.Node) -> list[c_ast.Node]:
    """The extent expressions of an array declarator (``n`` and ``m + 1`` of ``a[n][m + 1]``)."""
    found, t = [], getattr(node, "type", None)
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        if isinstance(t, c_ast.ArrayDecl) and t.dim is not None:
            found.append(t.dim)
        t = t.type
    return found


def _movable(expr: c_ast.Node, written: set[str], macros, seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``expr`` evaluates to the same value before the region as where it is:
    it reads no memory but variables, calls nothing, changes nothing, and names none
    of ``written`` (what the region assigned before it), its macros expanded (a
    macro's body must be such an expression too)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.UnaryOp):
            if node.op not in _PURE_UNARY:
                return False
        elif not isinstance(node, _PURE_NODES):
            return False
        if isinstance(node, c_ast.ID) and node.name in macros:
            if node.name in seen:
                continue
            body = re.sub(r"\d[\w.]*", "0", macros.get(node.name).body)      # (numbers: 1.5e3f)
            words = [c_ast.ID(w) for w in re.findall(r"[A-Za-z_]\w*", body) if w != "sizeof"]
            if re.search(r"[\[.]|->|\+\+|--|(?<![=!<>])=(?!=)|\w\s*\(", body) \
                    or not _movable(c_ast.ExprList(words), written, macros, seen | {node.name}):
                return False
        elif isinstance(node, c_ast.ID) and node.name in written:
            return False
        stack.extend(child for _, child in node.children())
    return True


def _declaration_text(stripped: str, start: int, end: int, cut: list[tuple[int, int]]) -> str:
    """The declaration ``stripped[start:end]`` on one line, without the initialisers
    ``cut`` (and then without ``const``: the variable is assigned in the region)."""
    pieces, cursor = [], start
    for a, b in sorted(cut):
        pieces += [stripped[cursor:a].rstrip()]
        cursor = b
    pieces.append(stripped[cursor:end])
    text = re.sub(r"\s+", " ", re.sub(r"\\\r?\n", " ", "".join(pieces))).strip()     # (continuations joined)
    if cut:
        text = re.sub(r"\bconst\b\s*", "", text)
    return text


def _assignments(text: str, start: int, end: int, kept: list[tuple[int, int]],
                 columns: dict[int, list[tuple[int, int]]], starts: list[int]) -> tuple[int, int, str]:
    """The edit of declaration ``text[start:end]`` leaving only its initialisers
    ``kept`` (``s = e``, from the name to the initialiser's end), joined by commas and
    ended by ``;`` (``double s = e, t;`` -> ``s = e;``), newlines kept; without them,
    the whitespace around it on its lines goes too. Records in ``columns`` where text
    moved (lines numbered after the line inserted before the region)."""
    line_of = lambda offset: text.count("\n", 0, offset) + 1          # noqa: E731
    column_of = lambda offset: offset - starts[line_of(offset) - 1] + 1   # noqa: E731
    if not kept or line_of(kept[0][0]) != line_of(start):
        while start > 0 and text[start - 1] in " \t":
            start -= 1
    rest = end
    while rest < len(text) and text[rest] in " \t":
        rest += 1
    if rest == len(text) or text[rest] in "\r\n":
        end = rest
    out, cursor = [], start

    def dropped(upto: int) -> None:
        out.extend(re.findall(r"\r?\n", text[cursor:upto]))

    def anchor(offset: int) -> None:
        written = "".join(out)
        column = len(written) - written.rfind("\n") if "\n" in written else column_of(start) + len(written)
        columns.setdefault(line_of(offset) + 1, []).append((column, column_of(offset)))

    for k, (a, b) in enumerate(sorted(kept)):
        dropped(a)
        anchor(a)
        out.append(text[a:b])
        out.append(", " if k < len(kept) - 1 else ";")
        cursor = b
    dropped(end)
    if kept or end < len(text) and text[end] not in "\r\n":
        anchor(end)
    return start, end, "".join(out)
