"""polysched.Program as a value: constructors, misuse, traces (JSON, replay), schedules
in and out, errors, and the notebook views (summaries only)."""
from __future__ import annotations

import json

import islpy as isl
import pytest

import polysched as ps
from polysched.bench import get
from polysched.dependence import Legality


@pytest.fixture(scope="module")
def gemm():
    return ps.Program.from_file(get("gemm").path)


def test_program_holds_scop_deps_schedule_trace(gemm):
    assert gemm.scop.function == "kernel_gemm" and gemm.statements == ["S0", "S1"]
    assert isinstance(gemm.schedule, isl.Schedule) and len(gemm.trace) == 0
    assert str(gemm.schedule) == str(gemm.scop.schedule)
    assert isinstance(gemm.check(), Legality) and gemm.check().legal
    assert gemm.deps.flow is not None


def test_primitives_return_new_values(gemm):
    before = str(gemm.schedule)
    q = gemm.auto_schedule().interchange("S1", 0, 1)
    assert str(gemm.schedule) == before and len(gemm.trace) == 0
    assert [s["op"] for s in q.trace] == ["auto_schedule", "interchange"]
    assert q.scop is gemm.scop and q.deps is gemm.deps


@pytest.mark.parametrize("call,message", [
    # (a tester: the message did not start with the call, unlike the others)
    (lambda p: p.interchange("S5", 0, 1), "interchange('S5', 0, 1): unknown statement 'S5' (the statements are S0, S1)"),
    (lambda p: p.tile("S7", [4]), "tile('S7', [4], depth=0): unknown statement 'S7' (the statements are S0, S1)"),
    (lambda p: p.interchange("S0", 0, 2), "statement S0 has loops 0..1 in the current schedule, not loop 2"),
    (lambda p: p.reverse("S0", -1), "not loop -1"),
    (lambda p: p.skew("S0", "1", 0, 1), "must be an int"),
    (lambda p: p.parallel("S0", 9), "not loop 9"),
    (lambda p: p.replay([{"op": "explode", "args": {}}]), "unknown primitive 'explode'"),
    (lambda p: p.replay([{"op": "tile", "args": {"stmt": "S1", "size": [4]}}]), "unknown argument(s) size"),
    # found by a probe of the API: each escaped as KeyError, AttributeError, TypeError
    # or RecursionError
    (lambda p: p.replay([{"op": "tile"}]), "trace step 0 (tile): missing a required argument: 'stmt'"),
    (lambda p: p.loops("S9"), "no statement 'S9'"),
    (lambda p: p.mark("S1", 0, 5), "a mark is a polysched.marks value"),
    (lambda p: p.tile("S1", None), "tile sizes must be an int or a list of ints"),
    (lambda p: p.tile("S1", [2 ** 70, 4, 4]), "each tile size must be at most 1073741824"),
    (lambda p: p.unroll_and_jam("S1", 0, 10 ** 4), "factor must be at most 64"),
])
def test_misuse_is_one_sentence(gemm, call, message):
    with pytest.raises(ps.TransformError) as info:
        call(gemm)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert info.value.violation is None and info.value.witness is None


MATMUL_IKJ = """#include <stdio.h>
#define N 8
static double A[N][N], B[N][N], C[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = i + j; B[i][j] = i - j; C[i][j] = 0; }
#pragma scop
  for (i = 0; i < N; i++)
    for (k = 0; k < N; k++)
      for (j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%g\\n", C[i][j]);
  return 0;
}
"""


def test_loop_primitives_after_tensorize_say_why():
    """A tester: after tensorize('S0', 'dgemm_4x8'), loops, tile and interchange of S0
    said only "the instances of S0 are split over several branches of the sequence at
    [0, 0]: its loops below it have no single name", naming no call and not why."""
    q = ps.Program.from_source(MATMUL_IKJ, filename="mm.c").tensorize("S0", "dgemm_4x8")
    for call, what in [(lambda: q.loops("S0"), "loops('S0')"), (lambda: q.tile("S0", [4]), "tile('S0', [4], depth=0)"),
                       (lambda: q.interchange("S0", 0, 1), "interchange('S0', 0, 1)"),
                       (lambda: q.parallel("S0", 0), "parallel('S0', 0)")]:
        with pytest.raises(ps.TransformError) as info:
            call()
        message = str(info.value)
        assert message.startswith(f"{what}: S0 was tensorized: ") and "\n" not in message, message
        assert message.endswith("(loop primitives go before tensorize)")


