"""polysched.emit_c: C from isl schedule trees, verified by compiling and running.

Scops are built by hand here (source text + isl domains + schedule), so these tests
depend on nothing but the data model; each generated program is compiled with gcc
and its output compared with the original program's output.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import islpy as isl
import pytest

from polysched.emit_c import EmitOptions, emit_file, generate, splice
from polysched.emit_c.body import substitute
from polysched.emit_c.expr import Helpers
from polysched.emit_c.names import NameAllocator
from polysched.scop.model import Scop, Statement

GCC = shutil.which("gcc")
pytestmark = pytest.mark.skipif(GCC is None, reason="gcc not available")


# -- helpers ---------------------------------------------------------------------


def compile_and_run(source: str, tmp_path: Path, name: str, flags=(), args=()) -> str:
    """Compile ``source`` with gcc and return the program's stdout."""
    c_file = tmp_path / f"{name}.c"
    exe = tmp_path / name
    c_file.write_text(source)
    cmd = [GCC, "-std=gnu11", "-O1", *flags, str(c_file), "-o", str(exe), "-lm"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"gcc failed on:\n{source}\n{result.stderr}"
    env = dict(os.environ, OMP_NUM_THREADS="2")
    run = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    return run.stdout


def band_schedule(domain: str, schedule_map: str) -> isl.Schedule:
    """A schedule tree with a single band ``schedule_map`` over ``domain``."""
    dom = isl.UnionSet(domain)
    umap = isl.UnionMap(schedule_map).intersect_domain(dom)
    return isl.Schedule.from_domain(dom).insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(umap))


def make_scop(source: str, params: list[str], context: str, statements: list[tuple], schedule_map: str,
              occurrence: int = 0, values: dict | None = None) -> Scop:
    """A Scop for the ``occurrence``-th ``#pragma scop`` region of ``source``.

    ``statements``: ``(name, iterators, domain, body)`` tuples; the original schedule
    is the single band ``schedule_map`` (sequence positions as constant dimensions).
    """
    starts = [m.end() for m in re.finditer(r"^[ \t]*#pragma scop[^\n]*\n", source, re.M)]
    ends = [m.start() for m in re.finditer(r"^[ \t]*#pragma endscop", source, re.M)]
    start, end = starts[occurrence], ends[occurrence]
    stmts = [Statement(n, its, isl.Set(dom), [], body) for n, its, dom, body in statements]
    union = isl.UnionSet.from_set(stmts[0].domain)
    for s in stmts[1:]:
        union = union.union(isl.UnionSet.from_set(s.domain))
    umap = isl.UnionMap(schedule_map).intersect_domain(union)
    schedule = isl.Schedule.from_domain(union).insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(umap))
    return Scop(
        filename="test.c", source=source, region_start=start, region_end=end,
        start_line=source[:start].count("\n"), end_line=source[:end].count("\n") + 1, function="main",
        parameters=params, parameter_values=values or {}, context=isl.Set(context), arrays={},
        statements=stmts, schedule=schedule,
    )


def schedule_with(scop: Scop, schedule_map: str) -> isl.Schedule:
    return band_schedule(str(scop.domain), schedule_map)


def check_same_output(scop: Scop, schedule, tmp_path: Path, flags=(), args_list=((),)) -> str:
    """Emit ``schedule`` into the file, compile both, compare outputs; returns the text."""
    new_source = splice(scop, generate(scop, schedule))
    for k, args in enumerate(args_list):
        expected = compile_and_run(scop.source, tmp_path, f"orig{k}", flags, args)
        got = compile_and_run(new_source, tmp_path, f"new{k}", flags, args)
        assert got == expected, f"output differs for:\n{new_source}"
        assert expected.strip(), "the test program printed nothing"
    return new_source


def region(text: str) -> str:
    return text[text.index("#pragma scop"):text.index("#pragma endscop")]


# -- programs --------------------------------------------------------------------

MATMUL = r"""#include <stdio.h>
#define N 13
#define M 11
#define K 7
static double A[N][K], B[K][M], C[N][M];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (k = 0; k < K; k++) A[i][k] = (i * 3 + k) % 5 - 2;
  for (k = 0; k < K; k++) for (j = 0; j < M; j++) B[k][j] = (k + 2 * j) % 7 - 3;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) C[i][j] = i - j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      for (k = 0; k < K; k++)
        C[i][j] += 2.0 * A[i][k] * B[k][j];
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) printf("%.17g\n", C[i][j]);
  return 0;
}
"""


