"""Point loops in wavefronts (`TileOptions.point_wavefront`): in a tiled band whose
innermost loop carries a chain of updates at a constant distance (each iteration reads
what the one before wrote: seidel-2d's ``A[i][j - 1]``), the outermost point loop
becomes the sum of all point loops, so the inner ones carry nothing. Checked on the
structure (the loops, the report), the legality, and by running the programs (outputs
bit-identical to the original at 1 and 2 threads); and left off where the wavefront's
diagonal walk loses (a sum into one element, dependences of varying distance)."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

import polysched as ps
from polysched import pipeline
from polysched.bench import verify
from polysched.dependence.loops import is_parallel, rows
from polysched.scop import extract

KERNELS = Path(__file__).resolve().parent.parent / "polysched" / "bench" / "kernels"

# a 2-d recurrence of one statement with literal bounds: both loops carry, A[i][j - 1]
# is the chain along j
RECURRENCE = r"""
#include <stdio.h>
double A[40][50];
int main(void) {
  int i, j;
  for (i = 0; i < 40; i++) for (j = 0; j < 50; j++) A[i][j] = (i * 7 + j * 3) % 11 * 0.125;
#pragma scop
  for (i = 1; i < 40; i++)
    for (j = 1; j < 50; j++)
      A[i][j] = (A[i][j - 1] + A[i - 1][j]) / 3.0 + 0.25;
#pragma endscop
  for (i = 0; i < 40; i++) printf("%.17g\n", A[i][49] + A[i][i]);
  return 0;
}
"""


def tiled(path, **flags):
    return pipeline.optimize(path, pipeline.OptimizeOptions.from_flags(tile=True, parallel=True,
                                                                      tensorize=False, **flags))


def test_seidel_point_loops_run_in_wavefronts(tmp_path):
    result = tiled(KERNELS / "seidel-2d.c")
    [region] = result.regions
    [band] = region.tiling.tiled
    assert band.point_wavefront and "point loops in wavefronts" in band.summary()
    program = ps.Program(region.scop, region.deps).set_schedule(region.schedule)
    assert program.check().legal
    loops = [expr for _, expr in program.loops("S0")]
    # tile loops of (t, t + i, 2t + i + j), then the point loops: their sum, then two
    assert loops[3] == "4t + 2i + j" and loops[4:] == ["t + i", "2t + i + j"]
    # the claim checked on the dependences: inside the tile loops and the wavefront,
    # the two inner point loops carry none
    flat = region.schedule.get_map().intersect_domain(region.scop.domain)
    row = [isl.UnionMap.from_union_pw_aff(isl.MultiUnionPwAff.from_union_map(flat).get_at(k))
           for k in range(6)]
    assert is_parallel(region.deps.validity, rows(*row[:4]), row[4])
    assert is_parallel(region.deps.validity, rows(*row[:4], row[4]), row[5])
    assert not is_parallel(region.deps.validity, rows(*row[:3]), row[3])
    out = tmp_path / "seidel.c"
    out.write_text(result.text)
    verdict = verify(KERNELS / "seidel-2d.c", out, dataset="MINI", rtol=0, atol=0)
    assert verdict.status == "equal", verdict


def test_a_two_deep_recurrence_gets_it_and_stays_bit_identical(tmp_path):
    src = tmp_path / "rec.c"
    src.write_text(RECURRENCE)
    result = tiled(src)
    [band] = result.regions[0].tiling.tiled
    assert band.point_wavefront
    out = tmp_path / "out.c"
    out.write_text(result.text)
    verdict = verify(src, out, rtol=0, atol=0)       # at 1 and 2 threads
    assert verdict.status == "equal", verdict


@pytest.mark.parametrize("kernel", ["cholesky", "floyd-warshall", "jacobi-1d", "fdtd-2d", "nussinov", "gemm"])
def test_not_where_the_diagonal_walk_loses(kernel):
    """Sums into one element (cholesky, nussinov, gemm), a dependence of varying
    distance (floyd-warshall's path[i][k]), chains between two statements (jacobi-1d,
    fdtd-2d): the point loops keep their order (LARGE, 2 threads, it lost 2-8x there)."""
    result = tiled(KERNELS / f"{kernel}.c")
    assert not any(band.point_wavefront for region in result.regions if region.tiling
                   for band in region.tiling.bands)


def test_it_can_be_turned_off(tmp_path):
    result = tiled(KERNELS / "seidel-2d.c", point_wavefront=False)
    [band] = result.regions[0].tiling.tiled
    assert not band.point_wavefront
    loops = [expr for _, expr in ps.Program(result.regions[0].scop, result.regions[0].deps)
             .set_schedule(result.regions[0].schedule).loops("S0")]
    assert loops[3:] == ["t", "t + i", "2t + i + j"]


def test_the_recurrence_relation():
    """`ScopAccesses.recurrences` against the definition: seidel-2d's statement reads
    A[i][j - 1], written one j before in the same (t, i); never its own element (the
    same A[i][j] over t is the time loop's, not a chain)."""
    from polysched.dependence.scalars import ScopAccesses
    scop = extract(KERNELS / "seidel-2d.c")[0]
    chains = ScopAccesses(scop).recurrences()
    assert not chains.intersect(isl.UnionMap("[TSTEPS, N] -> { S0[t, i, j] -> S0[t, i, j + 1] }")).is_empty()
    assert chains.intersect(isl.UnionMap("[TSTEPS, N] -> { S0[t, i, j] -> S0[t', i, j] }")).is_empty()
    gemm = extract(KERNELS / "gemm.c")[0]
    assert ScopAccesses(gemm).recurrences().is_empty()      # C[i][j] += ...: one element per k


def test_adi_divides_along_independent_rows(tmp_path):
    """adi's sweeps divide by what the iteration before computed (p[i][j - 1]) along
    the stride-1 j, while i is parallel: i goes innermost in the tiled bands of those
    sweeps (independent divisions), j stays innermost where it carries no chain; the
    output is bit-identical at 1 and 2 threads. (Without the transposition of p and
    q, which test_layout.py checks: this is the tiler's choice on the arrays as written.)"""
    result = tiled(KERNELS / "adi.c", transpose_arrays=False)
    [region] = result.regions
    bands = [b for b in region.tiling.tiled]
    broken = [b for b in bands if any("carries a chain of updates" in note for note in b.notes)]
    assert len(broken) == 3 and all(b.point_order == [1, 0] for b in broken)
    program = ps.Program(region.scop, region.deps).set_schedule(region.schedule)
    assert program.check().legal
    # the innermost loop of the forward sweep's statements is i (member 0), not j
    for stmt in ("S3", "S4"):
        body = region.scop.statements[int(stmt[1:])].body
        assert body.startswith(("p[i][j]", "q[i][j]"))
        assert program.loops(stmt)[-1][1].endswith("i"), program.loops(stmt)
    out = tmp_path / "adi.c"
    out.write_text(result.text)
    verdict = verify(KERNELS / "adi.c", out, dataset="MINI", rtol=0, atol=0)
    assert verdict.status == "equal", verdict
    # turned off with the wavefronts: the chain stays innermost
    off = tiled(KERNELS / "adi.c", point_wavefront=False, transpose_arrays=False)
    assert not any("carries a chain" in note for b in off.regions[0].tiling.bands for note in b.notes)


def test_code_generation_past_its_budget_keeps_the_tiles_without_point_wavefronts(tmp_path, monkeypatch):
    """helper-30's 27-point seidel-3d: isl's AST of the point loops in wavefronts ran
    past the codegen budget, and the region came out untiled; the tiles alone take
    1 s. Here the failure is forced for the wavefront schedule only."""
    from polysched import emit_c

    src = tmp_path / "rec.c"
    src.write_text(RECURRENCE)
    wavefronts = str(tiled(src).regions[0].schedule)
    generate = emit_c.generate_described

    def failing(scop, schedule, **kwargs):
        if str(schedule) == wavefronts:
            raise emit_c.CodegenError("forced: code generation ran past its budget")
        return generate(scop, schedule, **kwargs)

    monkeypatch.setattr(emit_c, "generate_described", failing)
    result = tiled(src)
    [region] = result.regions
    assert region.fallback.startswith("the tiles without point-loop wavefronts"), region.fallback
    loops = [expr for _, expr in ps.Program(region.scop, region.deps).set_schedule(region.schedule).loops("S0")]
    assert len(loops) == 4 and loops[2:] == ["i", "j"], loops      # two tile loops, two point loops
    out = tmp_path / "out.c"
    out.write_text(result.text)
    verdict = verify(src, out, rtol=0, atol=0)
    assert verdict.status == "equal", verdict
