"""Source-text utilities for the C front end: comment stripping, ``#pragma scop``
regions, the enclosing function, and identifier tokens.

Everything here works on character offsets into the original file, so that line and
column numbers reported to the user are those of the original source.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from polysched.textio import DIRECTIVE, DIRECTIVE_START
from .model import ScopError

IDENT_RE = re.compile(r"[A-Za-z_]\w*")
_PRAGMA_RE = re.compile(rf"^{DIRECTIVE}pragma[ \t]+(scop|endscop)\b")
_DIRECTIVE_RE = re.compile(rf"^{DIRECTIVE_START}")


def strip_comments(text: str) -> str:
    """``text`` with every comment replaced by spaces (newlines kept), so offsets,
    lines and columns are unchanged. String and character literals are kept."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            # a backslash-newline continues the comment on the next line
            while j > 0 and text[j - 1 - (text[j - 1] == "\r" and j >= 2)] == "\\":
                nxt = text.find("\n", j + 1)
                j = n if nxt < 0 else nxt
            j = n if j < 0 else j
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return "".join(out)


def blank_strings_and_directives(stripped: str) -> str:
    """Comment-free text with string/char literals and preprocessor lines blanked:
    what remains is plain C tokens, for brace matching and declaration scans."""
    return blank_directives(blank_strings(stripped))


