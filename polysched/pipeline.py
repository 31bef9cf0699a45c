"""The whole job on one C file: extract -> dependences -> schedule -> tile -> emit.

This is what ``polysched optimize`` and ``polysched bench`` call. Each phase is timed;
every schedule is checked for legality against the dependences before any code is
emitted (an illegal schedule is a bug, reported, never emitted).
"""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import islpy as isl

from polysched import emit_c
from polysched.budget import DEFAULT_RUN_BUDGET, RunBudget
from polysched.dependence import (Dependences, analyze, check, clause_variables, is_integer_type,
                                  private_clauses_read_after, racy_user_loops, runs_in_original_order)
from polysched.dependence.analysis import KINDS
from polysched.dependence.flatten import flatten
from polysched.errors import ArgumentError, TransformError
from polysched.islutil import isl_operation_cap
from polysched.marks import parallel_marks
from polysched.schedule import ScheduleOptions, compute
from polysched.schedule.isolated import IsolatedTimeout, run_isolated, stop_reason
from polysched.scop import Scop, ScopError, extract, is_parallel_for_pragma
from polysched.tiling import TileOptions, stride_one_order, tile_with_report
from polysched.tiling.options import reassociation_arg
from polysched.transform.expand import expand, expansion_plan
from polysched.transform.substitute import substitute, substitution_plan
from polysched.transform.layout import transpose, transposition_plan
from polysched.transform.privatize import privatization_plan, privatize


class IllegalScheduleError(RuntimeError):
    """A stage produced a schedule that violates a dependence (a polysched bug)."""


@dataclass
class SourceOptions:
    """How the C file is read: ``defines`` like ``-D`` (``{"N": "100"}``; None for a
    bare ``-D N``) and ``include_dirs`` like ``-I``."""

    defines: dict[str, str | None] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)


def _pipeline_schedule_options() -> ScheduleOptions:
    # Pluto first; only when the non-negative space has no schedule (a loop must be
    # reversed) is the SCoP scheduled again, Pluto+-style, with negatives allowed.
    return ScheduleOptions(negative_fallback=True)