def matmul_scop() -> Scop:
    return make_scop(
        MATMUL, ["N", "M", "K"], "[N, M, K] -> { : N >= 1 and M >= 1 and K >= 1 }",
        [("S0", ["i", "j", "k"], "[N, M, K] -> { S0[i, j, k] : 0 <= i < N and 0 <= j < M and 0 <= k < K }",
          "C[i][j] += 2.0 * A[i][k] * B[k][j];")],
        "[N, M, K] -> { S0[i, j, k] -> [i, j, k] }",
    )


# imperfect nest with a function parameter n as size: correct for every n
MATVEC = r"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, double A[40][40], double x[40], double y[40], double z[40]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.5;
    for (j = 0; j < n; j++)
      y[i] = y[i] + A[i][j] * x[j];
    z[i] = y[i] * 2 - (i > 3 ? 1 : 0);
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  static double A[40][40], x[40], y[40], z[40];
  for (int p = 0; p < 40; p++) { x[p] = p % 3; for (int q = 0; q < 40; q++) A[p][q] = (p + q) % 4; }
  kernel(n, A, x, y, z);
  for (int p = 0; p < n; p++) printf("%g %g\n", y[p], z[p]);
  return 0;
}
"""


def matvec_scop() -> Scop:
    return make_scop(
        MATVEC, ["n"], "[n] -> { : 1 <= n <= 40 }",
        [("S0", ["i"], "[n] -> { S0[i] : 0 <= i < n }", "y[i] = 0.5;"),
         ("S1", ["i", "j"], "[n] -> { S1[i, j] : 0 <= i < n and 0 <= j < n }", "y[i] = y[i] + A[i][j] * x[j];"),
         ("S2", ["i"], "[n] -> { S2[i] : 0 <= i < n }", "z[i] = y[i] * 2 - (i > 3 ? 1 : 0);")],
        "[n] -> { S0[i] -> [i, 0, 0]; S1[i, j] -> [i, 1, j]; S2[i] -> [i, 2, 0] }",
    )


TRIANGULAR = r"""#include <stdio.h>
#define N 12
static double L[N][N];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) L[i][j] = (i * 7 + j) % 5;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 0; j < i; j++)
      L[i][j] = L[i - 1][j] + 2 * L[i][j] - L[j][j];
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%g\n", L[i][j]);
  return 0;
}
"""


def triangular_scop() -> Scop:
    return make_scop(
        TRIANGULAR, ["N"], "[N] -> { : N >= 1 }",
        [("S0", ["i", "j"], "[N] -> { S0[i, j] : 1 <= i < N and 0 <= j < i }", "L[i][j] = L[i - 1][j] + 2 * L[i][j] - L[j][j];")],
        "[N] -> { S0[i, j] -> [i, j] }",
    )


DOWN_STRIDED = r"""#include <stdio.h>
#define N 30
static long a[N + 2], b[N];
int main(void) {
  int i;
  for (i = 0; i < N + 2; i++) a[i] = i % 4;
  for (i = 0; i < N; i++) b[i] = 1;
#pragma scop
  for (i = N - 1; i >= 0; i--)
    a[i] = a[i + 1] * 3 + i;
  for (i = 1; i < N; i += 3)
    b[i] = b[i - 1] + a[i];
#pragma endscop
  for (i = 0; i < N; i++) printf("%ld %ld\n", a[i], b[i]);
  return 0;
}
"""


def down_strided_scop() -> Scop:
    return make_scop(
        DOWN_STRIDED, ["N"], "[N] -> { : N >= 1 }",
        [("S0", ["i"], "[N] -> { S0[i] : 0 <= i < N }", "a[i] = a[i + 1] * 3 + i;"),
         ("S1", ["i"], "[N] -> { S1[i] : 1 <= i < N and exists k : i = 3k + 1 }", "b[i] = b[i - 1] + a[i];")],
        "[N] -> { S0[i] -> [0, -i]; S1[i] -> [1, i] }",
    )


MINMAX_GUARD = r"""#include <stdio.h>
#define N 20
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
static int a[N][N], s[N];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) { s[i] = 0; for (j = 0; j < N; j++) a[i][j] = (i ^ j) % 7; }
#pragma scop
  for (i = 0; i < N; i++)
    for (j = MAX(0, i - 2); j <= MIN(N - 1, i + 3); j++)
      if (i % 2 == 0 && j > 3)
        s[i] += a[j][i] * (j - i);
