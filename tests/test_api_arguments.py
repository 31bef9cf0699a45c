"""Misused arguments of the research API (polysched.Program, Trace): each is refused
with a polysched.TransformError of one sentence naming the argument, before any work,
never with a raw TypeError / ValueError / OSError from deep inside (all found by a
probe of the API). No compilation: these are checks, not transformations."""
from __future__ import annotations

import re

import pytest

import polysched as ps
from polysched.bench import run_benchmarks
from polysched.bench.suite import normalize_dataset
from polysched.emit_c import EmitOptions, emit_file
from polysched.tiling import TileOptions
from polysched.tune import Target

MM = """#define N 16
double A[N][N], B[N][N], C[N][N];
void kernel(void) {
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      C[i][j] = 0.0;
    for (k = 0; k < N; k++)
      for (j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
  }
#pragma endscop
}
"""


@pytest.fixture(scope="module")
def mm():
    return ps.Program.from_source(MM, filename="mm.c")


def step(op, **args):
    return [{"op": op, "args": args}]


MISUSES = [
    # primitives: containers that were iterated or unpacked blindly
    ("perm_empty", lambda p: p.permute("S1", []), "order must be a non-empty list of loop depths"),
    ("perm_none", lambda p: p.permute("S1", None), "order must be"),
    ("perm_int", lambda p: p.permute("S1", 3), "order must be"),
    ("fuse_none", lambda p: p.fuse(None, 0), "stmts must be a list of statement names"),
    ("loops_list", lambda p: p.loops(["S1"]), "loops(['S1']): no statement"),
    # (helper-44: "S1 has loops 0..2, not loop 3", a loop no one asked for)
    ("wavefront_innermost", lambda p: p.wavefront("S1", 2),
     "wavefront('S1', 2): loop 2 is the innermost loop of S1; a wavefront skews a loop by the one below it"),
    ("mark_tensorize", lambda p: p.mark("S1", 0, "tensorize(foo)"), "tensorize mark is placed by Program.tensorize"),
    ("par_red_short", lambda p: p.parallel("S1", 1, reductions=[("+",)]), "reductions must be"),
    ("par_red_str", lambda p: p.parallel("S1", 1, reductions="+:s"), "reductions must be"),
    ("par_red_none", lambda p: p.parallel("S1", 1, reductions=[None]), "reductions must be"),
    ("par_private_int", lambda p: p.parallel("S1", 1, private=5), "private must be"),
    ("par_red_array", lambda p: p.parallel("S1", 1, reductions={"C": "+"}),
     "parallel('S1', 1): 'C' is an array: a reduction is into a scalar"),
    ("tens_match_str", lambda p: p.tensorize("S1", "dgemm_4x8", match="x"), "match must be"),
    # (helper-44: "apply tensorize before tiling it" where nothing was tiled; a second call
    # with an intrinsic that zeroes C named a misfit of S0's loops)
    ("tens_reversed", lambda p: p.reverse("S1", 2).tensorize("S1", "dgemm_4x8"),
     "apply tensorize before tiling, skewing or reversing them"),
    ("tens_twice_init", lambda p: p.tensorize("S1", "dgemm_packed_zero").tensorize("S1", "dgemm_packed_zero"),
     "tensorize: S0 or S1 is already tensorized"),
    # auto_tile: sizes and caches as the docstring promises them, nothing else
    ("at_sizes_str", lambda p: p.auto_tile(sizes="abc"), "sizes must be an int or a non-empty list of ints"),
    # (helper-54: "no band can be tiled", as if the bands were at fault)
    ("at_sizes_empty", lambda p: p.auto_tile(sizes=[]), "sizes must be an int or a non-empty list of ints, got []"),
    ("at_sizes_inf", lambda p: p.auto_tile(sizes=[float("inf"), 4, 4]), "each tile size in sizes must be an int"),
    ("at_sizes_big", lambda p: p.auto_tile(sizes=[2 ** 70, 4, 4]), "each tile size in sizes must be at most"),
    ("at_sizesdict_bad", lambda p: p.auto_tile(sizes={"S1": "x"}), "sizes['S1'] must be"),
    ("at_sizesdict_none", lambda p: p.auto_tile(sizes={"S1": None}), "sizes['S1'] must be"),
    ("at_sizesdict_unknown", lambda p: p.auto_tile(sizes={"S9": [4]}), "sizes names no statement 'S9'"),
    ("at_caches_key", lambda p: p.auto_tile(caches={"bogus": 1}),
     "unknown caches key 'bogus' (the keys are l1d, l2, l3)"),
    ("at_caches_l1", lambda p: p.auto_tile(caches={"l1": 0, "l2": 0}), "unknown caches key 'l1' (the keys are l1d, l2, l3)"),
    ("at_caches_zero", lambda p: p.auto_tile(caches={"l1d": 0}), "caches['l1d'] must be >= 1"),
    ("at_caches_str", lambda p: p.auto_tile(caches="x"), "caches must be None, a polysched.tiling.CacheSizes"),
    ("at_unroll_big", lambda p: p.auto_tile(unroll=10 ** 6), "unroll must be at most 64"),
    ("at_register_neg", lambda p: p.auto_tile(register_tile=-1), "register_tile must be >= 0"),
    # sizes that were silently ignored (no band tiled) or cut to the band's depth
    ("at_sizes_untiled", lambda p: p.auto_tile(sizes=[4, 4]), "auto_tile: sizes [4, 4] given, but no band can be tiled"),
    ("at_sizes_long", lambda p: p.auto_schedule("pluto").auto_tile(sizes=[4, 4, 4, 4, 4]),
     "auto_tile: 5 sizes given, but the tiled bands have at most 3 loops"),
    # per statement too (helper-44: cut to the band's depth, or ignored, silently)
    ("at_sizesdict_long", lambda p: p.auto_schedule("pluto").auto_tile(sizes={"S1": [4] * 5}),
     "auto_tile: 5 sizes given for S1, but the tiled bands of S1 have at most 3 loops"),
    ("at_sizesdict_untiled", lambda p: p.auto_tile(sizes={"S1": [4, 4, 4]}),
     "auto_tile: sizes['S1'] = [4, 4, 4] given, but no band of S1 can be tiled ("),
    # a one-loop band is tiled on request only: the message says how (it blamed permutability)
    ("at_sizes_depth1", lambda p: p.auto_tile(sizes=[4]),
     "auto_schedule() makes permutable bands; tile_depth1=True tiles a band of one loop"),
    # replay: a malformed step names its index and op
    ("replay_args_null", lambda p: p.replay([{"op": "tile", "args": None}]), "trace step 0 (tile): args must be"),
    ("replay_version", lambda p: p.replay({"polysched_trace": 99, "steps": []}), "traces of version 1, not 99"),
    # (helper-44: True was version 1; '' was "Is a directory", JSON that is no trace "No such file")
    ("replay_version_true", lambda p: p.replay({"polysched_trace": True, "steps": []}), "version 1, not True"),
    ("replay_empty_text", lambda p: p.replay(""), "a trace is a JSON object with a 'steps' list"),
    ("replay_null", lambda p: p.replay("null"), "a trace is a JSON object with a 'steps' list"),
    ("replay_number", lambda p: p.replay("3"), "a trace is a JSON object with a 'steps' list"),
    ("replay_json_string", lambda p: p.replay('"x"'), "a trace is a JSON object with a 'steps' list"),
    ("replay_no_file", lambda p: p.replay("no-such-trace.json"), "cannot read trace no-such-trace.json: No such file"),
    ("replay_not_json", lambda p: p.replay("not json"), "cannot read trace not json: No such file or directory "
                                                        "(nor is it JSON text)"),
    ("replay_args_list", lambda p: p.replay([{"op": "tile", "args": [1, 2]}]), "trace step 0 (tile): args must be"),
    ("replay_private", lambda p: p.replay(step("parallel", stmt="S1", depth=0, private=5)),
     "trace step 0 (parallel): parallel('S1', 0): private must be"),
    ("replay_reductions", lambda p: p.replay(step("parallel", stmt="S1", depth=0, reductions=[[1, 2, 3]])),
     "trace step 0 (parallel): parallel('S1', 0): reductions must be"),
    ("replay_caches", lambda p: p.replay(step("auto_tile", caches={"l1": "x"})),
     "trace step 0 (auto_tile): auto_tile: unknown caches key 'l1'"),
    ("replay_caches_list", lambda p: p.replay(step("auto_tile", caches=[1, 2])),
     "trace step 0 (auto_tile): auto_tile: caches must be"),
    ("replay_match_list", lambda p: p.replay(step("tensorize", stmt="S1", intrinsic="dgemm_4x8", match=[1])),
     "trace step 0 (tensorize): tensorize('S1', 'dgemm_4x8', match=[1]): match must be"),
    ("trace_region", lambda p: ps.Trace.from_json({"region": "x", "steps": []}), "region must be an int"),
    # constructors
    ("fromsrc_region_str", lambda p: ps.Program.from_source(MM, region="0"), "from_source: region must be an int"),
    ("fromsrc_defines_int", lambda p: ps.Program.from_source(MM, defines=5), "from_source: defines must be"),
    ("fromsrc_defines_none", lambda p: ps.Program.from_source(MM, defines=[None]), "from_source: defines must be"),
    # helper-90: the compiler's message on an empty name, at the file's 1:1
    ("fromsrc_defines_empty", lambda p: ps.Program.from_source(MM, defines={"": "3"}),
     "from_source: defines must be macro names (NAME or NAME(ARGS)), got ''"),
    ("fromsrc_path", lambda p: ps.Program.from_source(None), "from_source: text must be C source text"),
    ("fromfile_int", lambda p: ps.Program.from_file(5), "from_file: path must be a file name"),
    # a schedule that leaves instances out (it was a ScheduleError, not the API's error)
    ("set_schedule_drops", lambda p: p.set_schedule("{ S0[i, j] -> [i, j, 0, 0] : i < 3; S1[i, k, j] -> [i, k, j, 1] }"),
     "set_schedule(...): the schedule does not give a time to [N] -> { S0[i, j] : 3 <= i < N"),
    # output and verification
    ("c_code_options", lambda p: p.c_code(options=5), "c_code(options=5): options must be"),
    ("region_code_options", lambda p: p.region_code(options="x"), "region_code(options='x'): options must be"),
    ("c_code_options_key", lambda p: p.c_code(options={"versoning": False}), "unknown options key 'versoning'"),
    # a narrow or unsigned counter would wrap where the range checks assume it does not
    ("c_code_iterator_short", lambda p: p.c_code(options={"iterator_type": "short"}),
     "iterator_type 'short': the loop counters are a signed type of 32 or 64 bits"),
    ("c_code_iterator_unsigned", lambda p: p.c_code(options={"iterator_type": "unsigned"}),
     "iterator_type 'unsigned': the loop counters are a signed type"),
    ("verify_dataset", lambda p: p.verify("BOGUS"), "dataset='BOGUS' changes nothing: the program never tests"),
    ("verify_dataset_int", lambda p: p.verify(5), "verify: dataset must be a name"),
    ("verify_option", lambda p: p.verify(threds=2), "verify: unknown option threds"),
    # (libgomp only complained on the program's stderr: a legal program "differed")
    ("verify_threads_list", lambda p: p.verify(threads=[1, 2]), "verify: threads must be an int, got [1, 2]"),
    ("verify_threads_zero", lambda p: p.verify(threads=0), "verify: threads must be >= 1, got 0"),
    ("time_threads_float", lambda p: p.time(threads=2.5), "time: threads must be an int, got 2.5"),
    # (helper-44: a TypeError from subprocess, or a string split into its letters)
    ("verify_cc_int", lambda p: p.verify(cc=5), "verify: cc must be the name or path of a C compiler, got 5"),
    ("time_cc_int", lambda p: p.time(cc=5), "time: cc must be the name or path of a C compiler, got 5"),
    ("verify_cflags_int", lambda p: p.verify(cflags=3), "verify: cflags must be a string of flags or a list of them"),
    ("verify_rtol_negative", lambda p: p.verify(rtol=-1), "verify: rtol must be a number >= 0, got -1"),
    ("verify_timeout_zero", lambda p: p.verify(timeout=0), "verify: timeout must be a positive number of seconds"),
    ("verify_defines_int", lambda p: p.verify(defines=[3]), "verify: defines must be {name: value} or a list"),
    ("verify_dump_str", lambda p: p.verify(dump="yes"), "verify: dump must be True or False, got 'yes'"),
    # a field of the wrong type (a string read as True kept versioning on; an int indent crashed)
    ("c_code_versioning_str", lambda p: p.region_code({"versioning": "no"}),
     "versioning must be True or False, got 'no'"),
    ("c_code_indent_int", lambda p: p.c_code({"indent": 4}), "indent must be a string of spaces or tabs, got 4"),
    ("c_code_prefixes_str", lambda p: p.c_code({"iterator_prefixes": "c"}),
     "iterator_prefixes must be a tuple of C name prefixes, got 'c'"),
]