@dataclass
class OptimizeOptions:
    """What ``polysched optimize`` does, one options object per stage:
    ``source`` (`SourceOptions`), ``schedule`` (`polysched.schedule.ScheduleOptions`;
    ``scheduler="identity"`` keeps the original schedule) and ``tiling``
    (`polysched.tiling.TileOptions`, or None for no tiling/marking stage).
    ``tensorize``: with a tiling stage, run a region's matrix products as calls of the
    shipped bit-identical micro-kernels where they pay
    (`polysched.tensorize.default_tensorize`), instead of its own tiled loops.

    ``OptimizeOptions.from_flags(tile=True, parallel=True, ...)`` builds one from the
    command line's flat flags."""

    source: SourceOptions = field(default_factory=SourceOptions)
    schedule: ScheduleOptions = field(default_factory=_pipeline_schedule_options)
    tiling: TileOptions | None = None
    tensorize: bool = False
    tensorize_min_gain: float | None = None      # None: the policy's own threshold
    # ``optimize --tensorize``: these intrinsic descriptions (`polysched.tensorize.
    # load_intrinsics`) instead of the default's choice; each statement's best legal
    # match among them is applied, whatever it scores and whatever else its region
    # holds (`auto_tensorize`; ``tensorize_reassociate``: inexact ones may take part).
    # A region where none applies goes through the pipeline.
    tensorize_intrinsics: list | None = None
    tensorize_reassociate: bool = False
    # CPU seconds the whole run may take (this process and the scheduler and code
    # generator it forks; None: no limit). Each region's scheduler and code generator get
    # at most what is left; a region reached with nothing left is kept as written.
    budget: float | None = DEFAULT_RUN_BUDGET
    # substitute the temporaries private to an iteration into the statements that read
    # them (`polysched.transform.substitute`) and expand the scalars private to a loop
    # that walks arrays across rows (`polysched.transform.expand`), so that the scheduler
    # may interchange and tile those loops; with a parallel tiling stage, also give a
    # temporary array filled anew by every iteration of a loop a copy per iteration
    # (`polysched.transform.privatize`); not with the identity
    expand_scalars: bool = True
    # work on transposed copies of matrices walked down their columns by a recurrence
    # inside a parallel loop (`polysched.transform.layout`); not with the identity
    transpose_arrays: bool = True

    @classmethod
    def from_flags(cls, *, scheduler: str = "pluto", fuse: str = "cost",
                   negative_coefficients: bool = False, diamond: bool | None = None, tile: bool = False,
                   tile_sizes: list[int] | dict[str, list[int]] | None = None, l2tile: bool = False,
                   parallel: bool = False, unroll: int | None = None, reassociate: bool = False,
                   register_tile: int = 4, point_wavefront: bool = True, threads: int | None = None,
                   tensorize: bool | None = None,
                   expand_scalars: bool = True, transpose_arrays: bool = True,
                   defines: dict[str, str | None] | None = None,
                   include_dirs: list[str] | None = None) -> "OptimizeOptions":
        """The stage options of ``polysched optimize``'s flags (same names, less the
        dashes): the tiling stage runs when ``tile``, ``parallel`` or ``unroll`` is set.
        ``tensorize=None`` (no ``--tensorize``/``--no-tensorize``): on with ``tile``
        when the choices are polysched's own (Pluto's scheduler, tile sizes and unroll
        factors from the model), off otherwise."""
        schedule = ScheduleOptions(scheduler=scheduler, fuse=fuse,
                                   negative_coefficients=negative_coefficients,
                                   negative_fallback=True, diamond=diamond,
                                   reassociate=bool(reassociate and parallel))
        tiling = None
        if tile_sizes is not None and not (tile or l2tile):
            raise ArgumentError(f"tile_sizes {tile_sizes} without tile: they would tile nothing")
        if tile or parallel or unroll:
            tiling = TileOptions(tile=tile, sizes=tile_sizes, l2tile=l2tile, parallel=parallel,
                                 unroll=unroll, reassociate=reassociate, register_tile=register_tile,
                                 point_wavefront=point_wavefront, threads=threads)
        if tensorize is None:
            tensorize = tile and scheduler == "pluto" and tile_sizes is None and unroll is None
        return cls(SourceOptions(dict(defines or {}), list(include_dirs or [])), schedule, tiling,
                   tensorize=bool(tensorize) and tiling is not None, expand_scalars=expand_scalars,
                   transpose_arrays=transpose_arrays)

    def trace_steps(self, caches) -> list[dict]:
        """The `polysched.Program` trace steps that do what these options do
        (``auto_schedule``, then ``auto_tile`` with the cache sizes ``caches`` the
        tiling model uses), for ``--save-trace``."""
        schedule = self.schedule
        args = {"scheduler": schedule.scheduler, "fuse": schedule.fuse}
        if schedule.negative_coefficients:
            args["negative_coefficients"] = True
        if schedule.diamond is not None:
            args["diamond"] = schedule.diamond
        if schedule.reassociate:
            args["reassociate"] = reassociation_arg(schedule.reassociate)
        steps = [{"op": "auto_schedule", "args": args}]
        tiling = self.tiling
        if tiling is not None:
            steps.append({"op": "auto_tile", "args": tiling.auto_tile_args(caches)})
        return steps


# the parts of a region's summary (ScopResult.not_emitted)
EVERY_PART = ("expansions", "fusion", "order", "tensorize", "tiling")


@dataclass
class ScopResult:
    """One region's outcome: ``schedule`` is the final (marked) isl schedule tree."""

    scop: Scop
    deps: Dependences
    schedule: isl.Schedule
    tiling: object | None = None
    fallback: str = ""         # what the code was generated from instead, when not the schedule
    # the parts of the summary that fallback left out of the code ("expansions",
    # "fusion", "tensorize", "tiling"): listed as "not in the code"
    not_emitted: tuple[str, ...] = ()
    # the schedule asks for nothing the code as written does not do (the original order,
    # no parallel or vector loop): the region is kept as written, without versioning
    # (ludcmp: generated again with its run-time checks, the same loops ran 0.88x)
    kept_as_written: bool = False
    # the scheduler's fusion decisions, one sentence each (schedule.pluto: stats["fusion"])
    fusion: list[str] = field(default_factory=list)
    # OptimizeOptions.tensorize: what each matched statement got, and the steps of the
    # polysched.Program trace that made `schedule` when the region was tensorized
    tensorize: list[str] = field(default_factory=list)
    trace_steps: list[dict] | None = None
    # what code generation falls back to first when ``schedule`` fails: the schedule
    # before tiling, or the pipeline's tiled schedule when the region was tensorized
    untiled: isl.Schedule | None = None
    untiled_what: str = "the schedule before tiling"
    untiled_drops: tuple[str, ...] = ("tiling",)        # what ``untiled`` does not have
    # tried before ``untiled``: the same tiles without point-loop wavefronts, computed
    # when needed (a 27-point seidel-3d's wavefronts of point loops took isl's AST
    # generator past the budget; the tiles alone took 1 s)
    simpler_tiled: Callable[[], isl.Schedule | None] | None = None
    # the scalars expanded into arrays and the arrays transposed before scheduling
    # (`polysched.transform.expand`, `polysched.transform.layout`), one line each
    expansions: list[str] = field(default_factory=list)
    # the `polysched.Program` steps that did it (``expand_scalars``, ``transpose_arrays``)
    model_steps: list[str] = field(default_factory=list)
    # what the generated code assumes and checks at run time (`Versioning.describe` of
    # the plan code generation ended with); None before code generation
    versioning: list[str] | None = None
    # what the region's own loop pragmas turned on (`_honouring_loop_pragmas`)
    pragmas: list[str] = field(default_factory=list)
    # whether its floating-point sums may be reordered (--reassociate, the region's own
    # reduction clauses, a trace that asks): its outputs may then round differently
    reassociates: bool = False
    # the bands `polysched.tiling.stride_one_order` reordered (no tiling stage), one line each
    orders: list[str] = field(default_factory=list)