#pragma endscop
  for (i = 0; i < N; i++) printf("%d\n", s[i]);
  return 0;
}
"""


def minmax_guard_scop() -> Scop:
    return make_scop(
        MINMAX_GUARD, ["N"], "[N] -> { : N >= 1 }",
        [("S0", ["i", "j"],
          "[N] -> { S0[i, j] : 0 <= i < N and 0 <= j and i - 2 <= j and j <= N - 1 and j <= i + 3 "
          "and j > 3 and exists k : i = 2k }",
          "s[i] += a[j][i] * (j - i);")],
        "[N] -> { S0[i, j] -> [i, j] }",
    )


# -- (1) identity emission ---------------------------------------------------------

@pytest.mark.parametrize("make", [matmul_scop, triangular_scop, down_strided_scop, minmax_guard_scop])
def test_identity_emission_matches_original(make, tmp_path):
    scop = make()
    new = check_same_output(scop, None, tmp_path)
    assert "for (int c" in region(new)


def test_identity_imperfect_nest_with_parameter_size(tmp_path):
    scop = matvec_scop()
    new = check_same_output(scop, None, tmp_path, args_list=[("1",), ("5",), ("17",)])
    body = region(new)
    assert "c0 < n" in body and "y[c0] = 0.5;" in body


def test_strided_and_reversed_loops_keep_their_step(tmp_path):
    text = generate(down_strided_scop())
    assert "+= 3)" in text  # the strided loop stays strided, no modulo guard
    assert "%" not in text


# -- (2) other legal schedules --------------------------------------------------------

def test_interchange(tmp_path):
    scop = matmul_scop()
    sched = schedule_with(scop, "[N, M, K] -> { S0[i, j, k] -> [k, j, i] }")
    new = check_same_output(scop, sched, tmp_path)
    assert "C[c2][c1] += 2.0 * A[c2][c0] * B[c0][c1];" in new


SKEW = r"""#include <stdio.h>
#define N 9
#define M 14
static double A[N][M];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) A[i][j] = (i + 3 * j) % 5;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 1; j < M; j++)
      A[i][j] = A[i - 1][j] + A[i][j - 1] * 0.5;
