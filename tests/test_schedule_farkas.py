"""The Farkas cone of an edge and the linear-algebra helpers, against brute force."""
from __future__ import annotations

import itertools
from fractions import Fraction

import islpy as isl
import pytest

from polysched.schedule.edges import Edge, edges_from, farkas_cone, same_time_restriction
from polysched.schedule.ilp import orthogonal_complement, rank


def _points(bset: isl.BasicSet) -> list[tuple[int, ...]]:
    pts = []
    n = bset.dim(isl.dim_type.set)
    isl.Set.from_basic_set(bset).foreach_point(lambda p: pts.append(tuple(
        p.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n))))
    return pts


def _in_cone(rows, vec) -> bool:
    for row in rows:
        value = row.constant + sum(a * v for a, v in zip(row.coefficients, vec))
        if (row.equality and value != 0) or (not row.equality and value < 0):
            return False
    return True


@pytest.mark.parametrize("relation", [
    # integral polytopes (vertices are integer points), so the rational cone computed
    # by isl and the integer brute force agree exactly.
    "{ S[i] -> S[i2] : 0 <= i <= 3 and i2 = i + 1 }",
    "{ S[i, j] -> T[i2, j2] : 0 <= i <= 2 and 0 <= j <= i and i2 = i + 1 and j2 = j }",
    "{ S[i, j] -> S[i2, j2] : 0 <= i <= 2 and 0 <= j <= 2 and i2 = i + 1 and j - 1 <= j2 <= j + 1 }",
])
def test_farkas_cone_is_exactly_the_nonnegative_forms(relation):
    bm = isl.BasicMap(relation)
    rows = farkas_cone(bm)
    pts = _points(bm.wrap())
    n = len(pts[0])
    for vec in itertools.product(range(-2, 3), repeat=n + 1):
        c0, coef = vec[0], vec[1:]
        brute = all(c0 + sum(c * x for c, x in zip(coef, p)) >= 0 for p in pts)
        assert _in_cone(rows, (c0,) + coef) == brute, vec


def test_parametric_cone_needs_parameter_coefficient_for_unbounded_distance():
    bm = isl.BasicMap("[N] -> { S[i] -> S[j] : 0 <= i < j < N }")
    rows = farkas_cone(bm)
    # dims: [cst, N, i, j]; the distance j - i is >= 0 ...
    assert _in_cone(rows, (0, 0, -1, 1))
    # ... but not bounded by a constant (w - (j - i) >= 0 fails for every w) ...
    assert not _in_cone(rows, (100, 0, 1, -1))
    # ... while N - (j - i) >= 0 holds (u = 1).
    assert _in_cone(rows, (0, 1, 1, -1))


def test_edges_split_unions_and_restrict_to_the_context():
    ctx = isl.Set("[N] -> { : N >= 2 }")
    rel = isl.UnionMap("[N] -> { S[i] -> S[i + 1] : 0 <= i < N - 1; S[i] -> T[i] : 0 <= i < N }")
    edges = edges_from(rel, ctx)
    assert sorted(str(e) for e in edges) == ["S->S", "S->T"]
    assert all(e.relation.dim(isl.dim_type.param) == 1 for e in edges)


def test_same_time_restriction_keeps_only_unsatisfied_pairs():
    e = Edge("S", "S", isl.BasicMap("[N] -> { S[i, j] -> S[i2, j2] : 0 <= i, j < N and "
                                     "i <= i2 <= i + 1 and j2 = j + 1 }"))
    phi = isl.Map("[N] -> { S[i, j] -> [i] }")
    rest = same_time_restriction(e, phi, phi)
    assert rest is not None
    assert rest.relation.is_equal(isl.BasicMap(
        "[N] -> { S[i, j] -> S[i, j + 1] : 0 <= i, j < N }"))
    phi_j = isl.Map("[N] -> { S[i, j] -> [j] }")
    assert same_time_restriction(e, phi_j, phi_j) is None


@pytest.mark.parametrize("rows_, dim", [([], 3), ([[1, 0, 0]], 3), ([[1, 1, 0], [2, 1, 1]], 3),
                                         ([[2, 1]], 2), ([[1, 2], [3, 4]], 2)])
def test_orthogonal_complement(rows_, dim):
    basis = orthogonal_complement(rows_, dim)
    assert len(basis) == dim - rank(rows_)
    for b in basis:
        assert all(isinstance(x, int) for x in b) and any(b)
        for r in rows_:
            assert sum(Fraction(x) * y for x, y in zip(b, r)) == 0
    assert rank(rows_ + basis) == dim
