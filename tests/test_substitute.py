"""Forward substitution of temporaries private to an iteration (transform/substitute.py):
which scalars it takes and which it must leave, checked against the executed programs
(the original's output, at several sizes including 0 and negative, at 1 and 2 threads),
and the tiled band it opens."""
from __future__ import annotations

import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.program import Program
from polysched.scop import extract
from polysched.transform.substitute import substitution_plan

# {BODY} is a loop body over i < n, j < m, of a function with arrays A, B (n x m doubles),
# a float array F (m floats) and an int array K (m ints); main prints every element
TEMPLATE = r"""
#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double A[n][m], double B[n][m], float F[m], int K[m]) {
#pragma scop
  for (int t = 0; t < 3; t++)
    for (int i = 1; i < n - 1; i++) {
OUTER
      for (int j = 1; j < m - 1; j++) {
BODY
      }
    }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int r = n > 0 ? n : 1, c = m > 0 ? m : 1;
  double (*A)[c] = malloc(sizeof(double) * r * c), (*B)[c] = malloc(sizeof(double) * r * c);
  float *F = malloc(sizeof(float) * c);
  int *K = malloc(sizeof(int) * c);
  for (int i = 0; i < r; i++) for (int j = 0; j < c; j++) { A[i][j] = (i * 7 + j * 3) % 10 / 7.0; B[i][j] = 0.1 * j; }
  for (int j = 0; j < c; j++) { F[j] = j / 3.0f; K[j] = j * 1000003; }
  kernel(n, m, A, B, F, K);
  for (int i = 0; i < r; i++) for (int j = 0; j < c; j++) printf("%a %a\n", A[i][j], B[i][j]);
  for (int j = 0; j < c; j++) printf("%a %d\n", F[j], K[j]);
  return 0;
}
"""
SIZES = [(20, 37), (3, 3), (0, 5), (-4, 6), (2, 9)]

# (body, the scalars substituted)
SUBSTITUTED = {
    # a stencil with two partial sums: the (t, i, j) band becomes permutable and is tiled
    "two partial sums": ("""
        double s = A[i-1][j] + A[i+1][j];
        double u = A[i][j-1] + A[i][j+1];
        B[i][j] = 0.25 * (s + u);""", ["s", "u"]),
    # a chain: s into u's statement, then u (naming s's value) into B's
    "a chain": ("""
        double s = A[i-1][j] + A[i+1][j];
        double u = s * 0.5 - A[i][j];
        B[i][j] = u / 3.0;""", ["s", "u"]),
    # a float temporary of a double product: the cast rounds to float as the assignment did
    "a float rounding": ("""
        float f = A[i][j] * 1.1;
        B[i][j] = f * f;""", ["f"]),
    # an int temporary that overflows nothing but truncates a double
    "an int conversion": ("""
        int k = B[i][j] * 3.7;
        B[i][j] = k + A[i][j];""", ["k"]),
    # one use under a guard (on fewer instances than the definition), one data-dependent
    "a guarded use": ("""
        const float g = A[i][j+1] - A[i][j-1];
        B[i][j] = g > 0 ? g * 0.5 : -g;
        if (j > 5) B[i][j] += g;""", ["g"]),
    # used twice, and cheap (a load and a product): computed twice
    "used twice, cheap": ("""
        double s = A[i][j-1] * 2.0;
        B[i][j] = s + s * A[i][j];""", ["s"]),
}

# bodies whose temporaries must stay (substituting them would change the results or
# cost more than it gains); each still optimizes to the original's outputs
KEPT = {
    # what the value reads is overwritten before the use
    "its input written in between": """
        double s = B[i][j-1] + 1.0;
        B[i][j-1] = 0.0;
        B[i][j] = s;""",
    # read before it is written: the value of the previous iteration
    "read before written": """
        double s;
        s = 1.0;
        B[i][j] = s;
        s = A[i][j];
        A[i][j] = s * 2.0;""",
    # used twice and expensive (a division)
    "used twice, expensive": """
        double s = A[i][j] / 3.0;
        B[i][j] = s + s;""",
    # a compound update is no definition of a value
    "updated, not assigned": """
        double s = A[i][j];
        s += B[i][j];
        B[i][j] = s;""",
}


def _source(body: str, outer: str = "") -> str:
    return TEMPLATE.replace("OUTER", outer.strip("\n")).replace("BODY", body.strip("\n"))


