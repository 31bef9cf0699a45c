"""Scalar expansion (polysched/transform/expand.py): which scalars become arrays, the
schedule it enables, and the outputs of the expanded programs against the originals
(bit-identical, at 1 and 2 threads, at parameter edges and past the stack bound)."""
from __future__ import annotations

import islpy as isl
import pytest

from compiled_runs import outputs_of
from polysched.bench import get, run_binary
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract
from polysched.transform.expand import expand, expansion_plan


# a column-wise recurrence (first-order filter down each column) and a column sum,
# sizes from the command line (argv), checksum printed exactly
COLUMNS = r"""
#include <stdio.h>
#include <stdlib.h>
static void filter(int n, int m, double A[n][m], double B[n][m], double *total) {
  int i, j;
  double acc, prev;
#pragma scop
  for (j = 0; j < m; j++) {
    prev = 0.0;
    for (i = 0; i < n; i++) {
      B[i][j] = 0.5 * A[i][j] + 0.25 * prev;
      prev = B[i][j];
    }
  }
  for (j = 0; j < m; j++) {
    acc = 0.0;
    for (i = 0; i < n; i++)
      acc += A[i][j] * 1.5;
    total[j] = acc;
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int rows = n > 0 ? n : 1, cols = m > 0 ? m : 1;
  double (*A)[cols] = malloc(sizeof(double) * rows * cols);
  double (*B)[cols] = malloc(sizeof(double) * rows * cols);
  double *total = malloc(sizeof(double) * cols);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) { A[i][j] = (double)((i * 7 + j * 13) % 17) / 7.0; B[i][j] = -1.0; }
  for (int j = 0; j < cols; j++) total[j] = -2.0;
  filter(n, m, A, B, total);
  double s = 0.0;
  for (int i = 0; i < rows; i++) for (int j = 0; j < cols; j++) s += B[i][j] * (1 + (i + j) % 5);
  for (int j = 0; j < cols; j++) s += total[j] * (1 + j % 3);
  printf("%a\n", s);
  return 0;
}
"""


def test_deriche_expands_the_vertical_sweeps_only():
    """The recurrences that walk columns (j outside, i inside, y1[i][j]) are expanded; the
    row sweeps, which already walk rows at stride 1, keep their scalars."""
    scop = extract(get("deriche").path)[0]
    plan = expansion_plan(scop)
    assert sorted(e.scalar for e in plan) == ["tm1", "tp1", "tp2", "ym1", "ym2", "yp1", "yp2"]
    assert {e.extent_text for e in plan} == {"H"} and all(e.depth == 0 and not e.dropped for e in plan)
    assert {e.text for e in plan if e.scalar == "ym1"} == {"ym1_x[j]"}
    expanded = expand(scop, plan)
    # the row sweeps still name their scalars; the column sweeps none
    bodies = " ".join(s.body for s in expanded.statements)
    assert "ym1_x[j]" in bodies and "tp2_x[j]" in bodies and "xm1 = imgIn[i][j]" in bodies
    # the context keeps the arrays' extent positive (their bytes, on the heap, are
    # checked by the region): 7 arrays of H doubles
    assert expanded.context.is_subset(scop.context)
    for h, fits in ((1, True), (1 << 20, True), (0, False)):
        point = isl.Set(f"[W, H] -> {{ : W = 10 and H = {h} }}")
        assert expanded.context.intersect(point).is_empty() != fits, h


def test_the_expanded_column_recurrence_becomes_a_permutable_band(tmp_path):
    """After expansion the column filter's (j, i) nest is one permutable band, tiled,
    with j (stride 1) as the innermost point loop; without expansion j stays a
    1-member band with i inside it."""
    path = tmp_path / "columns.c"
    path.write_text(COLUMNS)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    region = result.regions[0]
    assert any("prev" in e for e in region.expansions) and any("acc" in e for e in region.expansions)
    tiled = [line for line in str(region.tiling).splitlines() if "2 members" in line and "tiled" in line]
    assert tiled, str(region.tiling)
    assert "prev_x" in result.text and "double (*prev_x) = prev_x_mem;" in result.text
    plain = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True, expand_scalars=False))
    assert not plain.regions[0].expansions and "prev_x" not in plain.text
    assert not [line for line in str(plain.regions[0].tiling).splitlines() if "2 members" in line]


