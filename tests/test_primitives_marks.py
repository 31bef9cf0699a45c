"""Typed marks (polysched.marks) and the mark primitives parallel, vectorize, unroll:
vocabulary round trips, what emit_c prints, check() validating marks, illegal marks
with the witness confirmed by brute force, execution at 1 and 2 threads."""
from __future__ import annotations

import re

import islpy as isl
import pytest

from primitives_oracle import confirm_race_witness
from test_program_api import MATMUL_IKJ

import polysched as ps
from polysched.bench import get
from polysched.dependence import check
from polysched.emit_c import emit_file
from polysched.marks import (Ivdep, MarkError, Parallel, Simd, Tensorize, Unroll, parse_mark,
                             to_id)

REDUCTIONS = """#include <stdio.h>
#define N 100
int a[N];
unsigned long s;
double x[N], y[N], d;
static double t;
static void kernel(void) {
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    s += a[i];
  for (i = 0; i < N; i++)
    d += x[i];
  for (i = 0; i < N; i++) {
    t = x[i] * 2.0;
    y[i] = t + 1.0;
  }
#pragma endscop
}
int main(void) {
  int i;
  for (i = 0; i < N; i++) { a[i] = i * 3 % 7; x[i] = 0.5 * i; }
  kernel();
  printf("%lu %.10g\\n", s, d);
  for (i = 0; i < N; i++) printf("%.10g\\n", y[i]);
  return 0;
}
"""


@pytest.mark.parametrize("mark,text", [
    (Parallel(), "parallel"),
    (Parallel(private=("t",), reductions=(("+", "s"),)), "parallel(private=t; reduction=+:s)"),
    (Parallel(reductions={"s": "+", "p": "*"}), "parallel(reduction=+:s,*:p)"),
    (Parallel(private=("t",), schedule="dynamic"), "parallel(private=t; schedule=dynamic)"),
    (Parallel(schedule=" guided , 8"), "parallel(schedule=guided,8)"),
    (Simd(), "simd"),
    (Ivdep(), "ivdep"),
    (Unroll(4), "unroll(4)"),
    (Tensorize("gemm", {"m": 4, "n": 8}), "tensorize(gemm; m=4, n=8)"),
])
def test_marks_round_trip_through_isl_ids_and_tree_text(mark, text):
    assert mark.text() == text and str(mark) == text
    ident = mark.to_id()
    assert isinstance(ident, isl.Id) and parse_mark(ident) == mark and type(mark).from_id(ident) == mark
    # through isl's printing and reading of a schedule tree
    tree = isl.Schedule.read_from_str(isl.DEFAULT_CONTEXT, '{ domain: "{ S[i] : 0 <= i < 4 }", '
                                      'child: { schedule: "[{ S[i] -> [(i)] }]" } }')
    marked = tree.get_root().child(0).insert_mark(to_id(mark)).get_schedule()
    back = isl.Schedule.read_from_str(isl.DEFAULT_CONTEXT, str(marked))
    assert parse_mark(back.get_root().child(0).mark_get_id()) == mark


def test_older_spellings_are_read():
    assert parse_mark("parallel private(a, b) reduction(+:s, r)") == \
        Parallel(("a", "b"), (("+", "s"), ("+", "r")))
    assert parse_mark("unroll 8") == Unroll(8)
    assert parse_mark("tensorize:mm") == Tensorize("mm")


@pytest.mark.parametrize("text", ["paralel", "parallel foo", "unroll", "unroll(0)", "simd 3",
                                  "parallel(shared=x)", "parallel(private=)", "parallel(private= ; )",
                                  "parallel(schedule=dyn)", "parallel(schedule=auto,4)",
                                  "parallel(schedule=dynamic,0)", "parallel(schedule=static,x)"])
def test_unknown_marks_are_errors(text):
    with pytest.raises(MarkError):
        parse_mark(text)
    assert issubclass(MarkError, ps.PolyschedError)