@dataclass
class OptimizeResult:
    source: Path
    text: str
    regions: list[ScopResult]
    phase_seconds: dict[str, float]

    def summary(self) -> str:
        lines = []
        for k, region in enumerate(self.regions):
            scop = region.scop
            lines.append(
                f"region {k} ({scop.function}, lines {scop.start_line}-{scop.end_line}): "
                f"{len(scop.statements)} statements"
            )
            if region.fallback:
                lines.append(f"  code generated from {region.fallback}")
            lines.extend(f"  {said}" for said in region.pragmas)
            parts = {"expansions": region.expansions,
                     "fusion": [f"fusion: {decision}" for decision in region.fusion],
                     "order": region.orders,
                     "tensorize": [f"tensorize: {decision}" for decision in region.tensorize]
                     # (the tiling report, which said where the parallel loop is, went with
                     # the tiled schedule the calls replaced)
                     + [f"parallel: the blocks of {', '.join(statements)} (the loop marked '{mark}')"
                        for mark, statements in parallel_marks(region.schedule)
                        if region.tiling is None and "tensorize" in region.untiled_drops],
                     "tiling": str(region.tiling).splitlines() if region.tiling is not None else []}
            for part, texts in parts.items():
                prefix = "  not in the code: " if part in region.not_emitted else "  "
                lines.extend(prefix + text for text in texts)
            if region.kept_as_written and not region.fallback:
                lines.append("  the schedule keeps the original order and marks no loop: "
                             "the region is kept as written")
                # (helper-89: the reason no loop was marked went unsaid: the model held for
                # no parameter value)
                lines.extend(f"  original code kept: {reason}"
                             for reason in emit_c.versioning_plan(scop, schedule=region.schedule).never)
            elif not region.kept_as_written:
                described = region.versioning
                if described is None and not region.fallback:
                    described = emit_c.versioning_plan(scop, schedule=region.schedule).describe()
                lines.extend("  " + line for line in described or [])
        times = ", ".join(f"{name} {sec * 1e3:.0f} ms" for name, sec in self.phase_seconds.items())
        lines.append(f"time: {times}")
        return "\n".join(lines)


class StageCache:
    """Stage results that several `optimize` runs on one file share (the fuzzer takes
    each program through twelve modes, most of them on the same schedule): the SCoPs
    per (file, source options), and per SCoP its dependences and its schedule per
    `ScheduleOptions`. The file's size and modification time are part of the key, so
    an edited file is read again. Values are isl objects and SCoPs, never mutated."""

    def __init__(self):
        self._values: dict = {}

    def get(self, key, compute):
        if key not in self._values:
            self._values[key] = compute()
        return self._values[key]


# CPU seconds isl's AST generation and its validation may take for one region (every
# suite kernel: under 3 s, the most with two levels of tiles). A fuzzed nest with large
# parameter offsets took 26 s with two levels of tiles; past the budget the region is
# generated again from a simpler schedule.
CODEGEN_BUDGET = 10.0


