"""Which loop iterators and scalars of a region the code around it may read.

C leaves a loop iterator at its final value after the loop (``i == n`` after
``for (i = 0; i < n; i++)``). A program may print or use it after the region, so the
emitted code must leave it at that value too (see ``emit_c/versioning.py``); a scalar
written in the region may be private to a parallel loop only if nothing reads it
after the region (``dependence/scalars.py``). This module decides, from the text of
the enclosing function, which of them can be observed: conservatively, every one except

- those declared in their own ``for`` (``for (int i = ...)``): dead after the loop;
- locals and parameters of the enclosing function that are never mentioned in its
  body outside the region, other than in their declaration.

Globals are observable unless ``static`` and never mentioned elsewhere in the file
(another file may read one with external linkage; macros in the file are expanded).
"""
from __future__ import annotations

import re

from .declarations import Visible
from .macros import MacroTable
from .source import IDENT_RE, FunctionText, Region

_TYPE_WORDS = frozenset(
    "const volatile register static auto signed unsigned short long int char size_t ssize_t "
    "ptrdiff_t intptr_t uintptr_t intmax_t uintmax_t int8_t int16_t int32_t int64_t uint8_t "
    "uint16_t uint32_t uint64_t _Bool bool float double _Complex".split())


def _function_body_end(plain: str, function: FunctionText) -> int:
    """Offset of the ``}`` closing the function's body (a region inside an inner block
    ``{ ... }`` is followed by that block's brace first)."""
    depth = 0
    for k in range(function.body_offset, len(plain)):
        c = plain[k]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return k
            depth -= 1
    return len(plain)


def _is_declaration_mention(text: str, pos: int, typedefs: set[str]) -> bool:
    """Whether the identifier at ``text[pos]`` is declared there without being read:
    the statement starts with type words (or typedef names), has no call or brace, the
    name is a declarator (right after the type words or a comma: ``int x = j;`` reads
    j), and it is followed by ``,`` ``;`` or ``=`` (an initialiser writes, it does not
    read)."""
    start = max(text.rfind(";", 0, pos), text.rfind("{", 0, pos), text.rfind("}", 0, pos)) + 1
    head = text[start:pos]
    if "(" in head:
        return False
    declarators = head.split(",")
    words = declarators[0].replace("*", " ").split()
    type_words = [w for w in words if w in _TYPE_WORDS or w in typedefs]
    if not type_words or type_words != words[:len(type_words)]:
        return False
    # what stands between the type and the name must be nothing but pointer stars:
    # 'int x = ' before it is a read of the name in x's initialiser
    if len(declarators) == 1 and words[len(type_words):]:
        return False
    if len(declarators) > 1 and declarators[-1].strip(" \t\n*"):
        return False
    rest = text[pos:].lstrip()
    name = IDENT_RE.match(rest)
    after = rest[name.end():].lstrip()[:1] if name else ""
    return after in (",", ";", "=")


def live_after(plain: str, region: Region, function: FunctionText | None, visible: Visible,
               names: set[str], macros: MacroTable) -> tuple[str, ...]:
    """The ``names`` (iterators or scalars; sorted) whose value after the region may be
    read. ``names`` leaves out the iterators declared in their own ``for``.

    ``plain``: the file text with comments, strings and directives blanked (offsets
    equal to the original's); ``region``: the region's offsets in it."""
    candidates = sorted(names)
    if function is None:
        return tuple(candidates)
    outside = [(function.body_offset, region.start), (region.end, _function_body_end(plain, function))]

    def read_through_macros(spans: list[tuple[int, int]]) -> set[str]:
        """The names the macros used in ``spans`` read (#define RESULT j ... return RESULT;)."""
        found = set()
        for lo, hi in spans:
            for word in set(IDENT_RE.findall(plain, lo, hi)) & set(macros.macros):
                found |= macros.names_reached(word)
        return found

    through_macros = read_through_macros(outside)
    read_in_file = None      # the same, for a static global: anywhere outside the region
    live = []
    for name in candidates:
        decl = visible.declarations.get(name)
        if decl is None or (decl.origin == "global" and not decl.internal) or name in through_macros:
            live.append(name)
            continue
        # a static global: any function of the file may read it, through a macro too
        spans = outside
        if decl.origin == "global":
            spans = [(0, region.start), (region.end, len(plain))]
            if read_in_file is None:
                read_in_file = read_through_macros(spans)
            if name in read_in_file:
                live.append(name)
                continue
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        mentioned = False
        for lo, hi in spans:
            for m in pattern.finditer(plain, lo, hi):
                if not _is_declaration_mention(plain, m.start(), visible.typedefs):
                    mentioned = True
                    break
            if mentioned:
                break
        if mentioned:
            live.append(name)
    return tuple(live)


def address_taken(plain: str, region: Region, function: FunctionText | None, visible: Visible,
                  names: set[str], macros: MacroTable) -> tuple[str, ...]:
    """The ``names`` (sorted) whose address the program takes where a pointer made from
    it may be used inside the region: anywhere in the enclosing function outside the
    region (after it too: an enclosing loop comes back), or anywhere in the file for a
    global (or a name the function does not declare), macros expanded. A pointer in the
    region may then read or write the variable (``int *p = &i``, then ``p[0]`` in a loop
    over ``i``), which isl sees as distinct memory: the run-time check tests their
    addresses (emit_c/versioning.py). Any ``&name`` counts (``(double *)&acc``); a
    bitwise and read as one only adds a check."""
    if function is None:
        texts = [plain[:region.start], plain[region.end:]]
    else:
        texts = [plain[function.body_offset:region.start], plain[region.end:_function_body_end(plain, function)]]
    expanded = [macros.expand(text) if "&" in text or set(IDENT_RE.findall(text)) & set(macros.macros) else text
                for text in texts]
    whole_file = None
    found = []
    for name in sorted(names):
        decl = visible.declarations.get(name)
        pattern = re.compile(rf"(?<!&)&[\s(]*{re.escape(name)}\b(?!\s*[\[.]|\s*->)")     # &((acc))
        if decl is None or decl.origin == "global":
            if whole_file is None:
                whole_file = [macros.expand(plain[:region.start]), macros.expand(plain[region.end:])]
            spans = whole_file
        else:
            spans = expanded
        if any(pattern.search(text) for text in spans):
            found.append(name)
    return tuple(found)
