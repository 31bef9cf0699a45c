"""Self-dependences are scheduled against their difference sets (`edges.difference_relation`).

A schedule puts forms ``c·(t - s) + g(N)`` on a dependence of a statement on itself, so
their Farkas cone may be taken on ``{ t - s }``, a polyhedron of half the dimensions.
Oracle: isl's integer emptiness of ``{ (s, t) in P : form < 0 }`` on the edge itself.
"""
from __future__ import annotations

import random

import islpy as isl
import pytest

from polysched.dependence import analyze, check
from polysched.schedule import ScheduleOptions, compute
from polysched.schedule.edges import Edge, difference_relation
from polysched.scop import extract

SELF_DEPENDENCES = [
    # uniform (a stencil's), triangular, guarded with a parity, parametric, bounded by literals
    "[N] -> { S[i, j] -> S[i + 1, j - 1] : 0 <= i < N - 1 and 1 <= j < N }",
    "[N] -> { S[i, j] -> S[i2, j2] : 0 <= j <= i < N and i < i2 < N and 0 <= j2 <= i2 and j2 >= j }",
    "[N, M] -> { S[i, j] -> S[i2, j2] : 0 <= i < N and 0 <= j < M and i2 = i + 2 and j2 >= j and "
    "2j2 <= i + 2j + 1 and i2 < N and j2 < M }",
    "[p0, p1] -> { S[i0, i1, i2, i3] -> S[i4, i5, i6, i7] : p1 <= 2 and i0 > p0 and 2 <= i1 <= i0 "
    "and i2 <= 1 + p1 and 2 <= i3 <= i2 and i0 < i4 <= 3 + p0 and 2 <= i5 <= i4 and 2 <= i6 <= 5 - i3 "
    "and i6 <= 1 + p1 and i7 >= i3 and i7 >= i6 and 5 - i2 <= i7 <= 3 and i7 <= 1 + p0 and "
    "2i7 <= 4 + i1 - 2i2 + 2i6 }",
    "{ S[i, j, k] -> S[i, j + 1, k2] : 0 <= i < 4 and 0 <= j < 3 and 0 <= k <= j and 0 <= k2 <= k + 1 }",
]


def _accepted(reduction, form: list[int]) -> bool:
    """Whether ``form`` (``[cst, params..., src..., snk...]``) lies in the reduction's
    Farkas cone (all its variables in one cone)."""
    reduced = [sum(v * form[orig] for orig, v in row.items()) for row in reduction.transform]
    for row in reduction.cone(tuple(range(reduction.n_vars))):
        value = sum(a * x for a, x in zip(row.coefficients, reduced)) + row.constant
        if (value != 0) if row.equality else (value < 0):
            return False
    return True


def _nonnegative(relation: isl.BasicMap, form: list[int]) -> bool:
    """``form >= 0`` on every integer point of ``relation`` (isl: the points where it is
    negative form an empty set)."""
    n_params = relation.dim(isl.dim_type.param)
    n_in = relation.dim(isl.dim_type.in_)
    local = isl.LocalSpace.from_space(relation.get_space())
    negative = isl.Constraint.alloc_inequality(local).set_constant_val(-form[0] - 1)
    for p in range(n_params):
        negative = negative.set_coefficient_val(isl.dim_type.param, p, -form[1 + p])
    for k in range(n_in):
        negative = negative.set_coefficient_val(isl.dim_type.in_, k, -form[1 + n_params + k])
        negative = negative.set_coefficient_val(isl.dim_type.out, k, -form[1 + n_params + n_in + k])
    return relation.add_constraint(negative).is_empty()


