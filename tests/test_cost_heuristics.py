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
    parallel. (Without scalar expansion: by default the factorisation's sum lives in
    A[i][j], and its loops are tiled, test_expand_in_place.py.)"""
    result = optimize(get("ludcmp").path, OptimizeOptions.from_flags(tile=True, parallel=True, reassociate=True,
                                                                     expand_scalars=False))
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


# helper-53: the inner-parallel heuristic counted the outer loops' iterations with isl,
# which enumerates them: at n = 1024, ~1e12 points for these 4 outer loops. The tiling
# ran past the run's budget of 60 CPU s and the region was kept as written.
DEEP_TRIANGLE = r"""#include <stdio.h>
#include <stdlib.h>
double A1[8][8][8][8], A2[8];
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  int i0, i1, i2, i3, i5, z;
  if (n > 4) n = 4;
  for (z = 0; z < 4096; z++) ((double *)A1)[z] = (z * 9 % 13) * 0.125;
#pragma scop
  for (i0 = 1; i0 < n; i0++)
    for (i1 = 0; i1 < i0; i1++)
      for (i2 = 0; i2 < i0; i2++)
        for (i3 = 0; i3 < i1; i3++)
          for (i5 = 0; i5 < i1; i5++)
            A2[i1 + 2] += A1[i0 + 3][i2 + 3][i3 + 2][i5 + 2] * 0.125;
#pragma endscop
  double c = 0;
  for (z = 0; z < 8; z++) c += A2[z] * (z + 1);
  printf("%.17g\n", c);
  return 0;
}
"""


def test_a_deep_triangular_nest_is_tiled_without_counting_its_outer_loops_one_by_one(tmp_path):
    from compiled_runs import outputs_of

    source = tmp_path / "deep.c"
    source.write_text(DEEP_TRIANGLE)
    options = OptimizeOptions.from_flags(tile=True, parallel=True)
    assert options.budget == 60           # the default: CPU seconds for the whole run
    result = optimize(source, options)
    [region] = result.regions
    assert not region.kept_as_written and region.tiling is not None
    notes = [note for band in region.tiling.bands for note in band.notes]
    assert any("fork/joins (the outer loops' bounding box)" in note for note in notes), notes
    sizes = [(-1,), (0,), (1,), (2,), (4,)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(DEEP_TRIANGLE, tmp_path, "orig", sizes)