def generate_region(region: "ScopResult", budget: RunBudget | None = None) -> str:
    """The C text of ``region``, generated in a child process killed past
    ``CODEGEN_BUDGET`` or what is left of ``budget`` (isl cannot be interrupted). When
    the AST generation runs past it, isl's AST fails validation (emit_c/validate.py) or
    isl refuses the tree, the region is generated from ``region.untiled``, then
    from the original schedule, and as a last resort kept as written, with a one-line
    notice on stderr. ``region.schedule`` becomes the schedule the text was generated from."""
    budget = budget or RunBudget(None)
    if region.kept_as_written:
        return region.scop.source[region.scop.region_start:region.scop.region_end]
    attempts = [(region.schedule, "", ())]
    if region.simpler_tiled is not None:
        attempts.append((region.simpler_tiled, "the tiles without point-loop wavefronts", ()))
    untiled = region.untiled
    if untiled is not None and untiled is not region.schedule:
        attempts.append((untiled, region.untiled_what, region.untiled_drops))
    attempts.append((region.scop.schedule, "the original schedule", ("fusion", "order", "tensorize", "tiling")))
    scop, why = region.scop, ""
    for schedule, what, drops in attempts:
        seconds = min(CODEGEN_BUDGET, budget.left())
        if seconds <= 0:
            why = budget.why()
            break
        if callable(schedule) and (schedule := schedule()) is None:
            continue
        try:
            text, region.versioning = run_isolated(
                lambda schedule=schedule: emit_c.generate_described(scop, schedule, deps=region.deps), seconds)
        except IsolatedTimeout as stop:
            why = f"code generation ran past {seconds:.3g} s" if type(stop) is IsolatedTimeout \
                else f"code generation stopped: {stop}"
            continue
        except emit_c.CodegenError as error:     # isl's AST generator failing included
            why = str(error)
            continue
        if what:
            print(f"polysched: {scop.filename}:{scop.start_line}: {why}; the region is generated "
                  f"from {what}", file=sys.stderr)
            region.schedule = schedule
            region.fallback, region.not_emitted = f"{what} ({why})", drops
        if any(line.startswith("original code kept") for line in region.versioning or []):
            # the optimized code never runs (rows that may overlap): nothing of the
            # schedule is in effect (helper-64: "applied", and the original code ran)
            region.not_emitted = EVERY_PART
        return text
    print(f"polysched: {scop.filename}:{scop.start_line}: {why}; the region is kept as written",
          file=sys.stderr)
    region.fallback, region.not_emitted = f"the source as written ({why})", EVERY_PART
    region.versioning = None
    return scop.source[scop.region_start:scop.region_end]


def _tensorized(scops, k: int, deps: Dependences, options: OptimizeOptions):
    """(region ``k`` with its products run by intrinsic calls, or None; the decisions):
    the intrinsics asked for (`OptimizeOptions.tensorize_intrinsics`), else
    `polysched.tensorize.default_tensorize`, on the original schedule."""
    from polysched.program import Program
    from polysched.tensorize import auto_tensorize, default_tensorize

    program = Program(scops[k], deps, scops=scops, region=k)
    parallel = options.tiling is not None and options.tiling.parallel
    if options.tensorize_intrinsics is None:
        return default_tensorize(program, parallel=parallel, min_gain=options.tensorize_min_gain)
    program, report = auto_tensorize(program, options.tensorize_intrinsics, parallel=parallel,
                                     reassociate=options.tensorize_reassociate)
    return (program if any(item.applied for item in report) else None), [item.describe() for item in report]


class RegionStopped(Exception):
    """A stage of a region stopped short (the run's budget used up, or a child's memory
    limit): the region is kept as written. The message says why."""


def _tensorized_within(scops, k: int, deps: Dependences, options: OptimizeOptions, budget: RunBudget):
    """`_tensorized` in a child process killed when the run's ``budget`` is used up (a
    fuzzed 7-deep nest spent 7 s trying a match), as ((the schedule's isl text, the
    trace steps) or None, the decisions); no intrinsic then, with a notice."""
    def tensorized():
        program, decisions = _tensorized(scops, k, deps, options)
        if program is None:
            return None, decisions
        return (str(program.schedule), [dict(step) for step in program.trace.steps]), decisions

    try:
        return run_isolated(tensorized, budget.left() if budget.seconds else None)
    except IsolatedTimeout as stop:
        scop = scops[k]
        why = stop_reason(stop, budget.why())
        print(f"polysched: {scop.filename}:{scop.start_line}: notice: tensorization stopped: {why}; "
              "no intrinsic is used", file=sys.stderr)
        return None, [f"not tried to the end: {why}"]


