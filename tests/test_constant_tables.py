"""Subscripts that read a table of integer constants (``g[x + ex[q]][y + ey[q]][q]``,
a lattice-Boltzmann streaming step): a ``const`` table the file declares once with
integer literals, or a table a block of the region declares and only reads, is read as
the piecewise constant it is, ``{ S[x, y, q] -> g[x + v_q, ...] }``, wherever the index
provably stays in the table. Outputs are compared with the original's by running both."""
from __future__ import annotations

import islpy as isl
import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract

LBM = r"""#include <stdio.h>
#define NX 24
#define NY 20
#define Q 5
static const int ex[Q] = {0, 1, 0, -1, 0};
static const int ey[Q] = {0, 0, 1, 0, -1};
double f[NX + 2][NY + 2][Q], g[NX + 2][NY + 2][Q], rho[NX + 2][NY + 2];

int main(void)
{
  for (int x = 0; x < NX + 2; x++)
    for (int y = 0; y < NY + 2; y++)
      for (int q = 0; q < Q; q++) {
        f[x][y][q] = (x * 7 + y * 3 + q) % 11;
        g[x][y][q] = 0;
      }
#pragma scop
  for (int x = 1; x <= NX; x++)
    for (int y = 1; y <= NY; y++)
      for (int q = 0; q < Q; q++)
        g[x + ex[q]][y + ey[q]][q] = f[x][y][q];
  for (int x = 1; x <= NX; x++)
    for (int y = 1; y <= NY; y++) {
      const int w[] = {4, 1, 1, 1, 1};
      const int back[5] = {0, 3, 4, 1};
      rho[x][y] = 0;
      for (int q = 0; q < Q; q++)
        rho[x][y] += w[q] * g[x - ex[q]][y][back[q]];
    }
#pragma endscop
  for (int x = 0; x < NX + 2; x++)
    printf("%.17g %.17g %.17g\n", rho[x][1], rho[x][NY / 2], g[x][NY][2]);
  return 0;
}
"""


def test_a_streaming_step_reads_its_direction_tables_as_piecewise_constants():
    [scop] = extract(LBM, filename="lbm.c")
    write = next(a for s in scop.statements for a in s.accesses if a.array == "g" and a.kind == "write")
    name = write.relation.get_tuple_name(isl.dim_type.in_)
    moves = [(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1)]
    pieces = [f"{name}[x, y, {q}] -> g[x + {dx}, y + {dy}, {q}] : 1 <= x <= NX and 1 <= y <= NY"
              for q, (dx, dy) in enumerate(moves)]
    expected = isl.Map("[NX, NY, Q] -> { " + "; ".join(pieces) + " }")
    at_five = isl.Set("[NX, NY, Q] -> { : Q = 5 }")
    assert write.relation.intersect_params(at_five).is_equal(expected.intersect_params(at_five))
    # (the table's extent is the macro Q: the region assumes, and checks, its value)
    assert scop.context.is_subset(isl.Set("[NX, NY, Q] -> { : Q = 5 }"))


@pytest.mark.parametrize("flags", [
    dict(scheduler="pluto", tile=True, parallel=True),
    dict(scheduler="isl", tile=True, parallel=True),
    dict(scheduler="pluto", fuse="max", tile=True, parallel=True),
])
def test_table_subscripted_kernels_compute_what_the_original_does(tmp_path, flags):
    path = tmp_path / "lbm.c"
    path.write_text(LBM)
    text = optimize(path, OptimizeOptions.from_flags(**flags)).text
    assert " + ex[" in text and " + ey[" in text
    assert "#pragma omp parallel for" in text
    assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(LBM, tmp_path, "orig", [()])