@pytest.mark.parametrize("sizes", [[(5, 7), (1, 1), (33, 70)], [(0, 5), (5, 0), (-3, 4), (4, -2)],
                                   [(3, (1 << 17) + 5)]], ids=["small", "edges", "past-a-stack"])
def test_expanded_programs_compute_what_the_originals_compute(tmp_path, sizes):
    """Bit-identical outputs at 1 and 2 threads, at sizes 0, negative and 1, and where the
    arrays (on the heap) would not have fit a 1 MiB stack (helper-18: they were on the
    stack, and a thread with OMP_STACKSIZE=1M crashed)."""
    path = tmp_path / "columns.c"
    path.write_text(COLUMNS)
    expected = outputs_of(COLUMNS, tmp_path, "orig", sizes)
    for mode, options in {"default": OptimizeOptions.from_flags(tile=True, parallel=True),
                          "isl": OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True),
                          "untiled": OptimizeOptions.from_flags()}.items():
        text = optimize(path, options).text
        assert "prev_x" in text, mode
        assert outputs_of(text, tmp_path, mode, sizes) == expected, mode


def test_no_expansion_when_the_value_leaves_the_iteration_or_the_region(tmp_path):
    """A scalar read before it is written in the iteration (its value flows from the
    previous column), one read after the region, one whose text a macro hides, and one
    of a loop whose trip count needs a division keep their loops as they were."""
    kernels = {
        "carried": "for (j = 0; j < m; j++) { for (i = 0; i < n; i++) { B[i][j] = A[i][j] + s; s = B[i][j]; } }",
        "live-out": "for (j = 0; j < m; j++) { s = 0.0; for (i = 0; i < n; i++) { s += A[i][j]; B[i][j] = s; } }",
        "macro": "for (j = 0; j < m; j++) { ACC = 0.0; for (i = 0; i < n; i++) { s += A[i][j]; B[i][j] = s; } }",
        # the extent floor(m / 2) has no C text without floord()
        "halved": "for (j = 0; j < m / 2; j++) { s = 0.0; for (i = 0; i < n; i++) { s += A[i][j]; B[i][j] = s; } }",
    }
    for name, loops in kernels.items():
        after = "  *out = s;\n" if name == "live-out" else ""
        source = (f"#define ACC s\nvoid k(int n, int m, double A[n][m], double B[n][m], double *out) {{\n"
                  f"  int i, j;\n  double s = 1.0;\n#pragma scop\n  {loops}\n#pragma endscop\n{after}}}\n")
        path = tmp_path / f"{name}.c"
        path.write_text(source)
        assert expansion_plan(extract(path)[0]) == [], name


def test_suite_kernels_that_walk_rows_are_not_expanded():
    """Expansion only where a loop walks across rows: gemm, jacobi-2d and the row sweeps
    of the suite are left alone."""
    for name in ("gemm", "jacobi-2d", "durbin", "trisolv"):
        assert expansion_plan(extract(get(name).path)[0]) == [], name