def _analyzed(scop: Scop, budget: RunBudget) -> Dependences:
    """`analyze`, in a child process killed when the run's ``budget`` is used up (isl
    cannot be interrupted: the dataflow of a fuzzed nest with offsets of 3e9 took 10 s);
    `RegionStopped` then. The child sends the relations as isl text."""
    if not budget.seconds:
        return analyze(scop)

    def relations():
        deps = analyze(scop)
        return [str(deps.relation(kind)) for kind in KINDS], deps.notes

    try:
        texts, notes = run_isolated(relations, budget.left())
    except IsolatedTimeout as stop:
        raise RegionStopped(stop_reason(stop, budget.why())) from None
    ctx = scop.context.get_ctx()
    deps = Dependences(scop, *(isl.UnionMap.read_from_str(ctx, text) for text in texts), flatten(scop.schedule))
    deps.notes = notes
    return deps


def _tile(scop: Scop, deps: Dependences, schedule: isl.Schedule, tiling: TileOptions,
          budget: RunBudget):
    """`tile_with_report`, in a child process killed when the run's ``budget`` is used
    up (isl cannot be interrupted: the tiler's dependence questions on a fuzzed 7-deep
    nest took 18 s), the schedule left untiled then, with a notice. When the tiler finds
    its own result illegal (a TilingError: a polysched bug), the same without register
    tiling, then without tiling, with a notice: never a failed run."""
    from polysched.tiling import TilingError

    def attempt(options: TileOptions):
        return _tiled_in_child(scop, deps, schedule, options, budget)

    where = f"polysched: {scop.filename}:{scop.start_line}: notice:"
    try:
        try:
            return attempt(tiling)
        except TilingError as err:
            failure = err
        for less, what in ((replace(tiling, register_tile=0), "without register tiling"),
                           (replace(tiling, tile=False, l2tile=False, unroll=None), "without tiling")):
            try:
                result = attempt(less)
            except TilingError:
                continue
            print(f"{where} the tiler's result was illegal ({' '.join(str(failure).split())[:120]}...); "
                  f"tiled {what}", file=sys.stderr)
            return result
        raise failure
    except IsolatedTimeout as stop:
        print(f"{where} tiling stopped: {stop_reason(stop, budget.why())}; the region is not tiled",
              file=sys.stderr)
        return schedule, None


def _stride_ordered(scop: Scop, deps: Dependences, schedule: isl.Schedule,
                    budget: RunBudget) -> tuple[isl.Schedule, list[dict], list[str]]:
    """`stride_one_order` in a child process killed when the run's ``budget`` is used
    up (its questions are isl's, which cannot be interrupted): ``schedule`` as it is
    then, with a notice."""
    def ordered():
        result, steps, notes = stride_one_order(scop, deps, schedule)
        return str(result), steps, notes

    try:
        text, steps, notes = run_isolated(ordered, budget.left() if budget.seconds else None)
    except IsolatedTimeout as stop:
        print(f"polysched: {scop.filename}:{scop.start_line}: notice: loop ordering stopped: "
              f"{stop_reason(stop, budget.why())}; the loops keep the scheduler's order", file=sys.stderr)
        return schedule, [], []
    return isl.Schedule.read_from_str(schedule.get_ctx(), text), steps, notes


def _tiled_plainly(scop: Scop, deps: Dependences, schedule: isl.Schedule, tiling: TileOptions,
                   budget: RunBudget) -> isl.Schedule | None:
    """``schedule`` tiled with ``tiling`` but no point-loop wavefronts, or None when the
    tiler fails or runs past ``budget``."""
    from polysched.tiling import TilingError

    try:
        return _tiled_in_child(scop, deps, schedule, replace(tiling, point_wavefront=False), budget)[0]
    except (TilingError, IsolatedTimeout):
        return None


def _tiled_in_child(scop: Scop, deps: Dependences, schedule: isl.Schedule, tiling: TileOptions,
                    budget: RunBudget):
    """`tile_with_report` in a child process given what is left of ``budget``: (the tiled
    schedule, the report). Raises what the tiler raises, or `IsolatedTimeout`."""
    def tiled():
        result, report = tile_with_report(scop, deps, schedule, tiling)
        return str(result), report

    text, report = run_isolated(tiled, budget.left() if budget.seconds else None)
    return isl.Schedule.read_from_str(schedule.get_ctx(), text), report


