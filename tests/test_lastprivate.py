"""A scalar private to a loop's iterations whose value is read after the region (a
global temporary, one printed after the loop) was "may be live after the scop": the
loop stayed sequential, and with it often the whole region. Each iteration now has its
own copy and the loop keeps the value of the last write, OpenMP's
``lastprivate(conditional: t)``: the iteration that wrote it last, which need not be
the last iteration (a write under a test), and nothing at all when no iteration writes
it. The schedule orders the scalar's writes as the original does (their dependences),
and the clause is checked to hold on it (`last_write_reason`). The oracle is the
original program, compiled alike, at 1 and 2 threads and at the sizes' edges."""
from __future__ import annotations

import islpy as isl
import pytest

import polysched as ps
from compiled_runs import outputs_of
from polysched.dependence import ScopAccesses, analyze, check, last_write_reason
from polysched.marks import Parallel, parse_mark
from polysched.errors import MarkError
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract

MODES = {
    "tile-par": dict(tile=True, parallel=True),
    "par": dict(parallel=True),
    "isl-tile-par": dict(scheduler="isl", tile=True, parallel=True),
    "max-tile-par-unroll": dict(fuse="max", tile=True, parallel=True, unroll=4),
}

DRIVER = r"""
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50, m = argc > 2 ? atoi(argv[2]) : 3;
  int cap = n > 0 ? n : 1;
  double *a = malloc(sizeof(double) * cap), *b = malloc(sizeof(double) * cap);
  double *c = malloc(sizeof(double) * cap * cap);
  for (int i = 0; i < cap; i++) {
    a[i] = (i * 37 % 23) - 11.5;
    b[i] = 0.25 * i;
    for (int j = 0; j < cap; j++) c[i * cap + j] = (i * 7 + j * 3) % 13 - 6.0;
  }
  kernel(n, m, a, b, c);
  double s = 0;
  for (int i = 0; i < n; i++) { s += b[i] * (i % 5 + 1); for (int j = 0; j < n; j++) s += c[i * n + j] * (j + 1); }
  printf("%.17g %.17g %.17g %ld %.17g\n", s, t, u, k, w);
  return 0;
}
"""

HEAD = r"""#include <stdio.h>
#include <stdlib.h>
double t = -7.5, u = -8.25, w = 3.0;
long k = -9;
"""

# t set and read in each iteration; u only where a test holds (the last iteration may
# not write it); k an integer counter kept per iteration
ROW = HEAD + r"""
void kernel(int n, int m, double *a, double *b, double *c) {
#pragma scop
  for (int i = 0; i < n; i++) {
    t = a[i] * 2.0 + 1.0;
    if (a[i] > 3.0)
      u = a[i] - t;
    k = i * 3 - m;
    b[i] = t * b[i] + (double)k;
  }
#pragma endscop
}
""" + DRIVER

# the live-out temporary inside a sequential outer loop: the last value is that of the
# last run of the parallel loop
OUTER = HEAD + r"""
void kernel(int n, int m, double *a, double *b, double *c) {
#pragma scop
  for (int r = 0; r < m; r++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        t = c[i * n + j] + a[j] * r;
        c[i * n + j] = t * 0.5;
      }
#pragma endscop
}
""" + DRIVER

# written in the inner loop of a 2-d nest that walks c by columns; w read after
NEST = HEAD + r"""
void kernel(int n, int m, double *a, double *b, double *c) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      w = c[j * n + i] * 2.0 + a[i];
      c[j * n + i] = w - b[j];
    }
#pragma endscop
}
""" + DRIVER

SIZES = [(0, 0), (1, 1), (2, 3), (5, -2), (37, 4), (300, 2), (-3, 5)]


@pytest.mark.parametrize("name, text", [("row", ROW), ("outer", OUTER), ("nest", NEST)])
def test_a_live_out_temporary_keeps_its_last_value_in_a_parallel_loop(name, text, tmp_path):
    expected = outputs_of(text, tmp_path, f"{name}_orig", SIZES)
    assert len(set(expected)) > 3          # the sizes give different values
    clauses = 0
    for mode, flags in MODES.items():
        path = tmp_path / f"{name}.c"
        path.write_text(text)
        result = optimize(path, OptimizeOptions.from_flags(**flags)).text
        clauses += "lastprivate(conditional: " in result
        assert outputs_of(result, tmp_path, f"{name}_{mode}", SIZES) == expected, mode
    assert clauses >= 2


def test_the_clause_names_every_live_out_scalar_of_the_loop():
    [scop] = extract(ROW)
    assert set(scop.live_scalars) >= {"t", "u", "k"}
    p = ps.Program.from_source(ROW, filename="row.c")
    q = p.parallel("S0", 0)
    assert "#pragma omp parallel for lastprivate(conditional: t, u, k)" in q.region_code()
    assert q.verify(dataset=None, threads=2).ok
    # the trace replays to the same mark
    assert ps.Program.from_source(ROW, filename="row.c").replay(q.trace).region_code() == q.region_code()


