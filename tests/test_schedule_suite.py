"""The scheduler on the suite kernels (C files through polysched.scop.extract): every
schedule legal, and the code emitted from it computes the same outputs as the original
(compiled and run by polysched.bench.verify at the MINI size)."""
from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

import test_schedule_support as K
from polysched.dependence import analyze
from polysched.schedule import ScheduleError, ScheduleOptions, compute, describe_schedule

KERNELS = Path(__file__).resolve().parents[1] / "polysched" / "bench" / "kernels"
CORE = ["jacobi-1d", "jacobi-2d", "seidel-2d", "gemm", "2mm", "3mm", "lu", "cholesky"]
MODES = [("pluto", "smart"), ("pluto", "max"), ("pluto", "no"), ("isl", "smart")]


@functools.lru_cache(maxsize=None)
def scop_and_deps(kernel: str):
    from polysched.scop import extract

    path = KERNELS / f"{kernel}.c"
    if not path.exists():
        pytest.skip(f"{path.name} not in the suite yet")
    scops = extract(path, defines={"MINI_DATASET": None})
    assert len(scops) == 1
    return scops[0], analyze(scops[0])


@pytest.mark.parametrize("kernel", CORE)
@pytest.mark.parametrize("scheduler, fuse", MODES)
def test_suite_schedules_are_legal(kernel, scheduler, fuse):
    scop, deps = scop_and_deps(kernel)
    sched = compute(scop, deps, ScheduleOptions(scheduler=scheduler, fuse=fuse))
    K.assert_legal(scop, deps, sched)


def test_suite_jacobi_2d_and_seidel_2d_tile_as_one_band():
    for kernel, skewed in (("jacobi-2d", 2), ("seidel-2d", 2)):
        scop, deps = scop_and_deps(kernel)
        sched = compute(scop, deps)
        band = sched.get_root().child(0)
        assert band.band_get_permutable() and band.band_n_member() == 3
        stmt = scop.statements[0].name
        rows = K.rows(band, stmt)
        assert sum(1 for r in rows if sum(1 for c in r[:-1] if c) > 1) >= skewed, rows


def test_adi_needs_negative_coefficients():
    """adi runs some loops downwards: Pluto's non-negative space has no hyperplane."""
    scop, deps = scop_and_deps("adi")
    with pytest.raises(ScheduleError):
        compute(scop, deps)
    sched = compute(scop, deps, ScheduleOptions(negative_coefficients=True))
    K.assert_legal(scop, deps, sched)


def test_describe_names_iterators_and_dependences():
    scop, deps = scop_and_deps("jacobi-1d")
    text = describe_schedule(compute(scop, deps), deps,
                             {s.name: s.iterators for s in scop.statements})
    s0, s1 = (s.name for s in scop.statements)
    assert f"{s0}: (t, 2t + i, 0)" in text
    assert f"{s1}: (t, 1 + 2t + i, 1)" in text
    assert "permutable" in text and f"raw {s0}->{s1}" in text


def _emit_and_verify(kernel, scheduler, fuse, tmp_path):
    from polysched import emit_c
    from polysched.bench import verify

    scop, deps = scop_and_deps(kernel)
    sched = compute(scop, deps, ScheduleOptions(scheduler=scheduler, fuse=fuse))
    out = tmp_path / f"{kernel}.c"
    out.write_text(emit_c.emit_file([scop], [sched]))
    return verify(KERNELS / f"{kernel}.c", out, dataset="MINI")


@pytest.mark.skipif(shutil.which("gcc") is None and shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("kernel", CORE)
@pytest.mark.parametrize("scheduler, fuse", MODES)
def test_suite_emitted_code_computes_the_same(kernel, scheduler, fuse, tmp_path):
    verdict = _emit_and_verify(kernel, scheduler, fuse, tmp_path)
    assert verdict.ok, verdict.summary()
