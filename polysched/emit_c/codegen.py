"""C text for one SCoP from any isl schedule tree.

``generate(scop, schedule)`` builds the isl AST of ``schedule`` under the scop's
*symbolic* context (``[N] -> { : N >= 1 }``: never fixed parameter values, so the
code is right for every dataset preset), walks it and prints C:

    for (int c0 = 0; c0 < N; c0 += 1)
      for (int c1 = 0; c1 <= c0; c1 += 1)
        C[c0][c1] *= beta;

Statement calls ``S0(e0, e1, ...)`` of the AST become the statement's verbatim body
with its original iterators replaced by ``e0, e1, ...`` (see body.py); mark nodes
become pragmas or comments (see marks.py), ``Tensorize`` marks written by
``Program.tensorize`` become intrinsic calls (see tensorize.py). Innermost loops keep
the array elements they reuse in local scalars where that is provably legal (see
scalar_replace.py): the jammed copies below a ``Jam`` mark (``unroll_and_jam``), and
the accumulator of any loop.
"""
from __future__ import annotations

import re

from dataclasses import dataclass

import islpy as isl

from polysched.dependence import is_integer_type, reduced_cell, spelled_as, wraps_in_a_copy
from polysched.errors import ArgumentError
from polysched.islutil import isl_message, sets_of, val, without_ast_options
from polysched.marks import Jam, Parallel, Tensorize, parse_mark, try_parse_mark
from polysched.scop.model import Scop, Statement
from polysched.scop.source import ORIGINAL_BEGIN, ORIGINAL_END, generated_digest
from polysched.textio import line_ending

from .body import HEAP_BYTES, fold_self_comparisons, heap_arrays, region_arrays_fit, region_declarations, substitute
from .expr import ExprPrinter, Helpers
from .ranges import Ranges, largest_of
from .lift import has_integer_division, lift_schedule
from .marks import MarkInfo, merged_parallel, openmp_clauses, retag_marks, schedule_depth
from .names import NameAllocator, identifiers_in
from . import scalar_replace
from .tensorize import EPOCH_FUNCTION, call_lines, can_call, tensorize_mark_problem
from .validate import CodegenError, validate_ast
from .versioning import (accessed_elements, counter_limit, definition_checks, is_wide, iterator_skeleton,
                         parameter_ranges, plan, pointer_cell, type_spelling, written_arrays)

# the work a parallel loop needs per fork/join when it is known only at run time (the
# tiling policy's rule at the known sizes); a -D of this macro overrides it
MIN_WORK_MACRO = "POLYSCHED_PARALLEL_MIN_WORK"
# the most bytes of arrays a parallel loop's threads may each copy (``private``): a
# worker thread's stack may be far smaller than the main thread's (OMP_STACKSIZE, musl's
# 128 kB), and the thread needs some of it for itself
PRIVATE_ARRAY_BYTES = 1 << 16
MAX_EXTENT_PIECES = 4       # of one extent in the work estimate of a fork's test
from polysched.tiling.transform import MIN_INSTANCES_PER_FORK  # noqa: E402

_node = isl.ast_node_type
# C's own types only: a typedef (int64_t, ptrdiff_t, intptr_t) needs a header the file
# may not include (helper-54: the output did not compile)
_COUNTER_SPELLINGS = {tuple(type_spelling(t)) for t in ("int", "long", "long int", "long long", "long long int")}


@dataclass
class EmitOptions:
    """Knobs of the C printer.

    ``indent``: one indentation step; ``iterator_type``: C type of the new loop
    iterators; ``iterator_prefixes``: tried in order, the first whose names ``p0,
    p1, ...`` are all unused in the file wins; ``explain_dropped_pragmas``: leave a
    comment where a mark could not become a pragma (degenerate or non-canonical loop);
    ``lift_divisions``: give isl a schedule without floor/mod (see lift.py; same
    execution order, far faster AST generation for wavefronts over tiles).
    ``iterator_type`` None: ``int`` or ``long long`` as the program's types require
    (see versioning.py). ``versioning``: guard the generated code with the run-time
    check of its assumptions, the original region as the fallback (see versioning.py);
    off only to look at the bare loops. ``scalar_replacement``: keep the array elements
    an innermost loop reuses in local scalars (see
    scalar_replace.py); off to measure what it brings. ``parallel_if``: a parallel loop
    whose work depends on sizes known only at run time is tested first (`_forked_or_not`):
    it forks only with ``POLYSCHED_PARALLEL_MIN_WORK`` statement instances (default
    `MIN_INSTANCES_PER_FORK`; ``-DPOLYSCHED_PARALLEL_MIN_WORK=0`` forks whatever the
    work, as the tests do to exercise the parallel code at small sizes) per fork/join,
    and, where its bounds are not constants, only when it runs at least twice.
    ``validate``: read isl's AST back and check it runs every instance once in a legal
    order (validate.py; isl's AST generator has bugs); off only to time the check.
    """

    indent: str = "  "
    iterator_type: str | None = None
    versioning: bool = True
    iterator_prefixes: tuple[str, ...] = ("c", "t", "ps_c")
    explain_dropped_pragmas: bool = True
    lift_divisions: bool = True
    scalar_replacement: bool = True
    parallel_if: bool = True
    validate: bool = True

    def __post_init__(self):
        for name in ("versioning", "explain_dropped_pragmas", "lift_divisions", "scalar_replacement",
                     "parallel_if", "validate"):
            if not isinstance(getattr(self, name), bool):     # ("no" would read as True)
                raise ArgumentError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if not isinstance(self.indent, str) or self.indent.strip():
            raise ArgumentError(f"indent must be a string of spaces or tabs, got {self.indent!r}")
        if isinstance(self.iterator_prefixes, str) or not self.iterator_prefixes or not all(
                isinstance(p, str) and p.isidentifier() for p in self.iterator_prefixes):
            raise ArgumentError(f"iterator_prefixes must be a tuple of C name prefixes, got {self.iterator_prefixes!r}")
        # the loop code's arithmetic is checked against int or a 64-bit signed type: an
        # unsigned or narrower counter would wrap where the checks assume it does not
        if self.iterator_type is not None and tuple(type_spelling(self.iterator_type)) not in _COUNTER_SPELLINGS:
            raise ArgumentError(f"iterator_type {self.iterator_type!r}: the loop counters are a signed type of "
                             f"32 or 64 bits, spelt with C's own words ('int', 'long', 'long long')")


def generate(scop: Scop, schedule: isl.Schedule | None = None, *, options: EmitOptions | None = None,
             deps=None) -> str:
    """The C text replacing ``scop.source[scop.region_start:scop.region_end]``.

    ``schedule``: an isl schedule tree over ``scop.domain`` (default: the original
    ``scop.schedule``), possibly tiled and carrying mark nodes; or a schedule map
    ``{ S[i, j] -> [t0, ...] }`` or the isl text of either (as ``check`` accepts).
    ``deps``: the SCoP's `Dependences` (computed when None), against which isl's AST
    is validated before printing (validate.py); raises `CodegenError` if it is wrong.
    """
    return generate_described(scop, schedule, options=options, deps=deps)[0]


def generate_described(scop: Scop, schedule: isl.Schedule | None = None, *, options: EmitOptions | None = None,
                       deps=None) -> tuple[str, list[str]]:
    """(`generate`'s text, one line per assumption of it and the run-time check that
    guards it: `Versioning.describe` of the plan the text was printed under)."""
    options = options or EmitOptions()
    schedule = scop.schedule if schedule is None else schedule
    if not isinstance(schedule, isl.Schedule):      # a map, or isl text: the forms check takes
        from polysched.transform.forms import as_tree
        schedule = as_tree(scop, schedule)
    # the code of the tree's text: isl's AST generator follows how a tree is held, not
    # only what it means (a tree and the tree read back from its text gave trmm other,
    # equivalent, guards), and optimize reads its tiled tree from a child's text, where
    # Program and a replay of optimize's trace hold the tree itself
    schedule = isl.Schedule.read_from_str(schedule.get_ctx(), str(schedule))
    _check_domain(scop, schedule)
    if options.validate:
        _check_marks(scop, schedule)
    if options.validate and deps is None:
        from polysched.dependence import analyze
        deps = analyze(scop)
    try:
        printer = _RegionPrinter(scop, schedule, options, deps)
        return printer.region_text(), printer.version.describe()
    except CodegenError as error:
        # isl's AST follows the schedule it is given: when that schedule is itself
        # illegal (a hand-made one, given to emit_file), say so rather than blame isl
        from polysched.dependence import is_legal
        if deps is not None and str(error).startswith("isl's AST breaks") and \
                not is_legal(schedule, deps.validity):
            raise CodegenError("the schedule violates a dependence (`check` explains which): "
                               + str(error).replace("isl's AST breaks a dependence: it", "the code", 1)) from None
        raise
    except isl.Error as error:
        # isl refusing the tree it was handed (e.g. "band node is not allowed to drop
        # statement instances") is a code generation failure like the others
        raise CodegenError(f"isl's AST generator failed ({isl_message(error)})") from None