@pytest.mark.parametrize("case", sorted(SUBSTITUTED))
def test_temporaries_are_substituted_and_outputs_stay_bit_identical(case, tmp_path):
    body, scalars = SUBSTITUTED[case]
    source = _source(body)
    path = tmp_path / "k.c"
    path.write_text(source)
    scop = extract(path)[0]
    plan = substitution_plan(scop)
    assert sorted(scop.arrays[p.scalar].declared_as or p.scalar for p in plan) == scalars
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    region = result.regions[0]
    assert len(region.scop.statements) == len(scop.statements) - len(scalars)
    assert sum("substituted scalar" in line for line in region.expansions) == len(scalars)
    # the temporaries no longer order the iterations: one band of the 3 loops, tiled
    assert [(band.members, band.tiled) for band in region.tiling.bands] == [(3, True)]
    expected = outputs_of(source, tmp_path, "orig", SIZES)
    assert outputs_of(result.text, tmp_path, "opt", SIZES) == expected


@pytest.mark.parametrize("case", sorted(KEPT))
def test_temporaries_that_must_stay_stay(case, tmp_path):
    source = _source(KEPT[case])
    path = tmp_path / "k.c"
    path.write_text(source)
    assert substitution_plan(extract(path)[0]) == []
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert not any("substituted scalar" in line for line in result.regions[0].expansions)
    expected = outputs_of(source, tmp_path, "orig", SIZES[:3])
    assert outputs_of(result.text, tmp_path, "opt", SIZES[:3]) == expected


LIVE_AFTER = r"""
#include <stdio.h>
int main(void) {
  double A[50][60], B[50][60], s = 0.0;
  for (int i = 0; i < 50; i++) for (int j = 0; j < 60; j++) A[i][j] = (i + j) % 7;
#pragma scop
  for (int i = 1; i < 49; i++)
    for (int j = 1; j < 59; j++) {
      s = A[i-1][j] + A[i+1][j];
      B[i][j] = s * 0.5;
    }
#pragma endscop
  printf("%a %a\n", s, B[20][30]);
  return 0;
}
"""


def test_a_scalar_read_after_the_region_is_kept(tmp_path):
    path = tmp_path / "live.c"
    path.write_text(LIVE_AFTER)
    assert substitution_plan(extract(path)[0]) == []
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert outputs_of(result.text, tmp_path, "opt", [()]) == outputs_of(LIVE_AFTER, tmp_path, "orig", [()])


def test_substitution_is_a_model_step_that_replays(tmp_path):
    path = tmp_path / "k.c"
    path.write_text(_source(SUBSTITUTED["two partial sums"][0]))
    program = Program.from_file(path)
    substituted = program.substitute_scalars()
    assert [step["op"] for step in substituted.trace.steps] == ["substitute_scalars"]
    assert len(substituted.scop.statements) == 1 and len(program.scop.statements) == 3
    tiled = substituted.auto_schedule().auto_tile()
    assert Program.from_file(path).replay(tiled.trace).c_code() == tiled.c_code()
    from polysched.errors import TransformError
    with pytest.raises(TransformError, match="first step"):
        program.expand_scalars().auto_schedule().substitute_scalars()


def _random_body(rng) -> tuple[str, str]:
    """A random loop body of temporaries (double, float or int; each defined from array
    elements at offsets -1..1, earlier temporaries and constants; used 0 to 2 times) and
    writes of array elements, some between a definition and its uses; and maybe, before
    the j loop, a temporary of the i loop that the body reads: (outer part, body)."""
    lines, temps = [], []
    outer = ""
    if rng.random() < 0.5:
        # (K is never written; A and F are, in some bodies: then o must stay)
        read = rng.choice(["K[1]", "K[2] + K[1]", f"A[i][{rng.choice(['1', 'm - 2'])}]", "F[1]"])
        outer = f"      double o = {read} * {rng.choice(['0.5', '3.0'])};"
        temps.append("o")

    def term():
        choices = [f"A[i{rng.choice(['-1', '', '+1'])}][j{rng.choice(['-1', '', '+1'])}]",
                   f"B[i][j{rng.choice(['-1', '', '+1'])}]", "F[j]", "K[j]", rng.choice(["0.5", "2", "0.25f"])]
        choices += temps * 2
        return rng.choice(choices)

    def expression():
        text = term()
        for _ in range(rng.randint(0, 2)):
            op = rng.choice(['+', '-', '*', '*', '/'])
            # (a division by a constant: an int temporary of an infinity would be undefined)
            text = f"{text} {op} {rng.choice(['2', '3.0', '0.75']) if op == '/' else term()}"
        return text

    for k in range(rng.randint(1, 4)):
        if rng.random() < 0.4:
            target = rng.choice(["A[i][j]", f"B[i][j{rng.choice(['-1', '', '+1'])}]", "F[j]"])
            lines.append(f"{target} = {expression()};")
        if rng.random() < 0.15 and temps and temps[-1] != "o":
            lines.append(f"{temps[-1]} = {expression()};")      # a second definition
        kind = rng.choice(["double", "double", "float", "int"])
        value = expression()
        if kind == "int":       # in range: the conversion stays defined
            value = f"({value}) > 1e6 || ({value}) < -1e6 ? 7 : ({value}) * 0.5"
        lines.append(f"{kind} t{k} = {value};")
        temps.append(f"t{k}")
    for _ in range(rng.randint(1, 2)):
        target = rng.choice(["B[i][j]", "A[i][j]", "B[i][j-1]"])
        lines.append(f"{target} = ({expression()}) * 0.5;")
    return outer, "\n".join(" " * 8 + line for line in lines)