@pytest.mark.parametrize("decls, body, fragment", [
    # not const: something may have changed it before the region
    ("int ex[4] = {0, 1, 0, -1};", "for (int i = 1; i < 7; i++)\n    for (int q = 0; q < 4; q++)\n"
     "      B[i + ex[q]] += A[i];", "not declared 'const' with a list of values"),
    # too long a table to read as pieces
    ("const int big[65] = {1};", "for (int i = 1; i < 7; i++)\n    for (int q = 0; q < 65; q++)\n"
     "      B[i + big[q]] += A[i];", "at most 64"),
    # the index may leave the table
    ("const int ex[4] = {0, 1, 0, -1};", "for (int i = 1; i < 7; i++)\n    for (int q = 0; q < 5; q++)\n"
     "      B[i + ex[q]] += A[i];", "may read past the 4 constants"),
    # a literal the element type does not hold: unsigned char holds -255 as 1 (helper-36
    # found wrong code under --fuse max when it was read as -255)
    ("static const unsigned char d[2] = {0, -255};", "for (int i = 0; i < 6; i++)\n    for (int q = 0; q < 2; q++)\n"
     "      B[i] += A[i + d[q]];", "values are not all integer literals 'unsigned char' holds"),
    ("", "for (int i = 0; i < 6; i++) {\n    const signed char d[2] = {0, 200};\n    B[i] += A[i + d[1] - 199];\n  }",
     "values are not all integer literals 'signed char' holds"),
    # unsigned int: i + d[q] wraps modulo 2**32 (0xFFFFFFFF makes it i - 1; helper-36
    # found the q = 1 instances dropped)
    ("static const unsigned d[2] = {1, 0xFFFFFFFF};", "for (int i = 1; i < 7; i++)\n    for (int q = 0; q < 2; q++)\n"
     "      B[i + d[q]] += A[i];", "sums with 'unsigned' elements wrap around"),
    # a macro among the values: compiled under another -D it may be another value
    ("#define W0 1", "for (int i = 1; i < 7; i++) {\n    const int w[2] = {W0, 0};\n    B[i + w[0]] += A[i];\n  }",
     "values are not all integer literals"),
    # under an #if: compiled with -DALT the other branch's table is the one read
    # (helper-36 found wrong code with -DALT when the model had read this branch's)
    ("#ifdef ALT\nstatic const int ex[4] = {1, 1, 1, 1};\n#else\nstatic const int ex[4] = {0, 0, 0, 0};\n#endif",
     "for (int i = 1; i < 7; i++)\n    for (int q = 0; q < 4; q++)\n      B[i + ex[q]] = B[i] * 0.5 + A[i];",
     "declared under '#if'"),
    # declared twice: another scope's array may be the one the region sees
    ("const int ex[4] = {0, 1, 0, -1};\nvoid g(void) { const int ex[4] = {1, 1, 1, 1}; (void)ex; }",
     "for (int i = 1; i < 7; i++)\n    for (int q = 0; q < 4; q++)\n      B[i + ex[q]] += A[i];",
     "declares it more than once"),
    # ... also as the second declarator of a declaration
    ("const int ex[4] = {0, 1, 0, -1};\nvoid g(void) { const int z[2] = {0, 0}, ex[4] = {1, 1, 1, 1}; (void)ex; (void)z; }",
     "for (int i = 1; i < 7; i++)\n    for (int q = 0; q < 4; q++)\n      B[i + ex[q]] += A[i];",
     "declares it more than once"),
])
def test_tables_that_may_not_hold_those_constants_are_refused(decls, body, fragment):
    """Refused, and the message says why the array is not a table."""
    source = f"""double A[8], B[9];
{decls}
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


SIZEOF_BOUND = r"""#include <stdio.h>
#define N 12
static const int w[] = {2, -1, 1, -2, 0};
double A[N + 8][8], B[N + 8][8];
int main(void)
{
  int i, q;
  for (i = 0; i < N + 8; i++) for (q = 0; q < 8; q++) { A[i][q] = i * 8 + q; B[i][q] = 0; }
#pragma scop
  for (i = 2; i < N; i++)
    for (q = 0; q < (int)(sizeof(w) / sizeof(w[0])); q++)
      B[i + w[q]][q] += A[i - w[q]][q] + B[i][q];
#pragma endscop
  for (i = 0; i < N + 8; i++) for (q = 0; q < 8; q++) printf("%.17g\n", B[i][q]);
  return 0;
}
"""


def test_an_unsized_table_bounds_its_loop_through_sizeof(tmp_path):
    """``q < sizeof(w) / sizeof(w[0])`` of ``const int w[] = {...}`` (5 elements, the
    count of its list) bounds the loop reading ``w[q]`` in subscripts that carry
    dependences along i (helper-36)."""
    path = tmp_path / "w.c"
    path.write_text(SIZEOF_BOUND)
    text = optimize(path, OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True)).text
    assert "w[" in text
    assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(SIZEOF_BOUND, tmp_path, "orig", [()])


WEIGHTS = r"""#include <stdio.h>
#include <stdlib.h>
static const double w[] = {0.25, 0.5, 0.25, -0.125,};
int main(int argc, char **argv)
{
  int n = atoi(argv[1]);
  float taps[] = {1.5f, -0.5f};
  double *in = malloc(sizeof(double) * (n + 8)), *out = malloc(sizeof(double) * (n + 8));
  for (int i = 0; i < n + 8; i++) { in[i] = i % 7; out[i] = 1.0; }
#pragma scop
  for (int i = 0; i < n; i++) {
    out[i] = 0;
    for (int q = 0; q < (int)(sizeof(w) / sizeof(w[0])); q++)
      out[i] += w[q] * in[i + q];
    for (int t = 0; t < (int)(sizeof taps / sizeof *taps); t++)
      out[i + t + 1] += taps[t] * out[i];
  }
#pragma endscop
  for (int i = 0; i < n + 8; i++) printf("%.17g\n", out[i]);
  return 0;
}
"""


def test_unsized_lists_of_any_type_bound_their_loops_through_sizeof(tmp_path):
    """``sizeof(w) / sizeof(w[0])`` of ``static const double w[] = {...};`` and of a
    local ``float taps[] = {...};``: the count of the list (helper-67: "'sizeof(w)' is
    not a size polysched knows"). The second loop writes ahead of the first one's
    next iterations: the count decides the dependences."""
    [scop] = extract(WEIGHTS, filename="w.c")
    assert scop.arrays["w"].dims == ["4"] and scop.arrays["taps"].dims == ["2"]
    path = tmp_path / "w.c"
    path.write_text(WEIGHTS)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "for (int c" in text
    sizes = [(0,), (1,), (3,), (50,)]
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(WEIGHTS, tmp_path, "orig", sizes)


MULTI = r"""#include <stdio.h>
#define N 16
double g[N + 2][N + 2][4], f[N + 2][N + 2][4];
GLOBAL
int main(void)
{
  int x, y, q;
  LOCAL
  for (x = 0; x < N + 2; x++) for (y = 0; y < N + 2; y++) for (q = 0; q < 4; q++) {
    f[x][y][q] = (x * 7 + y * 3 + q) % 11;
    g[x][y][q] = 0;
  }
#pragma scop
  {
  REGION
  for (x = 1; x <= N; x++)
    for (y = 1; y <= N; y++)
      for (q = 0; q < 4; q++)
        g[x + ex[q]][y + ey[q]][q] += f[x][y][q] + g[x][y][q];
  }
#pragma endscop
  for (x = 0; x < N + 2; x++) for (y = 0; y < N + 2; y++) printf("%.17g %.17g\n", g[x][y][0], g[x][y][3]);
  return 0;
}
"""
TABLES = "const int ex[4] = {1, 0, -1, 0}, ey[4] = {0, 1, 0, -1};"


@pytest.mark.parametrize("where", ["GLOBAL", "LOCAL", "REGION"])
def test_tables_declared_in_one_declaration_are_read(tmp_path, where):
    """``const int ex[4] = {...}, ey[4] = {...};``: the second table of the declaration
    is a table too (it was an 'indirect access', at file scope and before the region)."""
    source = MULTI
    for place in ("GLOBAL", "LOCAL", "REGION"):
        source = source.replace(place, ("static " if place == "GLOBAL" else "") + TABLES if place == where else "")
    [scop] = extract(source, filename="multi.c")
    write = next(a for s in scop.statements for a in s.accesses if a.array == "g" and a.kind == "write")
    name = write.relation.get_tuple_name(isl.dim_type.in_)
    assert write.relation.intersect_domain(isl.Set(f"[N] -> {{ {name}[x, y, 1] }}")).is_equal(
        isl.Map(f"[N] -> {{ {name}[x, y, 1] -> g[x, y + 1, 1] : 1 <= x <= N and 1 <= y <= N }}")
        .intersect_params(scop.context))
    path = tmp_path / "multi.c"
    path.write_text(source)
    text = optimize(path, OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True)).text
    assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(source, tmp_path, "orig", [()])


@pytest.mark.parametrize("body, fragment", [
    ("for (int i = 1; i < 7; i++) {\n    int t[2] = {0, 1};\n    t[i % 2] = 1;\n    B[i + t[0]] += A[i];\n  }",
     "'t' is not a table of integer constants: the region writes it"),
    ("for (int i = 1; i < 7; i++) {\n    const int u[2][2] = {{0, 1}, {1, 0}};\n    B[i + u[0][1]] += A[i];\n  }",
     "'u' is not a table of integer constants: it has 2 dimensions"),
    ("for (int i = 1; i < 7; i++)\n    B[i + p[i % 2]] += A[i];",
     "'p' is not a table of integer constants: it is reached through a pointer"),
    ("for (int i = 1; i < 7; i++)\n    for (int q = 0; q < n[i % 2]; q++)\n      B[q] += A[i];",
     "loop bound, subscript or condition ('n' is not a table of integer constants: it is not declared 'const'"),
    # helper-59: the elements of a size array bound loops only where the region never writes it
    ("for (int i = 1; i < 7; i++)\n    for (int q = 0; q < n[0]; q++)\n      B[q] += A[i];\n  n[1] = 3;",
     "('n' is written inside the SCoP, at 'n[1]': only the elements of an array the region never writes "
     "may be read in its loop bounds, subscripts and conditions)"),
])
def test_a_refused_array_read_says_why_the_array_is_not_a_table(body, fragment):
    source = f"double A[8], B[9];\nint n[2] = {{1, 2}};\nvoid f(int *p)\n{{\n#pragma scop\n  {body}\n#pragma endscop\n}}\n"
    with pytest.raises(ScopError) as info:
        extract(source, filename="why.c")
    assert fragment in info.value.message