# a dot product per element, written with a scalar accumulator, and variants where the
# accumulator must not live in the destination (DEST float: the destination's type; READ:
# the destination read in the iteration; GUARD: the copy does not run in every iteration)
PRODUCT = r"""
#include <stdio.h>
#include <stdlib.h>
#ifndef DEST
#define DEST double
#endif
static void product(int n, int m, double A[n][m], double B[m][n], DEST C[n][n]) {
  int i, j, k;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      s = INIT;
      for (k = 0; k < m; k++)
        s += A[i][k] * B[k][j]READ;
GUARD      C[i][j] = s;
    }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int r = n > 0 ? n : 1, c = m > 0 ? m : 1;
  double (*A)[c] = malloc(sizeof(double) * r * c);
  double (*B)[r] = malloc(sizeof(double) * c * r);
  DEST (*C)[r] = malloc(sizeof(DEST) * r * r);
  for (int i = 0; i < r; i++) for (int k = 0; k < c; k++) A[i][k] = (double)((i * 5 + k * 3) % 11) / 3.0;
  for (int k = 0; k < c; k++) for (int j = 0; j < r; j++) B[k][j] = (double)((k * 7 + j) % 13) / 7.0;
  for (int i = 0; i < r; i++) for (int j = 0; j < r; j++) C[i][j] = (DEST)(i - j);
  product(n, m, A, B, C);
  double t = 0.0;
  for (int i = 0; i < r; i++) for (int j = 0; j < r; j++) t += (double)C[i][j] * (1 + (i + 2 * j) % 7);
  printf("%a\n", t);
  return 0;
}
"""


@pytest.mark.parametrize("variant", ["", "INIT", "FLOAT", "READS", "GUARD"])
def test_an_accumulator_lives_in_its_destination_only_where_that_is_exact(tmp_path, variant):
    """``s = 0; for (k) s += A[i][k] * B[k][j]; C[i][j] = s;`` becomes gemm's
    ``C[i][j] = 0; C[i][j] += ...`` (the copy removed), and so does ``s = 0.5 * C[i][j];
    ...`` (INIT: the element read before anything changed it); with a float destination, the
    destination read inside the iteration, or the copy under a condition, ``s`` becomes
    an array over ``j`` instead. Outputs bit-identical to the original's in every case."""
    source = ("#define DEST float\n" if variant == "FLOAT" else "") + \
        PRODUCT.replace("READ", " + 0.5 * C[i][j]" if variant == "READS" else "") \
        .replace("INIT", "0.5 * C[i][j]" if variant == "INIT" else "0.0") \
        .replace("GUARD", "      if (j % 3 != 1)\n" if variant == "GUARD" else "")
    path = tmp_path / "product.c"
    path.write_text(source)
    plan = expansion_plan(extract(path)[0])
    assert len(plan) == 1 and plan[0].scalar == "s"
    if variant not in ("", "INIT"):
        assert not plan[0].dropped and plan[0].text == "s_x[i][j]" and [o[0] for o in plan[0].outer] == ["i"]
    else:
        assert plan[0].dropped and plan[0].text == "C[i][j]" and plan[0].array == "C"
        scop = expand(extract(path)[0], plan)
        init = "0.5 * C[i][j]" if variant else "0.0"
        assert [s.body for s in scop.statements] == [f"C[i][j] = {init};", "C[i][j] += A[i][k] * B[k][j];"]
    sizes = [(6, 5), (17, 9), (0, 3), (3, 0), (-2, 4), (1, 1)]
    expected = outputs_of(source, tmp_path, "orig", sizes)
    for mode, options in {"default": OptimizeOptions.from_flags(tile=True, parallel=True),
                          "isl": OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True)}.items():
        result = optimize(path, options)
        assert result.regions[0].expansions, mode
        assert outputs_of(result.text, tmp_path, f"{mode}{variant}", sizes) == expected, mode