def test_illegal_step_names_dependence_and_witness():
    p = ps.Program.from_file(get("seidel-2d").path)
    with pytest.raises(ps.TransformError) as info:
        p.interchange("S0", 0, 1)
    err = info.value
    assert isinstance(err, ps.PolyschedError) and isinstance(err, ValueError)
    assert err.kind == "raw" and err.violation.source == err.violation.sink == "S0"
    w = err.witness
    assert w.source[0] == w.sink[0] == "S0" and set(w.parameters) == {"TSTEPS", "N"}
    assert str(w) in str(err) and "[TSTEPS, N] -> {" in str(err)
    assert json.loads(json.dumps(w.to_json()))["sink"]["statement"] == "S0"
    assert isinstance(err.schedule, isl.Schedule)


def test_trace_is_json_and_replays(gemm, tmp_path):
    q = gemm.auto_schedule("pluto").tile("S1", [16, 16, 16]).parallel("S1", 0)
    document = json.loads(str(q.trace))
    assert document["polysched_trace"] == 1 and document["region"] == 0
    assert [s["op"] for s in document["steps"]] == ["auto_schedule", "tile", "parallel"]
    path = tmp_path / "t.json"
    path.write_text(q.trace.to_json())
    for form in (q.trace, str(q.trace), document, document["steps"], path, str(path)):
        again = ps.Program.from_file(get("gemm").path).replay(form)
        assert str(again.schedule) == str(q.schedule) and again.trace == q.trace
    assert ps.Trace.from_json(str(q.trace)) == q.trace
    assert q.trace.calls()[1] == "tile(stmt='S1', sizes=[16, 16, 16], depth=0)"


def test_schedules_in_as_map_or_tree_text(gemm):
    q = gemm.set_schedule("[NI, NJ, NK] -> { S0[i, j] -> [i, 0, j, 0]; S1[i, k, j] -> [i, 1, k, j] }")
    assert q.check().legal and q.verify().ok
    r = gemm.set_schedule(str(q.schedule))
    assert r.c_code() == q.c_code()
    with pytest.raises(ps.TransformError, match="is illegal"):
        gemm.set_schedule("[NI, NJ, NK] -> { S0[i, j] -> [1, i, j, 0]; S1[i, k, j] -> [0, i, k, j] }")
    with pytest.raises(ps.TransformError, match="cannot parse"):
        gemm.set_schedule("{ nonsense")


def test_a_set_schedule_step_replays_to_the_same_code():
    """The trace records the tree's isl text, and isl's text of a jammed tree (its
    isolate option) reads back as a tree that gives different, equivalent, code. The
    program now uses the tree read back from the recorded text, so its replay is
    byte-identical (it was not, on this kernel)."""
    text = """void f(int n, int m, double A[n + 3][m + 3]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      if (i > j)
        A[i][j] = A[j][i] * 0.5;
      if (j >= n - i)
        A[i][j] += 1.0;
    }
  for (i = 0; i < n; i++)
    for (j = i; j < m && j <= i + 2; j++)
      A[j][j - 2 >= 0 ? j - 2 : 0] = A[i][j] + 1.0;
#pragma endscop
}
"""
    p = ps.Program.from_source(text)
    jammed = p.unroll_and_jam(p.statements[-1], 0, 40)
    q = p.set_schedule(jammed.schedule)
    assert ps.Program.from_source(text).replay(q.trace).c_code() == q.c_code()


