"""What a match of one intrinsic in one statement must satisfy, independent of how the
matches are searched (SAT in :mod:`.sat`, exhaustively in :mod:`.brute`).

A *structural match* maps every intrinsic loop to a distinct program loop and every
intrinsic operand to a program array (or scalar) so that

- the expression trees are equal modulo commutativity of ``+`` and ``*`` (compound
  assignments normalised: ``x += e`` is ``x = x + e``); no reassociation, which would
  change floating-point results;
- each operand has the program array's element type, and the output operand's array is
  not also an input (the vector paths keep the output in registers);
- each reference's access, restricted to the mapped loops, equals the intrinsic's: an
  injective map of intrinsic dimensions to program dimensions exists such that
  ``coef_program[dP][p] == coef_intrinsic[dI][l]`` whenever loop ``l`` maps to ``p``,
  and program dimensions outside its image do not involve mapped loops (unmapped loops
  may appear anywhere: they only move the block's base address);
- except for an ``affine:`` operand (an input the implementation reads through one
  stride per loop): there the program reference (an array, not a scalar) must only not
  involve a mapped loop whose intrinsic loop the operand does not use; any strides,
  several mapped loops in one subscript (``in[c][h + r][w + s]``) included;
- a dimension the intrinsic wants stride-1 maps to the program array's last dimension;
- a fixed-extent intrinsic loop ``l`` (extent E) maps to a loop whose extent (at the
  SCoP's known parameter values) is at least E and a multiple of E, unless ``l``
  allows a remainder epilogue (then any extent >= E, or an unknown one).

A match is ``(loops, arrays)``: ``((intrinsic_loop, program_loop), ...)`` and
``((operand, array), ...)``, each in intrinsic order.

An intrinsic with an init statement (``Intrinsic.init``: ``C[i][j] *= beta;`` before
``C[i][j] += alpha * A[i][k] * B[k][j];``) matches a band of two statements: a match of
its main statement, as above, and an :class:`InitBinding`, a structural match of the
init statement in another program statement that writes the same array, with the
operands both statements share bound to the same arrays, and where two instances
writing the same element agree on every loop the init statement has (gemm's
``C[i][j] *= beta`` at ``S0[i, j]`` and ``S1[i, k, j]``). Whether each call's block
initialises exactly the elements it accumulates into is decided with the blocks, in
:mod:`.legality`.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polysched.scop import Scop, Statement

from .intrinsic import Intrinsic, _extent
from .pattern import Pattern, statement_pattern

StructuralMatch = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class InitBinding:
    """The program statement matching an intrinsic's init statement: its name, the
    ``((intrinsic loop, its loop), ...)`` and ``((operand, array), ...)`` pairs."""

    statement: str
    loops: tuple[tuple[str, str], ...]
    arrays: tuple[tuple[str, str], ...]

    def to_json(self) -> dict:
        return {"statement": self.statement, "loops": dict(self.loops), "arrays": dict(self.arrays)}


@dataclass
class Problem:
    """One (statement, intrinsic) pair: the program's pattern, the intrinsic and the
    program loops' extents at the known parameter values (None: unknown)."""

    scop: Scop
    statement: Statement
    pattern: Pattern
    intrinsic: Intrinsic
    extents: list[int | None]
    # the step between consecutive values of each program loop (`program_steps`)
    steps: list[int]
    # rules the SAT search may ignore, to say why nothing matched (see match.diagnose):
    # "steps", "extents", "stride1", "types", "aliasing"
    relax: frozenset[str] = frozenset()
    # a band-of-statements match: the program statement running the intrinsic's init
    init: InitBinding | None = None

    def init_statement(self) -> Statement | None:
        return self.scop.statement(self.init.statement) if self.init is not None else None

    def loop_allowed(self, l: int, p: int) -> bool:
        """May intrinsic loop ``l`` map to program loop ``p`` (step and extent rules)?
        A program loop that steps by more than one (``l += 2``) never maps: an
        intrinsic walks consecutive values (fuzz seed 3 program 3369: a call over
        ``l = 2, 4`` computed ``l = 2, 3``)."""
        if self.steps[p] != 1 and "steps" not in self.relax:
            return False
        fixed = self.intrinsic.extents[l]
        if "extents" in self.relax:
            return True
        if fixed is None:
            return True
        extent = self.extents[p]
        remainder_ok = self.intrinsic.loops[l] in self.intrinsic.remainder
        if extent is None:
            return remainder_ok
        if extent < fixed:
            return False
        return extent % fixed == 0 or remainder_ok

    def needs_remainder(self, l: int, p: int) -> bool:
        fixed = self.intrinsic.extents[l]
        return fixed is not None and (self.extents[p] is None or self.extents[p] % fixed != 0)


def program_extents(scop: Scop, stmt: Statement) -> list[int | None]:
    """Number of values of each loop of ``stmt`` over its domain, with the parameters at
    their known values: ``[NI, NK, NJ] -> { S1[i, k, j] : 0 <= i < NI ... }`` with
    NI = 1000 gives 1000 for ``i``."""
    domain = stmt.domain.intersect_params(scop.with_values())
    return [_extent(domain, d) for d in range(domain.dim(isl.dim_type.set))]


