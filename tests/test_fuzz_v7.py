"""Generator v7 of the differential fuzzer (``polysched fuzz --generator 7``): arrays
declared inside the region (temporaries of a loop body, register-blocked accumulators,
tables of constants, arrays carrying values across iterations), added to the programs
of v6, which stay what they are."""
from __future__ import annotations

import collections
import hashlib
import re
import shutil
import subprocess

import pytest

from polysched.fuzz.generator import (V7_FEATURES, V7_KINDS, Aff, Array, Bound, Guard, InvalidProgram, Local,
                                      Loop, Param, Program, Ref, Stmt, X, generate, lit, render, simulate,
                                      statements, v7_features)
from polysched.fuzz.runner import FuzzConfig, distinct_failures, run_fuzz
from polysched.fuzz.shrink import shrink, size
from test_fuzz import _run_sanitized

# sha256 (first 16 digits) of the text of the v6 programs 0..40 of seed 20261125
# (generate(..., v6=True)), recorded with the generator before v7 existed: v7 is
# opt-in, and a campaign counts the programs of v6 by (seed, index)
V6_SEED = 20261125
V6_TEXTS = (
    "ebecb3f4d3b43af7", "66dc1023768e2916", "698fde595656bcd1", "b3c0cf4a57d67f28", "15a831871916ea28",
    "88526ad0f62502ff", "f1e25c891c049d5d", "810ea1c7e78fec2d", "d28f956caff446de", "645401b9bf42a87b",
    "c9c00321cefbfde9", "915a25bb67630150", "4e58e4c9b992d3b3", "953adfb9574df48f", "373490a16ecf5738",
    "3132dff6dc3a4adc", "b0bdbe86a45579cd", "7cfeecb306e1036c", "82ab9f606b307cfc", "ca8b9c6a77a6944d",
    "0b87d3f81f1a9f71", "cdcf3d8b5371cd91", "0b552d9f0b40c1fe", "b5d9e953b6a14c47", "08e17be3f8d0a378",
    "c226cf8e3b9e0172", "c1e441e8e66247f0", "b0edc3d1f0d0026a", "57356fec9d436414", "ea3747e9db14348a",
    "3335f1a46a8c26ea", "38833f47dca1ab48", "7cea83332850c9f9", "47036d1b25385fa4", "169459294c194802",
    "454c3d454cf369c2", "ac3d119ab5f8ae43", "80cb3e572801dafe", "9700b36c8887ff14", "b76256d3c4e1427d",
    "66c1fb1c7d1b6fb7",
)
# and of the (default) v5 programs 0..9 of the same seed
V5_TEXTS = (
    "d187c990a50a1c83", "023cc761b5b40073", "0b879376031634fb", "0bdb875e7a191e9f", "74c7be3c82e6263f",
    "17b3fea6e21e8dcf", "c19cebb18c675eab", "d9494039c4397288", "5d12e7160c0ac272", "53f16f56a21bc1bd",
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _kernel_text(text: str) -> str:
    return text[text.index("static void kernel"):text.index("int main")]


def test_v6_and_v5_programs_are_unchanged_by_v7():
    for index, digest in enumerate(V6_TEXTS):
        text = render(generate(V6_SEED, index, v6=True))
        assert _digest(text) == digest, index
        assert render(generate(V6_SEED, index, v6=True, v7=False)) == text
        if index < 8:
            assert render(generate(V6_SEED, index, v6=True, v7=())) == text
    for index, digest in enumerate(V5_TEXTS):
        text = render(generate(V6_SEED, index))
        assert _digest(text) == digest and text.startswith("/* polysched fuzz (generator v5)"), index
    with pytest.raises(ValueError, match="unknown v7"):
        generate(3, 0, v7=("nosuch",))


def test_v7_programs_draw_every_construct_and_feature():
    """``--generator 7`` programs (v6's and v7's constructs drawn): deterministic,
    written by v7, at least one construct each, and every feature of v7 over 60 of
    them; the declarations are in the kernel's text."""
    counts: collections.Counter = collections.Counter()
    for index in range(60):
        program = generate(V6_SEED, index, v6=True, v7=True)
        text = render(program)
        if index < 10:
            assert text == render(generate(V6_SEED, index, v6=True, v7=True))
        assert text.startswith("/* polysched fuzz (generator v7)")
        found = v7_features(program)
        assert found & set(V7_KINDS), index
        counts.update(found)
        kernel = _kernel_text(text)
        for node in (n for region in program.regions for n in _walk(region) if isinstance(n, Local)):
            assert re.search(rf"^\s*(const )?(double|float|int) {node.name}\[", kernel, re.M), (index, node.name)
    missing = [f for f in V7_FEATURES if not counts[f]]
    assert not missing, (missing, dict(counts))
    for kind in V7_KINDS:
        assert 10 <= counts[kind] <= 45, dict(counts)


def _walk(nodes):
    for node in nodes:
        yield node
        if isinstance(node, (Loop, Guard)):
            yield from _walk(node.body)


# what each construct looks like in the kernel's text
V7_PATTERNS = {
    "row": r"^\s*(float|double|int) (tmp|row)\d*(\[2\])?\[\w+\];$",
    "acc": r"^\s*(double|int) acc\d*\[4\]( = \{[^}]*\})?;$",
    "table": r"^\s*const (double|int) (w|coef)\d*\[\w*\] = \{[^}]*\};$",
    "carry": r"^\s*(double|int) (carry|win|pre)\d*\[\w+\]( = \{0(\.0)?\})?;$",
}


@pytest.mark.parametrize("kind", V7_KINDS)
def test_v7_constructs_render_and_simulate(kind):
    for index in range(5):
        program = generate(17, index, v7=(kind,))
        text = render(program)
        assert text == render(generate(17, index, v7=(kind,)))
        assert kind in v7_features(program)
        assert re.search(V7_PATTERNS[kind], _kernel_text(text), re.M), (kind, index, text)
        simulate(program)


def _row_program():
    """``for (i) { double tmp[NB]; for (j) tmp[j] = X[i][j]; for (j) Y[i][j] =
    tmp[NB - j - 1]; }``: the loops, the statements, the program."""
    i, j = Aff.of({"i": 1}), Aff.of({"j": 1})
    nb = Aff.of({"NB": 1})
    fill = Loop("j", Bound([Aff.of({}, 0)]), Bound([nb.plus(-1)]),
                [Stmt(Ref("tmp", [j]), [Ref("X", [i, j])], [0])], strict=True)
    use = Loop("j", Bound([Aff.of({}, 0)]), Bound([nb.plus(-1)]),
               [Stmt(Ref("Y", [i, j]), [Ref("tmp", [Aff.of({"NB": 1, "j": -1}, -1)])], [0])], strict=True)
    local = Local("tmp", [nb])
    outer = Loop("i", Bound([Aff.of({}, 0)]), Bound([Aff.of({"n": 1}, -1)]), [local, fill, use], strict=True)
    program = Program(0, 0, "int", "int", [Param("n", "arg", 3), Param("NB", "define", 4)],
                      [Array("X", "double", 2), Array("Y", "double", 2), Array("tmp", "double", 1, region=True)],
                      [], [], [[outer]])
    return program, outer, local, fill, use


def test_v7_region_arrays_are_checked():
    """An element read before it is set since the declaration ran, a subscript outside
    the declared extents, a use outside the declaring block, a declaration under an if,
    twice or with an iterator in its size, an initialiser for a variable length array,
    a list other than {0} for two dimensions, a write to a table of constants: refused."""
    program, outer, local, fill, use = _row_program()
    text = render(program)
    assert "    double tmp[NB];" in text and "tmp[NB - j - 1]" in text
    assert "double tmp" not in text.split("#pragma scop")[0]
    # the fill loop one short: tmp[NB - 1 - 0] is read before it is set
    fill.upper = Bound([Aff.of({"NB": 1}, -2)])
    with pytest.raises(InvalidProgram, match="read before it is set"):
        render(program)
    # ... unless the declaration sets every element
    local.init = ("0.0",)
    render(program)
    local.init = None
    fill.upper = Bound([Aff.of({"NB": 1}, -1)])
    # the set elements are forgotten at each declaration: the fill loop moved before it
    outer.body = [fill, local, use]
    with pytest.raises(InvalidProgram):
        render(program)
    outer.body = [local, fill, use]
    # outside its extents
    use.body[0].reads[0].subs = [Aff.of({"NB": 1, "j": -1})]
    with pytest.raises(InvalidProgram, match="outside its extents"):
        render(program)
    use.body[0].reads[0].subs = [Aff.of({"NB": 1, "j": -1}, -1)]
    # used after its block
    program.regions = [[outer, Stmt(Ref("Y", [Aff.of({}, 0), Aff.of({}, 0)]), [Ref("tmp", [Aff.of({}, 0)])], [0])]]
    with pytest.raises(InvalidProgram, match="outside the block"):
        render(program)
    program.regions = [[outer]]
    # declared under an if, twice, with an iterator in its size
    outer.body = [Guard([], [local]), fill, use]
    with pytest.raises(InvalidProgram):
        render(program)
    outer.body = [local, Local("tmp", [Aff.of({"NB": 1})]), fill, use]
    with pytest.raises(InvalidProgram, match="twice"):
        render(program)
    outer.body = [local, fill, use]
    local.dims = [Aff.of({"i": 1}, 4)]
    with pytest.raises(InvalidProgram, match="iterator"):
        render(program)
    # a variable length array: no initialiser
    local.dims = [Aff.of({"n": 1}, 1)]
    render(program)
    local.init = ("0.0",)
    with pytest.raises(InvalidProgram, match="variable length"):
        render(program)
    local.dims, local.init = [Aff.of({"NB": 1})], None
    # a table of constants is only read
    local.const, local.init = True, ("0.5", "0.25")
    with pytest.raises(InvalidProgram, match="constants"):
        render(program)
    local.const = False
    text = render(program)
    assert "    double tmp[NB] = {0.5, 0.25};" in text
    # two dimensions: {0} only
    program.array("tmp").rank = 2
    local.dims = [Aff.of({}, 2), Aff.of({"NB": 1})]
    for ref in (fill.body[0].target, use.body[0].reads[0]):
        ref.subs = [Aff.of({}, 1)] + ref.subs
    with pytest.raises(InvalidProgram, match="list"):
        render(program)
    local.init = ("0",)
    assert "    double tmp[2][NB] = {0};" in render(program)


def test_v7_subscripts_with_a_remainder_are_evaluated_as_c_does():
    """``hist[k % 2][k % 3] += 1;`` after ``int hist[2][3] = {0};``: in the extents; with
    ``k % 4`` outside them."""
    def mod(m: int) -> Aff:
        return Aff(ext=((1, X("%", (X("aff", (Aff.of({"k": 1}),)), lit(m)))),))
    count = Stmt(Ref("hist", [mod(2), mod(3)]), [], [], "+=", form="lit", value="1")
    out = Stmt(Ref("H", [Aff.of({"k": 1})]), [Ref("hist", [mod(2), mod(3)])], [0])
    loop = Loop("k", Bound([Aff.of({}, 0)]), Bound([Aff.of({}, 6)]), [count, out], strict=True)
    outer = Loop("i", Bound([Aff.of({}, 0)]), Bound([Aff.of({}, 2)]),
                 [Local("hist", [Aff.of({}, 2), Aff.of({}, 3)], ("0",)), loop])
    program = Program(0, 0, "int", "int", [], [Array("H", "int", 1), Array("hist", "int", 2, region=True)],
                      [], [], [[outer]])
    text = render(program)
    assert "hist[k % 2][k % 3] += 1;" in text and "int hist[2][3] = {0};" in text
    count.target.subs[0] = mod(4)
    with pytest.raises(InvalidProgram, match="outside its extents"):
        render(program)


def test_shrinker_keeps_v7_programs_valid():
    """Shrinking a v7 program under an artificial failure (an accumulator still
    declared) gives a smaller program that renders, with its declaration."""
    program = next(p for p in (generate(3, k, v7=("acc",)) for k in range(10)) if "acc" in v7_features(p))
    calls = []

    def fails(text: str) -> bool:
        calls.append(text)
        return re.search(r"^\s*(double|int) acc\d*\[", text, re.M) is not None and "+=" in text
    small, evaluations = shrink(program, fails, max_evaluations=150)
    assert evaluations == len(calls) and size(small) < size(program)
    text = render(small)
    assert fails(text)
    assert len(statements(small)) < len(statements(program))


def _run_checked(tmp_path, name: str, text: str) -> None:
    """``text`` compiled with -Wall -Werror, AddressSanitizer and UBSan runs clean, and
    (when valgrind is there) reads no uninitialised element of a region array."""
    _run_sanitized(tmp_path, name, text)
    source = tmp_path / f"{name}.c"
    if shutil.which("valgrind"):
        plain = tmp_path / f"{name}-plain"
        subprocess.run(["gcc", "-O0", str(source), "-o", str(plain), "-lm"], check=True, timeout=120)
        checked = subprocess.run(["valgrind", "-q", "--error-exitcode=9", str(plain)],
                                 capture_output=True, text=True, timeout=120)
        assert checked.returncode == 0 and not checked.stderr, (name, checked.stderr[-2000:])


def test_v7_programs_are_valid_c_without_undefined_behaviour(tmp_path):
    """v7 programs (drawn, with v6's) compiled with -Wall -Werror, AddressSanitizer and
    UBSan run clean; under valgrind no value read is uninitialised."""
    for index in range(4):
        _run_checked(tmp_path, f"v7_{index}", render(generate(7, index, v6=True, v7=True)))


def test_v7_programs_keep_their_outputs(tmp_path):
    """Three v7 programs (seed 11: every construct among them) through the differential
    check: optimized in three modes (two tiled and parallel: the region arrays private
    to a loop where no value crosses its iterations), compiled, run at 1 and 2 threads
    and compared with the original: nothing wrong, and the front end takes them."""
    modes = ("identity", "tile-par", "isl-tile-par")
    config = FuzzConfig(seed=11, programs=3, modes=modes, jobs=1, out=tmp_path, timeout=60, shrink=False,
                        v6=True, v7=True)
    summary = run_fuzz(config)
    assert summary.generator == 7
    assert summary.invalid == 0 and summary.skipped == 0, [r.invalid or r.skipped for r in summary.results]
    bad = {k: summary.counts[k] for k in ("wrong", "crash", "hang")}
    assert bad == {"wrong": 0, "crash": 0, "hang": 0}, \
        summary.line() + "\n" + "\n".join(distinct_failures(summary))
    assert set(V7_KINDS) <= set().union(*(r.features for r in summary.results))
    assert summary.counts["ok"] >= 3 * len(modes) * 3 // 4, summary.line()


def test_cli_fuzz_show_generator_7(capsys):
    from polysched.cli import main

    assert main(["fuzz", "--show", "2", "--seed", "4", "--generator", "7"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("/* polysched fuzz (generator v7): seed 4, program 2 */")
    assert re.search(r"features: .*\bacc\b", shown)