def _checked(scop: Scop, deps: Dependences, schedule: isl.Schedule, budget: RunBudget,
             ask_kept: bool) -> tuple[bool, str, bool]:
    """The last word on ``schedule`` before code is made of it: (legal, the verdict's
    text, whether it runs in the original order, asked only when ``ask_kept``), in a
    child process killed when the run's ``budget`` is used up (the check of a domain cut
    by % and || guards took 40 s); `RegionStopped` then, and the region is kept as
    written: a schedule that was not checked is never emitted."""
    def verdicts():
        verdict = check(scop, deps, schedule)
        return verdict.legal, str(verdict), ask_kept and verdict.legal and runs_in_original_order(scop, schedule)

    if budget.used_up():
        raise RegionStopped(budget.why())
    try:
        return run_isolated(verdicts, budget.left() if budget.seconds else None)
    except IsolatedTimeout as stop:
        raise RegionStopped(stop_reason(stop, budget.why())) from None


def _optimized_region(scops, k: int, file_key, options: OptimizeOptions, cache: StageCache,
                      budget: RunBudget, timed) -> "ScopResult":
    """Region ``k`` scheduled, tiled and tensorized as ``options`` say, each stage with
    what is left of ``budget``; kept as written (with a notice) when it is used up
    before a stage, or a stage that must finish (dependences, the last check) stops."""
    try:
        return _scheduled_region(scops, k, file_key, options, cache, budget, timed)
    except RegionStopped as stop:
        scop = scops[k]
        print(f"polysched: {scop.filename}:{scop.start_line}: {stop}; the region is kept as written",
              file=sys.stderr)
        return ScopResult(scop, None, scop.schedule, kept_as_written=True,
                          fallback=f"the source as written ({stop})", not_emitted=EVERY_PART,
                          untiled=scop.schedule)


def _modelled_and_scheduled(scops, k: int, file_key, options: OptimizeOptions, cache: StageCache,
                            budget: RunBudget, timed):
    """Region ``k``'s model (its scalars expanded, arrays privatized and transposed, as
    ``options`` allow), dependences and schedule: (scop, scops with it, deps, schedule,
    fusion decisions, what the model changed, the `polysched.Program` steps that did it)."""
    scop = scops[k]
    expansions, model_steps = [], []

    def changed(scop, key: str, plan_of, apply, step: str):
        """``scop`` with the plan of one model step applied (its lines and step noted)."""
        plan = timed("deps", cache.get, (file_key, k, tuple(expansions), key), lambda: plan_of(scop))
        expansions.extend(change.describe() for change in plan)
        model_steps.extend([step] if plan else [])
        return apply(scop, plan)
    remodelled = options.schedule.scheduler != "identity"
    if options.expand_scalars and remodelled:
        scop = changed(scop, "substitution", substitution_plan, substitute, "substitute_scalars")
        scop = changed(scop, "expansion", expansion_plan, expand, "expand_scalars")
    if options.expand_scalars and remodelled and options.tiling is not None and options.tiling.parallel:
        # (a copy per iteration buys a parallel loop: without one it would only cost)
        scop = changed(scop, "privatization", privatization_plan, privatize, "privatize_arrays")
    if options.transpose_arrays and remodelled:
        scop = changed(scop, "transposition", transposition_plan, transpose, "transpose_arrays")
    scops = scops[:k] + [scop] + scops[k + 1:]
    deps = timed("deps", cache.get, (file_key, k, tuple(expansions)), lambda: _analyzed(scop, budget))
    schedule_options = options.schedule
    if budget.used_up():
        raise RegionStopped(budget.why())
    if budget.left() < schedule_options.budget:
        schedule_options = replace(schedule_options, budget=budget.left())

    def scheduled():
        stats: dict = {}
        return compute(scop, deps, schedule_options, stats=stats), stats.get("fusion", [])

    # keyed by the options asked for, not by the budget left: every mode of a fuzzed
    # program shares the schedule
    schedule, fusion = timed("schedule", cache.get, (file_key, k, tuple(expansions), repr(options.schedule)),
                             scheduled)
    return scop, scops, deps, schedule, fusion, expansions, model_steps


