"""Arrays declared inside a region (``double t[N];`` in a loop body): the model has
them as arrays of the region (``origin == "region"``), the emitted region declares each
once, and a parallel loop gives each thread its own copy (``private``) exactly when no
value crosses its iterations. Every optimized program is compiled and run against the
original at sizes 0, 1 and more, negative too, at 1 and 2 threads."""
from __future__ import annotations

import islpy as isl
import pytest

from compiled_runs import outputs_of
from polysched.bench import compile_c, run_binary
from polysched.pipeline import OptimizeOptions, optimize
from polysched.program import Program
from polysched.scop import ScopError, extract

# a temporary row per iteration of i (fresh in the source, one array once optimized),
# a VLA of the run-time size n, and a 2-d block of constant size
ROWS = r"""#include <stdio.h>
#include <stdlib.h>
#define N 48
typedef int quad[4];
double A[N][N], B[N], C[N][4];

static void kernel(int n)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double tmprow[N] __attribute__((aligned(64)));
    for (int j = 0; j < n; j++)
      tmprow[j] = A[i][j] * 2.0 + 1.0;
    for (int j = 0; j < n; j++)
      B[i] += tmprow[j] * tmprow[n - 1 - j];
  }
  for (int i = 0; i < n; i++) {
    double row[n];
    quad blk[2];
    for (int j = 0; j < n; j++)
      row[j] = A[j][i] - B[j];
    for (int k = 0; k < 4; k++) {
      blk[0][k] = i + k;
      blk[1][k] = i * k;
    }
    for (int k = 0; k < 4; k++)
      C[i][k] = row[n - 1 - i] * k + blk[0][k] * blk[1][3 - k];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : N;
  if (n > N) n = N;
  for (int i = 0; i < N; i++) {
    B[i] = i % 5;
    for (int j = 0; j < N; j++) A[i][j] = (i * 7 + j * 3) % 11 - 5.0;
  }
  kernel(n);
  for (int i = 0; i < N; i++)
    printf("%.17g %.17g %.17g\n", B[i], C[i][0], C[i][3]);
  return 0;
}
"""

SIZES = [(-3,), (0,), (1,), (2,), (7,), (48,)]


def optimized(tmp_path, source: str, **flags) -> str:
    path = tmp_path / "source.c"
    path.write_text(source)
    return optimize(path, OptimizeOptions.from_flags(**flags)).text


def test_a_region_array_is_an_array_of_the_region_with_its_extents():
    [scop] = extract(ROWS, filename="rows.c")
    tmprow = scop.arrays["tmprow"]
    assert (tmprow.origin, tmprow.dims, tmprow.element_type) == ("region", ["N"], "double")
    # (an array typedef's extents follow the declarator's)
    assert scop.arrays["row"].dims == ["n"] and scop.arrays["blk"].dims == ["2", "4"]
    assert scop.arrays["blk"].element_type == "int"
    writes = [a for s in scop.statements for a in s.accesses if a.array == "tmprow" and a.kind == "write"]
    assert len(writes) == 1
    expected = isl.Map("[n] -> { S0[i, j] -> tmprow[j] : 0 <= i < n and 0 <= j < n }")
    assert writes[0].relation.is_equal(expected.set_tuple_name(isl.dim_type.in_, writes[0].relation
                                                                .get_tuple_name(isl.dim_type.in_)))


@pytest.mark.parametrize("flags", [
    dict(scheduler="pluto", tile=True, parallel=True),
    dict(scheduler="isl", tile=True, parallel=True),
    dict(scheduler="pluto", fuse="max", tile=True, parallel=True),
    dict(scheduler="pluto", fuse="no", parallel=True),
])
def test_region_arrays_private_to_the_parallel_loop_compute_what_the_original_does(tmp_path, flags):
    text = optimized(tmp_path, ROWS, **flags)
    # declared once for the region, the variable length kept positive
    assert "double tmprow[(N) > 0 ? (N) : 1];" in text
    assert "double row[(n) > 0 ? (n) : 1];" in text
    assert "#pragma omp parallel for private(tmprow)" in text
    assert "sizeof(tmprow) <= 65536" in text
    assert outputs_of(text, tmp_path, "opt", SIZES) == outputs_of(ROWS, tmp_path, "orig", SIZES)


