"""Fusion chosen by cost (``fuse="cost"``, the default): non-neighbouring nests of one
depth that share data are fused, unless a dependence path through a third nest forbids
it or the fused band would lose a permutable or parallel loop. Checked on the schedule
trees (which statements share a band, how deep it is), with isl's legality test and
by running the optimized programs against the originals at 1 and 2 threads."""
from __future__ import annotations

import islpy as isl
import pytest

import polysched as ps
from polysched.bench import get
from polysched.pipeline import OptimizeOptions, optimize
from polysched.schedule.fusion import NOMINAL_EXTENT, footprints, shared_volume

# A producer/consumer chain of depths 2, 3, 2, 3: S0 produces B; S1 (a product) and S2
# consume it; S3 consumes S2's D. S0 and S2 share A and B, S1 and S3 share W. Smartfuse
# cuts between every pair of textual neighbours (their depths differ): four nests.
CHAIN = r"""
#include <stdio.h>
#ifndef N
#define N 24
#endif
static double A[N][N], B[N][N], C[N][N], D[N][N], E[N][N], W[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (i * j % 7) / 7.0; W[i][j] = ((i + 2 * j) % 11) / 11.0;
      C[i][j] = 0.5; E[i][j] = 0.25;
    }
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      B[i][j] = A[i][j] * 2.0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        C[i][j] += B[i][k] * W[k][j];
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      D[i][j] = B[i][j] + A[i][j];
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        E[i][j] += D[i][k] * W[k][j];
#pragma endscop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g %.17g\n", C[i][j], E[i][j]);
  return 0;
}
"""

# S0 and S2 share A, but S1 (of another depth) reads S0's B and writes what S2 reads:
# S0 -> S1 -> S2, so S2 cannot join S0 without running both before and after S1.
THROUGH = r"""
#include <stdio.h>
#define N 20
static double A[N][N], B[N][N], s[N], D[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) A[i][j] = (i + j % 5) / 3.0;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      B[i][j] = A[i][j] + 1.0;
  for (i = 0; i < N; i++) {
    s[i] = 0.0;
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        s[i] += B[j][k] * 0.5;
  }
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      D[i][j] = A[i][j] * s[j];
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g\n", D[i][j]);
  return 0;
}
"""


def _top_parts(program) -> list[list[str]]:
    """The statements of each child of the outermost sequence (one part if there is none)."""
    node = program.schedule.get_root().child(0)
    if node.get_type() != isl.schedule_node_type.sequence:
        return [sorted(s.get_tuple_name() for s in _sets(node.get_domain()))]
    return [sorted(s.get_tuple_name() for s in _sets(node.child(k).filter_get_filter()))
            for k in range(node.n_children())]


def _sets(union):
    out = []
    union.foreach_set(out.append)
    return out


def _outer_band(program, stmt: str):
    """The outermost band node above ``stmt``."""
    node = program.schedule.get_root().child(0)
    while node.get_type() != isl.schedule_node_type.band:
        if node.get_type() in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
            [k] = [k for k in range(node.n_children())
                   if stmt in [s.get_tuple_name() for s in _sets(node.child(k).filter_get_filter())]]
            node = node.child(k)
        else:
            node = node.child(0)
    return node


def _band_depth(program, stmt: str) -> int:
    return _outer_band(program, stmt).band_n_member()


def _parallel_members(program, stmt: str) -> int:
    band = _outer_band(program, stmt)
    return sum(band.band_member_get_coincident(k) for k in range(band.band_n_member()))


def test_the_chain_fuses_the_2d_pair_and_the_3d_pair():
    smart = ps.Program.from_source(CHAIN).auto_schedule(fuse="smart")
    assert _top_parts(smart) == [["S0"], ["S1"], ["S2"], ["S3"]]
    cost = ps.Program.from_source(CHAIN).auto_schedule(fuse="cost")
    assert _top_parts(cost) == [["S0", "S2"], ["S1", "S3"]]
    # fused, each pair keeps its whole permutable band: 2 and 3 members
    assert _band_depth(cost, "S0") == _band_depth(cost, "S2") == 2
    assert _band_depth(cost, "S1") == _band_depth(cost, "S3") == 3
    assert cost.check().legal
    # the default is the cost policy
    assert _top_parts(ps.Program.from_source(CHAIN).auto_schedule()) == _top_parts(cost)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_fused_chain_computes_what_the_original_computes(threads):
    program = ps.Program.from_source(CHAIN).auto_schedule().auto_tile(parallel=True)
    assert _top_parts(program)[:1] == [["S0", "S2"]]
    assert program.verify(dataset=None, threads=threads, rtol=0, atol=0).ok


