"""A parallel loop forks only when a fork starts a team of threads and, where its work
is known only at run time, when that work pays: ``if (polysched_team && W >=
POLYSCHED_PARALLEL_MIN_WORK * F) { #pragma omp parallel for; loop } else { loop }``, W
the statement instances under the loop (bounding boxes of the statements' domains), F
the iterations of the loops around it (one fork/join each). The tests compile the
outputs with the threshold at its default (small runs stay sequential) and at 0
(always fork) and compare with the original at 1 and 2 threads."""
from __future__ import annotations

import re

import polysched as ps

TWO_NESTS = """#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double A[n][m], double s[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = A[i][j] * 0.5 + s[i];
  for (i = 1; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = A[i - 1][j] + A[i][j];
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 37, m = argc > 2 ? atoi(argv[2]) : 23;
  double (*A)[m] = malloc(sizeof(double) * n * m);
  double *s = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) { s[i] = i % 7; for (int j = 0; j < m; j++) A[i][j] = (i * 3 + j) % 11; }
  kernel(n, m, A, s);
  for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) printf("%.17g\\n", A[i][j]);
  return 0;
}
"""

TIME_LOOP = """#include <stdio.h>
#define T 20
#define N 300
double A[N], B[T][N];
static void kernel(void)
{
  int t, i;
#pragma scop
  for (t = 0; t < T; t++)
    for (i = 0; i < N; i++)
      A[i] = A[i] * 0.5 + B[t][i];
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) { A[i] = i % 5; for (int t = 0; t < T; t++) B[t][i] = (t + i) % 3; }
  kernel();
  for (int i = 0; i < N; i++) printf("%.17g\\n", A[i]);
  return 0;
}
"""


def _pragma(code: str) -> str:
    return next(line.strip() for line in code.splitlines() if "omp parallel for" in line)


def _fork_test(code: str) -> tuple[str, list[str]]:
    """(the work test under which the first parallel loop of ``code`` forks, "" for
    none, the lines of that loop): the ``if (polysched_team && work) {`` before it,
    whose ``else`` runs the same loop in place, without the pragma (the same lines, one
    per line of the parallel loop)."""
    lines = code.splitlines()
    at = next(k for k, line in enumerate(lines) if "omp parallel for" in line)
    assert " if(" not in lines[at], lines[at]                # never OpenMP's if clause
    pad = len(lines[at]) - len(lines[at].lstrip())
    end = next(k for k in range(at + 2, len(lines)) if len(lines[k]) - len(lines[k].lstrip()) < pad)
    loop = lines[at + 1:end]
    test = re.fullmatch(r"\s*if \(polysched_team(?: && (.*))?\) \{", lines[at - 1])
    assert test, lines[at - 1: at + 2]
    assert lines[end].strip() == "} else {", lines[end]
    assert lines[end + 1:end + 1 + len(loop)] == loop      # the same loop, in place
    assert lines[end + 1 + len(loop)].strip() == "}"
    return test.group(1) or "", loop


def test_run_time_sizes_get_a_fork_test_with_the_work_of_the_loop():
    # (the parallel j loop marked by hand: auto_tile(tile=False, parallel=True) now keeps
    # j, the stride-1 loop, innermost and marks no loop, tiling._Policy._keeps_innermost)
    p = ps.Program.from_source(TWO_NESTS).auto_schedule("pluto").parallel("S0", 0)
    condition, _ = _fork_test(p.c_code())
    # both nests fused under the parallel j loop: n*m + (n-1)*m instances, no loop around
    assert condition == "(double)(n) * (double)(m) + (double)(n - 1) * (double)(m) " \
                        ">= POLYSCHED_PARALLEL_MIN_WORK", condition
    assert "#ifndef POLYSCHED_PARALLEL_MIN_WORK" in p.c_code()
    for defines in ({}, {"POLYSCHED_PARALLEL_MIN_WORK": "0"}, {"POLYSCHED_PARALLEL_MIN_WORK": "1e12"}):
        result = p.verify(dataset=None, defines=defines)
        assert result.ok, result


def test_an_inner_parallel_loop_counts_one_fork_per_outer_iteration():
    """t carries the updates of A, i is parallel inside it: T forks of N instances."""
    p = ps.Program.from_source(TIME_LOOP).parallel("S0", 1)
    condition, loop = _fork_test(p.c_code())
    # W = T * N instances, F = T outer iterations: the macro sizes stay symbolic (the
    # compiler folds them), per fork W / F = N
    assert condition == "(double)(T) * (double)(N) >= POLYSCHED_PARALLEL_MIN_WORK * ((double)(T))", condition
    assert loop[0].strip().startswith("for (int c1 = 0; c1 < N; c1 += 1)"), loop
    # the threshold at 0: the parallel loop; above the work: the loop in place
    for defines in ({}, {"POLYSCHED_PARALLEL_MIN_WORK": "0"}, {"POLYSCHED_PARALLEL_MIN_WORK": "1e12"}):
        result = p.verify(dataset=None, defines=defines)
        assert result.ok, result


