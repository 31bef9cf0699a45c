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


_LOOP_WORDS = ("for", "while")


def _word_before(plain: str, end: int) -> tuple[str, int]:
    """The identifier ending at ``end`` (whitespace skipped) and its start."""
    k = end
    while k > 0 and plain[k - 1].isspace():
        k -= 1
    start = k
    while start > 0 and (plain[start - 1].isalnum() or plain[start - 1] == "_"):
        start -= 1
    return plain[start:k], start


def _headers_loop(plain: str, pos: int, floor: int) -> bool | None:
    """Whether the statement starting at ``pos`` is (through a chain of unbraced
    headers: ``for (...) if (...) <statement>``) the body of a loop: True, False, or
    None when the text before it is no header (a block's start, a statement's end)."""
    while pos > floor:
        k = pos
        while k > floor and plain[k - 1].isspace():
            k -= 1
        if k <= floor:
            return None
        if plain[k - 1] == ")":
            depth, j = 0, k - 1
            while j >= floor:
                depth += {")": 1, "(": -1}.get(plain[j], 0)
                if depth == 0:
                    break
                j -= 1
            word, start = _word_before(plain, j)
            if word in _LOOP_WORDS:
                return True
            if word not in ("if", "switch"):
                return None
            pos = start
            continue
        word, start = _word_before(plain, k)
        if word == "do":
            return True
        if word == "else":       # the loop may be above the if: not followed, assumed
            return True
        return None
    return None


def runs_again(plain: str, region: Region, function: FunctionText | None) -> bool:
    """Whether one call of the enclosing function may run the region more than once: it
    lies in the body of a ``for``, ``while`` or ``do`` (at any depth), or the function
    has a ``goto``. A value the region reads is then one its own last run may have
    left."""
    if function is None:
        return False
    end = _function_body_end(plain, function)
    if re.search(r"\bgoto\b", plain[function.body_offset:end]):
        return True
    floor = function.body_offset + 1 if plain[function.body_offset:function.body_offset + 1] == "{" \
        else function.body_offset
    pos = region.start
    while True:
        if _headers_loop(plain, pos, floor):
            return True
        # the block around: its unmatched '{' before pos
        depth, k = 0, pos - 1
        while k >= floor:
            c = plain[k]
            if c == "}":
                depth += 1
            elif c == "{":
                if depth == 0:
                    break
                depth -= 1
            k -= 1
        if k < floor:
            return False
        pos = k


def live_after(plain: str, region: Region, function: FunctionText | None, visible: Visible,
               names: set[str], macros: MacroTable, reread=None) -> tuple[str, ...]:
    """The ``names`` (iterators or scalars; sorted) whose value after the region may be
    read. ``names`` leaves out the iterators declared in their own ``for``. Those that
    ``reread()`` returns (the region reads their value on entry) are live when the
    region may run again and see its own last value: a ``static`` local (the next call),
    or the region in a loop.

    ``plain``: the file text with comments, strings and directives blanked (offsets
    equal to the original's); ``region``: the region's offsets in it."""
    candidates = sorted(names)
    if function is None:
        return tuple(candidates)
    again = runs_again(plain, region, function)
    entry_reads = None

    def read_on_entry(name: str) -> bool:
        nonlocal entry_reads
        if reread is None:
            return False
        if entry_reads is None:
            entry_reads = reread()
        return name in entry_reads
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
        if decl is None or (decl.origin == "global" and not decl.internal) or name in through_macros \
                or ((again or decl.internal) and read_on_entry(name)):
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


def _around_region(plain: str, region: Region, function: FunctionText | None, macros: MacroTable) -> list[str]:
    """The text of the enclosing function before and after the region (of the file,
    without a function), macros expanded where it uses some (or takes an address)."""
    if function is None:
        texts = [plain[:region.start], plain[region.end:]]
    else:
        texts = [plain[function.body_offset:region.start], plain[region.end:_function_body_end(plain, function)]]
    return [macros.expand(text) if "&" in text or set(IDENT_RE.findall(text)) & set(macros.macros) else text
            for text in texts]


def address_taken(plain: str, region: Region, function: FunctionText | None, visible: Visible,
                  names: set[str], macros: MacroTable, c_texts: dict[str, str] | None = None) -> tuple[str, ...]:
    """The ``names`` (sorted) whose address the program takes where a pointer made from
    it may be used inside the region: anywhere in the enclosing function outside the
    region (after it too: an enclosing loop comes back), or anywhere in the file for a
    global (or a name the function does not declare), macros expanded. A pointer in the
    region may then read or write the variable (``int *p = &i``, then ``p[0]`` in a loop
    over ``i``), which isl sees as distinct memory: the run-time check tests their
    addresses (emit_c/versioning.py). A global of external linkage, or a name the file
    does not declare (a header's variable), counts whatever the file does: another file
    or a header may take its address. Any ``&name`` counts (``(double *)&acc``); a
    bitwise and read as one only adds a check. A struct member (``c_texts``: ``s__len``
    is ``s.len``) counts when its own address or its struct's is taken (``&s.len``,
    ``&s``)."""
    expanded = _around_region(plain, region, function, macros)
    whole_file = None
    found = []
    for name in sorted(names):
        c_text = (c_texts or {}).get(name, name)
        base = name
        path = re.findall(r"[A-Za-z_]\w*", c_text)
        if len(path) > 1 and re.fullmatch(r"[A-Za-z_]\w*(\s*\.\s*[A-Za-z_]\w*)+", c_text):
            # &s.len, or &s (then p->len): the struct's variable decides where to look
            member = r"\s*\.\s*".join(map(re.escape, path))
            base = path[0]
            pattern = re.compile(rf"(?<!&)&[\s(]*({member}|{re.escape(base)})\b(?!\s*[\[.]|\s*->)")
        else:
            pattern = re.compile(rf"(?<!&)&[\s(]*{re.escape(name)}\b(?!\s*[\[.]|\s*->)")     # &((acc))
        decl = visible.declarations.get(base)
        if (decl is None and base not in macros) or (decl is not None and decl.origin == "global" and not decl.internal):
            # a global another file (or a header's inline function) may take the address
            # of: &count need not be written in this file
            found.append(name)
            continue
        if decl is None or decl.origin == "global":
            if whole_file is None:
                whole_file = [macros.expand(plain[:region.start]), macros.expand(plain[region.end:])]
            spans = whole_file
        else:
            spans = expanded
        if any(pattern.search(text) for text in spans):
            found.append(name)
    return tuple(found)


def restrict_escapes(plain: str, region: Region, function: FunctionText | None, names: set[str],
                     macros: MacroTable) -> set[str]:
    """The ``restrict`` parameters of ``names`` that the function (outside the region,
    macros expanded) uses other than as ``a[...]``: ``b = a + 1``, ``f(a)``, ``&a[k]``
    may make another pointer, even a parameter or a global, *based on* ``a``, which C
    lets overlap it. Only a parameter the function reads through subscripts alone is
    kept apart from the other parameters and globals by its ``restrict``."""
    if function is None:
        return set(names)
    texts = _around_region(plain, region, function, macros)
    escaping = set()
    for name in names:
        use = re.compile(rf"(?<![\w.>])(&\s*)?{re.escape(name)}\b(\s*\[)?")
        if any(m.group(1) or not m.group(2) for text in texts for m in use.finditer(text)):
            escaping.add(name)
    return escaping
