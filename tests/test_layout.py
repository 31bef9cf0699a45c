"""Array transposition (polysched/transform/layout.py): which matrices get a transposed
copy, the accesses and copies it makes, and the outputs of the transformed programs
against the originals (bit-identical, at 1 and 2 threads, at parameter edges)."""
from __future__ import annotations

import islpy as isl
import pytest

from compiled_runs import outputs_of
from polysched.bench import get, verify
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract
from polysched.transform.layout import transpose, transposition_plan


# ADI-like sweeps with sizes and steps from the command line: per time step, each row
# i of p runs a recurrence along j (p[i][j] from p[i][j - 1]) and feeds one down the
# columns of x; REFS adds
# references of the variants below. Every array is printed.
SWEEPS = r"""
#include <stdio.h>
#include <stdlib.h>
static void sweeps(int steps, int n, double x[n][n], double p[n][n], double y[n]) {
  int t, i, j;
#pragma scop
  for (t = 0; t < steps; t++) {
    for (i = 1; i < n - 1; i++) {
      p[i][0] = 0.5 * y[i];
      for (j = 1; j < n; j++)
        p[i][j] = (x[j][i] + p[i][j - 1]) / (2.0 + p[i][j - 1] * p[i][j - 1]);
      for (j = 1; j < n; j++)
        x[j][i] = 0.5 * x[j - 1][i] + 0.25 * p[i][j];
    }
REFS  }
#pragma endscop
}
int main(int argc, char **argv) {
  int steps = atoi(argv[1]), n = atoi(argv[2]);
  int r = n > 0 ? n : 1;
  double (*x)[r] = malloc(sizeof(double) * r * r), (*p)[r] = malloc(sizeof(double) * r * r);
  double *y = malloc(sizeof(double) * r);
  for (int i = 0; i < r; i++) {
    y[i] = (double)(i % 5) / 3.0;
    for (int j = 0; j < r; j++) { x[i][j] = (double)((i * 7 + j * 3) % 11) / 5.0; p[i][j] = -1.0 - j; }
  }
  sweeps(steps, n, x, p, y);
  for (int i = 0; i < r; i++) for (int j = 0; j < r; j++) printf("%a %a\n", x[i][j], p[i][j]);
  return 0;
}
"""


def _plan(tmp_path, source: str):
    path = tmp_path / "k.c"
    path.write_text(source)
    return path, transposition_plan(extract(path)[0])


def test_adi_works_on_transposed_p_and_q_only():
    """p and q (a recurrence along j inside the parallel rows i, in both sweeps) get
    copies p_t[j][i - 1]; u and v (read down columns in one sweep, along rows in the
    other) keep their layout. The copies come first and go back last."""
    scop = extract(get("adi").path)[0]
    plan = transposition_plan(scop)
    assert [(t.array, t.copy, t.lows, t.texts) for t in plan] == \
        [("p", "p_t", (1, 0), ("N - 2", "N - 1")), ("q", "q_t", (1, 0), ("N - 2", "N - 1"))]
    new = transpose(scop, plan)
    assert new.statement("S3").body == "p_t[j][i - 1] = -c / (a * p_t[j - 1][i - 1] + b);"
    relation = next(a.relation for a in new.statement("S3").accesses if a.kind == "write")
    assert relation.is_equal(isl.Map("[TSTEPS, N] -> { S3[t, i, j] -> p_t[j, i - 1] : "
                                     "0 < t <= TSTEPS and 0 < i <= N - 2 and 0 < j <= N - 2 }"))
    originals = {s.name for s in scop.statements}
    copies = {s.name: s.body for s in new.statements if s.name not in originals}
    assert copies == {
        "S14": "p_t[polysched_col][polysched_row - 1] = p[polysched_row][polysched_col];",
        "S15": "p[polysched_row][polysched_col] = p_t[polysched_col][polysched_row - 1];",
        "S16": "q_t[polysched_col_1][polysched_row_1 - 1] = q[polysched_row_1][polysched_col_1];",
        "S17": "q[polysched_row_1][polysched_col_1] = q_t[polysched_col_1][polysched_row_1 - 1];"}
    # the schedule runs the copy-ins before everything and the copy-outs after
    order = [f.get_tuple_name() for f in _filters(new.schedule)]
    assert order[:2] == ["S14", "S16"] and order[-2:] == ["S15", "S17"]


def _filters(schedule):
    root = schedule.get_root().child(0)
    assert root.get_type() == isl.schedule_node_type.sequence
    names = []
    for k in range(root.n_children()):
        sets = []
        root.child(k).filter_get_filter().foreach_set(sets.append)
        names.append(sorted(sets, key=lambda s: s.get_tuple_name())[0])
    return names


