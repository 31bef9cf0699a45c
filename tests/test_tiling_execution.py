"""Tiled (+ parallel) code runs and prints what the original prints.

Each program is scheduled (isl's scheduler, and the Pluto scheduler when it is
importable), tiled with polysched.tiling, emitted with polysched.emit_c.emit_file,
compiled with gcc -O2 -fopenmp, run with OMP_NUM_THREADS=2 and compared element by
element with the original program's output.
"""
from __future__ import annotations

import pytest

from polysched.emit_c import emit_file
from polysched.tiling import TileOptions, tile_with_report
from test_tiling_support import (GEMM, JACOBI2D, PARAMETRIC, PREFIX_SUM, PRIVATE, REDUCTION,
                                 ROWSUM, SEIDEL, IslDeps, have_cc, isl_schedule, legal, run_c,
                                 same_numbers, scop_of)

pytestmark = pytest.mark.skipif(not have_cc(), reason="no gcc")

PROGRAMS = {"gemm": GEMM, "jacobi2d": JACOBI2D, "seidel": SEIDEL, "reduction": REDUCTION,
            "private": PRIVATE, "prefix_sum": PREFIX_SUM, "rowsum": ROWSUM}
OPTIONS = {
    "model+parallel": TileOptions(parallel=True),
    "small+parallel+unroll": TileOptions(sizes=[4, 8, 16], parallel=True, unroll=2),
    "l2+parallel": TileOptions(sizes=[2, 4, 8], l2tile=True, parallel=True),
    "size1": TileOptions(sizes=[1, 1, 1], parallel=True, tile_depth1=True),
    "huge": TileOptions(sizes=[4096, 4096, 4096], parallel=True, tile_depth1=True),
}


def schedulers():
    result = {"isl": lambda scop, deps: isl_schedule(scop, deps)}
    try:
        from polysched.schedule import compute
    except ImportError:
        return result
    result["pluto"] = lambda scop, deps: compute(scop, deps)
    return result


_EXPECTED: dict[str, str] = {}


def expected_output(name: str, source: str, args=()) -> str:
    key = f"{name}:{args}"
    if key not in _EXPECTED:
        _EXPECTED[key] = run_c(source, args)
    return _EXPECTED[key]


def transformed(source, scheduler, options):
    scop = scop_of(source)
    deps = IslDeps(scop)
    schedule = schedulers()[scheduler](scop, deps)
    result, report = tile_with_report(scop, deps, schedule, options)
    assert legal(result, deps.validity)
    return emit_file([scop], [result]), report


@pytest.mark.parametrize("scheduler", sorted(schedulers()))
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_tiled_parallel_program_matches_original(program, scheduler):
    source = PROGRAMS[program]
    options = OPTIONS["model+parallel"]
    if program == "reduction":   # a floating-point sum: parallel only when reassociating is allowed
        assert "#pragma omp parallel for" not in transformed(source, scheduler, options)[0]
        options = TileOptions(parallel=True, reassociate=True)
    text, report = transformed(source, scheduler, options)
    if program in ("gemm", "jacobi2d", "seidel", "reduction", "private", "rowsum"):
        assert "#pragma omp parallel for" in text, report
    if program == "prefix_sum":
        assert "#pragma omp" not in text
    assert same_numbers(expected_output(program, source), run_c(text)), str(report)


@pytest.mark.parametrize("option", sorted(set(OPTIONS) - {"model+parallel"}))
@pytest.mark.parametrize("program", ["gemm", "jacobi2d", "seidel", "reduction"])
def test_tile_option_variants_match_original(program, option):
    source = PROGRAMS[program]
    text, report = transformed(source, "isl", OPTIONS[option])
    assert same_numbers(expected_output(program, source), run_c(text)), str(report)


@pytest.mark.parametrize("args", [("1", "1"), ("2", "1"), ("3", "2"), ("17", "50"), ("40", "50")])
def test_parametric_bounds_smaller_than_tiles(args):
    text, report = transformed(PARAMETRIC, "isl", TileOptions(sizes=[16, 32], parallel=True))
    assert report.bands[0].tiled and report.bands[0].wavefront
    assert same_numbers(expected_output("parametric", PARAMETRIC, args), run_c(text, args))
