"""Matches of intrinsics in statements: structural search (SAT or brute force), then
applicability and legality (:mod:`.legality`), remainders and cost (:mod:`.cost`).

    [scop] = extract("polysched/bench/kernels/gemm.c")
    for report in match_statement(scop, scop.statement("S1"), intrinsics):    # one per intrinsic
        for m in report.matches:
            print(m.intrinsic, m.loops, m.arrays, m.legal, m.reason, m.cost["gain"])
    # dgemm_4x8_scaled {'k': 'k', 'i': 'i', 'j': 'j'} {'C': 'C', 'alpha': 'alpha', ...} True
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from polysched.dependence import analyze
from polysched.errors import ArgumentError
from polysched.scop import Scop, Statement

from .brute import brute_force_matches
from .cost import estimate, native_path
from .intrinsic import Intrinsic, as_intrinsics
from .legality import legality
from .pattern import statement_pattern
from .problem import InitBinding, StructuralMatch, init_bindings, make_problem, statement_shape
from .sat import sat_matches


@dataclass
class Match:
    """One structural match of ``intrinsic`` in ``statement``.

    ``loops``: intrinsic loop -> program loop (intrinsic order); ``arrays``: operand ->
    program array; ``remainder``: program loops whose extent is not a known multiple of
    the intrinsic's (an epilogue runs the rest); ``legal``/``reason``: see
    :mod:`.legality`; ``cost``: :func:`.cost.estimate`; ``native``: the ISA alternative
    this host runs (None: portable fallback)."""

    statement: str
    intrinsic: str
    loops: dict[str, str]
    arrays: dict[str, str]
    remainder: list[str] = field(default_factory=list)
    legal: bool = False
    reason: str = ""
    cost: dict = field(default_factory=dict)
    native: tuple[str, ...] | None = None
    init: InitBinding | None = None      # the statement running the intrinsic's init (a band match)

    @property
    def key(self) -> tuple:
        key = (tuple(self.loops.items()), tuple(self.arrays.items()))
        return key if self.init is None else key + (self.init,)

    def to_json(self) -> dict:
        return {"statement": self.statement, "intrinsic": self.intrinsic, "loops": self.loops,
                "arrays": self.arrays, "remainder": self.remainder, "legal": self.legal,
                "reason": self.reason, "cost": self.cost,
                "native": list(self.native) if self.native else None,
                "init": self.init.to_json() if self.init is not None else None}

    def describe(self) -> str:
        loops = ", ".join(f"{a}->{b}" for a, b in self.loops.items())
        arrays = ", ".join(f"{a}->{b}" for a, b in self.arrays.items())
        rem = f"; remainder on {', '.join(self.remainder)}" if self.remainder else ""
        if self.init is not None:
            pairs = [f"{a}->{b}" for a, b in self.init.loops + self.init.arrays if a not in self.arrays]
            rem += f"; init {self.init.statement} ({', '.join(pairs)})"
        path = "+".join(self.native) if self.native else "portable"
        state = (f"legal, gain {self.cost.get('gain')} ({path} path here)" if self.legal
                 else f"illegal: {self.reason}")
        if "numerics" in self.cost:
            state += (f"; not bit-identical ({self.cost['numerics']}): taken only on request "
                      "(--reassociate, or named alone)")
        return f"{self.intrinsic}: loops {loops}; arrays {arrays}{rem}; {state}"


@dataclass
class MatchReport:
    """All matches of one (statement, intrinsic) pair, with search times in seconds."""

    statement: str
    intrinsic: str
    matches: list[Match]
    seconds: float
    unmatchable: str = ""
    why_none: str = ""          # when there is no match: the rule that rules them all out


def match_statement(scop: Scop, stmt: Statement, intrinsics: list[Intrinsic], deps=None,
                    method: str = "sat") -> list[MatchReport]:
    """Every match of each intrinsic in ``stmt``, legal ones first by decreasing gain.
    ``method``: ``"sat"`` or ``"brute"`` (the oracle). ``deps``: ``analyze(scop)``
    (computed when omitted)."""
    intrinsics = as_intrinsics(intrinsics, "match_statement")
    if method not in ("sat", "brute"):        # (helper-92: any other word ran SAT)
        raise ArgumentError(f"match_statement: method must be 'sat' or 'brute', got {method!r}")
    deps = deps if deps is not None else analyze(scop)
    pattern, shape = statement_pattern(scop, stmt), statement_shape(scop, stmt)
    search = sat_matches if method == "sat" else brute_force_matches
    reports = []
    for intrinsic in intrinsics:
        problem = make_problem(scop, stmt, intrinsic, pattern, shape)
        start = time.perf_counter()
        found = structural_matches(problem, search)
        seconds = time.perf_counter() - start
        matches = [_finish(p, s, deps) for s, p in found]
        matches.sort(key=lambda m: (not m.legal, -m.cost.get("gain", 0), m.init is None, str(m.key)))
        why = "" if matches else diagnose(problem)
        reports.append(MatchReport(stmt.name, intrinsic.name, matches, seconds, pattern.error, why))
    return reports


_RELAXED = (
    ("steps", "a loop steps by more than 1 (its values are not consecutive)"),
    ("types", "element types differ"),
    ("extents", "loop extents are smaller than, or not multiples of, the intrinsic's shape"),
    ("stride1", "an operand's unit-stride dimension is not the intrinsic's"),
    ("aliasing", "the output array is also an input"),
)


def diagnose(problem) -> str:
    """Why no structural match exists: the first rule whose relaxation lets SAT find
    one, else the expression or its accesses differ."""
    if problem.pattern.error:
        return problem.pattern.error
    if problem.intrinsic.init is not None and sat_matches(problem):
        return f"no other statement initialises the output as {problem.intrinsic.name}'s init statement does"
    for rule, text in _RELAXED:
        if sat_matches(dataclasses.replace(problem, relax=frozenset([rule]))):
            return text
    return "the expression or its accesses differ"


def match_scop(scop: Scop, intrinsics: list[Intrinsic], method: str = "sat") -> list[MatchReport]:
    """:func:`match_statement` for every statement of ``scop``."""
    intrinsics = as_intrinsics(intrinsics, "match_scop")
    deps = analyze(scop)
    out = []
    for stmt in scop.statements:
        out += match_statement(scop, stmt, intrinsics, deps, method)
    return out


def best_legal_match(scop: Scop, stmt: Statement, intrinsics: list[Intrinsic], deps) -> tuple[Match | None, str]:
    """(the legal match of highest estimated gain among all intrinsics, or None; why the
    first structural match was illegal when none is legal). The same choice as the
    first legal match of :func:`match_statement` over all intrinsics sorted by gain,
    with legality decided in that order only until one is legal (conv2d: 57
    structural matches, one legality test)."""
    pattern, shape = statement_pattern(scop, stmt), statement_shape(scop, stmt)
    ranked = []
    for order, intrinsic in enumerate(intrinsics):
        for structural, problem in structural_matches(make_problem(scop, stmt, intrinsic, pattern, shape)):
            match, loop_map = undecided(problem, structural)
            # of equal gains, a band match first: it also runs the init in its calls
            ranked.append((-match.cost.get("gain", 0), match.init is None, order, str(match.key), match,
                           problem, loop_map))
    ranked.sort(key=lambda item: item[:4])
    reason = ""
    for *_key, match, problem, loop_map in ranked:
        match.legal, match.reason = legality(problem, loop_map, deps)
        if match.legal:
            return match, ""
        reason = reason or match.reason
    return None, reason


def structural_matches(problem, search=sat_matches) -> list[tuple[StructuralMatch, object]]:
    """(structural match, its problem) pairs of ``problem``, by ``search`` (SAT or the
    brute-force oracle). For an intrinsic with an init statement, each match of the main
    statement once per :class:`InitBinding` completing it (``problem.init`` set), and
    none without one."""
    found = search(problem)
    if problem.intrinsic.init is None:
        return [(structural, problem) for structural in found]
    memo: dict = {}
    return [(structural, dataclasses.replace(problem, init=binding)) for structural in found
            for binding in init_bindings(problem, structural, search, memo)]


def undecided(problem, structural: StructuralMatch) -> tuple[Match, list[tuple[int, int]]]:
    """(the :class:`Match` of ``structural`` with its legality not yet decided, its loop
    map as (intrinsic loop, program loop) positions)."""
    intr, prog = problem.intrinsic, problem.pattern
    loop_pairs, array_pairs = structural
    loop_map = [(intr.loops.index(a), prog.loops.index(b)) for a, b in loop_pairs]
    remainder = [prog.loops[p] for l, p in loop_map if problem.needs_remainder(l, p)]
    match = Match(problem.statement.name, intr.name, dict(loop_pairs), dict(array_pairs), remainder,
                  False, "not decided", estimate(problem, loop_map), native_path(intr), problem.init)
    return match, loop_map


def _finish(problem, structural: StructuralMatch, deps) -> Match:
    match, loop_map = undecided(problem, structural)
    match.legal, match.reason = legality(problem, loop_map, deps)
    return match