#pragma endscop
  for (i = 0; i < N; i++) for (j = 0; j < M; j++) printf("%.17g\n", A[i][j]);
  return 0;
}
"""


def skew_scop() -> Scop:
    return make_scop(
        SKEW, ["N", "M"], "[N, M] -> { : N >= 1 and M >= 1 }",
        [("S0", ["i", "j"], "[N, M] -> { S0[i, j] : 1 <= i < N and 1 <= j < M }",
          "A[i][j] = A[i - 1][j] + A[i][j - 1] * 0.5;")],
        "[N, M] -> { S0[i, j] -> [i, j] }",
    )


def test_skewed_wavefront(tmp_path):
    scop = skew_scop()
    sched = schedule_with(scop, "[N, M] -> { S0[i, j] -> [i + j, j] }")
    new = check_same_output(scop, sched, tmp_path)
    assert "A[c0 - c1][c1]" in new


def test_reversal_of_parallel_loop(tmp_path):
    scop = matmul_scop()
    sched = schedule_with(scop, "[N, M, K] -> { S0[i, j, k] -> [-i, N - j, k] }")
    check_same_output(scop, sched, tmp_path)


def test_imperfect_nest_distribution(tmp_path):
    """Fission of the matvec nest: all S0, then S1 interchanged, then all S2."""
    scop = matvec_scop()
    sched = schedule_with(scop, "[n] -> { S0[i] -> [0, i, 0]; S1[i, j] -> [1, j, i]; S2[i] -> [2, i, 0] }")
    check_same_output(scop, sched, tmp_path, args_list=[("1",), ("8",)])


def test_illegal_schedule_is_detected_by_execution(tmp_path):
    """The oracle can fail: reversing the skew recurrence changes the output."""
    scop = skew_scop()
    sched = schedule_with(scop, "[N, M] -> { S0[i, j] -> [-i, j] }")
    new = splice(scop, generate(scop, sched))
    assert compile_and_run(new, tmp_path, "new") != compile_and_run(scop.source, tmp_path, "orig")


# -- (3) tiling and marks ------------------------------------------------------------

def tile_band(node: isl.ScheduleNode, sizes: list[int]) -> isl.ScheduleNode:
    mv = isl.MultiVal.zero(node.band_get_space())
    for k, size in enumerate(sizes):
        mv = mv.set_val(k, isl.Val(size))
    return node.band_tile(mv)


def test_tiled_matmul_with_parallel_and_unroll_marks(tmp_path):
    scop = matmul_scop()
    band = scop.schedule.get_root().child(0)
    tiles = tile_band(band, [4, 5, 3])  # tile band -> point band
    tiles = tiles.insert_mark(isl.Id("parallel")).child(0)  # mark above the tile band
    point = tiles.child(0).insert_mark(isl.Id("unroll 2"))
    sched = point.get_schedule()
    new = check_same_output(scop, sched, tmp_path, flags=("-fopenmp",))
    body = region(new)
    lines = body.splitlines()
    k = next(i for i, line in enumerate(lines) if "#pragma omp parallel for" in line)
    assert lines[k + 1].strip().startswith("for (int c0 = 0; c0 < N; c0 += 4)")
    k = next(i for i, line in enumerate(lines) if "#pragma GCC unroll 2" in line)
    assert lines[k + 1].strip().startswith("for (int c3 = ")
    assert len(lines) < 60  # no code explosion from tiling (the parallel nest twice: forked, and in place)


def test_simd_ivdep_and_unknown_marks(tmp_path):
    scop = matmul_scop()
    band = scop.schedule.get_root().child(0)
    # split the 3-d band into i | j | k to mark the inner loops individually
    node = band.band_split(1).child(0).band_split(1)  # node: the j band; its child is the k band
    node = node.insert_mark(isl.Id("simd")).child(0).child(0)
    node = node.insert_mark(isl.Id("ivdep")).child(0)
    node = node.parent().parent().parent().parent()  # back to the i band
    sched = node.get_schedule()
    # a tensorize mark that maps no statement, loops and operands is refused before printing
    with pytest.raises(ValueError, match="the tensorize mark 'tensorize:gemm' does not map a statement"):
        generate(scop, node.insert_mark(isl.Id("tensorize:gemm")).get_schedule())
    with pytest.raises(ValueError, match="unknown mark 'tensorise'"):
        generate(scop, node.insert_mark(isl.Id("tensorise")).get_schedule())
    new = check_same_output(scop, sched, tmp_path, flags=("-fopenmp",))
    body = region(new)
    assert re.search(r"#pragma omp simd\n\s*for \(int c1 = ", body)
    assert re.search(r"#pragma GCC ivdep\n\s*for \(int c2 = ", body)


REDUCTION = r"""#include <stdio.h>
#define N 100
static double x[N];
int main(void) {
  int i;
  double sum = 0.0;
  for (i = 0; i < N; i++) x[i] = i % 9;
#pragma scop
  for (i = 0; i < N; i++)
    sum += x[i] * x[i];
#pragma endscop
  printf("%.17g\n", sum);
  return 0;
}
"""


def test_parallel_mark_with_clauses(tmp_path):
    # (the front end's scop: code generation checks the mark's clause against the
    # SCoP's variables and accesses, which a hand-made scop lacks)
    from polysched.scop import extract
    [scop] = extract(REDUCTION, filename="test.c")
    sched = scop.schedule.get_root().child(0).insert_mark(isl.Id("parallel reduction(+:sum)")).get_schedule()
    new = check_same_output(scop, sched, tmp_path, flags=("-fopenmp",))
    assert "#pragma omp parallel for reduction(+:sum)" in new


def test_pragma_dropped_on_degenerate_loop(tmp_path):
    """A 'parallel' mark above a band whose loop runs once must not land on an inner
    (sequential) loop: isl removes the degenerate loop and the pragma goes too."""
    scop = skew_scop()
    dom = scop.domain
    sched = isl.Schedule.from_domain(dom)
    outer = isl.MultiUnionPwAff.from_union_map(isl.UnionMap("[N, M] -> { S0[i, j] -> [0] }").intersect_domain(dom))
    inner = isl.MultiUnionPwAff.from_union_map(isl.UnionMap("[N, M] -> { S0[i, j] -> [i, j] }").intersect_domain(dom))
    sched = sched.insert_partial_schedule(inner).insert_partial_schedule(outer)
    sched = sched.get_root().child(0).insert_mark(isl.Id("parallel")).get_schedule()
    new = check_same_output(scop, sched, tmp_path, flags=("-fopenmp",))
    assert "#pragma omp" not in new
    assert "'parallel' dropped" in new


# -- (4) name clashes -----------------------------------------------------------------

CLASH = r"""#include <stdio.h>
#define N 10
static int c0[N][N];
int polysched_min = 3, polysched_floord = 1;
int main(void) {
  int c1, c2, t0 = 2;
  for (c1 = 0; c1 < N; c1++) for (c2 = 0; c2 < N; c2++) c0[c1][c2] = c1 * c2;
#pragma scop
  for (c1 = 0; c1 < N; c1++)
    for (c2 = 0; c2 < N; c2++)
      c0[c1][c2] = c0[c1][c2] + t0 * c1 - c2 + polysched_min;
#pragma endscop
  for (c1 = 0; c1 < N; c1++) for (c2 = 0; c2 < N; c2++) printf("%d\n", c0[c1][c2]);
  return polysched_floord - 1;
}
"""


def test_generated_names_avoid_user_identifiers(tmp_path):
    scop = make_scop(
        CLASH, ["N"], "[N] -> { : N >= 1 }",
        [("S0", ["c1", "c2"], "[N] -> { S0[c1, c2] : 0 <= c1 < N and 0 <= c2 < N }",
          "c0[c1][c2] = c0[c1][c2] + t0 * c1 - c2 + polysched_min;")],
        "[N] -> { S0[c1, c2] -> [c1, c2] }",
    )
    band = scop.schedule.get_root().child(0)
    sched = tile_band(band, [3, 4]).get_schedule()  # tiling needs min(): helper must not clash
    new = check_same_output(scop, sched, tmp_path)
    body = region(new)
    assert "int c0" not in body and "int c1" not in body and "int t0" not in body
    assert "#define polysched_min_1(" in body


# -- (5) splicing -----------------------------------------------------------------------

TWO_SCOPS = r"""#include <stdio.h>
/* header comment: #pragma scop is only a region marker */
#define N 8
static double a[N], b[N];
int main(void) {
  int i;
  for (i = 0; i < N; i++) a[i] = i;
  #pragma scop
  for (i = 0; i < N; i++)
    b[i] = a[i] * 2;
  #pragma endscop
  printf("mid\n");
#pragma scop
  for (i = 1; i < N; i++)
    a[i] = a[i - 1] + b[i];
#pragma endscop
  for (i = 0; i < N; i++) printf("%g %g\n", a[i], b[i]);
  return 0;
}
"""


def two_scops() -> list[Scop]:
    first = make_scop(TWO_SCOPS, ["N"], "[N] -> { : N >= 1 }",
                      [("S0", ["i"], "[N] -> { S0[i] : 0 <= i < N }", "b[i] = a[i] * 2;")],
                      "[N] -> { S0[i] -> [i] }", occurrence=0)
    second = make_scop(TWO_SCOPS, ["N"], "[N] -> { : N >= 1 }",
                       [("S0", ["i"], "[N] -> { S0[i] : 1 <= i < N }", "a[i] = a[i - 1] + b[i];")],
                       "[N] -> { S0[i] -> [i] }", occurrence=1)
    return [first, second]


def test_splice_keeps_everything_outside_regions_byte_identical(tmp_path):
    scops = two_scops()
    reversed_first = schedule_with(scops[0], "[N] -> { S0[i] -> [-i] }")
    new = emit_file(scops, [reversed_first, None])
    src = TWO_SCOPS
    a0, b0, a1, b1 = scops[0].region_start, scops[0].region_end, scops[1].region_start, scops[1].region_end
    assert new.startswith(src[:a0])
    assert new.endswith(src[b1:])
    middle = src[b0:a1]
    assert middle in new and new.index(middle) > a0
    assert "  #pragma scop\n  if (N >= 1 && N <= 67108864) {\n    for (int c0 = " in new  # the region keeps its indentation
    # the original as the fallback, between the lines that find it again (test_reoptimize.py)
    assert re.search(re.escape("  } else {\n  /* polysched: the original code, run when the check fails (")
                     + "[0-9a-f]{16}" + re.escape(") */\n" + src[a0:b0] + "  /* polysched: end of the original code */\n  }\n"),
                     new)
    assert compile_and_run(new, tmp_path, "new") == compile_and_run(src, tmp_path, "orig")
    # identity on every region, given explicitly as texts, in any order
    texts = [generate(s) for s in scops]
    assert splice(list(reversed(scops)), list(reversed(texts))) == emit_file(scops)


def test_splice_rejects_mismatched_input():
    scops = two_scops()
    with pytest.raises(ValueError):
        splice(scops, ["only one"])


# -- (6) exact integer division and min/max for negative values ----------------------------

def test_helper_macros_exact_for_negative_operands(tmp_path):
    helpers = Helpers(NameAllocator(set()))
    floord, mn, mx = helpers.name("floord"), helpers.name("min"), helpers.name("max")
    prog = "#include <stdio.h>\n" + "\n".join(helpers.definitions()) + r"""
