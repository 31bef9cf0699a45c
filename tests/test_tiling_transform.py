"""Tiling pass on schedule trees: legality, sizes, point order, wavefront, scalars, marks.

Schedules come from isl's scheduler or are written by hand (with deliberately wrong
flags where the test says so); legality is checked independently of polysched.tiling
(``legal``: every memory dependence runs source-before-sink in the new flat schedule).
"""
from __future__ import annotations

import islpy as isl
import pytest

from polysched.tiling import TileOptions, TilingError, tile, tile_with_report
from test_tiling_support import (GEMM, JACOBI2D, PARAMETRIC, PREFIX_SUM, PRIVATE, REDUCTION,
                                 ROWSUM, SEIDEL, SHORT_INNER, IslDeps, bands, isl_schedule, legal, marks, scop_of)

_mark = isl.schedule_node_type.mark


def gemm_tree(scop, coincident="[1, 1, 0]", permutable=1) -> isl.Schedule:
    """S0 (C *= beta) then S1 (C += A*B) in separate bands, written by hand."""
    return isl.Schedule(
        '{ domain: "%s", child: { sequence: [ '
        '{ filter: "{ S0[i, j] }", child: { schedule: "[{ S0[i, j] -> [(i)] }, { S0[i, j] -> [(j)] }]",'
        ' permutable: 1, coincident: [1, 1] } }, '
        '{ filter: "{ S1[i, j, k] }", child: { schedule: "[{ S1[i, j, k] -> [(i)] }, '
        '{ S1[i, j, k] -> [(j)] }, { S1[i, j, k] -> [(k)] }]", permutable: %d, coincident: %s } } ] } }'
        % (scop.domain, permutable, coincident))


def setup(source):
    scop = scop_of(source)
    deps = IslDeps(scop)
    return scop, deps


def member_is_parallel(node: isl.ScheduleNode, deps: isl.UnionMap, k: int = 0) -> bool:
    """Oracle: no dependence with equal outer schedule values differs in member k."""
    outer = node.get_prefix_schedule_union_map()
    partial = node.band_get_partial_schedule()
    for j in range(k):
        outer = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_at(j)))
    member = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
    live = deps.intersect(outer.apply_range(outer.reverse()))
    return live.is_subset(member.apply_range(member.reverse()))


def bands_under_marks(schedule, prefix):
    """(mark name, band node below it) for every mark whose name starts with prefix."""
    found = []

    def visit(node):
        if node.get_type() == _mark and node.mark_get_id().get_name().startswith(prefix):
            below = node.child(0)
            while below.get_type() == _mark:
                below = below.child(0)
            found.append((node.mark_get_id().get_name(), below))
        for i in range(node.n_children()):
            visit(node.child(i))

    visit(schedule.get_root())
    return found


# ------------------------------------------------------------------ gemm, point order

def test_gemm_tiled_legal_with_point_order_ikj():
    scop, deps = setup(GEMM)
    result, report = tile_with_report(scop, deps, gemm_tree(scop),
                                      TileOptions(sizes=[8, 16, 4], parallel=True, register_tile=0))
    assert legal(result, deps.validity)
    s1 = [b for b in report.bands if b.members == 3][0]
    assert s1.tiled and s1.sizes == [8, 16, 4]
    assert s1.point_order == [0, 2, 1]
    # the full schedule of S1: tile loops (i/8, j/16, k/4), then point loops i, k, j
    s1_map = result.get_map().intersect_domain(isl.UnionSet(scop.statement("S1").domain))
    expected = isl.UnionMap("[N] -> { S1[i, j, k] -> [1, floor(i/8), floor(j/16), floor(k/4), i, k, j] }") \
        .intersect_domain(scop.domain)
    assert s1_map.is_equal(expected)
    # the parallel loop is the outermost tile loop, and it really is parallel
    [(name, band)] = [x for x in bands_under_marks(result, "parallel")
                      if "S1" in str(x[1].band_get_partial_schedule())]
    assert name == "parallel"
    assert member_is_parallel(band, deps.validity)
    outer_loop = isl.UnionMap.from_union_pw_aff(band.band_get_partial_schedule().get_at(0))
    s1_domain = isl.UnionSet(scop.statement("S1").domain)
    assert outer_loop.intersect_domain(s1_domain).is_equal(
        isl.UnionMap("[N] -> { S1[i, j, k] -> [floor(i/8)] }").intersect_domain(s1_domain))