@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_adi_transposed_computes_what_the_original_computes(tmp_path, dataset):
    """Every array adi prints (u, v, p, q) bit-identical at 1 and 2 threads."""
    result = optimize(get("adi").path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert sum("transposed array" in line for line in result.regions[0].expansions) == 2
    out = tmp_path / "adi.c"
    out.write_text(result.text)
    verdict = verify(get("adi").path, out, dataset=dataset)
    assert verdict.status == "equal", verdict


@pytest.mark.parametrize("sizes", [[(3, 7), (1, 2), (2, 3), (4, 33)], [(0, 5), (3, 0), (-2, 4), (2, -3), (2, 1)]],
                         ids=["small", "edges"])
def test_transposed_sweeps_compute_what_the_originals_compute(tmp_path, sizes):
    """The sweeps above through the default pipeline, isl's scheduler and without
    tiling: p becomes p_t, outputs bit-identical at sizes 0, negative, 1 and 2 (where
    the copy would be empty: the original code runs) and larger, 1 and 2 threads."""
    source = SWEEPS.replace("REFS", "")
    path, plan = _plan(tmp_path, source)
    assert [t.array for t in plan] == ["p"]
    expected = outputs_of(source, tmp_path, "orig", sizes)
    for mode, options in {"default": OptimizeOptions.from_flags(tile=True, parallel=True),
                          "isl": OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True),
                          "untiled": OptimizeOptions.from_flags()}.items():
        text = optimize(path, options).text
        assert "p_t" in text, mode
        assert outputs_of(text, tmp_path, mode, sizes) == expected, mode


@pytest.mark.parametrize("refs, why", [
    ("    for (i = 0; i < n; i++) y[i] = p[0][i];\n", "the vector loop in the last subscript"),
    ("    for (i = 1; i < n - 1; i++) y[i] = ROW(i, 0);\n", "a reference the text does not show"),
])
def test_no_transposition_where_a_reference_would_lose(tmp_path, refs, why):
    """A reference walking a row with the vector loop, or one a macro hides, keeps the
    layout."""
    _, plan = _plan(tmp_path, "#define ROW(a, b) p[a][b]\n" + SWEEPS.replace("REFS", refs))
    assert plan == [], why


def test_no_transposition_without_reuse_or_through_row_pointers(tmp_path):
    """One sweep (no loop repeats the references: the copies would cost as much as they
    save) and rows reached through pointers (``double **p``) keep their layout."""
    once = SWEEPS.replace("REFS", "").replace("for (t = 0; t < steps; t++) {", "{")
    _, plan = _plan(tmp_path, once)
    assert plan == []
    pointers = SWEEPS.replace("REFS", "").replace("double p[n][n]", "double **p")
    _, plan = _plan(tmp_path, pointers)
    assert plan == []


def test_transposition_is_a_trace_step_and_saved_runs_replay_byte_for_byte(tmp_path):
    """``optimize --save-trace`` of adi records ``transpose_arrays``; replaying the trace,
    or the saved schedule, writes the same file; ``--no-transpose`` keeps p and q."""
    from polysched.cli import main
    from polysched.errors import TransformError
    from polysched.program import Program
    path = get("adi").path
    out = {name: tmp_path / f"{name}.c" for name in ("run", "trace", "schedule", "plain")}
    assert main(["optimize", str(path), "-o", str(out["run"]), "--tile", "--parallel",
                 "--save-trace", str(tmp_path / "t.json"), "--save-schedule", str(tmp_path / "s.txt")]) == 0
    assert '"transpose_arrays"' in (tmp_path / "t.json").read_text()
    assert main(["optimize", str(path), "-o", str(out["trace"]), "--trace", str(tmp_path / "t.json")]) == 0
    assert main(["optimize", str(path), "-o", str(out["schedule"]), "--schedule", str(tmp_path / "s.txt")]) == 0
    assert out["trace"].read_text() == out["run"].read_text() == out["schedule"].read_text()
    assert main(["optimize", str(path), "-o", str(out["plain"]), "--tile", "--parallel", "--no-transpose"]) == 0
    assert "p_t" in out["run"].read_text() and "p_t" not in out["plain"].read_text()
    with pytest.raises(TransformError,
                       match=r"only substitute_scalars\(\), expand_scalars\(\) or privatize_arrays\(\) may come"):
        Program.from_file(path).auto_schedule().transpose_arrays()