@pytest.mark.parametrize("seed", range(8))
def test_random_temporaries_keep_the_outputs(seed, tmp_path):
    """Differential: random bodies of temporaries, optimized with --tile --parallel and
    by default, print what the original prints, bit for bit (sizes 0, 3, 20x37, -4)."""
    import random
    rng = random.Random(f"substitute:{seed}")
    substituted = 0
    for k in range(3):
        outer, body = _random_body(rng)
        source = _source(body, outer)
        path = tmp_path / f"r{k}.c"
        path.write_text(source)
        substituted += len(substitution_plan(extract(path)[0]))
        sizes = [(20, 37), (3, 3), (0, 5), (-4, 6)]
        expected = outputs_of(source, tmp_path, f"orig{k}", sizes)
        for flags in ({"tile": True, "parallel": True}, {}):
            text = optimize(path, OptimizeOptions.from_flags(**flags)).text
            assert outputs_of(text, tmp_path, f"opt{k}", sizes) == expected, (source, flags)
    # (the batch is not all refusals: over the 8 seeds, most have a substitution)
    assert seed != 0 or substituted > 0


# {OUTER} runs in the i loop before the j loop, {INNER} in the j loop (n rows, m columns)
HOISTED = r"""
#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double alpha, double A[n][m], double a[n], double y[m]) {
#pragma scop
  for (int i = 0; i < n; i++) {
OUTER
    for (int j = 0; j < m; j++) {
INNER
    }
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int r = n > 0 ? n : 1, c = m > 0 ? m : 1;
  double (*A)[c] = malloc(sizeof(double) * r * c), *a = malloc(sizeof(double) * r), *y = malloc(sizeof(double) * c);
  for (int i = 0; i < r; i++) { a[i] = (i % 7) / 3.0 - 1; for (int j = 0; j < c; j++) A[i][j] = (i * 7 + j * 3) % 10 / 7.0; }
  for (int j = 0; j < c; j++) y[j] = j * 0.125;
  kernel(n, m, 1.5, A, a, y);
  for (int j = 0; j < c; j++) printf("%a\n", y[j]);
  for (int i = 0; i < r; i++) printf("%a\n", a[i]);
  return 0;
}
"""
HOISTED_CASES = {
    # axpy rows: the invariant of the i loop read in the j loop; (i, j) then one band
    "an invariant of the outer loop": ("double ai = alpha * a[i];", "y[j] += ai * A[i][j];", True),
    # what the value reads is written in the inner loop, after the use: the next j reads it
    "its input written after the use": ("double ai = alpha * a[i];",
                                        "y[j] += ai * A[i][j];\n      a[i] = a[i] * 0.5;", False),
    # a division, computed for every j instead of once per i
    "expensive in the inner loop": ("double ai = alpha / (a[i] + 9.0);", "y[j] += ai * A[i][j];", False),
}