def test_gemm_simd_on_innermost_stride1_loop():
    # register_tile=0: the structure of the tiles alone (the jam of k is tested in
    # test_tiling_policy.py)
    scop, deps = setup(GEMM)
    result, report = tile_with_report(scop, deps, gemm_tree(scop), TileOptions(sizes=[8, 8, 8], register_tile=0))
    simd = bands_under_marks(result, "simd")
    assert len(simd) == 2 and all(r.simd for r in report.bands)
    for _, band in simd:
        assert band.band_n_member() == 1
        assert not band.get_child(0).get_type() == isl.schedule_node_type.band
        assert member_is_parallel(band, deps.validity)
        assert "j" in str(band.band_get_partial_schedule())


def test_no_reorder_when_disabled():
    scop, deps = setup(GEMM)
    _, report = tile_with_report(scop, deps, gemm_tree(scop),
                                 TileOptions(sizes=[8, 8, 8], intra_tile_reorder=False))
    assert [b.point_order for b in report.bands] == [[0, 1], [0, 1, 2]]


def test_unroll_mark():
    scop, deps = setup(GEMM)
    result, report = tile_with_report(scop, deps, gemm_tree(scop),
                                      TileOptions(sizes=[8, 8, 8], unroll=4, simd=False))
    assert marks(result).count("unroll(4)") == 2
    assert legal(result, deps.validity)


# ------------------------------------------------------------------ tile sizes

@pytest.mark.parametrize("sizes", [[1, 1, 1], [1000, 1000, 1000], [3, 1, 7], [2]])
def test_size_edge_cases_stay_legal(sizes):
    scop, deps = setup(GEMM)
    result, report = tile_with_report(scop, deps, gemm_tree(scop), TileOptions(sizes=sizes))
    assert legal(result, deps.validity)
    s1 = [b for b in report.bands if b.members == 3][0]
    assert s1.sizes[:len(sizes)] == sizes[:3]
    assert len(s1.sizes) == 3 and all(s >= 1 for s in s1.sizes)


def test_model_sizes_fit_the_budget():
    from polysched.tiling.cache import CacheSizes
    from polysched.tiling.footprint import band_space, footprint_bytes
    scop, deps = setup(GEMM.replace("#define N 70", "#define N 1000"))
    tree = gemm_tree(scop)
    small = CacheSizes(l1d=8 * 1024, l2=64 * 1024, l3=1 << 20)
    _, report = tile_with_report(scop, deps, tree, TileOptions(), caches=small)
    s1 = [b for b in report.bands if b.members == 3][0]
    node = bands(tree)[1]
    space = band_space(scop, node.get_domain(), node.band_get_partial_schedule())
    # gemm tile (a, b, c): 8 * (a*c + c*b + a*b) bytes
    a, b, c = s1.sizes
    assert footprint_bytes(space, s1.sizes) == 8 * (a * c + c * b + a * b) + 8   # + alpha
    assert footprint_bytes(space, s1.sizes) <= 32 * 1024
    assert a * b * c >= 16 * 16 * 16          # not a degenerate choice
    assert footprint_bytes(space, [2 * a, 2 * b, 2 * c]) > 32 * 1024


