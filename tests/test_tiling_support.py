"""Shared programs and helpers of the tiling tests (no tests here).

Every program is a whole C file: a kernel with one ``#pragma scop`` region, a ``main``
that initialises the arrays deterministically, calls the kernel and prints every
output element. ``run_c`` compiles and runs one file (gcc -O2 -fopenmp, 2 threads).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import islpy as isl

from polysched.scop import extract

GEMM = r"""
#include <stdio.h>
#ifndef N
#define N 70
#endif
double A[N][N], B[N][N], C[N][N];
void kernel(double alpha, double beta) {
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (k = 0; k < N; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * j + 1) % N) / N;
      B[i][j] = (double)((i * (j + 1) + 2) % N) / N;
      C[i][j] = (double)((i + j) % 7) / 7;
    }
  kernel(1.5, 1.2);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.10g\n", C[i][j]);
  return 0;
}
"""

# a 2-d Jacobi step: two statements per time step
JACOBI2D = r"""
#include <stdio.h>
#define T 6
#define N 40
double A[N][N], B[N][N];
void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = ((double)i * (j + 2) + 2) / N;
      B[i][j] = ((double)i * (j + 3) + 3) / N;
    }
  kernel();
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.10g %.10g\n", A[i][j], B[i][j]);
  return 0;
}
"""

# Gauss-Seidel: in place, needs skewing; no loop of the tiled band is parallel
SEIDEL = r"""
#include <stdio.h>
#define T 5
#define N 30
double A[N][N];
void kernel(void) {
  int t, i, j;
#pragma scop
  for (t = 0; t < T; t++)
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = ((double)i * (j + 2) + 2) / N;
  kernel();
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.10g\n", A[i][j]);
  return 0;
}
"""

# a scalar sum over a 2-d array: parallel only with reduction(+:s)
REDUCTION = r"""
#include <stdio.h>
#define N 300
#define M 200
double A[N][M];
double s;
void kernel(void) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      s += A[i][j] * A[i][j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11) / 11;
  s = 0.5;
  kernel();
  printf("%.10g\n", s);
  return 0;
}
"""

# t is a temporary, dead after the scop: private(t)
PRIVATE = r"""
#include <stdio.h>
#define N 500
double A[N], B[N];
void kernel(void) {
  int i;
  double t;
#pragma scop
  for (i = 0; i < N; i++) {
    t = A[i] * 2.0;
    B[i] = t + 1.0;
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++) A[i] = (double)(i % 13) / 13;
  kernel();
  for (int i = 0; i < N; i++) printf("%.10g\n", B[i]);
  return 0;
}
"""

# a running sum read by another statement: not a reduction, not privatisable
PREFIX_SUM = r"""
#include <stdio.h>
#define N 500
double A[N], B[N];
void kernel(void) {
  int i;
  double t;
#pragma scop
  for (i = 0; i < N; i++) {
    t = t + A[i];
    B[i] = t;
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++) A[i] = (double)(i % 13) / 13;
  kernel();
  for (int i = 0; i < N; i++) printf("%.10g\n", B[i]);
  return 0;
}
"""

# s is reset, accumulated and stored per row: private(s) on the i loop
ROWSUM = r"""
#include <stdio.h>
#define N 300
#define M 200
double A[N][M], R[N];
void kernel(void) {
  int i, j;
  double s;
#pragma scop
  for (i = 0; i < N; i++) {
    s = 0.0;
    for (j = 0; j < M; j++)
      s += A[i][j];
    R[i] = s;
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      A[i][j] = (double)((i * 5 + j * 3) % 17) / 17;
  kernel();
  for (int i = 0; i < N; i++) printf("%.10g\n", R[i]);
  return 0;
}
"""

# a sequential time loop around a parallel loop of few iterations
SHORT_INNER = r"""
#include <stdio.h>
#define T 100
#define N 2
double A[T][N];
void kernel(void) {
  int t, i;
#pragma scop
  for (t = 1; t < T; t++)
    for (i = 0; i < N; i++)
      A[t][i] = A[t - 1][i] * 0.5 + 1.0;
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++) A[0][i] = i;
  kernel();
  for (int i = 0; i < N; i++) printf("%.10g\n", A[T - 1][i]);
  return 0;
}
"""

# parametric sizes (function parameters): n, m may be smaller than a tile
PARAMETRIC = r"""
#include <stdio.h>
#include <stdlib.h>
void kernel(int n, int m, double A[40][50], double B[40][50]) {
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 1; j < m; j++)
      A[i][j] = A[i - 1][j] + A[i][j - 1] + B[i][j];