@pytest.mark.parametrize("schedule,message", [
    # isl's MultiUnionPwAff.from_union_map raised islpy.Error ("not single-valued")
    ("{ S0[i, j] -> [i, 0, j, 0]; S0[i, j] -> [i, 0, j, 1]; S1[i, k, j] -> [i, 1, k, j] }",
     "several times to some instance of S0"),
    # accepted, then isl's code generator raised islpy.Error ("new parameters")
    ("[Q] -> { S0[i, j] -> [i, 0, j, Q]; S1[i, k, j] -> [i, 1, k, j] }", "parameter Q, which the region"),
])
def test_schedules_isl_cannot_use_are_refused_in_one_sentence(gemm, schedule, message):
    with pytest.raises(ps.TransformError, match=message):
        gemm.set_schedule(schedule)
    tree = isl.Schedule.from_domain(gemm.scop.domain)
    if "several" in message:       # a tree whose sequence runs some S0 instances twice
        both = (f'{{ domain: "{gemm.scop.domain}", child: {{ sequence: [ {{ filter: "{{ S0[i, j] : i < 3 }}" }}, '
                '{ filter: "{ S0[i, j] : i >= 1; S1[i, k, j] }" } ] } }')
        with pytest.raises(ps.TransformError, match=message):
            gemm.set_schedule(both)
    if "Q" in schedule:
        with pytest.raises(ps.TransformError, match=message):
            gemm.set_schedule(tree.insert_partial_schedule(isl.MultiUnionPwAff(
                "[Q] -> [{ S0[i, j] -> [(i + Q)]; S1[i, k, j] -> [(i)] }]")))


def test_from_source_c_code_write(tmp_path):
    text = get("jacobi-1d").path.read_text()
    p = ps.Program.from_source(text, filename="j1d.c")
    q = p.auto_schedule().auto_tile(parallel=True)
    whole = q.c_code()
    assert whole.startswith(text[:text.index("#pragma scop")][:200])
    out = q.write(tmp_path / "out.c")
    assert out.read_text() == whole
    assert q.verify().ok
    with pytest.raises(ps.TransformError, match="region 3 does not exist"):
        ps.Program.from_source(text, region=3)


def test_from_source_verifies_with_the_headers_extraction_found(tmp_path, monkeypatch):
    """helper-28: ``#include "hdr.h"`` from the current directory was found by
    extraction, and verify (which compiles a copy elsewhere) failed: hdr.h not found."""
    (tmp_path / "hdr.h").write_text("#define NN 11\n")
    text = ("#include <stdio.h>\n#include \"hdr.h\"\ndouble A[NN][NN];\nint main(void) {\n  int i, j;\n"
            "  for (i = 0; i < NN; i++) for (j = 0; j < NN; j++) A[i][j] = (i * 3 + j) % 7;\n#pragma scop\n"
            "  for (i = 1; i < NN; i++)\n    for (j = 1; j < NN; j++)\n"
            "      A[i][j] = A[i - 1][j] * 0.5 + A[i][j - 1] * 0.25;\n#pragma endscop\n"
            "  for (i = 0; i < NN; i++) printf(\"%.17g\\n\", A[i][NN - 1]);\n  return 0;\n}\n")
    monkeypatch.chdir(tmp_path)
    p = ps.Program.from_source(text).auto_schedule().auto_tile()
    monkeypatch.chdir("/")                   # where the source came from is remembered
    assert p.verify(dataset=None).status == "equal"


def test_auto_tile_records_what_replay_needs(gemm):
    q = gemm.auto_schedule().auto_tile(parallel=True, caches={"l1d": 32768, "l2": 262144, "l3": 8 << 20})
    step = q.trace[-1]
    assert step["op"] == "auto_tile" and step["args"]["caches"]["l2"] == 262144
    assert q.tiling_report is not None and q.tiling_report.tiled


def test_views_are_summaries(gemm):
    q = gemm.auto_schedule().tile("S1", [32, 64, 128]).parallel("S1", 0)
    for obj in (q, q.scop, q.deps, q.check()):
        text = repr(obj)
        assert len(text) < 300 and "\n" not in text and " at 0x" not in text, text
        html = obj._repr_html_()
        assert html.startswith("<div")
    html = q._repr_html_()
    assert "parallel" in html and "floor(i/32)" in html and "legal" in html
    tree = repr(q.tree)
    assert "S1: 0 floor(i/32) | 1 floor(j/64) | 2 floor(k/128)" in tree and "mark  parallel" in tree
    result = q.verify()
    assert len(repr(result)) < 400 and "==" not in repr(result) and "<div" in result._repr_html_()