CARRIED = r"""#include <stdio.h>
#define N 32
double A[N][N], B[N][N];

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (i * 5 + j) % 7;
#pragma scop
  {
    int n = N;
    double carry[n];
    for (int j = 0; j < N; j++)
      carry[j] = 0.0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        carry[j] = carry[j] * 0.5 + A[i][j];
        B[i][j] = carry[j];
      }
  }
#pragma endscop
  for (int i = 0; i < N; i++) printf("%.17g %.17g\n", B[i][0], B[i][N - 1]);
  return 0;
}
"""


def test_a_region_array_whose_values_cross_iterations_is_not_private(tmp_path):
    """``carry`` is declared in the region but carries values down the i loop: the j
    loop may run in parallel (each j its own element), the i loop may not, and
    no thread gets its own copy."""
    text = optimized(tmp_path, CARRIED, scheduler="pluto", tile=True, parallel=True)
    assert "private(carry)" not in text
    assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(CARRIED, tmp_path, "orig", [()])


BIG = r"""#include <stdio.h>
#define N 64
#define M 100000
double A[N], B[N];

int main(void)
{
  for (int i = 0; i < N; i++) A[i] = i;
#pragma scop
  for (int i = 0; i < N; i++) {
    double big[M];
    for (int j = 0; j < M; j++)
      big[j] = A[i] + j;
    for (int j = 0; j < M; j++)
      B[i] += big[j];
  }
#pragma endscop
  for (int i = 0; i < N; i++) printf("%.17g\n", B[i]);
  return 0;
}
"""


def test_a_private_array_larger_than_a_thread_stack_runs_on_one_thread(tmp_path):
    """800 kB per copy: with worker threads of 256 kB stacks, the OpenMP ``if`` on its
    size keeps the loop on the main thread (whose stack held the source's array), where
    a private copy per worker would overflow."""
    text = optimized(tmp_path, BIG, scheduler="pluto", tile=True, parallel=True)
    assert "private(big)" in text and "sizeof(big) <= 65536" in text
    expected = outputs_of(BIG, tmp_path, "orig", [()], threads=(1,))[0]
    path = tmp_path / "opt.c"
    path.write_text(text)
    assert compile_c(path, tmp_path / "opt", cflags=["-O1", "-ffp-contract=off"], openmp=True).ok
    run = run_binary(tmp_path / "opt", threads=2, env={"OMP_STACKSIZE": "256K"}, timeout=60)
    assert run.ok, run.reason
    assert run.stdout == expected


def test_a_hand_placed_private_region_array_is_checked_against_its_dataflow():
    """``Program.parallel`` derives ``private(tmprow)`` for the i loop of ROWS; on CARRIED's
    i loop the same clause is refused: carry's values cross its iterations."""
    program = Program.from_source(ROWS, filename="rows.c")
    stmt = next(s.name for s in program.scop.statements if s.body.startswith("tmprow["))
    marked = program.parallel(stmt, 0)
    assert "private(tmprow)" in marked.c_code()
    carried = Program.from_source(CARRIED, filename="carry.c")
    update = next(s.name for s in carried.scop.statements if s.body.startswith("carry[j] = carry"))
    with pytest.raises(Exception) as info:
        carried.parallel(update, 0, private=["carry"])
    assert "carry" in str(info.value)