def test_l2_tiling_two_levels():
    scop, deps = setup(GEMM)
    result, report = tile_with_report(scop, deps, gemm_tree(scop),
                                      TileOptions(sizes=[4, 4, 4], l2tile=True, parallel=True,
                                                  register_tile=0))
    assert legal(result, deps.validity)
    s1 = [b for b in report.bands if b.members == 3][0]
    assert s1.l2_sizes and all(l2 % l1 == 0 and l2 > l1 for l1, l2 in zip(s1.sizes, s1.l2_sizes))
    s1_map = result.get_map().intersect_domain(isl.UnionSet(scop.statement("S1").domain))
    a, b, c = s1.l2_sizes
    expected = isl.UnionMap(
        f"[N] -> {{ S1[i, j, k] -> [1, floor(i/{a}), floor(j/{b}), floor(k/{c}), "
        f"floor(i/4), floor(j/4), floor(k/4), i, k, j] }}").intersect_domain(scop.domain)
    assert s1_map.is_equal(expected)


def test_depth1_band_tiled_only_when_asked():
    scop, deps = setup(PRIVATE)
    tree = isl_schedule(scop, deps)
    _, report = tile_with_report(scop, deps, tree, TileOptions())
    assert not report.bands[0].tiled
    result, report = tile_with_report(scop, deps, tree, TileOptions(tile_depth1=True, sizes=[16]))
    assert report.bands[0].tiled and report.bands[0].sizes == [16]
    assert legal(result, deps.validity)


def test_parametric_small_bounds_legal():
    scop, deps = setup(PARAMETRIC)
    result = tile(scop, deps, isl_schedule(scop, deps), TileOptions(sizes=[64, 64], parallel=True))
    assert legal(result, deps.validity)
    # legal for every parameter value, including those smaller than one tile
    for n, m in [(1, 1), (2, 1), (3, 2), (65, 2)]:
        fixed = isl.Set(f"[n, m] -> {{ : n = {n} and m = {m} }}")
        assert legal(result.intersect_domain(scop.domain.intersect_params(fixed)),
                     deps.validity.intersect_params(fixed))


# ------------------------------------------------------------------ wavefront

@pytest.mark.parametrize("source", [SEIDEL, JACOBI2D])
def test_wavefront_makes_a_tile_loop_parallel(source):
    scop, deps = setup(source)
    tree = isl_schedule(scop, deps)
    # isl's schedule of these stencils is one permutable band with no parallel member
    [band] = bands(tree)
    assert band.band_n_member() == 3 and band.band_get_permutable()
    result, report = tile_with_report(scop, deps, tree, TileOptions(sizes=[4, 8, 8], parallel=True))
    assert report.bands[0].wavefront
    assert legal(result, deps.validity)
    [(name, parallel_band)] = bands_under_marks(result, "parallel")
    assert name == "parallel"
    assert parallel_band.band_member_get_coincident(0)
    assert member_is_parallel(parallel_band, deps.validity)
    # it sits below the wavefront loop t0 + t1 of the tile band
    above = parallel_band.parent().parent()
    assert above.get_type() == isl.schedule_node_type.band and above.band_n_member() == 1
    assert not member_is_parallel(above, deps.validity)


def test_no_wavefront_when_disabled():
    scop, deps = setup(SEIDEL)
    result, report = tile_with_report(scop, deps, isl_schedule(scop, deps),
                                      TileOptions(sizes=[4, 8, 8], parallel=True, wavefront=False))
    assert not report.bands[0].wavefront and not report.parallel
    assert not any(m.startswith("parallel") for m in marks(result))


# ------------------------------------------------------------------ wrong input flags

def test_wrong_coincident_flags_are_not_trusted():
    scop, deps = setup(GEMM)
    # k carries the reduction into C[i][j]; the tree claims everything is parallel
    tree = gemm_tree(scop, coincident="[1, 1, 1]")
    tree = isl.Schedule(str(tree).replace(
        '"[{ S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }, { S1[i, j, k] -> [(k)] }]"',
        '"[{ S1[i, j, k] -> [(k)] }, { S1[i, j, k] -> [(i)] }, { S1[i, j, k] -> [(j)] }]"'))
    result, report = tile_with_report(scop, deps, tree,
                                      TileOptions(sizes=[4, 4, 4], parallel=True))
    s1 = [b for b in report.bands if b.members == 3][0]
    assert s1.coincident == [False, True, True]
    # the k tile loop is outermost in the input; parallelism is moved to the i tile loop
    assert s1.parallel == "tile loop 1"
    for name, band in bands_under_marks(result, "parallel"):
        assert member_is_parallel(band, deps.validity)
    assert legal(result, deps.validity)


