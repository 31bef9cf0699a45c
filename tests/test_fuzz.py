"""The differential fuzzer (polysched fuzz): its generator, shrinker and runner, and
a fixed-seed batch through every mode (the CI batch of issue 9)."""
from __future__ import annotations

import collections
import re
import shutil
import subprocess
import time

import pytest

from polysched.fuzz.generator import (EXTRA_FEATURES, FEATURES, Aff, Bound, CEval, InvalidProgram, Loop,
                                      Program, Stmt, X, extra_features, generate, layout, lit, render,
                                      features, simulate, statements, x_text)
from polysched.fuzz.runner import (DEFAULT_MODES, FuzzConfig, distinct_failures, evaluate_text,
                                   run_fuzz)
from polysched.fuzz.shrink import shrink, size
from wrong_pipeline import reverse_every_schedule

CI_SEED = 2024
CI_PROGRAMS = 8


# --------------------------------------------------------------------------- (a) CI batch

def test_fixed_seed_batch_every_mode_no_failures(tmp_path):
    """A fixed batch through all default modes: nothing wrong, crashing or hanging.
    On failure the repros are in tmp_path (not shrunk, to keep CI fast)."""
    # 60 s per step: a real hang never ends, and two scheduling-heavy programs of this
    # batch take 4-6 CPU seconds, too close to 20 s of wall time on a loaded 2-core machine
    config = FuzzConfig(seed=CI_SEED, programs=CI_PROGRAMS, jobs=2, out=tmp_path,
                        timeout=60, shrink=False)
    summary = run_fuzz(config)
    assert summary.invalid == 0, [r.invalid for r in summary.results if r.invalid]
    assert summary.counts["ok"] + summary.counts["rejected"] == CI_PROGRAMS * len(DEFAULT_MODES)
    bad = {k: summary.counts[k] for k in ("wrong", "crash", "hang")}
    assert bad == {"wrong": 0, "crash": 0, "hang": 0}, \
        summary.line() + "\n" + "\n".join(distinct_failures(summary))


# --------------------------------------------------------------------------- (b) generator

def test_generator_covers_every_feature():
    counts = collections.Counter()
    for index in range(200):
        counts.update(features(generate(3, index)))
    missing = [f for f in FEATURES if counts[f] < 3]
    assert not missing, f"features seen fewer than 3 times in 200 programs: {missing} ({dict(counts)})"
    # the wrong-code classes of issue 8 are not rare
    for name in ("param_zero", "param_negative", "unsigned", "size_t", "long", "aliased",
                 "live_out_iterators", "no_params"):
        assert counts[name] >= 10, (name, counts[name])


def test_generator_is_deterministic_and_programs_are_well_formed():
    for index in range(30):
        a, b = render(generate(11, index)), render(generate(11, index))
        assert a == b
        assert "int main(void)" in a and a.count("#pragma scop") == a.count("#pragma endscop") >= 1
        assert "printf(" in a
    assert render(generate(11, 0)) != render(generate(12, 0))


def test_rendered_text_shows_the_features():
    texts = {f: [] for f in ("downward", "strided", "minmax_macro", "minmax_ternary", "aliased",
                             "big_offset", "param_define", "unsigned", "size_t")}
    for index in range(200):
        program = generate(3, index)
        found = features(program)
        for f in texts:
            if f in found and len(texts[f]) < 3:
                texts[f].append(render(program))
    patterns = {"downward": r"--\)|-= \d", "strided": r"\+= [23]\)|-= [23]\)", "minmax_macro": r"MIN\(|MAX\(",
                "minmax_ternary": r"\? \(", "aliased": r"kernel\([^;]*\b([A-D])\b[^;]*\b\1\b",
                "big_offset": r"3000000000L", "param_define": r"#define (N|M|W|BIG) ", "unsigned": r"\bunsigned\b",
                "size_t": r"\bsize_t\b"}
    for f, pattern in patterns.items():
        assert texts[f], f
        for text in texts[f]:
            assert re.search(pattern, text), (f, text)


def test_generated_programs_have_no_undefined_behaviour(tmp_path):
    """Compiled with AddressSanitizer and UBSan, the originals run clean."""
    for index in range(0, 60, 4):
        source = tmp_path / f"p{index}.c"
        source.write_text(render(generate(5, index)))
        binary = tmp_path / f"p{index}"
        compiled = subprocess.run(
            ["gcc", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
             "-Wall", "-Werror", "-Wno-unknown-pragmas", "-Wno-unused-variable",
             "-Wno-unused-but-set-variable", str(source), "-o", str(binary), "-lm"],
            capture_output=True, text=True, timeout=120)
        assert compiled.returncode == 0, compiled.stderr
        run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and not run.stderr, (index, run.stderr[-2000:])
        assert run.stdout


def test_unsafe_structures_are_refused():
    """Unsigned programs whose bounds would wrap, and programs too big, are invalid."""
    program = _tiny_program("unsigned")
    program.regions[0][0].lower = Bound([Aff.of({"n": 1}, -5)])     # n - 5 < 0 with n = 2
    with pytest.raises(InvalidProgram):
        simulate(program)
    program = _tiny_program("int")
    program.regions[0][0].upper = Bound([Aff.of({}, 10 ** 6)])
    with pytest.raises(InvalidProgram):
        render(program)


