"""The Pluto-style scheduler on loop nests from the literature: expected hyperplanes
(up to equivalent solutions), permutable bands, parallel members, fusion policies, and
legality of every produced schedule (checked with polysched.dependence.check and with an
independent isl test: sched(src) lex< sched(sink) for every validity pair)."""
from __future__ import annotations

import islpy as isl
import pytest

import test_schedule_support as K
from polysched.dependence import analyze
from polysched.schedule import ScheduleError, ScheduleOptions, compute


def schedule(scop, **kw):
    deps = analyze(scop)
    sched = compute(scop, deps, ScheduleOptions(**kw))
    K.assert_legal(scop, deps, sched)
    return sched


def top(sched):
    return sched.get_root().child(0)


def test_jacobi_1d_is_skewed_into_one_permutable_band():
    sched = schedule(K.jacobi_1d())
    band = top(sched)
    assert band.get_type() == isl.schedule_node_type.band
    assert band.band_get_permutable() and band.band_n_member() == 2
    # Pluto's answer: S1 (t, 2t + i), S2 (t, 2t + i + 1), then S1 before S2.
    assert K.rows(band, "S1") == [[1, 0, 0], [2, 1, 0]]
    assert K.rows(band, "S2") == [[1, 0, 0], [2, 1, 1]]
    assert band.child(0).get_type() == isl.schedule_node_type.sequence


def test_jacobi_2d_skews_both_space_dimensions():
    sched = schedule(K.jacobi_2d())
    band = top(sched)
    assert band.band_get_permutable() and band.band_n_member() == 3
    for stmt in ("S1", "S2"):
        r = K.rows(band, stmt)
        assert r[0][:3] == [1, 0, 0]
        assert r[1][0] > 0 and r[1][1:3] == [1, 0]   # c*t + i
        assert r[2][0] > 0 and r[2][1:3] == [0, 1]   # c*t + j


def test_seidel_2d_needs_skewing_in_two_dimensions():
    sched = schedule(K.seidel_2d())
    band = top(sched)
    assert band.band_get_permutable() and band.band_n_member() == 3
    assert K.rows(band, "S1") == [[1, 0, 0, 0], [1, 1, 0, 0], [2, 1, 1, 0]]  # (t, t+i, 2t+i+j)
    assert not any(band.band_member_get_coincident(k) for k in range(3))


def test_gemm_keeps_ijk_with_i_and_j_parallel():
    sched = schedule(K.gemm())
    bands = [b for b in K.bands(sched) if "S2" in str(b.get_domain())]
    band = bands[0]
    assert K.rows(band, "S2") == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    assert [bool(band.band_member_get_coincident(k)) for k in range(3)] == [True, True, False]
    assert band.band_get_permutable()


def test_gemm_maxfuse_fuses_the_initialisation():
    sched = schedule(K.gemm(), fuse="max")
    band = top(sched)
    assert band.get_type() == isl.schedule_node_type.band
    assert {s.get_tuple_name() for s in K._sets(band.get_domain())} == {"S1", "S2"}


@pytest.mark.parametrize("kernel, n", [("2mm", 4), ("3mm", 6)])
def test_maxfuse_fuses_what_can_be_fused(kernel, n):
    scop = K.HAND_KERNELS[kernel]()
    fused = schedule(scop, fuse="max")
    band = top(fused)
    # Every statement shares the outer loop(s) under maxfuse ...
    assert band.get_type() == isl.schedule_node_type.band
    assert len(K._sets(band.get_domain())) == n
    # ... whereas nofuse distributes every SCC at the outermost level.
    distributed = top(schedule(scop, fuse="no"))
    assert distributed.get_type() == isl.schedule_node_type.sequence
    assert distributed.n_children() == n


@pytest.mark.parametrize("kernel", ["lu", "cholesky"])
@pytest.mark.parametrize("fuse", ["smart", "max", "no"])
def test_factorisations_schedule_legally_with_full_rank(kernel, fuse):
    scop = K.HAND_KERNELS[kernel]()
    sched = schedule(scop, fuse=fuse)
    # Every statement gets as many linearly independent hyperplanes as it has loops:
    # the schedule is one-to-one on each statement's domain.
    smap = sched.get_map()
    for stmt in scop.statements:
        m = smap.intersect_domain(isl.UnionSet.from_set(stmt.domain))
        assert m.is_injective()