@pytest.mark.parametrize("call,message", [pytest.param(c, m, id=i) for i, c, m in MISUSES])
def test_misused_argument_is_named_in_one_sentence(mm, call, message):
    with pytest.raises(ps.TransformError, match=re.escape(message)) as info:
        call(mm)
    assert "\n" not in str(info.value) and info.value.violation is None


@pytest.mark.parametrize("path", ["missing.c", "."])
def test_unreadable_file_names_the_path(tmp_path, path):
    target = tmp_path / path
    with pytest.raises(ps.TransformError, match=re.escape(f"cannot read {target}: ")):
        ps.Program.from_file(target)


def test_write_to_a_directory_names_the_path(mm, tmp_path):
    with pytest.raises(ps.TransformError, match=re.escape(f"write({str(tmp_path)!r}): cannot write {tmp_path}")):
        mm.write(tmp_path)
    with pytest.raises(ps.TransformError, match="no such directory"):
        mm.write(tmp_path / "no" / "out.c")


def test_compile_options_are_taken_as_a_user_writes_them(tmp_path):
    """``defines=["N=8"]`` as ``from_file`` takes it, ``cflags="-O1 -DX"`` a string of
    flags, ``include_dirs="dir"`` one directory (helper-44: a TypeError, and strings
    split into their letters)."""
    (tmp_path / "size.h").write_text("#define M 5\n")
    source = tmp_path / "k.c"
    source.write_text('#include <stdio.h>\n#include "size.h"\n#ifndef N\n#define N 3\n#endif\n'
                      "double A[64];\nint main(void) {\n  int i;\n#pragma scop\n"
                      "  for (i = 0; i < N + M + X; i++) A[i] = 2.0 * i;\n#pragma endscop\n"
                      '  for (i = 0; i < 64; i++) printf("%g\\n", A[i]);\n  return 0;\n}\n')
    program = ps.Program.from_file(source, defines={"X": "1"}, include_dirs=[str(tmp_path)]).auto_schedule("pluto")
    result = program.verify(None, defines=["N=8"], cflags="-O1 -DX=1", include_dirs=str(tmp_path))
    assert result.ok, result       # (X is defined by the cflags only: split, they compile)


