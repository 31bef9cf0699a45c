"""Random schedules, checked by execution.

The statement ``A[i + OFF][j + OFF] += 1 + (i * 7 + j) % 5`` touches each element once
per instance, so every bijective schedule is legal and the final array records which
instances ran how often: a missing, duplicated or out-of-domain iteration changes the
output. Hypothesis draws unimodular transforms (products of interchanges, skews and
reversals), shifts and tilings with parametric, partly negative domains: this stresses
floord/min/max and guards in the emitted C.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import islpy as isl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polysched.emit_c import generate, splice
from polysched.scop.model import Scop, Statement

GCC = shutil.which("gcc")
pytestmark = pytest.mark.skipif(GCC is None, reason="gcc not available")

SOURCE = r"""#include <stdio.h>
#ifndef N
#define N 9
#endif
#define OFF 40
static long A[2 * OFF][2 * OFF];
int main(void) {
  int i, j;
#pragma scop
  for (i = -N; i <= N; i++)
    for (j = i < 2 ? 1 - N : i - N - 1; j < 2 * N - i; j++)
      A[i + OFF][j + OFF] += 1 + (i * 7 + j + 2 * OFF) % 5;
#pragma endscop
  for (i = 0; i < 2 * OFF; i++) for (j = 0; j < 2 * OFF; j++) if (A[i][j]) printf("%d %d %ld\n", i, j, A[i][j]);
  return 0;
}
"""
DOMAIN = "[N] -> { S0[i, j] : -N <= i <= N and j < 2N - i and ((i < 2 and j >= 1 - N) or (i >= 2 and j >= i - N - 1)) }"


def make_scop() -> Scop:
    start = SOURCE.index("#pragma scop\n") + len("#pragma scop\n")
    end = SOURCE.index("#pragma endscop")
    domain = isl.Set(DOMAIN)
    stmt = Statement("S0", ["i", "j"], domain, [], "A[i + OFF][j + OFF] += 1 + (i * 7 + j + 2 * OFF) % 5;")
    udom = isl.UnionSet.from_set(domain)
    sched = isl.Schedule.from_domain(udom).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap("[N] -> { S0[i, j] -> [i, j] }").intersect_domain(udom)))
    return Scop("random.c", SOURCE, start, end, 9, 12, "main", ["N"], {"N": 9},
                isl.Set("[N] -> { : 1 <= N <= 30 }"), {}, [stmt], sched)


def run(source: str, workdir: Path, name: str, n: int) -> str:
    c_file, exe = workdir / f"{name}.c", workdir / name
    c_file.write_text(source)
    result = subprocess.run([GCC, "-O0", f"-DN={n}", str(c_file), "-o", str(exe)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{result.stderr}\n{source}"
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert out.returncode == 0
    return out.stdout


elementary = st.sampled_from(["swap", "skew+", "skew-", "rev0", "rev1"])


@st.composite
def schedules(draw):
    """``(affine rows in i, j, tile sizes or None)``."""
    rows = [[1, 0], [0, 1]]
    for op in draw(st.lists(elementary, min_size=0, max_size=4)):
        if op == "swap":
            rows = [rows[1], rows[0]]
        elif op == "skew+":
            rows = [rows[0], [rows[1][0] + rows[0][0], rows[1][1] + rows[0][1]]]
        elif op == "skew-":
            rows = [[rows[0][0] - rows[1][0], rows[0][1] - rows[1][1]], rows[1]]
        elif op == "rev0":
            rows = [[-rows[0][0], -rows[0][1]], rows[1]]
        else:
            rows = [rows[0], [-rows[1][0], -rows[1][1]]]
    shifts = [draw(st.integers(-5, 5)), draw(st.integers(-5, 5))]
    tiles = draw(st.one_of(st.none(), st.tuples(st.integers(2, 5), st.integers(2, 6))))
    return rows, shifts, tiles


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedules())
def test_random_unimodular_tiled_schedules_execute_correctly(spec):
    rows, shifts, tiles = spec
    scop = make_scop()
    exprs = [f"{a} * i + {b} * j + {c}" for (a, b), c in zip(rows, shifts)]
    dom = scop.domain
    umap = isl.UnionMap(f"[N] -> {{ S0[i, j] -> [{exprs[0]}, {exprs[1]}] }}").intersect_domain(dom)
    sched = isl.Schedule.from_domain(dom).insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(umap))
    if tiles is not None:
        band = sched.get_root().child(0)
        sizes = isl.MultiVal.zero(band.band_get_space()).set_val(0, isl.Val(tiles[0])).set_val(1, isl.Val(tiles[1]))
        sched = band.band_tile(sizes).get_schedule()
    new_source = splice(scop, generate(scop, sched))
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for n in (1, 7):
            expected = run(SOURCE, workdir, "orig", n)
            assert expected
            assert run(new_source, workdir, "new", n) == expected, new_source
