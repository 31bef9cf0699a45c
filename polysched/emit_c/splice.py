"""Putting generated regions back into the original file text.

Everything outside ``source[region_start:region_end]`` of each scop (includes,
functions, the ``#pragma scop`` / ``#pragma endscop`` lines) stays byte-identical; in
polysched's own output, the whole region (``Scop.replaced_span``) is replaced.
"""
from __future__ import annotations

from collections.abc import Sequence

from polysched.errors import ArgumentError
from polysched.scop.model import Scop


def splice(scop_or_scops: Scop | Sequence[Scop], replacement_texts: str | Sequence[str]) -> str:
    """The whole file text with each scop's region replaced by its text.

    All scops must come from the same file (same ``source``); regions may come in any
    order but must not overlap.
    """
    if isinstance(scop_or_scops, Scop):
        scops, texts = [scop_or_scops], [replacement_texts]
    else:
        scops, texts = list(scop_or_scops), list(replacement_texts)
    if isinstance(replacement_texts, str) and not isinstance(scop_or_scops, Scop):
        raise TypeError("several scops need a sequence of replacement texts")
    if len(scops) != len(texts):
        raise ArgumentError(f"{len(scops)} scops but {len(texts)} replacement texts")
    if not scops:
        raise ArgumentError("splice needs at least one scop")
    source = scops[0].source
    if any(s.source != source for s in scops):
        raise ArgumentError("all scops passed to splice must come from the same source text")
    pieces, cursor = [], 0
    for scop, text in sorted(zip(scops, texts), key=lambda pair: pair[0].region_start):
        start, end = scop.replaced_span
        if start < cursor:
            raise ArgumentError(f"overlapping scop regions in {scop.filename}")
        pieces += [source[cursor:start], text]
        cursor = end
    pieces.append(source[cursor:])
    return "".join(pieces)