def test_a_tuple_of_steps_is_a_trace_like_a_list(mm):
    steps = ({"op": "interchange", "args": {"stmt": "S1", "d1": 1, "d2": 2}},)
    assert mm.replay(steps).region_code() == mm.replay(list(steps)).region_code() \
        == mm.interchange("S1", 1, 2).region_code()


def test_a_reduction_list_takes_the_operator_before_it():
    """``reduction=+:s,c`` as OpenMP's ``reduction(+:s, c)`` (helper-44: "unknown
    reduction operator ''")."""
    from polysched.marks import MarkError, Parallel, parse_mark
    assert parse_mark("parallel(reduction=+:s,c; private=t)") == Parallel(("t",), (("+", "s"), ("+", "c")))
    assert parse_mark("parallel(reduction=+:s,*:p,q)") == Parallel((), (("+", "s"), ("*", "p"), ("*", "q")))
    with pytest.raises(MarkError, match=re.escape("a reduction is written operator:name (reduction=+:s,+:c or "
                                                  "reduction=+:s,c), got 's'")):
        parse_mark("parallel(reduction=s)")


def test_source_bytes_are_read_like_a_file(mm):
    p = ps.Program.from_source(MM.encode(), filename="mm.c")
    assert p.statements == mm.statements and str(p.schedule) == str(mm.schedule)