@pytest.mark.parametrize("text,message", [("bogus", "unknown mark 'bogus'"),
                                          ("unroll(0)", "between 1 and 64, got 0"),
                                          ("unroll(-3)", "between 1 and 64, got -3")])
def test_a_bad_mark_given_to_program_mark_is_a_transform_error(text, message):
    """A misuse of the primitive ``mark`` is a TransformError, as replaying it is
    (helper-58: a MarkError escaped a script catching TransformError; ``unroll(-3)``
    said a factor was missing)."""
    p = ps.Program.from_file(get("gemm").path)
    with pytest.raises(ps.TransformError, match=re.escape(f"mark('S1', 2, '{text}'): ") + ".*" + re.escape(message)):
        p.mark("S1", 2, text)


def test_parallel_and_vectorize_on_gemm():
    p = ps.Program.from_file(get("gemm").path).auto_schedule()
    q = p.parallel("S1", 0).vectorize("S1", 1)
    text = q.region_code()
    assert re.search(r"#pragma omp parallel for( if\(.*\))?\n", text) and "#pragma omp simd" in text
    # the tree holds the vocabulary's text, no OpenMP
    assert '"parallel"' in str(q.schedule) and "omp" not in str(q.schedule)
    assert q.verify().ok


@pytest.mark.parametrize("primitive", ["parallel", "vectorize"])
def test_mark_on_the_reduction_loop_is_a_race(primitive):
    p = ps.Program.from_file(get("gemm").path).auto_schedule()     # S1: i, j, k
    with pytest.raises(ps.TransformError, match="carries a dependence") as info:
        getattr(p, primitive)("S1", 2)
    # two k iterations write the same C[i][j]: same i and j, different k
    confirm_race_witness(p, info.value, lambda a, b: a[1] == b[1])
    (i0, k0, j0), (i1, k1, j1) = info.value.witness.source[1], info.value.witness.sink[1]
    assert (i0, j0) == (i1, j1) and k0 != k1


PREFIX_ROWS = """#include <stdio.h>
#define N 24
double A[N][N];
static void kernel(int n, int m) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < m; j++)
      A[i][j] = A[i][j] + A[i][j - 1];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = (i * 3 + j) % 7 - 2.5;
  kernel(N, N);
  for (int i = 0; i < N; i++) printf("%.17g\\n", A[i][N - 1]);
  return 0;
}
"""


def test_a_mark_follows_its_loop_through_an_interchange():
    """``parallel`` on i (rows independent), then i and j swapped: the mark stays on i,
    now the inner loop (it stayed above the band, on j, which carries the prefix sum)."""
    p = ps.Program.from_source(PREFIX_ROWS, filename="prefix.c").parallel("S0", 0).interchange("S0", 0, 1)
    assert p.check().legal
    code = p.region_code()
    # (inside the j loop, the fork's test before it: else the same loop in place)
    assert re.search(r"for \(int c0 = 1; c0 < m; .*\n\s*if \(.*\) \{\n\s*#pragma omp parallel for.*\n"
                     r"\s*for \(int c1 = 0; c1 < n;", code), code
    assert p.verify(None, threads=2).ok


def test_parallel_finds_private_and_reduction_scalars():
    p = ps.Program.from_source(REDUCTIONS, filename="reductions.c")
    q = p.parallel("S0", 0).parallel("S2", 0)
    text = q.region_code()
    assert "#pragma omp parallel for reduction(+:s)" in text
    assert "#pragma omp parallel for private(t)" in text
    assert q.verify(dataset=None).ok
    with pytest.raises(ps.TransformError, match="reassociate") as info:
        p.parallel("S1", 0)                                # a floating-point sum
    assert info.value.witness is not None
    r = p.parallel("S1", 0, reassociate=True)
    assert "reduction(+:d)" in r.region_code() and r.verify(dataset=None).ok