def test_reversal_needs_negative_coefficients():
    scop = K.reversal()
    deps = analyze(scop)
    with pytest.raises(ScheduleError, match="negative coefficients"):
        compute(scop, deps, ScheduleOptions())
    sched = compute(scop, deps, ScheduleOptions(negative_coefficients=True))
    K.assert_legal(scop, deps, sched)
    assert K.rows(top(sched), "S1")[0][0] < 0


def test_statements_in_one_loop_are_ordered_by_a_scalar_dimension():
    """S1: A[i] = B[i]; S2: C[i] = A[i]: fused on i, then S1 before S2 (sequence)."""
    scop = K._scop(["N"], [
        K._stmt(["N"], "S1", ["i"], "0 <= i < N", [("read", "B[i]"), ("write", "A[i]")]),
        K._stmt(["N"], "S2", ["i"], "0 <= i < N", [("read", "A[i]"), ("write", "C[i]")]),
    ], "S1[i] -> [i, 0]; S2[i] -> [i, 1]")
    sched = schedule(scop, fuse="max")
    band = top(sched)
    assert K.rows(band, "S1") == [[1, 0]] and K.rows(band, "S2") == [[1, 0]]
    assert band.band_member_get_coincident(0)
    seq = band.child(0)
    assert seq.get_type() == isl.schedule_node_type.sequence
    assert "S1" in str(seq.child(0).filter_get_filter())


def test_band_splits_when_no_permutable_hyperplane_remains():
    """S[i, j] reads A[i - 1, *] (every column) and A[i, j - 1]: after i, no hyperplane
    with a j component is valid for the all-columns dependence, so the band ends and the
    j loop gets its own band once i has satisfied that dependence."""
    scop = K._scop(["N"], [K._stmt(["N"], "S1", ["i", "j"], "1 <= i < N and 1 <= j < N",
                                   [("read", "A[i - 1, N - 1 - j]"), ("read", "A[i, j - 1]"),
                                    ("write", "A[i, j]")])],
                   "S1[i, j] -> [i, j]")
    sched = schedule(scop)
    bands = K.bands(sched)
    assert len(bands) == 2
    assert K.rows(bands[0], "S1") == [[1, 0, 0]]
    assert K.rows(bands[1], "S1") == [[0, 1, 0]]


@pytest.mark.parametrize("kernel", sorted(K.HAND_KERNELS))
@pytest.mark.parametrize("scheduler, fuse", [("pluto", "smart"), ("pluto", "max"), ("pluto", "no"),
                                             ("isl", "smart"), ("isl", "max"), ("isl", "no"),
                                             ("identity", "smart")])
def test_every_schedule_is_legal(kernel, scheduler, fuse):
    scop = K.HAND_KERNELS[kernel]()
    sched = schedule(scop, scheduler=scheduler, fuse=fuse)
    if scheduler == "identity":
        assert sched is scop.schedule


def test_negative_option_keeps_legal_schedules_on_the_kernels():
    for name in ("jacobi-1d", "seidel-2d", "lu"):
        schedule(K.HAND_KERNELS[name](), negative_coefficients=True)


def test_bad_options_are_rejected():
    scop = K.gemm()
    deps = analyze(scop)
    with pytest.raises(ScheduleError, match="fusion policy"):
        compute(scop, deps, ScheduleOptions(fuse="all"))
    with pytest.raises(ScheduleError, match="scheduler"):
        compute(scop, deps, ScheduleOptions(scheduler="feautrier"))


def test_negative_fallback_option_schedules_reversals():
    scop = K.reversal()
    deps = analyze(scop)
    sched = compute(scop, deps, ScheduleOptions(negative_fallback=True))
    K.assert_legal(scop, deps, sched)
    assert K.rows(top(sched), "S1")[0][0] < 0
    # Nests that need no reversal keep the non-negative answer.
    gemm = K.gemm()
    assert str(compute(gemm, analyze(gemm), ScheduleOptions(negative_fallback=True))) == \
        str(compute(gemm, analyze(gemm), ScheduleOptions()))


