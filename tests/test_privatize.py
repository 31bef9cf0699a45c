"""Array privatization (polysched/transform/privatize.py): a temporary array filled
anew by every iteration of a loop gets a copy per iteration, and the loop runs in
parallel. Checked on the plans (which array, at which loop), on the dependences of the
privatized model (the loop carries none), and by running the outputs against the
original at parameter edges, 1 and 2 threads, with the temporary printed afterwards
(the copy-out must leave the original's values)."""
from __future__ import annotations

import re

import islpy as isl
import pytest

from polysched import Program
from polysched.bench import get
from polysched.dependence import analyze
from polysched.dependence.loops import is_parallel
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract
from polysched.transform.privatize import privatization_plan, privatize
from compiled_runs import outputs_of

# doitgen's shape, with the sizes from the command line and the temporary printed last
TEMPORARY_ROWS = r"""
#include <stdio.h>
#include <stdlib.h>
void kernel(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np], double sum[np])
{
#pragma scop
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}
int main(int argc, char **argv)
{
  int nr = atoi(argv[1]), nq = atoi(argv[2]), np = atoi(argv[3]);
  int ar = nr > 0 ? nr : 1, aq = nq > 0 ? nq : 1, ap = np > 0 ? np : 1;
  double (*A)[aq][ap] = malloc(sizeof(double) * ar * aq * ap);
  double (*C4)[ap] = malloc(sizeof(double) * ap * ap);
  double *sum = malloc(sizeof(double) * ap);
  for (int r = 0; r < ar; r++) for (int q = 0; q < aq; q++) for (int p = 0; p < ap; p++)
    A[r][q][p] = ((r * 7 + q * 3 + p) % 11) * 0.25;
  for (int s = 0; s < ap; s++) for (int p = 0; p < ap; p++) C4[s][p] = ((s * p) % 5) * 0.5 - 1.0;
  for (int p = 0; p < ap; p++) sum[p] = -7.0 - p;
  kernel(nr, nq, np, A, C4, sum);
  for (int r = 0; r < ar; r++) for (int q = 0; q < aq; q++) for (int p = 0; p < ap; p++) printf("%a\n", A[r][q][p]);
  for (int p = 0; p < ap; p++) printf("sum %a\n", sum[p]);
  return 0;
}
"""

EDGES = [(9, 6, 13), (3, 2, 5), (1, 1, 1), (0, 3, 3), (3, 0, 2), (2, 3, 0), (-1, 2, 2), (5, 4, 8)]


def test_doitgen_sum_is_privatized_at_the_outer_loop_which_then_carries_no_dependence():
    """doitgen's ``sum[p]``, reused by every ``(r, q)``: one copy per ``r`` (the
    outermost loop parallel but for it), copied back from ``r = NR - 1``; in the new
    model no dependence is carried by ``r``, while the original's ``r`` carries one."""
    scop = extract(get("doitgen").path.read_text(), filename="doitgen.c")[0]
    plan = privatization_plan(scop)
    assert [(p.array, p.loop, p.depth, p.last, p.extent_text, p.texts) for p in plan] == \
        [("sum", "r", 0, "NR - 1", "NR", ("NP",))]
    new = privatize(scop, plan)
    # { S[r, ...] -> [r] } for the loop's statements (the copy-out S3 runs after it)
    r_row = isl.UnionMap("{ S0[r, q, p] -> [r]; S1[r, q, p, s] -> [r]; S2[r, q, p] -> [r] }")
    for model, carried in ((scop, True), (new, False)):
        validity = analyze(model).validity
        validity = validity.intersect_domain(r_row.domain()).intersect_range(r_row.domain())
        assert is_parallel(validity, None, r_row.align_params(validity.get_space())) is not carried
    copy_out = new.statements[-1]
    assert copy_out.body.startswith("sum[") and "sum_x[NR - 1]" in copy_out.body


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(parallel=True), dict(tile=True), dict()],
                         ids=["tile-parallel", "parallel", "tile", "default"])
