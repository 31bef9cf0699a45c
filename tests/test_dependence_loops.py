"""``polysched.dependence.loops`` (and the scalar rules of ``dependence.scalars``)
against brute force on small concrete programs.

Every program has literal loop bounds, so its instances can be enumerated. The oracle
executes the instances in program order (``oracle_model.model_trace``: instances and
addresses read off the model at the fixed size, no isl dataflow) and collects every
memory dependence (raw, war, waw) as a pair of instances. A schedule is given as
integer coefficients per statement (``[(c_i, c_j, const), ...]``, one tuple per row),
turned both into isl text for the questions and into a Python function for the oracle:
a loop (row ``k``, inside the rows ``outer``) carries the instance pairs with equal
outer values and different values of row ``k``.
"""
from __future__ import annotations

import itertools

import islpy as isl
import pytest

from oracle_model import brute_force, model_trace, relation_pairs
from polysched.dependence import (ScopAccesses, analyze, band_flags, carried, check, classify_scalars,
                                  is_forward, is_parallel, is_permutable, live, mupa_rows,
                                  node_band_flags, private_reason, reduction_of, rows, same_value)
from polysched.scop import extract

# -- programs ---------------------------------------------------------------------------

PROGRAMS = {
    # distances (1, 0) and (0, 1): no loop parallel as written, permutable
    "stencil": """
double A[8][8];
void f(void) {
#pragma scop
  for (int i = 1; i < 6; i++)
    for (int j = 1; j < 6; j++)
      A[i][j] = A[i - 1][j] + A[i][j - 1];
#pragma endscop
}
""",
    # distance (1, -1): j parallel inside i, not permutable, interchange illegal
    "anti_diagonal": """
double A[8][8];
void f(void) {
#pragma scop
  for (int i = 1; i < 6; i++)
    for (int j = 0; j < 5; j++)
      A[i][j] = A[i - 1][j + 1] * 0.5;
#pragma endscop
}
""",
    # distance (0, 1): i parallel, j carries
    "row_scan": """
double A[8][8], B[8][8];
void f(void) {
#pragma scop
  for (int i = 0; i < 5; i++)
    for (int j = 1; j < 6; j++)
      A[i][j] = A[i][j - 1] + B[i][j];
#pragma endscop
}
""",
    # two statements, triangular domain: S0 (B) feeds S1 one column later
    "two_statements": """
double A[8][8], B[8][8];
void f(void) {
#pragma scop
  for (int i = 0; i < 5; i++)
    for (int j = 0; j <= i; j++) {
      B[i][j] = A[i][j] + 1.0;
      A[i][j + 1] = B[i][j] * 2.0;
    }
#pragma endscop
}
""",
    # a scalar accumulated over both loops: every loop carries it
    "reduction": """
double A[8][8];
double s;
void f(void) {
#pragma scop
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      s += A[i][j];
#pragma endscop
}
""",
}

# schedules: statement position -> rows of (c_i, c_j, const); one band of all rows
IDENTITY = [(1, 0, 0), (0, 1, 0)]
INTERCHANGE = [(0, 1, 0), (1, 0, 0)]
SKEW = [(1, 0, 0), (1, 1, 0)]           # (i, i + j)
WAVEFRONT = [(1, 1, 0), (0, 1, 0)]      # (i + j, j)
REVERSED_INNER = [(1, 0, 0), (0, -1, 0)]
SCHEDULES = {"identity": IDENTITY, "interchange": INTERCHANGE, "skew": SKEW,
             "wavefront": WAVEFRONT, "reversed_inner": REVERSED_INNER}