def _check_marks(scop: Scop, schedule: isl.Schedule) -> None:
    """A ``parallel`` mark on a loop that carries a dependence would print a data race
    (helper-58: ``emit_file`` printed one that ``check`` had called illegal): the
    marks are checked as ``check`` checks them, and tensorize marks as
    ``Program.set_schedule`` does (`tensorize_mark_problem`)."""
    from polysched.dependence import mark_violations
    try:
        found = mark_violations(scop, schedule)
        problem = tensorize_mark_problem(scop, schedule)
    except isl.Error as error:      # extension nodes (helper-61: a raw islpy error)
        raise CodegenError(f"the schedule's marks cannot be checked ({isl_message(error)})") from None
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise CodegenError(f"the schedule's {found[0]}{more}")
    if problem is not None:
        raise CodegenError(problem)


def _check_domain(scop: Scop, schedule: isl.Schedule) -> None:
    """A schedule that drops or invents statement instances would give wrong code."""
    expected = scop.domain.intersect_params(scop.context)
    scheduled = schedule.get_domain().intersect_params(scop.context)
    if not scheduled.is_equal(expected):
        raise CodegenError(
            f"{scop.filename}:{scop.start_line}: the schedule's domain {scheduled} "
            f"is not the scop's iteration domain {expected}"
        )


def region_indent(scop: Scop) -> str:
    """The leading whitespace of the first non-blank line of the original region."""
    for line in scop.source[scop.region_start:scop.region_end].splitlines():
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return ""