def _random_sweeps(rng) -> str:
    """A random ADI-like kernel: per time step, one or two sweeps over rows ``i``, each
    running a recurrence along ``j`` (forward or backward, from a first column set
    or not) in ``p`` (and maybe ``q``), read back down the columns of ``x``; sometimes a
    reference that keeps the layout (a row of ``p`` walked by the vector loop)."""
    def sweep(a, b):
        lo, hi = rng.choice([(1, 1), (0, 0), (2, 1)])
        forward = rng.random() < 0.6
        first = "0" if forward else "n - 1"
        init = f"      {a}[i][{first}] = {rng.choice(['0.5 * y[i]', '1.0', f'x[{first}][i]'])};\n" \
            if rng.random() < 0.8 else ""
        loop = "for (j = 1; j < n; j++)" if forward else "for (j = n - 2; j >= 0; j--)"
        prev = "j - 1" if forward else "j + 1"
        terms = rng.sample([f"{a}[i][{prev}]", "x[j][i]", "y[i]", f"{b}[i][j]"], rng.randint(1, 3))
        if f"{a}[i][{prev}]" not in terms:
            terms.append(f"{a}[i][{prev}]")
        rec = f"        {a}[i][j] = (" + " + ".join(f"{rng.choice(['0.5', '0.25', '-0.75'])} * {t}" for t in terms) \
            + f") / (2.0 + {a}[i][{prev}] * {a}[i][{prev}]);\n"
        back = ""
        if rng.random() < 0.6:
            back = f"      for (j = 1; j < n; j++)\n        x[j][i] = 0.5 * x[j - 1][i] + 0.25 * {a}[i][j];\n"
        return f"    for (i = {lo}; i < n - {hi}; i++) {{\n{init}      {loop}\n{rec}{back}    }}\n"
    body = sweep("p", "q") + (sweep("q", "p") if rng.random() < 0.5 else "")
    if rng.random() < 0.2:
        body += "    for (i = 0; i < n; i++) y[i] = 0.5 * y[i] + p[0][i];\n"
    return SWEEPS.replace("""    for (i = 1; i < n - 1; i++) {
      p[i][0] = 0.5 * y[i];
      for (j = 1; j < n; j++)
        p[i][j] = (x[j][i] + p[i][j - 1]) / (2.0 + p[i][j - 1] * p[i][j - 1]);
      for (j = 1; j < n; j++)
        x[j][i] = 0.5 * x[j - 1][i] + 0.25 * p[i][j];
    }
REFS""", body).replace("double p[n][n], double y[n]", "double p[n][n], double q[n][n], double y[n]") \
        .replace("double *y = malloc(sizeof(double) * r);",
                 "double *y = malloc(sizeof(double) * r), (*q)[r] = malloc(sizeof(double) * r * r);\n"
                 "  for (int i = 0; i < r; i++) for (int j = 0; j < r; j++) q[i][j] = 0.5 + (i + 2 * j) % 3;") \
        .replace("sweeps(steps, n, x, p, y);", "sweeps(steps, n, x, p, q, y);") \
        .replace('printf("%a %a\\n", x[i][j], p[i][j]);', 'printf("%a %a %a\\n", x[i][j], p[i][j], q[i][j]);')


@pytest.mark.parametrize("seed", range(4))
def test_random_sweeps_transposed_or_not_compute_what_the_originals_compute(tmp_path, seed):
    """Random ADI-like kernels (the original program as the oracle) through the default
    pipeline and isl's scheduler, at sizes 0, 1, 2 and larger, 1 and 2 threads."""
    import random
    source = _random_sweeps(random.Random(seed))
    path = tmp_path / "sweeps.c"
    path.write_text(source)
    sizes = [(2, 6), (1, 1), (2, 2), (3, 0), (3, 17)]
    expected = outputs_of(source, tmp_path, "orig", sizes)
    for mode, options in {"default": OptimizeOptions.from_flags(tile=True, parallel=True),
                          "isl": OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True)}.items():
        text = optimize(path, options).text
        assert outputs_of(text, tmp_path, mode, sizes) == expected, f"seed {seed} [{mode}]:\n{source}"


def test_random_sweeps_are_transposed_often_enough(tmp_path):
    """The generator above exercises the transformation: most of its kernels transpose."""
    import random
    transposed = 0
    for seed in range(8):
        path = tmp_path / f"k{seed}.c"
        path.write_text(_random_sweeps(random.Random(seed)))
        transposed += bool(transposition_plan(extract(path)[0]))
    assert transposed >= 4, transposed