def test_a_value_that_flows_between_iterations_cannot_be_lastprivate():
    """A running value (t = t * 0.5 + ...) is no temporary: declared lastprivate by
    hand, the check reports it; private it was refused already."""
    running = OUTER.replace("t = c[i * n + j] + a[j] * r;", "t = t * 0.5 + a[j] * r;")
    p = ps.Program.from_source(running, filename="running.c")
    with pytest.raises(ps.TransformError, match="'t' cannot be lastprivate"):
        p.parallel("S0", 1, lastprivate=["t"])
    with pytest.raises(ps.TransformError, match="'b' cannot be lastprivate"):
        ps.Program.from_source(OUTER, filename="outer.c").parallel("S0", 1, lastprivate=["b"])


def test_the_last_write_must_come_last_in_the_loop_order():
    """`last_write_reason` directly, on the loop over ``i`` of ROW: the iterations in
    their order keep the last write; run backwards, the copy would be the first."""
    [scop] = extract(ROW)
    deps = analyze(scop)
    assert check(scop, deps, scop.schedule).legal
    accesses = ScopAccesses(scop)
    domain = scop.domain
    forward = isl.UnionMap(f"[n, m] -> {{ S0[i] -> [i]; S1[i] -> [i]; S2[i] -> [i]; S3[i] -> [i] }}") \
        .intersect_domain(domain)
    backward = isl.UnionMap(f"[n, m] -> {{ S0[i] -> [-i]; S1[i] -> [-i]; S2[i] -> [-i]; S3[i] -> [-i] }}") \
        .intersect_domain(domain)
    for name in ("t", "u", "k"):
        assert last_write_reason(scop, accesses, name, domain, forward) is None
        assert "would not write it last" in last_write_reason(scop, accesses, name, domain, backward)


def test_lastprivate_in_mark_text():
    mark = parse_mark("parallel(private=a; lastprivate=t,u; reduction=+:s; schedule=dynamic)")
    assert mark == Parallel(("a",), (("+", "s"),), "dynamic", ("t", "u"))
    assert parse_mark(mark.text()) == mark
    assert mark.scalars == {"a", "t", "u", "s"}
    with pytest.raises(MarkError, match="both private and lastprivate"):
        Parallel(private=("t",), lastprivate=("t",))
    with pytest.raises(MarkError, match="both private and a reduction"):
        Parallel(lastprivate=("s",), reductions=(("+", "s"),))
    with pytest.raises(MarkError, match="names no variable"):
        parse_mark("parallel(lastprivate=)")


def test_a_live_out_scalar_declared_private_is_pointed_to_lastprivate():
    p = ps.Program.from_source(ROW, filename="row.c")
    with pytest.raises(ps.TransformError, match="'t' cannot be private \\(may be live after the scop: "
                                                "lastprivate=t keeps its last value\\)"):
        p.parallel("S0", 0, private=["t", "u", "k"])
    q = p.parallel("S0", 0, lastprivate=["t", "u", "k"])
    assert q.region_code() == p.parallel("S0", 0).region_code()


PRIVATE_CLAUSE = r"""#include <stdio.h>
#include <stdlib.h>
double t = 1;
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5;
  double *c = malloc(sizeof(double) * (n > 0 ? n : 1));
  for (int i = 0; i < n; i++) c[i] = i;
#pragma scop
#pragma omp parallel for private(t)
  for (int i = 0; i < n; i++) { t = c[i] * 2; c[i] = t + 1; }
  for (int i = 1; i < n; i++) c[i] += c[i - 1];
#pragma endscop
  double s = 0;
  for (int i = 0; i < n; i++) s += c[i];
  printf("%.17g %.17g\n", t, s);
  return 0;
}
"""


def test_the_regions_own_private_clause_on_a_live_out_scalar_keeps_the_region(tmp_path, capsys):
    """helper-98 of session 64: the region's own 'private(t)' of a global read after the region became
    lastprivate: compiled with OpenMP, the original leaves t at 1 (the threads' copies
    vanish), the output printed the loop's last value. Such a region has two meanings
    (with and without OpenMP): it is kept as written, with the reason in the summary."""
    path = tmp_path / "in.c"
    path.write_text(PRIVATE_CLAUSE)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert result.regions[0].kept_as_written
    assert "makes 't' private, which the code after the region may read" in result.summary()
    sizes = [(5,), (0,), (1001,)]
    expected = outputs_of(PRIVATE_CLAUSE, tmp_path, "orig", sizes)
    assert all(line.startswith("1 ") for line in expected)
    assert outputs_of(result.text, tmp_path, "out", sizes) == expected