def test_declared_clauses_are_kept():
    p = ps.Program.from_source(REDUCTIONS, filename="reductions.c")
    with pytest.raises(ps.TransformError, match="pass reassociate=True"):
        p.parallel("S1", 0, reductions={"d": "+"})           # a floating-point sum
    q = p.parallel("S1", 0, reductions={"d": "+"}, reassociate=True)
    assert "#pragma omp parallel for reduction(+:d)" in q.region_code()
    assert ps.Program.from_source(REDUCTIONS).replay(q.trace).region_code() == q.region_code()


def test_unroll_mark_and_generic_mark():
    p = ps.Program.from_file(get("gemm").path).auto_schedule()
    q = p.unroll("S0", 1, 4)
    assert "#pragma GCC unroll 4" in q.region_code()
    assert q.mark("S0", 1, Unroll(8)).region_code().count("#pragma GCC unroll 8") == 1   # replaced
    assert "#pragma GCC unroll 2" in p.mark("S0", 1, "unroll(2)").region_code()
    with pytest.raises(ps.TransformError, match="must be between 1 and 64"):
        p.unroll("S0", 1, 0)
    assert p.unroll("S0", 1, 4).unmark("S0", 1).region_code() == p.region_code()


def test_unmark_of_a_loop_without_marks_is_refused():
    """A tester: unmark('S0', 1) on a loop with no mark succeeded silently and added a
    step to the trace. Refused; a trace that holds such a step (made before) replays."""
    p = ps.Program.from_source(MATMUL_IKJ, filename="mm.c")
    with pytest.raises(ps.TransformError) as info:
        p.unmark("S0", 1)
    assert str(info.value) == "unmark('S0', 1): loop 1 of S0 has no mark"
    with pytest.raises(ps.TransformError, match=re.escape("unmark('S0', 2): loop 2 of S0 has no mark")):
        p.parallel("S0", 0).unmark("S0", 0).unmark("S0", 2)
    assert "simd" not in str(p.vectorize("S0", 2).unmark("S0", 2).schedule)
    old = p.replay([{"op": "unmark", "args": {"stmt": "S0", "depth": 1}}])
    assert old.region_code() == p.region_code() and len(old.trace) == 1


def test_check_and_emit_refuse_what_they_cannot_honour():
    p = ps.Program.from_file(get("gemm").path)
    scop, deps = p.scop, p.deps
    node = scop.schedule.get_root().child(0)
    unknown = node.insert_mark(isl.Id("paralel")).get_schedule()
    assert "unknown mark 'paralel'" in str(check(scop, deps, unknown))
    with pytest.raises(ValueError, match="unknown mark"):
        emit_file([scop], [unknown])
    tensorize = node.insert_mark(Tensorize("mm").to_id()).get_schedule()
    with pytest.raises(ValueError):
        emit_file([scop], [tensorize])                     # no back end for it yet: refused


def test_legacy_mark_text_prints_the_same_pragma():
    p = ps.Program.from_source(REDUCTIONS, filename="reductions.c")
    q = p.parallel("S2", 0)
    legacy = str(q.schedule).replace('"parallel(private=t)"', '"parallel private(t)"')
    assert legacy != str(q.schedule)
    tree = isl.Schedule.read_from_str(q.scop.domain.get_ctx(), legacy)
    assert q.set_schedule(tree).region_code() == q.region_code()


def test_unroll_factors_are_small_integers():
    """gcc refuses '#pragma GCC unroll N' for N >= 65535 (a probe's unroll(.., 70000)
    compiled to code gcc rejects); '4' and True are not factors. The bound is
    --unroll's (MAX_JAM)."""
    from polysched.limits import MAX_JAM
    p = ps.Program.from_file(get("gemm").path)
    assert "#pragma GCC unroll 64" in p.unroll("S1", 2, MAX_JAM).c_code()
    for factor in (MAX_JAM + 1, 70000, 2 ** 70, 0, "4", True, 4.0):
        with pytest.raises(ps.TransformError, match="unroll factor"):
            p.unroll("S1", 2, factor)
    with pytest.raises(MarkError, match="between 1 and 64"):
        parse_mark("unroll(99999999999999999999)")