@pytest.mark.parametrize("body, fragment", [
    ("for (int i = 0; i < N; i++) {\n    double t[i + 1];\n    t[0] = 1.0;\n    B[i] = t[0];\n  }",
     "depends on a loop iterator"),
    ("for (int i = 0; i < N; i++) {\n    double t[2] = {{1}, 2};\n    t[i % 2] = 1.0;\n"
     "    B[i] = t[1];\n  }", "braces around a single value"),
    ("for (int i = 0; i < N; i++) {\n    double t[4] = {[2] = 1.0};\n    t[0] = 1.0;\n    B[i] = t[2];\n  }",
     "designators"),
    ("for (int i = 0; i < N; i++) {\n    double t[2] = {A[0], 1.0};\n    B[i] = t[1];\n  }",
     "not made of constants"),
    ("m = 3;\n  for (int i = 0; i < N; i++) {\n    double t[m];\n    t[0] = 1.0;\n    B[i] = t[0];\n  }",
     "the size 'm'"),
    ("for (int i = 0; i < N; i++) {\n    double *p;\n    B[i] = 0;\n  }", "not pointers"),
    # (read through as row[0], it is A[i]: tests/test_row_pointer_locals.py)
    ("for (int i = 0; i < N; i++) {\n    double *row = &A[i];\n    B[i] = *row;\n  }", "not pointers"),
    ("for (int i = 0; i < N; i++) {\n    volatile double t[2];\n    t[0] = A[i];\n    B[i] = t[0];\n  }",
     "'volatile' declaration of 't'"),
    ("for (int i = 0; i < N; i++) {\n    volatile double s = A[i];\n    B[i] = s;\n  }",
     "'volatile' declaration of 's'"),
])
def test_region_arrays_the_model_cannot_declare_once_are_refused(body, fragment):
    source = f"""#define N 8
double A[N], B[N];
int m;
void f(void)
{{
#pragma scop
  {body}
#pragma endscop
}}
"""
    with pytest.raises(ScopError) as info:
        extract(source, filename="bad.c")
    assert fragment in info.value.message
    assert info.value.line >= 7


TABLES = r"""#include <stdio.h>
#define N 40
enum { HALF = 2 };
double A[N][N], B[N][N];
int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (i * 3 + j) % 5;
#pragma scop
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 2; j++) {
      static const int sign[4] = {0, 1, -HALF / 2, 'a' - 96};
      const double w[] = {0.25, 0.5, 0.125, 1.0 / 8};
      double s = 0.0;
      for (int k = 0; k < (int)(sizeof(w) / sizeof(w[0])); k++)
        s += w[k] * A[i + 1][j + k - 1] * sign[k];
      B[i][j] = s;
    }
#pragma endscop
  for (int i = 0; i < N; i++) printf("%.17g %.17g\n", B[i][1], B[i][N - 3]);
  return 0;
}
"""


def test_constant_tables_declared_in_the_region_are_declared_once_initialised(tmp_path):
    """``static const int sign[4] = {...}`` and ``const double w[] = {...}`` (its size the
    count of its initialiser, which ``sizeof`` reads) in a loop body: read-only tables
    of the region, declared once with their initialiser; the stencil around them is
    tiled and parallel."""
    text = optimized(tmp_path, TABLES, scheduler="pluto", tile=True, parallel=True)
    assert "int sign[(4) > 0 ? (4) : 1] = {0, 1, -HALF / 2, 'a' - 96};" in text
    assert "double w[(4) > 0 ? (4) : 1] = {0.25, 0.5, 0.125, 1.0 / 8};" in text
    assert "#pragma omp parallel for" in text
    assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(TABLES, tmp_path, "orig", [()])


ACCUMULATORS = r"""#include <stdio.h>
#include <stdlib.h>
#define N 24
double A[N][N], B[N][N + 4], C[N][N + 4];
int H[N][2][3];

static void kernel(int n)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j += 4) {
      double acc[4] = {0.0};
      int hist[2][3] = {0};
      double bias[4] = {1.0, 2.0};
      float one[2] = {1.5f, -2, 7};
      float blk[2][2] = {{0.0f}};
      int w2[2][3] = {{1, 2}, {3}};
      int e2[2][2] = {1, 2, 3};
      for (int k = 0; k < n; k++) {
        acc[0] += A[i][k] * B[k][j];
        acc[1] += A[i][k] * B[k][j + 1];
        acc[2] += A[i][k] * B[k][j + 2];
        acc[3] += A[i][k] * B[k][j + 3];
        hist[k % 2][(k + j) % 3] += 1;
        blk[k % 2][1] += A[i][k];
        w2[1][k % 3] += e2[k % 2][1];
      }
      e2[1][0] += w2[0][1];
      bias[3] += hist[1][2] + one[1];
      one[0] = 0;
      for (int jj = 0; jj < 4; jj++)
        C[i][j + jj] = acc[jj] + bias[jj] + hist[jj % 2][jj % 3] + one[jj % 2] + blk[jj % 2][jj / 2]
                       + w2[jj % 2][jj % 3] + e2[jj / 2][jj % 2];
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
          H[i][a][b] += hist[a][b];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : N;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N + 4; j++) {
      B[i][j] = (i + 2 * j) % 7 - 3;
      if (j < N) A[i][j] = (i * 3 + j) % 5;
    }
  kernel(n);
  kernel(n);
  for (int i = 0; i < N; i++)
    printf("%.17g %.17g %d %d\n", C[i][0], C[i][N - 1], H[i][0][0], H[i][1][2]);
  return 0;
}
"""


