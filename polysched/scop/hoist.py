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
global of external linkage, nor a variable whose address the file takes): ``int m = n /
2;``, ``double w[3] = {1, 2, 3};``, ``double t[n];``. Otherwise a scalar's initialiser stays
in place as an assignment (``double s = A[0];`` -> ``s = A[0];``); an array or pointer
whose initialiser or extent depends on the region is refused. So is a name the region
uses before declaring it (the other variable of that name), whose meaning moving the
declaration would change.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from .model import ScopError
from .source import offset_of

# nodes of an expression whose value depends only on the variables it names (no
# memory reached through subscripts, members or pointers, no call, no side effect)
_PURE_NODES = (c_ast.Constant, c_ast.ID, c_ast.BinaryOp, c_ast.TernaryOp, c_ast.Cast, c_ast.Typename,
               c_ast.TypeDecl, c_ast.IdentifierType, c_ast.PtrDecl, c_ast.InitList, c_ast.NamedInitializer,
               c_ast.ExprList)
_PURE_UNARY = {"-", "+", "!", "~", "sizeof"}


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
    region, plain = builder.region, builder.plain
    moved, edits = [], []
    columns: dict[int, list[tuple[int, int]]] = {}
    # what the region assigned so far (a moved value must not read it), and from the
    # start what a pointer may write: a global another file may reach, a variable
    # whose address the file takes
    written: set[str] = set()
    for name, decl in builder.visible.declarations.items():
        if (decl.origin == "global" and not decl.internal) or re.search(rf"(?<!&)&\s*{re.escape(name)}\b", plain):
            written.add(name)
    groups: dict[int, list[c_ast.Node]] = {}        # declarators by the declaration they are in
    for item in body.block_items or []:
        if isinstance(item, (c_ast.Decl, c_ast.Typedef)):
            groups.setdefault(offset_of(builder.starts, *builder.declaration_start(item)), []).append(item)
        else:
            groups.setdefault(-1 - len(groups), []).append(item)
    for start, nodes in groups.items():
        if start < 0:
            written |= _assigned(nodes)
            continue
        end = _statement_end(plain, start, region.end)
        used = set(re.findall(r"[A-Za-z_]\w*", plain[region.start:start]))
        kept: list[tuple[int, int]] = []        # (name, initialiser end) of the initialisers left in place
        cut: list[tuple[int, int]] = []         # spans of ' = e' taken out of the moved declaration
        for node in nodes:
            name = getattr(node, "name", None)
            if name and name in used:
                raise builder.error(node, f"'{name}' is declared at the top level of the region after the region "
                                          f"uses another '{name}': rename one of them, or declare '{name}' before "
                                          f"'#pragma scop'")
            if any(not _movable(e, written) for e in _extents(node)):
                raise builder.error(node, f"the extent of '{name}', declared at the top level of the region, "
                                          f"depends on what the region computes before it: declare '{name}' "
                                          f"before '#pragma scop'")
            init = getattr(node, "init", None)
            if init is None or _movable(init, written):
                continue
            if not (isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.TypeDecl)) \
                    or isinstance(init, c_ast.InitList):
                raise builder.error(node, f"'{name}' is declared at the top level of the region with an "
                                          f"initialiser that depends on what the region computes before it; only "
                                          f"a scalar's initialiser can stay in place: declare '{name}' before "
                                          f"'#pragma scop'")
            name_at = offset_of(builder.starts, *builder.position(c_ast.ID("", coord=node.coord)))
            equals, init_end = _initialiser_span(plain, name_at + len(name), end)
            kept.append((name_at, init_end))
            cut.append((equals, init_end))
            written.add(name)           # assigned there, after what came before
        moved.append(_declaration_text(builder.stripped, start, end, cut))
        edits.append(_assignments(builder.text, start, end, kept, columns, builder.starts))
    first_line = builder.declaration_start(declarations[0])[0]
    indent = re.match(r"[ \t]*", builder.text[builder.starts[first_line - 1]:]).group(0)
    return Hoisting(region.scop_offset, region.scop_line, indent + " ".join(moved), tuple(edits), columns)


def _assigned(nodes: list[c_ast.Node]) -> set[str]:
    """The variables (arrays by name) that statements ``nodes`` assign or step."""
    names, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        target = node.lvalue if isinstance(node, c_ast.Assignment) else \
            node.expr if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--") else None
        while isinstance(target, (c_ast.ArrayRef, c_ast.StructRef)):
            target = target.name
        if isinstance(target, c_ast.ID):
            names.add(target.name)
        stack.extend(child for _, child in node.children())
    return names


def _statement_end(plain: str, start: int, limit: int) -> int:
    """The offset just past the ``;`` ending the declaration that starts at ``start``."""
    depth, k = 0, start
    while k < limit:
        c = plain[k]
        depth += c in "([{"
        depth -= c in ")]}"
        if c == ";" and depth <= 0:
            return k + 1
        k += 1
    return limit


def _initialiser_span(plain: str, after_name: int, end: int) -> tuple[int, int]:
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


def _movable(expr: c_ast.Node, written: set[str]) -> bool:
    """Whether ``expr`` evaluates to the same value before the region as where it is:
    it reads no memory but variables, calls nothing, changes nothing, and names none
    of ``written`` (what the region assigned before it)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.UnaryOp):
            if node.op not in _PURE_UNARY:
                return False
        elif not isinstance(node, _PURE_NODES):
            return False
        if isinstance(node, c_ast.ID) and node.name in written:
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
    text = re.sub(r"\s+", " ", "".join(pieces)).strip()
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
