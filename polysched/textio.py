"""Reading and writing C source text so that every byte survives the round trip.

C files are not always UTF-8 (Latin-1 string literals) and not always LF (CRLF files
from Windows editors). The front end reads them with ``surrogateescape`` (undecodable
bytes become lone surrogates that encode back to the same bytes) and without newline
translation; emission writes them back the same way. Everything outside the SCoP
regions is therefore byte-identical, whatever the bytes are.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

ENCODING = "utf-8"
ERRORS = "surrogateescape"

# regex text: where a preprocessing directive starts (a line's whitespace, form feeds
# and vertical tabs included, as gcc reads them, then '#'), and with the spaces and
# tabs that may follow the '#' before the directive's name
DIRECTIVE_START = r"[ \t\f\v]*#"
DIRECTIVE = DIRECTIVE_START + r"[ \t]*"


def read_source(path: str | os.PathLike) -> str:
    """The file's text: bytes decoded losslessly, line endings untouched."""
    with open(path, encoding=ENCODING, errors=ERRORS, newline="") as f:
        return f.read()


def encode_source(text: str) -> bytes:
    """The bytes of ``text`` as :func:`read_source` read them."""
    return text.encode(ENCODING, ERRORS)


def line_ending(text: str) -> str:
    """``"\\r\\n"`` when the text's first line ends with CRLF, else ``"\\n"``."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` (as :func:`encode_source` bytes; bytes as they are) to ``path`` atomically: a temp
    file in the same directory, then a rename, so an existing file is never replaced
    by a partial one (full disk, interrupted run). Raises ``OSError`` on failure,
    leaving ``path`` untouched. Special files (``/dev/stdout``, ``/dev/null``) are
    written directly: they cannot be renamed over. A symbolic link is written through,
    as the shell's ``>`` does: its target is replaced, the link stays."""
    path = Path(path)
    data = text if isinstance(text, bytes) else encode_source(text)
    if path.exists() and not path.is_file():
        with open(path, "wb") as f:
            f.write(data)
        return
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# The shipped headers that intrinsic calls need are pasted into an output between
# these lines (emit_c.tensorize.intrinsic_includes); a new output of that file drops them.
PASTED_START = "/* {}, shipped with polysched: pasted in */"
PASTED_END = "/* end of {} */"
_PASTED = re.compile(re.escape(PASTED_START).replace(r"\{\}", r"([\w.]+)") + r"\n.*?"
                     + re.escape(PASTED_END).replace(r"\{\}", r"\1") + r"\n", re.S)


def pasted_header_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each header pasted into ``text`` (a generated file)."""
    return [match.span() for match in _PASTED.finditer(text)]


_FIRST_INCLUDE = re.compile(rf"^{DIRECTIVE}include\b", re.M)
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# what may come before the headers polysched pastes: conditionals, and definitions of
# reserved names (feature-test macros: _POSIX_C_SOURCE, _GNU_SOURCE, _FILE_OFFSET_BITS)
_PRELUDE_LINE = re.compile(r"[ \t\r]*(?:#[ \t]*(?:(?:if|ifdef|ifndef|elif|else|endif)\b.*"
                           r"|(?:define|undef)[ \t]+_[A-Z_]\w*\b.*)?)?$")


def header_position(text: str) -> int:
    """Where the headers polysched pastes into ``text`` go: before its first
    ``#include`` when all that comes before it is comments, blank lines, conditionals and
    feature-test macros (``#define _POSIX_C_SOURCE 200809L``), which must come before
    every system header to take effect (the pasted header includes <stdlib.h>: pasted
    above them, a file compiled with -std=c99 lost clock_gettime); else the top, before
    any macro of the file (a ``#define C 64`` would rewrite the header's own names)."""
    plain = _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)    # same offsets
    match = _FIRST_INCLUDE.search(plain)
    if match is None:
        return 0
    start = plain.rfind("\n", 0, match.start()) + 1
    lines = plain[:start].replace("\\\n", " ").split("\n")
    if not all(_PRELUDE_LINE.match(line) for line in lines):
        return 0
    depth = 0               # not inside a conditional: '#ifdef X' / '#include' would hide it
    for line in lines:
        word = re.match(rf"{DIRECTIVE}(\w+)", line)
        if word is not None and word.group(1) in ("if", "ifdef", "ifndef"):
            depth += 1
        elif word is not None and word.group(1) == "endif":
            depth -= 1
    return start if depth == 0 else 0


def feature_definitions(text: str) -> str:
    """The feature-test macros ``text`` defines before its first ``#include``, outside
    conditionals (``#define _GNU_SOURCE``), as lines: when the pasted headers must go
    above the file's own macros (`header_position` 0), these go above them, or the
    system headers they include would fix the C library's features without them."""
    plain = _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    match = _FIRST_INCLUDE.search(plain)
    if match is None:
        return ""
    lines, undone, depth = [], set(), 0
    for line in plain[:match.start()].replace("\\\n", " ").split("\n"):
        word = re.match(rf"{DIRECTIVE}(\w+)(?:[ \t]+(\w+))?", line)
        if word is None:
            continue
        if word.group(1) in ("if", "ifdef", "ifndef"):
            depth += 1
        elif word.group(1) == "endif":
            depth -= 1
        elif word.group(1) == "undef":
            undone.add(word.group(2))
        elif word.group(1) == "define" and depth == 0 and re.fullmatch(r"_[A-Z_]\w*", word.group(2) or ""):
            lines.append((word.group(2), line.strip()))
    return "".join(f"{line}\n" for name, line in lines if name not in undone)


def without_pasted_headers(text: str) -> str:
    """``text`` (a generated file) without the headers pasted into it: the program as it
    would read with ``#include`` lines, e.g. to count its calls."""
    return _PASTED.sub("", text)


def natural_key(name: str) -> list:
    """Sort key putting names in human order: ``S2`` before ``S10``."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
