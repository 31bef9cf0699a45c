"""Variables a region declares at its top level (``double s = 0.0;`` right after
``#pragma scop``) live on after the region: the front end reads them as declared just
before ``#pragma scop`` (scop/hoist.py), an initialiser that must run where it is
stays there as an assignment. Every optimized program is compiled and run against
the original at sizes negative, 0, 1 and more, at 1 and 2 threads."""
from __future__ import annotations

import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract

# every kind: a sum (constant initialiser), the iterators, initialisers that read what
# the region computed (several declarators, one const), an integer name for a size
# (a bound), a VLA and a table, and a typedef; all used after the region
KERNEL = r"""#include <stdio.h>
#include <stdlib.h>
#define N 40
double A[N][N], B[N];

static void kernel(int n)
{
#pragma scop
  double sum = 0.0;
  int i, j = 0;
  for (i = 0; i < n; i++)
    B[i] = B[i] * 0.5 + A[i][0];
  const double first = B[0 < n ? 0 : 0], scale = 2.0, *unused;
  double last = B[n > 0 ? 0 : 0], /* a comment between declarators */ mid
    = first * scale;
  const int half = n / 2;
  double tmp[n > 0 ? n : 1];
  static const double w[3] = {0.25, 0.5, 0.25};
  typedef double real;
  for (i = 0; i < half; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] * first + mid;
  for (i = 1; i < n - 1; i++)
    tmp[i] = w[0] * B[i - 1] + w[1] * B[i] + w[2] * B[i + 1];
  for (i = 1; i < n - 1; i++)
    sum += tmp[i];
  last = sum * scale;
#pragma endscop
  real r = sum + last;
  printf("%.17g %.17g %.17g %d %d %d %.17g\n", sum, last, mid, i, j, half, r);
  (void)unused;
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
    printf("%.17g %.17g %.17g\n", B[i], A[i][0], A[i][N - 1]);
  return 0;
}
"""

SIZES = [(-3,), (0,), (1,), (2,), (7,), (40,)]


def test_top_level_declarations_are_read_as_declared_before_the_region():
    [scop] = extract(KERNEL, filename="k.c")
    before, region = scop.source[:scop.region_start], scop.source[scop.region_start:scop.region_end]
    # one line before the pragma declares them, the initialisers that read the region's
    # values (and so lose 'const') left out; the region assigns those
    line = before.rstrip("\n").split("\n")[-2]
    assert line == ("  double sum = 0.0; int i, j = 0; double first, scale = 2.0, *unused; double last, mid; "
                    "const int half = n / 2; double tmp[n > 0 ? n : 1]; static const double w[3] = "
                    "{0.25, 0.5, 0.25}; typedef double real;")
    assert "  first = B[0 < n ? 0 : 0];\n" in region
    assert "  last = B[n > 0 ? 0 : 0], mid\n    = first * scale;\n" in region
    # the pragmas' and statements' lines as written
    assert (scop.start_line, scop.end_line) == (8, 28)
    assert "S1 (line 13): first = B[0 < n ? 0 : 0];" in str(scop)
    # sum and last are the region's scalars, half a parameter bounding i, w a table
    assert "half" in scop.parameters
    assert {"sum", "last", "first", "mid", "tmp"} <= set(scop.arrays)
    assert scop.arrays["tmp"].origin != "region"


@pytest.mark.parametrize("flags", [
    dict(),
    dict(scheduler="pluto", tile=True, parallel=True),
    dict(scheduler="isl", tile=True, parallel=True),
    dict(scheduler="pluto", fuse="max", tile=True, parallel=True, unroll=4),
])
def test_top_level_declarations_keep_what_the_program_prints(tmp_path, flags):
    path = tmp_path / "kernel.c"
    path.write_text(KERNEL)
    text = optimize(path, OptimizeOptions.from_flags(**flags)).text
    assert outputs_of(text, tmp_path, "opt", SIZES) == outputs_of(KERNEL, tmp_path, "orig", SIZES)
    # and the output, optimized again, still does
    path.write_text(text)
    again = optimize(path, OptimizeOptions.from_flags(**flags)).text
    assert outputs_of(again, tmp_path, "again", SIZES[1:3]) == outputs_of(KERNEL, tmp_path, "orig", SIZES[1:3])


HEADER = "double g, x[8];\nvoid kernel(int n)\n{\n  int i;\n#pragma scop\n"


