"""Compare the printed outputs of two runs of a kernel, token by token.

Any program output can be compared, not only the dump format below: words are
whitespace-separated; a word that is a number is compared under the tolerance, any
other word exactly, except that the numbers inside a word (``x=1.5,``) are compared
under the tolerance when the text around them is the same. Numbers are decimal
(``%f``, ``%e``, ``%g``) or C's hexadecimal floating point (``%a``: ``0x1.8p+3``).

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

Integer tokens (no point, no exponent) on both sides are compared exactly, at any
magnitude: they come from integer kernels (where an off-by-one is a bug, also in
4000000001 against 4000000000, and unsigned arithmetic wraps to large values) or from
doubles that printed as integers, which a transformation without ``--reassociate``
leaves bit-identical.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9

# C's %a: a hexadecimal significand and a binary exponent, which it always prints
_HEX_FLOAT = r"0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)p[+-]?\d+"
_NUMBER = re.compile(
    rf"[+-]?(?:{_HEX_FLOAT}|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([^)]*\))?)",
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


@dataclass
class _Dump:
    """A dump split into words; header lines are single words. ``headers`` lists
    (word position, array name) in order, for locating a word."""

    words: list[str]
    headers: list[tuple[int, str]]

    def locate(self, position: int) -> Token:
        text = self.words[position]
        array, start = None, 0
        for header_position, name in self.headers:
            if header_position > position:
                break
            array, start = name, header_position + 1
        if position + 1 == start:
            return Token(text, array, -1, is_header=True)
        return Token(text, array, position - start, _to_number(text))


def _to_number(word: str) -> float | None:
    if not _NUMBER.fullmatch(word):
        return None
    lower = word.lower()
    if "x" in lower:
        return float.fromhex(word)
    return math.nan if "nan" in lower else float(word)


def _split(text: str) -> _Dump:
    words: list[str] = []
    headers: list[tuple[int, str]] = []
    for line in text.splitlines():
        if "=" in line or "dump" in line:   # cheap pre-check: most lines are numbers
            header = _HEADER.match(line)
            if header:
                name = header.group("name") if header.group("name") is not None else header.group("pb")
                headers.append((len(words), name))
                words.append(line.strip())
                continue
        words.extend(line.split())
    return _Dump(words, headers)


def tokenize(text: str) -> list[Token]:
    """Split a dump into tokens, tagging each with the array it belongs to."""
    dump = _split(text)
    header_positions = {position: name for position, name in dump.headers}
    tokens: list[Token] = []
    array: str | None = None
    index = 0
    for position, word in enumerate(dump.words):
        if position in header_positions:
            array, index = header_positions[position], 0
            tokens.append(Token(word, array, -1, is_header=True))
        else:
            tokens.append(Token(word, array, index, _to_number(word)))
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


def _numbers_match(text_a: str, text_b: str, a: float, b: float, diff: float,
                   rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    if _INTEGER.fullmatch(text_a) and _INTEGER.fullmatch(text_b):
        return int(text_a) == int(text_b)
    return diff <= atol + rtol * max(abs(a), abs(b))


_NUMBER_INSIDE = re.compile(
    rf"(?<![A-Za-z_])[+-]?(?:{_HEX_FLOAT}|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)(?![A-Za-z_])",
    re.IGNORECASE)


def _compare_inside(word_a: str, word_b: str, rtol: float,
                    atol: float) -> tuple[float, float, bool] | None:
    """Two differing words that are not numbers but contain numbers: split each into
    text and numbers (a number glued to letters, as in ``A2``, stays text); when the
    texts agree and both have as many numbers, (worst abs err, worst rel err, whether
    every pair matches under the tolerance). None when the words do not have the same
    shape (then they simply differ)."""
    numbers_a, numbers_b = _NUMBER_INSIDE.findall(word_a), _NUMBER_INSIDE.findall(word_b)
    if not numbers_a or len(numbers_a) != len(numbers_b):
        return None
    if _NUMBER_INSIDE.split(word_a) != _NUMBER_INSIDE.split(word_b):
        return None
    worst_abs = worst_rel = 0.0
    matched = True
    for text_a, text_b in zip(numbers_a, numbers_b):
        if text_a == text_b:
            continue
        a, b = _to_number(text_a), _to_number(text_b)
        if a is None or b is None:
            return None
        diff, rel = _pair_error(a, b)
        worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, rel)
        matched = matched and _numbers_match(text_a, text_b, a, b, diff, rtol, atol)
    return worst_abs, worst_rel, matched


def _count_numbers(words: list[str]) -> int:
    """Numbers among ``words``, counting those inside text words (``x=1.5,``)."""
    count = 0
    for word in words:
        if _NUMBER.fullmatch(word):
            count += 1
        elif any(ch.isdigit() for ch in word):
            count += len(_NUMBER_INSIDE.findall(word))
    return count


def compare_outputs(expected: str, actual: str, rtol: float = DEFAULT_RTOL,
                    atol: float = DEFAULT_ATOL) -> Comparison:
    """Compare two dumps token by token (see the module docstring for the rules).
    Different token counts are never equal."""
    want, got = _split(expected), _split(actual)
    worst_abs = worst_rel = 0.0
    n_mismatches = 0
    first: str | None = None
    # Textually identical words need no parsing (the common case, and the one that
    # matters for speed on LARGE dumps): only the differing words are examined.
    n_values = _count_numbers(want.words[:len(got.words)])
    if want.words != got.words:
        for position, (word_a, word_b) in enumerate(zip(want.words, got.words)):
            if word_a == word_b:
                continue
            a, b = _to_number(word_a), _to_number(word_b)
            if a is not None and b is not None:
                diff, rel = _pair_error(a, b)
                worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, rel)
                if _numbers_match(word_a, word_b, a, b, diff, rtol, atol):
                    continue
                detail = f"expected {word_a}, got {word_b} (abs err {diff:.3g}, rel err {rel:.3g})"
            else:
                if (a is None) != (b is None):
                    n_values -= _count_numbers([word_a])   # counted above, but not a numeric pair
                elif a is None:
                    # text with numbers inside ("x=1.5,", "sum:3.0e2"): the numbers under
                    # the tolerance, the text around them exactly
                    inner = _compare_inside(word_a, word_b, rtol, atol)
                    if inner is not None:
                        diff, rel, matched = inner
                        worst_abs, worst_rel = max(worst_abs, diff), max(worst_rel, rel)
                        if matched:
                            continue
                detail = f"expected '{word_a}', got '{word_b}'"
            n_mismatches += 1
            if first is None:
                first = f"{_where(position, want.locate(position))}: {detail}"
    errors = f"worst abs err {worst_abs:.3g}, worst rel err {worst_rel:.3g}"
    if len(want.words) != len(got.words):
        count = f"token count differs: expected {len(want.words)} tokens, got {len(got.words)}"
        if first is None:
            shorter, longer = (got, want) if len(got.words) < len(want.words) else (want, got)
            position = len(shorter.words)
            side = "expected" if longer is want else "actual"
            first = (f"{_where(position, longer.locate(position))}: only in {side} output: "
                     f"'{longer.words[position]}'")
        message = f"{count}; first difference at {first}; {errors}"
        return Comparison(False, worst_abs, worst_rel, n_values, first, message, n_mismatches)
    if first is not None:
        message = (f"{n_mismatches} of {len(want.words)} tokens differ; first at {first}; {errors} "
                   f"(rtol {rtol:g}, atol {atol:g})")
        return Comparison(False, worst_abs, worst_rel, n_values, first, message, n_mismatches)
    message = f"{n_values} values equal; {errors} (rtol {rtol:g}, atol {atol:g})"
    return Comparison(True, worst_abs, worst_rel, n_values, None, message)