def _scheduled_region(scops, k: int, file_key, options: OptimizeOptions, cache: StageCache,
                      budget: RunBudget, timed) -> "ScopResult":
    """`_optimized_region`'s stages; raises `RegionStopped`."""
    scop = scops[k]
    if budget.used_up():
        raise RegionStopped(budget.why())
    _check_private_clauses(scop)
    options, pragmas = _honouring_loop_pragmas(scop, options)
    source = scops
    scop, scops, deps, schedule, fusion, expansions, model_steps = _modelled_and_scheduled(
        source, k, file_key, options, cache, budget, timed)
    if {"substitute_scalars", "expand_scalars"} & set(model_steps) and "privatize_arrays" not in model_steps \
            and schedule.plain_is_equal(scop.schedule):
        # the scheduler kept the source's order: the scalars' arrays would only cost
        # (a 3x3 convolution's accumulator, in a register, became 9 updates of memory),
        # and the source's text reads better than values substituted into statements
        scop, scops, deps, schedule, fusion, expansions, model_steps = _modelled_and_scheduled(
            source, k, file_key, replace(options, expand_scalars=False), cache, budget, timed)
    report = None
    order_steps, orders = [], []
    if options.tiling is None and options.schedule.scheduler != "identity":
        # no tiling stage to put the stride-1 loop innermost (its steps go in the trace)
        schedule, order_steps, orders = timed("tile", _stride_ordered, scop, deps, schedule, budget)
    untiled = schedule
    if options.tiling is not None:
        if budget.used_up():
            raise RegionStopped(budget.why())
        schedule, report = timed("tile", _tile, scop, deps, schedule, options.tiling, budget)
    legal, verdict, kept = timed("check", _checked, scop, deps, schedule, budget,
                                 options.tiling is not None and options.schedule.scheduler != "identity")
    if not legal:
        raise IllegalScheduleError(
            f"{scop.filename}:{scop.start_line}: internal error: the computed schedule is "
            f"illegal: {verdict}"
        )
    region = ScopResult(scop, deps, schedule, report, kept_as_written=kept, fusion=list(fusion),
                        untiled=untiled, expansions=expansions if not kept else [],
                        model_steps=model_steps if not kept else [], pragmas=pragmas,
                        reassociates=options.tiling is not None and bool(options.tiling.reassociate),
                        orders=orders)
    if pragmas or order_steps:     # --save-trace: the steps of the options the region was made with
        from polysched.tiling import cache_sizes
        region.trace_steps = options.trace_steps(cache_sizes()) + order_steps
    if report is not None and any(band.point_wavefront for band in report.bands):
        region.simpler_tiled = lambda: _tiled_plainly(scop, deps, untiled, options.tiling, budget)
    if options.tensorize and not budget.used_up():
        key = (file_key, k, tuple(expansions), "tensorize", options.tiling is not None and options.tiling.parallel,
               options.tensorize_min_gain, options.tensorize_reassociate,
               None if options.tensorize_intrinsics is None else [i.name for i in options.tensorize_intrinsics])
        tensorized, region.tensorize = timed("tensorize", cache.get, repr(key),
                                             lambda: _tensorized_within(scops, k, deps, options, budget))
        if tensorized is not None:
            text, steps = tensorized
            region.untiled, region.untiled_what = schedule, "the schedule without intrinsics"
            region.untiled_drops = ("tensorize",)
            region.schedule = isl.Schedule.read_from_str(schedule.get_ctx(), text)
            region.tiling, region.kept_as_written = None, False
            region.trace_steps = [dict(step) for step in steps]
    return region


def _check_private_clauses(scop: Scop) -> None:
    """`RegionStopped` at the first of `private_clauses_read_after`: each optimized
    version would keep one meaning of the region only."""
    found = private_clauses_read_after(scop)
    if found:
        line, text, name = found[0]
        raise RegionStopped(f"the region's own '{text}' (line {scop.line_as_written(line)}) makes "
                            f"'{name}' private, which the code after the region may read: with OpenMP "
                            f"the loop leaves it as it was, without OpenMP it sets it")