@pytest.mark.parametrize("region, message", [
    # before its declaration, 'g' is the global: moving the declaration would change that
    ("  x[0] = g;\n  /*@*/double g = 1.0;\n  for (i = 0; i < 8; i++) x[i] = g;\n",
     "'g' is declared at the top level of the region after the region uses another 'g'"),
    # an array's list of values read where it is: no assignment can stand for it
    ("  x[0] = 1.0;\n  /*@*/double w[2] = {x[0], x[1]};\n  for (i = 0; i < 8; i++) x[i] = w[i % 2];\n",
     "only a scalar's initialiser can stay in place"),
    ("  n = 3;\n  /*@*/double t[n];\n  for (i = 0; i < 8; i++) x[i] = 0;\n",
     "the extent of 't', declared at the top level of the region, depends on what the region computes"),
    # under another -D, the other branch declares it: a line before the region would clash
    ("#ifdef F\n  double t = 1.0;\n#else\n  /*@*/float t = 1.0;\n#endif\n  for (i = 0; i < 8; i++) x[i] = t;\n",
     "declaration of 't' at the top level of a SCoP, where the code after the region may use it"),
])
def test_declarations_that_cannot_move_are_refused_where_they_are(region, message):
    text = HEADER + region + "#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text.replace("/*@*/", ""), filename="bad.c")
    marker = text.index("/*@*/")
    line = text.count("\n", 0, marker) + 1
    assert (info.value.line, info.value.col) == (line, marker - text.rfind("\n", 0, marker))
    assert message in info.value.message