def test_wrong_permutable_flag_is_not_trusted():
    scop, deps = setup(SEIDEL)
    # the original (t, i, j) order is legal but not permutable (distance (0, 1, -1))
    tree = isl.Schedule(str(scop.schedule))
    tree = isl.Schedule('{ domain: "%s", child: { schedule: "[{ S0[t, i, j] -> [(t)] }, '
                        '{ S0[t, i, j] -> [(i)] }, { S0[t, i, j] -> [(j)] }]", permutable: 1, '
                        'coincident: [1, 1, 1] } }' % scop.domain)
    result, report = tile_with_report(scop, deps, tree, TileOptions(sizes=[4, 4, 4], parallel=True))
    assert not report.bands[0].permutable and not report.bands[0].tiled
    assert not any(m.startswith("parallel") for m in marks(result))
    assert legal(result, deps.validity)


def test_illegal_input_schedule_is_refused():
    scop, deps = setup(SEIDEL)
    tree = isl.Schedule('{ domain: "%s", child: { schedule: "[{ S0[t, i, j] -> [(-t)] }, '
                        '{ S0[t, i, j] -> [(i)] }, { S0[t, i, j] -> [(j)] }]" } }' % scop.domain)
    with pytest.raises(TilingError):
        tile(scop, deps, tree)


# ------------------------------------------------------------------ scalars

def test_scalar_reduction_gets_reduction_clause():
    scop, deps = setup(REDUCTION)
    plain, report = tile_with_report(scop, deps, isl_schedule(scop, deps), TileOptions(parallel=True))
    assert not any(m.startswith("parallel") for m in marks(plain))   # a double: not without reassociate
    assert any("floating-point reduction" in n for b in report.bands for n in b.notes)
    result, report = tile_with_report(scop, deps, isl_schedule(scop, deps),
                                      TileOptions(parallel=True, reassociate=True))
    assert "parallel(reduction=+:s)" in marks(result)
    assert legal(result, deps.validity)


def test_private_scalar_gets_private_clause():
    scop, deps = setup(PRIVATE)
    result = tile(scop, deps, isl_schedule(scop, deps), TileOptions(parallel=True))
    assert "parallel(private=t)" in marks(result)


def test_non_privatizable_scalar_keeps_loop_sequential():
    scop, deps = setup(PREFIX_SUM)
    result, report = tile_with_report(scop, deps, isl_schedule(scop, deps), TileOptions(parallel=True))
    assert not any(m.startswith("parallel") for m in marks(result))
    assert any("scalar t" in note for note in report.bands[0].notes)


def test_live_out_temporary_keeps_its_last_value():
    # t is read after the scop (printed): plain private copies would lose its final
    # value, lastprivate keeps the last write's (tests/test_lastprivate.py runs them)
    source = PRIVATE.replace("double t;", "").replace("double A[N], B[N];", "double A[N], B[N], t;") \
        .replace("return 0;", 'printf("%g\\n", t); return 0;')
    scop, deps = setup(source)
    result = tile(scop, deps, isl_schedule(scop, deps), TileOptions(parallel=True))
    assert "parallel(lastprivate=t)" in marks(result)


def test_scalar_read_only_needs_no_clause():
    scop, deps = setup(GEMM)      # alpha, beta are read-only scalars
    result = tile(scop, deps, gemm_tree(scop), TileOptions(sizes=[8, 8, 8], parallel=True))
    assert set(m for m in marks(result) if m.startswith("parallel")) == {"parallel"}


def test_accumulator_reset_per_row_is_private():
    scop, deps = setup(ROWSUM)
    result, report = tile_with_report(scop, deps, isl_schedule(scop, deps), TileOptions(parallel=True))
    assert marks(result)[0] == "parallel(private=s)"