def blank_strings(stripped: str) -> str:
    """Comment-free text with string and character literals blanked."""
    out = list(stripped)
    i, n = 0, len(stripped)
    while i < n:
        c = stripped[i]
        if c in "\"'":
            j = i + 1
            while j < n and stripped[j] != c and stripped[j] != "\n":
                j += 2 if stripped[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def blank_directives(text: str) -> str:
    """``text`` with preprocessor lines (and their continuations) blanked."""
    lines = text.split("\n")
    in_directive = False
    for idx, line in enumerate(lines):
        if in_directive or _DIRECTIVE_RE.match(line):
            in_directive = line.rstrip().endswith("\\")
            lines[idx] = " " * len(line)
    return "\n".join(lines)


_CONDITIONAL_LINE_RE = re.compile(rf"{DIRECTIVE}(if|ifdef|ifndef|elif|else|endif)\b")


class UnbalancedConditional(ValueError):
    """An ``#elif``/``#else``/``#endif`` without its ``#if`` (``at``: its index in the
    directives), or an ``#if`` left open (``at`` None)."""

    def __init__(self, at: int | None, word: str):
        super().__init__(word)
        self.at, self.word = at, word


def conditional_groups(directives: list[tuple[int, int, str]]) -> list[list[list]]:
    """The ``#if`` ... ``#endif`` groups of ``directives`` (in order: first line, last
    line, text), each a list of its branches ``[condition, first line, end line]``
    (the lines between its directive and the next one; an ``#else``'s condition is
    ``(1)``). Raises `UnbalancedConditional`."""
    groups, stack = [], []
    for at, (first, last, directive) in enumerate(directives):
        word, rest = re.match(r"\s*#\s*(\w+)(.*)", directive, re.S).groups()
        rest = " ".join(rest.split())
        if word in ("if", "ifdef", "ifndef"):
            condition = {"if": f"({rest})", "ifdef": f"defined({rest})", "ifndef": f"!defined({rest})"}[word]
            stack.append([[condition, last + 1, None]])
            groups.append(stack[-1])
            continue
        if not stack:
            raise UnbalancedConditional(at, word)
        group = stack[-1]
        group[-1][2] = first
        if word == "endif":
            stack.pop()
        else:
            group.append(["(1)" if word == "else" else f"({rest})", last + 1, None])
    if stack:
        raise UnbalancedConditional(None, "if")
    return groups


def untaken_lines(stripped: str, kept: frozenset[int]) -> set[int]:
    """The lines (1-based) of the ``#if``/``#elif``/``#else`` branches of ``stripped``
    (comment-free) that the compiler does not read: a branch with code of which the
    preprocessor kept no line (``kept``: `macros.kept_lines`). A ``typedef`` there
    (``#if 0 typedef long elem; #endif``) is not the file's."""
    lines = stripped.split("\n")
    directives = [(k, k, line) for k, line in enumerate(lines) if _CONDITIONAL_LINE_RE.match(line)]
    try:
        groups = conditional_groups(directives)
    except UnbalancedConditional:
        return set()          # the preprocessor has said so already
    untaken: set[int] = set()
    for group in groups:
        for _, start, end in group:
            code = [j for j in range(start, end) if lines[j].strip() and not lines[j].lstrip().startswith("#")]
            if code and not any(j + 1 in kept for j in code):
                untaken.update(j + 1 for j in range(start, end))
    return untaken


def blank_lines(text: str, numbers: set[int]) -> str:
    """``text`` with the lines ``numbers`` (1-based) blanked, offsets kept."""
    lines = text.split("\n")
    for n in numbers:
        if 0 < n <= len(lines):
            lines[n - 1] = " " * len(lines[n - 1])
    return "\n".join(lines)


def statement_end(plain: str, start: int, limit: int) -> int:
    """The offset just past the ``;`` that ends the statement (or declaration) starting
    at ``start`` in ``plain`` (comments and strings blanked), outside brackets;
    ``limit`` when there is none before it."""
    depth, k = 0, start
    while k < limit:
        c = plain[k]
        depth += c in "([{"
        depth -= c in ")]}"
        if c == ";" and depth <= 0:
            return k + 1
        k += 1
    return limit


def line_starts(text: str) -> list[int]:
    """Offsets of the first character of every line (line k+1 starts at [k])."""
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def offset_of(starts: list[int], line: int, col: int) -> int:
    """Offset of 1-based ``line``/``col``."""
    return starts[line - 1] + col - 1


def line_col(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset``."""
    import bisect
    k = bisect.bisect_right(starts, offset) - 1
    return k + 1, offset - starts[k] + 1


@dataclass
class Region:
    """One ``#pragma scop`` region: ``text[start:end]`` lies strictly between the
    pragma lines; ``scop_line``/``endscop_line`` are the 1-based pragma lines."""

    start: int
    end: int
    scop_line: int
    endscop_line: int
    scop_offset: int
    # polysched's own output: the whole region (what a new output replaces), where
    # ``start:end`` is only the original code it kept (see `original_of_output`)
    outer: tuple[int, int] | None = None


# The lines around the original code that polysched keeps in a versioned region (the
# fallback when the run-time check fails), so that its output can be optimized again:
# from the original code, not from the code generated the first time.
# The begin line carries a digest of the generated code around the original: a region
# edited there (code added before or after the if/else) is not taken for an output.
ORIGINAL_BEGIN = "/* polysched: the original code, run when the check fails ({}) */"
ORIGINAL_END = "/* polysched: end of the original code */"
_ORIGINAL_BEGIN_RE = re.compile(re.escape(ORIGINAL_BEGIN).replace(r"\{\}", r"([0-9a-f]{16})"))


def generated_digest(head: str, tail: str) -> str:
    """The digest of a region's generated code: ``head`` (up to the begin line) and
    ``tail`` (after the end line), line endings ignored."""
    import hashlib
    both = (head + "\0" + tail).replace("\r", "")
    return hashlib.sha256(both.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def original_in_output(body: str) -> str | None:
    """The original code a region's generated ``body`` keeps between its marker lines
    (whole lines), or None when it keeps none."""
    lines = body.splitlines(keepends=True)
    begins = [k for k, line in enumerate(lines) if _ORIGINAL_BEGIN_RE.fullmatch(line.strip())]
    ends = [k for k, line in enumerate(lines) if line.strip() == ORIGINAL_END]
    if len(begins) != 1 or len(ends) != 1 or ends[0] <= begins[0]:
        return None
    return "".join(lines[begins[0] + 1:ends[0]])


def _guarded_output(body: str) -> tuple[int, int]:
    """For a region of polysched's output under its own preprocessor guard
    (``#if G`` generated ``#else`` original ``#endif``: emit_c.assemble), the lengths of
    the text before and after the generated part; (0, 0) for any other region."""
    first = body.split("\n", 1)[0]
    original = original_in_output(body)
    if not re.match(rf"{DIRECTIVE}if\b", first) or original is None:
        return 0, 0
    for nl in ("\r\n", "\n"):
        suffix = f"#else{nl}{original}#endif{nl}"
        if body.endswith(suffix):
            return len(first) + 1, len(suffix)
    return 0, 0


def original_of_output(text: str, region: Region, filename: str = "<input>") -> Region:
    """``region`` itself, or, when it is polysched's output with the original code kept
    between the `ORIGINAL_BEGIN` and `ORIGINAL_END` lines (the code around them as
    generated: `generated_digest`), the region of that code (its ``outer`` the whole
    region; the marker lines play the pragma lines). An output edited around its
    original code is a ScopError: what the edit meant cannot be known."""
    body = text[region.start:region.end]
    lines = [line.strip() for line in body.split("\n")]
    begins = [k for k, line in enumerate(lines) if _ORIGINAL_BEGIN_RE.fullmatch(line)]
    ends = [k for k, line in enumerate(lines) if line == ORIGINAL_END]
    if not begins and not ends:
        return region
    where = region.scop_line + 1 + (begins or ends)[0]
    if len(begins) != 1 or len(ends) != 1 or ends[0] <= begins[0]:
        raise ScopError(filename, where, 1, "polysched's output with its original-code marker lines "
                        "missing, repeated or out of order: optimize the original file instead")
    first, last = begins[0], ends[0]
    offsets = [region.start]
    for line in body.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    digest = _ORIGINAL_BEGIN_RE.fullmatch(lines[first]).group(1)
    before, after = _guarded_output(body)
    if generated_digest(text[region.start + before:offsets[first]],
                        text[offsets[last + 1] - 1:region.end - after]) != digest:
        raise ScopError(filename, where, 1, "polysched's output edited outside its original code (between the "
                        "marker lines): optimize the original file, or edit only the original code")
    return Region(offsets[first + 1], offsets[last], region.scop_line + 1 + first,
                  region.scop_line + 1 + last, offsets[first], outer=(region.start, region.end))


def find_regions(filename: str, stripped: str, text: str | None = None) -> list[Region]:
    """Every ``#pragma scop`` ... ``#pragma endscop`` pair, in order.

    Raises ScopError for a nested ``#pragma scop``, a missing ``#pragma endscop``
    (pointing at the opening pragma) or a stray ``#pragma endscop``; with ``text``
    (the file as written, of which ``stripped`` is `strip_comments`), also for a
    pragma line that a block comment joins to another line (see `_comment_across`)."""
    regions: list[Region] = []
    open_line = None
    open_offset = 0
    region_start = 0
    offset = 0
    for lineno, line in enumerate(stripped.split("\n"), start=1):
        m = _PRAGMA_RE.match(line)
        if m:
            col = line.index("#") + 1
            if text is not None:
                _comment_across(filename, lineno, text[offset:offset + len(line)], line, m.group(1))
            if m.group(1) == "scop":
                if open_line is not None:
                    raise ScopError(filename, lineno, col,
                                    f"nested '#pragma scop' (the region opened at line {open_line} has no '#pragma endscop' before it)")
                open_line, open_offset = lineno, offset
                region_start = offset + len(line) + 1
            else:
                if open_line is None:
                    raise ScopError(filename, lineno, col, "'#pragma endscop' without a matching '#pragma scop'")
                regions.append(Region(region_start, offset, open_line, lineno, open_offset))
                open_line = None
        offset += len(line) + 1
    if open_line is not None:
        line = stripped.split("\n")[open_line - 1]
        raise ScopError(filename, open_line, line.index("#") + 1, "'#pragma scop' without a matching '#pragma endscop'")
    return regions


def _comment_across(filename: str, lineno: int, written: str, stripped: str, which: str) -> None:
    """Refuse a ``#pragma scop``/``endscop`` line that a block comment joins to the line
    before or after it: the compiler reads the comment as one space, so the lines are
    one (``x = 1; /* ... \n ... */ #pragma scop`` is no directive), and the region's
    code would be written inside a comment the pragma line opens."""
    start = stripped.index("#")
    before = written[:start]
    closes, opens = before.find("*/"), before.find("/*")
    if closes >= 0 and (opens < 0 or closes < opens):
        raise ScopError(filename, lineno, 1, f"a comment that ends on the '#pragma {which}' line began on an "
                                             "earlier line: the compiler does not see the pragma there")
    opened = written.rfind("/*")
    if opened > start and stripped[opened] == " " and written.find("*/", opened + 2) < 0:
        raise ScopError(filename, lineno, opened + 1, f"a comment that begins on the '#pragma {which}' line "
                                                      "goes on past it: end it on that line")


@dataclass
class FunctionText:
    """The function enclosing a region: ``header`` is the text of its declarator
    (``void kernel(int n, double A[N][N])``), ``body_prefix`` the body text from the
    opening brace up to the region (local declarations live there)."""

    header: str
    header_offset: int
    body_prefix: str
    body_offset: int


def enclosing_function(plain: str, position: int) -> FunctionText | None:
    """The function definition containing ``position`` in ``plain`` (text from
    :func:`blank_strings_and_directives`), or None when the region is at file scope."""
    depth = 0
    boundaries = [0]      # offsets after the top-level ';' and '}'
    body_open = None
    header_start = 0
    for i in range(position):
        c = plain[i]
        if c == "{":
            if depth == 0:
                body_open = i
                header_start = boundaries[-1]
                # K&R: 'void f(m) unsigned m; {' has its parameter list before the ';'
                k = len(boundaries) - 1
                while "(" not in plain[header_start:body_open] and k > 0:
                    k -= 1
                    header_start = boundaries[k]
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                boundaries.append(i + 1)
                body_open = None
        elif c == ";" and depth == 0:
            boundaries.append(i + 1)
    if depth <= 0 or body_open is None:
        return None
    return FunctionText(plain[header_start:body_open], header_start,
                        plain[body_open + 1:position], body_open + 1)


def top_level_text(plain: str) -> str:
    """The file-scope text of ``plain`` with every brace-enclosed body blanked
    (global declarations remain)."""
    out = list(plain)
    depth = 0
    for i, c in enumerate(plain):
        if c == "{":
            depth += 1
            out[i] = ";"
        elif c == "}":
            depth -= 1
            out[i] = ";"
        elif depth > 0 and c != "\n":
            out[i] = " "
    return "".join(out)


def identifiers(plain: str) -> frozenset[str]:
    """Every identifier token of the file (directives included, literals excluded)."""
    return frozenset(IDENT_RE.findall(plain))


_CONTINUATION_RE = re.compile(r"\\(\r?\n)")


def join_continuations(text: str) -> str:
    """``text`` with every backslash-newline deleted, as the C preprocessor does (a
    space where the break separated two tokens, nothing inside a token)."""
    def joined(m: re.Match) -> str:
        return " " if m.group()[0] in " \t" or m.group()[-1] in " \t" else ""
    return re.sub(r"[ \t]*\\\r?\n[ \t]*", joined, text)


def continuations_in_place(text: str) -> str:
    """``text`` with backslash-newlines resolved but every line kept where it was (so
    line numbers stay those of the file): a break between tokens becomes a space; a
    break inside an identifier or number moves the rest of the token up to its
    beginning and leaves spaces in its place."""
    if "\\" not in text:
        return text
    out = list(text)
    for m in _CONTINUATION_RE.finditer(text):
        b = m.start()
        if out[b] != "\\":     # already consumed by a previous move
            continue
        before = text[b - 1] if b > 0 else " "
        k = m.end()
        if before.isalnum() or before == "_":
            while k < len(text) and (text[k].isalnum() or text[k] in "_."):
                k += 1
        moved = text[m.end():k]
        out[b] = moved if moved else " "
        for j in range(m.end(), k):
            out[j] = " "
    return "".join(out)


@dataclass
class LineMap:
    """Presumed locations after ``#line`` directives (and GNU ``# 12 "file"`` markers):
    ``locate(line)`` gives the (file or None, line) that a physical line of the file
    stands for; None as the file means the file's own name."""

    marks: list[tuple[int, str | None, int]]   # (physical line after the directive, file, its line)
    # macros expanded in place (scop.macros.expand_statement_macros): per line, the
    # spans (start, end, original start, original end, the macro's name) of columns
    # that moved
    expansions: dict[int, list[tuple]] = field(default_factory=dict)
    # lines the front end inserted (scop/hoist.py: declarations moved before a region),
    # each standing for the line after it
    inserted: tuple[int, ...] = ()

    @classmethod
    def of(cls, stripped: str, inserted: tuple[int, ...] = ()) -> "LineMap":
        marks: list[tuple[int, str | None, int]] = []
        current: str | None = None
        for lineno, line in enumerate(stripped.split("\n"), start=1):
            m = _LINE_DIRECTIVE_RE.match(line)
            if m:
                if m.group(2) is not None:
                    current = m.group(2).encode("latin-1", "backslashreplace").decode("unicode_escape")
                marks.append((lineno + 1, current, int(m.group(1))))
        return cls(marks, inserted=tuple(inserted))

    def locate(self, line: int) -> tuple[str | None, int]:
        file, start, first = None, 1, 1
        for mark_start, mark_file, mark_first in self.marks:
            if mark_start > line:
                break
            file, start, first = mark_file, mark_start, mark_first
        return file, first + line - start - sum(start <= k < line for k in self.inserted)

    def column(self, line: int, col: int) -> int:
        """The column of the file as written that column ``col`` of the text with its
        statement macros expanded stands for (inside an expansion: the macro's name)."""
        for start, end, original_start, original_end, *_ in reversed(self.expansions.get(line, [])):
            if col >= end:
                return col - end + original_end
            if col >= start:
                return original_start
        return col

    def relocate(self, err: ScopError) -> ScopError:
        """``err`` at the presumed location of its line (unchanged without directives
        or expansions)."""
        if (not self.marks and not self.expansions and not self.inserted) or getattr(err, "relocated", False):
            return err
        file, line = self.locate(err.line)
        # (helper-95: SWAP(x, y)'s 'do { ... } while (0)' was "a 'do'-'while' loop" at the
        # macro's use, which the file shows no loop at)
        macro = next((entry[4] for entry in self.expansions.get(err.line, [])
                      if len(entry) > 4 and entry[0] <= err.col < entry[1]), None)
        message = err.message + (f" (from the expansion of macro '{macro}')" if macro else "")
        moved = ScopError(file or err.filename, line, self.column(err.line, err.col), message)
        moved.relocated = True
        return moved


_LINE_DIRECTIVE_RE = re.compile(rf'^{DIRECTIVE}(?:line[ \t]+)?(\d+)(?:[ \t]+"((?:\\.|[^"\\])*)")?')