def test_a_product_pair_that_would_lose_a_loop_stays_apart():
    """2mm: the two products share tmp, but fused under i they keep 2 of their 3
    permutable loops (tmp's row must be complete before D's product reads it)."""
    program = ps.Program.from_file(get("2mm").path).auto_schedule(fuse="cost")
    assert _top_parts(program) == [["S0"], ["S1"], ["S2"], ["S3"]]
    assert _band_depth(program, "S1") == _band_depth(program, "S3") == 3


def test_no_join_across_a_nest_on_the_dependence_path():
    program = ps.Program.from_source(THROUGH).auto_schedule(fuse="cost")
    parts = _top_parts(program)
    assert ["S0", "S3"] not in parts and len(parts) >= 3
    assert parts.index(["S0"]) < parts.index(["S3"])
    assert program.check().legal
    assert program.auto_tile(parallel=True).verify(dataset=None, rtol=0, atol=0).ok


def test_shared_volume_counts_the_dimension_of_the_common_elements():
    scop = ps.Program.from_source(CHAIN).scop
    prints = footprints(scop.statements, scop.context)
    # S0 and S2 share two whole matrices (A and B)
    assert shared_volume(["S0"], ["S2"], prints) == 2 * NOMINAL_EXTENT ** 2
    # S1 and S3 share W
    assert shared_volume(["S1"], ["S3"], prints) == NOMINAL_EXTENT ** 2
    # S0 and S3 share nothing
    assert shared_volume(["S0"], ["S3"], prints) == 0
    # the region's dimension, not the array's: a row of a matrix, one element
    row = ps.Program.from_source(
        "#define N 9\ndouble A[N][N], x[N];\nvoid f(void) {\n  int j;\n#pragma scop\n"
        "  for (j = 0; j < N; j++) x[j] = A[2][j];\n  for (j = 0; j < N; j++) A[2][j] = x[j] + A[3][3];\n"
        "#pragma endscop\n}\n").scop
    prints = footprints(row.statements, row.context)
    assert shared_volume(["S0"], ["S1"], prints) == 2 * NOMINAL_EXTENT     # A's row 2 and x


