"""A corpus of bad inputs for ``polysched optimize``, run as a user runs it.

Every case must give: exit status 2, exactly one line on stderr (``file:line:col:``
when the problem has a place in the file), no Python traceback, no output file, and
an output file that already exists left untouched (no temporary file left either).
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

HEAD = "void kernel(int n, int m, double A[100][100], double B[100], double C[100], int idx[100]) {\n" \
       "  int i, j, k;\n  double s = 0;\n"
TAIL = "}\n"


def region(body: str, head: str = HEAD) -> bytes:
    """A function whose '#pragma scop' region is ``body`` (line 5 onwards)."""
    return (head + "#pragma scop\n" + body + "\n#pragma endscop\n" + TAIL).encode()


def loop(statement: str) -> bytes:
    """``statement`` inside a 1-deep loop: it is on line 6 of the file."""
    return region("  for (i = 0; i < n; i++)\n    " + statement)


def _garbage(size: int, seed: int, keep: bytes = b"") -> bytes:
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(size))
    return data[: size // 2] + keep + data[size // 2:]


def _big(size: int) -> bytes:
    pad = b"/* padding: this file is big, but only its region matters ................. */\n"
    body = loop("A[i][i * i] = 0;")
    return pad * (size // len(pad) + 1) + body


LONG_SUM = " + ".join(f"B[{k % 100}]" for k in range(700))
LONG_SUBSCRIPT = "B[i" + " + 1 - 1" * 400 + "]"

# name -> (file bytes, extra options, expected "file:line:col" position or None, text in the message)
CASES: dict[str, tuple[bytes, list[str], str | None, str]] = {
    # -- not C, or not a region --------------------------------------------------------
    "empty file": (b"", [], "1:1", "scop"),
    "only blank lines": (b"\n\n   \n\t\n", [], "1:1", "scop"),
    "no region": (b"int main(void) { return 0; }\n", [], "1:1", "scop"),
    "binary garbage": (_garbage(4096, 1), [], None, "error"),
    "binary garbage with a region inside": (
        _garbage(2048, 2, b"\n#pragma scop\n" + bytes(range(1, 200)) + b"\n#pragma endscop\n"),
        [], None, "error"),
    "NUL bytes in the region": (region("  A[0][0] = 1;\x00\x00  B[0] = 2;"), [], None, "error"),
    # -- comments and pragmas --------------------------------------------------------
    "unterminated comment before the region": (
        HEAD.encode() + b"/* never closed\n#pragma scop\n  B[0] = 1;\n#pragma endscop\n}\n", [], None, "error"),
    "unterminated comment inside the region": (region("  B[0] = 1; /* never closed"), [], None, "error"),
    "nested scop pragmas": (region("#pragma scop\n  B[0] = 1;\n#pragma endscop"), [], ":5:", "scop"),
    "missing endscop": ((HEAD + "#pragma scop\n  B[0] = 1;\n" + TAIL).encode(), [], ":4:", "endscop"),
    "stray endscop": ((HEAD + "  B[0] = 1;\n#pragma endscop\n" + TAIL).encode(), [], ":5:", "endscop"),
    "endscop before scop": (
        (HEAD + "#pragma endscop\n  B[0] = 1;\n#pragma scop\n" + TAIL).encode(), [], ":4:", "endscop"),
    "empty region": (region(""), [], ":4:", "error"),
    # helper-43: the region's code was written inside the comment the pragma line opens
    "comment from the scop line on": (
        (HEAD + "#pragma scop /* the region\n*/\n  B[0] = 1;\n#pragma endscop\n" + TAIL).encode(), [], ":4:14:",
        "goes on past it"),
    "comment into the scop line": (
        (HEAD + "  B[1] = 2; /* set\n */ #pragma scop\n  B[0] = 1;\n#pragma endscop\n" + TAIL).encode(), [], ":5:1:",
        "does not see the pragma"),
    # -- sizes and encodings ----------------------------------------------------------
    "5 MB input": (_big(5 * 1024 * 1024), [], None, "error"),
    "5 MB of garbage": (_garbage(5 * 1024 * 1024, 3), [], None, "error"),
    "UTF-8 identifier in the region": (loop("B[i] = \u00e9t\u00e9;"), [], ":6:", "error"),
    "UTF-8 comment in a bad region": (loop("/* \u00e9t\u00e9 */ B[i * i] = 0;"), [], ":6:", "affine"),
    "UTF-8 byte order mark, bad region": (b"\xef\xbb\xbf" + loop("B[i * i] = 0;"), [], ":6:", "affine"),
    "CRLF line ends, bad region": (loop("B[i * i] = 0;").replace(b"\n", b"\r\n"), [], ":6:", "affine"),
    "Latin-1 byte in the region": (loop("B[i] = \u00e9;").replace("\u00e9".encode(), b"\xe9"), [], ":6:", "error"),
    "Latin-1 byte in a comment, bad region": (
        b"/* caf\xe9 */\n" + loop("A[i][B[i]] = 0;"), [], ":7:", "error"),
    # -- constructs the polyhedral model cannot represent ------------------------------------
    "non-affine subscript (product)": (loop("A[i][i * i] = 0;"), [], ":6:", "affine"),
    "non-affine subscript (indirection)": (loop("B[idx[i]] = 0;"), [], ":6:", "error"),
    "non-affine subscript (division by a variable)": (loop("B[i / n] = 0;"), [], ":6:", "error"),
    "non-affine bound": (region("  for (i = 0; i * i < n; i++)\n    B[i] = 0;"), [], ":5:", "error"),
    "while loop": (region("  i = 0;\n  while (i < n) {\n    B[i] = 0;\n    i++;\n  }"), [], ":", "while"),
    "do-while loop": (region("  i = 0;\n  do { B[i] = 0; i++; } while (i < n);"), [], ":6:", "error"),
    "infinite for": (region("  for (;;)\n    B[0] = 1;"), [], ":5:", "error"),
    "data-dependent bound": (region("  for (i = 0; i < idx[n]; i++)\n    B[i] = 0;"), [], ":5:", "error"),
    "loop under a data-dependent condition": (
        loop("if (B[i] > 0)\n      for (j = 0; j < n; j++) B[j] = 1;"), [], ":6:", "loop under a condition"),
    "call with side effects": (loop("B[i] = rand();"), [], ":6:", "side effect"),
    "printf in the region": (loop('printf("%d", i);'), [], ":6:", "error"),
    "GNU statement expression": (loop("B[i] = ({ int t = i; t; });"), [], ":6:", "error"),
    "literal wider than 64 bits": (loop("B[i + 99999999999999999999] = 0;"), [], ":6:", "error"),
    "700 terms and a product": (loop(f"C[i * i] = {LONG_SUM};"), [], ":6:", "affine"),
    "subscript of 800 terms and a product": (loop(LONG_SUBSCRIPT.replace("B[i", "B[i * i") + " = 0;"),
                                             [], ":6:", "affine"),
    "goto": (region("  for (i = 0; i < n; i++) {\n    if (i > 3) goto out;\n    B[i] = 0;\n  }\nout:;"),
             [], ":", "error"),
    "break": (region("  for (i = 0; i < n; i++) {\n    if (B[i] > 3) break;\n    B[i] = 0;\n  }"), [], ":6:", "error"),
    "return": (loop("return;"), [], ":6:", "error"),
    "iterator assigned in the body": (loop("i = i + 2;"), [], ":6:", "error"),
    "multiplicative increment": (region("  for (i = 1; i < n; i *= 2)\n    B[i] = 0;"), [], ":5:", "error"),
    "floating-point iterator": (region("  for (s = 0; s < n; s += 0.5)\n    B[0] = s;"), [], ":5:", "error"),
    # (under an affine test, 'if (i > 3) continue;' is read since session 50, under a
    # data test before assignments since session 53)
    "continue": (region("  for (i = 0; i < n; i++) {\n    if (B[i] > 3) continue;\n    for (j = 0; j < n; j++)\n"
                        "      B[j] = 0;\n  }"), [], ":6:", "error"),
    "loop header stepping a second variable by a non-constant": (
        region("  for (i = 0, j = 0; i < n; i++, j += i)\n    B[i] = C[j];"), [], ":5:", "error"),
    "floating-point subscript": (loop("B[s] = 0;"), [], ":6:", "error"),
    "modulo by a variable": (loop("B[i % n] = 0;"), [], ":6:", "error"),
    "union member": (region("  for (i = 0; i < n; i++)\n    B[i] = pt.x;",
                            head=HEAD.replace("  int i, j, k;", "  int i, j, k; union { double x; long y; } pt;")),
                     [], ":6:", "error"),
    "switch": (loop("switch (i) { case 0: B[i] = 1; break; default: B[i] = 2; }"), [], ":6:", "error"),
    "increment inside an expression": (loop("B[i] = C[i++];"), [], ":6:", "error"),
    "assignment in a subscript": (loop("B[j = i] = 0;"), [], ":6:", "error"),
    # (*(B + i) of a one-dimensional B is B[i]: test_wrong_code.py; a row's is not)
    "pointer arithmetic": (loop("*(A[i] + 1) = 0;"), [], ":6:", "error"),
    "address taken": (loop("idx[i] = (int)(long)&B[i];"), [], ":6:", "error"),
    # -- plain syntax errors ----------------------------------------------------------
    "missing semicolon": (loop("B[i] = 0"), [], ":", "error"),
    "unbalanced braces": (region("  for (i = 0; i < n; i++) {\n    B[i] = 0;"), [], ":", "error"),
    "unterminated string": (loop('B[i] = "oops;'), [], ":6:", "error"),
    "missing header": (b'#include "no_such_header_polysched.h"\n' + loop("B[i] = 0;"), [], ":1:", "no_such_header"),
    # -- bad options with a good input -------------------------------------------------------
    "-o equal to the input": (loop("B[i] = 0;"), ["SAME"], None, "input"),
    "--unroll 100000": (loop("B[i] = 0;"), ["--unroll", "100000"], None, "unroll"),
    "--unroll 0": (loop("B[i] = 0;"), ["--unroll", "0"], None, "unroll"),
    "bad tile sizes": (loop("B[i] = 0;"), ["--tile", "--tile-sizes", "0,x"], None, "tile sizes"),
    "missing tile-sizes file": (loop("B[i] = 0;"), ["--tile", "--tile-sizes-file", "absent.txt"], None, "absent"),
    "bad -D": (loop("B[i] = 0;"), ["-D", "1X=2"], None, "-D"),
}


def run_optimize(src: Path, out: Path, extra: list[str]) -> subprocess.CompletedProcess:
    extra = [str(src) if arg == "SAME" else arg for arg in extra]
    if extra[:1] == [str(src)]:
        args = [str(src), "-o", str(src)] + extra[1:]
    else:
        args = [str(src), "-o", str(out), *extra]
    return subprocess.run([sys.executable, "-m", "polysched", "optimize", *args],
                          capture_output=True, timeout=300, cwd=src.parent)


def check_one_line(proc: subprocess.CompletedProcess, src: Path, where: str | None, text: str) -> str:
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (proc.returncode, stderr[-2000:])
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr[-2000:]
    lines = stderr.strip("\n").splitlines()
    assert len(lines) == 1, stderr[-2000:]
    line = lines[0]
    assert len(line) < 1000
    if where is not None:
        assert line.startswith(f"{src}:"), line
        assert where in line, line
        # file:line:col: a position in the file
        assert line[len(str(src)):].split(":")[1].isdigit() and line[len(str(src)):].split(":")[2].isdigit(), line
    assert text.lower() in line.lower(), line
    assert b"islpy" not in proc.stdout
    return line


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input(tmp_path, name):
    data, extra, where, text = CASES[name]
    src = tmp_path / "bad.c"
    src.write_bytes(data)
    out = tmp_path / "out.c"

    # 1. no output file exists: none is written
    proc = run_optimize(src, out, extra)
    check_one_line(proc, src, where, text)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.c"], list(tmp_path.iterdir())
    assert src.read_bytes() == data

    # 2. an output file exists: it is left untouched (and nothing else appears)
    if extra[:1] != ["SAME"]:
        out.write_bytes(b"precious\n")
        os.utime(out, (1_000_000_000, 1_000_000_000))
        proc = run_optimize(src, out, extra)
        check_one_line(proc, src, where, text)
        assert out.read_bytes() == b"precious\n"
        assert out.stat().st_mtime == 1_000_000_000
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.c", "out.c"]


def test_corpus_is_large_enough():
    assert len(CASES) >= 40
