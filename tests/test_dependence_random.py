"""Random affine loop nests (hypothesis): the dependences of ``analyze`` must equal,
instance pair for instance pair, those of a brute-force execution of the program's
Python structure (tests/oracle_programs.py), which involves no isl at all.

Each example is checked twice: through the C front end (``extract`` of the generated
C text: end to end) and through a Scop built directly from the structure (the
analysis alone). ``POLYSCHED_ORACLE_EXAMPLES`` sets the number of examples (default
300).
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from oracle_model import brute_force, in_context, relation_pairs
from oracle_programs import programs
from polysched.dependence import KINDS, analyze

EXAMPLES = int(os.environ.get("POLYSCHED_ORACLE_EXAMPLES", "300"))
SIZES = ({"N": 3, "M": 2}, {"N": 5, "M": 4})
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


def _rename(pairs, names):
    """Map the front end's statement names onto the generator's (textual order)."""
    return {((names[s], si), (names[t], ti)) for (s, si), (t, ti) in pairs}


def _compare(program, scop, names):
    deps = analyze(scop)
    for full in SIZES:
        values = {p: full[p] for p in program.params}
        if not in_context(scop, values):
            # the optimized code never runs there (e.g. a negative inner subscript,
            # A[0][k - 1] at k = 0, undefined in C: the original runs)
            continue
        expected = brute_force(program.trace(values))
        for kind in KINDS:
            got = _rename(relation_pairs(deps.relation(kind), values), names)
            assert got == expected[kind], (
                f"{kind} at {values}: analysis has {sorted(got - expected[kind])[:5]} extra, "
                f"misses {sorted(expected[kind] - got)[:5]}\n{program.to_c()}")
    # No instance depends on itself (a read and a write of one instance are ordered
    # by the statement's semantics, not by the schedule).
    assert deps.validity.intersect(scop.domain.identity()).is_empty()
    for kind in KINDS:       # the per-pair views must be computable for every shape
        for rec in deps.pairs(kind):
            assert len(rec.direction) == rec.common_loops
    return deps


@SETTINGS
@given(programs())
def test_random_programs_model(program):
    scop = program.to_scop()
    _compare(program, scop, {s.name: s.name for s in scop.statements})


@SETTINGS
@given(programs())
def test_random_programs_extract(program):
    from polysched.scop import extract

    scops = extract(program.to_c(), filename="random.c")
    assert len(scops) == 1
    scop = scops[0]
    assert [s.iterators for s in scop.statements] == [s.iterators for s in program.statements]
    names = {s.name: p.name for s, p in zip(scop.statements, program.statements, strict=True)}
    _compare(program, scop, names)


def test_generator_produces_dependences():
    """Guard against a degenerate generator: most programs must have dependences."""
    seen = {"flow": 0, "war": 0, "waw": 0}
    count = [0]

    @settings(max_examples=100, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def run(program):
        count[0] += 1
        deps = brute_force(program.trace({"N": 4, "M": 3}))
        for kind in seen:
            seen[kind] += bool(deps[kind])

    run()
    assert all(v >= count[0] // 5 for v in seen.values()), (seen, count)