def test_a_parallel_loop_inside_a_simd_loop_is_refused():
    """OpenMP allows no parallel region inside a simd loop, and gcc refuses the code
    (a probe: vectorize('S0', 0) then parallel('S1', 2) was accepted). check() now
    names the mark."""
    p = ps.Program.from_file(get("gemm").path)
    with pytest.raises(ps.TransformError, match="inside a loop marked 'simd'"):
        p.vectorize("S0", 0).parallel("S1", 2)


def test_parallel_and_vectorize_on_one_loop_in_either_order():
    """A tester: parallel('S0', 2).vectorize('S0', 2) printed 'omp parallel for simd',
    vectorize('S0', 2).parallel('S0', 2) was refused as "mark 'parallel' is inside a
    loop marked 'simd'", though it is the same loop. The parallel mark goes above the
    simd mark either way (one tree, one program); a tree written with them the other
    way round is that loop too."""
    p = ps.Program.from_source(MATMUL_IKJ, filename="mm.c")
    first = p.parallel("S0", 2).vectorize("S0", 2)
    second = p.vectorize("S0", 2).parallel("S0", 2)
    assert second == first and str(second.schedule) == str(first.schedule)
    assert "#pragma omp parallel for simd" in second.region_code()
    swapped = str(first.schedule).replace('"parallel"', '"X"').replace('"simd"', '"parallel"').replace('"X"', '"simd"')
    assert swapped != str(first.schedule)
    assert p.set_schedule(swapped).region_code() == first.region_code()


@pytest.mark.parametrize("build, refused", [
    (lambda p: p.unroll("S0", 2, 4).vectorize("S0", 2), "vectorize('S0', 2): loop 2 of S0 is marked 'unroll(4)'"),
    (lambda p: p.vectorize("S0", 2).unroll("S0", 2, 4), "unroll('S0', 2, 4): loop 2 of S0 is marked 'simd'"),
    (lambda p: p.unroll("S0", 0, 4).parallel("S0", 0), "parallel('S0', 0): loop 0 of S0 is marked 'unroll(4)'"),
    (lambda p: p.parallel("S0", 0).unroll("S0", 0, 2), "unroll('S0', 0, 2): loop 0 of S0 is marked 'parallel'"),
    (lambda p: p.mark("S0", 0, "parallel").mark("S0", 0, "unroll(2)"),
     "mark('S0', 0, 'unroll(2)'): loop 0 of S0 is marked 'parallel'"),
    (lambda p: p.mark("S0", 2, Unroll(2)).mark("S0", 2, Simd()), "mark('S0', 2, 'simd'): loop 2 of S0 is marked 'unroll(2)'"),
])
def test_unroll_and_an_openmp_mark_on_one_loop_are_refused(build, refused):
    """A tester: unroll and vectorize (or parallel) on one loop were accepted and the
    trace kept the unroll, but the C had only '/* polysched: unroll dropped: cannot
    follow an OpenMP pragma */' (gcc 12 rejects '#pragma GCC unroll' next to an OpenMP
    loop pragma). The step that would put them together is refused, saying why."""
    p = ps.Program.from_source(MATMUL_IKJ, filename="mm.c")
    with pytest.raises(ps.TransformError) as info:
        build(p)
    message = str(info.value)
    assert message.startswith(refused + ", and gcc cannot unroll a loop that carries an OpenMP pragma"), message
    assert "\n" not in message and info.value.witness is None