def test_literal_sizes_need_no_run_time_decision():
    source = TIME_LOOP.replace("#define T 20\n#define N 300\n", "").replace("T", "20").replace("N", "300")
    p = ps.Program.from_source(source).parallel("S0", 1)
    # literal sizes and global arrays: nothing to check at run time, so no original code
    # to fall back on, and no test of the team either (an output without a fallback is
    # read again as it stands: a copy of each parallel loop would be read as more code)
    code = p.c_code()
    assert "/* polysched: the original code" not in code and "polysched_team" not in code
    assert "POLYSCHED_PARALLEL_MIN_WORK" not in code and " if(" not in _pragma(code)


DOWNWARD_TIME = r"""
#include <stdio.h>
double A[64], B[64];
static void kernel(int tsteps, int n) {
#pragma scop
  for (int t = tsteps - 1; t >= 0; t--) {
    for (int i = 1; i < n - 1; i++)
      B[i] = A[i - 1] + A[i + 1];
    for (int i = 1; i < n - 1; i++)
      A[i] = B[i - 1] + B[i + 1];
  }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 64; i++) { A[i] = (i * 7 % 13) / 3.0 + 0.1; B[i] = (i * 3 % 11) / 7.0; }
  kernel(7, 61);
  for (int i = 0; i < 64; i += 5) printf("%.17g %.17g\n", A[i], B[i]);
  return 0;
}
"""


def test_the_work_estimate_of_skewed_tiles_does_not_stall_code_generation(tmp_path):
    """helper-30: with the time loop counting down, the tiles' floors
    ``floor(-i0 / 256) + floor((-2 i0 + i1) / 256)`` made isl's bounds of the if clause's
    box take minutes; the 10 s code-generation budget ran out and the tiling was
    dropped. The box is taken without the existentials."""
    from test_wrong_code import assert_same_behaviour
    from polysched.pipeline import OptimizeOptions, optimize
    path = tmp_path / "down.c"
    path.write_text(DOWNWARD_TIME)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "ran past" not in result.summary() and "before tiling" not in result.summary(), result.summary()
    assert "POLYSCHED_PARALLEL_MIN_WORK *" in _fork_test(result.text)[0], result.text
    assert_same_behaviour(tmp_path, DOWNWARD_TIME, opts=("-O1",))


RIGHT_LOOKING_LU = r"""
#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, double A[n][n]) {
#pragma scop
  for (int k = 0; k < n; k++) {
    for (int i = k + 1; i < n; i++)
      A[i][k] = A[i][k] / A[k][k];
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++)
        A[i][j] = A[i][j] - A[i][k] * A[k][j];
  }
#pragma endscop
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 40;
  double (*A)[n] = malloc(sizeof(double) * n * n + 8);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = (i == j) ? n + 2.0 : ((i * j) % 7) / 10.0 + 0.01 * (i - j);
  kernel(n, A);
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) printf("%.17g\n", A[i][j]);
  return 0;
}
"""


def test_a_tile_wavefront_forks_only_for_steps_of_two_tiles_or_more(tmp_path):
    """helper-91's right-looking LU: the tile wavefront's steps hold one or two tiles,
    and forking for one moved the data from core to core (4x slower at 2 threads, n =
    300). The parallel tile loop's bounds read the wavefront counter: its if clause
    first tests that this step runs it twice or more. Run at n = 40 with the default
    tiles (every step one tile) and 8-wide ones (steps of one tile and of several)."""
    from test_wrong_code import assert_same_behaviour
    outputs = assert_same_behaviour(tmp_path, RIGHT_LOOKING_LU, opts=("-O1",), modes={
        "default-tiles": dict(tile=True, parallel=True),
        "eight": dict(tile=True, parallel=True, tile_sizes=[8, 8, 8])})
    for text in outputs.values():
        condition, lines = _fork_test(text)
        # for (int c1 = LOW; c1 <= HIGH; c1 += 1)  ->  if (LOW < HIGH && ...)
        loop = re.match(r"\s*for \(int (\w+) = (.*); \1 <= (.*); \1 \+= 1\)", lines[0])
        assert loop, lines[0]
        assert condition.startswith(f"{loop.group(2)} < {loop.group(3)} && "), (condition, lines[0])


INNER_CLAUSES = r"""
#include <stdio.h>
#include <stdlib.h>
static void kernel(int T, int n, double A[n], double B[n], long *hits, int *count) {
  double t0;
  int s = 0;
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++) {
      t0 = A[i - 1] + A[i + 1];
      B[i] = 0.5 * t0 + t;
      s += i % 3;
      if (t0 > 4.0) *hits += 1;
    }
    for (int i = 1; i < n - 1; i++)
      A[i] = B[i];
  }
#pragma endscop
  *count = s;
}
#ifndef STEPS
#define STEPS 5
#endif
#ifndef SIZE
#define SIZE 37
#endif
int main(void) {
  int T = STEPS, n = SIZE;
  double *A = malloc(sizeof(double) * (n > 0 ? n : 1)), *B = malloc(sizeof(double) * (n > 0 ? n : 1));
  long hits = 0;
  int count = 0;
  for (int i = 0; i < n; i++) { A[i] = (i * 7 % 13) / 5.0; B[i] = 0.0; }
  kernel(T, n, A, B, &hits, &count);
  for (int i = 0; i < n; i++) printf("%.17g %.17g\n", A[i], B[i]);
  printf("%ld %d\n", hits, count);
  return 0;
}
"""


