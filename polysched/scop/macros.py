"""The macro table of a C file as the compiler sees it, and a small token-level
expander for declarations and macro bodies.

The table comes from ``gcc -E -dD`` run with the user's ``-D``/``-I`` options, so
``#ifndef`` defaults, ``-D`` overrides and macros from included headers resolve
exactly as in the real compilation. Results are cached per (text, defines, dirs).
"""
from __future__ import annotations

import bisect
import hashlib
import os
import re
import subprocess
from dataclasses import dataclass, field

from polysched.textio import DIRECTIVE, encode_source, read_source

from .model import ScopError
from .source import strip_comments

_DEFINE_RE = re.compile(r"#define ([A-Za-z_]\w*)(\(([^)]*)\))?(?: (.*))?$")
TOKEN_RE = re.compile(
    r"""[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|##|->|<<=|>>=|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%&|^!~<>=?:;,.()\[\]{}#]|\S"""
)
_INT_LITERAL_RE = re.compile(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)[uUlL]*$")
_TYPE_WORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
    "_Bool", "const", "volatile", "restrict", "__restrict", "__restrict__", "_Complex",
}


@dataclass(frozen=True)
class Macro:
    """``#define name(params) body``; ``params`` is None for object-like macros."""

    name: str
    params: tuple[str, ...] | None
    body: str
    # where the definition the compiler read is: "file" (the input itself), "header"
    # (a header of the program's own), "command-line" (-D), "system", "builtin"
    origin: str = field(default="", compare=False)
    # where it is: (file, line) of the #define, then of each #include that led there
    # (innermost first); () when unknown
    site: tuple[tuple[str, int], ...] = field(default=(), compare=False)

    @property
    def is_function_like(self) -> bool:
        return self.params is not None


def int_literal_value(text: str) -> int | None:
    """The value of a C integer literal (``42``, ``0x10``, ``100UL``), else None."""
    text = text.strip()
    m = _INT_LITERAL_RE.match(text)
    if not m:
        return None
    digits = m.group(1)
    if digits.startswith(("0x", "0X")):
        return int(digits, 16)
    if len(digits) > 1 and digits.startswith("0"):
        return int(digits, 8)
    return int(digits)


def char_literal_value(text: str) -> int | None:
    """The value of a plain character constant (``'a'``: printable ASCII, no escape,
    the same on every machine), else None (``'\\xff'`` is -1 or 255 by the machine)."""
    plain = re.fullmatch(r"'([ -&(-\[\]-~])'", text.strip())
    return ord(plain.group(1)) if plain else None