@pytest.mark.parametrize("flags", [
    dict(scheduler="pluto", tile=True, parallel=True),
    dict(scheduler="isl", tile=True, parallel=True),
    dict(scheduler="pluto", fuse="max", tile=True, parallel=True),
])
def test_initialised_region_arrays_the_loops_write_are_initialised_at_each_declaration(tmp_path, flags):
    """``double acc[4] = {0.0};``, ``int hist[2][3] = {0};``, ``double bias[4] = {1.0,
    2.0};``, nested lists (``{{0.0f}}``, ``{{1, 2}, {3}}``), a list whose inner braces are
    elided (``int e2[2][2] = {1, 2, 3};``) and a list longer than its array (gcc drops
    the excess) in the body of a blocked matmul: each (i, j) iteration starts from those
    values, each thread with its own copies; outputs equal at sizes from -1 to 24, at 1
    and 2 threads."""
    text = optimized(tmp_path, ACCUMULATORS, **flags)
    assert "double acc[(4) > 0 ? (4) : 1];" in text and "bias[1] = 2.0;" in text
    assert "private(acc, hist, bias, one, blk, w2, e2)" in text
    assert "w2[1][0] = 3;" in text and "e2[1][0] = 3;" in text
    sizes = [(-1,), (0,), (1,), (5,), (13,), (24,)]
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(ACCUMULATORS, tmp_path, "orig", sizes)


TWO_BIG = r"""#include <stdio.h>
#define N 8
#define M 600000
double A[N], B[N], C[N];
int main(void)
{
  for (int i = 0; i < N; i++) A[i] = i * 0.5 + 1;
#pragma scop
  for (int i = 0; i < N; i++) {
    double big[M];
    for (int j = 0; j < M; j++)
      big[j] = A[i] * (j % 5);
    B[i] = 0;
    for (int j = 0; j < M; j++)
      B[i] += big[M - 1 - j];
  }
  for (int i = 0; i < N; i++) {
    double huge[M];
    for (int j = 0; j < M; j++)
      huge[j] = B[i] + (j % 3);
    C[i] = 0;
    for (int j = 0; j < M; j++)
      C[i] += huge[M - 1 - j];
  }
#pragma endscop
  for (int i = 0; i < N; i++) printf("%.17g %.17g\n", B[i], C[i]);
  return 0;
}
"""


def test_region_arrays_too_large_to_declare_together_run_the_original(tmp_path):
    """Two 4.8 MB arrays in blocks one after the other share the source's stack space;
    declared together for the region they would take 9.6 MB, past an 8 MB stack: the
    region's check (their total at most 1 MiB) runs the original instead."""
    text = optimized(tmp_path, TWO_BIG, scheduler="pluto", tile=True, parallel=True)
    assert "sizeof(double[(M) > 0 ? (M) : 1]) + sizeof(double[(M) > 0 ? (M) : 1]) <= 1048576ULL" in text
    assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(TWO_BIG, tmp_path, "orig", [()])


RENAMED = r"""#define N 16
double A[N][N], B[N][N];
int tmp;            /* another tmp: the block's is renamed in the model */
void kernel(int n)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    double tmp[4];
    for (j = 0; j < 4; j++)
      tmp[j] = A[i][j] * 2.0;
    for (j = 0; j < n; j++)
      B[i][j] = tmp[j % 4] + A[i][j];
  }
#pragma endscop
}
"""


def test_a_renamed_region_array_is_named_private_by_its_source_name():
    """The model renames the block's ``tmp`` (``tmp_1``); ``private=["tmp"]`` means it."""
    program = Program.from_source(RENAMED, filename="renamed.c")
    [model] = [a.name for a in program.scop.arrays.values() if a.origin == "region"]
    assert model != "tmp" and program.scop.arrays[model].declared_as == "tmp"
    marked = program.parallel("S0", 0, private=["tmp"])
    assert f"private({model})" in marked.c_code()
    assert marked.trace.calls() == [f"parallel(stmt='S0', depth=0, private=['{model}'])"]