def test_show_prints_the_region(gemm, capsys):
    gemm.auto_schedule().show()
    out = capsys.readouterr().out
    assert "C[c0][c1] *= beta;" in out and "#include" not in out


def test_error_hierarchy():
    from polysched.dependence import ScheduleError
    from polysched.scop import ScopError
    from polysched.tiling import TilingError
    for cls in (ps.TransformError, ps.MarkError, ScopError, ScheduleError, TilingError):
        assert issubclass(cls, ps.PolyschedError)
    with pytest.raises(ps.PolyschedError):
        ps.Program.from_source("int main(void) { return 0; }\n")


# -- found by probing the API with random primitive sequences -----------------------

PROBE = "tests/data/api_probe/"


def test_code_generation_has_a_budget(monkeypatch):
    """Five accepted steps gave a schedule on which isl's AST generator ran for more
    than five minutes: ``c_code()`` had no budget (``optimize`` has one). It runs in a
    child process now, killed past ``CODEGEN_BUDGET`` with a one-sentence error."""
    import time
    import polysched.pipeline
    from polysched.emit_c import CodegenError
    q = (ps.Program.from_file(PROBE + "slow_codegen.c").auto_schedule("isl", "max")
         .skew("S1", 1, 0, -5).skew("S1", 0, 1, 3).tile("S0", [8, 8], 0).wavefront("S0", 0))
    monkeypatch.setattr(polysched.pipeline, "CODEGEN_BUDGET", 1.0)
    start = time.monotonic()
    with pytest.raises(CodegenError, match="code generation ran past 1 s"):
        q.c_code()
    assert time.monotonic() - start < 30


def test_replay_gives_the_same_code_after_other_programs_generated_theirs():
    """Generating one program's C changed the C generated later for another program of
    the same source (isl state left behind), so a replayed trace gave other code."""
    base = ps.Program.from_file(PROBE + "min_max_band.c")
    base.shift("S0", 1, 2).c_code()
    a = base.tile("S0", [8], 1)
    b = ps.Program.from_file(PROBE + "min_max_band.c").replay(a.trace)
    assert a.c_code() == b.c_code()


def test_unroll_and_jam_of_a_strip_mined_triangle_generates_code():
    """isl printed ``if (1)`` around a jammed copy; the AST check refused the constant
    condition ("unexpected condition in the AST: 1")."""
    q = ps.Program.from_file(PROBE + "triangle.c").strip_mine("S0", 1, 4).unroll_and_jam("S0", 1, 2)
    assert q.check().legal
    assert q.verify().ok


@pytest.mark.parametrize("call, message", [
    (lambda p: p.interchange("S0", 10 ** 9, 0), "not loop 1000000000"),
    (lambda p: p.interchange("S0", 0, -10 ** 9), "not loop -1000000000"),
    (lambda p: p.set_schedule('domain: "{ S0[i] }"'), "the schedule's S0 has 1 dimension"),
    (lambda p: p.set_schedule('domain: "{ S0[k, j] : 0 <= k < 8 and 0 <= j < 8 }"\nchild:\n'
                              '  schedule: "[{ S0[k, j] -> [(k)] }]"\n  child:\n'
                              '    extension: "{ [k] -> S0[k, 0] }"'), "extension nodes"),
    # accepted without a word: the extra statement was dropped, the flags taken as truthy
    (lambda p: p.set_schedule("{ S0[k, j] -> [k, j]; X[i] -> [i] }"), "names X, which the region does not"),
    (lambda p: p.set_schedule("{ [k, j] -> [k, j] }"), "names an unnamed tuple"),
    (lambda p: p.auto_schedule(diamond="x"), "diamond must be True or False, got 'x'"),
    (lambda p: p.auto_schedule(negative_coefficients=5), "negative_coefficients must be True or False"),
    # helper-11: a trace's "false" is a non-empty string, read as True: the reduction was
    # reassociated (different digits at 2 threads)
    (lambda p: p.parallel("S0", 0, reassociate="false"), "reassociate must be True or False, got 'false'"),
    (lambda p: p.auto_tile(reassociate="false"), "reassociate must be True or False"),
    (lambda p: p.auto_tile(parallel="no"), "parallel must be True or False"),
    (lambda p: p.replay('{"polysched_trace": 1, "steps": [{"op": "parallel", "args": {"stmt": "S0", '
                        '"depth": 0, "reassociate": "false"}}]}'), "reassociate must be True or False"),
])
def test_misuse_found_by_probing_is_one_sentence(call, message):
    """A depth of 10**9 built the list of the loops between before checking it (30 GB);
    malformed trees for set_schedule ended in isl tracebacks."""
    p = ps.Program.from_file(PROBE + "triangle.c")
    with pytest.raises(ps.TransformError, match=message):
        call(p)