def test_parallel_without_tiling():
    scop, deps = setup(GEMM)
    result, report = tile_with_report(scop, deps, gemm_tree(scop),
                                      TileOptions(tile=False, parallel=True))
    assert not report.tiled and legal(result, deps.validity)
    for _, band in bands_under_marks(result, "parallel"):
        assert member_is_parallel(band, deps.validity)
        assert str(band.band_get_partial_schedule().get_at(0)).count("(i)") >= 1


def test_short_inner_parallel_loop_is_skipped():
    scop, deps = setup(SHORT_INNER)
    tree = isl.Schedule('{ domain: "%s", child: { schedule: "[{ S0[t, i] -> [(t)] }]", '
                        'child: { schedule: "[{ S0[t, i] -> [(i)] }]" } } }' % scop.domain)
    result, report = tile_with_report(scop, deps, tree, TileOptions(parallel=True))
    assert not any(m.startswith("parallel") for m in marks(result))
    assert any("2 iterations" in n for n in report.bands[1].notes)
    # 512 iterations per fork/join: too little work to share (atax's y-update ran 10x
    # slower than the original at 2 threads), so still sequential
    scop, deps = setup(SHORT_INNER.replace("#define N 2", "#define N 512"))
    tree = isl.Schedule('{ domain: "%s", child: { schedule: "[{ S0[t, i] -> [(t)] }]", '
                        'child: { schedule: "[{ S0[t, i] -> [(i)] }]" } } }' % scop.domain)
    result, report = tile_with_report(scop, deps, tree, TileOptions(parallel=True))
    assert not any(m.startswith("parallel") for m in marks(result))
    assert any("instances per fork/join" in n for n in report.bands[1].notes)
    # with a long inner loop the same structure is parallelised
    scop, deps = setup(SHORT_INNER.replace("#define N 2", "#define N 100000").replace("#define T 100", "#define T 4"))
    tree = isl.Schedule('{ domain: "%s", child: { schedule: "[{ S0[t, i] -> [(t)] }]", '
                        'child: { schedule: "[{ S0[t, i] -> [(i)] }]" } } }' % scop.domain)
    result = tile(scop, deps, tree, TileOptions(parallel=True))
    assert "parallel" in marks(result)


SYRK = r"""
#define N 60
#define M 50
double A[N][M], C[N][N];
void kernel(double alpha) {
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j <= i; j++)
      for (k = 0; k < M; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
#pragma endscop
}
"""


def test_point_order_puts_the_parallel_store_loop_innermost():
    # k walks both reads with stride 1 but carries the reduction into C[i][j]; j is the
    # SIMD loop (stride-1 store, no dependence once innermost): (i, j, k) -> (i, k, j)
    # without register tiling. j also walks A[j][k] across rows, so with it (the
    # default) k stays innermost and j is unroll-and-jammed: four independent chains.
    scop, deps = setup(SYRK)
    tree = isl.Schedule('{ domain: "%s", child: { schedule: "[{ S0[i, j, k] -> [(i)] }, '
                        '{ S0[i, j, k] -> [(j)] }, { S0[i, j, k] -> [(k)] }]", permutable: 1 } }'
                        % scop.domain)
    result, report = tile_with_report(scop, deps, tree, TileOptions(sizes=[8, 8, 8], register_tile=0))
    assert report.bands[0].point_order == [0, 2, 1] and report.bands[0].jam is None
    assert legal(result, deps.validity)
    result, report = tile_with_report(scop, deps, tree, TileOptions(sizes=[8, 8, 8]))
    assert report.bands[0].point_order == [0, 1, 2]
    assert (report.bands[0].jam_member, report.bands[0].jam) == (1, 4)
    assert legal(result, deps.validity)


