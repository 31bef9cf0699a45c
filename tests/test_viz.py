"""polysched.viz: every picture takes an ax and returns it, and draws what it says."""
from __future__ import annotations

import re

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import polysched as ps  # noqa: E402
import polysched.viz as viz  # noqa: E402
from polysched.bench import get  # noqa: E402


@pytest.fixture(scope="module")
def seidel():
    return ps.Program.from_file(get("seidel-2d").path)


def test_domain_points_arrows_and_tiles(seidel):
    fig, ax = plt.subplots()
    assert viz.domain(seidel, "S0", ax, dims=("i", "j"), params={"TSTEPS": 2, "N": 6}) is ax
    (points,) = ax.collections
    assert len(points.get_offsets()) == 16                # i, j in 1..4
    assert len(ax.texts) > 0                              # dependence arrows are annotations
    assert not ax.patches                                 # the original schedule has no tiles
    tiled = seidel.skew("S0", 1, 0, 1).skew("S0", 2, 1, 1).skew("S0", 2, 0, 1).tile("S0", [2, 2, 2])
    ax2 = viz.domain(tiled, "S0", dims=("t", "i"), params={"TSTEPS": 4, "N": 6}, order=True)
    assert len(ax2.patches) > 1                           # one outline per tile
    plt.close("all")


def test_dependence_graph(seidel):
    ax = viz.dependence_graph(ps.Program.from_file(get("gemver").path))
    assert ax.get_title().startswith("dependences")
    assert viz.dependence_graph(seidel.deps) is not None  # a Dependences works too
    # one kind as a string (helper-90: "unknown dependence kind 'r'")
    gemver = ps.Program.from_file(get("gemver").path)
    labels = {t.get_text() for t in viz.dependence_graph(gemver, kinds="war").texts}
    assert labels == {"S0", "S1", "S2", "S3", "war"}, labels
    plt.close("all")


def test_schedule_tree_and_timings(seidel):
    fig, ax = plt.subplots()
    q = seidel.skew("S0", 1, 0, 1).skew("S0", 2, 1, 1).skew("S0", 2, 0, 1).tile("S0", [8, 8, 8])
    assert viz.schedule_tree(q, ax) is ax
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "floor(t/8)" in texts and "band" in texts
    ax = viz.timings(["a", "b"], [2.0, 1.0])
    assert any("2.00x" in t.get_text() for t in ax.texts)
    plt.close("all")
    # (helper-54: an IndexError)
    for baseline, labels in [(5, ["a", "b"]), ("a", ["a", "b"]), (0, ["a"])]:
        with pytest.raises(ps.ArgumentError, match=r"^timings: (baseline|1 labels for 2 times)"):
            viz.timings(labels, [2.0, 1.0], baseline=baseline)
    assert any("0.50x" in t.get_text() for t in viz.timings(["a", "b"], [2.0, 1.0], baseline=-1).texts)
    plt.close("all")


@pytest.mark.parametrize("call, message", [
    (lambda p: viz.domain(p, "S7"), "domain('S7'): no statement 'S7'"),
    (lambda p: viz.domain(p, "S0", dims=("x", "y")), "dims ['x', 'y']: 'x' is none of S0's loops"),
    (lambda p: viz.domain(p, "S0", dims=(0, 9)), "dims [0, 9]: 9 is none of S0's loops"),
    (lambda p: viz.dependence_graph(p, kinds=("foo",)), "dependence_graph: unknown dependence kind 'foo'"),
])
def test_misuse_is_a_transform_error_of_one_sentence(seidel, call, message):
    with pytest.raises(ps.TransformError, match=re.escape(message)):
        call(seidel)


def test_a_domain_too_large_to_draw_is_refused_at_once(seidel):
    """helper-49: params at a real size (N = 3000) enumerated 9 million points in
    Python for minutes, memory growing; now a one-sentence refusal before any."""
    import time
    start = time.process_time()
    with pytest.raises(ps.TransformError, match=r"domain\('S0'\) with TSTEPS=2, N=3000: 8988004 points to draw"):
        viz.domain(seidel, "S0", dims=("i", "j"), params={"TSTEPS": 2, "N": 3000})
    assert time.process_time() - start < 5
    # 24964 points, drawn; their dependences, more than MAX_POINTS pairs, are not
    ax = viz.domain(seidel, "S0", dims=("i", "j"), params={"TSTEPS": 2, "N": 160})
    assert len(ax.collections[0].get_offsets()) == 158 * 158
    assert re.search(r"\(\d+ flow pairs S0 -> S0 not drawn\)", ax.get_title()) and not ax.texts


def test_a_parameter_the_region_lacks_is_an_error(seidel):
    """helper-58: ``params={"q": 5}`` drew at the default sizes, titled "q=5"."""
    with pytest.raises(ps.ArgumentError, match=r"params: 'n' is no parameter of the region \(its parameters: "
                                            r"TSTEPS, N\)"):
        viz.domain(seidel, "S0", dims=("i", "j"), params={"TSTEPS": 2, "n": 6})


def test_schedule_tree_of_something_else_says_what_it_takes():
    """A tester: schedule_tree("not a schedule") raised "AttributeError: 'str' object
    has no attribute 'get_root'"; every other misuse of viz is one sentence."""
    with pytest.raises(TypeError) as info:
        viz.schedule_tree("not a schedule")
    assert str(info.value) == "schedule_tree: expected a polysched.Program or an isl.Schedule, got str"
