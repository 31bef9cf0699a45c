"""C emission: isl schedule tree -> C text (with OpenMP/GCC pragmas) -> the whole file.

    text = generate(scop, schedule)      # replaces scop.source[region_start:region_end]
    out  = splice(scop, text)            # the whole file, everything else byte-identical
    out  = emit_file(scops, schedules)   # both steps for every scop of one file
                                         # (+ #include of intrinsic headers, see tensorize.py)

See codegen.py for the printer and marks.py for the mark -> pragma rules.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import islpy as isl

from polysched.errors import ArgumentError
from polysched.scop.model import Scop
from polysched.scop.source import blank_strings, original_in_output, strip_comments
from polysched.textio import (PASTED_END, PASTED_START, feature_definitions, header_position, line_ending,
                              without_pasted_headers)

from .codegen import EmitOptions, generate, generate_described
from .splice import splice
from .validate import CodegenError, validate_ast
from .tensorize import intrinsic_includes
from .versioning import Versioning, plan as versioning_plan

__all__ = ["CodegenError", "EmitOptions", "Versioning", "assemble", "emit_file", "generate", "generate_described", "splice", "validate_ast", "versioning_plan",
           "without_pasted_headers"]


def emit_file(
    scops: Sequence[Scop],
    schedules: Sequence[isl.Schedule | None] | None = None,
    *,
    options: EmitOptions | None = None,
    deps: Sequence | None = None,
) -> str:
    """The whole file with every scop region regenerated from its schedule
    (``schedules[k]`` for ``scops[k]``; None, or a None entry, means the original).
    ``deps[k]``: the `Dependences` of ``scops[k]`` if known (else computed)."""
    scops = list(scops)
    if schedules is None:
        schedules = [None] * len(scops)
    if len(schedules) != len(scops):
        raise ArgumentError(f"{len(scops)} scops but {len(schedules)} schedules")
    deps = list(deps) if deps is not None else [None] * len(scops)
    return assemble(scops, [generate(scop, sched, options=options, deps=dep)
                            for scop, sched, dep in zip(scops, schedules, deps)])


def _under_preprocessor_guard(scop: Scop, text: str) -> str:
    """``text`` (a region's new code) when the region has no ``#if`` of its own; else
    that code under the condition of the branches the model read, and the original it
    keeps (between its marker lines) under any other: the file compiled with -DDEBUG
    runs the original. `scop.source.original_of_output` reads it back."""
    original = original_in_output(text)
    guard = " && ".join(filter(None, [scop.preprocessor_guard, _not_macros(scop, text, original)]))
    if not guard or original is None:
        return text
    nl = line_ending(scop.source)
    return f"#if {guard}{nl}{text}#else{nl}{original}#endif{nl}"


def _not_macros(scop: Scop, text: str, original: str | None) -> str:
    """With headers of the program's own, whose ``#if``s may make any name a macro under
    another ``-D`` (``#define OUT IN``, ``#define sqrt(x) traced(x)``, ``#define c0
    2.99e8``): ``!defined(...)`` of the region's names that were no macros when read
    (`Scop.plain_names`) and of the names the optimized code brings (its loop counters),
    else ''."""
    if not scop.types_from_headers or original is None:
        return ""
    from polysched.scop.extract import C_WORDS
    new_code = "\n".join(line for line in text.replace(original, "").split("\n")
                         if not line.lstrip().startswith(("#", "/*")))
    brought = {w for w in re.findall(r"\b[A-Za-z_]\w*\b", blank_strings(strip_comments(new_code)))
               if not w.startswith(("polysched_", "POLYSCHED_", "__")) and w not in C_WORDS}
    names = sorted(set(scop.plain_names) | (brought - set(re.findall(r"\b[A-Za-z_]\w*\b", original))))
    return " && ".join(f"!defined({name})" for name in names)


def assemble(scops: Sequence[Scop], texts: Sequence[str]) -> str:
    """The whole file with ``texts[k]`` (from `generate`) in place of region ``k``, and
    the headers its intrinsic calls need (`intrinsic_includes`), once."""
    texts = [_under_preprocessor_guard(scop, text) for scop, text in zip(scops, texts)]
    # the headers an earlier run pasted (this file is polysched's output) go: the calls
    # that need them again get them again
    text = without_pasted_headers(splice(scops, texts))
    at = header_position(text)
    pasted = intrinsic_includes(texts)
    features = feature_definitions(text) if at == 0 and pasted else ""
    if features:        # the same definitions again, above the pasted system headers
        pasted = f"{PASTED_START.format('feature_macros')}\n{features}{PASTED_END.format('feature_macros')}\n{pasted}"
    return text[:at] + pasted + text[at:]