class Case:
    """One program under one schedule: the isl questions' inputs and the oracle's."""

    def __init__(self, program: str, schedule: str):
        self.scop = extract(PROGRAMS[program])[0]
        self.deps = analyze(self.scop)
        rows_ = SCHEDULES[schedule]
        names = [s.name for s in self.scop.statements]
        # several statements: the textual position as a last row keeps the schedule 1-1
        self.table = {name: [tuple(r) for r in rows_] + ([(0, 0, pos)] if len(names) > 1 else [])
                      for pos, name in enumerate(names)}
        self.n = len(next(iter(self.table.values())))
        trace = model_trace(self.scop, {})
        found = brute_force(trace)
        self.pairs = found["raw"] | found["war"] | found["waw"]
        self.instances = [inst for inst, _, _ in trace]

    def time(self, inst) -> tuple[int, ...]:
        name, (i, j) = inst
        return tuple(ci * i + cj * j + c for ci, cj, c in self.table[name])

    def row(self, k: int) -> isl.UnionMap:
        """``{ S[i, j] -> [row k] }`` on the domain, as isl."""
        parts = []
        for stmt in self.scop.statements:
            ci, cj, c = self.table[stmt.name][k]
            i, j = stmt.iterators
            expr = " ".join(f"{'-' if v < 0 else '+'} {abs(v)}{name}"
                            for v, name in ((ci, f"*{i}"), (cj, f"*{j}"), (c, "")) if v)
            parts.append(f"{stmt.name}[{i}, {j}] -> [0 {expr}]")
        return isl.UnionMap("{ " + "; ".join(parts) + " }").intersect_domain(self.scop.domain)

    def band(self) -> isl.MultiUnionPwAff:
        return isl.MultiUnionPwAff.from_union_map(rows(*(self.row(k) for k in range(self.n))))

    def tree(self) -> isl.Schedule:
        return isl.Schedule.from_domain(self.scop.domain).insert_partial_schedule(self.band())

    # -- the oracle --------------------------------------------------------------------
    def carried_pairs(self, outer: list[int], k: int) -> set:
        return {(s, t) for s, t in self.pairs
                if all(self.time(s)[o] == self.time(t)[o] for o in outer)
                and self.time(s)[k] < self.time(t)[k]}

    def oracle_parallel(self, outer: list[int], k: int) -> bool:
        return all(self.time(s)[k] == self.time(t)[k] for s, t in self.pairs
                   if all(self.time(s)[o] == self.time(t)[o] for o in outer))

    def oracle_forward(self, outer: list[int], k: int) -> bool:
        return all(self.time(s)[k] <= self.time(t)[k] for s, t in self.pairs
                   if all(self.time(s)[o] == self.time(t)[o] for o in outer))

    def oracle_legal(self) -> bool:
        return all(self.time(s) < self.time(t) for s, t in self.pairs)

    def outer_rows(self, outer: list[int]) -> isl.UnionMap | None:
        return rows(*(self.row(o) for o in outer)) if outer else None


CASES = list(itertools.product(PROGRAMS, SCHEDULES))


@pytest.fixture(scope="module")
def cases():
    return {(p, s): Case(p, s) for p, s in CASES}


def _outer_choices(n: int, k: int) -> list[list[int]]:
    """Every subset of the other rows as the loops around row ``k``."""
    others = [o for o in range(n) if o != k]
    return [list(c) for r in range(len(others) + 1) for c in itertools.combinations(others, r)]


# -- the questions against the oracle ------------------------------------------------------

@pytest.mark.parametrize("program,schedule", CASES)
def test_is_parallel_and_is_forward_match_brute_force(cases, program, schedule):
    case = cases[program, schedule]
    validity = case.deps.validity
    assert relation_pairs(validity, {}) == case.pairs      # the same dependences
    for k in range(case.n):
        for outer in _outer_choices(case.n, k):
            around = case.outer_rows(outer)
            assert is_parallel(validity, around, case.row(k)) == case.oracle_parallel(outer, k), \
                (outer, k)
            assert is_forward(validity, around, case.row(k)) == case.oracle_forward(outer, k), \
                (outer, k)


@pytest.mark.parametrize("program,schedule", CASES)
def test_a_member_of_several_rows_is_compared_lexicographically(cases, program, schedule):
    case = cases[program, schedule]
    whole = case.outer_rows(list(range(case.n)))
    assert is_forward(case.deps.validity, None, whole) == \
        all(case.time(s) <= case.time(t) for s, t in case.pairs)
    assert is_parallel(case.deps.validity, None, whole) == \
        all(case.time(s) == case.time(t) for s, t in case.pairs)


@pytest.mark.parametrize("program,schedule", CASES)
def test_carried_and_live_are_the_brute_force_pairs(cases, program, schedule):
    case = cases[program, schedule]
    validity = case.deps.validity
    for k in range(case.n):
        for outer in _outer_choices(case.n, k):
            got = relation_pairs(carried(validity, case.outer_rows(outer), case.row(k)), {})
            assert got == case.carried_pairs(outer, k), (outer, k)
    # live at all rows: the pairs no row orders (none for a one-to-one schedule)
    everything = case.outer_rows(list(range(case.n)))
    assert relation_pairs(live(validity, everything), {}) == \
        {(s, t) for s, t in case.pairs if case.time(s) == case.time(t)}


