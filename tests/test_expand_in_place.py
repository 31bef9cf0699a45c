"""A scalar accumulator that ends in an element set by its last statements (ludcmp's
``w = A[i][j]; for (k) w -= ...; if (j < i) A[i][j] = w / A[j][j]; if (j >= i) A[i][j]
= w;``) lives in that element (polysched/transform/expand.py, `_destination`) even
where the loop carries a dependence, which frees the schedule: the structure of the
plan and of the schedule, and the outputs against the originals' (bit-identical at 1
and 2 threads, at sizes 0, 1, negative, odd) where the mapping is exact and where it
is not."""
from __future__ import annotations

import re

import islpy as isl
import pytest

from compiled_runs import outputs_of
from polysched.bench import get
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract
from polysched.transform.expand import expand, expansion_plan

# a square matrix factorised in place, row by row (i, then j, then k), the element's
# last statements chosen by VARIANT; sizes from argv, the matrix printed exactly
FACTOR = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static void factor(int n, double A[n][n]) {
  int i, j, k;
  double w;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < (i < j ? i : j); k++)
        w -= A[i][k] * A[k][j];
TAIL
    }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  int r = n > 0 ? n : 1;
  double (*A)[r] = malloc(sizeof(double) * r * r);
  for (int i = 0; i < r; i++)
    for (int j = 0; j < r; j++) A[i][j] = (i == j ? r + 2.0 : 0.0) + (double)((i * 7 + j * 3) % 11) / 13.0;
  factor(n, A);
  for (int i = 0; i < r; i++)
    for (int j = 0; j < r; j++) printf("%a%c", A[i][j], j + 1 < r ? ' ' : '\n');
  return 0;
}
"""

TAILS = {
    # ludcmp's: a division under j < i, a copy elsewhere
    "lu": "      if (j < i)\n        A[i][j] = w / A[j][j];\n      if (j >= i)\n        A[i][j] = w;",
    # the same with else, and the diagonal named by its own text (A[i][i] under i == j)
    "else": "      if (i == j)\n        A[i][i] = w;\n      else if (j < i)\n        A[i][j] = w / A[j][j];\n"
            "      else\n        A[i][j] = w * 1.0;",
    # two tail statements in one iteration: the second copies what the first doubled
    "twice": "      A[i][j] = 2.0 * w;\n      A[i][j] = w;",
    # the tail reads the element itself, which would then hold w
    "reads": "      A[i][j] = w / (1.0 + A[i][j] * A[i][j]);",
    # a compound assignment reads it too
    "compound": "      A[i][j] += w;",
    # not every iteration ends in the element
    "guarded": "      if (j != 1)\n        A[i][j] = w;",
}


def _bands(schedule: isl.Schedule) -> list[tuple[int, bool]]:
    """(members, permutable) of each band of ``schedule``, top down."""
    bands = []

    def visit(node):
        if node.get_type() == isl.schedule_node_type.band:
            bands.append((node.band_n_member(), node.band_get_permutable()))
        return True
    schedule.get_root().foreach_descendant_top_down(visit)
    return bands


def _plan(tmp_path, variant):
    path = tmp_path / f"{variant}.c"
    path.write_text(FACTOR.replace("TAIL", TAILS[variant]))
    scop = extract(path)[0]
    return path, scop, expansion_plan(scop)


@pytest.mark.parametrize("variant", ["lu", "else"])
def test_the_accumulator_lives_in_the_element_its_tail_sets(tmp_path, variant):
    """``w`` becomes ``A[i][j]``: the first statement ``w = A[i][j];`` and the tail's
    plain copies go, the others read the element, and the i, j, k nest becomes one
    permutable band of three loops (before, ``w`` ordered every instance after every
    other)."""
    path, scop, plan = _plan(tmp_path, variant)
    assert [(e.scalar, e.text, e.in_place, e.loop) for e in plan] == [("w", "A[i][j]", True, "j")]
    expanded = expand(scop, plan)
    bodies = [s.body for s in expanded.statements]
    assert not any(re.search(r"\bw\b", body) for body in bodies), bodies
    assert "A[i][j] -= A[i][k] * A[k][j];" in bodies and "A[i][j] = A[i][j] / A[j][j];" in bodies
    assert not any(body.replace(" ", "") in ("A[i][j]=A[i][j];", "A[i][i]=A[i][j];") for body in bodies)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    region = result.regions[0]
    assert region.expansions
    assert (3, True) in _bands(region.schedule), _bands(region.schedule)


@pytest.mark.parametrize("variant", ["twice", "reads", "compound", "guarded"])
def test_the_accumulator_stays_where_the_element_would_change_its_value(tmp_path, variant):
    """Two tail statements in one iteration, a tail that reads the element or adds to
    it, and a tail that some iterations skip: ``w`` does not live in ``A[i][j]``."""
    _, _, plan = _plan(tmp_path, variant)
    assert not any(e.in_place for e in plan), [e.describe() for e in plan]


@pytest.mark.parametrize("variant", sorted(TAILS))
def test_factorisations_compute_what_the_originals_compute(tmp_path, variant):
    path, _, _ = _plan(tmp_path, variant)
    source = path.read_text()
    sizes = [(0,), (1,), (-3,), (2,), (7,), (33,)]
    expected = outputs_of(source, tmp_path, "orig", sizes)
    modes = {"default": dict(tile=True, parallel=True),
             "isl": dict(scheduler="isl", tile=True, parallel=True),
             "max": dict(fuse="max", tile=True, parallel=True, unroll=4)}
    for mode, flags in modes.items():
        result = optimize(path, OptimizeOptions.from_flags(**flags))
        assert outputs_of(result.text, tmp_path, f"{variant}_{mode}", sizes) == expected, mode


def test_ludcmp_factorises_in_a_then_its_solves_keep_w():
    """The suite's ludcmp: the factorisation's ``w`` lives in ``A[i][j]``; the two
    triangular solves' ``w`` (rows walked along, each row's result needed by the next)
    stay scalars."""
    plan = expansion_plan(extract(get("ludcmp").path)[0])
    assert [(e.text, e.dropped) for e in plan] == [("A[i][j]", ("S3", "S0"))]


# a row-wise Cholesky (Cholesky-Banachiewicz) into L: the j loop walks no array across
# rows, and carries a dependence (row i's L[i][k], k < j); the sum ends in L[i][j]
CHOLESKY = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static void cholesky(int n, double A[n][n], double L[n][n]) {
  int i, j, k;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      s = A[i][j];
      for (k = 0; k < j; k++)
        s -= L[i][k] * L[j][k];
      if (i == j)
        L[i][i] = sqrt(s);
      else
        L[i][j] = s / L[j][j];
    }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  int r = n > 0 ? n : 1;
  double (*A)[r] = malloc(sizeof(double) * r * r), (*L)[r] = malloc(sizeof(double) * r * r);
  for (int i = 0; i < r; i++)
    for (int j = 0; j < r; j++) { A[i][j] = i == j ? r + 1.0 : (double)(((i + j) * 7) % 11) / 13.0; L[i][j] = -1.0; }
  cholesky(n, A, L);
  for (int i = 0; i < r; i++)
    for (int j = 0; j < r; j++) printf("%a%c", L[i][j], j + 1 < r ? ' ' : '\n');
  return 0;
}
"""


