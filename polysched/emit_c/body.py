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


_OPERAND_END = ("ident", "number")


def _is_operand_end(tok) -> bool:
    return tok is not None and (tok.kind in _OPERAND_END or tok.text in (")", "]"))


def substitute(body: str, replacements: dict[str, str], additive: frozenset[str] | set[str] = frozenset()) -> str:
    """Replace each identifier token of ``body`` found in ``replacements``.

    A replacement is parenthesised unless it is a plain name or number, or the context
    makes parentheses redundant whatever macros the body uses:
    - a whole subscript ``[i]`` (brackets group it, even inside a macro argument);
    - for names in ``additive`` (replacements whose outermost operator is ``+``/``-``
      or binds tighter): ``[i + 1]``, ``[i - 1]``, ``x + i]`` or ``x + i + y``
      (binary ``+`` before it and ``+``/``-``/``]`` after: left-associative sums
      regroup to the same value), and ``= i;``.
    """
    tokens = tokenize(body)
    significant = [k for k, tok in enumerate(tokens) if tok.kind not in ("space", "comment")]

    def at(pos):
        return tokens[significant[pos]] if 0 <= pos < len(significant) else None

    out = [tok.text for tok in tokens]
    for pos, k in enumerate(significant):
        tok = tokens[k]
        if tok.kind != "ident" or tok.text not in replacements:
            continue
        before, after = at(pos - 1), at(pos + 1)
        if before is not None and (before.kind == "arrow" or before.text == "."):
            continue  # a struct member, not the iterator
        text = replacements[tok.text]
        b, a = (before.text if before else ""), (after.text if after else "")
        bare = b == "[" and a == "]"
        if tok.text in additive:
            after_add = a in ("]", "+", "-") and (
                b == "[" or (b == "+" and _is_operand_end(at(pos - 2)))
            )
            # '= E;' ends a statement: any operator ending in '=' binds looser than '+'
            statement_value = b == "=" and a == ";"
            bare = bare or after_add or statement_value
        out[k] = text if bare else wrap(text)
    return "".join(out)


_SELF_COMPARISON_RE = re.compile(r"\(\s*([A-Za-z_]\w*)\s*(>=|<=|==|!=|>|<)\s*\1\s*\)")


def fold_self_comparisons(text: str, iterators: set[str]) -> str:
    """``(c2 >= c2)`` as ``(1)``, ``(c2 < c2)`` as ``(0)``, for the new iterators
    ``iterators`` (integers: no NaN): ``(i >= j)`` substituted where the schedule split
    off ``i == j`` gave gcc's -Wtautological-compare."""
    def folded(m: re.Match) -> str:
        if m.group(1) not in iterators:
            return m.group(0)
        return "(1)" if m.group(2) in (">=", "<=", "==") else "(0)"

    return _SELF_COMPARISON_RE.sub(folded, text)


# the most an expanded array on the heap may take (the region runs the original code
# beyond it)
HEAP_BYTES = 1 << 30


def heap_arrays(scop) -> list:
    """The arrays of scalar expansion, which live on the heap (`polysched.transform.expand`;
    on the stack, a thread with a 1 MiB stack crashed where the original ran). The
    region allocates each once its run-time check holds and the size is at most
    ``HEAP_BYTES``, else runs the original code."""
    return [a for a in scop.arrays.values() if getattr(a, "origin", "") == "expanded"]


# the most bytes the arrays a region declares may take together: the emitted region
# declares each once, for the whole region, where the source declared each in its block
# (one after the other in the same stack space, or never, in a loop that does not run).
# Past it, the region's check runs the original code (codegen.guard_text)
REGION_ARRAY_BYTES = 1 << 20


def _positive_extents(array) -> str:
    """``[(N) > 0 ? (N) : 1]...``: an array's extents, positive even where the region's
    loops do not run (the source declared it only inside them)."""
    return "".join(f"[({e}) > 0 ? ({e}) : 1]" for e in array.dims)


def region_arrays_fit(scop) -> str | None:
    """The C condition that the arrays the region declares (``double t[N];`` in a loop
    body) take at most ``REGION_ARRAY_BYTES`` together, None if it declares none."""
    arrays = [a for a in scop.arrays.values() if a.origin == "region" and not a.is_scalar]
    if not arrays:
        return None
    sizes = " + ".join(f"sizeof({a.element_type}{_positive_extents(a)})" for a in arrays)
    return f"{sizes} <= {REGION_ARRAY_BYTES}ULL"


def region_declarations(scop, memory: dict[str, str] | None = None, used: set[str] | None = None) -> list[str]:
    """Declarations the emitted region must open with: the scalars that the source
    declares in blocks inside the region (``double t = ...;`` in a loop body; the
    front end marks them ``origin == "region"``), each one variable of the region,
    written by a statement ``t = ...;`` (a parallel loop gets it ``private``), and the
    arrays declared there (``double t[N];``, once for the whole region); and the
    arrays of scalar expansion (``origin == "expanded"``, `polysched.transform.expand`),
    each a pointer to its rows, ``double (*s_x)[n] = <memory[name]>;`` (``double (*s_x)``
    for one dimension), the block the region allocated (`heap_arrays`). ``used``: the
    identifiers of the emitted loops, when known: a block's variable they no longer
    name (``s`` of ``s = 0; for (k) s += ...; C[i][j] = s;`` once ``C[i][j]`` holds the
    sum) is not declared (gcc -Wall: "unused variable")."""
    lines = []
    heap = {a.name for a in heap_arrays(scop)}
    for array in scop.arrays.values():
        origin = getattr(array, "origin", "")
        if origin == "region" and used is not None and array.name not in used:
            continue
        if origin == "region":
            initializer = f" = {array.initializer}" if array.initializer else ""
            lines.append(f"{array.element_type} {array.name}{_positive_extents(array)}{initializer};")
        elif array.name in heap:
            # (an extent the region's check keeps positive, and 1 where it fails: the
            # file compiles with -D sizes that make it a negative constant)
            extents = [f"[({e}) > 0 ? ({e}) : 1]" for e in (substitute(d, scop.c_texts) for d in array.dims)]
            lines.append(f"{array.element_type} (*{array.name}){''.join(extents[1:])} = {memory[array.name]};")
    return lines
