"""C tokens and fresh names: emitted identifiers must never clash with the user's.

The tokenizer is deliberately small: it only has to find identifiers in C text
(skipping comments, string and character literals and numbers) and tell whether an
identifier is a struct member (after ``.`` or ``->``), which is all that name
generation and statement-body substitution need.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# Order matters: comments and literals before identifiers, pp-numbers before '.'.
_TOKEN_RE = re.compile(
    r"""
    (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>(?:u8|[uUL])?"(?:\\.|[^"\\\n])*")
  | (?P<char>(?:[uUL])?'(?:\\.|[^'\\\n])*')
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.])*)
  | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<arrow>->)
  | (?P<space>\s+)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    kind: str  # comment, string, char, number, ident, arrow, space, other
    text: str


def tokenize(text: str) -> list[Token]:
    """Split C text into tokens whose concatenation is exactly ``text``."""
    return [Token(m.lastgroup, m.group()) for m in _TOKEN_RE.finditer(text)]


def identifiers_in(text: str) -> set[str]:
    """Every identifier token of ``text`` (outside comments and literals)."""
    return {tok.text for tok in tokenize(text) if tok.kind == "ident"}


class NameAllocator:
    """Hands out identifiers that clash neither with ``taken`` nor with each other."""

    def __init__(self, taken: set[str] | frozenset[str]):
        self._taken = set(taken)

    def is_free(self, name: str) -> bool:
        return name not in self._taken

    def fresh(self, base: str) -> str:
        """``base`` if free, else ``base_1``, ``base_2``, ...; the result becomes taken."""
        name, k = base, 0
        while name in self._taken:
            k += 1
            name = f"{base}_{k}"
        self._taken.add(name)
        return name

    def fresh_family(self, prefixes: list[str], count: int) -> list[str]:
        """``count`` names ``p0, p1, ...`` for the first prefix ``p`` whose whole family is
        free (falling back to numbered variants of the last prefix)."""
        candidates = list(prefixes)
        k = 0
        while True:
            for prefix in candidates:
                names = [f"{prefix}{i}" for i in range(count)]
                if all(n not in self._taken for n in names):
                    self._taken.update(names)
                    return names
            k += 1
            candidates = [f"{prefixes[-1]}{k}_"]