def test_a_row_wise_cholesky_sums_in_place_and_its_nest_is_reordered(tmp_path):
    """``s`` lives in ``L[i][j]`` (at loop j, which sits between i and k and carries a
    dependence, so no heap array would free it), the i, j, k nest becomes one permutable
    band of three loops, and the outputs are the original's."""
    path = tmp_path / "cholesky.c"
    path.write_text(CHOLESKY)
    plan = expansion_plan(extract(path)[0])
    assert [(e.scalar, e.text, e.in_place, e.loop, e.dropped) for e in plan] == [("s", "L[i][j]", True, "j", ())]
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert (3, True) in _bands(result.regions[0].schedule), _bands(result.regions[0].schedule)
    sizes = [(0,), (1,), (-2,), (3,), (29,)]
    expected = outputs_of(CHOLESKY, tmp_path, "orig", sizes)
    assert outputs_of(result.text, tmp_path, "optimized", sizes) == expected
    isl_result = optimize(path, OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True, unroll=4))
    assert outputs_of(isl_result.text, tmp_path, "isl", sizes) == expected


def test_a_row_accumulator_of_a_free_loop_stays_a_private_scalar(tmp_path):
    """``s = 0; for (j) s += A[i][j] * x[j]; y[i] = s;`` inside a time loop: the i loop
    is parallel once ``s`` is private, so ``s`` stays a scalar (in a register) and does
    not move into ``y[i]``."""
    path = tmp_path / "rows.c"
    path.write_text("void k(int T, int n, double A[n][n], double x[n], double y[n]) {\n  double s;\n#pragma scop\n"
                    "  for (int t = 0; t < T; t++)\n    for (int i = 0; i < n; i++) {\n      s = 0.0;\n"
                    "      for (int j = 0; j < n; j++)\n        s += A[i][j] * x[j];\n      y[i] = s;\n"
                    "    }\n#pragma endscop\n}\n")
    assert expansion_plan(extract(path)[0]) == []