def _tiny_program(index_type: str) -> Program:
    from polysched.fuzz.generator import Array, Param, Ref
    stmt = Stmt(Ref("A", [Aff.of({"i": 1}, -1)]), [Ref("A", [Aff.of({"i": 1})])], [0])
    loop = Loop("i", Bound([Aff.of({}, 0)]), Bound([Aff.of({"n": 1})]), [stmt])
    return Program(0, 0, index_type, index_type, [Param("n", "arg", 2)], [Array("A", "double", 1)],
                   [], [], [[loop]])


# --------------------------------------------------------------------------- (b') C integer constructs

EXTRA_PATTERNS = {
    "cast_uchar": r"\(unsigned char\)", "cast_short": r"\(short\)",
    "cast_int": r"\(int\)\(.*(4294967296U?L|\* 1L|21474836\d\dL)", "cast_unsigned": r"\(unsigned\)",
    "unsigned_literal": r"\b\d+(u|UL)\b", "shift_op": r"<<|>>", "sizeof": r"sizeof\(",
    "ne_loop": r"for \([^;]*;[^;]* != [^;]*;", "near_int_max": r"\b(214748[23]\d{3}|429496[67]\d{3}u)\b",
    "near_2_40": r"\b1099511\d{6}U?L\b",
}


def test_generator_writes_c_integer_constructs_in_a_quarter_of_the_programs():
    """Casts that truncate, unsigned arithmetic that wraps, shifts, sizeof, '!=' loops
    and loops near INT_MAX or 2**40 (generator v3): in 20-30 % of the programs, each of
    them seen, and visible in the text."""
    counts = collections.Counter()
    texts: dict[str, list[str]] = {f: [] for f in EXTRA_PATTERNS}
    carrying = 0
    for index in range(200):
        program = generate(3, index)
        found = extra_features(program)
        carrying += bool(found)
        counts.update(found)
        for f in found & set(texts):
            if len(texts[f]) < 3:
                texts[f].append(render(program).split("#pragma scop", 1)[1])
    assert 0.18 <= carrying / 200 <= 0.35, carrying
    assert all(counts[f] >= 3 for f in EXTRA_FEATURES), dict(counts)
    # what happens in the originals: casts that change values, unsigned wraparound
    assert counts["truncation"] >= 5 and counts["wraparound"] >= 5, dict(counts)
    for f, pattern in EXTRA_PATTERNS.items():
        assert texts[f], f
        for text in texts[f]:
            assert re.search(pattern, text), (f, text)


# C expressions with their operands' types: what CEval computes must be what gcc does
_TYPES = {"n": "int", "u": "unsigned", "l": "long", "z": "size_t"}
_VALUES = {"n": -3, "u": 2, "l": -5, "z": 1}


def _n(name: str) -> X:
    return X("name", name=name)


_EXPRESSIONS = [
    X("cast", (X("+", (_n("n"), lit(259))),), "unsigned char"),                 # 0: truncated
    X("cast", (X("*", (_n("n"), lit(16384))),), "short"),                      # -49152 -> 16384
    X("cast", (X("+", (_n("l"), lit(2 ** 32, "long"))),), "int"),               # back to -5
    X("cast", (X("+", (X("cast", (_n("n"),), "size_t"), lit(2 ** 32, "size_t"))),), "int"),
    X("-", (_n("u"), lit(3, "unsigned"))),                                      # wraps (32 bits)
    X("-", (_n("z"), lit(3, "unsigned"))),                                      # wraps (64 bits)
    X("-", (_n("l"), lit(3, "unsigned"))),                                      # long: no wrap
    X("%", (X("-", (_n("u"), lit(5, "unsigned"))), lit(7))),
    X("%", (X("-", (_n("z"), lit(5, "unsigned"))), lit(7))),
    X("%", (_n("n"), lit(2))),                                                  # C: -1
    X("/", (_n("n"), lit(2))),                                                  # C: -1
    X(">>", (_n("n"), lit(1))),                                                 # gcc: -2
    X("<<", (X("-", (_n("u"), lit(3, "unsigned"))), lit(1))),
    X("<", (_n("n"), X("sizeof", name="int", value=4))),                        # -3 < 4: false
    X("<", (_n("n"), _n("u"))),                                                 # unsigned: false
    X("<", (_n("n"), _n("l"))),                                                 # long: true
    X("MIN", (X("-", (_n("u"), lit(3, "unsigned"))), lit(8, "unsigned"))),
    X("MAX", (_n("n"), X("cast", (lit(0),), "unsigned"))),
    X("+", (_n("n"), X("sizeof", name="int", value=4))),
    X("cast", (X("-", (_n("n"), lit(2))),), "unsigned"),
    X("==", (X(">>", (X("cast", (X("+", (_n("n"), lit(250))),), "unsigned char"), lit(2))), lit(61))),
]


