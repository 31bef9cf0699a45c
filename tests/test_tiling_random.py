"""Random affine programs through isl's scheduler and the tiling pass, checked by
legality (isl) and by execution against the original (gcc -O2 -fopenmp, 2 threads).

The programs (tests/oracle_programs.py) mix several statements, imperfect and
triangular nests, guards, and the scalar ``s`` (copied out after the scop, so it is
live-out): a parallel loop writing ``s`` must get a reduction clause or stay sequential.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_programs import ARRAYS, EXTENT, programs
from polysched.emit_c import CodegenError, emit_file
from polysched.tiling import TileOptions, tile_with_report
from test_tiling_support import IslDeps, have_cc, isl_schedule, legal, run_c, same_numbers, scop_of

EXAMPLES = int(os.environ.get("POLYSCHED_RANDOM_EXAMPLES", "20"))
pytestmark = pytest.mark.skipif(not have_cc(), reason="no gcc")


def main_for(params: tuple[str, ...], values: dict[str, int]) -> str:
    """A main that fills every array, calls the kernel and prints every element."""
    lines = ["#include <stdio.h>"]
    for name, rank in ARRAYS.items():
        if rank:
            lines.append(f"static double {name}" + f"[{EXTENT}]" * rank + ";")
    lines += ["int main(void) {", "  double s_out[1] = {0.25};", "  int c = 0;"]
    for name, rank in ARRAYS.items():
        if rank == 1:
            lines.append(f"  for (int a = 0; a < {EXTENT}; a++) {name}[a] = (c++ % 7) * 0.125;")
        elif rank == 2:
            lines.append(f"  for (int a = 0; a < {EXTENT}; a++) for (int b = 0; b < {EXTENT}; b++) "
                         f"{name}[a][b] = (c++ % 11) * 0.0625;")
    args = [str(values[p]) for p in params] + [n for n, r in ARRAYS.items() if r] + ["s_out"]
    lines.append(f"  kernel({', '.join(args)});")
    for name, rank in ARRAYS.items():
        if rank == 1:
            lines.append(f'  for (int a = 0; a < {EXTENT}; a++) printf("%.12g\\n", {name}[a]);')
        elif rank == 2:
            lines.append(f"  for (int a = 0; a < {EXTENT}; a++) for (int b = 0; b < {EXTENT}; b++) "
                         f'printf("%.12g\\n", {name}[a][b]);')
    lines += ['  printf("%.12g\\n", s_out[0]);', "  return 0;", "}"]
    return "\n".join(lines) + "\n"


options = st.builds(
    TileOptions,
    sizes=st.one_of(st.none(), st.lists(st.integers(1, 5), min_size=1, max_size=3)),
    l2tile=st.booleans(), parallel=st.just(True), wavefront=st.booleans(),
    simd=st.booleans(), tile_depth1=st.booleans(), intra_tile_reorder=st.booleans(),
    unroll=st.sampled_from([None, 2]))


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(program=programs(), options=options)
def test_random_programs_tiled_and_parallel(program, options):
    values = {"N": 5, "M": 4}
    source = program.to_c() + main_for(program.params, values)
    scop = scop_of(source, "random.c")
    deps = IslDeps(scop)
    untiled = isl_schedule(scop, deps)
    if not legal(untiled, deps.validity):
        # isl's scheduler, called bare, gave a tree of its domain alone for a downward
        # loop carrying a dependence (seed 320507364936306741701792553818063503041);
        # polysched's own call of it checks and falls back (polysched.schedule). The
        # tiling pass is tested on the original schedule instead.
        untiled = scop.schedule
    result, report = tile_with_report(scop, deps, untiled, options)
    assert legal(result, deps.validity), str(report)
    # code generation may refuse a tree (CodegenError: e.g. isl's AST would divide a
    # negative value with C's '%'); then, as optimize does, the schedule before tiling,
    # then the original one
    for schedule in (result, untiled, scop.schedule):
        try:
            text = emit_file([scop], [schedule])
            break
        except CodegenError:
            continue
    assert same_numbers(run_c(source), run_c(text)), f"{report}\n{text}"