def test_a_program_read_at_one_dataset_runs_at_the_dataset_asked_for():
    """``Program.from_file(..., defines={"MEDIUM_DATASET": None})`` (what a tuning
    campaign at MEDIUM reads) verifies and times at the dataset given: its own
    ``*_DATASET`` define is dropped, not passed next to the requested one."""
    medium = ps.Program.from_file(get("gemm").path, defines={"MEDIUM_DATASET": None}).interchange("S1", 1, 2)
    assert medium._defines_at("MINI") == {} and medium._defines_at(None) == {"MEDIUM_DATASET": None}
    result = medium.verify()                  # MINI: C is 20 x 25
    assert result.status == "equal" and "500 values equal" in str(result), result
    result = medium.verify(dataset="SMALL")   # 60 x 70
    assert result.status == "equal" and "4200 values equal" in str(result), result


def test_a_program_copies_as_itself_and_pickles_as_its_source_and_trace(gemm, tmp_path):
    """Notebooks deepcopy values and send them to worker processes (pickle): a copy of
    the immutable program is the program; a pickle, read back, has its tree and C."""
    import copy
    import pickle

    q = gemm.auto_schedule("pluto").tile("S1", [8, 16, 32]).parallel("S1", 0)
    assert copy.copy(q) is q and copy.deepcopy({"p": q})["p"] is q
    back = pickle.loads(pickle.dumps(q))
    assert str(back.schedule) == str(q.schedule) and back.c_code() == q.c_code()
    assert back.trace.calls() == q.trace.calls()
    text = ps.Program.from_source(get("gemm").path.read_text(), filename="gemm.c", defines={"N": "40"})
    again = pickle.loads(pickle.dumps(text.auto_schedule("isl")))
    assert again.c_code() == text.auto_schedule("isl").c_code()


def test_a_pickle_holds_the_program_read_not_the_file_edited_since(tmp_path, monkeypatch):
    """helper-86: a pickle read its file again where it was loaded, so an edit in
    between gave another program without a word, and a relative path failed from
    another directory. It holds the text read: the same C and the same verdict of
    verify (against that text) after the file changed, from any directory."""
    import pickle

    (tmp_path / "g.c").write_text(get("gemm").path.read_text())
    monkeypatch.chdir(tmp_path)
    p = ps.Program.from_file("g.c").interchange("S1", 1, 2)
    blob, code = pickle.dumps(p), p.c_code()
    (tmp_path / "g.c").write_text(get("gemm").path.read_text().replace("alpha * A[i][k]", "-alpha * A[i][k]"))
    assert pickle.loads(blob).c_code() == code
    assert p.verify(dataset="MINI").ok
    monkeypatch.chdir(tmp_path.parent)
    assert pickle.loads(blob).c_code() == code


def test_set_schedule_refuses_nodes_the_printer_does_not_take(gemm):
    """A context node passed the legality check, then failed in isl's AST generator
    ("spaces don't match"): it is refused where it is given."""
    tree = gemm.schedule.get_root().child(0).insert_context(gemm.scop.context.params()).get_schedule()
    with pytest.raises(ps.TransformError, match="the tree has context nodes, which the C printer does not take"):
        gemm.set_schedule(tree)