def test_errors_after_a_moved_declaration_point_at_the_file_as_written():
    text = ("int foo(int);\ndouble x[8];\nvoid kernel(void)\n{\n  int i;\n#pragma scop\n"
            "  for (i = 0; i < 8; i++) x[i] = 1.0;\n"
            "  const double   s = x[2] + foo(1), t = 2.0;\n"
            "  for (i = 0; i < 8; i++) x[i] = s * t;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    assert (info.value.line, info.value.col) == (8, 29)     # 'foo', its column before the rewrite
    assert "call of 'foo'" in info.value.message


THROUGH_A_POINTER = r"""#include <stdio.h>
double g = 1.0, A[8];
static double h = 2.0;
static void kernel(double *p, double *q) {
  int i;
#pragma scop
  p[0] = 5.0;
  q[0] = 7.0;
  double s = g, t = h;
  for (i = 0; i < 8; i++) A[i] = s * i + t;
#pragma endscop
  printf("%.17g %.17g %.17g\n", s, t, A[3]);
}
int main(void) { double *hp = &h; kernel(&g, hp); return 0; }
"""


def test_an_initialiser_a_pointer_may_change_stays_in_place(tmp_path):
    """``p[0] = 5.0`` writes ``g`` (a global another file may reach) and ``q[0]`` writes
    ``h`` (its address taken in the file) before ``double s = g, t = h;``: moved before
    the region, the initialisers would read 1.0 and 2.0."""
    path = tmp_path / "pointer.c"
    path.write_text(THROUGH_A_POINTER)
    [scop] = extract(THROUGH_A_POINTER, filename="pointer.c")
    assert scop.source[:scop.region_start].rstrip("\n").split("\n")[-2] == "  double s, t;"
    for flags in (dict(), dict(scheduler="pluto", tile=True, parallel=True)):
        text = optimize(path, OptimizeOptions.from_flags(**flags)).text
        assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(THROUGH_A_POINTER, tmp_path, "orig", [()])


# a static keeps its value from call to call: its initialiser, a constant C evaluates
# once, moves with it whatever precedes it (left in place, it ran at every call); a struct
# defined with a variable moves whole; a list read before anything of the region ran
# moves too
CALLED_AGAIN = r"""#include <stdio.h>
#include <math.h>
int A[8];
struct pair { double a, b; };
static void kernel(int n) {
  int i;
#pragma scop
  double w[2] = {A[0], A[1]};
  for (i = 0; i < n; i++)
    A[i] = A[i] + 1;
  static int calls = sizeof(A) / sizeof(A[0]);
  static double r = sqrt(4.0);
  struct pt { double x, y; } q = {1.5, 2.5};
  calls = calls + 1;
  r = r + 1.0;
  A[0] = A[0] + (int)(w[1] + q.y);
#pragma endscop
  printf("%d %.17g %.17g %d\n", calls, r, q.x, A[0]);
}
int main(void) { for (int k = 0; k < 3; k++) kernel(8); return 0; }
"""


def test_statics_structs_and_a_first_list_move_whole(tmp_path):
    path = tmp_path / "again.c"
    path.write_text(CALLED_AGAIN)
    [scop] = extract(CALLED_AGAIN, filename="again.c")
    assert scop.source[:scop.region_start].rstrip("\n").split("\n")[-2] == (
        "  double w[2] = {A[0], A[1]}; static int calls = sizeof(A) / sizeof(A[0]); static double r = "
        "sqrt(4.0); struct pt { double x, y; } q = {1.5, 2.5};")
    for flags in (dict(), dict(scheduler="pluto", tile=True, parallel=True)):
        text = optimize(path, OptimizeOptions.from_flags(**flags)).text
        assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(CALLED_AGAIN, tmp_path, "orig", [()])


@pytest.mark.parametrize("declarations, region, message", [
    # GETS reads the global s: moved up, the local s would hide it there
    ("#define GETS g\n", "  x[0] = GETS;\n  /*@*/double g = 0.5;\n  for (i = 0; i < 8; i++) x[i] = g;\n",
     "'g' is declared at the top level of the region after the region uses another 'g'"),
    ("int K = 2;\n", "  x[0] = K;\n  /*@*/enum { K = 7 };\n  for (i = 0; i < 8; i++) x[i] = K;\n",
     "'K' is declared at the top level of the region after the region uses another 'K'"),
    ("struct pt { double a, b; };\n", "  x[0] = sizeof(struct pt);\n  struct /*@*/pt { char c; };\n"
     "  for (i = 0; i < 8; i++) x[i] = sizeof(struct pt);\n",
     "'pt' is declared at the top level of the region after the region uses another 'pt'"),
    # its value read where it is, but a const typedef's variable cannot be assigned there
    ("typedef const double cdouble;\n", "  x[0] = 1.0;\n  /*@*/cdouble c = x[0];\n  for (i = 0; i < 8; i++) x[i] = c;\n",
     "only a scalar's initialiser can stay in place (not a const typedef's)"),
])
def test_declarations_hiding_what_the_region_used_are_refused(declarations, region, message):
    text = declarations + HEADER + region + "#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text.replace("/*@*/", ""), filename="bad.c")
    marker = text.index("/*@*/")
    assert (info.value.line, info.value.col) == (text.count("\n", 0, marker) + 1,
                                                 marker - text.rfind("\n", 0, marker))
    assert message in info.value.message


def test_a_member_of_the_same_name_is_no_use():
    """``P[i].s`` before ``double s = 1.0;`` reads a member, not a variable s."""
    text = ("struct p { double s; } P[8];\n" + HEADER + "  for (i = 0; i < 8; i++) x[i] = P[i].s;\n"
            "  double s = 1.0;\n  for (i = 0; i < 8; i++) x[i] = x[i] * s;\n#pragma endscop\n}\n")
    [scop] = extract(text, filename="member.c")
    assert "  double s = 1.0;\n#pragma scop" in scop.source


def test_a_moved_declaration_joins_its_continued_lines():
    """A backslash-newline inside the declaration: on the one line before the region it
    would be a stray backslash."""
    text = HEADER + "  double s = (x[0] + \\\n              x[1]);\n  for (i = 0; i < 8; i++) x[i] = s;\n#pragma endscop\n}\n"
    [scop] = extract(text, filename="cont.c")
    assert "  double s = (x[0] + x[1]);\n#pragma scop" in scop.source


def test_a_variable_a_macro_assigns_before_the_declaration_is_written():
    """``SETN(0) = 4;`` assigns n (``#define SETN(k) n``): ``int m = n;`` after it keeps its
    initialiser in place (moved, it read 8)."""
    text = ("#define SETN(k) n\n" + HEADER + "  SETN(0) = 4;\n  int m = n;\n  for (i = 0; i < 8; i++) x[i] = m;\n"
            "#pragma endscop\n}\n")
    [scop] = extract(text, filename="setn.c")
    assert "  int m;\n#pragma scop" in scop.source and "  m = n;" in scop.source


# a region right after a label, entered again by goto, and one after a case label
LABELLED = r"""#include <stdio.h>
#define N 30
double A[N];
static double pick(int which)
{
  int i;
  switch (which) {
  case 1:
#pragma scop
    double t = 2.0;
    for (i = 0; i < N; i++)
      A[i] = A[i] * 0.5 + t;
#pragma endscop
    return t + A[0];
  default:
    return 0.0;
  }
}
int main(void)
{
  int i, rep = 0;
  for (i = 0; i < N; i++) A[i] = i % 4;
again:
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = A[i] * 0.5 + i;
  double s = 0.0;
  for (i = 0; i < N; i++)
    s += A[i];
#pragma endscop
  printf("%.17g %.17g\n", s, pick(rep % 2));
  if (++rep < 3) goto again;
  for (i = 0; i < N; i++) printf("%.17g\n", A[i]);
  return 0;
}
"""


def test_declarations_moved_after_a_label_follow_a_statement(tmp_path):
    """helper-43: the line of moved declarations went right after ``again:`` (and
    ``case 1:``), where C17 wants a statement: gcc 12 took it as an extension, gcc
    -pedantic-errors (and older gcc, clang before 16) refused the output."""
    import subprocess
    path = tmp_path / "labelled.c"
    path.write_text(LABELLED)
    for flags in (dict(), dict(tile=True, parallel=True)):
        text = optimize(path, OptimizeOptions.from_flags(**flags)).text
        out = tmp_path / "labelled.out.c"
        out.write_text(text)
        check = subprocess.run(["gcc", "-std=c17", "-pedantic-errors", "-fopenmp", "-fsyntax-only", str(out)],
                               capture_output=True, text=True, timeout=120)
        assert check.returncode == 0, check.stderr
        assert outputs_of(text, tmp_path, "opt", [()]) == outputs_of(LABELLED, tmp_path, "orig", [()])