def test_codegen_options_as_a_dict_of_fields(mm):
    assert mm.c_code(options={"versioning": False}) == mm.c_code(options=EmitOptions(versioning=False))


def test_numpy_integers_are_taken_as_ints(mm):
    """Sizes computed in a notebook are numpy integers: refused as 'not an int' before;
    now the same program and the same (JSON) trace as with Python's ints."""
    np = pytest.importorskip("numpy")
    by_int = mm.tile("S1", [4, 8], 1).unroll_and_jam("S1", 1, 2)
    by_numpy = mm.tile("S1", np.array([4, 8]), np.int64(1)).unroll_and_jam("S1", np.int32(1), np.int64(2))
    assert by_numpy.c_code() == by_int.c_code()
    assert by_numpy.trace.to_json() == by_int.trace.to_json()
    assert mm.tile("S1", np.int64(4), 1).c_code() == mm.tile("S1", 4, 1).c_code()


@pytest.mark.parametrize("call, message", [
    (lambda p: p.deps.pairs("bogus"), "unknown dependence kind 'bogus'"),
    (lambda p: TileOptions(sizes=[0, 4]), "tile sizes must be >= 1"),
    (lambda p: emit_file([p.scop], []), "1 scops but 0"),
    (lambda p: Target.of("no-such-kernel"), "neither a C file"),
    (lambda p: run_benchmarks(["gemm"], ["nope"]), "unknown variant 'nope'"),
    (lambda p: normalize_dataset("HUGE"), "unknown dataset"),
])
def test_a_value_the_stages_cannot_take_is_a_polysched_error(mm, call, message):
    """helper-49: these were plain ValueErrors, outside the hierarchy that errors.py
    says catches everything polysched raises on purpose; an ArgumentError is both."""
    with pytest.raises(ps.ArgumentError, match=re.escape(message)) as info:
        call(mm)
    assert isinstance(info.value, ps.PolyschedError) and isinstance(info.value, ValueError)