def test_unroll_and_jam_names_a_shared_loop_through_any_of_its_statements():
    """conv1d's i loop runs S0 (y[i] = 0) and S1's k loop: it is S0's innermost loop,
    not the band's, so jamming it is the same through S0 as through S1."""
    source = """#define N 32
double x[N + 8], w[8], y[N];
void kernel(int n, int kw) {
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (k = 0; k < kw; k++)
      y[i] += w[k] * x[i + k];
  }
#pragma endscop
}
"""
    p = ps.Program.from_source(source, filename="conv1d.c")
    assert str(p.unroll_and_jam("S0", 0, 4).schedule) == str(p.unroll_and_jam("S1", 0, 4).schedule)
    with pytest.raises(ps.TransformError, match="loop 1 is the innermost loop of S1: nothing to jam"):
        p.unroll_and_jam("S1", 1, 4)


def test_a_schedule_whose_arithmetic_no_parameter_bound_fits_keeps_the_original_and_says_why():
    """helper-58: two skews by 2**30 and a tiling: the region is kept as written, and
    the reason no longer claims overflow "for every parameter value" (n = 2 fits)."""
    source = ("double A[64][64];\nvoid k(int n) {\n  int i, j;\n#pragma scop\n  for (i = 1; i < n; i++)\n"
              "    for (j = 1; j < n; j++)\n      A[i][j] = A[i - 1][j] * 0.5 + A[i][j - 1] * 0.25 + 1.0;\n"
              "#pragma endscop\n}\n")
    q = ps.Program.from_source(source).skew("S0", 0, 1, 2**30).skew("S0", 1, 0, 2**30).tile("S0", [8, 8])
    code = q.region_code()
    assert code.startswith("  /* polysched: original code kept: the loop code's arithmetic (a schedule coefficient "
                           "times a counter) may exceed long long under every bound on the parameters the "
                           "run-time check could test */\n  for (i = 1; i < n; i++)\n")


def test_an_unknown_intrinsic_lists_the_known_ones():
    """A tester: tensorize('S0', 'dgemm_nope') said "unknown intrinsic 'dgemm_nope'",
    naming none of the intrinsics there are."""
    with pytest.raises(ps.TransformError) as info:
        ps.Program.from_source(MATMUL_IKJ, filename="mm.c").tensorize("S0", "dgemm_nope")
    message = str(info.value)
    assert message.startswith("tensorize: unknown intrinsic 'dgemm_nope' (known: ") and "dgemm_4x8, " in message


def test_a_polybench_size_the_file_does_not_test_is_a_warning():
    """A tester: verify("LARGE") and time("MEDIUM") on a file with no *_DATASET ran at
    the written sizes without a word, though tune warns (the README: "a warning
    instead, in verify, bench ... and tune"); verify("HUGE") was refused suggesting
    MINI ... EXTRALARGE, which change nothing for this file either. A method's own
    default dataset, not named by the caller, is no warning (the CLI's default is none)."""
    import warnings
    p = ps.Program.from_source(MATMUL_IKJ, filename="mm.c")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert p.verify("LARGE").ok and p.time("MEDIUM", repeat=1) > 0
        assert p.verify().ok
    assert [str(w.message) for w in caught] == [
        "verify: mm.c does not test LARGE_DATASET: dataset LARGE runs it at the sizes it is written with",
        "time: mm.c does not test MEDIUM_DATASET: dataset MEDIUM runs it at the sizes it is written with"]
    assert all(w.filename == __file__ for w in caught)
    with pytest.raises(ps.TransformError) as info:
        p.verify("HUGE")
    assert str(info.value) == ("verify: dataset='HUGE' changes nothing: the program never tests HUGE_DATASET "
                               "(it tests no *_DATASET: None runs it at the sizes it is written with)")
    with pytest.raises(ps.TransformError, match=r"HUGE_DATASET \(choose one it tests, MINI, SMALL, MEDIUM, LARGE, "
                                                r"EXTRALARGE, or None\)"):
        ps.Program.from_file(get("gemm").path).verify("HUGE")