def test_a_fusion_that_leaves_no_parallel_loop_is_undone_unless_it_streams_the_matrix_twice():
    """atax: tmp[i] = A[i]·x, then y[j] += A[i][j] * tmp[i]. Fused (smartfuse) under i,
    the reduction into y[j] runs along the one shared loop: no parallel loop, one band
    member. Apart, each product has a 2-deep band with a parallel loop, but A is read
    twice from memory where the source reads each row twice from cache: fusion by cost
    keeps the source's nests (LARGE, 2 threads: distributed ran at 0.90x of the source)."""
    smart = ps.Program.from_file(get("atax").path).auto_schedule(fuse="smart")
    assert any("S2" in part and "S3" in part for part in _top_parts(smart))
    assert _parallel_members(smart, "S3") == 0 and _band_depth(smart, "S3") == 1
    apart = ps.Program.from_file(get("atax").path).auto_schedule(fuse="no")
    for stmt in ("S2", "S3"):
        assert _parallel_members(apart, stmt) >= 1 and _band_depth(apart, stmt) == 2
    assert apart.auto_tile(parallel=True).verify(threads=2).ok
    cost = ps.Program.from_file(get("atax").path).auto_schedule(fuse="cost")
    assert _top_parts(cost) == [["S0"], ["S1", "S2", "S3"]]
    assert cost.check().legal
    # the decisions, as the optimize summary and the bench records give them
    result = optimize(get("atax").path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert result.regions[0].fusion == [
        "S2 | S3 distributed: fused, their band would have 1 band member instead of 2",
        "kept the source's loop nests: the schedule found streams A 2 times (the source: 1)"]
    assert "  fusion: S2 | S3 distributed" in result.summary()


def test_a_fusion_where_one_statement_walks_columns_is_undone():
    """bicg: s[j] += r[i] * A[i][j] and q[i] += A[i][j] * p[j]. Fused, the shared band
    runs j outside i for the first and i outside j for the second: whichever loop is
    innermost walks A by columns for one of them. Apart, both walk rows, but A is
    streamed twice: fusion by cost keeps the source's nest, which reads it once."""
    smart = ps.Program.from_file(get("bicg").path).auto_schedule(fuse="smart")
    assert any("S2" in part and "S3" in part for part in _top_parts(smart))
    assert [t for _, t in smart.loops("S2")][-2:] == ["j", "i"]
    assert [t for _, t in smart.loops("S3")][-2:] == ["i", "j"]
    apart = ps.Program.from_file(get("bicg").path).auto_schedule(fuse="no")
    assert not any("S2" in part and "S3" in part for part in _top_parts(apart))
    tiled = apart.auto_tile(parallel=True)
    assert [t for _, t in tiled.loops("S2")][-1] == "j"
    # the second one's rows jammed by 4 around its j loop: q[i..i+3] in registers
    assert [t for _, t in tiled.loops("S3")][-3:] == ["floor(i/4)", "j", "i"]
    assert tiled.verify(threads=2).ok
    cost = ps.Program.from_file(get("bicg").path).auto_schedule(fuse="cost")
    assert _top_parts(cost) == [["S0"], ["S1", "S2", "S3"]]


def test_streamed_matrices_and_their_passes():
    """The arrays every access of which touches an element once (an oracle by hand for
    each kernel), and the outermost nests that read them."""
    from polysched.schedule.fusion import extra_passes, nests, streamed_arrays
    expected = {"bicg": ["A"], "atax": ["A"], "mvt": ["A"], "gemm": [], "jacobi-2d": [], "gesummv": ["A", "B"]}
    for kernel, arrays in expected.items():
        scop = ps.Program.from_file(get(kernel).path).scop
        assert sorted(streamed_arrays(scop.statements)) == arrays, kernel
    bicg = ps.Program.from_file(get("bicg").path)
    assert nests(bicg.scop.schedule) == [{"S0"}, {"S1", "S2", "S3"}]
    apart = bicg.auto_schedule(fuse="no")
    assert extra_passes(bicg.scop.statements, bicg.scop.schedule, apart.schedule) == [("A", 1, 2)]
    mvt = ps.Program.from_file(get("mvt").path)
    assert extra_passes(mvt.scop.statements, mvt.scop.schedule, mvt.auto_schedule(fuse="no").schedule) == []


def test_a_fusion_that_makes_one_product_walk_columns_is_undone():
    """mvt: x1[i] += A[i][j]*y1[j] and x2[i] += A[j][i]*y2[j]. Fused, one loop order
    serves both and one of them walks A by columns; apart, each walks A by rows."""
    smart = ps.Program.from_file(get("mvt").path).auto_schedule(fuse="smart")
    assert _top_parts(smart) == [["S0", "S1"]]
    assert [t for _, t in smart.auto_tile(parallel=True).loops("S0")][-1] == "i"   # A[i][j] by columns
    cost = ps.Program.from_file(get("mvt").path).auto_schedule(fuse="cost")
    assert _top_parts(cost) == [["S0"], ["S1"]]
    tiled = cost.auto_tile(parallel=True)
    # apart, the second product's innermost loop is i (A[j][i]: stride 1); the first
    # one's rows are jammed by 4 around its j loop
    assert [t for _, t in tiled.loops("S1")][-1] == "i"
    assert [t for _, t in tiled.loops("S0")][-3:] == ["floor(i/4)", "j", "i"]
    assert tiled.verify(threads=2).ok


# helper-53: the 4 instances of S0 (i = 0, 1e11, 2e11, 3e11) and S1 (i = 7), fused into
# one loop stepping by 1 over [0, 4e11) with guards: a program of 5 statement instances
# that never ended
STRIDED = """#include <stdio.h>
double A[8];
int main(void) {
  long i;
#pragma scop
  for (i = 0; i < 400000000000L; i += 100000000000L)
    A[i / 100000000000L] += 1.0;
  for (i = 7; i < 8; i++)
    A[i] = A[i] + 100.0;
#pragma endscop
  printf("%.17g %.17g %.17g\\n", A[0], A[3], A[7]);
  return 0;
}
"""


@pytest.mark.parametrize("fuse", ["smart", "cost", "max"])
def test_loops_of_different_strides_are_not_fused(fuse):
    program = ps.Program.from_source(STRIDED).auto_schedule(fuse=fuse)
    assert _top_parts(program) == [["S0"], ["S1"]]
    assert program.verify(dataset=None, threads=1, rtol=0, atol=0, timeout=20).ok


def test_loops_of_one_stride_still_fuse():
    """Two stride-2 loops sharing A fuse as before (their strides are the same)."""
    source = STRIDED.replace("i < 400000000000L; i += 100000000000L", "i < 8; i += 2") \
                    .replace("A[i / 100000000000L]", "A[i]").replace("i = 7; i < 8; i++", "i = 0; i < 8; i += 2")
    program = ps.Program.from_source(source).auto_schedule(fuse="smart")
    assert _top_parts(program) == [["S0", "S1"]]
    assert program.verify(dataset=None, threads=1, rtol=0, atol=0).ok


# A tester's two regions: the user's own reduction loop next to a sequential sum that
# shares its data, with a third statement reading the total; a prefix sum next to an
# integer reduction that is set first.
OWN_CLAUSE_AND_TOTAL = r"""
#include <stdio.h>
double a[300], b[300];
int main(void) {
  double s = 0.0, t = 0.0;
  for (int i = 0; i < 300; i++) { a[i] = 1.0 / (i + 1); b[i] = i % 3 - 1.0; }
#pragma scop
#pragma omp parallel for reduction(+:s)
  for (int i = 0; i < 300; i++)
    s += a[i] * b[i];
  for (int i = 0; i < 300; i++)
    t += a[i];
  for (int i = 0; i < 300; i++)
    b[i] = b[i] / (s + 2.0);
#pragma endscop
  printf("%.17g %.17g\n", s, t);
  for (int i = 0; i < 300; i += 7) printf("%.17g\n", b[i]);
  return 0;
}
"""

PREFIX_AND_COUNT = r"""
#include <stdio.h>
long a[3000], p[3000];
int main(void) {
  long tot;
  for (int i = 0; i < 3000; i++) { a[i] = i % 13 - 6; p[i] = 0; }
#pragma scop
  for (int i = 1; i < 3000; i++)
    p[i] = p[i - 1] + a[i];
  tot = 0;
  for (int i = 0; i < 3000; i++)
    tot += a[i] * a[i];
#pragma endscop
  printf("%ld %ld\n", tot, p[2999]);
  return 0;
}
"""


@pytest.mark.parametrize("source, reduced", [(OWN_CLAUSE_AND_TOTAL, "+:s"), (PREFIX_AND_COUNT, "+:tot")])
def test_a_reduction_read_or_set_by_another_statement_keeps_its_parallel_loop(source, reduced, tmp_path):
    """A tester: a statement setting the scalar (tot = 0) or reading its total
    (b[i] / s) made the cost fusion count the whole reduction as ordered, so it fused
    the reduction's loop with a sequential one sharing its data (t's sum, the prefix
    sum): one sequential loop. Only the dependences among the updates are the
    reduction's; the loop stays apart, parallel with its clause, and the program
    prints the original's values (bit for bit: s is one thread's sum at 1 thread and
    its parts' are exact here)."""
    from compiled_runs import outputs_of
    path = tmp_path / "k.c"
    path.write_text(source)
    result = optimize(path, OptimizeOptions.from_flags(parallel=True))
    code = result.text.split("polysched: the original code")[0]
    assert f"reduction({reduced}" in code, result.summary()     # (tot_wrapped: a signed sum)
    assert outputs_of(result.text, tmp_path, "new", [()], threads=(1,)) == \
        outputs_of(source, tmp_path, "orig", [()], threads=(1,))