@pytest.mark.parametrize("case", sorted(HOISTED_CASES))
def test_a_value_of_the_outer_loop_read_in_an_inner_loop(case, tmp_path):
    outer, inner, substituted = HOISTED_CASES[case]
    source = HOISTED.replace("OUTER", "    " + outer).replace("INNER", "      " + inner)
    path = tmp_path / "h.c"
    path.write_text(source)
    assert [p.scalar for p in substitution_plan(extract(path)[0])] == (["ai"] if substituted else [])
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    if substituted:
        assert [(band.members, band.tiled) for band in result.regions[0].tiling.bands] == [(2, True)]
    sizes = [(30, 41), (1, 5), (0, 3), (4, 0), (-2, 7)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(source, tmp_path, "orig", sizes)


NAMED_TYPES = r"""
#include <stdio.h>
#define DATA_TYPE double
typedef float real;
#define N 40
DATA_TYPE A[N][N], B[N][N];
real F[N][N];
int main(void) {
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = (i * 3 + j) % 11 - 5.0;
#pragma scop
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++) {
      DATA_TYPE g = A[i][j+1] - A[i][j-1];
      real h = A[i+1][j] * 1.1 - A[i-1][j];
      B[i][j] = g * h;
      F[j][i] = h;
    }
#pragma endscop
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) printf("%a %a\n", B[i][j], F[i][j]);
  return 0;
}
"""


def test_temporaries_of_types_the_file_names(tmp_path):
    """``DATA_TYPE g`` (a macro) and ``real h`` (a typedef of float, which rounds the
    double difference): substituted with casts to those names; the outputs are the
    original's bit for bit."""
    path = tmp_path / "named.c"
    path.write_text(NAMED_TYPES)
    assert [(p.scalar, p.value[:12]) for p in substitution_plan(extract(path)[0])] == \
        [("g", "((DATA_TYPE)"), ("h", "((real)(A[i+")]
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert [(band.members, band.tiled) for band in result.regions[0].tiling.bands] == [(2, True)]
    assert outputs_of(result.text, tmp_path, "opt", [()]) == outputs_of(NAMED_TYPES, tmp_path, "orig", [()])


# helper-65's fuzzer (generator v9, seed 20261129, program 33, shrunk): the iterator i is
# read after the region, so the output ends with the loops that leave it at its final
# value, every statement blanked; the substituted definition of u stayed there, reading
# the body's 't' out of its block ("'t' undeclared")
FINAL_ITERATORS = r"""
#include <stdio.h>
int GI[3];
double H[3];
static void kernel(void)
{
  int i;
  i = -7;
#pragma scop
  float u = 0.0;
  for (i = 0; i <= 0; i++) {
    int t = ((GI[1] % 1009) + 1) % 1009;
    H[1] = 0.5 * t;
    u = 0.5 * t;
    H[1] = 0.5 * GI[i + 1] + 0.5 * u;
  }
#pragma endscop
  printf("i %d\n", i);
}
int main(void)
{
  for (int k = 0; k < 3; k++) GI[k] = (int)((k * 7 + 2) % 17) - 8;
  for (int k = 0; k < 3; k++) H[k] = (double)((k * 7 + 2) % 13) * 0.125 - 0.75;
  kernel();
  for (int k = 0; k < 3; k++) printf("H %d %a\n", k, H[k]);
  return 0;
}
"""


# (--unroll 2, not --tile --parallel: since 1386e5f the loop, which runs once, takes no
# parallel mark there, and the region is kept as written)
@pytest.mark.parametrize("flags", [{"scheduler": "isl", "fuse": "no"}, {"unroll": 2}])
def test_a_substituted_definition_leaves_the_final_iterators_loops_too(flags, tmp_path):
    path = tmp_path / "final.c"
    path.write_text(FINAL_ITERATORS)
    assert [p.scalar for p in substitution_plan(extract(path)[0])] == ["u"]
    text = optimize(path, OptimizeOptions.from_flags(**flags)).text
    assert "leave the loop iterators at their final values" in text
    assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(FINAL_ITERATORS, tmp_path, "orig", [()])


EDIT_DISTANCE_STEP = r"""
#include <stdio.h>
#include <stdlib.h>
static void dp(int n, int m, int D[n + 1][m + 1], const int *a) {
#pragma scop
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= m; j++) {
      int c = D[i-1][j-1] + (a[j] != 0);
      D[i][j] = c + D[i][j-1] % 7;
    }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]), r = n > 0 ? n + 1 : 1, c = m > 0 ? m + 1 : 1;
  int (*D)[c] = malloc(sizeof(int) * r * c), *a = malloc(sizeof(int) * c);
  for (int j = 0; j < c; j++) a[j] = j % 3;
  for (int i = 0; i < r; i++) for (int j = 0; j < c; j++) D[i][j] = i + 2 * j;
  dp(n, m, D, a);
  for (int i = 0; i < r; i++) for (int j = 0; j < c; j++) printf("%d\n", D[i][j]);
  return 0;
}
"""


def test_a_temporary_whose_value_compares_is_substituted(tmp_path):
    """A tester: 'int c = D[i-1][j-1] + (a[j] != 0);' was never substituted (the
    comparison's '=' read as an assignment), and the DP nest stayed as written; with
    '+ a[j]' it was tiled and run as a parallel wavefront. Now it is too, with the
    original's outputs at 1 and 2 threads."""
    source = tmp_path / "dp.c"
    source.write_text(EDIT_DISTANCE_STEP)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    summary = result.summary()
    assert "substituted scalar c" in summary and "parallel: wavefront" in summary, summary
    sizes = [(0, 0), (1, 3), (5, 4), (70, 90), (300, 260)]
    assert outputs_of(result.text, tmp_path, "new", sizes) == outputs_of(EDIT_DISTANCE_STEP, tmp_path, "orig", sizes)