#pragma endscop
}
int main(int argc, char **argv) {
  static double A[40][50], B[40][50];
  int n = argc > 1 ? atoi(argv[1]) : 40, m = argc > 2 ? atoi(argv[2]) : 50;
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 50; j++) {
      A[i][j] = (double)((i + 2 * j) % 5) / 5;
      B[i][j] = (double)((3 * i + j) % 7) / 7;
    }
  kernel(n, m, A, B);
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 50; j++)
      printf("%.10g\n", A[i][j]);
  return 0;
}
"""


def scop_of(source: str, name: str = "kernel.c"):
    [scop] = extract(source, filename=name)
    return scop


class IslDeps:
    """Memory dependences computed with isl directly (no polysched.dependence)."""

    def __init__(self, scop):
        reads = scop.reads
        writes = scop.writes.union(scop.may_writes)

        def flow(sinks, sources):
            info = isl.UnionAccessInfo.from_sink(sinks).set_may_source(sources)
            return info.set_schedule(scop.schedule).compute_flow().get_may_dependence()

        self.raw = flow(reads, writes)
        self.war = flow(writes, reads)
        self.waw = flow(writes, writes)

    @property
    def validity(self):
        return self.raw.union(self.war).union(self.waw)


def isl_schedule(scop, deps) -> isl.Schedule:
    """isl's own scheduler (bands permutable / coincident like the Pluto scheduler's)."""
    validity = deps.validity
    constraints = isl.ScheduleConstraints.on_domain(scop.domain).set_context(scop.context)
    constraints = constraints.set_validity(validity).set_proximity(validity) \
        .set_coincidence(validity)
    return constraints.compute_schedule()


def legal(schedule: isl.Schedule, validity: isl.UnionMap) -> bool:
    """Independent of polysched.tiling: every dependence source runs strictly before
    its sink in the lexicographic order of the flat schedule map."""
    sched = schedule.get_map().intersect_domain(schedule.get_domain())
    return validity.is_subset(sched.lex_lt_union_map(sched))


def marks(schedule: isl.Schedule) -> list[str]:
    """Every mark name in the tree, top-down."""
    found = []

    def visit(node):
        if node.get_type() == isl.schedule_node_type.mark:
            found.append(node.mark_get_id().get_name())
        for i in range(node.n_children()):
            visit(node.child(i))

    visit(schedule.get_root())
    return found


def bands(schedule: isl.Schedule) -> list[isl.ScheduleNode]:
    found = []

    def visit(node):
        if node.get_type() == isl.schedule_node_type.band:
            found.append(node)
        for i in range(node.n_children()):
            visit(node.child(i))

    visit(schedule.get_root())
    return found


def have_cc() -> bool:
    return shutil.which("gcc") is not None


def run_c(source: str, args: tuple[str, ...] = (), threads: int = 2) -> str:
    """Compile ``source`` with gcc -O2 -fopenmp and return what it prints."""
    with tempfile.TemporaryDirectory(prefix="polysched-tiling-") as tmp:
        c_file, exe = Path(tmp) / "prog.c", Path(tmp) / "prog"
        c_file.write_text(source)
        subprocess.run(["gcc", "-O2", "-fopenmp", "-o", str(exe), str(c_file), "-lm"],
                       check=True, capture_output=True, text=True, timeout=120)
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        done = subprocess.run([str(exe), *args], check=True, capture_output=True, text=True,
                              timeout=120, env=env)
        return done.stdout


def same_numbers(expected: str, actual: str, rtol: float = 1e-9) -> bool:
    a, b = expected.split(), actual.split()
    if len(a) != len(b) or not a:
        return False
    return all(abs(float(x) - float(y)) <= rtol * max(1.0, abs(float(x))) for x, y in zip(a, b))