CHANNELS = r"""#include <stdio.h>
#include <stdlib.h>
static void k(int h, int w, float (*img)[h][w], float (*out)[h][w]) {
#pragma scop
  for (int c = 0; c < 3; c++)
    for (int y = 1; y < h - 1; y++)
      for (int x = 1; x < w - 1; x++)
        out[c][y][x] = 0.25f * (img[c][y - 1][x] + img[c][y + 1][x] + img[c][y][x - 1] + img[c][y][x + 1]);
#pragma endscop
}
int main(int argc, char **argv) {
  int h = atoi(argv[1]), w = atoi(argv[2]), n = h > 0 && w > 0 ? 3 * h * w : 1;
  float *img = malloc(sizeof(float) * n), *out = calloc(n, sizeof(float));
  for (int i = 0; i < n; i++) img[i] = i % 11;
  if (h > 0 && w > 0) k(h, w, (float (*)[h][w]) img, (float (*)[h][w]) out);
  for (int i = 0; i < n; i++) printf("%a\n", out[i]);
  return 0;
}
"""


def test_a_tile_loop_that_runs_once_is_not_the_parallel_one(tmp_path):
    """Three channels outermost, literal: their tile loop (one tile of 4) runs once,
    its pragma was dropped and the whole band ran sequentially (helper-68's p14); the
    next parallel tile loop, the rows', is the parallel one."""
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize
    path = tmp_path / "channels.c"
    path.write_text(CHANNELS)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "#pragma omp parallel for" in result.text and "runs at most once" not in result.text
    sizes = [(0, 0), (1, 1), (3, 5), (40, 70), (130, 260), (2, 300)]
    assert outputs_of(result.text, tmp_path, "new", sizes) == outputs_of(CHANNELS, tmp_path, "orig", sizes)


LU_IN_PLACE = r"""#include <stdio.h>
#include <stdlib.h>
static void lu(int n, double (*A)[n]) {
#pragma scop
  for (int k = 0; k < n; k++) {
    for (int i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = n > 0 ? n : 1;
  double (*A)[m] = malloc(sizeof(double) * m * m);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) A[i][j] = i == j ? m + 1.0 : 1.0 / (1 + i + 2 * j);
  lu(n, A);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) printf("%a\n", A[i][j]);
  return 0;
}
"""


def test_an_untiled_band_with_no_parallel_member_gets_a_parallel_loop_inside_another(tmp_path):
    """Pluto's LU band is (i, k, j), permutable, no member parallel nor any inside i:
    `--parallel` alone gave no parallel loop (helper-68's p24). As (k, i, j), i is
    parallel inside k: the band is reordered and i marked, and the program computes
    the original's bits at 1 and 2 threads."""
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize
    path = tmp_path / "lu.c"
    path.write_text(LU_IN_PLACE)
    result = optimize(path, OptimizeOptions.from_flags(parallel=True))
    region = result.text.split("#pragma scop")[1].split("polysched: the original code")[0]
    assert region.count("#pragma omp parallel for") == 1
    # the parallel loop is the second of the nest: inside one sequential loop
    lines = [line.strip() for line in region.splitlines() if line.strip().startswith(("for", "#pragma omp"))]
    assert lines[0].startswith("for") and lines[1].startswith("#pragma omp parallel for"), lines
    sizes = [(0,), (1,), (2,), (3,), (17,), (60,)]
    assert outputs_of(result.text, tmp_path, "new", sizes) == outputs_of(LU_IN_PLACE, tmp_path, "orig", sizes)


RED_BLACK_BY_TEST = r"""
#include <stdio.h>
#include <stdlib.h>
void kernel(int T, int n, double A[n][n]) {
#pragma scop
  for (int t = 0; t < T; t++)
    for (int color = 0; color < 2; color++)
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
          if ((i + j) % 2 == color)
            A[i][j] = 0.25 * (A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = n > 0 ? n : 1;
  double (*A)[m] = malloc(sizeof(double) * m * m);
  for (int i = 0; i < m; i++) for (int j = 0; j < m; j++) A[i][j] = ((i * 7 + j * 13) % 17) * 0.125;
  kernel(4, n, A);
  for (int i = 0; i < m; i++) for (int j = 0; j < m; j++) printf("%a\n", A[i][j]);
  return 0;
}
"""


