"""Performance heuristics that decide code shape, checked on the trees they produce."""
from __future__ import annotations

from polysched.bench import get
from polysched.pipeline import OptimizeOptions, optimize


def _marks(schedule) -> list[str]:
    found = []

    def visit(node):
        if node.get_type().name == "mark":
            found.append(node.mark_get_id().get_name())
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(schedule.get_root())
    return found


def test_no_parallel_region_forked_millions_of_times():
    """ludcmp's dot products (reductions over k inside the sequential (i, j) loops) would
    fork/join N^2 times, and the two triangular solves N times with about N instances
    each (a microsecond of work per fork/join): nothing inside the sequential loops is
    parallel."""
    result = optimize(get("ludcmp").path, OptimizeOptions.from_flags(tile=True, parallel=True, reassociate=True))
    [region] = result.regions
    assert sorted(_marks(region.schedule)).count("parallel(reduction=+:w)") == 0
    notes = [note for band in region.tiling.bands for note in band.notes]
    assert any("fork/joins" in note for note in notes)
    assert sum("instances per fork/join" in note for note in notes) == 2


def test_smartfuse_keeps_lower_depth_statements_out_of_inner_loops():
    """durbin: `y[k] = alpha` (depth 1) is not fused into the z loop (depth 2) at a shift,
    which left an `if (c1 == c0)` guard inside the vector loop."""
    result = optimize(get("durbin").path, OptimizeOptions())
    text = result.text
    # the optimized branch of the versioned region (the original is the else branch)
    region = text[text.index("#pragma scop"):text.index("} else {")]
    region = region[region.index(") {\n") + 4:]
    assert "if (" not in region
    assert region.count("for (") == 4      # k, then the three i loops, one after another
