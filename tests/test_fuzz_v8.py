"""Generator v8 of the differential fuzzer (``polysched fuzz --generator 8``): v7's
programs with the declarations C programmers put at the top of a region, which code
after it may use (the front end moves them before ``#pragma scop``, scop/hoist.py):
the kernel's scalars declared with their values at the top of its first region, and
v7's arrays of a region's top declared without a block around the region."""
from __future__ import annotations

import collections

from polysched.fuzz.generator import V8_FEATURES, generate, render, v8_features
from polysched.fuzz.runner import FuzzConfig, distinct_failures, run_fuzz
from test_fuzz_v7 import _run_checked


def _region_lines(text: str) -> collections.Counter:
    """The kernel's lines, stripped, without the braces v7 puts around a region."""
    kernel = text[text.index("static void kernel"):text.index("int main")]
    return collections.Counter(line.strip() for line in kernel.splitlines() if line.strip() not in ("{", "}", ""))


def test_v8_programs_are_v7_programs_with_declarations_moved():
    seen = set()
    for index in range(24):
        v7 = render(generate(8, index, v6=True, v7=True))
        v8_program = generate(8, index, v6=True, v7=True, v8=True)
        v8 = render(v8_program)
        assert v8.startswith("/* polysched fuzz (generator v8)")
        # the same lines, at other places (and one block's braces fewer)
        assert _region_lines(v7) == _region_lines(v8), index
        features = v8_features(v8_program)
        seen |= features
        kernel = v8[v8.index("static void kernel"):]
        first_region = kernel[kernel.index("#pragma scop"):kernel.index("#pragma endscop")]
        if "top_scalar" in features:
            assert any(line.startswith("  double ") or line.startswith("  int ")
                       for line in first_region.splitlines()[1:]), index
    assert seen == set(V8_FEATURES)


def test_v8_programs_are_valid_c_without_undefined_behaviour(tmp_path):
    """With the declarations moved (gcc -Wall -Werror: no redeclaration, no unused
    variable; sanitizers and valgrind clean)."""
    for index in (1, 3):
        _run_checked(tmp_path, f"v8_{index}", render(generate(77, index, v6=True, v7=True, v8=True)))


def test_v8_programs_keep_their_outputs(tmp_path):
    """Programs whose regions start with declarations, through the differential check
    in three modes: nothing wrong, and the front end takes them (no refusal)."""
    modes = ("identity", "tile-par", "isl-tile-par")
    config = FuzzConfig(seed=77, programs=4, modes=modes, jobs=1, out=tmp_path, timeout=60, shrink=False,
                        v6=True, v7=True, v8=True)
    summary = run_fuzz(config)
    assert summary.generator == 8
    assert summary.invalid == 0 and summary.skipped == 0, [r.invalid or r.skipped for r in summary.results]
    bad = {k: summary.counts[k] for k in ("wrong", "crash", "hang", "rejected")}
    assert bad == {"wrong": 0, "crash": 0, "hang": 0, "rejected": 0}, \
        summary.line() + "\n" + "\n".join(distinct_failures(summary))
    assert set(V8_FEATURES) <= set().union(*(r.features for r in summary.results))
