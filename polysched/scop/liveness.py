"""Which loop iterators of a region the code around it may read.

C leaves a loop iterator at its final value after the loop (``i == n`` after
``for (i = 0; i < n; i++)``). A program may print or use it after the region, so the
emitted code must leave it at that value too (see ``emit_c/versioning.py``). This
module decides, from the text of the enclosing function, which iterators can be
observed: conservatively, every iterator except

- those declared in their own ``for`` (``for (int i = ...)``): dead after the loop;
- locals and parameters of the enclosing function that are never mentioned in its
  body outside the region, other than in their declaration.

Globals are always observable (other functions may read them).
"""
from __future__ import annotations

import re

from .declarations import Visible
from .source import IDENT_RE, FunctionText, Region

_DECL_START = re.compile(
    r"^\s*(?:(?:const|volatile|register|static|auto|signed|unsigned|short|long|int|char|"
    r"size_t|ssize_t|ptrdiff_t|u?int(?:8|16|32|64|ptr|max)_t|_Bool|bool)\b\s*)+")


def _function_body_end(plain: str, region_end: int) -> int:
    """Offset of the ``}`` closing the function body that contains ``region_end``."""
    depth = 0
    for k in range(region_end, len(plain)):
        c = plain[k]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return k
            depth -= 1
    return len(plain)


def _is_declaration_mention(text: str, pos: int) -> bool:
    """Whether the identifier at ``text[pos]`` is declared there without being read:
    the statement starts with integer type words, has no call or brace, and the name
    is followed by ``,`` ``;`` or ``=`` (an initialiser writes, it does not read)."""
    start = max(text.rfind(";", 0, pos), text.rfind("{", 0, pos), text.rfind("}", 0, pos)) + 1
    head = text[start:pos]
    if "(" in head or not _DECL_START.match(head):
        return False
    rest = text[pos:].lstrip()
    name = IDENT_RE.match(rest)
    after = rest[name.end():].lstrip()[:1] if name else ""
    return after in (",", ";", "=")


def live_iterators(plain: str, region: Region, function: FunctionText | None, visible: Visible,
                   iterators: set[str], loop_scoped: set[str]) -> tuple[str, ...]:
    """The iterators (sorted) whose value after the region may be read.

    ``plain``: the file text with comments, strings and directives blanked (offsets
    equal to the original's); ``region``: the region's offsets in it."""
    candidates = sorted(iterators - set(loop_scoped))
    if function is None:
        return tuple(candidates)
    body_start = function.body_offset
    body_end = _function_body_end(plain, region.end)
    outside = [(body_start, region.start), (region.end, body_end)]
    live = []
    for name in candidates:
        decl = visible.declarations.get(name)
        if decl is None or decl.origin == "global":
            live.append(name)
            continue
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        mentioned = False
        for lo, hi in outside:
            for m in pattern.finditer(plain, lo, hi):
                if not _is_declaration_mention(plain, m.start()):
                    mentioned = True
                    break
            if mentioned:
                break
        if mentioned:
            live.append(name)
    return tuple(live)


def address_taken(plain: str, region: Region, function: FunctionText | None, visible: Visible,
                  names: set[str]) -> tuple[str, ...]:
    """The ``names`` (sorted) whose address the program takes where a pointer made from
    it may be used inside the region: before the region in the enclosing function, or
    anywhere in the file for a global (or a name the function does not declare). A
    pointer in the region may then read or write the variable (``int *p = &i``, then
    ``p[0]`` in a loop over ``i``), which isl sees as distinct memory: the run-time check
    tests their addresses (emit_c/versioning.py)."""
    found = []
    for name in sorted(names):
        decl = visible.declarations.get(name)
        if decl is None or decl.origin == "global" or function is None:
            spans = [(0, region.start), (region.end, len(plain))]
        else:
            spans = [(function.body_offset, region.start)]
        pattern = re.compile(rf"(?<![&\w)\]])&\s*\(?\s*{re.escape(name)}\b(?!\s*[\[.]|\s*->)")
        if any(pattern.search(plain, lo, hi) for lo, hi in spans):
            found.append(name)
    return tuple(found)