class MacroTable:
    """Name -> :class:`Macro`, with helpers answering the questions the front end asks.
    ``typedef_names`` are the typedefs of the preprocessed file (headers included)."""

    def __init__(self, macros: dict[str, Macro], typedef_names: frozenset[str] = frozenset(),
                 header_identifiers: frozenset[str] = frozenset(), *,
                 at_regions: dict[int, dict[str, Macro]] | None = None,
                 redefined: frozenset[str] = frozenset(), main_code: str = "", header_code: str = "",
                 kept_lines: frozenset[int] | None = None, user_headers: bool = False,
                 compiler: str = "gcc", text: str = "", own_header_code: str = ""):
        self.macros = macros
        self.typedef_names = typedef_names
        # every identifier of the code the included headers contribute (declared names)
        self.header_identifiers = header_identifiers
        # the macros in force at each region's '#pragma scop' (by region index; a region
        # the preprocessor skips, inside '#if 0', is absent), see `macro_table`
        self.at_regions = at_regions or {}
        # names the file defines more than once or undefines: a value read at one place
        # (an array's declared size) may not be the value at another (the region)
        self.redefined = redefined
        # the file's own code as the compiler reads it (`main_code`): conditionals taken,
        # macros expanded, no directive; "" when unknown
        self.main_code = main_code
        # the code the included headers contribute (`header_code`): their declarations
        self.header_code = header_code
        # the file's lines the compiler reads code from (`kept_lines`): a line in an
        # '#if' branch not taken is not one; None when unknown
        self.kept_lines = kept_lines
        # whether the file includes headers of its own (not system headers): their
        # '#if's, which the file's text does not show, may choose other types under
        # other -D (`user_headers`)
        self.user_headers = user_headers
        # the code those headers of the user's own contribute (`own_header_code`): the
        # definitions of their functions, which may be pure (scop/pure.py)
        self.own_header_code = own_header_code
        self.compiler = compiler     # the preprocessor the table came from
        self.text = text             # the input as the preprocessor read it ("<stdin>")

    def _copy(self, macros: dict[str, Macro]) -> "MacroTable":
        return MacroTable(macros, self.typedef_names, self.header_identifiers,
                          redefined=self.redefined, main_code=self.main_code, header_code=self.header_code,
                          kept_lines=self.kept_lines, user_headers=self.user_headers, compiler=self.compiler,
                          text=self.text, own_header_code=self.own_header_code)

    def with_definitions(self, definitions: dict[str, Macro]) -> "MacroTable":
        """This table with ``definitions`` added (replacing same-named macros)."""
        return self._copy({**self.macros, **definitions})

    def at_region(self, k: int) -> "MacroTable | None":
        """The table as the compiler sees it at region ``k``'s ``#pragma scop`` (a macro
        redefined or undefined further on keeps this value there); None when the
        preprocessor skips the region."""
        if k not in self.at_regions:
            return None
        return self._copy(self.at_regions[k])

    def get(self, name: str) -> Macro | None:
        return self.macros.get(name)

    def names_reached(self, name: str) -> set[str]:
        """Every identifier in the body of macro ``name`` and, transitively, of the
        macros it uses (their own parameters excluded)."""
        reached, pending, seen = set(), [name], set()
        while pending:
            macro = self.macros.get(pending.pop())
            if macro is None or macro.name in seen:
                continue
            seen.add(macro.name)
            words = set(re.findall(r"[A-Za-z_]\w*", macro.body)) - set(macro.params or ())
            reached |= words
            pending += [w for w in words if w in self.macros]
        return reached

    def expansions_to_check(self, words: set[str]) -> dict[str, str]:
        """The macros among ``words`` (a region's identifiers), and those their bodies
        reach, that a ``-D`` defines or a header of the program's own defines under an
        ``#if`` (its own or one around an ``#include`` that led to it; an include
        guard is none), and that are no integer constant: a use of each
        (``IDX(polysched_a0)``) with its expansion stringified (``"(2*(polysched_a0))"``),
        as this table's preprocessor gives it. The model read these expansions; another
        ``-D`` may choose another body, so the emitted code compares them at compile time
        (`codegen`). Integer constants are checked by value where the model reads them
        (``M == 2``). A macro defined unconditionally is not checked: its expansion
        then pins nothing (``#define NX (N + 2)`` leaves the size ``N`` free)."""
        names, pending = set(), [w for w in words if w in self.macros]
        while pending:
            name = pending.pop()
            if name not in names:
                names.add(name)
                pending += [w for w in self.names_reached(name) if w in self.macros and w not in names]
        return self.expansions(name for name in sorted(names) if self.integer_value(name) is None and (
            self.macros[name].origin == "command-line"
            or (self.macros[name].origin == "header" and self._conditional(self.macros[name].site))))

    def expansions(self, names) -> dict[str, str]:
        """A use of each macro of ``names`` (``IDX(polysched_a0)``) with its expansion
        stringified, as this table's preprocessor gives it (`expansions_to_check`)."""
        uses = {}
        for name in names:
            macro = self.macros[name]
            uses[name] = name if macro.params is None else \
                f"{name}({', '.join(f'polysched_a{k}' for k in range(len(macro.params)))})"
        if not uses:
            return {}
        lines = [f"#define {m.name}{'' if m.params is None else '(' + ', '.join(m.params) + ')'} {m.body}"
                 for m in self.macros.values() if m.origin != "builtin"]
        lines += ["#define polysched_stringify(...) #__VA_ARGS__",
                  "#define polysched_expansion(...) polysched_stringify(__VA_ARGS__)"]
        lines += [f"polysched_check_{k} polysched_expansion({use})" for k, use in enumerate(uses.values())]
        try:
            proc = subprocess.run([self.compiler, "-E", "-P", "-x", "c", "-"], input="\n".join(lines) + "\n",
                                  capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            proc = None
        found = dict(re.findall(r"^polysched_check_(\d+) (\".*\")\s*$", proc.stdout, re.M)) if proc else {}
        # a use whose expansion is unknown gets a literal no expansion equals: the
        # optimized code then never runs (safe), rather than running unchecked
        return {use: found.get(str(k), '"polysched: unknown"') for k, use in enumerate(uses.values())}

    def _conditional(self, site: tuple[tuple[str, int], ...]) -> bool:
        """Whether one of the lines of ``site`` (`Macro.site`) is inside an ``#if`` of its
        file other than an include guard; True when a file cannot be read or the site is
        unknown (the check is then made: safe)."""
        if not site:
            return True
        for file, line in site:
            if file == "<stdin>":
                lines = conditional_lines(self.text)
            elif file.startswith("<"):
                continue
            else:
                try:
                    lines = conditional_lines(read_source(file))
                except (OSError, UnicodeError):
                    return True
            if line in lines:
                return True
        return False

    def __contains__(self, name: str) -> bool:
        return name in self.macros

    def integer_value(self, name: str) -> int | None:
        """The value of an object-like macro whose body is an integer constant
        (``#define N 1000``, ``#define N (1000)``, ``#define N -3``), else None."""
        macro = self.macros.get(name)
        if macro is None or macro.is_function_like:
            return None
        body = macro.body.strip()
        while body.startswith("(") and body.endswith(")") and _balanced(body[1:-1]):
            body = body[1:-1].strip()
        sign = 1
        if body.startswith("-"):
            sign, body = -1, body[1:].strip()
        elif body.startswith("+"):
            body = body[1:].strip()
        value = int_literal_value(body)
        return None if value is None else sign * value

    def is_type(self, name: str) -> bool:
        """True for object-like macros expanding to type words and typedef names only
        (``#define DATA_TYPE double``, ``#define REAL real_t``)."""
        macro = self.macros.get(name)
        if macro is None or macro.is_function_like or not macro.body.strip():
            return False
        words = TOKEN_RE.findall(self.expand(macro.body, keep_integer_macros=False))
        return bool(words) and all(w in _TYPE_WORDS or w in self.typedef_names for w in words)

    def expand(self, text: str, keep_integer_macros: bool = True, _hide: frozenset = frozenset()) -> str:
        """Macro-expand ``text`` (token-level, like cpp but without ``#if``).

        With ``keep_integer_macros`` the integer-valued object-like macros (the size
        parameters) are left as names, so ``double A[N][M]`` keeps its symbolic extents.
        """
        tokens = TOKEN_RE.findall(text)
        out: list[str] = []
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            macro = self.macros.get(tok)
            if macro is None or tok in _hide or (keep_integer_macros and self.integer_value(tok) is not None):
                out.append(tok)
                i += 1
                continue
            if not macro.is_function_like:
                out.append(self.expand(macro.body, keep_integer_macros, _hide | {tok}))
                i += 1
                continue
            if i + 1 >= len(tokens) or tokens[i + 1] != "(":
                out.append(tok)
                i += 1
                continue
            args, i = _collect_args(tokens, i + 2)
            out.append(self.expand(self.call_text(macro, args, keep_integer_macros, _hide),
                                   keep_integer_macros, _hide | {tok}))
        return " ".join(out)

    def call_text(self, macro: Macro, args: list[str], keep_integer_macros: bool = True,
                  hide: frozenset = frozenset()) -> str:
        """The replacement text of the call ``macro(args...)`` before rescanning: as in
        cpp, each argument is fully macro-expanded first (so ``min(min(a, b), c)``
        expands both ``min``), except where the body stringifies or pastes it."""
        expanded = [self.expand(a, keep_integer_macros, hide) for a in args]
        return substitute(macro, args, expanded)


# Tokens of statements (assignments included: a region's statements are assignments): a
# macro whose body has one writes (part of) a statement, e.g. ``#define FOR(i, n) for (i =
# 0; i < (n); i++)``.
_STATEMENT_TOKENS = frozenset({"for", "while", "do", "if", "else", "switch", "return", "goto", "break",
                               "continue", "{", "}", ";",
                               # an assignment without braces (``#define UPD(x, y) x = (x) * 0.5 + y``,
                               # used as ``UPD(A[i], A[i - 1]);``): a statement, not a call
                               "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"})


def macros_to_expand(table: MacroTable, iterators: set[str]) -> set[str]:
    """The macros a region must be read (and emitted) expanded: those that write
    statements (`_STATEMENT_TOKENS`), paste tokens (``x##1`` may make an iterator's
    name), or name one of the region's loop ``iterators`` (``#define CUR A[i]``: the
    emitted statement renames the iterators it shows, not those inside a macro), and
    every macro whose body uses one of these. So is a macro that reaches a struct member
    (``#define FIELD(q, f) q.f``): members are variables of their own, read from the
    statement as the compiler sees it."""
    tokens = {name: set(TOKEN_RE.findall(macro.body)) for name, macro in table.macros.items()}
    chosen = {name for name, macro in table.macros.items()
              if tokens[name] & _STATEMENT_TOKENS or tokens[name] & {"##", ".", "->"}
              or tokens[name] & (iterators - set(macro.params or ()))}
    grew = True
    while grew:
        grew = False
        for name in tokens.keys() - chosen:
            if tokens[name] & chosen:
                chosen.add(name)
                grew = True
    return chosen


def expand_statement_macros(text: str, plain: str, spans: list[tuple[int, int]],
                            table: MacroTable) -> tuple[str, dict[int, list[tuple[int, int, int, int, str]]]]:
    """``text`` with every use inside ``spans`` (the regions) of a macro that
    `macros_to_expand` chooses replaced by its expansion, as the compiler would read it:
    the front end parses statements, not macro calls. Only those macros are expanded
    (sizes and ``min``-like macros stay names, as everywhere else), each use on the lines
    it took, so line numbers stay those of the file. ``plain``: ``text`` with comments,
    strings and directives blanked (same offsets), where the uses are looked for.
    Also returns, per line, the column spans that moved and the macro that moved them
    (`source.LineMap.expansions`), so that errors point at the columns of the file as
    written and name the macro."""
    # the region's iterators: those of its 'for's, and (loops written with macros) every
    # name passed to a macro that writes statements
    iterators, writers = set(), macros_to_expand(table, set())
    for start, end in spans:
        region = plain[start:end]
        iterators |= set(re.findall(r"\bfor\s*\(\s*(?:[A-Za-z_][\w\s]*\s)?([A-Za-z_]\w*)\s*=[^=]", region))
        for use in re.finditer(r"\b([A-Za-z_]\w*)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", region):
            if use.group(1) in writers:
                iterators |= set(re.findall(r"[A-Za-z_]\w*", use.group(2)))
    names = macros_to_expand(table, iterators)
    if not names:
        return text, {}
    only = MacroTable({name: table.macros[name] for name in names}, table.typedef_names)
    uses = []
    for start, end in spans:
        for match in re.finditer(r"[A-Za-z_]\w*", plain[start:end]):
            name, at = match.group(), start + match.start()
            if name not in names:
                continue
            before = at
            while before > 0 and plain[before - 1] in " \t\r\n":
                before -= 1
            if plain[before - 1:before] == "." or plain[before - 2:before] == "->":    # a member
                continue
            stop = at + len(name)
            if only.get(name).is_function_like:
                k = stop
                while k < end and plain[k] in " \t\r\n":
                    k += 1
                if k >= end or plain[k] != "(":
                    continue
                depth = 0
                for stop in range(k, end):
                    depth += {"(": 1, ")": -1}.get(plain[stop], 0)
                    if depth == 0:
                        break
                stop += 1
            uses.append((at, stop))
    pieces, cursor, moved = [], 0, {}
    shift: dict[int, int] = {}       # per line: new column - old column, after the uses so far
    newlines = [k for k, c in enumerate(text) if c == "\n"] if uses else []
    for at, stop in sorted(uses):
        expansion, lines = only.expand(text[at:stop]), text.count("\n", at, stop)
        pieces += [text[cursor:at], expansion, "\n" * lines]
        line = bisect.bisect_left(newlines, at) + 1
        col = at - text.rfind("\n", 0, at)
        end_col = stop - text.rfind("\n", 0, stop)
        new_col = col + shift.get(line, 0)
        end = new_col + len(expansion)
        name = text[at:stop].split("(")[0].strip()
        if lines:      # the rest of the use's last line now starts that line
            moved.setdefault(line, []).append((new_col, end, col, end, name))
            moved.setdefault(line + lines, []).append((1, 1, 1, end_col, name))
            shift[line + lines] = 1 - end_col
        else:
            moved.setdefault(line, []).append((new_col, end, col, end_col, name))
            shift[line] = end - end_col
        cursor = stop
    return "".join(pieces) + text[cursor:], moved


def substitute(macro: Macro, args: list[str], expanded: list[str] | None = None) -> str:
    """The body of function-like ``macro`` with its parameters replaced by ``args``
    (each parenthesised, as an expression argument), ``#`` and ``##`` handled simply.
    ``expanded``: the macro-expanded arguments, used everywhere but next to ``#``/``##``."""
    params = list(macro.params or ())
    expanded = list(args) if expanded is None else list(expanded)
    variadic = params and params[-1] == "..."
    if variadic:
        params[-1] = "__VA_ARGS__"
        if len(args) > len(params):
            args = args[:len(params) - 1] + [", ".join(args[len(params) - 1:])]
            expanded = expanded[:len(params) - 1] + [", ".join(expanded[len(params) - 1:])]
    if args == [""] and not params:
        args, expanded = [], []
    binding = dict(zip(params, args))
    full = dict(zip(params, expanded))
    body = TOKEN_RE.findall(macro.body)
    out: list[str] = []
    k = 0
    while k < len(body):
        tok = body[k]
        if tok == "#" and k + 1 < len(body) and body[k + 1] in binding:
            out.append('"' + binding[body[k + 1]].replace('"', '\\"') + '"')
            k += 2
            continue
        if tok == "##" and out and k + 1 < len(body):
            nxt = body[k + 1]
            out[-1] = out[-1] + (binding[nxt] if nxt in binding else nxt)
            k += 2
            continue
        if tok in binding:
            pasted = (k + 1 < len(body) and body[k + 1] == "##") or (k > 0 and body[k - 1] == "##")
            if pasted:
                out.append(binding[tok])
            elif tok == "__VA_ARGS__" or len(TOKEN_RE.findall(full[tok])) == 1:
                # one token needs no parentheses, and must have none where an inner
                # macro pastes it: SEL(1) -> CAT(OFF, 1) is OFF1, not OFF(1)
                out.append(full[tok])
            else:
                out.append(f"({full[tok]})")
        else:
            out.append(tok)
        k += 1
    return " ".join(out)


def _collect_args(tokens: list[str], i: int) -> tuple[list[str], int]:
    """Arguments of a macro call whose '(' precedes ``tokens[i]``; returns them and
    the index after the closing ')'."""
    args: list[list[str]] = [[]]
    depth = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in "([{" and tok:
            depth += 1
        elif tok in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif tok == "," and depth == 0:
            args.append([])
            i += 1
            continue
        args[-1].append(tok)
        i += 1
    return [" ".join(a) for a in args], i + 1


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += c == "("
        depth -= c == ")"
        if depth < 0:
            return False
    return depth == 0


_UNDEF_RE = re.compile(r"#undef ([A-Za-z_]\w*)")
_TYPEDEF_NAME_RE = re.compile(r"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*(?:\[[^;{}]*\])?\s*;")
_TYPEDEF_TAG_RE = re.compile(r"\btypedef\s+(?:struct|union|enum)\b[^;{]*\{[^{}]*\}\s*([A-Za-z_]\w*)\s*;")


_HASH_LINE_RE = re.compile(r"^#.*$", re.M)


def parse_dd_output(text: str) -> tuple[dict[str, Macro], frozenset[str]]:
    """Macros (``#define``/``#undef`` replayed in order) and typedef names from
    ``gcc -E -dD`` output."""
    macros, typedefs, _, _ = _replay(text)
    return macros, typedefs


def _replay(text: str) -> tuple[dict[str, Macro], frozenset[str], dict[int, dict[str, Macro]], frozenset[str]]:
    """`parse_dd_output`, plus the macros in force at each region sentinel
    (`_REGION_SENTINEL`) and the names defined more than once or undefined."""
    macros: dict[str, Macro] = {}
    at_regions: dict[int, dict[str, Macro]] = {}
    seen, redefined = set(), set()
    origin, file, number, counted_to = "file", "<stdin>", 1, 0
    includes: list[tuple[str, int]] = []      # the #include lines that led to `file`

    def line_of(position: int) -> int:
        """The line in `file` of the output text at ``position`` (after the marker)."""
        nonlocal number, counted_to
        number += text.count("\n", counted_to, position)
        counted_to = position
        return number

    for directive in _DIRECTIVE_LINE_RE.finditer(text):
        line = directive.group(0).rstrip("\r")
        marker = _LINE_MARKER_FLAGS_RE.match(line)
        if marker:
            flags = marker.group(2).split()
            if "1" in flags:            # entering a file from `file`'s current line
                includes.append((file, line_of(directive.start())))
            elif "2" in flags and includes:
                includes.pop()
            file, origin = marker.group(1), _origin(marker.group(1), marker.group(2))
            # the line after the marker is line `line.split()[1]` of `file`
            number, counted_to = int(line.split()[1]), directive.end() + 1
            continue
        sentinel = _REGION_SENTINEL_RE.match(line)
        if sentinel:
            at_regions[int(sentinel.group(1))] = dict(macros)
            continue
        m = _DEFINE_RE.match(line)
        if m:
            params = None
            if m.group(2) is not None:
                params = tuple(p.strip() for p in m.group(3).split(",") if p.strip())
            if m.group(1) in seen:
                redefined.add(m.group(1))
            seen.add(m.group(1))
            site = ((file, line_of(directive.start())),) + tuple(reversed(includes))
            macros[m.group(1)] = Macro(m.group(1), params, m.group(4) or "", origin, site)
            continue
        m = _UNDEF_RE.match(line)
        if m:
            redefined.add(m.group(1))
            macros.pop(m.group(1), None)
    code_text = _HASH_LINE_RE.sub("", text)
    typedefs = set(_TYPEDEF_NAME_RE.findall(code_text)) | set(_TYPEDEF_TAG_RE.findall(code_text))
    return macros, frozenset(typedefs), at_regions, frozenset(redefined)


# Each region's '#pragma scop' goes to the preprocessor as '#pragma scop __polysched_region_K':
# the pragma comes out where the region is (after the definitions before it, not
# after those further on) or not at all (inside '#if 0'). Pragmas are not expanded.
_REGION_SENTINEL = "__polysched_region_{}"
_REGION_SENTINEL_RE = re.compile(r"^\s*#\s*pragma\s+scop\s+__polysched_region_(\d+)\b")
_DIRECTIVE_LINE_RE = re.compile(
    rf'^(?:{DIRECTIVE}(?:define|undef|pragma[ \t]+scop[ \t]+__polysched_region_).*|# \d+ ".*)$', re.M)
_PRAGMA_SCOP_RE = re.compile(rf"^({DIRECTIVE}pragma[ \t]+scop)\b")


def _with_region_sentinels(text: str, region_lines: tuple[int, ...]) -> str:
    """``text`` with the sentinel after ``#pragma scop`` on each of ``region_lines``."""
    if not region_lines:
        return text
    lines = text.split("\n")
    for k, number in enumerate(region_lines):
        if 0 < number <= len(lines):
            lines[number - 1] = _PRAGMA_SCOP_RE.sub(lambda m: f"{m.group(1)} {_REGION_SENTINEL.format(k)}",
                                                    lines[number - 1], count=1)
    return "\n".join(lines)


_LINE_MARKER_RE = re.compile(r'^# \d+ "((?:\\.|[^"\\])*)".*$', re.M)
_IDENT_RE = re.compile(r"[A-Za-z_]\w*")


def includes_user_headers(text: str) -> bool:
    """Whether ``gcc -E`` output (with line markers) enters a file that is neither the
    input (``<stdin>``), nor built in, nor a system header (flag 3)."""
    return any(not name.startswith("<") and "3" not in flags.split()
               for name, flags in _LINE_MARKER_FLAGS_RE.findall(text))


_LINE_MARKER_FLAGS_RE = re.compile(r'^# \d+ "((?:\\.|[^"\\])*)"([ \d]*)$', re.M)


def own_header_code(text: str) -> str:
    """The code that ``gcc -E`` output (with line markers) attributes to the user's own
    headers (`includes_user_headers`: not the input, not built in, no system header),
    without directive lines."""
    kept, own = [], False
    for raw in text.split("\n"):
        marker = _LINE_MARKER_FLAGS_RE.match(raw)
        if marker is not None:
            name, flags = marker.groups()
            own = name != "<stdin>" and not name.startswith("<") and "3" not in flags.split()
        elif own and not raw.lstrip().startswith("#"):
            kept.append(raw)
    return "\n".join(kept)


_CONDITION_RE = re.compile(rf"^{DIRECTIVE}(if|ifdef|ifndef|elif|else|endif|define)\b[ \t]*(.*)$")
_GUARD_NAME_RE = re.compile(r"^(?:!\s*defined\s*\(?\s*)?([A-Za-z_]\w*)\s*\)?$")


def conditional_lines(text: str) -> frozenset[int]:
    """The lines of C ``text`` inside an ``#if``/``#ifdef``/``#ifndef`` (any branch),
    other than an include guard (``#ifndef X`` whose next directive is ``#define X``
    with no body)."""
    lines = strip_comments(text).split("\n")
    inside, stack, pending = set(), [], None      # stack: is each open conditional a guard?
    k = 0
    while k < len(lines):
        start, directive = k, lines[k]
        while directive.endswith("\\") and k + 1 < len(lines):     # continuation lines
            k += 1
            directive = directive[:-1] + " " + lines[k]
        m = _CONDITION_RE.match(directive)
        if m:
            word, rest = m.group(1), m.group(2).strip()
            if word == "define":
                if pending is not None and stack and re.fullmatch(re.escape(pending) + r"\s*", rest):
                    stack[-1] = True
            elif word in ("if", "ifdef", "ifndef"):
                stack.append(False)
            elif word == "endif" and stack:
                stack.pop()
            elif stack:                  # elif, else: the other branch is conditional
                stack[-1] = False
            guard = _GUARD_NAME_RE.match(rest) if word in ("ifndef", "if") else None
            pending = guard.group(1) if guard and (word == "ifndef" or rest.startswith("!")) else None
        elif directive.strip():
            pending = None
        if not all(stack):
            inside.update(range(start + 1, k + 2))
        k += 1
    return frozenset(inside)


def _origin(name: str, flags: str) -> str:
    """`Macro.origin` of the definitions after the line marker of file ``name``."""
    if name == "<stdin>":
        return "file"
    if name == "<command-line>":
        return "command-line"
    if name.startswith("<"):
        return "builtin"
    return "system" if "3" in flags.split() else "header"


def header_code(text: str) -> str:
    """The code that ``gcc -E`` output (with line markers) attributes to files other
    than the input itself (``<stdin>``): what the headers declare."""
    pieces = _LINE_MARKER_RE.split(text)      # text, file, text, file, text, ...
    return "\n".join(pieces[k + 1] for k in range(1, len(pieces) - 1, 2) if pieces[k] != "<stdin>")


_LINE_DIRECTIVE_RE = re.compile(rf"^{DIRECTIVE}(?:line\b|\d).*$", re.M)


def _without_line_directives(text: str) -> str:
    """``text`` with its ``#line`` directives (and GNU ``# 12 "f.y"`` markers) blanked:
    gcc's line markers then number the file's own lines, which is how `kept_lines`,
    `main_code` and `header_code` tell its code (a bison or re2c output's ``#line 1
    "kernel.y"`` made it look like another file's, a header's)."""
    return _LINE_DIRECTIVE_RE.sub("", text)


def kept_lines(text: str) -> frozenset[int]:
    """The lines of the input itself (``<stdin>``) that ``gcc -E -dD`` output (with line
    markers) has code or a ``#define``/``#undef`` from: not the lines of an ``#if``
    branch that is not taken."""
    kept, current, line = set(), None, 0
    for raw in text.split("\n"):
        marker = _LINE_MARKER_RE.match(raw)
        if marker is not None:
            current, line = marker.group(1), int(raw.split()[1])
            continue
        if current == "<stdin>" and raw.strip() and (not raw.lstrip().startswith("#")
                                                     or re.match(r"#(?:define|undef)\b", raw)):
            kept.add(line)      # (with -dD the #defines the compiler reads are in its output)
        line += 1
    return frozenset(kept)


def header_identifiers(text: str) -> frozenset[str]:
    """Identifiers of `header_code`."""
    return frozenset(_IDENT_RE.findall(header_code(text)))


def main_code(text: str) -> str:
    """The code that ``gcc -E -dD`` output (with line markers) attributes to the input
    itself (``<stdin>``), without directive lines: the file as the compiler reads it,
    ``#if`` branches taken and macros expanded (a function's definition as compiled)."""
    pieces = _LINE_MARKER_RE.split(text)      # text, file, text, file, text, ...
    own = [pieces[k + 1] for k in range(1, len(pieces) - 1, 2) if pieces[k] == "<stdin>"]
    return "\n".join(line for line in "\n".join(own).split("\n") if not line.lstrip().startswith("#"))


_CACHE: dict[tuple, MacroTable] = {}
_CACHE_SIZE = 256
_GCC_ERROR_RE = re.compile(r"^(.+?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$", re.M)
_INCLUDED_FROM_RE = re.compile(r"^\s*(?:In file included from|from) (.+?):(\d+)(?::\d+)?[:,]$", re.M)
_MISSING_HEADER_RE = re.compile(r"^(.+): No such file or directory$")


def preprocessor_error(filename: str, stderr: str) -> ScopError:
    """gcc's first error as one ScopError at the place it names (the input itself is
    gcc's ``<stdin>``; ``#line`` directives are already applied by gcc). A missing
    header says which one, and through which include of the file it was reached."""
    m = _GCC_ERROR_RE.search(stderr)
    if not m:
        lines = [line for line in stderr.strip().splitlines() if line.strip()]
        return ScopError(filename, 1, 1, (lines[:1] or ["preprocessing failed"])[0].strip())
    where = filename if m.group(1) == "<stdin>" else m.group(1)
    message = m.group(4).strip()
    missing = _MISSING_HEADER_RE.match(message)
    if missing:
        message = f"cannot find the included header '{missing.group(1)}'"
        chain = _INCLUDED_FROM_RE.findall(stderr[:m.start()])
        if chain:     # reached through a header: name the include of the file itself
            outer_file, outer_line = chain[-1]
            outer_file = filename if outer_file == "<stdin>" else outer_file
            message += f" (in a header included at {outer_file}:{outer_line})"
    return ScopError(where, int(m.group(2)), int(m.group(3) or 1), message)


def macro_table(filename: str, text: str, defines: dict[str, str] | None = None,
                include_dirs: list[str] | None = None, compiler: str | None = None,
                region_lines: tuple[int, ...] = ()) -> MacroTable:
    """The final macro table of ``text`` preprocessed with ``-D``/``-I`` (``gcc -E -dD``:
    every definition in order, plus the preprocessed code for typedef names), with the
    table in force at each region whose ``#pragma scop`` is on ``region_lines``
    (`MacroTable.at_region`).

    ``defines`` maps names to values (``None`` or ``""`` for a bare ``-DNAME``).
    Raises ScopError (at the line gcc reports) when preprocessing fails.
    """
    defines = defines or {}
    include_dirs = list(include_dirs or [])
    compiler = compiler or os.environ.get("CC", "gcc")
    key = (hashlib.sha1(encode_source(text)).hexdigest(), tuple(sorted(defines.items())),
           tuple(include_dirs), filename, compiler, tuple(region_lines))
    if key in _CACHE:
        return _CACHE[key]
    argv = [compiler, "-E", "-dD", "-x", "c"]     # line markers tell header code apart
    for name, value in defines.items():
        argv.append(f"-D{name}" if value in (None, "") else f"-D{name}={value}")
    file_dir = os.path.dirname(os.path.abspath(filename)) if filename and not filename.startswith("<") else None
    if file_dir:
        argv += ["-iquote", file_dir]
    for d in include_dirs:
        argv += ["-I", d]
    argv.append("-")
    try:
        # bytes in, so that non-UTF-8 bytes outside the region reach gcc unchanged
        raw = subprocess.run(argv, input=encode_source(_with_region_sentinels(_without_line_directives(text),
                                                                              tuple(region_lines))),
                             capture_output=True, timeout=60)
        proc = subprocess.CompletedProcess(argv, raw.returncode, raw.stdout.decode(errors="replace"),
                                           raw.stderr.decode(errors="replace"))
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ScopError(filename, 1, 1, f"cannot run the C preprocessor '{compiler}': {err}") from None
    if proc.returncode != 0:
        raise preprocessor_error(filename, proc.stderr)
    macros, typedefs, at_regions, redefined = _replay(proc.stdout)
    headers = header_code(proc.stdout)
    table = MacroTable(macros, typedefs, frozenset(_IDENT_RE.findall(headers)), at_regions=at_regions,
                       redefined=redefined, main_code=main_code(proc.stdout), header_code=headers,
                       kept_lines=kept_lines(proc.stdout), user_headers=includes_user_headers(proc.stdout),
                       compiler=compiler, text=text, own_header_code=own_header_code(proc.stdout))
    if len(_CACHE) >= _CACHE_SIZE:      # bounded: drop the oldest entry
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = table
    return table


# -- macro bodies that need their parentheses --------------------------------------------
#
# The front end reads a macro use as one value: `M * 2` with `#define M 30 - 5` is 25 * 2
# to it, while the compiler reads `30 - 5 * 2`; `IDX(i + 1, j)` with `#define IDX(a, b)
# a * N + b` is `i + 1 * N + j` to the compiler. Each region is parsed twice, with every
# use expanded as cpp does and with every use (and argument) parenthesised; where the
# two trees differ, a macro's text regroups with its neighbours, and the region is
# refused (`unparenthesised_macro`).

def _expand_for_check(table: MacroTable, tokens: list[str], exact: frozenset[str],
                      hide: frozenset = frozenset()) -> list[str]:
    """``tokens`` with every macro use expanded: as cpp does for the macros in
    ``exact``, parenthesised (the use and each argument) for the others. Integer
    macros stay names, type and empty macros are expanded bare."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        macro = table.macros.get(tok)
        if macro is None or tok in hide or table.integer_value(tok) is not None or \
                (macro.is_function_like and (i + 1 >= len(tokens) or tokens[i + 1] != "(")):
            out.append(tok)
            i += 1
            continue
        if macro.is_function_like:
            args, i = _collect_args(tokens, i + 2)
            params = list(macro.params or ())
            expanded = [" ".join(_expand_for_check(table, TOKEN_RE.findall(a), exact, hide)) for a in args]
            if tok not in exact:
                expanded = [f"({a})" if a.strip() else a for a in expanded]
            binding = dict(zip([p if p != "..." else "__VA_ARGS__" for p in params], expanded))
            body = [binding.get(t, t) for t in TOKEN_RE.findall(macro.body)]
        else:
            body = TOKEN_RE.findall(macro.body)
            i += 1
        body = _expand_for_check(table, TOKEN_RE.findall(" ".join(body)), exact, hide | {tok})
        bare = tok in exact or not body or table.is_type(tok) or "#" in macro.body
        out += body if bare else ["("] + body + [")"]
    return out


def _tree_shape(node) -> tuple:
    """A pycparser tree as nested tuples (node kinds and attributes, no coordinates):
    pycparser drops parentheses, so equal shapes group alike."""
    attrs = tuple(str(getattr(node, name)) for name in node.attr_names)
    return (type(node).__name__, attrs, tuple(_tree_shape(child) for _, child in node.children()))


def _region_shape(table: MacroTable, tokens: list[str], exact: frozenset[str]) -> tuple | None:
    return _shape_of(table, _expand_for_check(table, tokens, exact))


def _shape_of(table: MacroTable, expanded: list[str]) -> tuple | None:
    from pycparser import c_parser
    typedefs = "".join(f"typedef int {name};\n" for name in sorted(table.typedef_names))
    body = " ".join(expanded)
    try:
        tree = c_parser.CParser().parse(f"{typedefs}void polysched_region(void) {{\n{body}\n}}")
    except Exception:  # noqa: BLE001 -- pycparser raises ParseError and AssertionError alike
        return None
    return _tree_shape(tree.ext[-1].body)


# uses of the culprit the refusal tries for its place (each parses the region again)
MAX_USES_TRIED = 32


def unparenthesised_macro(table: MacroTable, region_text: str) -> tuple[str, int] | None:
    """(the name of a macro used in ``region_text`` (a region's code, comments and
    directives blanked), or in the macros it uses, whose expansion groups with the text
    around it otherwise than as one parenthesised value; the offset in
    ``region_text`` of the first use where it does), else None. A region that does not
    parse either way is left to the front end's own errors."""
    matches = list(TOKEN_RE.finditer(region_text))
    tokens = [m.group(0) for m in matches]
    reached = _macros_reached(table, tokens)
    used = sorted(name for name in reached if table.integer_value(name) is None)
    if not used:
        return None
    grouped = _region_shape(table, tokens, frozenset())
    if grouped is None:
        return None
    everything = frozenset(table.macros)
    if _region_shape(table, tokens, everything) in (grouped, None):
        return None
    # the culprit: its own text, the others parenthesised. First one that regroups more
    # than a chain of one operator: in TOTAL = ROWS*COLS with ROWS 6+2 and COLS 3*3, COLS
    # alone makes (6+2)*3*3 of (6+2)*(3*3), the same product; ROWS alone, 6+2*(3*3)
    alone = {name: _region_shape(table, tokens, frozenset({name})) for name in used}
    candidates = [name for name in used if alone[name] != grouped]
    regrouping = [name for name in candidates if _chains_flattened(alone[name]) != _chains_flattened(grouped)]
    culprit = (regrouping or candidates or used)[0]
    # where: the first use (of it, or of a macro whose text reaches it) up to which its
    # own text regroups the region (not 'i < ROWS' but the 'k < TOTAL' after it)
    uses = [k for k, token in enumerate(tokens)
            if token in table.macros and culprit in _macros_reached(table, [token])]
    for k in uses[:MAX_USES_TRIED]:
        body = _expand_for_check(table, tokens[:k + 1], frozenset({culprit})) + \
            _expand_for_check(table, tokens[k + 1:], frozenset())
        if _chains_flattened(_shape_of(table, body)) != _chains_flattened(grouped):
            return culprit, matches[k].start()
    return culprit, matches[uses[0]].start() if uses else 0


def _macros_reached(table: MacroTable, tokens: list[str]) -> set[str]:
    """The macros ``tokens`` use, and those their bodies use, transitively."""
    found: set[str] = set()
    stack = [t for t in tokens if t in table.macros]
    while stack:
        name = stack.pop()
        if name in found:
            continue
        found.add(name)
        stack.extend(t for t in TOKEN_RE.findall(table.macros[name].body) if t in table.macros)
    return found


def _chains_flattened(shape: tuple | None) -> tuple | None:
    """``shape`` (`_tree_shape`) with each chain of one ``*``, ``+``, ``&``, ``|`` or
    ``^`` operator as one node of all its operands: ``(a*b)*c`` as ``a*(b*c)``."""
    if shape is None:
        return None
    kind, attrs, children = shape
    children = tuple(_chains_flattened(child) for child in children)
    if kind == "BinaryOp" and attrs and attrs[0] in ("*", "+", "&", "|", "^"):
        flat: list[tuple] = []
        for child in children:
            flat.extend(child[2] if child[0] == kind and child[1] == attrs else (child,))
        children = tuple(flat)
    return kind, attrs, children
