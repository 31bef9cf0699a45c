"""Diamond (concurrent-start) tiling: the scheduler's hyperplanes, the concurrent start
itself (read off the tiled schedule with isl), and execution against the original."""
from __future__ import annotations

import islpy as isl
import pytest

import polysched as ps
from polysched.bench import get
from polysched.dependence import is_permutable, mupa_rows


def _band(program):
    node = program.schedule.get_root().child(0)
    assert node.get_type() == isl.schedule_node_type.band
    return node


def test_jacobi_1d_gets_the_diamond_pair_and_keeps_a_permutable_band():
    """Pluto's band for jacobi-1d is (t, 2t + i): tiles along i start one after the other.
    With diamond, the first member becomes 2t - i: the two members sum to 4t (the start
    face's normal) and both stay forward on every dependence."""
    plain = ps.Program.from_file(get("jacobi-1d").path).auto_schedule()
    diamond = ps.Program.from_file(get("jacobi-1d").path).auto_schedule(diamond=True)
    assert [text for _, text in plain.loops("S0")] == ["t", "2t + i"]
    assert [text for _, text in diamond.loops("S0")] == ["2t - i", "2t + i"]
    assert [text for _, text in diamond.loops("S1")] == ["1 + 2t - i", "1 + 2t + i"]
    band = _band(diamond)
    assert is_permutable(diamond.deps.validity, None, band.band_get_partial_schedule())
    assert diamond.check().legal


def _wavefronts_at_time_zero(program, stmt: str) -> isl.PwAff:
    """max - min of the outermost loop (the tile wavefront) over ``stmt``'s instances
    with t = 0."""
    dates = program.schedule.get_map().intersect_domain(program.scop.domain)
    start = isl.Set(f"{{ {stmt}[t, i] : t = 0 }}").align_params(dates.get_space().params())
    first = [m for m in _maps(dates) if m.get_tuple_name(isl.dim_type.in_) == stmt][0]
    first = first.intersect_domain(start)
    values = first.range().project_out(isl.dim_type.set, 1, first.dim(isl.dim_type.out) - 1)
    return values.dim_max(0).sub(values.dim_min(0))


def _maps(umap):
    out = []
    umap.foreach_map(out.append)
    return out


def test_diamond_tiles_start_concurrently_and_wavefront_tiles_do_not():
    """The tile wavefront (T0 + T1, its loop outermost, the tiles inside it parallel): at
    t = 0 every diamond tile is on one of two wavefronts whatever n, while Pluto's
    (t, 2t + i) tiles are on n / 256 of them (a pipeline fill)."""
    diamond = ps.Program.from_file(get("jacobi-1d").path).auto_schedule(diamond=True).auto_tile(parallel=True)
    plain = ps.Program.from_file(get("jacobi-1d").path).auto_schedule().auto_tile(parallel=True)
    assert any("diamond" in note for band in diamond.tiling_report.bands for note in band.notes)
    spread = _wavefronts_at_time_zero(diamond, "S0")
    assert spread.is_cst() and spread.get_pieces()[0][1].get_constant_val().to_python() <= 1
    assert not _wavefronts_at_time_zero(plain, "S0").is_cst()


@pytest.mark.parametrize("name", ["jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d"])
def test_diamond_tiled_stencils_compute_what_the_original_computes(name):
    """Both diamond members tiled with one size, the points run by time then space
    (the skew inside the tile), parallel wavefronts: outputs equal at 1 and 2 threads."""
    program = ps.Program.from_file(get(name).path).auto_schedule(diamond=True).auto_tile(parallel=True)
    [band] = [b for b in program.tiling_report.bands if b.tiled]
    assert band.sizes[0] == band.sizes[1] and band.wavefront
    assert "skew" in [step["op"] for step in program.tiling_report.steps()]
    assert program.verify().ok
    again = ps.Program.from_file(get(name).path).replay(program.trace)
    assert again.c_code() == program.c_code()


def test_diamond_leaves_bands_with_a_parallel_member_alone():
    """gemm's band has parallel members: nothing to start concurrently."""
    plain = ps.Program.from_file(get("gemm").path).auto_schedule()
    diamond = ps.Program.from_file(get("gemm").path).auto_schedule(diamond=True)
    assert diamond.schedule.plain_is_equal(plain.schedule)


def test_optimize_diamond_flags(tmp_path, capsys):
    from polysched.cli import main
    out = tmp_path / "out.c"
    assert main(["optimize", str(get("jacobi-2d").path), "-o", str(out), "--tile", "--parallel",
                 "--diamond", "--verify"]) == 0
    assert "#pragma omp parallel for" in out.read_text() and "diamond tiles" in capsys.readouterr().out
    assert main(["optimize", str(get("heat-3d").path), "-o", str(out), "--tile", "--parallel",
                 "--no-diamond"]) == 0
    assert "diamond tiles" not in capsys.readouterr().out


def test_the_default_chooses_diamond_for_deep_time_bands_only():
    """By default (diamond=None) a time band of 4 members or more gets diamond tiles
    (heat-3d: measured 1.14x over the tile wavefront at 2 threads), a shallower one keeps
    the wavefront (jacobi-2d: 1.00x, fdtd-2d 0.94x); the choice is in the band's report."""
    from polysched.pipeline import OptimizeOptions, optimize
    for name, expected in (("heat-3d", True), ("jacobi-2d", False)):
        result = optimize(get(name).path, OptimizeOptions.from_flags(tile=True, parallel=True))
        [band] = [b for b in result.regions[0].tiling.bands if b.tiled]
        assert any("diamond" in note for note in band.notes) == expected, name
    heat = ps.Program.from_file(get("heat-3d").path).auto_schedule()
    assert [text for _, text in heat.loops("S0")][:2] == ["2t - i", "2t + i"]
    assert ps.Program.from_file(get("heat-3d").path).auto_schedule(diamond=False).loops("S0")[0][1] == "t"


def test_diamond_with_another_scheduler_is_refused():
    """Only the Pluto scheduler places diamond hyperplanes: asked of isl's, it did nothing."""
    for scheduler in ("isl", "identity"):
        with pytest.raises(ps.TransformError, match=f"the {scheduler} scheduler places none"):
            ps.Program.from_file(get("jacobi-1d").path).auto_schedule(scheduler, diamond=True)