def _honouring_loop_pragmas(scop: Scop, options: OptimizeOptions) -> tuple[OptimizeOptions, list[str]]:
    """(``options`` for region ``scop``, what they add): the parallel and vector loops
    its own pragmas asked for (`Scop.user_loop_pragmas`, which the model leaves out).
    An ``omp parallel for`` turns on parallel marks, as ``--parallel`` does (where the
    dependences allow: not on a floating-point reduction without ``--reassociate``);
    ``omp simd``, ``GCC ivdep`` and the like turn on the marking stage (``simd`` marks).
    Dropped without a word, the optimized code ran sequentially where the original ran
    on every core (1.5x slower at 2 threads). A notice on stderr says so."""
    tiling = options.tiling
    wanted = None
    reduced: set[str] = set()
    for line, text in scop.user_loop_pragmas:
        if is_parallel_for_pragma(text):
            reduced |= clause_variables(text)["reduction"]
            if not (tiling and tiling.parallel):
                tiling = TileOptions(tile=False, parallel=True) if tiling is None else replace(tiling, parallel=True)
                wanted = (line, text, "parallel loops placed as with --parallel")
        elif re.match(r"#\s*pragma\s+(omp\s+simd|GCC\s+ivdep|ivdep|simd|vector)\b", text) and tiling is None:
            tiling = TileOptions(tile=False)
            wanted = wanted or (line, text, "vector (simd) marks placed as with --tile's marking stage")
    # a reduction clause is the user's request to reorder those sums (OpenMP sums the
    # threads' parts in any order), as --reassociate is for every one
    reduced = {name for name in reduced if name in scop.arrays and scop.arrays[name].is_scalar
               and not is_integer_type(scop.arrays[name].element_type)}
    said = []
    if reduced and tiling is not None and tiling.parallel and tiling.reassociate is not True:
        tiling = replace(tiling, reassociate=tuple(sorted(reduced | set(tiling.reassociate or ()))))
        said.append(f"the region's own reduction clause: the floating-point reductions of "
                    f"{', '.join(sorted(reduced))} may be reordered, as with --reassociate")
    if wanted is not None:
        line, text, what = wanted
        line = scop.line_as_written(line)
        print(f"polysched: {scop.filename}:{line}: notice: the region's own '{text}': {what}", file=sys.stderr)
        said.insert(0, f"the region's own '{text}' (line {line}): {what}")
    for line, text, why in _racy_user_loops(scop):
        line = scop.line_as_written(line)
        warning = (f"the region's own '{text}' names a loop that carries a dependence ({why}): its result "
                   f"depends on how the threads interleave")
        print(f"polysched: {scop.filename}:{line}: warning: {warning}", file=sys.stderr)
        said.append(f"line {line}: {warning}")
    if not said:
        return options, []
    schedule = options.schedule
    if tiling.parallel and tiling.reassociate:        # (the fusion then counts their loops as parallel)
        schedule = replace(schedule, reassociate=tiling.reassociate)
    return replace(options, schedule=schedule, tiling=tiling), said


# isl operations the check of the region's own parallel loops may take (the original
# program's dependences, before any budget of the run applies): past it, no warning
RACY_LOOP_OPERATIONS = 5_000_000


def _racy_user_loops(scop: Scop) -> list[tuple[int, str, str]]:
    """`racy_user_loops`, or none when isl gives up within RACY_LOOP_OPERATIONS."""
    if not scop.user_parallel_loops:
        return []
    try:
        with isl_operation_cap(scop.context.get_ctx(), RACY_LOOP_OPERATIONS):
            return racy_user_loops(scop)
    except isl.Error:
        return []


def _check_statement_sizes(path: Path, scops: list[Scop], options: OptimizeOptions) -> None:
    """Per-statement tile sizes name statements of some region (a name that none has is
    a typo: it would silently leave that statement at the model's sizes)."""
    sizes = options.tiling.sizes if options.tiling is not None else None
    if not isinstance(sizes, dict):
        return
    names = [stmt.name for scop in scops for stmt in scop.statements]
    unknown = sorted(set(sizes) - set(names))
    if unknown:
        raise TransformError(f"tile sizes for {unknown[0]}: {path} has no statement of that name "
                             f"(its statements: {', '.join(names)})")


def optimize(path: str | Path, options: OptimizeOptions | None = None,
             cache: StageCache | None = None) -> OptimizeResult:
    """Optimize every SCoP of the C file at ``path``; returns the new file text.
    ``cache``: reuse the stages an earlier run with the same cache already did."""
    options = options or OptimizeOptions()
    cache = cache or StageCache()
    phases = {name: 0.0 for name in ("extract", "deps", "schedule", "tile", "check", "codegen")}
    if options.tensorize:
        phases["tensorize"] = 0.0

    def timed(name, fn, *args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            phases[name] += time.perf_counter() - start

    path = Path(path)
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:          # extract reports it
        stamp = None
    file_key = (str(path.resolve()), stamp, repr(options.source))
    scops = timed("extract", cache.get, file_key,
                  lambda: extract(path, defines=options.source.defines,
                                  include_dirs=options.source.include_dirs))
    if not scops:
        raise ScopError(str(path), 1, 1, "no '#pragma scop' ... '#pragma endscop' region to optimize")
    _check_statement_sizes(path, scops, options)
    budget = RunBudget(options.budget)
    regions = [_optimized_region(scops, k, file_key, options, cache, budget, timed) for k in range(len(scops))]
    texts = [timed("codegen", generate_region, region, budget) for region in regions]
    text = emit_c.assemble(scops, texts)
    return OptimizeResult(path, text, regions, phases)
