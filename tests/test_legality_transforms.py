"""Known legal and illegal transformations get the expected verdict, and every
witness of an illegal one is confirmed by brute force: the witness pair really is a
dependence (enumerated by executing the instances in original order) and the new
times, evaluated by a Python twin of the schedule, do not order it."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from oracle_model import brute_force, make_scop, model_trace
from polysched.dependence import ScheduleError, analyze, check

KERNELS = Path(__file__).parent.parent / "polysched" / "bench" / "kernels"

DIAGONAL = """
void diagonal(int N, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 0; j < N - 1; j++)
      A[i][j] = A[i - 1][j + 1] + 1.0;
#pragma endscop
}
"""


def _scop(source):
    from polysched.scop import extract
    (scop,) = extract(source)
    return scop


def _pad(t, n):
    return tuple(t) + (0,) * (n - len(t))


def confirm(scop, result, time_of):
    """Every violation's witness is a brute-force dependence that ``time_of`` (a
    Python function ``(stmt, instance) -> time``) does not order."""
    assert result.violations
    for v in result.violations:
        w = v.witness
        values = {p: w.parameters[p] for p in scop.parameters if p in w.parameters}
        deps = brute_force(model_trace(scop, values))
        assert (w.source, w.sink) in deps[v.kind], (v.kind, str(w))
        src, dst = time_of(*w.source), time_of(*w.sink)
        n = max(len(src), len(dst), len(w.source_time))
        assert _pad(w.source_time, n) == _pad(src, n) and _pad(w.sink_time, n) == _pad(dst, n)
        assert _pad(src, n) >= _pad(dst, n)


def no_violation_at(scop, values, time_of):
    """Brute force at ``values``: every validity pair is ordered by ``time_of``."""
    deps = brute_force(model_trace(scop, values))
    for kind in ("raw", "war", "waw"):
        for src, dst in deps[kind]:
            a, b = time_of(*src), time_of(*dst)
            n = max(len(a), len(b))
            assert _pad(a, n) < _pad(b, n), (kind, src, dst)


def test_diagonal_dependence_vector():
    scop = _scop(DIAGONAL)
    deps = analyze(scop)
    (flow,) = deps.pairs("flow")
    assert flow.distance == (1, -1) and flow.levels == [1]


def test_interchange_of_loop_carrying_1_minus_1_is_illegal():
    scop = _scop(DIAGONAL)
    deps = analyze(scop)
    result = check(scop, deps, "[N] -> { S0[i, j] -> [j, i] }")
    assert not result.legal
    assert {v.kind for v in result.violations} == {"raw"}   # only flow/RAW here
    confirm(scop, result, lambda s, x: (x[1], x[0]))


def test_original_and_skewed_interchange_are_legal():
    scop = _scop(DIAGONAL)
    deps = analyze(scop)
    assert check(scop, deps, scop.schedule).legal
    # Skew j by i, then interchange: (i + j, i) orders the (1, -1) dependence by i.
    time_of = lambda s, x: (x[0] + x[1], x[0])
    result = check(scop, deps, "[N] -> { S0[i, j] -> [i + j, i] }")
    assert result.legal
    no_violation_at(scop, {"N": 5}, time_of)
    # Outer i carries the dependence; inner j is parallel.
    (band,) = check(scop, deps, "[N] -> { S0[i, j] -> [i, j] }").bands
    assert band.parallel == [False, True]
    assert not band.permutable          # (1, -1): j's difference is negative


def test_reversal_of_time_loop_is_illegal():
    scop = _scop(KERNELS / "jacobi-1d.c")
    deps = analyze(scop)
    sched = "[tsteps, n] -> { S0[t, i] -> [-t, 0, i]; S1[t, i] -> [-t, 1, i] }"
    result = check(scop, deps, sched)
    assert not result.legal
    confirm(scop, result, lambda s, x: (-x[0], int(s == "S1"), x[1]))


def test_reversal_of_parallel_loop_is_legal():
    scop = _scop(KERNELS / "jacobi-1d.c")
    deps = analyze(scop)
    sched = "[tsteps, n] -> { S0[t, i] -> [t, 0, -i]; S1[t, i] -> [t, 1, -i] }"
    assert check(scop, deps, sched).legal
    no_violation_at(scop, {"tsteps": 3, "n": 6}, lambda s, x: (x[0], int(s == "S1"), -x[1]))


def test_fusing_jacobi_1d_without_shift_is_illegal_with_shift_legal():
    scop = _scop(KERNELS / "jacobi-1d.c")
    deps = analyze(scop)
    fused = "[tsteps, n] -> { S0[t, i] -> [t, i, 0]; S1[t, i] -> [t, i, 1] }"
    result = check(scop, deps, fused)
    assert not result.legal
    confirm(scop, result, lambda s, x: (x[0], x[1], int(s == "S1")))
    shifted = "[tsteps, n] -> { S0[t, i] -> [t, i, 0]; S1[t, i] -> [t, i + 1, 1] }"
    assert check(scop, deps, shifted).legal
    no_violation_at(scop, {"tsteps": 3, "n": 7},
                    lambda s, x: (x[0], x[1] + (s == "S1"), int(s == "S1")))


def test_skewing_makes_seidel_tilable():
    scop = _scop(KERNELS / "seidel-2d.c")
    deps = analyze(scop)
    dom = str(scop.domain)
    plain = ('{ domain: "%s", child: { schedule: "[{ S0[t, i, j] -> [(t)] }, '
             '{ S0[t, i, j] -> [(i)] }, { S0[t, i, j] -> [(j)] }]" } }' % dom)
    skewed = ('{ domain: "%s", child: { schedule: "[{ S0[t, i, j] -> [(t)] }, '
              '{ S0[t, i, j] -> [(t + i)] }, { S0[t, i, j] -> [(2t + i + j)] }]", '
              'permutable: 1 } }' % dom)
    (band,) = check(scop, deps, plain).bands
    assert not band.permutable and band.parallel == [False, False, False]
    result = check(scop, deps, skewed)
    assert result.legal
    (band,) = result.bands
    assert band.permutable and not band.mismatches
    no_violation_at(scop, {"TSTEPS": 3, "N": 5},
                    lambda s, x: (x[0], x[0] + x[1], 2 * x[0] + x[1] + x[2]))


def test_jacobi_2d_skew_permutable_and_inner_parallel():
    scop = _scop(KERNELS / "jacobi-2d.c")
    deps = analyze(scop)
    # Band (t, 2t + i, 2t + j) with S1 shifted by one, then S0 before S1: Pluto's
    # tilable schedule.
    sched = ('{ domain: "%s", child: { schedule: "[TSTEPS, N] -> ['
             '{ S0[t, i, j] -> [(t)]; S1[t, i, j] -> [(t)] }, '
             '{ S0[t, i, j] -> [(2t + i)]; S1[t, i, j] -> [(2t + i + 1)] }, '
             '{ S0[t, i, j] -> [(2t + j)]; S1[t, i, j] -> [(2t + j + 1)] }]", '
             'child: { sequence: [ { filter: "{ S0[t, i, j] }" }, '
             '{ filter: "{ S1[t, i, j] }" } ] } } }' % scop.domain)
    result = check(scop, deps, sched)
    assert result.legal
    (band,) = result.bands
    assert band.n_member == 3 and band.permutable
    assert band.parallel == [False, False, False]
    no_violation_at(scop, {"TSTEPS": 3, "N": 6}, lambda s, x: (
        x[0], 2 * x[0] + x[1] + (s == "S1"), 2 * x[0] + x[2] + (s == "S1"), int(s == "S1")))
    # The same times as one flat map: the 4th (statement) dimension carries nothing
    # left over by the first three, but the 4-member band is not permutable.
    flat = ("[TSTEPS, N] -> { S0[t, i, j] -> [t, 2t + i, 2t + j, 0]; "
            "S1[t, i, j] -> [t, 2t + i + 1, 2t + j + 1, 1] }")
    (band,) = check(scop, deps, flat).bands
    assert band.parallel == [False, False, False, True] and not band.permutable
    # Without the skew the fused (t, i, j) band is illegal.
    result = check(scop, deps, "[TSTEPS, N] -> { S0[t, i, j] -> [t, i, j, 0]; "
                               "S1[t, i, j] -> [t, i, j, 1] }")
    assert not result.legal
    confirm(scop, result, lambda s, x: (x[0], x[1], x[2], int(s == "S1")))


def test_gemm_bands_parallel_and_permutable():
    scop = _scop(KERNELS / "gemm.c")
    deps = analyze(scop)
    result = check(scop, deps, scop.schedule)
    assert result.legal
    # One 4-member band (i, statement, k, j): i carries nothing, the statement
    # dimension carries S0 -> S1, k carries the reduction, j is left with nothing.
    flat = "[NI, NJ, NK] -> { S0[i, j] -> [i, 0, 0, j]; S1[i, k, j] -> [i, 1, k, j] }"
    result = check(scop, deps, flat)
    assert result.legal
    (band,) = result.bands
    assert band.parallel == [True, False, False, True]
    assert band.permutable
    # i, j, k interchange of S1 keeping S0 first: legal.
    sched = ("[NI, NJ, NK] -> { S0[i, j] -> [0, i, j, 0]; S1[i, k, j] -> [1, i, j, k] }")
    assert check(scop, deps, sched).legal
    # S1 before S0: illegal (S0 scales C before the accumulation).
    bad = "[NI, NJ, NK] -> { S0[i, j] -> [1, i, j, 0]; S1[i, k, j] -> [0, i, j, k] }"
    result = check(scop, deps, bad)
    assert not result.legal
    confirm(scop, result, lambda s, x: (1, x[0], x[1], 0) if s == "S0" else (0, x[0], x[2], x[1]))


def test_lu_interchange_legal_reversal_illegal():
    scop = _scop(KERNELS / "lu.c")
    deps = analyze(scop)
    assert check(scop, deps, scop.schedule).legal
    # Swapping i and j (the outer two loops) keeps LU correct (the "jik" form).
    sched = "[N] -> { S0[i, j, k] -> [j, i, 0, k]; S1[i, j] -> [j, i, 1, 0] }"
    assert check(scop, deps, sched).legal
    no_violation_at(scop, {"N": 5},
                    lambda s, x: (x[1], x[0], 0, x[2]) if s == "S0" else (x[1], x[0], 1, 0))
    # Running k backwards breaks the accumulation order of A[i][j] -= ...
    sched = "[N] -> { S0[i, j, k] -> [i, j, 0, -k]; S1[i, j] -> [i, j, 1, 0] }"
    result = check(scop, deps, sched)
    assert not result.legal
    assert {v.kind for v in result.violations} >= {"raw"}
    confirm(scop, result, lambda s, x: (x[0], x[1], 0, -x[2]) if s == "S0" else (x[0], x[1], 1, 0))


def test_schedule_errors():
    scop = _scop(DIAGONAL)
    deps = analyze(scop)
    with pytest.raises(ScheduleError):
        check(scop, deps, "[N] -> { S0[i, j] -> [i, j] : i < 3 }")     # misses instances
    with pytest.raises(ScheduleError):
        check(scop, deps, "[N] -> { S0[i, j] -> [i, k] : 0 <= k <= 1 }")  # not a function
    with pytest.raises(ScheduleError):
        check(scop, deps, "{ S0[i, j] -> [i, j] ")


def test_hand_built_scop_self_dependence_free():
    """``A[i] = A[i] + 1`` inside one instance is no dependence; across t it is."""
    scop = make_scop(["N"], "[N] -> { : N >= 1 }", [
        ("S", "ti", "[N] -> { S[t, i] : 0 <= t < 3 and 0 <= i < N }",
         [("read", "[N] -> { S[t, i] -> A[i] }"), ("write", "[N] -> { S[t, i] -> A[i] }")])],
        "[N] -> { S[t, i] -> [t, i] }")
    deps = analyze(scop)
    assert deps.validity.intersect(scop.domain.identity()).is_empty()
    result = check(scop, deps, "[N] -> { S[t, i] -> [i, t] }")   # i is parallel: legal
    assert result.legal and result.bands[0].parallel == [True, False]
    result = check(scop, deps, "[N] -> { S[t, i] -> [i] }")      # t collapsed: illegal
    assert not result.legal
    confirm(scop, result, lambda s, x: (x[1],))