class _RegionPrinter:
    def __init__(self, scop: Scop, schedule: isl.Schedule, options: EmitOptions, deps=None):
        self.scop = scop
        self.deps = deps
        self.options = options
        self.statements: dict[str, Statement] = {s.name: s for s in scop.statements}
        # the front end's names of the file (without what an earlier run generated in
        # polysched's own output); the whole text for a Scop built some other way
        taken = set(scop.identifiers) if scop.identifiers else identifiers_in(scop.source)
        self.names = NameAllocator(taken)
        self.schedule, self.marks = retag_marks(schedule)
        self.unlifted = self.schedule        # statement instances as the program has them
        self.lifted = options.lift_divisions and has_integer_division(self.schedule)
        if self.lifted:
            try:
                self.schedule = lift_schedule(self.schedule)
            except isl.Error:  # e.g. extension nodes: the unlifted tree is still exact
                self.lifted = False
        # isl also scans the leaf domains of a partial schedule with loops of its own,
        # one per statement dimension at most: name those too
        domain_sets: list[isl.Set] = []
        self.schedule.get_domain().foreach_set(domain_sets.append)
        leaf_dims = max((s.dim(isl.dim_type.set) for s in domain_sets), default=0)
        count = max(schedule_depth(self.schedule) + leaf_dims, 1)
        self.iterators = self.names.fresh_family(list(options.iterator_prefixes), count)
        self.depth_of = {name: d for d, name in enumerate(self.iterators)}
        self.helpers = Helpers(self.names)
        self.version = plan(scop, options.iterator_type, self.unlifted)
        self.ranges = Ranges(self.iterators)
        self.expr = ExprPrinter(self.helpers, rename=self.version.parameter_text)
        # scalar replacement in innermost loops (scalar_replace.py): the schedule of each
        # statement call, the for/if conditions around the node being printed, ...
        self.call_schedules: dict[str, isl.Map | None] = {}
        self._enclosing: list[tuple] = []
        self._jam = 0
        self._placed: set[int] = set()      # marks a loop took (a pragma or a comment), by id
        self._scoped = False          # the for loop printed next is a braced body of its own
        self._replacing: dict[str, dict[tuple[int, int], str]] = {}
        self._scalar_names: dict[tuple[str, int], str] = {}
        self._loop_ends: dict[str, str] = {}          # iterator -> its hoisted bound's name
        # signed integer reductions of the parallel loops being printed -> the unsigned
        # copy the loop updates in their place (`_wrapped_reductions`)
        self._wrapped: dict[str, str] = {}
        # the cells (struct members, *out) a parallel loop reduces in a local copy:
        # by name (`_cell_reductions`)
        self.reduced_cells: dict[str, CellReduction] = {}
        self._uses_min_work = False
        self._team = ""               # the variable of `team_test`, once a loop tests it
        self._team_tested = False
        self._epoch = ""              # the region run's epoch, once a call takes epoch(X)

    def scalar_name(self, array: str, k: int) -> str:
        """The local scalar ``k`` for elements of ``array`` (free in the file; the same
        name in every loop, each loop declaring it in a block of its own)."""
        if (array, k) not in self._scalar_names:
            self._scalar_names[(array, k)] = self.names.fresh(f"{array}_r{k}")
        return self._scalar_names[(array, k)]

    def region_epoch(self) -> str:
        """The variable holding this region run's epoch (see tensorize.py), declared
        where the optimized code starts, outside every parallel loop."""
        if not self._epoch:
            self._epoch = self.names.fresh("polysched_epoch")
        return self._epoch

    def build_ast(self) -> isl.AstNode:
        try:
            ast = self._ast_of(self.schedule)
        except isl.Error as error:
            # AST options alone can make isl give up, e.g. a point loop to unroll whose
            # bounds a later sink made parametric ("cannot find lower bound for
            # unrolling"). They never change what runs, so the tree without them is
            # tried before giving up.
            plain = self.schedule.map_schedule_node_bottom_up(without_ast_options)
            try:
                ast = self._ast_of(plain)
            except isl.Error:
                raise error from None
            self.schedule = plain
        if self.options.validate:
            validate_ast(ast, self.iterators, self.scop, self.deps,
                         self.schedule.get_domain() if self.lifted else None)
        return ast

    def _ast_of(self, schedule: isl.Schedule) -> isl.AstNode:
        build = isl.AstBuild.from_context(self.scop.context)
        ids = isl.IdList.alloc(self.scop.context.get_ctx(), len(self.iterators))
        for name in self.iterators:
            ids = ids.add(isl.Id(name))
        build = build.set_iterators(ids)
        if not self.options.scalar_replacement:
            return build.node_from_schedule(schedule)
        self.call_schedules.clear()
        build, handle = scalar_replace.annotate(build, self.call_schedules, self.iterators)
        ast = build.node_from_schedule(schedule)
        del handle
        return ast

    def region_text(self) -> str:
        scop, version, nl = self.scop, self.version, line_ending(self.scop.source)
        original = scop.source[scop.region_start:scop.region_end]
        base = region_indent(scop)
        if self.options.versioning and version.never:
            return base + f"/* polysched: original code kept: {version.never[0]} */" + nl + original
        # the team test (`team_test`) only where the region keeps its original code: an
        # output without it is read again as it stands, and that reading takes no
        # declaration nor '#ifdef _OPENMP'
        self._team_tested = self._keeps_original()
        body = self.body_in_range(self.build_ast())
        version = self.version
        if body is None:
            return base + f"/* polysched: original code kept: {version.never[0]} */" + nl + original
        # the blocks of the expanded arrays on the heap, allocated by the region's check
        memory = {array.name: self.names.fresh(f"{array.name}_mem") for array in heap_arrays(scop)}
        # scalars the source declares inside the region
        declared = region_declarations(scop, memory, used=set(re.findall(r"[A-Za-z_]\w*", "\n".join(body))))
        if self._epoch:
            declared = [f"unsigned long {self._epoch} = {EPOCH_FUNCTION};"] + declared
        if self._team:
            declared = self._team_declaration() + declared
        if declared:
            body = ["{"] + [self.options.indent + line if line else line for line in declared + body] + ["}"]
        if self.options.versioning and version.live_iterators:
            body += ["/* polysched: leave the loop iterators at their final values */"]
            body += [line[len(base):].rstrip() if line.startswith(base) else line.rstrip()
                     for line in iterator_skeleton(scop).splitlines() if line.strip()]
        if self._uses_min_work:
            body = [f"#ifndef {MIN_WORK_MACRO}", f"#define {MIN_WORK_MACRO} {MIN_INSTANCES_PER_FORK}",
                    "#endif"] + body
        checked = self._checked()
        # a region with '#if's of its own keeps its original (emit_c.assemble: the file
        # compiled under other macros runs it)
        if not self._keeps_original():
            lines = self.helpers.definitions() + body + self.helpers.undefinitions()
            return "".join(f"{base}{line}{nl}" if line else nl for line in lines)
        guard = self.guard_text() if checked else "1"
        opening = self.check_lines(guard, memory)
        head = self.helpers.definitions() + (opening or [f"if ({guard}) {{"])
        # (the check's conjuncts are one line each: in a CRLF file, CRLF too; helper-59)
        head = [piece if k == 0 else piece.removeprefix(base)
                for line in head for k, piece in enumerate(line.split("\n"))]
        inner = [self.options.indent + line if line else line for line in body]
        text = "".join(f"{base}{line}{nl}" if line else nl for line in head + inner)
        # the original between marker lines: optimizing this output again starts from it
        head = text + f"{base}}} else {{{nl}"
        closing = [f"__builtin_free({block});" for block in memory.values()] + (["}"] if opening else [])
        tail = f"{nl}{base}}}{nl}" + "".join(f"{base}{line}{nl}" for line in closing + self.helpers.undefinitions())
        begin = ORIGINAL_BEGIN.format(generated_digest(head, tail))
        return f"{head}{base}{begin}{nl}{original}{base}{ORIGINAL_END}{tail}"

    def body_in_range(self, ast: isl.AstNode) -> list[str] | None:
        """The lines of ``ast``, once every integer they compute is known to fit the
        counter type (ranges.py): else printed again with ``long long`` counters, and
        then, if need be, with the parameters bounded further by the run-time check.
        None (and the reason in ``version.never``) when no parameter bound helps."""
        body = self._loop_code(ast)
        if not self.options.versioning:
            return body
        if self._largest(self.version.assumed) <= counter_limit(self.version.counter_type):
            return body
        if self.options.iterator_type is None and not is_wide(self.version.counter_type):
            self.version = plan(self.scop, "long long", self.unlifted)
            self.ranges = Ranges(self.iterators)
            self.expr = ExprPrinter(self.helpers, rename=self.version.parameter_text)
            self._placed.clear()
            body = self._loop_code(ast)
        limit = counter_limit(self.version.counter_type)
        assumed = self.version.assumed
        if self.version.never or self._largest(assumed) <= limit:
            return body
        # the largest power of two that, bounding every parameter, keeps the arithmetic in range
        fitting = None
        for exponent in range(62, -1, -1):
            bounded = assumed
            for k in range(assumed.dim(isl.dim_type.param)):
                bounded = bounded.upper_bound_val(isl.dim_type.param, k, val(2 ** exponent)) \
                    .lower_bound_val(isl.dim_type.param, k, val(-2 ** exponent))
            if not bounded.is_empty() and self._largest(bounded) <= limit:
                fitting = bounded
                break
        if fitting is None:
            # (interval arithmetic over the loops' bounds: some small parameter values may
            # fit, but no power-of-two bound on all of them that the check could test does)
            self.version.never.append(f"the loop code's arithmetic (a schedule coefficient times a counter) "
                                      f"may exceed {self.version.counter_type} under every bound on the "
                                      "parameters the run-time check could test")
            return None
        self.version.assumed = fitting.coalesce()
        return body

    def _loop_code(self, ast: isl.AstNode) -> list[str]:
        """The lines of ``ast``, its expressions recorded in ``self.ranges`` (and only
        its: the run-time check, printed later, computes with the parameters' types)."""
        self.expr.record = self.ranges.record
        try:
            return self.node(ast, 0, {})
        finally:
            self.expr.record = None

    def _largest(self, assumed: isl.Set) -> int:
        """The largest magnitude the printed loop code computes where ``assumed`` holds."""
        if assumed.is_empty():
            return 0
        return self.ranges.largest(parameter_ranges(self.scop, assumed))

    def assumed_conditions(self, assumed: isl.Set) -> list[str]:
        """C conditions for the parameter set ``assumed``: each parameter's range first
        (``n >= 1 && n <= 67108864``, comparisons only), then, when ``assumed`` is not
        that box, the rest, which ``&&`` evaluates only within the box: computed in
        ``long long`` where the box does not keep it within the counter type (a ``3 * n``
        of an ``int n`` near INT_MAX would wrap, and the check pass)."""
        box = isl.Set.universe(assumed.get_space())
        for k in range(assumed.dim(isl.dim_type.param)):
            alone = assumed.move_dims(isl.dim_type.set, 0, isl.dim_type.param, k, 1)
            least, greatest = alone.dim_min_val(0), alone.dim_max_val(0)
            if least.is_int():
                box = box.lower_bound_val(isl.dim_type.param, k, least)
            if greatest.is_int():
                box = box.upper_bound_val(isl.dim_type.param, k, greatest)
        parts = []
        if not box.plain_is_universe():
            parts.append(self.expr(isl.AstBuild.from_context(isl.Set.universe(box.get_space())).expr_from_set(box)))
        rest = assumed.gist(box).coalesce()
        if not rest.plain_is_universe():
            condition = isl.AstBuild.from_context(box).expr_from_set(rest)
            fits = largest_of(condition, parameter_ranges(self.scop, box)) <= counter_limit(self.version.counter_type)
            parts.append(self.expr(condition) if fits else self._long_long(condition))
        return parts

    def guard_text(self) -> str:
        """The C condition under which the optimized code is valid (see versioning.py)."""
        assumed = self.version.assumed
        parts = definition_checks(self.scop)
        # the header macros the model read expanded have the same expansion here: folded
        # by the compiler, as the type checks are
        parts += [f"__builtin_strcmp({self.helpers.name('expansion')}({use}), {text}) == 0"
                  for use, text in self.scop.macro_expansions.items()]
        parts += self.assumed_conditions(assumed)
        fit = region_arrays_fit(self.scop)
        if fit is not None:
            parts.append(fit)
        build = isl.AstBuild.from_context(assumed)
        for bound in self.address_bound_checks(build):
            if bound not in parts:
                parts.append(bound)
        elements: dict[str, isl.Set | None] = {}      # each array's, computed once
        for a, b in self.version.alias_checks:
            for array in (a, b):
                if array.name not in elements:
                    elements[array.name] = accessed_elements(self.scop, array.name)
            ranges = [self.address_range(build, array, elements[array.name]) for array in (a, b)]
            if None in ranges:     # one of them is never touched under these parameters
                continue
            (lo_a, hi_a), (lo_b, hi_b) = ranges
            disjoint = f"{hi_a} <= {lo_b} || {hi_b} <= {lo_a}"
            # the extremes' addresses only where both are touched (n >= 3 for a stencil
            # whose check holds from n >= 1: &A[n - 1][n - 2] at n = 1 is A[0][-1],
            # undefined behaviour the original does not have)
            condition = self._untouched_condition(build, [elements[x.name] for x in (a, b)
                                                         if elements[x.name] is not None])
            parts.append(disjoint if condition is None else f"!({condition}) || {disjoint}")
        for w, holder in self.version.cell_checks:
            if w.name not in elements:
                elements[w.name] = accessed_elements(self.scop, w.name)
            block = self.address_range(build, w, elements[w.name])
            if block is None:
                continue
            (lo, hi), (cell_lo, cell_hi) = block, pointer_cell(holder)
            apart = f"{hi} <= {cell_lo} || {cell_hi} <= {lo}"
            condition = self._untouched_condition(build, [elements[w.name]])
            parts.append(apart if condition is None else f"!({condition}) || {apart}")
        if not parts:
            return "1"
        parts = [f"({p})" if len(parts) > 1 and ("||" in p or "?" in p) else p for p in parts]
        # one conjunct per line: the alias checks are long
        return (" &&\n" + region_indent(self.scop) + "    ").join(parts)

    def address_bound_checks(self, build: isl.AstBuild) -> list[str]:
        """C conditions that the linearised subscripts computed in 32-bit unsigned
        arithmetic do not wrap (`Versioning.address_bounds`): ``row < 0 || (w > 0 &&
        row + 1 <= 4294967296LL / w)`` for the highest row and the row sizes, in
        ``long long`` (a row of -1: not evaluated for these parameters). The division
        keeps the test itself from overflowing: ``(row + 1) * w * h <= L`` is
        ``row + 1 <= L / w / h`` for positive sizes."""
        highest_rows: dict[tuple[str, ...], isl.PwAff] = {}     # one check per row size
        for highest, sizes in self.version.address_bounds:
            texts = tuple(self._long_long(build.expr_from_pw_aff(size)) for size in sizes)
            known = highest_rows.get(texts)
            highest_rows[texts] = highest if known is None else known.union_max(highest).coalesce()
        checks = []
        for texts, highest in highest_rows.items():
            row = self._long_long(build.expr_from_pw_aff(highest))
            quotient = "4294967296LL" + "".join(f" / ({t})" for t in texts)
            positive = "".join(f"({t}) > 0 && " for t in texts)
            checks.append(f"({row}) < 0 || ({positive}({row}) + 1 <= {quotient})")
        return checks

    def check_lines(self, guard: str, memory: dict[str, str]) -> list[str]:
        """With row checks (`Versioning.row_checks`) or arrays on the heap
        (`heap_arrays`, their blocks named by ``memory``): the lines that open the block
        ``{ int ok = guard; <each row past the end of the one before, or ok = 0>
        <each block allocated, or ok = 0> if (ok) {``, else []. The rows and columns are
        the bounding box of the elements the region touches; the loop runs only once the
        guard holds. A block is allocated once the rest holds (its extents are then
        positive) and its size is at most ``HEAP_BYTES``; the caller frees the blocks
        after the region, whichever code ran (``free(0)`` does nothing)."""
        if not self.version.row_checks and not self.version.row_pair_checks and not memory:
            return []
        build = isl.AstBuild.from_context(self.version.assumed)
        ok, row = self.names.fresh("polysched_rows_ok"), self.names.fresh("polysched_row")
        lines = ["{", f"int {ok} = {guard};"]
        for array in self.version.row_checks:
            elements = accessed_elements(self.scop, array.name)
            if elements is None or elements.is_empty():
                continue
            elements = elements.intersect_params(self.version.assumed)
            if not elements.is_empty():
                lines += self._where_touched(build, [elements], self._ascending_rows(
                    array, self._row_span(build, elements), ok, row))
        lines += self.row_pair_lines(build, ok, row)
        size = "unsigned long long"     # (size_t needs a header the file may not include)
        for array in heap_arrays(self.scop):
            block = memory[array.name]
            extents = [f"({size})({substitute(d, self.scop.c_texts)})" for d in array.dims]
            bound = f"{HEAP_BYTES}ULL / sizeof({array.element_type})" + "".join(f" / {e}" for e in extents[1:])
            lines += [f"void *{block} = 0;",
                      f"if ({ok} && {extents[0]} <= {bound})",
                      f"{self.options.indent}{block} = __builtin_malloc(sizeof({array.element_type}) * "
                      + " * ".join(extents) + ");",
                      f"{ok} = {ok} && {block} != 0;"]
        return lines + [f"if ({ok}) {{"]

    def _row_span(self, build: isl.AstBuild, elements: isl.Set) -> tuple[str, str, str, str]:
        """``(first, last, left, right)``: C bounds of the rows and of the columns of the
        2-d ``elements`` (their bounding box)."""
        return tuple(self.expr(build.expr_from_pw_aff(bound.coalesce())) for bound in (
            elements.dim_min(0), elements.dim_max(0), elements.dim_min(1), elements.dim_max(1)))

    def _row_bytes(self, array, span, row: str) -> tuple[str, str]:
        """The first and one-past-the-last byte the region may touch in row ``row``."""
        return (f"(const char *)&{array.element([row, span[2]])}",
                f"(const char *)(&{array.element([row, span[3]])} + 1)")

    def _ascending_rows(self, array, span, ok: str, row: str) -> list[str]:
        """A loop that clears ``ok`` unless each row of ``array`` starts past the end of
        the one before (so no two overlap)."""
        after, end = self._row_bytes(array, span, f"{row} + 1")[0], self._row_bytes(array, span, row)[1]
        return [f"for (long long {row} = {span[0]}; {ok} && {row} < {span[1]}; {row}++)",
                f"{self.options.indent}if ({after} < {end})",
                f"{self.options.indent * 2}{ok} = 0;"]

    def _rows_apart(self, array, span, lo: str, hi: str, ok: str, row: str) -> list[str]:
        """A loop that clears ``ok`` when a row of ``array`` overlaps the bytes
        ``[lo, hi)``."""
        start, end = self._row_bytes(array, span, row)
        return [f"for (long long {row} = {span[0]}; {ok} && {row} <= {span[1]}; {row}++)",
                f"{self.options.indent}if (!({end} <= {lo} || {hi} <= {start}))",
                f"{self.options.indent * 2}{ok} = 0;"]

    def row_pair_lines(self, build: isl.AstBuild, ok: str, row: str) -> list[str]:
        """The checks of `Versioning.row_pair_checks`: for arrays ``a``, ``b``, one
        written, at least one reached through row pointers, each row (bounding box of
        the touched columns) apart from the other array: from its block (``[lo, hi)``
        of `address_range`) by a loop over the rows; from its rows by a merge of the
        two lists of rows, both ascending (each row past the end of the one before:
        else ``ok`` is cleared, conservatively); a written array's rows are apart from
        both tables of row pointers too (a store there would change a row pointer).
        Evaluated only where both arrays are touched (as `guard_text`'s pairs)."""
        written = written_arrays(self.scop)
        lines = []
        for a, b in self.version.row_pair_checks:
            elements = [accessed_elements(self.scop, x.name) for x in (a, b)]
            if any(e is None for e in elements):
                continue
            elements = [e.intersect_params(self.version.assumed) for e in elements]
            if any(e.is_empty() for e in elements):
                continue
            spans = {x.name: self._row_span(build, e) for x, e in zip((a, b), elements) if "" in x.dims[1:]}
            body = []
            # the tables of row pointers, and the pointers to them (or to a block) that
            # are memory a store may reach (src->rows, a global 'float **g')
            tables = [pointer_cell(x) for x in (a, b) if pointer_cell(x) is not None]
            for x in (a, b):
                if x.name in spans:
                    span = spans[x.name]
                    tables.append((f"(const char *)&{x.element([span[0]])}",
                                   f"(const char *)(&{x.element([span[1]])} + 1)"))
                    if len(spans) == 2 and x not in self.version.row_checks:   # (the merge's; checked above)
                        body += self._ascending_rows(x, span, ok, row)
            for x, y, e in ((a, b, elements[1]), (b, a, elements[0])):
                if x.name not in spans:
                    continue
                if y.name not in spans and (x.name in written or y.name in written):
                    body += self._rows_apart(x, spans[x.name], *self.address_range(build, y, e), ok, row)
                if x.name in written:
                    for lo, hi in tables:
                        body += self._rows_apart(x, spans[x.name], lo, hi, ok, row)
            plain = [x for x in (a, b) if x.name not in spans]
            if plain and plain[0].name in written:
                lo, hi = self.address_range(build, plain[0], elements[(a, b).index(plain[0])])
                for start, end in tables:
                    body += [f"if ({ok} && !({end} <= {lo} || {hi} <= {start}))",
                             f"{self.options.indent}{ok} = 0;"]
            if len(spans) == 2:
                other = self.names.fresh("polysched_row_b")
                (sa, ea), (sb, eb) = self._row_bytes(a, spans[a.name], row), \
                    self._row_bytes(b, spans[b.name], other)
                body += [f"for (long long {row} = {spans[a.name][0]}, {other} = {spans[b.name][0]}; "
                         f"{ok} && {row} <= {spans[a.name][1]} && {other} <= {spans[b.name][1]}; )",
                         f"{self.options.indent}if ({ea} <= {sb}) {row}++;",
                         f"{self.options.indent}else if ({eb} <= {sa}) {other}++;",
                         f"{self.options.indent}else {ok} = 0;"]
            lines += self._where_touched(build, elements, body)
        return lines

    def _where_touched(self, build: isl.AstBuild, elements: list[isl.Set], body: list[str]) -> list[str]:
        """``body`` run only for the parameters where every set of ``elements`` has an
        element (elsewhere its bounds are no rows the region touches, and the row
        pointers they would load need not exist)."""
        condition = self._untouched_condition(build, elements)
        if condition is None:
            return body
        return [f"if ({condition}) {{"] + [self.options.indent + line for line in body] + ["}"]

    def _untouched_condition(self, build: isl.AstBuild, elements: list[isl.Set]) -> str | None:
        """The C condition, among the parameters the check admits, under which every set
        of ``elements`` has an element; None when it always holds there. A check's
        addresses are computed only under it (``&A[n - 1][n - 2]`` at n = 1 is
        ``A[0][-1]``, undefined behaviour the original does not have)."""
        assumed = self.version.assumed
        touched = assumed
        for e in elements:
            touched = touched.intersect(e.params().coalesce())
        if assumed.is_subset(touched):
            return None
        return self.expr(build.expr_from_set(touched.gist(assumed).coalesce()))

    def address_range(self, build: isl.AstBuild, array, elements: isl.Set | None) -> tuple[str, str] | None:
        """``("(const char *)&A[lo...]", "(const char *)(&A[hi...] + 1)")``: the bytes the
        region touches in ``array`` (lexicographic extremes of ``elements``, those
        `accessed_elements` gives)."""
        address = f"&({array.text})" if array.text else f"&{array.name}"      # &(p->sum)
        if elements is None and array.name in self.scop.address_taken:   # an iterator or a size
            return f"(const char *){address}", f"(const char *)({address} + 1)"
        if elements is None or elements.is_empty():
            return None
        if elements.dim(isl.dim_type.set) == 0:
            return f"(const char *){address}", f"(const char *)({address} + 1)"
        texts = []
        params = parameter_ranges(self.scop, self.version.assumed)    # the check's ranges hold here
        for extreme in (elements.lexmin_pw_multi_aff(), elements.lexmax_pw_multi_aff()):
            subscripts = []
            for k in range(extreme.dim(isl.dim_type.out)):
                expr = build.expr_from_pw_aff(extreme.get_pw_aff(k))
                # in long long where int may not hold it, and always for the first of a
                # linearised array's: the original's A[(long)i * m + j] does not wrap
                # where an int (n - 1) * (m) would, and the arrays would seem apart
                wide = (array.linearized and k == 0) or largest_of(expr, params) > counter_limit("int")
                subscripts.append(self._long_long(expr) if wide else self.expr(expr, record=False))
            if array.linearized and re.fullmatch(r"-?\d+", subscripts[0]):   # (0LL) * (m) + (m - 1)
                subscripts[0] += "LL"
            texts.append("&" + array.element(subscripts))
        return f"(const char *){texts[0]}", f"(const char *)({texts[1]} + 1)"

    # -- AST nodes ---------------------------------------------------------------

    def pad(self, level: int) -> str:
        return self.options.indent * level

    def node(self, node: isl.AstNode, level: int, pending: dict[int, list[MarkInfo]]) -> list[str]:
        kind = node.get_type()
        if kind == _node.block:
            children = node.block_get_children()
            lines: list[str] = []
            for k in range(children.n_ast_node()):
                lines += self.node(children.get_at(k), level, pending)
            return lines
        if kind == _node.for_:
            return self.for_loop(node, level, pending)
        if kind == _node.if_:
            return self.if_chain(node, level, pending)
        if kind == _node.mark:
            return self.mark(node, level, pending)
        if kind == _node.user:
            return self.user(node, level)
        raise ValueError(f"unsupported isl AST node: {node.to_C_str()}")

    def mark(self, node: isl.AstNode, level: int, pending: dict[int, list[MarkInfo]]) -> list[str]:
        tag = node.mark_get_id().get_name()
        info = self.marks.get(tag, MarkInfo(tag, -1))
        child = node.mark_get_node()
        tensorize = try_parse_mark(info.name)
        if isinstance(tensorize, Jam):        # no pragma: scalar replacement in the loops below
            self._jam += 1
            try:
                return self.node(child, level, pending)
            finally:
                self._jam -= 1
        if isinstance(tensorize, Tensorize) and can_call(tensorize, self.statements):
            lines = call_lines(self, tensorize, child, self.pad(level), self.options.indent)
            if lines is not None:
                return lines
            # isl printed another shape (a point loop removed): the loops are exact too
            return ([self.pad(level) + f"/* polysched: '{info.name}' kept as loops */"]
                    + self.node(child, level, pending))
        if info.loop_pragma is None:
            # a mark we cannot honour must not vanish into a comment: it was a request
            raise CodegenError(f"{self.scop.filename}:{self.scop.start_line}: unknown mark '{info.name}' "
                             "in the schedule (known: parallel [clauses], simd, ivdep, unroll N, jam)")
        if info.depth < 0:
            return [self.pad(level) + info.comment()] + self.node(child, level, pending)
        pending = {d: list(ms) for d, ms in pending.items()}
        pending.setdefault(info.depth, []).append(info)
        lines = self.node(child, level, pending)
        if id(info) not in self._placed and self.options.explain_dropped_pragmas:
            # no loop below took it: isl unrolled the loop (unroll-and-jam's point loop)
            lines = [self.pad(level) + f"/* polysched: '{info.name}' dropped: its loop is unrolled */"] + lines
        return lines

    def user(self, node: isl.AstNode, level: int) -> list[str]:
        call = node.user_get_expr()
        name = call.get_op_arg(0).get_id().get_name()
        stmt = self.statements.get(name)
        if stmt is None:
            raise ValueError(f"schedule instance of unknown statement {name!r}")
        arg_exprs = [call.get_op_arg(k) for k in range(1, call.get_op_n_arg())]
        if self.lifted:  # S(i..., b...): the original iterators come first
            arg_exprs = arg_exprs[: len(stmt.iterators)]
        if len(arg_exprs) != len(stmt.iterators):
            raise ValueError(
                f"statement {name} has iterators {stmt.iterators} but the AST passes {len(arg_exprs)} arguments"
            )
        args = [self.expr(e) for e in arg_exprs]
        casts = [self.version.iterator_cast(it, stmt.iterator_types) for it in stmt.iterators]
        args = [f"({cast})({a})" if cast else a for cast, a in zip(casts, args)]
        additive = {it for it, e in zip(stmt.iterators, arg_exprs) if self.expr.is_additive(e)}
        body = stmt.body
        if self._replacing:
            annotation = node.get_annotation()
            spans = self._replacing.get(annotation.get_name()) if annotation is not None else None
            if spans:
                body = scalar_replace.rewrite(body, spans)
        for name, cell in self.reduced_cells.items():
            body = spelled_as(self.scop, stmt, name, cell.reference, body, cell.copy)
            if body is None:
                raise ValueError(f"statement {stmt.name} reaches {name!r} in a way its reduction does not rewrite")
        text = substitute(body.strip(), {**self._wrapped, **dict(zip(stmt.iterators, args))}, additive)
        text = fold_self_comparisons(text, {a for a in args if a.isidentifier()})
        pad = self.pad(level)
        out = []
        start = max(stmt.col - 1, 0)      # the source column of the statement's first line
        for k, line in enumerate(text.splitlines()):
            if not line.strip():
                continue
            if k == 0:
                out.append(pad + line)
                continue
            # later lines keep their indentation relative to the first (the branches of
            # an 'if' statement), and are indented at least one step
            lead = len(line) - len(line.lstrip(" \t"))
            relative = line[min(lead, start):]
            out.append(pad + (relative if relative[:1] in (" ", "\t") or relative.startswith(("}", "else"))
                              else self.options.indent + relative))
        return out

    @staticmethod
    def _is_single_statement(node: isl.AstNode, statements: dict[str, Statement]) -> bool:
        """A user node whose body is one simple statement can go without braces."""
        if node.get_type() != _node.user:
            return False
        name = node.user_get_expr().get_op_arg(0).get_id().get_name()
        body = statements[name].body.strip() if name in statements else ""
        # an 'if' statement never goes without braces: a generated 'else' after it
        # would be its else (the dangling else)
        return body.endswith(";") and body.count(";") == 1 and "{" not in body and "#" not in body \
            and not re.match(r"if\W", body)

    def braced_body(self, header: list[str], body: isl.AstNode, level: int, pending,
                    per_iteration: scalar_replace.Replacement | None = None) -> list[str]:
        """``header`` and the loop ``body`` below it, at ``level``; the scalars of
        ``per_iteration`` are loaded at the start of the body's block and stored at
        its end."""
        below = body
        while below.get_type() == _node.mark:
            below = below.mark_get_node()
        self._scoped = below.get_type() == _node.for_      # these braces are the loop's block
        try:
            inner = self.node(body, level + 1, pending)
        finally:
            self._scoped = False
        if per_iteration is not None:
            pad, indent = self.pad(level + 1), self.options.indent
            inner = per_iteration.before(pad, indent) + inner + per_iteration.after(pad, indent)
        elif self._is_single_statement(body, self.statements):
            return header + inner
        header[-1] += " {"
        return header + inner + [self.pad(level) + "}"]

    def for_loop(self, node: isl.AstNode, level: int, pending: dict[int, list[MarkInfo]]) -> list[str]:
        scoped, self._scoped = self._scoped, False
        iterator = node.for_get_iterator().get_id().get_name()
        depth = self.depth_of.get(iterator)
        if depth is None:  # an isl-chosen name could clash with the user's: never emit it
            raise ValueError(f"isl AST iterator {iterator!r} is not one of the reserved names {self.iterators}")
        here = [m for d, ms in pending.items() if d == depth for m in ms]
        # marks of shallower depths whose loop isl removed (it ran once) lose their pragma
        lost = [m for d, ms in pending.items() if d != depth for m in ms]
        self._placed.update(id(m) for m in here + lost)
        pad = self.pad(level)
        # (helper-78: said as 'its loop runs at most once' above a loop of 8 iterations,
        # the point loop under the tile loop that was marked)
        lines = [pad + f"/* polysched: '{m.name}' dropped: the loop it marked runs at most once and "
                       f"is not written */" for m in lost if self.options.explain_dropped_pragmas]
        init = self.expr(node.for_get_init())
        decl = f"{self.version.counter_type} {iterator}"
        if node.for_is_degenerate():
            if here and self.options.explain_dropped_pragmas:
                lines += [pad + f"/* polysched: '{m.name}' dropped: its loop runs at most once */" for m in here]
            lines.append(pad + "{")
            lines.append(pad + self.options.indent + f"{decl} = {init};")
            self._enclosing.append(("for", node))
            try:
                with self.ranges.inside([node]):
                    lines += self.node(node.for_get_body(), level + 1, {})
            finally:
                self._enclosing.pop()
            lines.append(pad + "}")
            return lines
        with self.ranges.inside([node]):        # (the condition tests the loop's counter)
            cond = self.expr(node.for_get_cond())
            inc = self.expr(node.for_get_inc())
        replaced = per_iteration = None
        if self.options.scalar_replacement:
            claims = {m.loop_pragma[0] for m in here}
            with self.ranges.inside([node]):        # (the text within names the loop's counter)
                replaced, per_iteration = scalar_replace.plan(self, node, depth, self._enclosing, claims)
        wrapped = self._wrapped_reductions(here)
        renamed = {**self._wrapped, **wrapped}       # what the loop and its body update
        cells = self._cell_reductions(here)
        # the scalars need a block of their own unless the loop is one already
        at = level + 1 if (replaced is not None or wrapped or cells) and not scoped else level
        inner = self.pad(at)
        loop, fork_if = self.loop_pragmas(node, iterator, here, inner,
                                          {**renamed, **{name: cell.copy for name, cell in cells.items()}},
                                          [("|", cell.flag) for cell in cells.values()])
        bound = node.for_get_cond().get_op_arg(1) if _is_canonical_loop(node, iterator) else None
        if any(line.lstrip().startswith("#pragma GCC") for line in loop) and bound is not None \
                and bound.get_type() == isl.ast_expr_type.op:
            # gcc drops its loop pragmas ("ignoring loop annotation": no unrolling, no ivdep)
            # when the exit test has a ?: in it (polysched_min): the bound is computed once
            if iterator not in self._loop_ends:
                self._loop_ends[iterator] = self.names.fresh(f"{iterator}_end")
            end = self._loop_ends[iterator]
            with self.ranges.inside([node]):
                relation = "<=" if node.for_get_cond().get_op_type() == isl.ast_expr_op_type.le else "<"
                init = f"{init}, {end} = {self.expr(bound)}"
                cond = f"{iterator} {relation} {end}"
        header = [inner + f"for ({decl} = {init}; {cond}; {iterator} += {inc})"]
        self._enclosing.append(("for", node))
        spans: dict[str, dict] = {}
        for plan in (replaced, per_iteration):
            for call, found in (plan.spans.items() if plan is not None else ()):
                spans.setdefault(call, {}).update(found)
        saved, self._replacing = self._replacing, spans
        saved_wrapped, self._wrapped = self._wrapped, renamed
        saved_cells = self.reduced_cells
        self.reduced_cells = {**self.reduced_cells, **cells}
        try:
            with self.ranges.inside([node]):
                body = self.braced_body(header, node.for_get_body(), at, {}, per_iteration)
        finally:
            self._enclosing.pop()
            self._replacing = saved
            self._wrapped = saved_wrapped
            self.reduced_cells = saved_cells
        unrolled = any(line.lstrip().startswith("#pragma GCC unroll") for line in loop)
        if unrolled and not any(iterator in identifiers_in(line) for line in body[1:]):
            # a body that never reads its counter repeats one piece of work: unrolling
            # it gains nothing, and gcc 12.2 -O2 miscompiles such a loop under
            # "#pragma GCC unroll" when its trip count is short and varies with an
            # outer counter (v7 fuzz seed 20261127 program 101; tests/test_fuzz_regressions.py)
            loop = [line for line in loop if not line.lstrip().startswith("#pragma GCC unroll")]
        loop += body
        if fork_if is not None:
            loop = self._forked_or_not(loop, fork_if, inner)
        if replaced is None and not wrapped and not cells:
            return lines + loop
        indent = self.options.indent
        if replaced is not None:
            loop = replaced.before(inner, indent) + loop + replaced.after(inner, indent)
        for name, copy in wrapped.items():
            loop = ([inner + f"unsigned long long {copy} = (unsigned long long){name};"] + loop
                    + [inner + f"{name} = ({self._scalar_type(name)}){copy};"])
        for cell in cells.values():
            loop = cell.before(inner) + loop + cell.after(inner, indent)
        return lines + (loop if at == level else [pad + "{"] + loop + [pad + "}"])

    def _cell_reductions(self, marks: list[MarkInfo]) -> dict[str, CellReduction]:
        """The cells (`reduced_cell`: ``st->count``, an out-parameter ``*sum``) that the
        parallel loop of ``marks`` reduces. OpenMP reduces variables, so the loop updates
        a local copy that starts at the operator's identity (an ``unsigned long long``
        for an integer: modulo 2^64 the partial sums give the original's value wherever
        it is defined, see `_wrapped_reductions`), and a flag says whether an update ran;
        only then is the copy combined into the cell after the loop. The original touches
        the cell only in its updates, so nothing reads or writes it when none runs (a
        NULL out-parameter of an empty loop)."""
        found: dict[str, CellReduction] = {}
        for op, name, array in self._marked_reductions(marks):
            if name in self.reduced_cells or name in found or array is None or not reduced_cell(self.scop, name):
                continue
            if op not in CellReduction.IDENTITY:
                raise ValueError(f"a '{op}' reduction of {name!r} cannot run on a local copy")
            integer = is_integer_type(array.element_type)
            cell = array.text or f"{name}[0]"
            stem = re.sub(r"\W+", "_", array.text or name)         # st->n: st_n_partial
            cell_type = self._scalar_type(name, cell)
            found[name] = CellReduction(
                op, cell, cell_type, self.names.fresh(f"{stem}_partial"), self.names.fresh(f"{stem}_updated"),
                "unsigned long long" if integer else cell_type, integer)
        return found

    def _marked_reductions(self, marks: list[MarkInfo]):
        """``(op, name, array or None)`` of each reduction the ``Parallel`` marks among
        ``marks`` declare."""
        for mark in marks:
            parsed = try_parse_mark(mark.name)
            if isinstance(parsed, Parallel):
                for op, name in parsed.reductions:
                    yield op, name, self.scop.arrays.get(name)

    def _wrapped_reductions(self, marks: list[MarkInfo]) -> dict[str, str]:
        """``{s: s_wrapped}``: the sums and products into a signed integer scalar ``s``
        of ``int``'s rank or wider, and the products into a narrower one
        (`wraps_in_a_copy`), that the parallel loop of ``marks`` reduces, each
        with a fresh name for the ``unsigned long long`` copy the loop updates instead
        (declared from ``s`` before it, converted back after it). Signed partial sums in
        another order may overflow where the original's did not, which C leaves
        undefined; unsigned ones wrap modulo 2^64, and converted back to ``s``'s type
        (modulo, as gcc and clang define it) they give the original's value wherever the
        original is defined. A scalar already wrapped around this loop stays wrapped."""
        found: dict[str, str] = {}
        for op, name, array in self._marked_reductions(marks):
            if name not in self._wrapped and name not in found \
                    and array is not None and array.is_scalar and not array.text \
                    and wraps_in_a_copy(array.element_type, op):
                found[name] = self.names.fresh(f"{name}_wrapped")
        return found

    def _scalar_type(self, name: str, text: str | None = None) -> str:
        element = self.scop.arrays[name].element_type
        return scalar_replace.plain_element_type(element) or f"__typeof__({text or name})"

    def parallel_if(self, mark: MarkInfo) -> str | None:
        """The work test of the parallel loop under ``mark`` (`_forked_or_not`): its
        statement instances (per statement, the product of its domain's extents: a
        box, never enumerated) reach ``POLYSCHED_PARALLEL_MIN_WORK`` per fork/join (the
        loops around it fork once per iteration: the product of their extents). None
        when the numbers are constants: the tiling policy decided with them."""
        if not self.options.parallel_if:
            return None
        node = self._mark_nodes().get(mark.tag)
        if node is None:
            return None
        build = isl.AstBuild.from_context(self.scop.context)
        domain = node.get_domain().intersect_params(self.scop.context)
        work = [self._box_product(build, piece) for piece in sets_of(domain) if not piece.is_empty()]
        prefix = node.get_prefix_schedule_union_map().intersect_domain(node.get_domain())
        outer = [piece for piece in sets_of(prefix.range()) if piece.dim(isl.dim_type.set)]
        forks = [self._box_product(build, piece) for piece in outer]
        if None in work or None in forks or not work:
            return None
        if all(term.isdigit() for term in work + forks):
            return None
        self._uses_min_work = True
        total = " + ".join(work)
        per_fork = f" * ({' + '.join(forks)})" if forks else ""
        return f"{total} >= {MIN_WORK_MACRO}{per_fork}"

    def _checked(self) -> bool:
        """Whether the region's code runs under a run-time check, its original code the
        fallback (versioning.py)."""
        scop, version = self.scop, self.version
        return self.options.versioning and (version.needs_check or bool(definition_checks(scop))
                                            or bool(scop.macro_expansions) or region_arrays_fit(scop) is not None)

    def _keeps_original(self) -> bool:
        """Whether the region keeps its original code as the fallback: under a run-time
        check, with heap blocks of expanded arrays to allocate, or with '#if's of its own."""
        return self._checked() or bool(heap_arrays(self.scop)) or self.scop.preprocessor_guard is not None

    def team_test(self) -> str | None:
        """The name of the region's variable that says whether an ``omp parallel`` here
        starts more than one thread (declared by `_team_declaration`); None in a region
        without a fallback (see `region_text`)."""
        if not self._team_tested:
            return None
        if not self._team:
            self._team = self.names.fresh("polysched_team")
        return self._team

    def _team_declaration(self) -> list[str]:
        """The declaration of `team_test`'s variable: 0 without OpenMP, with one thread
        (OMP_NUM_THREADS=1), and inside a parallel region where a nested one would run
        on one thread (the caller's own parallel loop, nesting off): there a parallel
        loop runs as its copy in place (`_forked_or_not`). The OpenMP functions are
        declared in the block, as <omp.h> does: the file need not include it."""
        indent = self.options.indent
        return [f"int {self._team} = 0;", "#ifdef _OPENMP", "{",
                indent + "int omp_get_max_threads(void), omp_get_active_level(void), "
                         "omp_get_max_active_levels(void);",
                indent + f"{self._team} = omp_get_max_threads() > 1 && "
                         "omp_get_active_level() < omp_get_max_active_levels();",
                "}", "#endif"]

    def runs_several_times(self, node: isl.AstNode) -> str | None:
        """``init < bound`` (``init < bound - 1`` for a ``<`` test): the canonical loop
        ``node`` runs at least twice this time; None unless its bounds read the counter
        of a loop around it (then its trip count varies from fork to fork; otherwise
        `parallel_if`'s work per fork covers it). A fork for one iteration buys nothing
        and costs a fork/join, and under a tile wavefront (a right-looking LU,
        helper-91) the steps with one tile are most of them: forking each moved the data
        from core to core and ran 4x slower at 2 threads. The test is evaluated once per
        fork, outside the loop. None too without ``parallel_if``, as `parallel_if`."""
        if not self.options.parallel_if:
            return None
        cond = node.for_get_cond()
        bound, init = cond.get_op_arg(1), node.for_get_init()
        if not (identifiers_in(bound.to_C_str() + " " + init.to_C_str()) & self.depth_of.keys()):
            return None
        # (an operand with a ?: or a comparison of its own in parentheses)
        first, last = (text if not re.search(r"[?<>=&|]", text) else f"({text})"
                       for text in (self.expr(init), self.expr(bound)))
        if cond.get_op_type() == isl.ast_expr_op_type.lt:
            last = f"{last} - 1"
        return f"{first} < {last}"

    def private_arrays_fit(self, mark) -> str | None:
        """``sizeof(t) <= PRIVATE_ARRAY_BYTES`` for the arrays (the region's own, ``double
        t[N];``) that parallel loop ``mark`` makes private, None if there are none:
        each thread's copy lives on its own stack, which may be smaller than the one
        the source's array was on. Where it does not hold, OpenMP's ``if`` runs the loop
        on one thread (whose copy is on the stack the source used)."""
        arrays = [n for n in mark.private if n in self.scop.arrays and not self.scop.arrays[n].is_scalar]
        if not arrays:
            return None
        return f"{' + '.join(f'sizeof({n})' for n in arrays)} <= {PRIVATE_ARRAY_BYTES}"

    def _box_product(self, build: isl.AstBuild, piece: isl.Set) -> str | None:
        """``(double)(e0) * (double)(e1) ...``: the number of points of the bounding box
        of ``piece`` as a C expression of the parameters (a digit string when
        constant); None when unbounded."""
        factors, constant = [], 1
        # a box over the piece without its existentials: bounds as tight where the
        # loops are plain, looser under skewed tiles, whose floors (floor(-i0 / 64)
        # + floor((-2 i0 + i1) / 64)) made isl's dim_max take minutes
        piece = piece.remove_divs()
        for k in range(piece.dim(isl.dim_type.set)):
            extent = piece.dim_max(k).sub(piece.dim_min(k)).add_constant_val(isl.Val(1))
            extent = extent.gist_params(self.scop.context).coalesce()
            if extent.is_cst():
                value = piece.dim_max_val(k).sub(piece.dim_min_val(k))
                if not value.is_int():
                    return None
                constant *= value.to_python() + 1
                continue
            if extent.n_piece() > MAX_EXTENT_PIECES:
                # isl's expression for it can take minutes (a random tiled program hung
                # the test suite here); no clause then: the loop always forks
                return None
            try:
                text = self._wide_expr(build.expr_from_pw_aff(extent))
            except isl.Error:
                return None
            if text is None:
                return None
            factors.append(f"(double)({text})")
        if not factors:
            return str(constant)
        return " * ".join(([str(constant)] if constant != 1 else []) + factors)

    def _wide_expr(self, expr: isl.AstExpr) -> str | None:
        """``expr`` computed in ``long long`` when it multiplies or divides: an extent of
        tile loops (``(63 * lo + 63) / 64``) may pass INT_MAX where the loops do not.
        None when even ``long long`` may overflow under the run-time check's parameter
        ranges (``255 * lo`` of a ``long lo`` near 2^56)."""
        text = self.expr(expr, record=False)
        if not re.search(r"[*/%]|floord", text):
            return self.expr(expr)
        if largest_of(expr, parameter_ranges(self.scop, self.version.assumed)) > counter_limit("long long"):
            return None
        return self._long_long(expr)

    def _long_long(self, expr: isl.AstExpr) -> str:
        """``expr`` with every parameter converted to ``long long`` (then so is the
        arithmetic on it)."""
        if not hasattr(self, "_wide_printer"):
            rename = {p: f"((long long)({self.scop.c_texts.get(p, p)}))" for p in self.scop.parameters}
            self._wide_printer = ExprPrinter(self.helpers, rename=rename)
        return self._wide_printer(expr)

    def _mark_nodes(self) -> dict[str, isl.ScheduleNode]:
        """Every mark node of the (retagged) tree by its tag."""
        if not hasattr(self, "_marks_by_tag"):
            found: dict[str, isl.ScheduleNode] = {}

            def visit(node: isl.ScheduleNode) -> None:
                if node.get_type() == isl.schedule_node_type.mark:
                    found[node.mark_get_id().get_name()] = node
                for k in range(node.n_children()):
                    visit(node.child(k))

            visit(self.unlifted.get_root())
            self._marks_by_tag = found
        return self._marks_by_tag

    def loop_pragmas(self, node: isl.AstNode, iterator: str, marks: list[MarkInfo], pad: str,
                     renamed: dict[str, str] | None = None, extra_reductions: list[tuple[str, str]] = ()
                     ) -> tuple[list[str], str | None]:
        """The pragma lines of the for loop ``node`` from its ``marks``; ``renamed``: the
        scalars the loop updates under other names (`_wrapped_reductions`), which its
        clauses name instead; ``extra_reductions``: ``(op, variable)`` reductions of the
        emitted code only (the flags of `_cell_reductions`). Also, for a loop with an
        ``omp parallel for``, the condition under which its fork is worth it (see
        `_forked_or_not`); None for a loop without one."""
        kinds: dict[str, list[str]] = {}
        for mark in marks:
            kind, argument = mark.loop_pragma
            kinds.setdefault(kind, []).append(argument)
        lines: list[str] = []
        explain = self.options.explain_dropped_pragmas
        omp = [k for k in ("omp_parallel", "omp_simd") if k in kinds]
        if omp and not _is_canonical_loop(node, iterator):
            if explain:
                lines.append(pad + "/* polysched: OpenMP pragma dropped: loop not in canonical form */")
            for k in omp:
                del kinds[k]
            omp = []
        if omp:
            parallel = [m for m in marks if m.loop_pragma[0] == "omp_parallel"]
            if parallel:
                merged = merged_parallel([parse_mark(m.name) for m in parallel])
                if renamed or extra_reductions:
                    merged = Parallel(private=[renamed.get(n, n) for n in merged.private],
                                      reductions=[(op, renamed.get(n, n)) for op, n in merged.reductions]
                                      + list(extra_reductions), schedule=merged.schedule,
                                      lastprivate=[renamed.get(n, n) for n in merged.lastprivate])
                kinds["omp_parallel"] = [openmp_clauses(merged)]
            clauses = " ".join(c for k in omp for c in kinds[k] if c)
            condition = None
            if parallel:
                # a team of threads to start (`team_test`), and work for it
                condition = self.team_test()
                work = self.parallel_if(parallel[0])
                several = self.runs_several_times(node)
                if several:
                    work = f"{several} && {work}" if work else several
                guard = self.private_arrays_fit(merged)
                if guard:
                    work = f"({work}) && {guard}" if work else guard
                if work and condition:
                    condition = f"{condition} && {work}" if " || " not in work else f"{condition} && ({work})"
                elif work:
                    condition = work
            words = ["#pragma omp"] + (["parallel for"] if "omp_parallel" in kinds else []) + ["simd"] * (
                "omp_simd" in kinds
            )
            # GCC rejects its own loop pragmas next to an OpenMP loop pragma
            for k in ("gcc_ivdep", "gcc_unroll"):
                if k in kinds and explain:
                    lines.append(pad + f"/* polysched: {k[4:]} dropped: cannot follow an OpenMP pragma */")
            lines.append(pad + " ".join(words + ([clauses] if clauses else [])))
            return lines, condition
        if "gcc_ivdep" in kinds:
            lines.append(pad + "#pragma GCC ivdep")
        if "gcc_unroll" in kinds:
            lines.append(pad + f"#pragma GCC unroll {max(int(f) for f in kinds['gcc_unroll'])}")
        return lines, None

    def _forked_or_not(self, loop: list[str], condition: str, pad: str) -> list[str]:
        """``if (condition) { pragma; loop } else { loop }``: the parallel loop ``loop``
        (its pragma lines, then the loop) where a fork starts a team and its work pays,
        else the same loop in place, without its ``omp parallel for``. OpenMP's ``if``
        clause would call the outlined function on one thread instead, where gcc no
        longer sees what the caller passes as constants nor which arrays are distinct
        objects: doitgen at MEDIUM, whose parallel loop inside two others was called
        2,000 times for 60 iterations each, ran 3.4x slower at 1 thread than the same
        loop in place; symm at LARGE and 1 thread ran 2.4x slower outlined. The copy is
        the same text, so it computes what the parallel loop computes on one thread: its
        private scalars are the source's own, which no later code reads before writing,
        or which hold the last iteration's values as ``lastprivate`` leaves them; its
        reductions accumulate in the order of the source."""
        indent = self.options.indent
        sequential = [line for line in loop if not line.lstrip().startswith("#pragma omp parallel")]
        return ([pad + f"if ({condition}) {{"] + [indent + line for line in loop] + [pad + "} else {"]
                + [indent + line for line in sequential] + [pad + "}"])

    def if_chain(self, node: isl.AstNode, level: int, pending) -> list[str]:
        pad = self.pad(level)
        lines = [pad + f"if ({self.expr(node.if_get_cond())}) {{"]
        lines += self._then(node, level + 1, pending)
        while node.if_has_else_node():
            other = node.if_get_else_node()
            if other.get_type() == _node.if_:
                lines.append(pad + f"}} else if ({self.expr(other.if_get_cond())}) {{")
                lines += self._then(other, level + 1, pending)
                node = other
                continue
            lines.append(pad + "} else {")
            lines += self.node(other, level + 1, pending)
            break
        lines.append(pad + "}")
        return lines

    def _then(self, node: isl.AstNode, level: int, pending) -> list[str]:
        """The then-branch of an ``if``, printed knowing that its condition holds."""
        self._enclosing.append(("if", node.if_get_cond()))
        try:
            return self.node(node.if_get_then_node(), level, pending)
        finally:
            self._enclosing.pop()