def program_steps(stmt: Statement) -> list[int]:
    """The stride of each loop of ``stmt`` in its domain (isl's ``get_stride``):
    ``{ S[i, l] : exists e : l = 2e and ... }`` gives 2 for ``l``; 1 for a loop of
    consecutive values or a fixed one."""
    domain = stmt.domain
    return [int(domain.get_stride(d).to_python()) or 1 for d in range(domain.dim(isl.dim_type.set))]


def make_problem(scop: Scop, stmt: Statement, intrinsic: Intrinsic, pattern: Pattern | None = None,
                 shape: tuple[list[int | None], list[int]] | None = None) -> Problem:
    """The matching problem of ``stmt`` against ``intrinsic``; ``pattern`` and ``shape``
    (`statement_shape`) when the caller has them already: they do not depend on the
    intrinsic."""
    pattern = pattern or statement_pattern(scop, stmt)
    extents, steps = shape or statement_shape(scop, stmt)
    return Problem(scop, stmt, pattern, intrinsic, extents, steps)


def statement_shape(scop: Scop, stmt: Statement) -> tuple[list[int | None], list[int]]:
    """(`program_extents`, `program_steps`) of ``stmt``."""
    return program_extents(scop, stmt), program_steps(stmt)


def affine_unused(uref, vref) -> set[tuple[int, int]] | None:
    """For an ``affine:`` operand: the (intrinsic loop, program loop) pairs it excludes,
    ``l`` unused by the operand's reference ``uref`` and ``p`` involved in the program's
    ``vref``; None when ``vref`` is a scalar (no match)."""
    if not vref.rows:
        return None
    used = {l for row in uref.rows for l, c in enumerate(row) if c}
    n_intr = len(uref.rows[0]) if uref.rows else 0
    n_prog = len(vref.rows[0])
    return {(l, p) for l in range(n_intr) if l not in used
            for p in range(n_prog) if any(row[p] for row in vref.rows)}


def init_bindings(problem: Problem, structural: StructuralMatch, search,
                  memo: dict | None = None) -> list[InitBinding]:
    """Every :class:`InitBinding` completing the main statement's match ``structural``
    into a match of the band (see the module doc); ``search``: the structural search
    (SAT or the brute-force oracle) run on each candidate init statement. ``memo`` (a
    dict the caller keeps for all matches of ``problem``) holds each candidate's
    search result: it does not depend on the main match."""
    intrinsic = problem.intrinsic
    arrays = dict(structural[1])
    output = arrays[intrinsic.output]
    part = intrinsic.init_part()
    memo = {} if memo is None else memo
    found = []
    for other in problem.scop.statements:
        written = {a.array for a in other.accesses if a.kind == "write"}
        if other.name == problem.statement.name or output not in written:
            continue
        if other.name not in memo:
            memo[other.name] = search(make_problem(problem.scop, other, part))
        for loops, init_arrays in memo[other.name]:
            if any(arrays.get(o, a) != a for o, a in init_arrays):
                continue
            binding = InitBinding(other.name, loops, init_arrays)
            if _same_element_same_point(problem, structural, binding, output):
                found.append(binding)
    return found


def _same_element_same_point(problem: Problem, structural: StructuralMatch, binding: InitBinding,
                             output: str) -> bool:
    """Do an init instance and a main instance that write the same element of
    ``output`` always agree on the init's loops? ``{ I[x] -> M[y] : W_I(x) = W_M(y) }``
    must lie inside ``{ I[x] -> M[y] : x_p = y_q }`` for each intrinsic loop mapped to
    ``p`` in I and to ``q`` in M."""
    main, init = problem.statement, problem.scop.statement(binding.statement)
    w_main, w_init = output_write(main, output), output_write(init, output)
    if w_main is None or w_init is None:
        return False
    same_element = w_init.apply_range(w_main.reverse())
    main_loop = dict(structural[0])
    xs = [f"x{d}" for d in range(len(init.iterators))]
    ys = [f"y{d}" for d in range(len(main.iterators))]
    equal = [f"x{init.iterators.index(p)} = y{main.iterators.index(main_loop[l])}" for l, p in binding.loops]
    params = ", ".join(problem.scop.parameters)
    agree = isl.Map(f"[{params}] -> {{ {init.name}[{', '.join(xs)}] -> {main.name}[{', '.join(ys)}] : "
                    f"{' and '.join(equal) or '1 = 1'} }}").align_params(same_element.get_space())
    return same_element.is_subset(agree.align_params(same_element.get_space()))


def output_write(stmt: Statement, array: str) -> isl.Map | None:
    """``{ S[x] -> array[...] }``, the statement's one write of ``array`` (None when it
    writes it in no or in several references)."""
    maps = [a.relation for a in stmt.accesses if a.kind == "write" and a.array == array]
    return maps[0] if len(maps) == 1 else None
