"""The hyperplane ILP on its own: Feautrier fallback, independence, objective levels."""
from __future__ import annotations

import islpy as isl

from polysched.schedule.edges import Edge, edges_from
from polysched.schedule.ilp import HyperplaneProblem, _combine
from polysched.schedule.options import ScheduleOptions

CTX = isl.Set("[N] -> { : N >= 4 }")


def _edges(text):
    return edges_from(isl.UnionMap(text), CTX)


def _distance_min(edge: Edge, h) -> int:
    """min over the edge of φ_T(t) - φ_S(s), by isl (for checking the ILP's answers)."""
    def phi(s, n):
        iters = ", ".join(f"i{k}" for k in range(n))
        expr = " + ".join([f"{c}*i{k}" for k, c in enumerate(h.coefficients[s])] + [str(h.shifts[s])])
        return isl.Map(f"[N] -> {{ {s}[{iters}] -> [{expr}] }}")
    rel = isl.Map.from_basic_map(edge.relation)
    d = rel.apply_domain(phi(edge.source, edge.n_source)).apply_range(phi(edge.sink, edge.n_sink)).deltas()
    return d.intersect_params(CTX.fix_val(isl.dim_type.param, 0, isl.Val(10))).lexmin().sample_point() \
        .get_coordinate_val(isl.dim_type.set, 0).to_python()


def test_feautrier_mode_strongly_satisfies_as_many_edges_as_possible():
    # S1[i] -> S2[i] (same i) and S2[i] -> S1[i + 1]: both statements already have full
    # rank, so only a shifted hyperplane (2i, 2i + 1) carries both edges at once.
    edges = _edges("[N] -> { S1[i] -> S2[i] : 0 <= i < N; S2[i] -> S1[i + 1] : 0 <= i < N - 1 }")
    problem = HyperplaneProblem({"S1": 1, "S2": 1}, 1, ScheduleOptions())
    h = problem.solve(edges, [], {"S1": [[1]], "S2": [[1]]}, set(), feautrier=True)
    assert h is not None
    assert all(_distance_min(e, h) >= 1 for e in edges)


def test_feautrier_mode_fails_without_any_carriable_edge():
    # A reversal: S[i + 1] -> S[i]; with coefficients >= 0 nothing can carry it.
    edges = _edges("[N] -> { S[i] -> S[i - 1] : 1 <= i < N }")
    problem = HyperplaneProblem({"S": 1}, 1, ScheduleOptions())
    assert problem.solve(edges, [], {"S": []}, set(), feautrier=True) is None
    problem = HyperplaneProblem({"S": 1}, 1, ScheduleOptions(negative_coefficients=True))
    h = problem.solve(edges, [], {"S": []}, {"S"})
    assert h.coefficients["S"] == [-1]


def test_independence_excludes_the_span_of_earlier_rows():
    problem = HyperplaneProblem({"S": 2}, 1, ScheduleOptions(negative_coefficients=True))
    h = problem.solve([], [], {"S": [[1, 1]]}, {"S"})
    c = h.coefficients["S"]
    assert c[0] != c[1]  # not a multiple of (1, 1)
    assert sum(abs(x) for x in c) == 1  # the smallest such row


def test_parallel_hyperplane_preferred_when_cost_ties():
    # Distances (0, 1) and (1, 0) both have w = 1 under i or j alone; an edge with distance
    # (0, 0) under i... : here only (1, 0) exists, so j (zero distance) must come first.
    edges = _edges("[N] -> { S[i, j] -> S[i + 1, j] : 0 <= i < N - 1 and 0 <= j < N }")
    problem = HyperplaneProblem({"S": 2}, 1, ScheduleOptions())
    h = problem.solve(edges, [], {"S": []}, {"S"})
    assert h.coefficients["S"] == [0, 1]


def test_combined_levels_rank_like_tuples():
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    a, b = m.new_int_var(0, 5, "a"), m.new_int_var(0, 7, "b")
    (level,) = _combine([(a, 5), (b, 7)])
    m.add(a + b >= 6)
    m.minimize(level)
    solver = cp_model.CpSolver()
    assert solver.solve(m) == cp_model.OPTIMAL
    assert (solver.value(a), solver.value(b)) == (0, 6)  # a first, then b
    # Terms too large to combine safely stay separate solves.
    big = m.new_int_var(0, 2**40, "big")
    assert len(_combine([(big, 2**40), (a, 2**20)])) == 2