@pytest.mark.parametrize("program,schedule", CASES)
def test_band_flags_match_brute_force(cases, program, schedule):
    case = cases[program, schedule]
    flags = band_flags(case.deps.validity, None, case.band())
    assert flags.parallel == [case.oracle_parallel(list(range(k)), k) for k in range(case.n)]
    assert flags.permutable == all(case.oracle_forward([], k) for k in range(case.n))
    assert is_permutable(case.deps.validity, None, case.band()) == flags.permutable
    # the flags are the single-loop questions put together
    members = [mupa_rows(case.band(), [k]) for k in range(case.n)]
    assert flags.parallel == [is_parallel(case.deps.validity, rows(*members[:k]) if k else None,
                                          members[k]) for k in range(case.n)]


@pytest.mark.parametrize("program,schedule", CASES)
def test_check_reports_the_band_flags(cases, program, schedule):
    """``check`` (its ``BandInfo``) answers through ``band_flags``: same answer as the
    oracle, legal exactly when the oracle orders every dependence pair."""
    case = cases[program, schedule]
    result = check(case.scop, case.deps, case.tree())
    assert result.legal == case.oracle_legal()
    [band] = result.bands
    assert band.parallel == [case.oracle_parallel(list(range(k)), k) for k in range(case.n)]
    assert band.permutable == all(case.oracle_forward([], k) for k in range(case.n))
    assert tuple(node_band_flags(case.deps.validity, case.tree().get_root().child(0))) == \
        (band.parallel, band.permutable)


def test_band_below_outer_rows(cases):
    """A band under a split-off outer row: only the dependences that row leaves live."""
    case = cases["anti_diagonal", "identity"]
    inner = isl.MultiUnionPwAff.from_union_map(case.row(1))
    flags = band_flags(case.deps.validity, case.row(0), inner)
    assert flags == ([case.oracle_parallel([0], 1)], case.oracle_forward([0], 1))
    assert flags == ([True], True)
    tree = isl.Schedule.from_domain(case.scop.domain) \
        .insert_partial_schedule(inner).insert_partial_schedule(
            isl.MultiUnionPwAff.from_union_map(case.row(0)))
    bands = check(case.scop, case.deps, tree).bands
    assert [(b.parallel, b.permutable) for b in bands] == [([False], True), ([True], True)]


def test_the_oracle_sees_both_answers(cases):
    """Not vacuous: across the cases, loops both carry and do not carry dependences,
    bands are and are not permutable, schedules are and are not legal."""
    parallel = {case.oracle_parallel(list(range(k)), k)
                for case in cases.values() for k in range(case.n)}
    permutable = {all(case.oracle_forward([], k) for k in range(case.n)) for case in cases.values()}
    legal = {case.oracle_legal() for case in cases.values()}
    assert parallel == permutable == legal == {True, False}
    # the examples the programs were written for
    assert cases["anti_diagonal", "identity"].oracle_parallel([0], 1)
    assert not all(cases["anti_diagonal", "identity"].oracle_forward([], k) for k in range(2))
    assert all(cases["anti_diagonal", "skew"].oracle_forward([], k) for k in range(2))
    assert not cases["stencil", "identity"].oracle_parallel([], 0)
    assert cases["stencil", "wavefront"].oracle_parallel([0], 1)
    # lexicographically forward, though its inner row goes backwards
    case = cases["anti_diagonal", "identity"]
    assert all(case.time(s) < case.time(t) for s, t in case.pairs)
    assert not case.oracle_forward([], 1)


# -- scalars ------------------------------------------------------------------------------

SCALAR_PROGRAMS = {
    # t written then read in each iteration of i: private
    "private": ("""
double A[8], B[8];
void f(void) {
  double t;
#pragma scop
  for (int i = 0; i < 6; i++) {
    t = A[i] * 2.0;
    B[i] = t + 1.0;
  }
#pragma endscop
}
""", "t"),
    # t read before it is written: the value of the previous iteration
    "carried": ("""
double A[8], B[8];
void f(void) {
  double t;
#pragma scop
  for (int i = 0; i < 6; i++) {
    B[i] = t;
    t = A[i];
  }
#pragma endscop
}
""", "t"),
    # the value of the last iteration is read after the loop
    "read_after": ("""
double A[8], B[8];
void f(void) {
  double t;
#pragma scop
  for (int i = 0; i < 6; i++) {
    t = A[i];
    B[i] = t;
  }
  A[7] = t;
#pragma endscop
}
""", "t"),
    # an integer sum: a reduction
    "sum": ("""
int A[8];
void f(void) {
  int s;
#pragma scop
  for (int i = 0; i < 6; i++)
    s += A[i];
#pragma endscop
}
""", "s"),
}