def test_a_parallel_loop_inside_the_bands_first_two_members(tmp_path):
    """helper-97: a red-black sweep chosen by a test, band (t, t + color, i, j), whose
    i and j carry nothing once t and the color are fixed: `--parallel` alone gave no
    parallel loop ('each carries a dependence, also inside another'), pairs of members
    being all it tried, and the forks of i counted by the bounding box of the skewed
    (t, t + color) (T^2 instead of 2T). i is now parallel inside both, and the outputs
    are the original's at 1 and 2 threads."""
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize
    from polysched.tiling.footprint import _sheared_points
    skewed = isl.Set("{ [t, c] : 0 <= t < 1000 and t <= c <= t + 1 }")
    assert _sheared_points(skewed) == 2000 and skewed.count_val().to_python() == 2000
    assert _sheared_points(isl.Set("{ [i, j] : 0 <= i < 7 and 0 <= j <= i }")) == 49
    path = tmp_path / "rb.c"
    path.write_text(RED_BLACK_BY_TEST)
    result = optimize(path, OptimizeOptions.from_flags(parallel=True))
    assert "parallel: loop 2 inside loop 0 and loop 1" in result.summary(), result.summary()
    region = result.text.split("#pragma scop")[1].split("polysched: the original code")[0]
    lines = [line.strip() for line in region.splitlines() if line.strip().startswith(("for", "#pragma omp"))]
    assert lines[0].startswith("for") and lines[1].startswith("for") and \
        lines[2].startswith("#pragma omp parallel for"), lines
    sizes = [(0,), (1,), (2,), (3,), (17,), (60,)]
    assert outputs_of(result.text, tmp_path, "new", sizes) == outputs_of(RED_BLACK_BY_TEST, tmp_path, "orig", sizes)


def test_a_stencil_fused_and_skewed_says_why_no_loop_is_parallel_without_tiles():
    """A tester: `--parallel` alone on jacobi-2d wrote no parallel loop and no word of
    why. Every member of the fused, skewed (t, i, j) band carries a dependence, also
    inside another; the band says so, and that tiles would run in parallel wavefronts
    (the source's order, parallel in each sweep, measured 5x slower at 2 threads than
    this sequential one). With --tile they do."""
    from polysched.bench import get
    from polysched.pipeline import OptimizeOptions, optimize
    path = get("jacobi-2d").path
    untiled = optimize(path, OptimizeOptions.from_flags(parallel=True))
    assert "omp parallel" not in untiled.text.split("polysched: the original code")[0]
    assert "no parallel loop: each carries a dependence, also inside another (with --tile, the tiles run in " \
           "parallel wavefronts)" in untiled.summary()
    tiled = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "#pragma omp parallel for" in tiled.text.split("polysched: the original code")[0]
    assert "no parallel loop" not in tiled.summary()


SHORT_TILED_NEST = """static int C[400][400];
void k(int N, int M) {
  int i, j;
#pragma scop
  for (i = N % 4; i < 8; i++)
    for (j = 0; j < M % 5 + 3; j++)
      C[i + 100][j + 100] += i * j + 1;
#pragma endscop
}
"""


def test_a_dropped_parallel_pragma_says_which_loop_ran_once(tmp_path):
    """helper-78: at most 8 rows, one tile: isl does not write the tile loop, and the
    comment where its 'parallel' went said 'its loop runs at most once' above the point
    loop, which runs up to 8 times."""
    from polysched.pipeline import OptimizeOptions, optimize
    path = tmp_path / "short.c"
    path.write_text(SHORT_TILED_NEST)
    # (sizes given: each element is updated once, a stream the model would leave untiled)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True, tile_sizes=[32, 32])).text
    lines = text.splitlines()
    said = [k for k, line in enumerate(lines) if "'parallel' dropped" in line]
    assert said, text
    for k in said:
        assert "the loop it marked runs at most once and is not written" in lines[k]
        assert lines[k + 1].lstrip().startswith("for (int c2 = N % 4; c2 <= 7;"), lines[k + 1]
