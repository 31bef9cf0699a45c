"""Tensorize a whole program: for each statement, the best legal match among the given
intrinsics (ranked by the cost model), applied with ``Program.tensorize`` in statement
order; a statement whose match became illegal after an earlier one is reported and
skipped.

Intrinsics whose results are not bit-identical take part only on request: ``numerics:
fma`` (a fused multiply-add rounds once where the program rounds twice) with
``reassociate=True``, the user's consent to floating-point results that differ in
rounding, and ``numerics: reassociate`` (a library call summing in its own order);
any other kind (``bf16``: inputs rounded to 8 significant bits) never
automatically. An explicit choice is a request too: when every intrinsic given is
inexact (the caller named them, e.g. ``--tensorize sgemm_packed_bf16``), they are all
used. An intrinsic that calls a library (``library: cblas``) takes part only when
polysched finds that library on this machine."""
from __future__ import annotations

from dataclasses import dataclass

from polysched.errors import TransformError

from .intrinsic import as_intrinsics
from .library import find_library
from .match import Match, best_legal_match

# what reassociate=True admits besides exact intrinsics
REASSOCIATE_NUMERICS = frozenset({"fma", "reassociate"})


def admitted(intrinsic, reassociate: bool) -> bool:
    """May auto_tensorize pick ``intrinsic`` among others (see the module doc)?"""
    if intrinsic.library and find_library(intrinsic.library) is None:
        return False
    return intrinsic.exact or (reassociate and intrinsic.numerics in REASSOCIATE_NUMERICS)


@dataclass
class Applied:
    statement: str
    match: Match | None
    applied: bool
    reason: str = ""
    runs_in: str = ""       # the statement whose calls run this one (the init of a band match)

    def describe(self) -> str:
        if self.runs_in:
            return f"{self.statement}: runs in {self.runs_in}'s calls (the init of a band match)"
        if self.match is None:
            return f"{self.statement}: no legal match ({self.reason})" if self.reason else f"{self.statement}: no match"
        state = "applied" if self.applied else f"not applied: {self.reason}"
        return f"{self.statement}: {self.match.describe()}; {state}"


def auto_tensorize(program, intrinsics, parallel: bool = False,
                   reassociate: bool = False) -> tuple[object, list[Applied]]:
    """(the program with every applicable best match applied, what happened per statement).
    ``program``: a :class:`polysched.Program` whose schedule still has the original loops;
    ``parallel``: ``Program.tensorize(..., parallel=True)`` (falls back to sequential
    blocks when no block loop can be parallel); ``reassociate``: the user accepts
    results that differ in rounding (the FMA kernels; see the module doc)."""
    intrinsics = as_intrinsics(intrinsics, "auto_tensorize")
    report = []
    if any(i.exact for i in intrinsics):
        intrinsics = [i for i in intrinsics if admitted(i, reassociate)]
    for stmt in program.scop.statements:
        if stmt.domain.intersect_params(program.scop.with_values()).is_empty():
            report.append(Applied(stmt.name, None, False, "the statement never runs"))
            continue
        best, reason = best_legal_match(program.scop, stmt, intrinsics, program.deps)
        if best is None:
            report.append(Applied(stmt.name, None, False, reason))
            continue
        try:
            try:
                program = program.tensorize(stmt.name, best.intrinsic, match=best.loops, parallel=parallel)
            except TransformError:
                if not parallel:
                    raise
                program = program.tensorize(stmt.name, best.intrinsic, match=best.loops)
            report.append(Applied(stmt.name, best, True))
        except TransformError as err:
            report.append(Applied(stmt.name, best, False, str(err)))
    runs_in = {item.match.init.statement: item.statement for item in report
               if item.applied and item.match.init is not None}
    for item in report:
        item.runs_in = runs_in.get(item.statement, "")
    return program, report


def accumulates_a_product(stmt) -> bool:
    """Could a shipped intrinsic match ``stmt``? Each one adds products into its output
    over at least three loops (``C[i][j] += A[i][k] * B[k][j]``), so ``stmt`` must be at
    least three deep, multiply, and read the array it writes. A cheap test on every
    statement that spares the default pipeline the SAT searches (and reading the
    descriptions) where nothing can match: stencils, initialisations, matrix-vector."""
    written = {a.array for a in stmt.accesses if a.kind == "write"}
    read = {a.array for a in stmt.accesses if a.kind == "read"}
    return len(stmt.iterators) >= 3 and "*" in stmt.body and bool(written & read)


# A match the default pipeline takes instead of its own tiled loops must beat them by
# far: a vector micro-kernel with register reuse (every shipped packed kernel scores
# 15-32 on its native path; the emulated matrix unit scores 0.5).
DEFAULT_MIN_GAIN = 4.0


def default_tensorize(program, parallel: bool = False, min_gain: float | None = None):
    """What ``polysched optimize --tile`` does with intrinsics unasked: (the tensorized
    program or None, one line per decision). ``program``: a :class:`polysched.Program`
    on the original schedule.

    Only shipped, bit-identical intrinsics this host runs natively take part (no
    library call, no portable fallback: without the ISA the pipeline's own tiled
    loops are faster), and a match must score at least ``min_gain`` (None:
    ``DEFAULT_MIN_GAIN``; the fuzzer's ``tensorize`` mode passes 0, to call kernels on
    its tiny programs too). The
    program is taken only when the statements left out (which keep their original
    loops, untiled and sequential) are all shallower than every tensorized one: the
    O(n^2) initialisations of an O(n^3) product (2mm's ``tmp[i][j] = 0``), never a
    nest as deep as the product."""
    from polysched.tensorize.cost import native_path
    from polysched.tensorize.intrinsic import builtin_intrinsics

    min_gain = DEFAULT_MIN_GAIN if min_gain is None else min_gain
    if not any(accumulates_a_product(stmt) for stmt in program.scop.statements):
        return None, []          # no statement to try: not even the descriptions are read
    intrinsics = [i for i in builtin_intrinsics()
                  if i.exact and not i.library and native_path(i) is not None]
    candidate, report = auto_tensorize(program, intrinsics, parallel=parallel)
    applied = [item for item in report if item.applied]
    weak = [item.statement for item in applied if item.match.cost.get("gain", 0) < min_gain]
    depth = {stmt.name: len(stmt.iterators) for stmt in program.scop.statements
             if not stmt.domain.is_empty()}
    shallowest = min((depth.get(item.statement, 0) for item in applied), default=0)
    deep_rest = [item.statement for item in report
                 if not item.applied and depth.get(item.statement, 0) >= shallowest]
    declined = ""
    if weak:        # small extents: the fixed cost of a call outweighs its speed
        declined = f"the matches of {', '.join(weak)} score below {min_gain:g} (--tensorize takes them)"
    elif applied and deep_rest:
        declined = (f"{', '.join(deep_rest)} would keep {shallowest} or more untiled loops; "
                    "the pipeline tiles them all")
    if declined:
        # the report says what the code does: no statement runs in a call
        for item in report:
            item.runs_in = ""
            if item.applied:
                item.applied, item.reason = False, declined
    lines = [item.describe() for item in report if item.match is not None or item.runs_in]
    return (candidate if applied and not declined else None), lines