def test_an_inner_parallel_loop_runs_in_place_where_its_fork_does_not_pay(tmp_path):
    """Inside the time loop, the parallel loop with a private scalar, an integer sum and
    a count into an out-parameter is ``if (work) { #pragma omp parallel for ...; loop }
    else { loop }``: the same loop in place, not OpenMP's ``if`` clause, which calls the
    outlined loop on one thread once per time step (doitgen at MEDIUM: 3.4x slower at 1
    thread). Outputs at the default threshold (small sizes: the loop in place), at 0
    (always forked) and far above, at 1 and 2 threads, against the original's."""
    p = ps.Program.from_source(INNER_CLAUSES, filename="inner.c").parallel("S0", 1)
    code = p.c_code()
    pragma = _pragma(code)
    assert " if(" not in pragma and "private(t0)" in pragma and "reduction(" in pragma, pragma
    condition, loop = _fork_test(code)
    assert "POLYSCHED_PARALLEL_MIN_WORK" in condition and loop[0].lstrip().startswith("for ("), loop
    for threshold in ("50000", "0", "1e12"):
        for steps, size in (("5", "37"), ("0", "9"), ("3", "0"), ("2", "1"), ("7", "3000")):
            defines = {"POLYSCHED_PARALLEL_MIN_WORK": threshold, "STEPS": steps, "SIZE": size}
            result = p.verify(dataset=None, defines=defines)
            assert result.ok, (defines, result)


CALLED_TWO_WAYS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
static void kernel(int n, double A[n], double B[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.5 * A[i] + (double)i;
#pragma endscop
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, inside = argc > 2;
  double *A = malloc(sizeof(double) * n), *B = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) A[i] = (i * 7 % 13) / 5.0;
  if (inside) {
    #pragma omp parallel num_threads(2)
    {
      #pragma omp single
      kernel(n, A, B);
    }
  } else
    kernel(n, A, B);
  for (int i = 0; i < n; i += 7) printf("%.17g\n", B[i]);
  return 0;
}
"""

# counts libgomp's forks (gcc's '#pragma omp parallel' calls GOMP_parallel): linked with
# -Wl,--wrap=GOMP_parallel, the program's calls reach this one
FORK_COUNTER = r"""
#include <stdio.h>
#include <stdlib.h>
void __real_GOMP_parallel(void (*fn)(void *), void *data, unsigned threads, unsigned flags);
static int forks;
static void report(void) { fprintf(stderr, "forks: %d\n", forks); }
void __wrap_GOMP_parallel(void (*fn)(void *), void *data, unsigned threads, unsigned flags) {
  if (forks++ == 0) atexit(report);
  __real_GOMP_parallel(fn, data, threads, flags);
}
"""


def test_a_parallel_loop_forks_only_where_a_team_starts(tmp_path):
    """The outermost parallel loop forks (a call of libgomp's GOMP_parallel, counted by
    a wrapper the linker puts in its place) at 2 threads; at OMP_NUM_THREADS=1, and
    when called from a parallel region of the caller's (where a nested fork would run
    on one thread), its copy runs in place: no fork of its own. Outputs equal the
    original's every time."""
    from polysched.bench import compile_c, run_binary
    p = ps.Program.from_source(CALLED_TWO_WAYS, filename="two_ways.c").parallel("S0", 0)
    assert _fork_test(p.c_code())[0].endswith(">= POLYSCHED_PARALLEL_MIN_WORK")
    (tmp_path / "counter.c").write_text(FORK_COUNTER)
    outputs = {}
    for name, text in (("orig", CALLED_TWO_WAYS), ("opt", p.c_code())):
        (tmp_path / f"{name}.c").write_text(text)
        built = compile_c(tmp_path / f"{name}.c", tmp_path / name, openmp=True,
                          cflags=["-O1", "-Wl,--wrap=GOMP_parallel"], extra_sources=[tmp_path / "counter.c"],
                          defines={"POLYSCHED_PARALLEL_MIN_WORK": "0"})
        assert built.ok, built.stderr
        for threads in (1, 2):
            for args in (("1000",), ("1000", "inside"), ("0",), ("-3",)):
                run = run_binary(tmp_path / name, threads=threads, args=args)
                assert run.ok, run
                forks = re.search(r"forks: (\d+)", run.stderr)
                outputs[name, threads, args] = (run.stdout, int(forks.group(1)) if forks else 0)
    for (name, threads, args), (stdout, forks) in outputs.items():
        assert stdout == outputs["orig", threads, args][0], (name, threads, args)
        if name == "opt":
            # the region's own fork, plus the caller's region when called from inside it
            expected = (threads == 2 and args == ("1000",)) + (args[1:] == ("inside",))
            assert forks == expected, (threads, args, forks)
