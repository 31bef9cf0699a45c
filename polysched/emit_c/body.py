"""Rewriting a statement's verbatim C text in terms of the new loop iterators.

``substitute("C[i][j] += A[i][k];", {"i": "c0", "j": "c1 - c0", "k": "c2"})``
gives ``"C[c0][c1 - c0] += A[c0][c2];"``. The substitution is token-level: it never
touches members after ``.``/``->``, string or character literals, comments, or
identifiers that merely contain an iterator's name.
"""
from __future__ import annotations

import re

from .names import tokenize

_SIMPLE_RE = re.compile(r"^(?:[A-Za-z_][A-Za-z_0-9]*|[0-9]+)$")


def wrap(expression: str) -> str:
    """Parenthesise ``expression`` unless it is a plain identifier or non-negative literal."""
    return expression if _SIMPLE_RE.match(expression) else f"({expression})"


def substitute(body: str, replacements: dict[str, str]) -> str:
    """Replace each identifier token of ``body`` found in ``replacements``.

    A replacement is parenthesised unless it is a plain name or number, or it forms a
    whole subscript ``[i]`` (brackets group it already, even inside a macro argument).
    """
    tokens = tokenize(body)
    significant = [k for k, tok in enumerate(tokens) if tok.kind not in ("space", "comment")]
    out = [tok.text for tok in tokens]
    for pos, k in enumerate(significant):
        tok = tokens[k]
        if tok.kind != "ident" or tok.text not in replacements:
            continue
        before = tokens[significant[pos - 1]] if pos > 0 else None
        after = tokens[significant[pos + 1]] if pos + 1 < len(significant) else None
        if before is not None and (before.kind == "arrow" or before.text == "."):
            continue  # a struct member, not the iterator
        text = replacements[tok.text]
        whole_subscript = before is not None and before.text == "[" and after is not None and after.text == "]"
        out[k] = text if whole_subscript else wrap(text)
    return "".join(out)
