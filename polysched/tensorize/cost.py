"""A simple cost model for ranking legal matches, and the host's CPU features.

Per call: ``flops = 2 x Π extents`` (a loop of free extent counts the program loop's
extent), ``traffic`` = elements of each operand touched once (the output twice: load and
store), ``reuse = flops / traffic``. ``coverage``: the fraction of the statement's
iterations inside full blocks (the rest runs in the remainder epilogue). ``lanes``:
elements per vector register of the widest ISA alternative. Estimated gain
(a unitless score, higher is better): ``lanes x min(reuse, lanes) / lanes x coverage``
= ``min(reuse, lanes) x coverage`` for vector intrinsics, ``0.5 x coverage`` for
portable-only ones (the emulated unit: correct, not fast); times 2 when the
implementation packs its operands (``packing:``: a cache-blocked, register-blocked
kernel runs near the ISA's peak at any size, an unpacked one streams its operands from
the arrays), times ``flops / (flops + CALL_OVERHEAD_FLOPS)`` for the fixed cost of a
call, and times 1.5 when it fuses multiply-adds (``numerics: fma``: one
instruction per multiply-add instead of two; such intrinsics are only applied on
request). An intrinsic that calls a library (``library: cblas``) found on this
machine scores ``4 x min(reuse, 16) x coverage``: a BLAS packs, blocks for every cache
level and uses every vector unit itself; not found, it scores 0 (its run-time fallback
is another shipped kernel, which then wins on its own).
"""
from __future__ import annotations

import functools
from math import prod

from .library import find_library

CALL_OVERHEAD_FLOPS = 20_000
_ELEMENT_BYTES = {"double": 8, "float": 4, "int32_t": 4, "uint32_t": 4, "int16_t": 2,
                  "uint16_t": 2, "int8_t": 1, "uint8_t": 1, "int64_t": 8}
_VECTOR_BYTES = {"avx512f": 64, "avx512vnni": 64, "avx2": 32, "avxvnni": 32}
_CPUINFO_NAMES = {"avx512vnni": "avx512_vnni", "avxvnni": "avx_vnni", "avx512bf16": "avx512_bf16"}


@functools.lru_cache(maxsize=1)
def host_features() -> frozenset[str]:
    """CPU flags of this machine (``/proc/cpuinfo``), empty when unknown."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def native_path(intr) -> tuple[str, ...] | None:
    """What runs ``intr`` on this host: ``(library,)`` for a library found here, else the
    first feature alternative this host supports (None: the portable path)."""
    if intr.library:
        return (intr.library,) if find_library(intr.library) else None
    flags = host_features()
    for alternative in intr.features:
        if all(_CPUINFO_NAMES.get(f, f) in flags for f in alternative):
            return alternative
    return None


def estimate(problem, loop_map) -> dict:
    """Cost figures of a match (see the module doc)."""
    intr = problem.intrinsic
    extents = []
    coverage = 1.0
    for l, p in loop_map:
        fixed = intr.extents[l]
        program = problem.extents[p]
        extents.append(fixed if fixed is not None else (program or 64))
        if fixed is not None and program:
            coverage *= (program // fixed) * fixed / program
    flops = 2 * prod(extents)
    index = {name: l for l, name in enumerate(intr.loops)}
    traffic = 0
    for ref in {r.array: r for r in intr.pattern.refs}.values():
        used = [index[intr.loops[l]] for row in ref.rows for l, c in enumerate(row) if c]
        size = prod(extents[loop_pos] for loop_pos in sorted(set(_order(loop_map, used))))
        traffic += size * (2 if ref.array == intr.output else 1)
    reuse = flops / max(traffic, 1)
    element = max(_ELEMENT_BYTES.get(intr.pattern.types[o], 8) for o in intr.operands)
    widest = max((max(_VECTOR_BYTES.get(f, 0) for f in alt) for alt in intr.features), default=0)
    lanes = widest // element if widest else 1
    if intr.library:
        gain = 4 * min(reuse, 16) * coverage if find_library(intr.library) else 0.0
    else:
        gain = (min(reuse, lanes) if widest else 0.5) * coverage
    if intr.packing:
        gain *= 2
    # a call has a fixed cost (dispatch, packing set-up, the output block loaded and
    # stored once per call): of two matches that use the vector units alike, the one
    # doing more work per call wins (conv2d: 4 M flops over (c, r, s) against 0.5 M over c)
    gain *= flops / (flops + CALL_OVERHEAD_FLOPS)
    if intr.numerics == "fma":
        gain *= 1.5
    out = {"flops_per_call": flops, "reuse": round(reuse, 3), "coverage": round(coverage, 4),
           "lanes": lanes, "gain": round(gain, 3)}
    if intr.packing:
        out["packed"] = sorted(intr.packing)
    if not intr.exact:
        out["numerics"] = intr.numerics
    return out


def _order(loop_map, loops):
    """Positions in ``loop_map`` of the intrinsic loops ``loops``."""
    position = {l: k for k, (l, _p) in enumerate(loop_map)}
    return [position[l] for l in loops]