def test_unroll_next_to_an_openmp_mark_on_another_loop_is_kept():
    """The refusal is for one loop only: the unroll on the loop around the simd loop
    (as auto_tile puts it) is printed, and a second unroll replaces the first."""
    p = ps.Program.from_source(MATMUL_IKJ, filename="mm.c")
    q = p.parallel("S0", 0).vectorize("S0", 2).unroll("S0", 1, 4).unroll("S0", 1, 2)
    code = q.region_code()
    assert "#pragma GCC unroll 2" in code and "#pragma omp simd" in code and "dropped" not in code
    assert q.verify().ok


def test_a_scalar_is_named_once_per_clause(tmp_path):
    """helper-11: private=["t", "t"] and reductions [("+", "s"), ("+", "s")] were kept
    and printed as 'private(t, t)' / 'reduction(+:s, s)', which gcc refuses. A repeated
    name is one name; two operators for one scalar, or a private reduction, are refused."""
    assert Parallel(("t", "t"), (("+", "s"), ("+", "s"))).text() == "parallel(private=t; reduction=+:s)"
    assert parse_mark("parallel(private=t,t; reduction=+:s,+:s)") == Parallel(("t",), (("+", "s"),))
    with pytest.raises(MarkError, match="two reduction operators"):
        Parallel((), (("+", "s"), ("*", "s")))
    with pytest.raises(MarkError, match="both private and a reduction"):
        Parallel(("s",), (("+", "s"),))
    source = tmp_path / "k.c"
    source.write_text(REDUCTIONS)
    p = ps.Program.from_file(source).parallel("S0", 0, reductions=[("+", "s"), ("+", "s")])
    assert "reduction(+:s)" in p.region_code() and "s, s" not in p.region_code()
    assert p.verify(dataset=None).status == "equal"


def test_a_race_witness_states_no_order(tmp_path):
    """helper-19: a parallel mark's witness said "S0[0] ... must run before S0[1]" on a
    loop that runs downwards, where S0[1] runs first. A race has no order: the message
    says the two instances touch one element."""
    path = tmp_path / "back.c"
    path.write_text("#define N 8\ndouble x[N];\nvoid f(void) {\n#pragma scop\n"
                    "  for (int i = N - 2; i >= 0; i--)\n    x[i] = x[i + 1] * 0.5;\n#pragma endscop\n}\n")
    with pytest.raises(ps.TransformError) as info:
        ps.Program.from_file(path).parallel("S0", 0)
    assert "touch the same element, one writing" in str(info.value)
    assert "must run before" not in str(info.value)


def test_a_parallel_schedule_becomes_openmps_clause_and_runs_the_same():
    """``parallel(stmt, depth, schedule=...)`` puts OpenMP's ``schedule`` clause on the
    loop, next to its other clauses; the program prints what the original does at 1
    and 2 threads. Two marks on one loop with different schedules are refused, a bad
    schedule is a TransformError."""
    from polysched.emit_c.marks import merged_parallel, openmp_clauses
    assert openmp_clauses(Parallel(("t",), (("+", "s"),), "dynamic,4")) == \
        "private(t) reduction(+:s) schedule(dynamic, 4)"
    assert merged_parallel([Parallel(("t",)), Parallel(schedule="dynamic")]) == Parallel(("t",), (), "dynamic")
    with pytest.raises(MarkError, match="two schedules: dynamic and guided"):
        merged_parallel([Parallel(schedule="guided"), Parallel(schedule="dynamic")])
    p = ps.Program.from_file(get("syrk").path).auto_schedule()
    with pytest.raises(ps.TransformError, match="schedule 'fast': the kind is one of"):
        p.parallel("S1", 0, schedule="fast")
    q = p.parallel("S1", 0, schedule="guided,2")
    assert "#pragma omp parallel for schedule(guided, 2)" in q.c_code()
    assert ps.Program.from_file(get("syrk").path).replay(q.trace).c_code() == q.c_code()
    verdict = q.verify()
    assert verdict.ok, verdict.reason