def test_sizes_that_would_tile_nothing_are_refused(mm):
    """helper-49: accepted and ignored, where the command line refuses '--tile-sizes'
    without '--tile' and Program.auto_tile a statement it does not have."""
    from polysched.pipeline import OptimizeOptions
    from polysched.tiling import tile_with_report
    with pytest.raises(ps.TransformError, match=r"auto_tile: tile sizes \[4, 4\] given with tile=False"):
        mm.auto_tile(tile=False, sizes=[4, 4])
    with pytest.raises(ps.ArgumentError, match="tile_sizes .* without tile"):
        OptimizeOptions.from_flags(tile_sizes=[32, 32])
    with pytest.raises(ps.ArgumentError, match=r"tile sizes for 'S9', which is no statement of the region \(S0, S1\)"):
        tile_with_report(mm.scop, mm.deps, mm.scop.schedule, TileOptions(sizes={"S9": [4, 4]}))


@pytest.mark.parametrize("reductions, message", [
    ([["%", "C"]], "'%' is no reduction operator (OpenMP's: + * - & | ^ && || max min)"),
    ([["+", "C"]], "'C' is an array: a reduction is into a scalar"),
])
def test_a_reduction_that_is_none_says_why(mm, reductions, message):
    """helper-49: both were refused as "'C' is a floating-point reduction"."""
    with pytest.raises(ps.TransformError, match=re.escape(message)):
        mm.parallel("S1", 0, reductions=reductions)


def test_a_floating_point_reduction_is_reordered_only_on_request():
    dot = ps.Program.from_source("double x[64], y[64], s;\nvoid kernel(void) {\n  int i;\n#pragma scop\n"
                                 "  for (i = 0; i < 64; i++)\n    s += x[i] * y[i];\n#pragma endscop\n}\n",
                                 filename="dot.c")
    with pytest.raises(ps.TransformError, match=re.escape("parallel('S0', 0): 's' is a floating-point reduction, "
                                                          "whose sum the threads reorder: pass reassociate=True")):
        dot.parallel("S0", 0, reductions=[["+", "s"]])
    assert "reduction(+:s)" in dot.parallel("S0", 0, reductions=[["+", "s"]], reassociate=True).c_code()


def test_a_blocked_parallel_names_the_argument_not_the_flag():
    """A tester: p.parallel("S0", 0) on a floating-point sum said "(parallel only with
    --reassociate)", the CLI's flag (another refusal says "pass reassociate=True")."""
    dot = ps.Program.from_source("double x[64], y[64], s;\nvoid kernel(void) {\n  int i;\n#pragma scop\n"
                                 "  for (i = 0; i < 64; i++)\n    s += x[i] * y[i];\n#pragma endscop\n}\n",
                                 filename="dot.c")
    with pytest.raises(ps.TransformError) as info:
        dot.parallel("S0", 0)
    assert "(scalar s: floating-point reduction (parallel only with reassociate=True))" in str(info.value)
    assert "--reassociate" not in str(info.value)


def test_a_refused_step_shows_keyword_arguments_as_keywords():
    """A tester: p.parallel("S0", 1, reassociate=True) was reported as "parallel('S0',
    1, True) is illegal", which reads as private=True."""
    dot = ps.Program.from_source("double x[64], y[64], s;\nvoid kernel(void) {\n  int i;\n#pragma scop\n"
                                 "  for (i = 0; i < 64; i++)\n    s += x[i] * y[i];\n#pragma endscop\n}\n",
                                 filename="dot.c")
    with pytest.raises(ps.TransformError) as info:
        dot.parallel("S0", 0, private=["s"], reassociate=True)
    assert str(info.value).startswith("parallel('S0', 0, private=['s'], reassociate=True) is illegal: ")
    with pytest.raises(ps.TransformError) as info:
        ps.Program.from_source(MM, filename="mm.c").parallel("S1", 1, reassociate=True, schedule="dynamic")
    assert str(info.value).startswith("parallel('S1', 1, schedule='dynamic', reassociate=True) is illegal: ")