def test_c_evaluator_agrees_with_gcc(tmp_path):
    """CEval (the simulator's C semantics: promotions, usual arithmetic conversions,
    unsigned wraparound, truncating casts, division toward zero, shifts) against what
    the compiled C program prints."""
    ceval = CEval(_TYPES)
    lines = ["#include <stdio.h>", "#include <stddef.h>",
             "#define MIN(x, y) ((x) < (y) ? (x) : (y))", "#define MAX(x, y) ((x) > (y) ? (x) : (y))",
             "int main(void)", "{",
             "  volatile int n = -3; volatile unsigned u = 2; volatile long l = -5; volatile size_t z = 1;"]
    expected = []
    for x in _EXPRESSIONS:
        value, ctype = ceval(x, dict(_VALUES))
        assert ctype == ceval.type_of(x)
        if ctype in ("unsigned", "size_t"):
            lines.append(f'  printf("%llu\\n", (unsigned long long)({x_text(x)}));')
        else:
            lines.append(f'  printf("%lld\\n", (long long)({x_text(x)}));')
        expected.append(value)
    lines += ["  return 0;", "}"]
    source = tmp_path / "expr.c"
    source.write_text("\n".join(lines) + "\n")
    compiled = subprocess.run(["gcc", "-O1", "-w", str(source), "-o", str(tmp_path / "expr")],
                              capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    out = subprocess.run([str(tmp_path / "expr")], capture_output=True, text=True).stdout.split()
    assert [int(v) for v in out] == expected, list(zip(map(x_text, _EXPRESSIONS), out, expected))
    assert ceval.events == set()          # recorded only when asked
    ceval.record = True
    ceval(_EXPRESSIONS[0], dict(_VALUES))
    ceval(_EXPRESSIONS[4], dict(_VALUES))
    assert ceval.events == {"truncation", "wraparound"}


_REF = re.compile(r"\b([A-D]|[xyzuv])((?:\[[^\[\]]*\])+)")


def _instrumented(program: Program) -> tuple[str, dict[int, tuple[int, int]], object]:
    """The program's C text, every statement counting its runs and the range of every
    subscript it evaluates (per array and dimension), iterators printed at the end;
    with what simulate() and the layout say those are."""
    import copy
    program = copy.deepcopy(program)
    program.print_iters = True
    text = render(program)
    sim = simulate(program)
    lay = layout(program, sim)
    keys: dict[tuple[str, int], int] = {}
    out = []
    inside = False
    for line in text.splitlines():
        s = line.strip()
        if s in ("#pragma scop", "#pragma endscop"):
            inside = s == "#pragma scop"
        elif inside and s.endswith(";") and not s.startswith(("for (", "if (", "}")):
            probes = [f"fz({keys.setdefault((m.group(1), d), len(keys))}, (long)({sub}));"
                      for m in _REF.finditer(s)
                      for d, sub in enumerate(re.findall(r"\[([^\[\]]*)\]", m.group(2)))]
            line = f"{line[:len(line) - len(line.lstrip())]}{{ fz_count++; {' '.join(probes)} {s} }}"
        elif s == "return 0;":
            out.append('  printf("fz_count %ld\\n", fz_count);')
            out.append('  for (int k = 0; k < 64; k++) if (fz_seen[k]) printf("fz %d %ld %ld\\n", k, fz_lo[k], fz_hi[k]);')
        out.append(line)
    helper = ("long fz_count; long fz_lo[64], fz_hi[64]; int fz_seen[64];\n"
              "static void fz(int k, long v) { if (!fz_seen[k] || v < fz_lo[k]) fz_lo[k] = v;"
              " if (!fz_seen[k] || v > fz_hi[k]) fz_hi[k] = v; fz_seen[k] = 1; }\n")
    text = "\n".join(out).replace("#define MIN(x, y)", helper + "#define MIN(x, y)", 1) + "\n"
    expected = {}
    for (name, d), k in keys.items():
        if name in sim.ranges:
            array = program.storage_of(name)
            rank1_view = program.view(name) is not None and array.rank == 1
            shift = lay.view_shift[name] if rank1_view else lay.shifts[array.name][d]
            lo, hi = sim.ranges[name][d]
            expected[k] = (lo + shift, hi + shift)
    return text, expected, sim


def test_simulation_matches_the_compiled_original(tmp_path):
    """An independent oracle for the simulator on programs whose casts truncate and
    whose unsigned arithmetic wraps: the compiled original (AddressSanitizer, UBSan)
    runs as many statement instances, evaluates subscripts over the same ranges and
    leaves its iterators at the same values as simulate() says."""
    checked = 0
    seen: set[str] = set()
    for index in range(200):
        program = generate(13, index)
        events = extra_features(program) & {"truncation", "wraparound"}
        if not events:
            continue
        seen |= events
        text, expected, sim = _instrumented(program)
        source, binary = tmp_path / f"p{index}.c", tmp_path / f"p{index}"
        source.write_text(text)
        compiled = subprocess.run(["gcc", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                                   "-w", str(source), "-o", str(binary), "-lm"], capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr
        run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and not run.stderr, (index, run.stderr[-2000:])
        count, ranges, iterators = None, {}, {}
        for line in run.stdout.splitlines():
            words = line.split()
            if words[0] == "fz_count":
                count = int(words[1])
            elif words[0] == "fz":
                ranges[int(words[1])] = (int(words[2]), int(words[3]))
            elif len(words) == 2 and words[0] in sim.final:
                iterators[words[0]] = int(words[1])
        assert count == sim.instances, (index, count, sim.instances)
        assert ranges == expected, (index, ranges, expected)
        assert iterators == sim.final, (index, iterators, sim.final)
        checked += 1
        if checked == 5:
            break
    assert checked == 5 and seen == {"truncation", "wraparound"}


def _loop_program(loop: Loop, iter_type: str = "int", params=(("n", 2),)) -> Program:
    from polysched.fuzz.generator import Array, Param, Ref
    loop.body = [Stmt(Ref("A", [Aff.of({}, 0)]), [Ref("A", [Aff.of({}, 1)])], [0])]
    return Program(0, 0, iter_type, iter_type, [Param(n, "arg", v) for n, v in params],
                   [Array("A", "double", 1)], [], [], [[loop]])


def _literal_loop(lower: int, upper: int, **kwargs) -> Loop:
    return Loop("i", Bound([Aff.of({}, lower)]), Bound([Aff.of({}, upper)]), [], **kwargs)


def test_loops_that_would_not_end_or_overflow_are_refused_quickly():
    start = time.perf_counter()
    # 'for (i = 5; i != 3; i++)': never reaches its end (signed overflow on the way)
    program = _loop_program(_literal_loop(5, 2, ne=True))
    with pytest.raises(InvalidProgram) as err:
        simulate(program)
    assert err.value.loop is program.regions[0][0]
    assert simulate(_loop_program(_literal_loop(2, 4, ne=True))).instances == 3
    assert simulate(_loop_program(_literal_loop(3, 2, ne=True))).instances == 0    # starts at its end
    # 'i <= n - 3u' with n = 2: the bound wrapped to 4294967295 ('i < n - 3u + 1' wraps
    # back to 0: no iteration)
    wrapped = Aff(ext=((1, X("-", (X("aff", (Aff.of({"n": 1}),)), lit(3, "unsigned")))),))
    for iter_type in ("int", "unsigned", "long"):
        program = _loop_program(Loop("i", Bound([Aff.of({}, 0)]), Bound([wrapped]), []), iter_type)
        if iter_type == "long":     # long - unsigned is long: -1, no wrap, no iteration
            assert "i <= n - 3u;" in render(program)
            assert simulate(program).instances == 0
        else:
            with pytest.raises(InvalidProgram):
                simulate(program)
        program.regions[0][0].strict = True
        assert "i < n - 3u + 1;" in render(program)
        assert simulate(program).instances == 0
    # near INT_MAX: 'for (i = 2147483600; i < 2147483647; i++)' is fine, '<= 2147483647' overflows
    program = _loop_program(_literal_loop(0, 46, strict=True, offset=2147483600))
    assert "for (i = 2147483600; i < 2147483647; i++)" in render(program)
    assert simulate(program).final["i"] == 2147483647
    with pytest.raises(InvalidProgram):
        simulate(_loop_program(_literal_loop(0, 47, offset=2147483600)))
    # unsigned 'for (i = 2; i != (-1); i--)' ends when i wraps to UINT_MAX
    program = _loop_program(_literal_loop(0, 2, down=True, ne=True), "unsigned")
    assert "i != (-1); i--" in render(program)
    assert simulate(program).final["i"] == 2 ** 32 - 1
    assert time.perf_counter() - start < 5


def test_shrinker_drops_c_constructs_the_failure_does_not_need():
    def fails(text: str) -> bool:
        return "(unsigned char)" in text.split("#pragma scop", 1)[1]

    for index in range(200):
        program = generate(3, index)
        found = extra_features(program, dynamic=False)
        if "cast_uchar" in found and len(found) >= 3:
            break
    small, _ = shrink(program, fails, max_evaluations=3000, max_seconds=120)
    assert fails(render(small))
    assert len(statements(small)) == 1 or not any(s.reads for s in statements(small))
    assert extra_features(small, dynamic=False) <= {"cast_uchar", "unsigned_literal"}, render(small)


# --------------------------------------------------------------------------- (b'') constructs of v4

# what each construct of generator v4 looks like in the kernel's text
V4_PATTERNS = {
    "linearised": r"\b[fg]\[[^\]]*\* (n|m|w|h|nr|nc|np)\b|IDX\(",
    "deref": r"\*\((src|dst|[xyzuv]) [+-] |\*sum\b",
    "remainder": r"for \(; \w+ (<|<=|>|>=) [^;]*; \w+(\+\+|--)\)",
    "enum": r"^enum \{ \w+ = -?\d+, ",
}


def _kernel_text(text: str) -> str:
    return text.split("int main(void)", 1)[0]


def test_v4_constructs_are_drawn_now_and_then_and_leave_v3_programs_alone():
    """Each construct of v4 in about 8 % of the programs; a program that draws none is
    the one generator v3 wrote (same structure, same text but for the version line)."""
    import random

    from polysched.fuzz.generator import V4_FEATURES, V4_KINDS, _Generator, v4_features
    counts = collections.Counter()
    for index in range(200):
        drawn = _Generator(random.Random(), 3, index).v4
        program = generate(3, index)
        found = v4_features(program)
        assert drawn <= found, (index, drawn, found)
        counts.update(found)
        if not drawn:
            assert not found, (index, found)
            assert render(program) == render(generate(3, index, v4=()))
    for kind in V4_KINDS:
        assert 8 <= counts[kind] <= 32, dict(counts)
    assert all(counts[f] >= 3 for f in V4_FEATURES), dict(counts)
    with pytest.raises(ValueError, match="unknown v4"):
        generate(3, 0, v4=("nosuch",))


def _run_sanitized(tmp_path, name: str, text: str) -> None:
    """``text`` compiled with -Wall -Werror, AddressSanitizer and UBSan runs clean."""
    source, binary = tmp_path / f"{name}.c", tmp_path / name
    source.write_text(text)
    compiled = subprocess.run(
        ["gcc", "-O1", "-fopenmp", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-Wall", "-Werror", "-Wno-unknown-pragmas", "-Wno-unused-variable",
         "-Wno-unused-but-set-variable", str(source), "-o", str(binary), "-lm"],
        capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stderr
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and not run.stderr, (name, run.stderr[-2000:])


@pytest.mark.parametrize("kind", ["linearised", "deref", "remainder", "enum"])
def test_v4_programs_are_valid_c_without_undefined_behaviour(tmp_path, kind):
    """Programs with a construct forced: deterministic, the construct in the text, and
    compiled with -Wall -Werror, AddressSanitizer and UBSan they run clean (every
    access inside its allocation, overlapping pointers included)."""
    for index in range(6):
        program = generate(17, index, v4=(kind,))
        text = render(program)
        assert text == render(generate(17, index, v4=(kind,)))
        assert re.search(V4_PATTERNS[kind], _kernel_text(text), re.M), (kind, index, text)
        _run_sanitized(tmp_path, f"{kind}{index}", text)


# A few programs per construct through the fuzzer's differential check: optimized in
# these modes, compiled, run (1 and 2 threads) and compared with the original.
V4_MODES = ("identity", "isl-smart", "pluto-max", "tile", "tile-par", "unroll")


def _forced_batch(tmp_path, kind: str, seed: int, programs: int, version: str = "v4"):
    """The fuzzer on ``programs`` programs of ``seed`` with the construct ``kind`` of
    generator ``version`` forced: nothing wrong, and most outputs compared."""
    config = FuzzConfig(seed=seed, programs=programs, modes=V4_MODES, jobs=2, out=tmp_path,
                        timeout=60, shrink=False, **{version: (kind,)})
    summary = run_fuzz(config)
    assert summary.invalid == 0 and summary.skipped == 0, [r.invalid or r.skipped for r in summary.results]
    bad = {k: summary.counts[k] for k in ("wrong", "crash", "hang")}
    assert bad == {"wrong": 0, "crash": 0, "hang": 0}, \
        summary.line() + "\n" + "\n".join(distinct_failures(summary))
    for r in summary.results:
        assert kind in r.features, (r.index, r.features)
    # the front end takes them: outputs were compared, not refused
    assert summary.counts["ok"] >= programs * len(V4_MODES) * 3 // 4, summary.line()
    return summary


def test_v4_linearised_subscripts_keep_their_outputs(tmp_path):
    """f[i * n + j], f[(i * m + j) * n + k], f[i + j * n], IDX(i, j), next to f[k]; rows
    left by 'j + 1' or 'j < m' (the run-time check sends those to the original code)."""
    summary = _forced_batch(tmp_path, "linearised", 10, 3)
    shapes = set().union(*(r.features for r in summary.results))
    assert {"linear_3d", "linear_macro"} <= shapes, shapes


def test_v4_pointer_dereferences_keep_their_outputs(tmp_path):
    """*sum += ..., *(dst + i) = *(src + i - 1) ..., with sum inside an array the kernel
    reads and dst one element after src (the run-time overlap check)."""
    summary = _forced_batch(tmp_path, "deref", 1, 3)
    assert sum("deref_overlap" in r.features for r in summary.results) >= 2


def test_v4_remainder_loops_keep_their_outputs(tmp_path):
    """for (i = lo; i + 4 <= hi; i += 4) ... for (; i < hi; i++) ..., stepping down, or
    after 'i <= hi - 4' and 'i < hi - 3'."""
    summary = _forced_batch(tmp_path, "remainder", 3, 3)
    assert any("remainder_down" in r.features for r in summary.results)


def test_v4_enumeration_constants_keep_their_outputs(tmp_path):
    """enum { N = 8, M = N + 2, K }; and a local enum { STEP = 3 }; in bounds, steps,
    subscripts ('% M') and statement values."""
    summary = _forced_batch(tmp_path, "enum", 3, 3)
    found = set().union(*(r.features for r in summary.results))
    assert {"enum_local", "enum_step", "enum_mod"} <= found, found


# --------------------------------------------------------------------------- (b''') constructs of v5

# what each construct of generator v5 looks like in the kernel's text: an if on the data
# or not affine ('if (A[i] < 0.5)', 'if ((i & 3) == j)', 'if (i * j > n)', 'if (i % n == 0)'),
# a struct at file scope and its members ('p[i].x', 'a[i][j].re', 'q[i * n + j].y')
V5_PATTERNS = {
    "cond": [r"^\s*(\} else )?if \(.*(\]|\bbest|\bleast|\bcnt| \* | & | % )"],
    "aos": [r"^struct \w+ \{ .*; \};$", r"\w\]\.[a-z]+\b"],
}


def test_v5_constructs_are_drawn_now_and_then_and_leave_v4_programs_alone():
    """Each construct of v5 in about 8 % of the programs; a program that draws none is
    the one generator v4 wrote (same structure, same text but for the version line)."""
    import random

    from polysched.fuzz.generator import V4_FEATURES, V5_FEATURES, V5_KINDS, _Generator, v4_features, v5_features
    counts = collections.Counter()
    for index in range(200):
        generator = _Generator(random.Random(), 3, index)
        drawn = generator.v5
        program = generate(3, index)
        found = v5_features(program)
        assert drawn <= found, (index, drawn, found)
        counts.update(found)
        if not drawn:
            assert not found, (index, found)
            assert render(program) == render(generate(3, index, v5=()))
        # v5's constructs are not v4's
        assert v4_features(program) <= set(V4_FEATURES)
        if not generator.v4:
            assert not v4_features(program), (index, v4_features(program))
    for kind in V5_KINDS:
        assert 8 <= counts[kind] <= 32, dict(counts)
    assert all(counts[f] >= 3 for f in V5_FEATURES), dict(counts)
    with pytest.raises(ValueError, match="unknown v5"):
        generate(3, 0, v5=("nosuch",))


@pytest.mark.parametrize("kind", ["cond", "aos"])
def test_v5_programs_are_valid_c_without_undefined_behaviour(tmp_path, kind):
    """Programs with a construct forced: deterministic, the construct in the text, and
    compiled with -Wall -Werror, AddressSanitizer and UBSan they run clean (every
    subscript of both branches in bounds whatever the condition, overlapping pointers
    to structs included)."""
    for index in range(6):
        program = generate(17, index, v5=(kind,))
        text = render(program)
        assert text == render(generate(17, index, v5=(kind,)))
        for pattern in V5_PATTERNS[kind]:
            assert re.search(pattern, _kernel_text(text), re.M), (kind, index, pattern, text)
        _run_sanitized(tmp_path, f"{kind}{index}", text)


def test_v5_ifs_on_the_data_keep_their_outputs(tmp_path):
    """Clamps with else if, running extrema into scalars, counters (cnt++, H[j]++),
    conditional swaps and others, under conditions that read the data, are not affine
    ((i & 3) == j, i * j > n) or mix both: each if is one statement with may-writes."""
    summary = _forced_batch(tmp_path, "cond", 1, 3, "v5")
    found = set().union(*(r.features for r in summary.results))
    assert {"cond_else", "cond_elseif", "cond_nested", "cond_scalar", "cond_nonaffine", "cond_mixed"} <= found, found


def test_v5_arrays_of_structs_keep_their_outputs(tmp_path):
    """p[i].x, p[i].vel[k], q[i * n + j].y of arrays of structs global, local to main or
    passed as pointers, two pointers into one array (the run-time overlap check)."""
    summary = _forced_batch(tmp_path, "aos", 51, 3, "v5")
    found = set().union(*(r.features for r in summary.results))
    assert {"aos_member_array", "aos_linear", "aos_local", "aos_overlap"} <= found, found


# --------------------------------------------------------------------------- (b'''') constructs of v6

# sha256 (first 16 digits) of the text of v5 programs, recorded with the generator
# before v6 existed: v6 is opt-in, and a campaign counts the programs of v5 by (seed, index)
V5_TEXTS = {
    (3, 0): "d7fa561ee2554e73",
    (3, 7): "ea5fa91486641ca8",
    (5, 14): "60ed89b945e0eab8",
    (17, 3): "0e638288335d291a",
    (2024, 5): "b510a9f56c45197d",
    (6, 42): "65f0c851d0d375cc",
    (20261124, 1509): "227c9cb519d9c33d",
}


def test_v5_programs_are_unchanged_by_v6():
    import hashlib
    for (seed, index), digest in V5_TEXTS.items():
        text = render(generate(seed, index))
        assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest, (seed, index)
        assert text.startswith("/* polysched fuzz (generator v5)")
        assert render(generate(seed, index, v6=False)) == text == render(generate(seed, index, v6=()))
    with pytest.raises(ValueError, match="unknown v6"):
        generate(3, 0, v6=("nosuch",))


def _expansions(tmp_path, program) -> dict[str, str]:
    """Scalar -> how ``expansion_plan`` expands it ("1d", "dest", "heap") in the regions
    of ``program``."""
    from polysched.scop import extract
    from polysched.transform.expand import expansion_plan
    path = tmp_path / "v6.c"
    path.write_text(render(program))
    found = {}
    for scop in extract(str(path)):
        for e in expansion_plan(scop):
            found[e.scalar] = "heap" if e.outer else "dest" if e.in_place else "1d"
    return found


# what each construct of v6 looks like in the kernel's text: a scalar set in the loop
# body (maybe declared there) and copied out: 's = Y[i][j];', 'C[i][j] = s;', 'C[i][j] =
# beta * C[i][j] + alpha * s;'
V6_PATTERNS = {
    "scan": r"^\s*(ym|acc)\d* (=|\+=) .*;$",
    "dot": r"^\s*\w+\[[^;]*\] = (dot|sq)\d*;$",
    "gemm": r"^\s*\w+\[[^;]*\] = .*\btot\d*\b.*;$",
}


@pytest.mark.parametrize("kind,expected", [("scan", "1d"), ("dot", "dest"), ("gemm", "heap")])
def test_v6_constructs_render_simulate_and_are_expanded(tmp_path, kind, expected):
    """Programs with a construct of v6 forced: deterministic, free of undefined
    behaviour for the simulation, the construct in the text, and its scalars expanded as
    intended in most of them: a column scan into s_x[j] on the stack, a dot product into
    its destination, a gemm into s_x[i][j] on the heap."""
    from polysched.fuzz.generator import v6_features
    expanded = 0
    for index in range(6):
        program = generate(17, index, v6=(kind,))
        text = render(program)
        assert text == render(generate(17, index, v6=(kind,)))
        assert text.startswith("/* polysched fuzz (generator v6)")
        assert kind in v6_features(program)
        simulate(program)
        assert re.search(V6_PATTERNS[kind], _kernel_text(text), re.M), (kind, index, text)
        mine = {s.name for s in program.scalars if kind in s.v6}
        found = _expansions(tmp_path, program)
        # (a transposed operand may leave a dot product one-dimensional, a size of the
        # program's the loop without a walk across rows)
        if mine and all(found.get(name) == expected for name in mine):
            expanded += 1
    assert expanded >= 3, (kind, expanded)


def test_v6_refusals_are_not_expanded(tmp_path):
    """A scalar whose value flows to the next iteration, live after the region, behind a
    macro, or private to a loop whose extent has a division is not expanded; one copied
    under an if, into a float destination or into a destination the loop reads is not
    expanded into its destination (a one-dimensional array may still be)."""
    seen = set()
    for index in range(14):
        program = generate(17, index, v6=("refused",))
        found = _expansions(tmp_path, program)
        for scalar in program.scalars:
            refusals = [t[len("refused_"):] for t in scalar.v6 if t.startswith("refused_")]
            if not refusals:
                continue
            seen.update(refusals)
            if refusals[0] in ("no_init", "live", "macro", "div_extent"):
                assert scalar.name not in found, (index, refusals, found)
            else:
                assert found.get(scalar.name) != "dest", (index, refusals, found)
    assert len(seen) >= 5, seen


def test_v6_block_scalars_and_macros_are_checked():
    """A scalar declared in a loop body is used after its declaration only (else the
    program is refused), and a macro stands for a scalar that has one."""
    from polysched.fuzz.generator import Array, Param, Ref, Scalar
    i = Aff.of({"i": 1})
    decl = Stmt(Ref("s"), [], [], form="lit", value="0.5", decl=True)
    use = Stmt(Ref("A", [i]), [Ref("s")], [0])
    loop = Loop("i", Bound([Aff.of({}, 0)]), Bound([Aff.of({"n": 1}, -1)]), [decl, use], strict=True)
    program = Program(0, 0, "int", "int", [Param("n", "arg", 3)], [Array("A", "double", 1)], [],
                      [Scalar("s", "double", "0.0", "block")], [[loop]])
    text = render(program)
    assert "    double s = 0.5;" in text and "double s" not in text.split("#pragma scop")[0]
    loop.body = [use, decl]
    with pytest.raises(InvalidProgram):
        render(program)
    loop.body = [decl, use]
    program.regions = [[loop, Stmt(Ref("A", [Aff.of({}, 0)]), [Ref("s")], [0])]]
    with pytest.raises(InvalidProgram):
        render(program)
    program.regions = [[loop]]
    use.reads[0].style = "macro"
    with pytest.raises(InvalidProgram):
        render(program)
    program.scalars[0].macro = "S_REF"
    assert "#define S_REF s" in render(program)


def test_v6_programs_are_valid_c_without_undefined_behaviour(tmp_path):
    """v6 programs (drawn) compiled with -Wall -Werror, AddressSanitizer and UBSan run
    clean: flat buffers, scalars declared in loop bodies, float destinations."""
    for index in range(4):
        _run_sanitized(tmp_path, f"v6_{index}", render(generate(6, index, v6=True)))


def test_v6_scans_and_gemms_keep_their_outputs(tmp_path):
    """Column scans (expanded into s_x[j]) and gemms (s_x[i][j] on the heap: programs 0
    and 1 of seed 1 are expanded so) through the differential check."""
    _forced_batch(tmp_path / "scan", "scan", 1, 2, "v6")
    _forced_batch(tmp_path / "gemm", "gemm", 1, 2, "v6")


def test_v6_dot_products_keep_their_outputs(tmp_path):
    """Dot products copied into their destination (programs 0 and 1 of seed 1 are
    expanded so) through the differential check. (It found the removed copy statement
    left in the loops that set the iterators' final values: fuzz seed 99, program 1.)"""
    _forced_batch(tmp_path, "dot", 1, 2, "v6")


# --------------------------------------------------------------------------- (c) shrinker

def test_shrinker_reduces_a_program_under_an_artificial_failure():
    """Failure predicate: the region contains a strided loop enclosing an '+=' statement
    with a read of B. The shrinker must keep that and drop everything else."""
    def fails(text: str) -> bool:
        region = text.split("#pragma scop", 1)[1].split("#pragma endscop", 1)[0]
        return bool(re.search(r"\+= [23]\)", region)) and bool(re.search(r"\+= [^;]*\bB\[", region))

    checked = 0
    for index in range(400):
        program = generate(9, index)
        if not fails(render(program)):
            continue
        small, evaluations = shrink(program, fails, max_evaluations=5000, max_seconds=120)
        text = render(small)
        assert fails(text)
        assert size(small) < size(program)
        assert len(statements(small)) == 1, text
        assert len(small.regions) == 1
        region = text.split("#pragma scop", 1)[1].split("#pragma endscop", 1)[0]
        assert region.count("for (") <= 2, text    # the strided loop, at most one more around it
        assert evaluations > 0
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_shrinker_keeps_the_original_when_nothing_smaller_fails():
    program = generate(9, 1)
    text = render(program)
    small, evaluations = shrink(program, lambda t: t == text, max_evaluations=100)
    assert render(small) == text
    assert evaluations >= 1


# --------------------------------------------------------------------------- (d) detection

def test_fuzzer_detects_a_wrong_transformation_and_shrinks_it(monkeypatch, tmp_path):
    reverse_every_schedule(monkeypatch, trust_the_ast=True)
    config = FuzzConfig(seed=5, programs=5, modes=("identity",), jobs=1, out=tmp_path,
                        timeout=30, shrink=True, shrink_evaluations=25, shrink_seconds=90)
    summary = run_fuzz(config)
    # (a reversed schedule may also make a later stage throw: a "crash" is a detection too)
    assert summary.counts["wrong"] >= 1 and summary.counts["wrong"] + summary.counts["crash"] >= 2, \
        summary.line()
    assert summary.failed
    assert "wrong" in "\n".join(distinct_failures(summary))
    shrunk = [s for r in summary.results for s in r.shrunk if s.kind == "wrong"]
    assert shrunk
    for s in shrunk:
        text = open(s.path).read()
        original = open(s.path.replace("-wrong-identity-min.c", ".c")).read()
        assert len(text.splitlines()) <= len(original.splitlines()) + 4
        # the repro still fails under the broken pipeline
        body = text.split("*/\n", 1)[1]
        assert evaluate_text(body, "identity", 30).kind == "wrong"


def test_fuzzer_detects_corrupted_output_text(monkeypatch, tmp_path):
    """An output that computes something else (one constant changed) is 'wrong'; one
    that does not compile is 'wrong' too; an exception is a 'crash'."""
    from polysched import pipeline

    real = pipeline.optimize

    def corrupt(path, options=None, **kwargs):
        result = real(path, options, **kwargs)
        # the constant term of every double statement changes
        result.text = re.sub(r" \+ (1\.0|0\.5|2\.0);", " + 3.0;", result.text)
        return result

    monkeypatch.setattr(pipeline, "optimize", corrupt)
    texts = [render(generate(5, index)) for index in range(6)]
    kinds = [evaluate_text(text, "identity", 30).kind for text in texts]
    assert "wrong" in kinds, kinds
    program_text = texts[kinds.index("wrong")]

    def broken(path, options=None, **kwargs):
        result = real(path, options, **kwargs)
        result.text = result.text.replace("int main(void)", "int main(void) syntax error")
        return result

    monkeypatch.setattr(pipeline, "optimize", broken)
    result = evaluate_text(program_text, "identity", 30)
    assert result.kind == "wrong" and "does not compile" in result.detail

    def raising(path, options=None, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(pipeline, "optimize", raising)
    result = evaluate_text(program_text, "identity", 30)
    assert result.kind == "crash" and "RuntimeError: boom" in result.detail

    helper_pid = tmp_path / "helper.pid"

    def sleeping(path, options=None, **kwargs):
        import os
        import time
        helper = os.fork()          # a helper process, like a time-limited isl scheduler
        if helper == 0:
            time.sleep(120)
            os._exit(0)
        helper_pid.write_text(str(helper))
        time.sleep(120)

    monkeypatch.setattr(pipeline, "optimize", sleeping)
    result = evaluate_text(program_text, "identity", 1.5)   # sleeping: stopped by the wall limit
    assert result.kind == "hang"
    # the helper did not survive the timeout
    pid = int(helper_pid.read_text())
    for _ in range(100):
        try:
            state = open(f"/proc/{pid}/status").read()
        except FileNotFoundError:
            break
        if "State:\tZ" in state:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"helper process {pid} still running after the timeout")


def test_a_run_the_wall_clock_stopped_is_run_again_once(monkeypatch, tmp_path):
    """A mode stopped by the wall-clock limit while using little CPU (a loaded machine, a
    paused fuzzer: fuzz seed 3, programs 1417 and 1541, with CPU 1 s and 6 s at wall
    165 s and 170 s) is run again before it counts as a hang."""
    from polysched import pipeline
    program_text = render(generate(5, 0))
    real = pipeline.optimize
    calls = tmp_path / "calls"

    def slow_first_time(path, options=None, **kwargs):
        with open(calls, "a") as fh:
            fh.write("x")
        if len(calls.read_text()) == 1:
            time.sleep(120)        # blocked, not computing: only the wall clock stops it
        return real(path, options, **kwargs)

    monkeypatch.setattr(pipeline, "optimize", slow_first_time)
    result = evaluate_text(program_text, "identity", 1.5)
    assert len(calls.read_text()) == 2
    assert result.kind in ("ok", "rejected"), result


# --------------------------------------------------------------------------- CLI

def test_cli_fuzz_summary_line_and_show(tmp_path, capsys):
    from polysched.cli import main

    assert main(["fuzz", "--show", "3", "--seed", "4"]) == 0
    shown = capsys.readouterr().out
    assert "#pragma scop" in shown and "features:" in shown
    code = main(["fuzz", "--programs", "1", "--seed", "4", "--modes", "identity", "--out",
                 str(tmp_path), "-q"])
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(r"fuzz: 1 programs x 1 modes, seed 4: \d+ ok, \d+ rejected, \d+ wrong, "
                        r"\d+ crash, \d+ hang in \d+ s", line), line
    assert code == (0 if " 0 wrong, 0 crash, 0 hang" in line else 1)
    assert main(["fuzz", "--modes", "nosuchmode", "--programs", "1"]) == 2


def test_the_fuzzers_cflags_reach_every_compilation(tmp_path, capsys):
    """``polysched fuzz --cflags``: gcc miscompiled one program only at -O2, so the flags
    are a choice; they reach the original's build (a program that needs -DVALUE does
    not compile without it) and the summary line names them."""
    text = '#include <stdio.h>\nint main(void) { printf("%d\\n", VALUE); return 0; }\n'
    assert "the original does not compile" in evaluate_text(text, "identity", 30).detail
    with_value = ("-O1", "-DVALUE=3", "-ffp-contract=off", "-w", "-DPOLYSCHED_PARALLEL_MIN_WORK=0")
    # (the -O0 reference build, REFERENCE_CFLAGS, still lacks VALUE)
    assert evaluate_text(text, "identity", 30, with_value).detail == \
        "gcc -O1 and -O0 disagree on the original: -O0 build failed"
    from polysched.cli import main
    assert main(["fuzz", "--programs", "1", "--seed", "5", "--modes", "identity", "--cflags", "-O1 -fno-inline",
                 "--out", str(tmp_path), "-q"]) == 0
    assert "(compiled with -O1 -fno-inline -ffp-contract=off" in capsys.readouterr().out