# loops where the scalar stays a scalar although an element could hold it, as measured
# at 2 threads:
# - Crout's LU, column by column: in place, the sums would run down column j, and the
#   scheduler, free to move k outside i, made the run 8x slower (n = 1500: 2.6 s
#   before, 22.6 s in place);
# - a triangular solve per right-hand side: the r loop is parallel with ``s`` private;
#   in place, the reordered nest ran 0.9x (n = m = 2000).
SCALAR_KEPT = {
    "crout": "void crout(int n, double a[n][n]) {\n  int i, j, k;\n  double sum;\n#pragma scop\n"
             "  for (j = 0; j < n; j++) {\n    for (i = 0; i < j; i++) {\n      sum = a[i][j];\n"
             "      for (k = 0; k < i; k++) sum -= a[i][k] * a[k][j];\n      a[i][j] = sum;\n    }\n"
             "    for (i = j + 1; i < n; i++)\n      a[i][j] /= a[j][j];\n  }\n#pragma endscop\n}\n",
    "solve_per_rhs": "void solve(int m, int n, double L[n][n], double b[m][n], double x[m][n]) {\n"
                     "  int r, i, j;\n  double s;\n#pragma scop\n  for (r = 0; r < m; r++)\n"
                     "    for (i = 0; i < n; i++) {\n      s = b[r][i];\n"
                     "      for (j = 0; j < i; j++) s -= L[i][j] * x[r][j];\n"
                     "      x[r][i] = s / L[i][i];\n    }\n#pragma endscop\n}\n",
}


@pytest.mark.parametrize("kernel", sorted(SCALAR_KEPT))
def test_the_scalar_stays_where_in_place_was_measured_slower(tmp_path, kernel):
    """`SCALAR_KEPT`: an element could hold the sum, but no expansion puts it there."""
    path = tmp_path / f"{kernel}.c"
    path.write_text(SCALAR_KEPT[kernel])
    assert not any(e.in_place for e in expansion_plan(extract(path)[0]))


def _random_factor(rng) -> str:
    """A random row-by-row nest with a scalar sum over k that ends in (or near) A[i][j]:
    random initial value, bounds, update, and last statements, some of which let the
    sum live in the element and some of which do not (they read it, skip iterations,
    or set it twice)."""
    init = rng.choice(["A[i][j]", "0.0", "0.5 * A[i][j]", "B[i][j]", "A[j][i]"])
    low = rng.choice(["0", "i", "1"])
    upper = rng.choice(["i", "j", "(i < j ? i : j)", "n"])
    update = rng.choice(["s -= A[i][k] * A[k][j];", "s += A[i][k] * B[k][j];", "s = s * 0.5 + A[k][j];",
                         "s -= B[i][k] * A[j][k];"])
    tail = rng.choice([
        "A[i][j] = s;",
        "if (j < i)\n        A[i][j] = s / (A[j][j] + 3.0);\n      else\n        A[i][j] = s;",
        "A[i][j] = s > 0.0 ? s : 0.5 * s;",
        "if (j % 2 == 0)\n        A[i][j] = s;",
        "A[i][j] = s;\n      B[i][j] = s;",
        "A[i][j] = s + A[i][j];",
        "A[i][j] = s * A[j][i];",
        "if (i == j)\n        A[i][i] = s * 0.25;\n      else\n        A[i][j] = s;",
        "B[i][j] = s;\n      A[i][j] = s * 2.0;",
    ])
    return f"""
#include <stdio.h>
#include <stdlib.h>
static void nest(int n, double A[n][n], double B[n][n]) {{
  int i, j, k;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = {low}; j < n; j++) {{
      s = {init};
      for (k = 0; k < {upper}; k++)
        {update}
      {tail}
    }}
#pragma endscop
}}
int main(int argc, char **argv) {{
  int n = atoi(argv[1]);
  int r = n > 0 ? n : 1;
  double (*A)[r] = malloc(sizeof(double) * r * r), (*B)[r] = malloc(sizeof(double) * r * r);
  for (int i = 0; i < r; i++)
    for (int j = 0; j < r; j++) {{
      A[i][j] = (i == j ? 4.0 : 0.0) + (double)((i * 5 + j * 3) % 7) / 8.0;
      B[i][j] = (double)((i + 2 * j) % 5) / 4.0 - 0.5;
    }}
  nest(n, A, B);
  double t = 0.0;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < r; j++) t += (A[i][j] + 0.5 * B[i][j]) * (1 + (i * 3 + j) % 7);
  printf("%a\\n", t);
  return 0;
}}
"""


@pytest.mark.parametrize("seed", range(10))
def test_random_row_nests_in_place_or_not_compute_what_the_originals_compute(tmp_path, seed):
    import random
    source = _random_factor(random.Random(seed))
    path = tmp_path / "nest.c"
    path.write_text(source)
    sizes = [(0,), (1,), (-1,), (2,), (6,), (19,)]
    expected = outputs_of(source, tmp_path, "orig", sizes)
    for mode, flags in {"default": dict(tile=True, parallel=True),
                        "isl": dict(scheduler="isl", tile=True, parallel=True, unroll=4)}.items():
        result = optimize(path, OptimizeOptions.from_flags(**flags))
        assert outputs_of(result.text, tmp_path, mode, sizes) == expected, f"seed {seed} [{mode}]:\n{source}"


def test_random_row_nests_live_in_place_often_enough():
    """(the random test above tests the mapping, not only programs left alone): at
    least a third of the seeds' sums live in A[i][j]."""
    import random
    placed = 0
    for seed in range(10):
        [scop] = extract(_random_factor(random.Random(seed)), filename="nest.c")
        placed += any(e.in_place for e in expansion_plan(scop))
    assert placed >= 3, placed
