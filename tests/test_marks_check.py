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


def test_check_cli_refuses_an_unreadable_mark_as_bad_input(gemm):
    """A misspelt mark is a schedule that cannot be read: exit 2, as optimize --schedule
    (it was reported as an illegal schedule, exit 1, as if a claim were found false)."""
    scop, _ = gemm
    text = str(scop.schedule.get_root().child(0).insert_mark(isl.Id("paralel")).get_schedule())
    proc = subprocess.run([sys.executable, "-m", "polysched", "check", str(get("gemm").path), "--schedule", text],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == ("polysched: error: --schedule: unknown mark 'paralel' "
                                   "(known: parallel, simd, ivdep, unroll(N), tensorize(name), jam)")


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


def test_a_clause_naming_no_variable_is_the_first_reason():
    """helper-54: ``private=zz`` (no such variable) on a loop that carries a dependence
    was refused for the race only, 'zz' hidden in "(and 1 more violation)"."""
    import polysched as ps

    with pytest.raises(ps.TransformError, match=re.escape(
            "is illegal: mark 'parallel(private=zz)': 'zz' cannot be private (not a variable of the SCoP) "
            "(and 1 more violation)")):
        ps.Program.from_source(_SCALARS).mark("S0", 0, "parallel(private=zz)")


def test_true_declared_clauses_pass_and_compute_the_same():
    import polysched as ps

    p = ps.Program.from_source(_SCALARS)
    q = p.mark("S1", 0, "parallel(private=t)").mark("S3", 0, "parallel(reduction=+:s)")
    assert q.check().legal
    # the reduction reassociates a floating-point sum: equal within rounding
    assert q.verify().status == "equal"


_CLAUSE_MISUSES = r"""#include <stdio.h>
struct acc { double t; int n; };
double A[1000], B[1000]; double tmp[4]; int count; _Bool any; struct acc l;
int main(void) { int i;
  for (i = 0; i < 1000; i++) A[i] = i % 7;
#pragma scop
  for (i = 0; i < 1000; i++) {
    tmp[0] = A[i] * 2.0;
    B[i] = tmp[0] + 1.0;
  }
  for (i = 0; i < 1000; i++)
    count += A[i] * 0.5;
  for (i = 0; i < 1000; i++)
    any += A[i] > 3.0;
  for (i = 0; i < 1000; i++) {
    l.t = A[i] * 3.0;
    B[i] = l.t - 1.0;
  }
#pragma endscop
  printf("%.17g %d %d\n", B[999], count, (int)any);
  return 0; }
"""


@pytest.mark.parametrize("stmt, mark, why", [
    # each thread's copy of tmp[4] is uninitialised: the elements read after the loop are lost
    ("S0", "parallel(private=tmp)", "'tmp' cannot be private (an array or pointer"),
    # count += A[i] * 0.5 truncates at every step: partial sums truncate differently
    ("S2", "parallel(reduction=+:count)", "'count' cannot be a reduction (an integer updated with a value"),
    ("S3", "parallel(reduction=+:any)", "'any' cannot be a reduction (a _Bool update is no sum"),
    # the model's name of l.t: OpenMP has no such variable (the compiler refused the code)
    ("S4", "parallel(private=l__t)", "'l.t' is a struct member, which cannot be private"),
])
def test_clauses_name_plain_scalars_only(stmt, mark, why):
    """A helper's probe: these clauses were accepted and compiled to a crash, to lost or
    different results, or to code gcc refused."""
    import polysched as ps

    p = ps.Program.from_source(_CLAUSE_MISUSES)
    with pytest.raises(ps.TransformError, match=re.escape(why)):
        p.mark(stmt, 0, mark)


def test_stacked_parallel_marks_give_each_clause_once(tmp_path):
    """Two ``parallel(private=t)`` marks on one loop printed ``private(t) private(t)``,
    which gcc refuses."""
    from polysched.bench import compile_c, run_binary
    from polysched.emit_c import generate, splice

    scop = extract(_SCALARS)[0]
    band = [b for b in _bands(scop.schedule.get_root(), []) if "S1" in str(b.get_domain())][0]
    tree = band.insert_mark(isl.Id("parallel(private=t)")).insert_mark(isl.Id("parallel(private=t)"))
    text = generate(scop, tree.get_schedule())
    assert "#pragma omp parallel for private(t)\n" in text, text
    outputs = []
    for name, source in (("orig", _SCALARS), ("opt", splice(scop, text))):
        path = tmp_path / f"{name}.c"
        path.write_text(source)
        assert compile_c(path, path.with_suffix(""), openmp=True, cflags=["-O1"]).ok
        run = run_binary(path.with_suffix(""), threads=2, timeout=60)
        assert run.ok, run.reason
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