def _random_columns(rng) -> str:
    """A random column-wise kernel: per column j, scalars initialised (or not: then the
    value flows from the previous column), an inner loop over i forward or backward that
    mixes them with array elements in random order, and maybe a copy of one scalar into
    a destination element at the end of the column."""
    scalars = [f"s{k}" for k in range(rng.randint(1, 3))]
    inits = [f"{s} = {rng.choice(['0.0', '1.0', 'A[0][j]', '0.5 * D[j]'])};" for s in scalars if rng.random() < 0.85]
    forward = rng.random() < 0.6
    loop = "for (i = 0; i < n; i++)" if forward else "for (i = n - 1; i >= 0; i--)"
    body = []
    for _ in range(rng.randint(2, 4)):
        target = rng.choice(scalars + ["B[i][j]"])
        terms = [rng.choice(scalars + ["A[i][j]", "B[i][j]", "A[i][0]"]) for _ in range(rng.randint(1, 3))]
        coefficients = [rng.choice(["0.5", "0.25", "1.5", "-0.75"]) for _ in terms]
        op = rng.choice(["=", "+="])
        body.append(f"{target} {op} " + " + ".join(f"{c} * {t}" for c, t in zip(coefficients, terms)) + ";")
    copy = [f"D[j] = {rng.choice(scalars)};"] if rng.random() < 0.5 else []
    inner = "\n      ".join(body)
    return f"""
#include <stdio.h>
#include <stdlib.h>
static void columns(int n, int m, double A[n][m], double B[n][m], double D[m]) {{
  int i, j;
  double {', '.join(s + ' = 0.5' for s in scalars)};
#pragma scop
  for (j = 0; j < m; j++) {{
    {' '.join(inits)}
    {loop} {{
      {inner}
    }}
    {' '.join(copy)}
  }}
#pragma endscop
}}
int main(int argc, char **argv) {{
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int r = n > 0 ? n : 1, c = m > 0 ? m : 1;
  double (*A)[c] = malloc(sizeof(double) * r * c), (*B)[c] = malloc(sizeof(double) * r * c);
  double *D = malloc(sizeof(double) * c);
  for (int i = 0; i < r; i++) for (int j = 0; j < c; j++) {{ A[i][j] = (double)((3 * i + 5 * j) % 7) / 4.0; B[i][j] = (double)(i - j) / 8.0; }}
  for (int j = 0; j < c; j++) D[j] = j;
  columns(n, m, A, B, D);
  double t = 0.0;
  for (int i = 0; i < r; i++) for (int j = 0; j < c; j++) t += B[i][j] * (1 + (i * 3 + j) % 5);
  for (int j = 0; j < c; j++) t += D[j] * (1 + j % 4);
  printf("%a\\n", t);
  return 0;
}}
"""


@pytest.mark.parametrize("seed", range(8))
def test_random_column_kernels_expanded_or_not_compute_what_the_originals_compute(tmp_path, seed):
    """Random column-wise kernels (an independent oracle: the original program), through
    the default pipeline and isl's scheduler, at several sizes and 1 and 2 threads."""
    import random
    source = _random_columns(random.Random(seed))
    path = tmp_path / "columns.c"
    path.write_text(source)
    sizes = [(7, 5), (1, 9), (0, 4), (12, 33)]
    expected = outputs_of(source, tmp_path, "orig", sizes)
    for mode, options in {"default": OptimizeOptions.from_flags(tile=True, parallel=True),
                          "isl": OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True)}.items():
        text = optimize(path, options).text
        assert outputs_of(text, tmp_path, f"{mode}", sizes) == expected, f"seed {seed} [{mode}]:\n{source}"


def test_random_column_kernels_are_expanded_often_enough():
    """The generator above exercises expansion: most of its kernels expand a scalar."""
    import random
    expanded = 0
    for seed in range(8):
        source = _random_columns(random.Random(seed))
        import tempfile
        from pathlib import Path
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "k.c"
            path.write_text(source)
            expanded += bool(expansion_plan(extract(path)[0]))
    assert expanded >= 4, expanded