def test_a_privatized_temporary_runs_as_the_original_and_ends_with_its_values(tmp_path, flags):
    """doitgen's shape with parametric sizes, at the edges (a size 0 or negative, 1, odd
    sizes that leave a partial jam strip) and 1 and 2 threads: the array and the
    temporary after the region (copied back from the last iteration) are the
    original's, bit for bit. Only a parallel mode privatizes (without a parallel loop
    the copies would only cost)."""
    source = tmp_path / "rows.c"
    source.write_text(TEMPORARY_ROWS)
    result = optimize(source, OptimizeOptions.from_flags(**flags))
    assert ("privatized array sum into sum_x" in result.summary()) is bool(flags.get("parallel")), result.summary()
    assert outputs_of(result.text, tmp_path, "new", EDGES) == outputs_of(TEMPORARY_ROWS, tmp_path, "orig", EDGES)
    if flags.get("parallel"):
        optimized = result.text.split("the original code")[0]
        # one team for the whole region: the parallel loop is the outer one
        first = optimized.index("#pragma omp parallel for")
        assert "nr" in optimized[first:].splitlines()[1], optimized[first:first + 300]


CARRIED = TEMPORARY_ROWS.replace("        sum[p] = 0.0;\n", "        sum[p] = sum[p] * 0.5;\n")
TRIANGLE = TEMPORARY_ROWS.replace("      for (int p = 0; p < np; p++) {\n        sum[p] = 0.0;",
                                  "      for (int p = 0; p <= r && p < np; p++) {\n        sum[p] = 0.0;") \
    .replace("      for (int p = 0; p < np; p++)\n        A[r][q][p] = sum[p];",
             "      for (int p = 0; p <= r && p < np; p++)\n        A[r][q][p] = sum[p];")


LOOP = TEMPORARY_ROWS[TEMPORARY_ROWS.index("  for (int r = 0;"):TEMPORARY_ROWS.index("#pragma endscop")]
REPEATED = TEMPORARY_ROWS.replace(LOOP, """  for (int t = 0; t < 3; t++)
    for (int p = 0; p < np; p++) {
      sum[p] = C4[0][p] * 2.0;
      sum[p] += C4[p][0];
    }
""")


@pytest.mark.parametrize("program, why", [(CARRIED, "each iteration reads the value the one before left"),
                                          (TRIANGLE, "the elements' last writes are in different iterations"),
                                          (REPEATED, "the iterations write nothing else: they repeat one "
                                                     "computation")],
                         ids=["carried", "triangle", "repeated"])
def test_a_temporary_that_is_not_private_or_not_copied_back_is_kept(tmp_path, program, why):
    """No copy when a value flows between iterations, nor when no single iteration
    writes every element last (the copy-out could not name it), nor for a loop that
    repeats one computation (its copies would redo it in parallel); the outputs are
    the original's either way."""
    source = tmp_path / "kept.c"
    source.write_text(program)
    assert privatization_plan(extract(program, filename="kept.c")[0]) == [], why
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "privatized" not in result.summary()
    assert outputs_of(result.text, tmp_path, "new", EDGES[:5]) == outputs_of(program, tmp_path, "orig", EDGES[:5])


def test_privatize_arrays_is_a_program_step_that_a_trace_replays(tmp_path):
    """``Program.privatize_arrays()`` records a model step; replaying the trace gives
    the same code."""
    program = Program.from_file(get("doitgen").path).privatize_arrays().auto_schedule().auto_tile(parallel=True)
    assert [s["op"] for s in program.trace.steps][0] == "privatize_arrays"
    again = Program.from_file(get("doitgen").path).replay(program.trace)
    assert again.region_code() == program.region_code()
    assert "sum_x[" in program.region_code()


