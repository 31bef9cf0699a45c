"""The differential fuzzer (polysched fuzz): its generator, shrinker and runner, and
a fixed-seed batch through every mode (the CI batch of issue 9)."""
from __future__ import annotations

import collections
import re
import shutil
import subprocess
import time

import pytest

from polysched.fuzz.generator import (FEATURES, Aff, Bound, InvalidProgram, Loop, Program, Stmt,
                                      generate, render, features, simulate, statements)
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