def test_expansion_is_a_trace_step_and_saved_runs_replay_byte_for_byte(tmp_path):
    """``optimize --save-trace`` / ``--save-schedule`` of a run that expanded scalars replay
    (``--trace`` / ``--schedule``) to the same file; ``Program.expand_scalars`` is the
    step, and only as the first one."""
    from polysched.cli import main
    from polysched.errors import TransformError
    from polysched.program import Program
    path = tmp_path / "columns.c"
    path.write_text(COLUMNS)
    out = {name: tmp_path / f"{name}.c" for name in ("run", "trace", "schedule")}
    assert main(["optimize", str(path), "-o", str(out["run"]), "--tile", "--parallel",
                 "--save-trace", str(tmp_path / "t.json"), "--save-schedule", str(tmp_path / "s.txt")]) == 0
    assert '"expand_scalars"' in (tmp_path / "t.json").read_text()
    assert main(["optimize", str(path), "-o", str(out["trace"]), "--trace", str(tmp_path / "t.json")]) == 0
    assert main(["optimize", str(path), "-o", str(out["schedule"]), "--schedule", str(tmp_path / "s.txt")]) == 0
    assert out["trace"].read_text() == out["run"].read_text() == out["schedule"].read_text()
    program = Program.from_file(path)
    expanded = program.expand_scalars()
    assert "prev_x" in expanded.scop.arrays and "prev_x" not in program.scop.arrays
    assert Program.from_file(path).replay(expanded.auto_schedule().trace).c_code() == \
        expanded.auto_schedule().c_code()
    with pytest.raises(TransformError, match=r"only substitute_scalars\(\) may come before it"):
        program.auto_schedule().expand_scalars()


def test_scalars_declared_in_the_loop_body_and_linearized_pointers(tmp_path):
    """``double s = 0.0;`` declared inside the loop (the front end renames it) and
    ``C[i * n + j] = s`` through a pointer; an ``int`` count under a data condition:
    both live in their destinations (the first is then tensorized), and the outputs
    equal the original's at sizes 0, 1, 5 and 100, at 1 and 2 threads."""
    from pathlib import Path
    path = Path(__file__).parent / "data" / "expand_region_scalars.c"
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert [len(r.expansions) for r in result.regions] == [1, 1]
    assert "destination C[i * n + j]" in result.regions[0].expansions[0]
    assert "destination out[j]" in result.regions[1].expansions[0]
    # the flat product is gemm now, its rows of n the leading dimension of the call
    assert "&C[(c2 * n) + c3], (long)(n));" in result.text
    # the scalars live in their destinations: their declarations go (helper-59: gcc -Wall
    # warned "unused variable 's_1'")
    import subprocess
    (tmp_path / "wall.c").write_text(result.text)
    built = subprocess.run(["gcc", "-Wall", "-Werror=unused-variable", "-fopenmp", "-c", str(tmp_path / "wall.c"),
                            "-o", str(tmp_path / "wall.o")], capture_output=True, text=True, timeout=120)
    assert built.returncode == 0 and "unused" not in built.stderr, built.stderr
    sizes = [(0, 0), (1, 0), (5, 0), (100, 0)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(path.read_text(), tmp_path, "orig", sizes)


def test_a_loop_from_a_nonzero_lower_bound_indexes_its_array_from_zero(tmp_path):
    """``for (j = 2; j < m; j++)``: ``prev_x[j - 2]`` of ``m - 2`` elements; the
    outputs equal the original's, including where the loop runs 0 or 1 times."""
    source = COLUMNS.replace("for (j = 0; j < m; j++) {\n    prev", "for (j = 2; j < m; j++) {\n    prev")
    path = tmp_path / "offset.c"
    path.write_text(source)
    plan = expansion_plan(extract(path)[0])
    assert [(e.text, e.extent_text) for e in plan if e.scalar == "prev"] == [("prev_x[j - 2]", "m - 2")]
    sizes = [(4, 9), (3, 2), (3, 3), (5, 0)]
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(source, tmp_path, "orig", sizes)


# C = beta * C + alpha * A * B as users write it: the accumulator's last use is not a
# copy, so it cannot live in C; private to each (i, j), it becomes s_x[i][j] on the heap
# (OUTER: a dependence carried by i keeps it one-dimensional, s_x[j], on the stack)
SCALED = r"""
#include <stdio.h>
#include <stdlib.h>
static void scaled(int n, int m, double alpha, double beta, double A[n][m], double B[m][n], double C[n][n]) {
  int i, j, k;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      s = 0.0;
      for (k = 0; k < m; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = beta * C[i][j] + alpha * sOUTER;
    }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int r = n > 0 ? n : 1, c = m > 0 ? m : 1;
  double (*A)[c] = malloc(sizeof(double) * r * c);
  double (*B)[r] = malloc(sizeof(double) * c * r);
  double (*C)[r] = malloc(sizeof(double) * r * r);
  for (int i = 0; i < r; i++) for (int k = 0; k < c; k++) A[i][k] = (double)((i * 5 + k * 3) % 11) / 3.0;
  for (int k = 0; k < c; k++) for (int j = 0; j < r; j++) B[k][j] = (double)((k * 7 + j) % 13) / 7.0;
  for (int i = 0; i < r; i++) for (int j = 0; j < r; j++) C[i][j] = (double)(i - j) / 4.0;
  scaled(n, m, 1.5, 0.75, A, B, C);
  double t = 0.0;
  for (int i = 0; i < r; i++) for (int j = 0; j < r; j++) t += C[i][j] * (1 + (i + 2 * j) % 7);
  printf("%a\n", t);
  return 0;
}
"""


def test_an_accumulator_private_to_a_nest_of_free_loops_becomes_a_heap_array(tmp_path):
    """``s`` spans i and j (``s_x[i][j]``, allocated by the region), the product is
    tensorized into it, and the outputs equal the original's at sizes 0, negative, 1 and
    odd, at 1 and 2 threads; with a dependence carried by i (OUTER), ``s_x[j]`` on the
    stack as before."""
    path = tmp_path / "scaled.c"
    path.write_text(SCALED.replace("OUTER", ""))
    plan = expansion_plan(extract(path)[0])
    assert [(e.text, e.in_place, [o[0] for o in e.outer]) for e in plan] == [("s_x[i][j]", False, ["i"])]
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "s_x[n][n] on the heap" in result.regions[0].expansions[0]
    assert "double (*s_x)[(n) > 0 ? (n) : 1] = s_x_mem;" in result.text and "__builtin_free(s_x_mem);" in result.text
    assert "/* polysched: tensorize" in result.text
    sizes = [(6, 5), (17, 9), (0, 3), (3, 0), (-2, 4), (1, 1), (40, 33)]
    expected = outputs_of(SCALED.replace("OUTER", ""), tmp_path, "orig", sizes)
    assert outputs_of(result.text, tmp_path, "default", sizes) == expected
    untensorized = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True, tensorize=False))
    assert outputs_of(untensorized.text, tmp_path, "plain", sizes) == expected

    carried = SCALED.replace("OUTER", " + (i > 0 ? C[i - 1][j] : 0.0)")
    path.write_text(carried)
    plan = expansion_plan(extract(path)[0])
    assert [(e.text, e.outer) for e in plan] == [("s_x[j]", [])]


