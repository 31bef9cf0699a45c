"""Random affine programs (tests/oracle_programs.py) through extract -> analyze ->
compute: every schedule must order every dependence that a brute-force execution of the
program (pure Python, no isl) finds at small sizes, and its band flags must pass
check()'s analysis."""
from __future__ import annotations

import os

import islpy as isl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_schedule_support as K
from oracle_model import brute_force, in_context
from oracle_programs import programs
from polysched.dependence import analyze
from polysched.schedule import ScheduleError, ScheduleOptions, compute

EXAMPLES = max(15, int(os.environ.get("POLYSCHED_ORACLE_EXAMPLES", "300")) // 10)
SIZES = ({"N": 3, "M": 2}, {"N": 4, "M": 3})


def _time_of(schedule: isl.Schedule, params: dict[str, int]):
    smap = schedule.get_map()
    cache = {}

    def time_of(name, x):
        key = (name, tuple(x))
        if key not in cache:
            names = ", ".join(params)
            fixed = " and ".join(f"{p} = {v}" for p, v in params.items())
            point = isl.UnionSet(f"[{names}] -> {{ {name}[{', '.join(map(str, x))}] : {fixed} }}")
            image = smap.intersect_domain(point).range()
            sets = []
            image.foreach_set(sets.append)
            (s,) = sets
            p = s.sample_point()
            cache[key] = tuple(p.get_coordinate_val(isl.dim_type.set, k).to_python()
                               for k in range(s.dim(isl.dim_type.set)))
        return cache[key]

    return time_of


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_programs_get_legal_schedules(data):
    from polysched.scop import extract

    program = data.draw(programs())
    fuse = data.draw(st.sampled_from(["cost", "smart", "max", "no"]))
    scheduler = data.draw(st.sampled_from(["pluto", "pluto", "isl"]))
    (scop,) = extract(program.to_c(), filename="random.c")
    deps = analyze(scop)
    try:
        sched = compute(scop, deps, ScheduleOptions(scheduler=scheduler, fuse=fuse))
    except ScheduleError:
        sched = compute(scop, deps, ScheduleOptions(scheduler=scheduler, fuse=fuse,
                                                    negative_coefficients=True))
    if scop.domain.is_empty():
        return
    K.assert_legal(scop, deps, sched)
    for full in SIZES:
        values = {p: full[p] for p in program.params}
        if not in_context(scop, values):
            continue        # the schedule is never run there (the run-time check runs the original)
        time_of = _time_of(sched, {p: values[p] for p in scop.parameters})
        found = brute_force(program.trace(values))
        for kind in ("raw", "war", "waw"):
            for src, dst in found[kind]:
                assert time_of(*src) < time_of(*dst), (kind, src, dst, str(sched), program.to_c())


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_needs_reversal_is_sound_and_sees_what_execution_sees(data):
    """`pluto.needs_reversal` lets `compute` skip the search without negative
    coefficients. Checked both ways on random programs: where it names a statement,
    that search really fails (ScheduleError); where a brute-force run of the program
    finds a self-dependence whose distance has no positive entry, it names one."""
    from polysched.schedule.pluto import needs_reversal, pluto_schedule
    from polysched.scop import extract

    program = data.draw(programs())
    (scop,) = extract(program.to_c(), filename="random.c")
    deps = analyze(scop)
    named = needs_reversal(deps.validity, scop.context)
    witness = None
    for full in SIZES:
        values = {p: full[p] for p in program.params}
        if not in_context(scop, values):
            continue        # never scheduled there (the run-time check runs the original)
        found = brute_force(program.trace(values))
        for kind in ("raw", "war", "waw"):
            for (src, x), (dst, y) in found[kind]:
                d = [b - a for a, b in zip(x, y)]
                if src == dst and any(d) and all(v <= 0 for v in d):
                    witness = (kind, src, x, y)
    if witness is not None:
        assert named is not None, (witness, program.to_c())
    if named is not None:
        with pytest.raises(ScheduleError):
            pluto_schedule(scop.domain, scop.context, deps.validity, deps.proximity,
                           ScheduleOptions(negative_coefficients=False), budget=None)