def _scalar_oracle(scop, name: str, loop_stmts: set[str]) -> bool:
    """Privatisable by brute force: executing in program order, every read of ``name``
    by a statement of the loop sees a write of the same iteration, and no read outside
    the loop sees a write made in it."""
    last = None
    for inst, reads, writes in model_trace(scop, {}):
        in_loop = inst[0] in loop_stmts
        if any(a == name for a, _ in reads):
            if in_loop and (last is None or last[1][0] != inst[1][0]):
                return False
            if not in_loop and last is not None and last[0] in loop_stmts:
                return False
        if any(address[0] == name for _, address in writes):
            last = inst
    return True


@pytest.mark.parametrize("program", SCALAR_PROGRAMS)
def test_private_reason_matches_brute_force(program):
    text, name = SCALAR_PROGRAMS[program]
    scop = extract(text)[0]
    accesses = ScopAccesses(scop)
    loop_stmts = {s.name for s in scop.statements if s.iterators}
    domain = isl.UnionSet.empty(scop.domain.get_space())
    for stmt in scop.statements:
        if stmt.name in loop_stmts:
            domain = domain.union(isl.UnionSet.from_set(stmt.domain))
    iteration = isl.UnionMap("{ " + "; ".join(f"{s.name}[i] -> [i]" for s in scop.statements
                                              if s.name in loop_stmts) + " }")
    reason = private_reason(scop, accesses, name, domain, same_value(iteration))
    assert (reason is None) == _scalar_oracle(scop, name, loop_stmts), reason
    verdict = classify_scalars(scop, accesses, domain, iteration)
    op = reduction_of(scop, accesses, name, domain)
    if program == "sum":
        # a signed int sum: a reduction (emit_c computes it in an unsigned copy)
        assert reason is not None and op == "+"
        assert verdict.ok and verdict.reductions == [("s", "+")] and not verdict.reassociated
    elif program == "private":
        assert verdict.ok and verdict.private == ["t"]
    else:
        assert op is None and not verdict.ok and "t" in verdict.blocking


def test_a_reduction_on_a_type_not_known_as_integer_says_so():
    """helper-57: '__int128 s; s += a[i]' stayed sequential, rightly (polysched does not
    know it as an integer), but the reason said "floating-point reduction"."""
    text = ("__int128 s; long a[100]; double d;\nvoid f(void) {\n  int i;\n#pragma scop\n"
            "  for (i = 0; i < 100; i++) {\n    s += a[i];\n    d += a[i];\n  }\n#pragma endscop\n}\n")
    scop = extract(text)[0]
    domain = scop.domain
    iteration = isl.UnionMap("{ " + "; ".join(f"{st.name}[i] -> [i]" for st in scop.statements) + " }")
    verdict = classify_scalars(scop, ScopAccesses(scop), domain, iteration)
    assert verdict.blocking["s"] == ("'__int128' (not known to be an integer type) reduction "
                                     "(parallel only with --reassociate)")
    assert verdict.blocking["d"] == "floating-point reduction (parallel only with --reassociate)"


def test_an_inexact_selection_says_why_it_is_no_reduction():
    """helper-58: a floating-point min-selection blocked with the generic "read before
    written in an iteration"; a char selection of int values converts on assignment. An
    int one is a reduction. With ``reassociate`` (True, or g's name) the floating-point
    one is a reduction too: which of 0.0 and -0.0, or of a NaN and a number, it keeps
    depends on the order, which is what reassociating accepts (before, it blocked)."""
    text = ("double g, A[100]; char c; int m, B[100];\nvoid f(void) {\n  int i;\n#pragma scop\n"
            "  for (i = 0; i < 100; i++) {\n    g = g < A[i] ? g : A[i];\n    c = c > B[i] ? c : B[i];\n"
            "    m = m > B[i] ? m : B[i];\n  }\n#pragma endscop\n}\n")
    scop = extract(text)[0]
    iteration = isl.UnionMap("{ " + "; ".join(f"{st.name}[i] -> [i]" for st in scop.statements) + " }")
    for reassociate in (False, True, ("g",), ("c",)):
        verdict = classify_scalars(scop, ScopAccesses(scop), scop.domain, iteration, reassociate=reassociate)
        assert verdict.blocking["c"] == "a max/min selection of values converted on assignment " \
                                        "(not the same in any order)"
        if reassociate in (True, ("g",)):
            assert "g" not in verdict.blocking and verdict.reassociated == ["g"]
            assert sorted(verdict.reductions) == [("g", "min"), ("m", "max")]
        else:
            assert verdict.blocking["g"] == ("a floating-point max/min selection (which of equal values, 0.0 "
                                             "or -0.0, or a NaN it keeps depends on the order; parallel only "
                                             "with --reassociate)")
            assert verdict.reductions == [("m", "max")]