def test_a_heap_array_past_the_bound_or_unallocated_runs_the_original(tmp_path, monkeypatch):
    """Past ``HEAP_BYTES`` (made small here: the C text carries the bound) the region's
    check fails and the original code runs, with the same outputs; under it, the
    optimized code runs. (A failed allocation takes the same branch.)"""
    import polysched.emit_c.codegen as codegen
    monkeypatch.setattr(codegen, "HEAP_BYTES", 8 * 100)
    path = tmp_path / "scaled.c"
    path.write_text(SCALED.replace("OUTER", ""))
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "800ULL / sizeof(double)" in text
    declared = "double (*s_x)[(n) > 0 ? (n) : 1] = s_x_mem;"
    assert declared in text
    marked = text.replace(declared, declared + ' fprintf(stderr, "optimized\\n");', 1)
    sizes = [(10, 4), (11, 4)]          # 100 elements fit, 121 do not
    assert outputs_of(marked, tmp_path, "bounded", sizes) == outputs_of(SCALED.replace("OUTER", ""), tmp_path, "orig", sizes)
    binary = tmp_path / "bounded"
    assert "optimized" in run_binary(binary, args=["10", "4"], threads=1, timeout=60).stderr
    assert "optimized" not in run_binary(binary, args=["11", "4"], threads=1, timeout=60).stderr