@dataclass
class CellReduction:
    """A cell reduced in a local copy by one parallel loop (`Printer._cell_reductions`)."""

    IDENTITY = {"+": "0", "*": "1", "|": "0", "^": "0", "&": "~0ULL"}

    op: str
    cell: str           # the C lvalue: "st->count", "sum[0]"
    cell_type: str      # "long", or __typeof__(st->count) for a type not known plainly
    copy: str
    flag: str
    copy_type: str      # unsigned long long for an integer, else the cell's type
    integer: bool

    @property
    def reference(self) -> str:
        """What the first reference to the cell in a statement of the loop becomes: the
        copy, setting the flag as it is reached (an update under a false test sets
        nothing); the others are the copy. (An update's references are evaluated
        together: `reduction_operator` admits no ``?:``, ``&&`` or ``||`` around them;
        the flag set once per statement, as the sequence points require.)"""
        return f"(*({self.flag} = 1, &{self.copy}))"

    def before(self, pad: str) -> list[str]:
        return [pad + f"{self.copy_type} {self.copy} = {self.IDENTITY[self.op]};",
                pad + f"unsigned char {self.flag} = 0;"]

    def after(self, pad: str, indent: str) -> list[str]:
        value = f"({self.cell_type})((unsigned long long)({self.cell}) {self.op} {self.copy})" \
            if self.integer else f"{self.cell} {self.op} {self.copy}"
        return [pad + f"if ({self.flag})", pad + indent + f"{self.cell} = {value};"]


def _is_canonical_loop(node: isl.AstNode, iterator: str) -> bool:
    """OpenMP's canonical loop form: ``it <= bound`` or ``it < bound`` with ``bound``
    free of ``it``, and a constant increment."""
    cond = node.for_get_cond()
    if cond.get_type() != isl.ast_expr_type.op:
        return False
    if cond.get_op_type() not in (isl.ast_expr_op_type.le, isl.ast_expr_op_type.lt):
        return False
    lhs, rhs = cond.get_op_arg(0), cond.get_op_arg(1)
    if lhs.get_type() != isl.ast_expr_type.id or lhs.get_id().get_name() != iterator:
        return False
    if iterator in identifiers_in(rhs.to_C_str()):
        return False
    return node.for_get_inc().get_type() == isl.ast_expr_type.int