def test_a_jam_below_a_band_tiled_after_it_keeps_its_full_strips_isolated():
    """The tiler applies the inner band's steps first: doitgen's jam (by 4, inside the
    now parallel and tiled ``(r, q)`` band) lost its isolated full strips, and even its
    unrolling, when the outer band was tiled (isl drops AST options above which a band
    is replaced). The jammed copies are unrolled, their row values held in locals, with
    no guard inside the vector loop."""
    text = optimize(get("doitgen").path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    optimized = text.split("the original code")[0]
    assert "double A_r3 = A[" in optimized, optimized
    vector_loops = re.findall(r"#pragma omp simd\n(\s*)for \(.*\{\n((?:\1  .*\n)+)", optimized)
    jammed = [body for _, body in vector_loops if "A_r3 *" in body]
    assert jammed and not any(re.search(r"if \(NP >= 4 \* c\d+ \+ 4\)", body) for body in jammed[:1]), jammed


def _random_temporary_kernel(rng) -> str:
    """A random kernel over rows ``r`` that keeps each row's partial results in a
    temporary ``t`` (at an offset), maybe updates it from a neighbour, maybe reads an
    element the row did not write (then a value crosses rows), maybe only on some rows;
    ``t`` is printed after the region."""
    off = rng.choice([0, 1, 2])
    body = [f"      for (int p = 0; p < np; p++)\n        t[p + {off}] = A[r][p] * {rng.choice(['0.5', '2.0', '1.5'])};"]
    if rng.random() < 0.5:
        body.append(f"      for (int p = 0; p < np - 1; p++)\n        t[p + {off}] += t[p + {off} + 1] * 0.25;")
    if rng.random() < 0.3:
        body[0] = "      if (r % 2 == 0)\n  " + body[0].replace("\n", "\n  ")
    reach = rng.choice(["0", "0", "1"])       # 1: reads t[np + off], which no row writes
    tail = rng.choice(["", f" + t[{off}]", f" - t[np - 1 + {off}]"])
    body.append(f"      for (int p = 0; p < np; p++)\n        B[r][p] = t[p + {off} + {reach}] * 3.0{tail};")
    return TEMPORARY_RANDOM.replace("BODY", "\n".join(body))


TEMPORARY_RANDOM = r"""
#include <stdio.h>
#include <stdlib.h>
void kernel(int nr, int np, double A[nr][np], double B[nr][np], double *t)
{
#pragma scop
  for (int r = 0; r < nr; r++) {
BODY
  }
#pragma endscop
}
int main(int argc, char **argv)
{
  int nr = atoi(argv[1]), np = atoi(argv[2]);
  int ar = nr > 0 ? nr : 1, ap = np > 0 ? np : 1;
  double (*A)[ap] = malloc(sizeof(double) * ar * ap), (*B)[ap] = calloc(ar * ap, sizeof(double));
  double *t = malloc(sizeof(double) * (ap + 4));
  for (int r = 0; r < ar; r++) for (int p = 0; p < ap; p++) A[r][p] = ((r * 5 + p * 3) % 13) * 0.125;
  for (int p = 0; p < ap + 4; p++) t[p] = -1.0 - p;
  kernel(nr, np, A, B, t);
  for (int r = 0; r < ar; r++) for (int p = 0; p < ap; p++) printf("%a\n", B[r][p]);
  for (int p = 0; p < ap + 4; p++) printf("t %a\n", t[p]);
  return 0;
}
"""


def test_random_row_temporaries_run_as_the_original(tmp_path):
    """Random kernels around a row temporary (private or not, at an offset, updated
    from a neighbour, written on some rows only): ``--tile --parallel`` outputs equal
    the original's (the rows, then the temporary) at edge sizes and 1 and 2 threads;
    some of them are privatized, so the copies and copy-outs run."""
    import random
    rng = random.Random(20261202)
    privatized = 0
    for k in range(6):
        program = _random_temporary_kernel(rng)
        source = tmp_path / f"t{k}.c"
        source.write_text(program)
        result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
        privatized += "privatized array t" in result.summary()
        sizes = [(7, 9), (1, 1), (3, 0), (0, 4), (5, 2)]
        assert outputs_of(result.text, tmp_path, f"new{k}", sizes) == \
            outputs_of(program, tmp_path, f"orig{k}", sizes), program
    assert privatized >= 2


def test_a_privatizing_run_replays_from_its_trace_and_its_schedule(tmp_path):
    """``optimize --tile --parallel --save-trace --save-schedule`` of doitgen records
    ``privatize_arrays``; ``--trace`` and ``--schedule`` (tried on the privatized
    program when the source's statements refuse it) write the same file."""
    from polysched.cli import main
    path = get("doitgen").path
    out = {name: tmp_path / f"{name}.c" for name in ("run", "trace", "schedule")}
    assert main(["optimize", str(path), "-o", str(out["run"]), "--tile", "--parallel",
                 "--save-trace", str(tmp_path / "t.json"), "--save-schedule", str(tmp_path / "s.txt")]) == 0
    assert '"privatize_arrays"' in (tmp_path / "t.json").read_text()
    assert main(["optimize", str(path), "-o", str(out["trace"]), "--trace", str(tmp_path / "t.json")]) == 0
    assert main(["optimize", str(path), "-o", str(out["schedule"]), "--schedule", str(tmp_path / "s.txt")]) == 0
    assert "sum_x[" in out["run"].read_text()
    assert out["trace"].read_text() == out["run"].read_text() == out["schedule"].read_text()
