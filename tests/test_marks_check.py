"""``check`` validates marks: a ``parallel``/``simd``/``ivdep`` mark must sit right above
a band whose first loop carries no conflict (two instances in different iterations
touching one element, one writing), and unknown marks are refused. The oracle for the
legal cases is execution: the marked code is compiled with OpenMP and run at 2 threads
against the original."""
from __future__ import annotations

import dataclasses
import re
import subprocess
import sys

import islpy as isl
import pytest

from polysched.bench import get, verify
from polysched.dependence import analyze, check
from polysched.emit_c import emit_file
from polysched.scop import extract


def _bands(node, out):
    if node.get_type() == isl.schedule_node_type.band:
        out.append(node)
    for k in range(node.n_children()):
        _bands(node.child(k), out)
    return out


@pytest.fixture(scope="module")
def gemm():
    [scop] = extract(get("gemm").path)
    return scop, analyze(scop)


def test_parallel_mark_on_reduction_loop_is_illegal(gemm):
    scop, deps = gemm
    k_band = _bands(scop.schedule.get_root(), [])[-2]       # S1's k loop: C[i][j] += ...
    verdict = check(scop, deps, k_band.insert_mark(isl.Id("parallel")).get_schedule())
    assert not verdict.legal
    [violation] = verdict.violations
    assert violation.kind == "mark" and "carries a dependence" in str(violation)
    source, sink = violation.witness.source, violation.witness.sink
    assert source[0] == sink[0] == "S1"
    # the witness pair writes the same C[i][j] from two k iterations
    assert source[1][0] == sink[1][0] and source[1][2] == sink[1][2] and source[1][1] != sink[1][1]


def test_parallel_mark_on_independent_loop_is_legal_and_runs(gemm, tmp_path):
    scop, deps = gemm
    j_band = _bands(scop.schedule.get_root(), [])[-1]
    schedule = j_band.insert_mark(isl.Id("parallel")).get_schedule()
    assert check(scop, deps, schedule).legal
    out = tmp_path / "gemm_par.c"
    out.write_text(emit_file([scop], [schedule]))
    assert "#pragma omp parallel for" in out.read_text()
    verdict = verify(get("gemm").path, out, defines={"MINI_DATASET": None}, workdir=tmp_path)
    assert verdict.ok, verdict.reason


def test_mark_above_a_sequence_is_illegal(gemm):
    scop, deps = gemm
    sequence = scop.schedule.get_root().child(0).child(0)
    assert sequence.get_type() == isl.schedule_node_type.sequence
    verdict = check(scop, deps, sequence.insert_mark(isl.Id("parallel")).get_schedule())
    assert not verdict.legal and "not directly above a band" in str(verdict)


def test_unknown_mark_is_refused_by_check_and_emit(gemm):
    scop, deps = gemm
    schedule = scop.schedule.get_root().child(0).insert_mark(isl.Id("paralel")).get_schedule()
    assert "unknown mark 'paralel'" in str(check(scop, deps, schedule))
    with pytest.raises(ValueError, match="unknown mark"):
        emit_file([scop], [schedule])


def test_check_cli_reports_the_racy_mark(gemm):
    scop, _ = gemm
    k_band = _bands(scop.schedule.get_root(), [])[-2]
    text = str(k_band.insert_mark(isl.Id("parallel")).get_schedule())
    proc = subprocess.run([sys.executable, "-m", "polysched", "check", str(get("gemm").path), "--schedule", text],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "mark 'parallel' is on a loop that carries a dependence" in proc.stdout


def test_mark_is_checked_only_where_the_code_runs_under_the_context():
    """Writes ``A[i + n + m]`` and reads ``A[i]`` overlap only for ``m < 0``, which the
    context (``m >= 1``, checked at run time by the emitted code) rules out: the loop is
    parallel where the optimized code runs. (Found by the fuzzer: a wavefront mark was
    refused as illegal because of parameter values outside the context.)"""
    [scop] = extract("void f(int n, int m, double *A) {\n  int i;\n#pragma scop\n"
                     "  for (i = 0; i < n; i++)\n    A[i + n + m] = A[i] * 2.0;\n#pragma endscop\n}\n")
    deps = analyze(scop)
    band = _bands(scop.schedule.get_root(), [])[0]
    assert check(scop, deps, band.insert_mark(isl.Id("parallel")).get_schedule()).legal
    # and where the parameters may take any value, it is not
    wide = dataclasses.replace(scop, context=isl.Set.universe(scop.context.get_space()))
    verdict = check(wide, analyze(wide), band.insert_mark(isl.Id("parallel")).get_schedule())
    assert not verdict.legal


_SCALARS = """#include <stdio.h>
double A[1000], B[1000]; double s; static double t;
int main(void) { int i;
  for (i = 0; i < 1000; i++) A[i] = i % 7;
  s = 1.0;
#pragma scop
  for (i = 0; i < 1000; i++)
    s = s * 0.5 + A[i];
  for (i = 0; i < 1000; i++) {
    t = A[i] * 2.0;
    B[i] = t + 1.0;
  }
  for (i = 0; i < 1000; i++)
    s = s + B[i];
#pragma endscop
  printf("%.17g %.17g\\n", s, B[999]);
  return 0; }
"""


@pytest.mark.parametrize("depth_stmt, mark, why", [
    ("S0", "parallel(reduction=+:s)", "is not a '+' reduction"),       # s = s * 0.5 + A[i]
    ("S0", "parallel(private=s)", "cannot be private"),
    ("S3", "parallel(reduction=*:s)", "is not a '*' reduction"),        # s = s + B[i]
    ("S3", "parallel(private=s)", "cannot be private"),
])
def test_declared_clauses_of_a_parallel_mark_are_checked(depth_stmt, mark, why):
    """A hand-placed ``Parallel`` mark's clauses are claims too: a false ``reduction`` or
    ``private`` was accepted by ``check`` and compiled to wrong results (the output of
    ``s = s * 0.5 + A[i]`` under ``reduction(+:s)`` was 9.22 instead of 8.22)."""
    import polysched as ps

    p = ps.Program.from_source(_SCALARS)
    with pytest.raises(ps.TransformError, match=re.escape(why)):
        p.mark(depth_stmt, 0, mark)


def test_true_declared_clauses_pass_and_compute_the_same():
    import polysched as ps

    p = ps.Program.from_source(_SCALARS)
    q = p.mark("S1", 0, "parallel(private=t)").mark("S3", 0, "parallel(reduction=+:s)")
    assert q.check().legal
    # the reduction reassociates a floating-point sum: equal within rounding
    assert q.verify().status == "equal"