def test_known_sizes_past_the_heap_bound_keep_the_array_one_dimensional(tmp_path):
    """With ``#define`` sizes whose square would pass ``HEAP_BYTES``, the array spans its
    own loop only (on the stack)."""
    source = ("#define N 20000\nvoid k(double A[N][N], double B[N][N], double C[N][N]) {\n  int i, j, k;\n"
              "  double s;\n#pragma scop\n  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++) {\n"
              "      s = 0.0;\n      for (k = 0; k < N; k++)\n        s += A[i][k] * B[k][j];\n"
              "      C[i][j] = 2.0 * C[i][j] + s;\n    }\n#pragma endscop\n}\n")
    path = tmp_path / "big.c"
    path.write_text(source)
    assert [(e.text, e.outer) for e in expansion_plan(extract(path)[0])] == [("s_x[j]", [])]


def test_a_removed_copy_is_not_run_again_where_the_iterators_get_their_final_values(tmp_path):
    """The iterators are read after the region, so the output ends with the original
    loops emptied of their statements, which leave them at their final values: the copy
    ``C[i][j] = s;`` that expansion removed must be emptied too (it stored the stale
    ``s`` into ``C[n - 1][n]``... once per iteration; fuzz generator v6, seed 99)."""
    source = PRODUCT.replace("INIT", "0.0").replace("READ", "").replace("GUARD", "") \
        .replace("static void product(int n, int m, double A[n][m], double B[m][n], DEST C[n][n]) {",
                 "static int product(int n, int m, double A[n][m], double B[m][n], DEST C[n][n]) {") \
        .replace("#pragma endscop\n}", "#pragma endscop\n  return i + 2 * j + 3 * k;\n}") \
        .replace("  product(n, m, A, B, C);", '  printf("%d\\n", product(n, m, A, B, C));')
    path = tmp_path / "product.c"
    path.write_text(source)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "destination C[i][j]" in result.regions[0].expansions[0]
    assert "leave the loop iterators at their final values" in result.text
    sizes = [(6, 5), (1, 1), (4, 9)]       # (no empty loop: its iterator would stay unset)
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(source, tmp_path, "orig", sizes)


def test_loops_from_parametric_lower_bounds_index_the_heap_array_from_zero(tmp_path):
    """``for (i = lo; ...) for (j = lo + 1; ...)``: ``s_x[i - (lo)][j - (lo + 1)]`` of
    ``(n - lo) x (n - lo - 1)`` elements (before: no expansion without constant lower
    bounds, so no micro-kernel either); the outputs equal the original's where the
    loops run 0, 1 and many times, at 1 and 2 threads."""
    source = SCALED.replace("OUTER", "").replace("static void scaled(int n,", "static void scaled(int lo, int n,") \
        .replace("for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++) {",
                 "for (i = lo; i < n; i++)\n    for (j = lo + 1; j < n; j++) {") \
        .replace("scaled(n, m,", "scaled(atoi(argv[3]), n, m,")
    path = tmp_path / "lower.c"
    path.write_text(source)
    [expansion] = expansion_plan(extract(path)[0])
    assert expansion.text == "s_x[i - (lo)][j - (lo + 1)]" and expansion.outer[0][:2] == ("i", "lo")
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "on the heap" in result.regions[0].expansions[0] and "/* polysched: tensorize" in result.text
    sizes = [(6, 5, 1), (17, 9, 3), (17, 9, 0), (3, 0, 1), (5, 4, 5), (5, 4, 4), (5, 4, 7), (40, 33, 2)]
    expected = outputs_of(source, tmp_path, "orig", sizes)
    assert outputs_of(result.text, tmp_path, "default", sizes) == expected
    untensorized = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True, tensorize=False))
    assert outputs_of(untensorized.text, tmp_path, "plain", sizes) == expected