# -- spatial locality --------------------------------------------------------------

TRANSPOSE = """
double A[300][200], B[300][200];
void kernel(void) {
  int i, j;
#pragma scop
  for (i = 0; i < 200; i++)
    for (j = 0; j < 300; j++)
      B[j][i] = A[j][i] * 2.0;
#pragma endscop
}
"""


def _date(sched, point: str) -> list[int]:
    """The schedule's date of one statement instance, e.g. ``"{ S0[5, 7] }"``."""
    from polysched.islutil import maps_of
    instance = isl.Set(point)
    [m] = [m for m in maps_of(sched.get_map()) if m.get_tuple_name(isl.dim_type.in_) == instance.get_tuple_name()]
    date = m.intersect_domain(instance.align_params(m.get_space().params())).range().sample_point()
    return [date.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(date.get_space().dim(isl.dim_type.set))]


def test_spatial_weights_count_the_fastest_varying_subscripts():
    """gramschmidt's ``R[k][j] += Q[i][k] * A[i][j]`` over (k, j, i): j is the last
    subscript of R (read and write) and of A, k of Q; i of none."""
    from polysched.bench.suite import get
    from polysched.schedule.ilp import spatial_weights
    from polysched.scop import extract
    [scop] = extract(open(get("gramschmidt").path).read(), filename="gramschmidt.c")
    weights = spatial_weights(scop.statements)
    assert weights["S5"] == [1, 3, 0] and weights["S4"] == [0, 1] and weights["S1"] == [2, 0]
    [scop] = extract(TRANSPOSE, filename="t.c")
    assert spatial_weights(scop.statements) == {"S0": [2, 0]}


FLAT_TRANSPOSE = """
#define N 200
#define M 300
double *A, *B;
void kernel(void) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      B[j * N + i] = A[j * N + i] * 2.0;
#pragma endscop
}
"""


def test_a_flat_buffer_is_walked_with_stride_one_by_the_iterator_of_the_smallest_step():
    """``B[j * N + i]`` with ``#define N 200`` is ``B[200j + i]``: one subscript that
    depends on both, but only i walks it with stride 1 (before, both counted, and the
    spatial level could not tell the loop orders apart); the schedule puts i innermost."""
    from polysched.schedule.ilp import spatial_weights
    from polysched.scop import extract
    [scop] = extract(FLAT_TRANSPOSE, filename="flat.c")
    assert spatial_weights(scop.statements) == {"S0": [2, 0]}
    sched = schedule(scop, spatial=True)
    assert _date(sched, "{ S0[5, 7] }") == [7, 5]


@pytest.mark.parametrize("spatial, inner", [(True, "i"), (False, "j")])
def test_the_spatial_level_puts_the_stride_one_loop_innermost(spatial, inner):
    """No dependence: every order ties on the bounding function. The spatial level
    (after it) leaves i, the last subscript of both arrays, for the inner hyperplane,
    where it walks memory with stride 1; without it the textual order stays."""
    from polysched.scop import extract
    [scop] = extract(TRANSPOSE, filename="t.c")
    sched = schedule(scop, spatial=spatial)
    assert _date(sched, "{ S0[5, 7] }") == ([7, 5] if inner == "i" else [5, 7])


def test_gramschmidt_keeps_k_outermost_under_the_spatial_level():
    """Without the spatial level the first hyperplane of S5/S6 is j (ties with k on the
    bounding function), which leaves the column walks i innermost under j."""
    from polysched.bench.suite import get
    from polysched.scop import extract
    [scop] = extract(open(get("gramschmidt").path).read(), filename="gramschmidt.c")
    for spatial, first in ((True, "k"), (False, "j")):
        sched = schedule(scop, spatial=spatial)
        date = _date(sched, "[N, M] -> { S5[13, 17, 19] : N = 40 and M = 50 }")
        # (sequence positions are small numbers between the loops' values)
        loops = [v for v in date if v >= 13]
        assert loops[0] == {"k": 13, "j": 17}[first], (spatial, date)
