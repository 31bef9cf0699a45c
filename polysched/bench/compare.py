"""Compare the printed outputs of two runs of a kernel, token by token.

The dump format (``-DPOLYSCHED_DUMP``) is: header lines ``== A ==`` naming an array,
then its elements as whitespace-separated numbers (``%.10g`` for floating point,
plain ints for integer arrays). Headers and any other non-numeric tokens must match
exactly; numbers match under a mixed tolerance

    |a - b| <= atol + rtol * max(|a|, |b|)

Why these defaults: the dump prints 10 significant digits, so two doubles one ulp
apart can print 1e-9 apart (relative); FMA contraction and reassociation in a
transformed kernel move results by ~1e-15..1e-10 relative, more in ill-conditioned
kernels (lu, cholesky at MINI sizes). Real scheduling bugs (a dependence violated, an
iteration skipped or repeated) move values by far more than 1e-6 relative at the small
sizes used for verification. ``atol`` covers values that cancel to ~0.

Integer tokens (no point, no exponent) below 1e8 in magnitude on both sides are
compared exactly: they come from integer kernels (where an off-by-one is a bug) or
from doubles that printed as integers, and for those below 1e8 two different integers
mean a difference far above rounding.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9
EXACT_INT_LIMIT = 10 ** 8

_NUMBER = re.compile(
    r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([^)]*\))?)",
    re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+")
_HEADER = re.compile(r"^\s*(?:==\s*(?P<name>.*?)\s*==|begin dump:\s*(?P<pb>\S+))\s*$")


@dataclass
class Token:
    text: str
    array: str | None   # the array header in effect, None before the first header
    index: int          # index of the element within that array (or the whole output)
    number: float | None = None
    is_header: bool = False


@dataclass
class Comparison:
    """Result of :func:`compare_outputs`. ``worst_abs`` / ``worst_rel`` are over all
    numeric pairs (inf when infinities or NaNs disagree); ``n_values`` counts the
    numeric pairs compared; ``first_mismatch`` locates the first failing token."""

    equal: bool
    worst_abs: float
    worst_rel: float
    n_values: int
    first_mismatch: str | None
    message: str
    n_mismatches: int = 0


def tokenize(text: str) -> list[Token]:
    """Split a dump into tokens, tagging each with the array it belongs to."""
    tokens: list[Token] = []
    array: str | None = None
    index = 0
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            array = header.group("name") if header.group("name") is not None else header.group("pb")
            index = 0
            tokens.append(Token(line.strip(), array, -1, is_header=True))
            continue
        for word in line.split():
            number = None
            if _NUMBER.fullmatch(word):
                number = math.nan if "nan" in word.lower() else float(word)
            tokens.append(Token(word, array, index, number))
            index += 1
    return tokens


def _where(position: int, token: Token) -> str:
    if token.is_header:
        return f"token {position} (header)"
    if token.array is None:
        return f"token {position} (value {token.index})"
    return f"token {position} ({token.array}[{token.index}])"


def _pair_error(a: float, b: float) -> tuple[float, float]:
    """(absolute, relative) error of a pair; NaN/inf disagreements are infinite."""
    if math.isnan(a) or math.isnan(b):
        return (0.0, 0.0) if math.isnan(a) and math.isnan(b) else (math.inf, math.inf)
    if math.isinf(a) or math.isinf(b):
        return (0.0, 0.0) if a == b else (math.inf, math.inf)
    diff = abs(a - b)
    scale = max(abs(a), abs(b))
    return diff, (diff / scale if scale > 0 else 0.0)


def _numbers_match(ta: Token, tb: Token, a: float, b: float, diff: float,
                   rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    if (_INTEGER.fullmatch(ta.text) and _INTEGER.fullmatch(tb.text)
            and abs(a) < EXACT_INT_LIMIT and abs(b) < EXACT_INT_LIMIT):
        return int(ta.text) == int(tb.text)
    return diff <= atol + rtol * max(abs(a), abs(b))


def compare_outputs(expected: str, actual: str, rtol: float = DEFAULT_RTOL,
                    atol: float = DEFAULT_ATOL) -> Comparison:
    """Compare two dumps token by token (see the module docstring for the rules).
    Different token counts are never equal."""
    want, got = tokenize(expected), tokenize(actual)
    worst_abs = worst_rel = 0.0
    n_values = 0
    n_mismatches = 0
    first: str | None = None
    for position, (tw, tg) in enumerate(zip(want, got)):
        if tw.number is not None and tg.number is not None:
            n_values += 1
            diff, rel = _pair_error(tw.number, tg.number)
            worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, rel)
            if _numbers_match(tw, tg, tw.number, tg.number, diff, rtol, atol):
                continue
            detail = f"expected {tw.text}, got {tg.text} (abs err {diff:.3g}, rel err {rel:.3g})"
        elif tw.text == tg.text:
            continue
        else:
            detail = f"expected '{tw.text}', got '{tg.text}'"
        n_mismatches += 1
        if first is None:
            first = f"{_where(position, tw)}: {detail}"
    errors = f"worst abs err {worst_abs:.3g}, worst rel err {worst_rel:.3g}"
    if len(want) != len(got):
        count = (f"token count differs: expected {len(want)} tokens, got {len(got)}")
        if first is None:
            shorter, longer = (got, want) if len(got) < len(want) else (want, got)
            extra = longer[len(shorter)]
            side = "expected" if longer is want else "actual"
            first = f"{_where(len(shorter), extra)}: only in {side} output: '{extra.text}'"
        message = f"{count}; first difference at {first}; {errors}"
        return Comparison(False, worst_abs, worst_rel, n_values, first, message, n_mismatches)
    if first is not None:
        message = (f"{n_mismatches} of {len(want)} tokens differ; first at {first}; {errors} "
                   f"(rtol {rtol:g}, atol {atol:g})")
        return Comparison(False, worst_abs, worst_rel, n_values, first, message, n_mismatches)
    message = f"{n_values} values equal; {errors} (rtol {rtol:g}, atol {atol:g})"
    return Comparison(True, worst_abs, worst_rel, n_values, None, message)