int main(void) {
  for (int n = -50; n <= 50; n++)
    for (int d = -7; d <= 7; d++)
      if (d != 0) printf("%d %d %d %d %d\n", n, d, FLOORD(n, d), MIN(n, d), MAX(n - 1, d * 3));
  return 0;
}
""".replace("FLOORD", floord).replace("MIN", mn).replace("MAX", mx)
    out = compile_and_run(prog, tmp_path, "helpers")
    expected = "".join(f"{n} {d} {n // d} {min(n, d)} {max(n - 1, d * 3)}\n"
                       for n in range(-50, 51) for d in range(-7, 8) if d != 0)
    assert out == expected


NEGATIVE = r"""#include <stdio.h>
#define N 23
static long a[2 * N + 1];
int main(void) {
  int i, j;
  for (i = 0; i <= 2 * N; i++) a[i] = i % 3;
#pragma scop
  for (i = -N; i <= N; i++)
    for (j = -N; j < i - 5; j++)
      a[i + N] = a[i + N] * 3 + a[j + N] + i - 2 * j;
#pragma endscop
  for (i = 0; i <= 2 * N; i++) printf("%ld\n", a[i]);
  return 0;
}
"""


def test_tiling_negative_domain_uses_exact_floor_division(tmp_path):
    scop = make_scop(
        NEGATIVE, ["N"], "[N] -> { : N >= 1 }",
        [("S0", ["i", "j"], "[N] -> { S0[i, j] : -N <= i <= N and -N <= j < i - 5 }",
          "a[i + N] = a[i + N] * 3 + a[j + N] + i - 2 * j;")],
        "[N] -> { S0[i, j] -> [i, j] }",
    )
    # tiles of 4 with a shift of 1 and a skewed second dimension: floord of negative values
    sched = schedule_with(scop, "[N] -> { S0[i, j] -> [floor((i + 1) / 4), floor((i + j) / 3), i, j] }")
    new = check_same_output(scop, sched, tmp_path)
    assert "polysched_floord(" in new


# -- statement body substitution ---------------------------------------------------------

def test_substitution_is_token_level():
    body = 's.i = x[i] + p->i + ii + i2 + f("i", \'i\') /* i */ + M(i) + i;'
    got = substitute(body, {"i": "c0 + 1"})
    assert got == 's.i = x[c0 + 1] + p->i + ii + i2 + f("i", \'i\') /* i */ + M((c0 + 1)) + (c0 + 1);'
    assert substitute("A[i][j] = B[j];", {"i": "c1", "j": "-c0"}) == "A[c1][-c0] = B[-c0];"
    assert substitute("x = 1.0e-5 * i;", {"i": "c0", "e": "zz"}) == "x = 1.0e-5 * c0;"


def test_options_indent_and_iterator_type():
    scop = triangular_scop()
    text = generate(scop, options=EmitOptions(indent="    ", iterator_type="long", versioning=False))
    assert "for (long c0 = 1; c0 < (long)(N); c0 += 1) {\n      for (long c1 = 0; c1 < c0; c1 += 1)\n" in text


def test_partial_schedule_leaf_loops_get_fresh_names(tmp_path):
    """A schedule that does not order every dimension: isl scans the rest with loops of
    its own, which must get clash-free names too (the program uses c1 and c2)."""
    scop = make_scop(
        CLASH, ["N"], "[N] -> { : N >= 1 }",
        [("S0", ["c1", "c2"], "[N] -> { S0[c1, c2] : 0 <= c1 < N and 0 <= c2 < N }",
          "c0[c1][c2] = c0[c1][c2] + t0 * c1 - c2 + polysched_min;")],
        "[N] -> { S0[c1, c2] -> [c1, c2] }",
    )
    sched = schedule_with(scop, "[N] -> { S0[c1, c2] -> [floor(c1 / 3)] }")
    new = check_same_output(scop, sched, tmp_path)
    assert new.count("for (int ") == 3


def test_schedule_over_a_different_domain_is_refused():
    scop = triangular_scop()
    smaller = band_schedule("[N] -> { S0[i, j] : 1 <= i < N and 0 <= j < i - 1 }", "[N] -> { S0[i, j] -> [i, j] }")
    with pytest.raises(ValueError, match="domain"):
        generate(scop, smaller)


def test_substitution_drops_only_redundant_parentheses():
    rep = {"i": "c0 + c1", "j": "c2"}
    add = {"i"}
    cases = {
        "A[i + 1] = B[1 + i];": "A[c0 + c1 + 1] = B[1 + c0 + c1];",
        "A[i - 1] = B[2 - i];": "A[c0 + c1 - 1] = B[2 - (c0 + c1)];",
        "x = i;": "x = c0 + c1;",
        "x = 2 * i;": "x = 2 * (c0 + c1);",
        "x = i * 2;": "x = (c0 + c1) * 2;",
        "x = M(i);": "x = M((c0 + c1));",
        "x = M(a + i + 1);": "x = M(a + c0 + c1 + 1);",
        "x = y * +i + 1;": "x = y * +(c0 + c1) + 1;",
        "x = a ? i : j;": "x = a ? (c0 + c1) : c2;",
        "x += i;": "x += c0 + c1;",
    }
    for body, expected in cases.items():
        assert substitute(body, rep, add) == expected, body
    # without the additive property every non-trivial replacement keeps its parentheses
    assert substitute("A[i + 1] = i;", {"i": "c0 < 3 ? c1 : c2"}) == "A[(c0 < 3 ? c1 : c2) + 1] = (c0 < 3 ? c1 : c2);"


def test_marks_on_the_same_loop_combine(tmp_path):
    """parallel + simd on one loop give 'omp parallel for simd'; GCC pragmas cannot
    follow an OpenMP one, so they are dropped with an explanation."""
    scop = matmul_scop()
    band = scop.schedule.get_root().child(0).band_split(1)  # i | j, k
    node = band.insert_mark(isl.Id("simd")).insert_mark(isl.Id("parallel")).insert_mark(isl.Id("ivdep"))
    new = check_same_output(scop, node.get_schedule(), tmp_path, flags=("-fopenmp",))
    body = region(new)
    assert re.search(r"#pragma omp parallel for simd( if\(.*\))?\n\s*for \(int c0 = ", body)
    assert "ivdep dropped" in body and "#pragma GCC ivdep" not in body


# -- domain lifting (floor-free schedules for isl's AST generator) -------------------------

from polysched.emit_c.lift import _lifting_map, has_integer_division, lift_schedule  # noqa: E402

JACOBI1D = r"""#include <stdio.h>
#ifndef T
#define T 7
#endif
#ifndef N
#define N 41
#endif
static double A[N], B[N];
int main(void) {
  int t, i;
  for (i = 0; i < N; i++) { A[i] = (i * 5 % 7) + 0.25; B[i] = 0; }
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < N - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < N - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
  for (i = 0; i < N; i++) printf("%.17g\n", A[i]);
  return 0;
}
"""


def jacobi1d_scop() -> Scop:
    return make_scop(
        JACOBI1D, ["T", "N"], "[T, N] -> { : T >= 1 and N >= 1 }",
        [("S0", ["t", "i"], "[T, N] -> { S0[t, i] : 0 <= t < T and 0 < i < N - 1 }",
          "B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);"),
         ("S1", ["t", "i"], "[T, N] -> { S1[t, i] : 0 <= t < T and 0 < i < N - 1 }",
          "A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);")],
        "[T, N] -> { S0[t, i] -> [t, 0, i]; S1[t, i] -> [t, 1, i] }",
    )


def wavefront_tiled_jacobi(size: int) -> isl.Schedule:
    """Skew (t, 2t + i), tile by ``size``, wavefront over tiles (T0 + T1, T1), with marks:
    what the tiling stage produces for jacobi-1d (the outer dimension is a sum of floors)."""
    scop = jacobi1d_scop()
    dom = scop.domain
    s0, s1 = "2t + i", "1 + 2t + i"
    bands = [
        f"{{ S0[t, i] -> [floor(t/{size}) + floor(({s0})/{size})]; S1[t, i] -> [floor(t/{size}) + floor(({s1})/{size})] }}",
        f"{{ S0[t, i] -> [floor(({s0})/{size})]; S1[t, i] -> [floor(({s1})/{size})] }}",
        "{ S0[t, i] -> [t]; S1[t, i] -> [t] }",
        f"{{ S0[t, i] -> [{s0}]; S1[t, i] -> [{s1}] }}",
    ]
    sched = isl.Schedule.from_domain(dom)
    leaf = sched.get_root().child(0)
    filters = isl.UnionSetList.alloc(dom.get_ctx(), 2).add(isl.UnionSet("[T, N] -> { S0[t, i] }").intersect(dom))
    filters = filters.add(isl.UnionSet("[T, N] -> { S1[t, i] }").intersect(dom))
    sched = leaf.insert_sequence(filters).get_schedule()
    for band in reversed(bands):
        umap = isl.UnionMap("[T, N] -> " + band).intersect_domain(dom)
        sched = sched.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(umap))
    node = sched.get_root().child(0).child(0).insert_mark(isl.Id("parallel"))  # above the T1 band
    node = node.child(0).child(0).child(0).insert_mark(isl.Id("unroll 4"))
    return node.get_schedule()


@pytest.mark.parametrize("size", [4, 256])
def test_wavefront_over_skewed_tiles(size, tmp_path):
    scop = jacobi1d_scop()
    sched = wavefront_tiled_jacobi(size)
    assert has_integer_division(sched)
    new = check_same_output(scop, sched, tmp_path, flags=("-fopenmp",))
    assert "#pragma omp parallel for" in new and "#pragma GCC unroll 4" in new
    for defines in (["-DT=1", "-DN=3"], ["-DT=13", "-DN=300"]):
        assert compile_and_run(new, tmp_path, "new_d", ["-fopenmp", *defines]) == \
            compile_and_run(scop.source, tmp_path, "orig_d", ["-fopenmp", *defines])


def test_lifting_preserves_the_schedule():
    """isl oracle: { S[i] -> S[i, b] } followed by the lifted schedule is the original
    schedule map, for a wavefront, a tiling with marks and a plain sequence."""
    scop = matmul_scop()
    tiled = tile_band(scop.schedule.get_root().child(0), [4, 5, 3]).insert_mark(isl.Id("parallel")).get_schedule()
    for sched in (wavefront_tiled_jacobi(8), tiled, matvec_scop().schedule):
        lifting, _ = _lifting_map(sched)
        lifted = lift_schedule(sched)
        assert lifting.apply_range(lifted.get_map()).is_equal(sched.get_map())
        assert not has_integer_division(lifted)


def test_and_inside_or_is_parenthesised():
    """``a && b || c`` is C, but gcc -Wall warns (-Wparentheses) on generated guards."""
    from polysched.emit_c.expr import ExprPrinter, Helpers
    from polysched.emit_c.names import NameAllocator
    build = isl.AstBuild.from_context(isl.Set("[n, m] -> { : }"))
    expr = build.expr_from_set(isl.Set("[n, m] -> { : (n >= 2 and m >= 3) or n <= -1 }"))
    text = ExprPrinter(Helpers(NameAllocator(set())))(expr)
    assert "||" in text and re.fullmatch(r"\([^()|]*&&[^()|]*\) \|\| .*|.* \|\| \([^()|]*&&[^()|]*\)", text), text