@pytest.mark.parametrize("text", SELF_DEPENDENCES)
def test_difference_cone_is_sound_and_loses_nothing(text):
    """Every schedule form the difference set accepts is non-negative on the edge's
    integer points, and it accepts every form the edge's own cone accepts, except on the
    guarded edge: there the difference set's parameter domain is rationally wider
    (``2p0 + p1 >= 4`` where the edge has ``p0 + p1 >= 3``: the same integers)."""
    exact = "2i7" not in text
    relation = isl.BasicMap(text)
    edge = Edge("S", "S", relation)
    differences = edge.reduction                       # built on the difference set
    whole = Edge("S", "T", relation).reduction         # the same polyhedron, whole
    assert differences.n_vars <= relation.dim(isl.dim_type.in_)
    n_params, n = relation.dim(isl.dim_type.param), relation.dim(isl.dim_type.in_)
    rng = random.Random(20261127)
    accepted = 0
    for _ in range(150):
        c = [rng.randint(-2, 2) for _ in range(n)]
        g = [rng.randint(-3, 6)] + [rng.randint(0, 2) for _ in range(n_params)]
        form = g + [-x for x in c] + c
        by_differences = _accepted(differences, form)
        if by_differences:
            accepted += 1
            assert _nonnegative(relation, form), (form, "accepted but negative on the edge")
        if exact and _accepted(whole, form):
            assert by_differences, (form, "the edge's cone accepts it, the differences' not")
    assert accepted >= 5          # the check above ran on forms that were accepted


def test_difference_relation_of_a_uniform_dependence_is_its_distance():
    relation = isl.BasicMap("[N] -> { S[i, j] -> S[i + 1, j - 2] : 0 <= i < N - 1 and 2 <= j < N }")
    differences = difference_relation(relation)
    assert differences.range().is_equal(isl.BasicSet("[N] -> { S[1, -2] : N >= 3 }"))
    assert differences.domain().is_equal(isl.BasicSet("[N] -> { S[0, 0] : N >= 3 }"))


# The first region of fuzz program v8 seed 20261128 #403: one of its self-dependences
# (4 iterators each side, 20 constraints) took isl 110 s to dualize; the Pluto scheduler
# gave up after its budget and isl's scheduler stood in. Its difference set: 0.04 s.
GUARDED_NEST = """#define N 1
#define W 1
void f(double x[11][8][11], double y[3][3][5], double *src, double *dst, double *sum)
{
  long i, j, k, l, p;
#pragma scop
  double s0 = 0.5;
  for (i = W + 1; i < W + 4; i++) {
    for (j = 2; j < i + 1; j += 2) {
      for (k = 2; k <= ((N + 1) < (5) ? (N + 1) : (5)); k++) {
        for (l = 2; l <= ((((W + 1) < (3) ? (W + 1) : (3))) < (j + 2) ? (((W + 1) < (3) ? (W + 1) : (3))) : (j + 2)); l++) {
          y[k - 1][l - N][j + N - 2] = -0.5 * s0 + 1.0;
          for (p = 0; p < 4; p++) {
            x[p + 3][l - 1][k + 3] += 0.75 * x[1][p + 1][l + 3] + 0.75 * s0 + -0.5 * x[i + 3][j][k + p - 1] + 1.0;
          }
        }
      }
      x[j + 1][i + 2][2 * j + 1] = 0.25 * x[j + 3][i + 1][j] + -0.5 * x[j + i + 1][i - 1][2] + -0.5 * s0 + 1.0;
    }
  }
  for (i = 2; i < W + 2; i++) {
    *(dst + i) = 0.75 * *(src + i - 1) + -0.5 * src[i] + 0.5 * *(dst + i - 1) + 1.0;
    *sum += 0.125 * *(src + i) + 0.5;
  }
#pragma endscop
}
"""


def test_guarded_self_dependence_is_scheduled_by_pluto():
    [scop] = extract(GUARDED_NEST, filename="fuzz403.c")
    deps = analyze(scop)
    stats: dict = {}
    schedule = compute(scop, deps, ScheduleOptions(budget=5.0), stats=stats)
    assert "fallback" not in stats, stats
    assert check(scop, deps, schedule).legal
