"""Generator v9 of the differential fuzzer (``polysched fuzz --generator 9``): v8's
programs, unchanged, with nests whose innermost loop body names partial results in
temporaries (``double t = G[i - 1][j] + G[i + 1][j]; H[i][j] = 0.5 * t;``), the scalars
forward substitution (polysched/transform/substitute.py) writes into their uses, and
what must keep one where it is (a write to what its value reads before a use, a read
after the region, a second assignment, ``t += e``, a use under an ``if``)."""
from __future__ import annotations

import collections
import hashlib
import re
import subprocess

from polysched.fuzz.generator import V9_FEATURES, features, generate, render, v9_features
from polysched.fuzz.runner import FuzzConfig, distinct_failures, run_fuzz
from polysched.scop import extract
from polysched.transform.substitute import substitution_plan

# sha256 (first 16 digits) of the text of the v8 programs 0..19 of seed 20261128
# (generate(..., v6=True, v7=True, v8=True)), recorded before v9 existed: v9 is opt-in
V8_SEED = 20261128
V8_TEXTS = (
    "fa2aba1e1b5ab096", "9a5f9909bb6d6129", "3304574565ee1452", "824f7741910661f3", "d95e357cc424fe54",
    "c761a59bbed38ce7", "f528e96064628908", "6eab23d679b6f46e", "b60668e8904dab2a", "cc9ce776c4cbafa0",
    "4d94c97c355c58b9", "f6f29fb5b766b9e9", "8297f533bcc22bf4", "9b7cb476ea91fb70", "55a0f0a0f376e5f5",
    "0b1fe85a6d7e94d9", "06db93e75b6483a2", "58f49d65eb3e83ca", "da1faf81e43a7d47", "6a017f2bddea4e54",
)


def _v9(seed: int, index: int):
    return generate(seed, index, v6=True, v7=True, v8=True, v9=True)


def _region_lines(text: str) -> collections.Counter:
    """The lines between ``#pragma scop`` and ``#pragma endscop``, stripped."""
    found: collections.Counter = collections.Counter()
    inside = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#pragma"):
            inside = line == "#pragma scop"
        elif inside:
            found[line] += 1
    return found


def test_v8_programs_stay_what_they_are():
    for index, digest in enumerate(V8_TEXTS):
        text = render(generate(V8_SEED, index, v6=True, v7=True, v8=True))
        assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest, index
        assert render(generate(V8_SEED, index, v6=True, v7=True, v8=True, v9=False)) == text


def test_v9_programs_are_v8_programs_with_nests_of_temporaries():
    """Every v9 program is the v8 program of its (seed, index) with lines added (its
    regions' lines all there), has a nest of temporaries, and is the same every time."""
    seen: set[str] = set()
    for index in range(40):
        program = _v9(9, index)
        text = render(program)
        assert text.startswith("/* polysched fuzz (generator v9)"), index
        assert render(_v9(9, index)) == text, index
        found = v9_features(program)
        assert "temp" in found and found <= features(program), index
        seen |= found
        v8 = render(generate(9, index, v6=True, v7=True, v8=True))
        missing = _region_lines(v8) - _region_lines(text)
        assert not missing, (index, missing)
        temps = [sc for sc in program.scalars if sc.v9]
        assert temps and all(re.search(rf"^\s+({sc.dtype} )?{sc.name} = ", text, re.M) for sc in temps), index
    assert seen == set(V9_FEATURES), set(V9_FEATURES) - seen


def test_v9_temporaries_are_substituted_in_most_programs():
    """The front end takes the programs, and forward substitution applies in most of
    them (the rest: the blocking cases, and temporaries whose uses are not plain)."""
    hits = 0
    for index in range(6):
        text = render(_v9(5, index))
        scops = extract(text, filename=f"v9_{index}.c")
        hits += any(substitution_plan(scop) for scop in scops)
    assert hits >= 3, hits


def _run_sanitized(tmp_path, name: str, text: str) -> None:
    """As test_fuzz's, with conversions of a floating value out of an int's range
    checked too (``int t = 0.5 * W[i][j] + 1.0;``)."""
    source, binary = tmp_path / f"{name}.c", tmp_path / name
    source.write_text(text)
    compiled = subprocess.run(
        ["gcc", "-O1", "-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all",
         "-Wall", "-Werror", "-Wno-unknown-pragmas", "-Wno-unused-variable",
         "-Wno-unused-but-set-variable", str(source), "-o", str(binary), "-lm"],
        capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stderr
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and not run.stderr, (name, run.stderr[-2000:])


def test_v9_programs_are_valid_c_without_undefined_behaviour(tmp_path):
    """Among them an int temporary converted from a double sum, a live one (printed), a
    float one."""
    seen: set[str] = set()
    for index in (1, 4, 5, 7):
        program = _v9(99, index)
        seen |= v9_features(program)
        _run_sanitized(tmp_path, f"v9_{index}", render(program))
    assert {"temp_convert", "temp_live", "temp_float", "temp_int", "temp_blocked_write"} <= seen, seen


def test_v9_programs_keep_their_outputs(tmp_path):
    """Three v9 programs (the first of the campaign seed 20261129) through the
    differential check in three modes (two tiled, one parallel: the substituted
    temporaries no longer order the iterations): nothing wrong, and the front end
    takes them."""
    modes = ("identity", "tile", "tile-par")
    config = FuzzConfig(seed=20261129, programs=3, modes=modes, jobs=1, out=tmp_path, timeout=60, shrink=False,
                        v6=True, v7=True, v8=True, v9=True)
    summary = run_fuzz(config)
    assert summary.generator == 9
    assert summary.invalid == 0 and summary.skipped == 0, [r.invalid or r.skipped for r in summary.results]
    bad = {k: summary.counts[k] for k in ("wrong", "crash", "hang", "rejected")}
    assert bad == {"wrong": 0, "crash": 0, "hang": 0, "rejected": 0}, \
        summary.line() + "\n" + "\n".join(distinct_failures(summary))
    assert all("temp" in r.features for r in summary.results)


def test_cli_fuzz_show_generator_9(capsys):
    from polysched.cli import main

    assert main(["fuzz", "--show", "2", "--seed", "4", "--generator", "9"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("/* polysched fuzz (generator v9): seed 4, program 2 */")
    assert re.search(r"features: .*\btemp\b", shown)
