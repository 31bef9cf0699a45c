"""Random programs under random affine schedules: ``check``'s verdict, witnesses and
band properties against brute force over the program's own Python execution (no
isl). Soundness both ways: a legal verdict must order every dependence found at small
sizes; an illegal one must come with a witness that really is a dependence (at the
witness's parameter values) which the Python twin of the schedule does not order.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_model import brute_force, in_context
from oracle_programs import programs
from polysched.dependence import analyze, check

EXAMPLES = max(20, int(os.environ.get("POLYSCHED_ORACLE_EXAMPLES", "300")) // 3)
SIZES = ({"N": 3, "M": 2}, {"N": 4, "M": 3})


@st.composite
def schedules(draw, program):
    """Per statement, ``depth`` affine dimensions over its iterators (coefficients in
    -1..2, constants 0..1), then its textual index. Returns the isl text and a Python
    function ``(stmt, instance) -> time``."""
    depth = max(len(s.iterators) for s in program.statements)
    # Half the schedules start from the loop order (often legal) and skew it.
    near_identity = draw(st.booleans())
    table = {}
    for stmt in program.statements:
        rows = []
        for k in range(depth):
            if near_identity:
                coeffs = tuple(int(p == k) for p in range(len(stmt.iterators)))
                if rows and draw(st.booleans()):
                    skew = draw(st.sampled_from((1, -1)))
                    coeffs = tuple(c + skew * o for c, o in zip(coeffs, rows[-1][0]))
                rows.append((coeffs, 0))
            else:
                coeffs = tuple(draw(st.sampled_from((0, 1, 1, -1, 2))) for _ in stmt.iterators)
                rows.append((coeffs, draw(st.integers(0, 1))))
        table[stmt.name] = rows
    index = {s.name: k for k, s in enumerate(program.statements)}

    def time_of(name, x):
        return tuple(sum(c * v for c, v in zip(coeffs, x)) + const
                     for coeffs, const in table[name]) + (index[name],)

    parts = []
    for stmt in program.statements:
        its = stmt.iterators
        dims = [" + ".join([f"{c}*{v}" for c, v in zip(coeffs, its) if c] + [str(const)])
                for coeffs, const in table[stmt.name]] + [str(index[stmt.name])]
        parts.append(f"{stmt.name}[{', '.join(its)}] -> [{', '.join(dims)}]")
    text = f"[{', '.join(program.params)}] -> {{ {'; '.join(parts)} }}"
    return text, time_of


def _ordered(a, b):
    return a < b


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_schedules(data):
    from polysched.scop import extract

    program = data.draw(programs())
    text, time_of = data.draw(schedules(program))
    (scop,) = extract(program.to_c(), filename="random.c")
    deps = analyze(scop)
    result = check(scop, deps, text)
    # (outside scop.context the code never runs the schedule: a negative inner subscript
    # there, A[0][k - 1] at k = 0, runs the original)
    sizes = [full for full in SIZES if in_context(scop, {p: full[p] for p in program.params})]
    if result.legal:
        for full in sizes:
            found = brute_force(program.trace({p: full[p] for p in program.params}))
            for kind in ("raw", "war", "waw"):
                for src, dst in found[kind]:
                    assert time_of(*src) < time_of(*dst), (kind, src, dst, text, program.to_c())
    else:
        for v in result.violations:
            w = v.witness
            found = brute_force(program.trace({p: w.parameters[p] for p in program.params}))
            assert (w.source, w.sink) in found[v.kind], (v.kind, str(w), text, program.to_c())
            assert time_of(*w.source) >= time_of(*w.sink), (str(w), text)
            assert tuple(w.source_time) == time_of(*w.source)
    # The map is checked as one band: its parallel and permutable flags must hold on
    # every dependence pair found by brute force.
    if scop.domain.intersect_params(scop.context).is_empty():       # nothing to schedule: no band
        assert result.legal and not result.bands
        return
    (band,) = result.bands
    for full in sizes:
        found = brute_force(program.trace({p: full[p] for p in program.params}))
        pairs = found["raw"] | found["war"] | found["waw"]
        for src, dst in pairs:
            a, b = time_of(*src), time_of(*dst)
            for k in range(band.n_member):
                if band.parallel[k] and a[:k] == b[:k]:
                    assert a[k] == b[k], (k, src, dst, text, program.to_c())
            if band.permutable:
                assert all(y >= x for x, y in zip(a, b)), (src, dst, text)
