"""Valid C that the front end used to refuse (issue 9, item 7): chained assignments,
function-like macros given with -D, nested function-like macros, backslash-newlines,
block-scope declarations inside the region, preprocessor lines polysched itself puts
in a region, deep expressions. And invalid C that used to get through or fail badly:
undeclared sizes, missing headers, literals wider than 64 bits, ``#line`` locations.

Each accepted construct is checked on the extracted model (domains, accesses, bodies)
and, where it matters, end to end: optimize, compile both, compare the outputs.
"""
from __future__ import annotations

import dataclasses
import re

import islpy as isl
import pytest

from polysched.bench import verify
from polysched.pipeline import OptimizeOptions, SourceOptions, optimize
from polysched.scop import ScopError, extract
from compiled_runs import outputs_of


def time_of(scop, instance: str) -> tuple[int, ...]:
    """The original schedule's time vector of one statement instance (``S0[3, 4]``)."""
    times = scop.schedule_map.intersect_domain(isl.UnionSet(f"{{ {instance} }}"))
    point = isl.Map.from_union_map(times).range()
    point = point.intersect_params(scop.with_values({"N": 40})).sample_point()
    return tuple(int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
                 for k in range(point.get_space().dim(isl.dim_type.set)))


def line_col_of(text: str, fragment: str) -> tuple[int, int]:
    pos = text.index(fragment)
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def same_map(access, text):
    return access.relation.is_equal(isl.Map(text).intersect_domain(access.relation.domain()))


def roundtrip(tmp_path, source: str, options: OptimizeOptions, defines=None, name="prog"):
    """Optimize ``source`` (a whole program), compile original and result, compare."""
    original = tmp_path / f"{name}.c"
    original.write_text(source)
    options = dataclasses.replace(options, source=SourceOptions(dict(defines or {})))
    result = optimize(original, options)
    out = tmp_path / f"{name}.out.c"
    out.write_text(result.text)
    verdict = verify(original, out, defines=defines or {}, workdir=tmp_path)
    assert verdict.ok, f"{verdict.status}: {verdict.reason}\n{result.text}"
    return result


MODES = {
    "pluto-tile-par": lambda: OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True),
    "isl-tile-par": lambda: OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True),
}


def exact_roundtrip(tmp_path, text: str, mode: str, name: str = "prog"):
    """Optimize the program ``text`` under ``MODES[mode]``, assert that it prints what
    the original prints, byte for byte, at 1 and 2 threads; return the result."""
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    result = optimize(source, MODES[mode]())
    assert outputs_of(result.text, tmp_path, "opt", [()]) == outputs_of(text, tmp_path, "orig", [()])
    return result


def program(kernel_body: str, decls: str = "", prelude: str = "", n: int = 40) -> str:
    """A whole C program: arrays A, B (N x N), C (N), a kernel with ``kernel_body``
    between the pragmas, and a main that initialises A and prints B and C."""
    return f"""#include <stdio.h>
#include <math.h>
{prelude}
#ifndef N
#define N {n}
#endif
double A[N][N], B[N][N], C[N];

void kernel(void)
{{
  int i, j, k;
{decls}
#pragma scop
{kernel_body}
#pragma endscop
}}

int main(void)
{{
  int i, j;
  for (i = 0; i < N; i++) {{
    C[i] = 0;
    for (j = 0; j < N; j++) {{
      A[i][j] = (double)((i * 7 + j * 3) % 11) / 3.0 + 0.5;
      B[i][j] = 0;
    }}
  }}
  kernel();
  for (i = 0; i < N; i++) {{
    printf("%.10g\\n", C[i]);
    for (j = 0; j < N; j++)
      printf("%.10g\\n", B[i][j]);
  }}
  return 0;
}}
"""


# -- chained assignment ------------------------------------------------------------------

CHAINED = """  for (i = 0; i < N; i++)
    for (j = 1; j < N; j++) {
      a1 = a5 = A[i][j - 1];
      B[i][j] = a1 * 2.0 + a5;
    }"""


def test_chained_assignment_is_two_statements_inner_first():
    [scop] = extract(program(CHAINED, decls="  double a1, a5;"), filename="chain.c")
    s0, s1, s2 = scop.statements
    assert s0.body == "a5 = A[i][j - 1];"
    assert s1.body == "a1 = a5;"
    assert [a.array for a in s0.accesses] == ["a5", "A"]
    assert [(a.array, a.kind) for a in s1.accesses] == [("a1", "write"), ("a5", "read")]
    assert [(a.array, a.kind) for a in s2.accesses] == [("B", "write"), ("a1", "read"), ("a5", "read")]
    # executed in that order, in the same iteration
    times = [time_of(scop, f"{s.name}[3, 4]") for s in (s0, s1, s2)]
    assert times[0] < times[1] < times[2]


def test_chained_compound_and_triple_chain():
    body = """  for (i = 0; i < N; i++)
    C[i] += B[i][0] = B[i][1] = A[i][i];"""
    [scop] = extract(program(body), filename="chain3.c")
    bodies = [s.body for s in scop.statements]
    assert bodies == ["B[i][1] = A[i][i];", "B[i][0] = B[i][1];", "C[i] += B[i][0];"]
    last = scop.statements[2]
    assert [(a.array, a.kind) for a in last.accesses] == [("C", "read"), ("C", "write"), ("B", "read")]
    assert same_map(last.accesses[2], "{ S2[i] -> B[i, 0] }")


@pytest.mark.parametrize("mode", list(MODES))
def test_chained_assignment_end_to_end(tmp_path, mode):
    roundtrip(tmp_path, program(CHAINED, decls="  double a1, a5;"), MODES[mode]())


# -- function-like macros from -D, nested macros -----------------------------------------

SQRT_BODY = """  for (i = 0; i < N; i++)
    C[i] = SQRT_FUN(A[i][i]) + SQRT_FUN(SQRT_FUN(A[i][0]));"""


def test_function_macro_given_with_minus_d_is_the_function():
    [with_d] = extract(program(SQRT_BODY), defines={"SQRT_FUN": "sqrt"}, filename="d.c")
    [with_define] = extract(program(SQRT_BODY, prelude="#define SQRT_FUN(x) sqrt(x)"), filename="d.c")
    for scop in (with_d, with_define):
        [stmt] = scop.statements
        assert stmt.body == "C[i] = SQRT_FUN(A[i][i]) + SQRT_FUN(SQRT_FUN(A[i][0]));"
        reads = [a for a in stmt.accesses if a.kind == "read"]
        assert len(reads) == 2
        assert same_map(reads[0], "[N] -> { S0[i] -> A[i, i] }")
        assert same_map(reads[1], "[N] -> { S0[i] -> A[i, 0] }")


def test_function_macro_from_minus_d_end_to_end(tmp_path):
    roundtrip(tmp_path, program(SQRT_BODY), OptimizeOptions.from_flags(scheduler="pluto", tile=True),
              defines={"SQRT_FUN": "sqrt"})


MIN_PRELUDE = "#define min(x, y) ((x) < (y) ? (x) : (y))\n#define max(x, y) ((x) > (y) ? (x) : (y))"
NESTED_MIN = """  for (i = 0; i < min(min(N, M), P); i++)
    for (j = max(0, max(i - 3, 1)); j < min(N, min(i + 5, N - 1)); j++)
      B[i][j] = min(min(A[i][j], A[j][i]), min(A[i][0], 2.0)) + max(max(A[i][j], 1.0), 0.5);"""


def test_nested_function_like_macros():
    [scop] = extract(program(NESTED_MIN, prelude=MIN_PRELUDE + "\n#define M 30\n#define P 35"),
                     filename="min.c")
    [stmt] = scop.statements
    expected = isl.Set("[N, M, P] -> { S0[i, j] : 0 <= i < N and i < M and i < P and "
                       "j >= 0 and j >= i - 3 and j >= 1 and j < N and j < i + 5 and j < N - 1 }")
    assert stmt.domain.is_equal(expected.align_params(stmt.domain.get_space()))
    assert (stmt.accesses[0].array, stmt.accesses[0].kind) == ("B", "write")
    # the expansion repeats arguments ('(x) < (y) ? (x) : (y)'): three distinct elements read
    reads = stmt.reads.coalesce()
    expected_reads = isl.UnionMap("[N, M, P] -> { S0[i, j] -> A[i, j]; S0[i, j] -> A[j, i]; S0[i, j] -> A[i, 0] }")
    assert reads.is_equal(expected_reads.intersect_domain(isl.UnionSet.from_set(stmt.domain)))


def test_nested_macros_end_to_end(tmp_path):
    roundtrip(tmp_path, program(NESTED_MIN, prelude=MIN_PRELUDE + "\n#define M 30\n#define P 35"),
              OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True))


# -- backslash-newline ---------------------------------------------------------------------

def test_backslash_newline_inside_a_statement():
    body = ("  for (i = 0; i < N; i++)\n    C[i] = A[i][0] + \\\n           A[i][1];\n"
            "  for (i = 0; i < N; i++)\n    B[i][i] = C[i] * 2\\\n.5;")
    [scop] = extract(program(body), filename="bs.c")
    s0, s1 = scop.statements
    assert s0.body == "C[i] = A[i][0] + A[i][1];"
    assert s1.body == "B[i][i] = C[i] * 2.5;"
    assert [a.array for a in s0.accesses] == ["C", "A", "A"]
    assert (s1.line, s1.col) == line_col_of(program(body), "B[i][i] = C[i]")


# -- block-scope declarations ------------------------------------------------------------------

LOCALS = """  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      double t = A[i][j] * 2.0;
      int jj = j + 1;
      B[i][j] = t + (jj < N ? A[i][jj] : 0.0);
    }
  for (i = 0; i < N; i++) {
    double t = 0.0;
    for (k = 0; k < N; k++)
      t += B[i][k];
    C[i] = t;
  }"""


def test_block_scope_declarations_are_scalars_and_affine_aliases():
    [scop] = extract(program(LOCALS), filename="loc.c")
    bodies = [s.body for s in scop.statements]
    assert bodies == ["t = A[i][j] * 2.0;", "B[i][j] = t + (((int) (j + 1)) < N ? A[i][((int) (j + 1))] : 0.0);",
                      "t_1 = 0.0;", "t_1 += B[i][k];", "C[i] = t_1;"]
    assert scop.arrays["t"].is_scalar and scop.arrays["t"].element_type == "double"
    assert scop.arrays["t"].origin == "region" and scop.arrays["t_1"].origin == "region"
    s0, s1 = scop.statements[:2]
    assert [(a.array, a.kind) for a in s0.accesses] == [("t", "write"), ("A", "read")]
    # 'jj' is not memory: an alias for j + 1, usable in a subscript
    assert [(a.array, a.kind) for a in s1.accesses] == [("B", "write"), ("t", "read"), ("A", "read")]
    assert same_map(s1.accesses[2], "[N] -> { S1[i, j] -> A[i, j + 1] }")
    assert (s0.line, s0.col) == line_col_of(program(LOCALS), "double t = A")   # the declaration's start


def test_block_scope_name_taken_outside_is_renamed():
    # 't' is a variable of the function too (read after the region): the local is another one
    decls = "  double t = 1.0;"
    body = """  for (i = 0; i < N; i++) {
    C[i] = t;
    {
      double t = A[i][0];
      B[i][0] = t;
    }
  }"""
    [scop] = extract(program(body, decls=decls), filename="ren.c")
    s0, s1, s2 = scop.statements
    assert s0.body == "C[i] = t;" and [a.array for a in s0.accesses] == ["C", "t"]
    assert s1.body == "t_1 = A[i][0];" and s2.body == "B[i][0] = t_1;"
    assert scop.arrays["t"].origin != "region" and scop.arrays["t_1"].origin == "region"


@pytest.mark.parametrize("mode", list(MODES))
def test_block_scope_declarations_end_to_end(tmp_path, mode):
    """The emitted region declares the block's scalars; by default the temporary 't'
    is substituted into its one use (transform/substitute.py) and only the accumulator
    't_1' is left to declare."""
    kept = roundtrip(tmp_path, program(LOCALS), dataclasses.replace(MODES[mode](), expand_scalars=False))
    assert "double t;" in kept.text and "double t_1;" in kept.text
    result = roundtrip(tmp_path, program(LOCALS), MODES[mode](), name="default")
    assert any(line.startswith("substituted scalar t ") for line in result.regions[0].expansions)
    assert "double t;" not in result.text and "double t_1;" in result.text


def test_an_integer_alias_defined_from_another_one_is_read_as_its_expression(tmp_path):
    """``int u = i + 1; int v = u + 1;`` then ``A[v]`` (helper-37: refused with a message
    about a macro's body, which there is none of): v is ``(i + 1) + 1`` in the model and
    in the emitted text."""
    body = """  for (i = 0; i < N - 3; i++)
    for (j = 0; j < N; j++) {
      int u = i + 1;
      int v = u + 1;
      int w = 2 * v - u;
      B[i][j] = A[v][j] + A[w][j];
    }"""
    [scop] = extract(program(body), filename="chain.c")
    [stmt] = scop.statements
    name = stmt.domain.get_tuple_name()
    reads = [isl.UnionMap.from_map(a.relation) for a in stmt.accesses if a.kind == "read" and a.array == "A"]
    rows = isl.UnionMap(f"[N] -> {{ {name}[i, j] -> A[i + 2, j]; {name}[i, j] -> A[i + 3, j] }}")
    assert reads[0].union(reads[1]).is_equal(rows.intersect_domain(isl.UnionSet.from_set(stmt.domain)))
    result = roundtrip(tmp_path, program(body), OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True))
    assert "#pragma omp parallel for" in result.text


def test_private_scalar_in_tiled_parallel_nest(tmp_path):
    body = """  for (i = 1; i < N; i++)
    for (j = 1; j < N; j++) {
      double s = A[i][j] + A[i - 1][j];
      double u = s * s;
      B[i][j] = u - A[i][j - 1];
    }"""
    # (without substitution, which writes s and u into B[i][j]'s statement)
    options = OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True, expand_scalars=False)
    result = roundtrip(tmp_path, program(body), options)
    assert "private(" in result.text


SHADOWING = """  for (i = 0; i < N; i++)
    for (k = 0; k < N; k++)
      B[i][k] = A[i][k] + 1.0;
  for (j = 0; j < N; j++) {
    int i = j / 2;
    double k = A[i][j] * 0.5;
    C[j] = k + B[i][j];
  }"""


def test_a_block_variable_may_have_the_name_of_another_loops_iterator():
    """``int i = j / 2;`` and ``double k`` in a block, where other loops of the region
    run over ``i`` and ``k`` (helper-47: refused as 'a loop iterator inside the
    region'): ``i`` there is the alias ``j / 2``, ``k`` a scalar of its own."""
    [scop] = extract(program(SHADOWING), filename="shadow.c")
    s0, s1, s2 = scop.statements
    assert s1.body == "k_1 = A[((int) (j / 2))][j] * 0.5;" and s2.body == "C[j] = k_1 + B[((int) (j / 2))][j];"
    [read] = [a for a in s1.accesses if a.array == "A"]
    name = s1.domain.get_tuple_name()
    assert isl.UnionMap.from_map(read.relation).intersect_params(scop.context).is_equal(isl.UnionMap(
        f"[N] -> {{ {name}[j] -> A[floor(j / 2), j] : 0 <= j < N }}").intersect_params(scop.context))


C89_ITERATOR = """  for (i = 1; i < N; i++) {
    unsigned k;
    for (k = 0; k < N; k++)
      B[i][k] = B[i - 1][k] + A[i][k];
    for (k = 1; k < N; k++)
      B[i][k] += B[i][k - 1] * 0.5;
  }"""


def test_a_c89_iterator_declared_in_its_block_is_its_loops_own():
    """``{ unsigned k; for (k = 0; ...) ...; for (k = 1; ...) ...; }``: no value of k
    leaves its loops, so each loop has its own k, of k's type."""
    [scop] = extract(program(C89_ITERATOR), filename="c89.c")
    s0, s1 = scop.statements
    assert s0.iterators == ["i", "k"] and s1.iterators == ["i", "k"]
    assert scop.variable_types["k"] == "unsigned" and "k" in scop.loop_scoped
    expected = isl.Set(f"[N] -> {{ {s1.domain.get_tuple_name()}[i, k] : 1 <= i < N and 1 <= k < N }}")
    assert s1.domain.intersect_params(scop.context).is_equal(expected.intersect_params(scop.context))


@pytest.mark.parametrize("body", [
    # its value after the loop is read
    "  for (i = 0; i < N; i++) {\n    int k;\n    for (k = 0; k < i; k++)\n      B[i][k] = 1.0;\n    C[i] = k;\n  }",
    # a remainder loop continues where the first stopped
    "  for (i = 0; i < N; i++) {\n    int k;\n    for (k = 0; k + 4 <= N; k += 4)\n      B[i][k] = 1.0;\n"
    "    for (; k < N; k++)\n      B[i][k] = 2.0;\n  }",
    # an initialiser that is no literal
    "  for (i = 0; i < N; i++) {\n    int k = i;\n    for (k = 0; k < N; k++)\n      B[i][k] = 3.0;\n  }",
])
def test_a_loop_over_a_block_variable_used_outside_its_loops_is_refused(body):
    with pytest.raises(ScopError) as info:
        extract(program(body), filename="bad.c")
    assert "loop over 'k', a variable that a block of the region declares and uses outside its loops" \
        in info.value.message
    assert info.value.line == program(body).splitlines().index("    for (k = 0; k" + body.split("for (k = 0; k")[1]
                                                                   .split("\n")[0]) + 1


TYPED_ALIASES = """#include <stdio.h>
double A[30000];
long L[30000], M[30000];

void kernel(long n)
{
  long i, j, k;
#pragma scop
  for (j = 0; j < n; j++) {
    long t = j - 5;
    A[j] = (t < 3u) ? 1.0 : 2.0;
  }
  for (j = 0; j < n; j++) {
    int u = j * 100000;
    L[j] = u;
  }
  for (i = 0, k = n - 1; i < n; i++, k--)
    M[i] = k * 1000000000;
#pragma endscop
}

int main(void)
{
  long n, i, sizes[] = {0, 1, 10, 21474, 21475, 21478, 30000};
  for (n = 0; n < 7; n++) {
    kernel(sizes[n]);
    double s = 0;
    long l = 0;
    for (i = 0; i < sizes[n]; i++) {
      s += A[i] * (i % 7 + 1);
      l += (L[i] % 1000003) * (i % 5 + 1) + M[i] % 999983;
    }
    printf("%ld %.17g %ld\\n", sizes[n], s, l);
  }
  return 0;
}
"""


def test_an_alias_has_the_type_of_its_variable():
    """helper-51, wrong code: ``long t = j - 5;`` was read as ``(j - 5)``, so with an
    int j ``t < 3u`` became an unsigned comparison; ``int u = j * 100000`` with a long
    j lost its narrowing; ``long k`` stepped with the loop was computed in int. Each
    alias is now its value converted to the variable's type, and the model's value
    holds where it fits (a run-time check)."""
    [scop] = extract(TYPED_ALIASES, filename="typed.c")
    s0, s1, s2 = scop.statements
    assert s0.body == "A[j] = (((long) (j - 5)) < 3u) ? 1.0 : 2.0;"
    assert s1.body == "L[j] = ((int) (j * 100000));"
    assert s2.body == "M[i] = (((long) (n - 1)) - (((long) i) - ((long) (0))) * 1) * 1000000000;"
    # u fits an int for j * 100000 <= 2**31 - 1: n - 1 <= 21474
    assert scop.context.is_subset(isl.Set("[n] -> { : n <= 21475 }"))


REGION_CONSTANT = """#include <stdio.h>
double A[300], B[300];
unsigned m = 7;

void kernel(int n)
{
  int i;
#pragma scop
  A[0] = m;
  m = n / 2;
  for (i = 1; i < m; i++)
    A[i] = B[i] + B[i + m] + (double)(m - 5u);
#pragma endscop
}

int main(void)
{
  int i, n;
  for (i = 0; i < 300; i++)
    B[i] = i * 0.5 + 1.0;
  for (n = 0; n < 300; n += 37) {
    kernel(n);
    double s = 0;
    for (i = 0; i < 300; i++)
      s += A[i] * (i + 1);
    printf("%d %.17g %u\\n", n, s, m);
  }
  return 0;
}
"""


def test_a_scalar_set_once_at_the_top_of_the_region_may_bound_loops():
    """``m = n / 2;`` and then ``i < m``, ``B[i + m]`` (helper-47: refused as
    data-dependent): after its only write, m is n / 2 in the model, and the emitted
    statements read ``((unsigned) (n / 2))``, of m's type (``m - 5u`` wraps as it did).
    A read before the write reads the variable."""
    [scop] = extract(REGION_CONSTANT, filename="half.c")
    s0, s1, s2 = scop.statements
    assert s0.body == "A[0] = m;" and [a.array for a in s0.accesses if a.kind == "read"] == ["m"]
    assert s1.body == "m = n / 2;" and [a.array for a in s1.accesses if a.kind == "write"] == ["m"]
    assert s2.body == "A[i] = B[i] + B[i + ((unsigned) (n / 2))] + (double)(((unsigned) (n / 2)) - 5u);"
    assert not [a for a in s2.accesses if a.array == "m"]
    name = s2.domain.get_tuple_name()
    expected = isl.Set(f"[n] -> {{ {name}[i] : 1 <= i < floor(n / 2) }}")
    assert s2.domain.intersect_params(scop.context).is_equal(expected.intersect_params(scop.context))


def test_a_scalar_set_twice_is_still_no_bound():
    body = REGION_CONSTANT.replace("  A[0] = m;\n", "  m = n / 4;\n")
    with pytest.raises(ScopError) as info:
        extract(body, filename="twice.c")
    assert "'m' is written inside the SCoP" in info.value.message


NEGATIVE_DIVISOR = """#include <stdio.h>
double A[300][300], B[300][300];

void kernel(int n)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] * 0.5 + A[(i + 1) / -1 + n][j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = A[i][j / -2 + n / 2] + A[i % -3][j];
#pragma endscop
}

int main(void)
{
  int i, j, k, sizes[] = {0, 1, 2, 17, 64, 299};
  for (k = 0; k < 6; k++) {
    for (i = 0; i < 300; i++)
      for (j = 0; j < 300; j++)
        A[i][j] = (i * 7 + j * 3) % 11;
    kernel(sizes[k]);
    double s = 0;
    for (i = 0; i < 300; i++)
      for (j = 0; j < 300; j++)
        s += A[i][j] * (i + 2 * j + 1) + B[i][j] * (3 * i + j + 1);
    printf("%d %.17g\\n", sizes[k], s);
  }
  return 0;
}
"""


def test_division_by_a_negative_constant_is_minus_the_division():
    """C's ``a / -d`` is ``-(a / d)`` and ``a % -d`` is ``a % d`` (helper-48: refused
    as 'divides by something other than a positive integer constant')."""
    [scop] = extract(NEGATIVE_DIVISOR, filename="neg.c")
    s0, s1 = scop.statements
    expected = [
        (s0, f"[n] -> {{ {s0.name}[i, j] -> A[n - 1 - i, j] }}"),
        (s1, f"[n] -> {{ {s1.name}[i, j] -> A[i, floor(n / 2) - floor(j / 2)]; {s1.name}[i, j] -> A[i mod 3, j] }}"),
    ]
    for stmt, text in expected:
        reads = isl.UnionMap.empty(isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0))
        for access in stmt.accesses:
            if access.kind == "read" and access.array == "A" and not access.relation.is_equal(
                    isl.Map(f"[n] -> {{ {stmt.name}[i, j] -> A[i, j] }}").intersect_domain(stmt.domain)):
                reads = reads.union(isl.UnionMap.from_map(access.relation))
        domain = isl.UnionSet.from_set(stmt.domain.intersect_params(scop.context))
        assert reads.intersect_domain(domain).is_equal(isl.UnionMap(text).intersect_domain(domain)), stmt.name


def test_an_unsigned_value_divided_by_a_negative_constant_is_refused():
    text = NEGATIVE_DIVISOR.replace("  int i, j;\n#pragma scop", "  unsigned i, j;\n#pragma scop")
    with pytest.raises(ScopError) as info:
        extract(text, filename="neg.c")
    assert "divides in unsigned arithmetic by a negated constant, which wraps to a huge divisor" in info.value.message


# (session 41: newly accepted; each program's model is checked by its own test above)
ACCEPTED = {"shadowing": lambda: program(SHADOWING), "c89_iterator": lambda: program(C89_ITERATOR),
            "typed_aliases": lambda: TYPED_ALIASES, "region_constant": lambda: REGION_CONSTANT,
            "negative_divisor": lambda: NEGATIVE_DIVISOR}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(ACCEPTED))
def test_newly_accepted_programs_end_to_end(tmp_path, name, mode):
    roundtrip(tmp_path, ACCEPTED[name](), MODES[mode]())


@pytest.mark.parametrize("body, fragment", [
    ("  for (i = 0; i < N; i++) {\n    static double t = 0;\n    C[i] = t;\n  }", "'static'"),
    ("  for (i = 0; i < N; i++) {\n    double v[2][2] = {[1] = {2, 3}};\n    v[0][i % 2] = 1;\n"
     "    C[i] = v[0][0];\n  }", "designators"),
    ("  for (i = 0; i < N; i++) {\n    int m = i * 2;\n    m = m + 1;\n    C[m] = 0;\n  }", "data-dependent"),
])
def test_block_scope_declarations_still_refused(body, fragment):
    with pytest.raises(ScopError) as info:
        extract(program(body), filename="bad.c")
    assert fragment in info.value.message


# -- preprocessor lines in a region; polysched's own output optimized again ----------------

def test_define_and_undef_inside_region_apply_there():
    body = """  #define polysched_min(x, y) ((x) < (y) ? (x) : (y))
  for (int c0 = 0; c0 <= (N - 1) / 8; c0 += 1)
    #pragma omp simd
    for (int c1 = 8 * c0; c1 <= polysched_min(N - 1, polysched_min(8 * c0 + 7, N + 3)); c1 += 1)
      C[c1] = A[c1][0];
  #undef polysched_min"""
    [scop] = extract(program(body), filename="def.c")
    [stmt] = scop.statements
    expected = isl.Set("[N] -> { S0[c0, c1] : c0 >= 0 and 8c0 <= c1 <= 8c0 + 7 and 0 <= c1 < N }")
    assert stmt.domain.is_equal(expected.set_tuple_name("S0"))


STENCIL = """  for (i = 1; i < N; i++)
    for (j = 1; j < N; j++)
      B[i][j] = A[i][j] + A[i - 1][j] + A[i][j - 1];
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      C[i] += B[i][j] * A[j][i];"""


def test_own_output_optimized_again(tmp_path):
    source = program(STENCIL, n=37)
    first = tmp_path / "first.c"
    first.write_text(source)
    once = optimize(first, OptimizeOptions.from_flags(scheduler="pluto", tile=True, tile_sizes=[8, 8, 8]))
    assert "#define polysched_" in once.text
    once_path = tmp_path / "once.c"
    once_path.write_text(once.text)
    twice = optimize(once_path, OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True))
    twice_path = tmp_path / "twice.c"
    twice_path.write_text(twice.text)
    verdict = verify(first, twice_path, workdir=tmp_path)
    assert verdict.ok, f"{verdict.status}: {verdict.reason}"


# -- deep expressions ----------------------------------------------------------------------

def test_five_thousand_terms():
    terms = " + ".join(f"A[i][{k % 7}]" for k in range(5000))
    sub = " + ".join(["i"] * 5000)
    body = f"  for (i = 0; i < N; i++)\n    C[i] = {terms};\n  for (i = 0; i < 2; i++)\n    C[{sub}] = 1.0;"
    [scop] = extract(program(body, n=10000), filename="deep.c")
    s0, s1 = scop.statements
    assert len(s0.accesses) == 5001
    assert same_map(s0.accesses[-1], "[N] -> { S0[i] -> A[i, 1] }")   # the last term: 4999 % 7 == 1
    assert same_map(s1.accesses[0], "[N] -> { S1[i] -> C[5000i] }")


def test_deeply_parenthesised_expression():
    expr = "A[i][0]"
    for k in range(3000):
        expr = f"A[i][{k % 5}] * ({expr})"
    [scop] = extract(program(f"  for (i = 0; i < N; i++)\n    C[i] = {expr};"), filename="deep2.c")
    assert len(scop.statements[0].accesses) == 3002


# -- errors: clear, one line, at the right place -------------------------------------------------

def test_undeclared_bound_is_an_error():
    text = "double A[100];\nvoid f(void)\n{\n  int i;\n#pragma scop\n  for (i = 0; i < UNDEFINED_SIZE; i++)\n" \
           "    A[i] = 0;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="u.c")
    assert str(info.value) == "u.c:6:19: error: 'UNDEFINED_SIZE' is not declared"


@pytest.mark.parametrize("macro", ["__LINE__", "__COUNTER__"])
def test_a_predefined_macro_in_a_region_is_named_as_such(macro):
    """helper-102: ``A[i] = i + __LINE__;`` was refused as "'__LINE__' is not declared"."""
    text = f"int A[100];\nvoid f(void)\n{{\n#pragma scop\n  for (int i = 0; i < 100; i++)\n" \
           f"    A[i] = i + {macro};\n#pragma endscop\n}}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="m.c")
    assert str(info.value) == f"m.c:6:16: error: '{macro}' is a macro the C compiler predefines, which " \
                              f"polysched does not expand inside a region: write its value instead"


def test_an_undeclared_iterator_is_an_error():
    """helper-33 (Pluto's test excerpts): a loop whose iterator nothing declares was
    accepted, and the output written did not compile. An iterator declared in the region
    before the region, or by the loop, is fine."""
    text = "double A[100];\nvoid f(int n)\n{\n#pragma scop\n  for (t = 0; t < 10; t++)\n" \
           "    for (int i = 0; i < n; i++)\n      A[i] = A[i] + t;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="t.c")
    assert str(info.value) == "t.c:5:3: error: 't' is not declared"
    [scop] = extract(text.replace("#pragma scop\n", "  int t;\n#pragma scop\n"), filename="t.c")
    assert [s.iterators for s in scop.statements] == [["t", "i"]]


def test_a_size_used_outside_the_region_but_never_declared_is_named_so():
    text = "double A[100];\nvoid f(void)\n{\n  int i;\n  for (i = 0; i < N; i++) A[i] = 1;\n#pragma scop\n" \
           "  for (i = 0; i < N; i++)\n    A[i] = A[i] * 2;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError, match="the type of 'N' is not known: polysched found no declaration of it "
                                        "that it reads \\(none at all"):
        extract(text, filename="m.c")


def test_size_macro_of_an_inactive_preset_is_undeclared():
    text = "#ifdef LARGE\n#define M 100\n#endif\ndouble A[100];\nvoid f(void)\n{\n  int i;\n#pragma scop\n" \
           "  for (i = 0; i < M; i++)\n    A[i] = 0;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="p.c")
    assert str(info.value) == "p.c:9:19: error: 'M' is not declared"
    [scop] = extract(text, defines={"LARGE": None}, filename="p.c")
    assert scop.parameter_values == {"M": 100}


def test_parameters_that_are_declared_are_still_accepted():
    text = """#include <unistd.h>
enum { SIZE = 64 };
extern int external_n;
double A[100];
void f(int n)
{
  int i, m = 5;
#pragma scop
  for (i = 0; i < n + m + SIZE + external_n + optind; i++)
    A[i] = 0;
#pragma endscop
}
"""
    [scop] = extract(text, filename="ok.c")     # optind: declared by <unistd.h>
    assert set(scop.parameters) == {"n", "m", "external_n", "optind"}     # SIZE is 64


ENUMS = """enum { N = 100, M = N + 20, K, NEG = -(1 << 3) };
enum dir { LEFT, RIGHT = 'a' - 92 };
double A[N][M];
void f(int M2)
{
  enum { STEP = 3 };
  int i, j;
#pragma scop
  for (i = 1; i < N; i += STEP)
    for (j = RIGHT; j < K; j++)
      A[i][j % M] = A[i - 1][j - RIGHT] * LEFT + NEG;
#pragma endscop
}
void g(int n)
{
  int K = n;
  int i;
#pragma scop
  for (i = 0; i < K; i++)
    A[0][i] = 1.0;
#pragma endscop
}
"""


def test_enumeration_constants_are_the_constants_they_stand_for():
    """Enumerators were read as parameters: ``j % M`` was refused ("divides by something
    other than a positive integer constant"), a step ``STEP`` was not constant. They
    are constants of the program (no -D changes them), folded from their definitions
    (implicit values, earlier enumerators, character constants, shifts; character
    constants are blanked in the text the front end reads declarations from, which once
    made RIGHT -92); a variable declared in the function hides one."""
    first, second = extract(ENUMS, filename="e.c")
    assert first.parameters == [] and second.parameters == ["K"]
    [s0] = first.statements
    # RIGHT = 'a' - 92 = 5, K = 121, STEP = 3
    assert s0.domain.is_equal(isl.Set("{ S0[i, j] : 1 <= i < 100 and (i - 1) mod 3 = 0 and 5 <= j < 121 }"))
    write = [a for a in s0.accesses if a.kind == "write"][0]
    assert same_map(write, "{ S0[i, j] -> A[i, j mod 120] }")


def test_undeclared_array_in_a_statement_is_an_error():
    text = "void f(void)\n{\n  int i;\n#pragma scop\n  for (i = 0; i < 10; i++)\n    Z[i] = 0;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="z.c")
    assert str(info.value) == "z.c:6:5: error: 'Z' is not declared"


def test_line_directives_are_honoured_in_errors():
    text = "double A[10];\nvoid f(void)\n{\n  int i;\n#line 500 \"orig.c\"\n#pragma scop\n" \
           "  for (i = 0; i < 10; i++)\n    A[i] = A[i] + while;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="gen.c")
    assert (info.value.filename, info.value.line, info.value.col) == ("orig.c", 502, 19)
    inside = text.replace("    A[i] = A[i] + while;", "#line 77\n    A[i] = A[i] + while;")
    with pytest.raises(ScopError) as info:
        extract(inside, filename="gen.c")
    assert (info.value.filename, info.value.line) == ("orig.c", 77)


def test_missing_header_one_line(tmp_path):
    (tmp_path / "a.h").write_text("#include \"deeper_missing.h\"\n")
    src = tmp_path / "m.c"
    src.write_text("#include <stdio.h>\n#include \"missing_header.h\"\ndouble A[4];\nvoid f(void) {\n  int i;\n"
                   "#pragma scop\n  for (i = 0; i < 4; i++) A[i] = 0;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError) as info:
        extract(src)
    assert str(info.value) == f"{src}:2:10: error: cannot find the included header 'missing_header.h'"
    src.write_text(src.read_text().replace("missing_header.h", "a.h"))
    with pytest.raises(ScopError) as info:
        extract(src)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{tmp_path / 'a.h'}:1:10: error: ")
    assert "'deeper_missing.h'" in message and f"{src}:2" in message


def test_literal_wider_than_64_bits():
    body = "  for (i = 0; i < N; i++)\n    C[i + 99999999999999999999] = 0;"
    with pytest.raises(ScopError) as info:
        extract(program(body), filename="w.c")
    assert (info.value.line, info.value.col) == line_col_of(program(body), "99999999999999999999")
    assert "is past 2**63 - 1" in info.value.message
    # an unsigned long long literal past 2**63 fits its type, not the loop code's long long
    body = body.replace("99999999999999999999", "9223372036854775808ULL")
    with pytest.raises(ScopError) as info:
        extract(program(body), filename="w.c")
    assert info.value.message.endswith("integer constant '9223372036854775808ULL' is past 2**63 - 1, "
                                       "the range of the loop code's long long arithmetic")


# -- size macros in products and divisions -------------------------------------------------

MACRO_PRODUCTS = """#include <stdio.h>
#ifndef M
#define M 12
#endif
#define N 10
#define DIL 2
#define K 3
double A[N * M + 100], B[N][M], C[N * M];

void kernel(void)
{
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      B[i][j] = A[i * M + j] + A[(i % M) + DIL * (K - 1)];
  for (i = 0; i < N * M; i++)
    C[i] = A[i] * 2.0;
#pragma endscop
}

int main(void)
{
  int i, j;
  for (i = 0; i < N * M + 100; i++)
    A[i] = i % 7 + 0.5;
  kernel();
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      printf("%g\\n", B[i][j]);
  for (i = 0; i < N * M; i++)
    printf("%g\\n", C[i]);
  return 0;
}
"""


def test_size_macro_in_product_uses_its_value_and_the_context_says_so():
    [scop] = extract(MACRO_PRODUCTS, filename="mp.c")
    # the values used as constants are assumptions of the scop (M = 12, K = 3); N and
    # DIL, only ever multiplied by a constant, stay symbolic: N a size (>= 1), DIL an
    # offset in a subscript (>= 0)
    expected = isl.Set("[N, M, DIL, K] -> { : M = 12 and K = 3 and N >= 1 and DIL >= 0 }")
    assert scop.context.is_equal(expected.align_params(scop.context.get_space()))
    s0, s1 = scop.statements
    assert same_map(s0.accesses[1], "[N, M, DIL, K] -> { S0[i, j] -> A[12i + j] }")
    assert same_map(s0.accesses[2], "[N, M, DIL, K] -> { S0[i, j] -> A[(i mod 12) + 2 DIL] }")
    assert s1.domain.is_equal(isl.Set("[N, M, DIL, K] -> { S1[i] : 0 <= i < 12N }")
                              .align_params(s1.domain.get_space()))


def test_size_macro_in_product_end_to_end_and_under_another_value(tmp_path):
    result = roundtrip(tmp_path, MACRO_PRODUCTS, OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True))
    assert "M == 12" in result.text
    # compiled with another M, the check sends execution to the original code
    out = tmp_path / "prog.out.c"
    verdict = verify(tmp_path / "prog.c", out, defines={"M": "7"}, workdir=tmp_path)
    assert verdict.ok, verdict.reason


def test_product_of_iterators_is_still_not_affine():
    text = "double A[100];\nvoid f(int n)\n{\n  int i, j;\n#pragma scop\n  for (i = 0; i < 10; i++)\n" \
           "    for (j = 0; j < 10; j++)\n      A[i * j] = 0;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="v.c")
    assert "non-affine product" in info.value.message


LINEARISED = """void f(int n, int m, double *A, double *B, double *V)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i * n + j] = A[(i + 1) * n + j - 1] + B[j * m + i] + B[i];
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++)
      for (k = 0; k < n; k++)
        V[(i * m + j) * n + k] = V[i * n * m + j * n + k + n * m];
#pragma endscop
}
"""


def test_linearised_subscripts_are_read_as_the_rows_they_stand_for():
    """``A[i * n + j]`` was refused ("non-affine product"). It is now the element
    (i, j) of rows of n (delinearize.py), with 0 <= j < n assumed wherever it is
    evaluated; every access of the array is read through the same rows (B[i] is
    (0, i)), and three dimensions are planes of rows."""
    [scop] = extract(LINEARISED, filename="lin.c")
    s0, s1 = scop.statements
    # A[(i + 1) * n + j - 1]: row i + 1 at column j - 1, except at j = 0, where column -1
    # is the last one of row i (piecewise: exact for every n, nothing assumed)
    expected = ["{ S0[i, j] -> A[i, j] }",
                "{ S0[i, j] -> A[i + 1, j - 1] : j > 0; S0[i, 0] -> A[i, n - 1] }",
                "{ S0[i, j] -> B[j, i] }", "{ S0[i, j] -> B[0, i] }"]
    assert len(s0.accesses) == 4
    for access in s0.accesses:
        assert any(same_map(access, "[n, m] -> " + text) for text in expected), access.relation
    assert same_map(s1.accesses[-1], "[n, m] -> { S1[i, j, k] -> V[i + 1, j, k] }")
    assert scop.context.is_equal(isl.Set("[n, m] -> { : n > 0 and m > 0 }")), scop.context
    assert scop.arrays["A"].dims == ["", "n"] and scop.arrays["B"].dims == ["", "m"]
    assert scop.arrays["V"].dims == ["", "m", "n"] and scop.arrays["V"].linearized
    assert scop.arrays["V"].element(["a", "b", "c"]) == "V[((a) * (m) + (b)) * (n) + (c)]"


def test_gnu_statement_expression_is_one_clear_line():
    body = "  for (i = 0; i < N; i++)\n    C[i] = ({ double t = 1; t; });"
    with pytest.raises(ScopError) as info:
        extract(program(body), filename="g.c")
    assert "statement expression" in info.value.message and "\n" not in str(info.value)


def test_an_empty_region_is_left_out_with_a_notice(capsys):
    text = """double A[10], s;
void f(void) {
#pragma scop
#pragma endscop
#pragma scop
  A[3] = A[2] + A[4];
  s = A[3] * 2;
#pragma endscop
}
"""
    [scop] = extract(text, filename="empty.c")
    assert [stmt.name for stmt in scop.statements] == ["S0", "S1"] and scop.start_line == 5
    assert "empty.c:3: the region contains no assignment statement; it is kept as written" in capsys.readouterr().err


# -- macros that write statements ------------------------------------------------------

FOR_MACROS = """#include <stdio.h>
#define FOR(i, n) for (i = 0; i < (n); i++)
#define FORR(i, lo, hi) \\
  for (i = (lo); i < (hi); i++)
#define N 60
double A[N][N], B[N][N];
void kernel(int n) {
  int i, j;
#pragma scop
  FOR(i, n)
    FORR(j, 1,
         n)
      B[i][j] = A[i][j-1] * 0.5 + A[i][j];
  FOR(i, n) FOR(j, n) A[i][j] = B[i][j] + 1.0;
  FOR(i, n) A[i][i * i] = 0;
#pragma endscop
}
int main(int argc, char **argv) {
  int i, j, n = argc > 1 ? 0 : N;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) A[i][j] = (i * 3 + j) % 11;
  kernel(n);
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g %.17g\\n", A[i][j], B[i][j]);
  return 0; }
"""


def test_macros_that_write_loop_headers_are_expanded():
    """``FOR(i, n)`` was 'syntax error before FOR'. A macro whose body holds a
    statement token is expanded where the region uses it, on the lines it took."""
    affine = FOR_MACROS.replace("  FOR(i, n) A[i][i * i] = 0;\n", "")
    [scop] = extract(affine)
    assert [str(s.domain) for s in scop.statements] == [
        "[n] -> { S0[i, j] : 0 <= i < n and 0 < j < n }", "[n] -> { S1[i, j] : 0 <= i < n and 0 <= j < n }"]
    assert (scop.statements[0].line, scop.statements[1].line) == (13, 14)
    with pytest.raises(ScopError) as err:     # a later error is still where the file has it
        extract(FOR_MACROS)
    assert (err.value.line, err.value.col) == line_col_of(FOR_MACROS, "i * i]")


@pytest.mark.parametrize("mode", [dict(tile=True, parallel=True), dict(scheduler="isl", fuse="max")])
def test_macros_that_write_loop_headers_end_to_end(tmp_path, mode):
    affine = FOR_MACROS.replace("  FOR(i, n) A[i][i * i] = 0;\n", "")
    roundtrip(tmp_path, affine, OptimizeOptions.from_flags(**mode))


ASSIGNING_MACROS = """#include <stdio.h>
#define UPD(x, y) x = (x) * 0.5 + (y)
#define ACC(s, v) s += (v)
double A[64], B[64];
void kernel(int n) {
#pragma scop
  for (int i = 1; i < n; i++)
    UPD(A[i], A[i - 1]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      ACC(B[i], A[j] * 0.25);
#pragma endscop
}
int main(int argc, char **argv) {
  int n = argc > 1 ? 0 : 64;
  for (int i = 0; i < 64; i++) { A[i] = i % 7; B[i] = i % 3; }
  kernel(n);
  for (int i = 0; i < 64; i++) printf("%.17g %.17g\\n", A[i], B[i]);
  return 0; }
"""


def test_macros_that_write_an_assignment_are_statements(tmp_path):
    """helper-101: ``UPD(A[i], A[i - 1]);`` with ``#define UPD(x, y) x = (x) * 0.5 + (y)``
    was refused as a call statement. A macro whose body assigns is expanded where the
    region uses it, as one that writes braces or a loop header is."""
    [scop] = extract(ASSIGNING_MACROS)
    assert [str(s.domain) for s in scop.statements] == [
        "[n] -> { S0[i] : 0 < i < n }", "[n] -> { S1[i, j] : 0 <= i < n and 0 <= j < n }"]
    roundtrip(tmp_path, ASSIGNING_MACROS, OptimizeOptions.from_flags(tile=True, parallel=True))


MACRO_SHAPES = """#include <stdio.h>
#define FOR(i, n) for (i = 0; i < (n); i++)
#define FOR2(i, j, n) FOR(i, n) FOR(j, n)
#define STEP(i, s) for (i = 1; i < 40; i += (s))
#define BODY(i, j) { A[i][j] *= 0.5; A[i][j] += 1.0; }
#define CUR A[i][j]
double A[40][40];
int main(void) {
  int i, j, n = 40;
  for (i = 0; i < 40; i++) for (j = 0; j < 40; j++) A[i][j] = (i * 3 + j) % 7;
#pragma scop
  FOR2(i, j, n) BODY(i, j)
  STEP(i, 3) FOR(j, n) CUR = CUR * 2.0 + 1.0;
#pragma endscop
  for (i = 0; i < 40; i++) for (j = 0; j < 40; j++) printf("%.17g\\n", A[i][j]);
  return 0; }
"""


def test_macros_nested_with_blocks_compound_steps_and_hidden_iterators(tmp_path):
    """FOR2 (a macro of statement macros), a '{ ... *= ...; }' body and an 'i += (s)'
    step were syntax errors; 'CUR' hid the iterators i and j from the renaming of the
    emitted statement, which then read stale values (wrong code)."""
    [scop] = extract(MACRO_SHAPES)
    assert len(scop.statements) == 3
    assert "A[ i ] [ j ] = A [ i ] [ j ] * 2.0 + 1.0" not in scop.statements[2].body
    assert "CUR" not in scop.statements[2].body
    roundtrip(tmp_path, MACRO_SHAPES, OptimizeOptions.from_flags(tile=True, parallel=True))
    roundtrip(tmp_path, MACRO_SHAPES, OptimizeOptions.from_flags(scheduler="identity"), name="identity")


def test_a_macro_hiding_an_iterator_it_cannot_expand_is_refused():
    """A loop written by an argument-less macro hides its iterator from the expansion
    of 'CUR'; emitted as it stands, 'CUR' would read a stale 'i'. Refused instead."""
    text = ("#define CUR A[i]\n#define LOOP for (i = 0; i < n; i++)\nvoid f(int n, double *A) { int i;\n"
            "#pragma scop\n  LOOP CUR = CUR * 2.0;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="macro 'CUR' uses the loop iterator 'i'") as err:
        extract(text)
    assert (err.value.line, err.value.col) == (5, 8)


def test_a_remainder_loop_starts_where_the_loop_before_left_its_iterator():
    text = """void f(int n, double *A)
{
  int i;
#pragma scop
  for (i = 1; i + 4 <= n; i += 4)
    A[i] = 0;
  for (; i < n; i++)
    A[i] = 1;
#pragma endscop
}
"""
    [scop] = extract(text, filename="r.c")
    s1 = scop.statements[1]
    for n in range(-2, 20):              # against running the two loops in Python
        i = 1
        while i + 4 <= n:
            i += 4
        expected = list(range(i, n))
        points = []
        s1.domain.fix_val(isl.dim_type.param, 0, isl.Val(n)).foreach_point(
            lambda p: points.append(p.get_coordinate_val(isl.dim_type.set, 0).to_python()))
        assert sorted(points) == expected, (n, points)


@pytest.mark.parametrize("body", [
    # no loop over i before it
    "  for (; i < n; i++)\n    A[i] = 1;",
    # the loop before ran in one branch only
    "  if (n > 4)\n    for (i = 0; i < 4; i++)\n      A[i] = 0;\n  for (; i < n; i++)\n    A[i] = 1;",
    # the loop before is inside another loop
    "  for (j = 0; j < 2; j++)\n    for (i = 0; i < 4; i++)\n      A[i] = 0;\n  for (; i < n; i++)\n    A[i] = 1;",
    # the loop before declares its own i: the remainder's i is another variable
    "  for (int i = 0; i + 4 <= n; i += 4)\n    A[i] = 0;\n  for (; i < n; i++)\n    A[i] = 1;",
    # ... and so is the remainder, in a later nest over the same name: i is where the
    # whole first nest left it, then n (this once gave wrong code)
    "  for (j = 0; j < 2; j++)\n    for (i = 0; i + 4 <= n; i += 4)\n      A[i] = 0;\n"
    "  for (j = 0; j < 2; j++)\n    for (; i < n; i++)\n      A[i] = 1;",
    # (a loop setting i beside its own iterator j coming between once started the
    # remainder at 4, where the first loop left i: wrong code; now i is where that loop
    # leaves it, test_a_second_counter_has_an_exit_value)
])
def test_a_remainder_loop_without_a_known_start_is_refused(body):
    text = "void f(int n, double *A)\n{\n  int i, j;\n#pragma scop\n" + body + "\n#pragma endscop\n}\n"
    with pytest.raises(ScopError, match="no start|loop initialisation"):
        extract(text, filename="r.c")


EXIT_VALUES = """#include <stdio.h>
double A[64][64], B[64];
int lastv[8];
unsigned char tag[80];

void kernel(int n, int m, unsigned un, long ln)
{
  int i, j;
  unsigned u;
  long l;
  char c;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < i; j++)
      A[i][j] = A[i][j] * 0.5 + B[j];
  lastv[0] = i + 1;
  for (i = 0; i < n; i++) {
    for (j = 0; j < m && j <= i; j++)
      A[i][j] = A[i][j] + 1.0;
    B[i] = B[i] + j;
    for (j = j; j < n; j++)
      A[i][j] = A[i][j] - B[i];
  }
  for (i = n - 1; i >= 2; i--)
    B[i] = B[i - 1] + B[i];
  lastv[1] = i;
  for (u = 0; u < un; u++)
    tag[u] = (unsigned char) (u * 3);
  tag[u] = 255;
  lastv[2] = u - 1;
  for (l = 0; l < ln; l++)
    B[l] = B[l] + l;
  lastv[3] = (int) (l * 1000000000 % 1000003);
  for (c = 10; c > n - 20; c--)
    B[c + 20] = B[c + 20] * 2.0;
  lastv[4] = c;
  for (j = i + 1; j < n + 2; j++)
    A[0][j] = A[0][j] + i;
  lastv[5] = j;
  for (i = 1; i < n; i += 3)
    B[i] = B[i] + 1.0;
  lastv[6] = i;
  for (j = n; j >= -3; j -= 2)
    B[j + 3] = B[j + 3] * 0.5;
  lastv[7] = j;
#pragma endscop
}

int main(void)
{
  int sizes[][4] = {{0, 0, 0, 0}, {-5, -1, 0, 0}, {1, 1, 1, 1}, {2, 5, 3, 2}, {7, 3, 9, 7},
                    {30, 12, 64, 40}, {60, 60, 70, 64}, {62, 0, 79, 3}};
  for (int s = 0; s < 8; s++) {
    for (int a = 0; a < 64; a++) {
      B[a] = a * 0.25 + 1;
      for (int b = 0; b < 64; b++) A[a][b] = (a * 7 + b) % 11 * 0.5;
    }
    for (int a = 0; a < 80; a++) tag[a] = 0;
    for (int a = 0; a < 8; a++) lastv[a] = -99;
    kernel(sizes[s][0], sizes[s][1], (unsigned) sizes[s][2], (long) sizes[s][3]);
    double sum = 0;
    long t = 0;
    for (int a = 0; a < 64; a++) {
      sum += B[a] * (a + 1);
      for (int b = 0; b < 64; b++) sum += A[a][b] * (a + 2 * b + 1);
    }
    for (int a = 0; a < 80; a++) t += tag[a] * (a + 1);
    printf("%.17g %ld", sum, t);
    for (int a = 0; a < 8; a++) printf(" %d", lastv[a]);
    printf("\\n");
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_iterator_read_after_its_loop_has_its_exit_value(tmp_path, mode):
    """'lastv[1] = i;' after a loop over i was refused ("loop iterator 'i' used outside
    its loop"). It reads the loop's exit value (``max(n, 0)`` after 'for (i = 0; i < n;
    i++)'), here also as a subscript ('tag[u] = 255', a string's end), in another
    loop's start and in the body of a later loop; for int, unsigned, long and char
    iterators, up and down, by 1, 3 and -2 (a floor division). The exit value is
    computed in 64 bits: 'un <= -1' on an
    unsigned 'un' is true in C, which made the region's context empty. The sizes 30,
    60 and 62 run the optimized code (its check needs n >= 20); outputs are compared
    with the original's byte for byte, at 1 and 2 threads."""
    result = exact_roundtrip(tmp_path, EXIT_VALUES, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "lastv[1] = ((int) ((long long) n >= 2 ? 1 : (long long) n - 1));" in optimized
    assert "tag[((unsigned) ((long long) un <= -1 ? 0 : (long long) un))] = 255;" in optimized
    assert "original code kept" not in result.text


EXIT_VALUES_OF_MEMBERS = r"""#include <stdio.h>
struct img { int w, stride; };
int row[200], a[200], out[8];

void kernel(struct img *img, int w, int h, const int *sz)
{
  int x, i, j, t;
#pragma scop
  for (x = 0; x < img->w; x++)
    row[x] = x * 2;
  for (j = x; j < img->stride; j++)
    row[j] = row[j - 1] + 1;
  row[x] = -1;
  for (i = 0; i < w * h; i++)
    a[i] = i;
  a[i] = -2;
  for (i = 0; i < sz[1]; i++)
    a[i] += 3;
  a[i + 1] = -3;
  for (t = 0; t < 3; t++) {
    for (i = t; i < sz[0]; i++)
      a[i] += t;
    out[t] = i;
  }
#pragma endscop
}

int main(void)
{
  int dims[][5] = {{0, 0, 0, 0, 0}, {1, 3, 2, 3, 4}, {5, 9, 4, 6, 30}, {40, 60, 7, 9, 50}, {-2, 3, -1, 5, -4}};
  for (int s = 0; s < 5; s++) {
    struct img im = {dims[s][0], dims[s][1]};
    int sz[2] = {dims[s][4] > 0 ? dims[s][4] / 2 : dims[s][4], dims[s][4]};
    for (int k = 0; k < 200; k++) { row[k] = k % 3; a[k] = k % 5; }
    kernel(&im, dims[s][2], dims[s][3], sz);
    long sum = 0;
    for (int k = 0; k < 200; k++) sum = sum * 3 + row[k] * 7 + a[k];
    printf("%ld %d %d %d\n", sum, out[0], out[1], out[2]);
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_exit_value_over_a_member_a_product_or_an_element_is_read_as_the_model_names_it(tmp_path, mode):
    """helper-73: after 'for (x = 0; x < img->w; x++)', 'row[x] = -1' and 'for (j = x;
    ...)' were refused ("struct member access in an affine expression"), and likewise
    after bounds 'w * h' and 'sz[1]': the exit value's text was read back in the
    source's spelling, not the model's (img__w, w__x__h, sz__1)."""
    result = exact_roundtrip(tmp_path, EXIT_VALUES_OF_MEMBERS, mode)
    assert "row[((int) ((long long) img->w <= -1 ? 0 : (long long) img->w))] = -1;" in result.text
    assert "original code kept" not in result.text


def test_an_exit_value_of_too_many_cases_is_refused():
    """A loop bounded by six mins (and stepping by 3) has an exit value of 23,000
    characters; a loop starting there made one of 143,000, and extraction took two
    minutes. Refused at the read instead."""
    text = """void f(int n, int m, int k, int p, int q, double *A)
{
  int i, j;
#pragma scop
  for (i = (n > m ? m : n) - (k > p ? p : k); i < n && i < m && i < k && i < p && i < q && i < 2 * n - m; i += 3)
    A[i + 100] = 0;
  for (j = i; j < (q > p ? q : p); j += 2)
    A[j + 100] = 1;
#pragma endscop
}
"""
    with pytest.raises(ScopError, match="cannot be written out .* or too many cases") as err:
        extract(text, filename="w.c")
    assert (err.value.line, err.value.col) == (7, 12)


@pytest.mark.parametrize("loop, where", [
    # helper-73: 'b[t] = i' read the first loop's exit value n at every t, while from
    # t = 1 on it is the inner loop's, m
    ("for (t = 0; t < T; t++) {\n    b[t] = i;", (8, 12)),
    # helper-74: the condition, tested again after each iteration, saw n too
    ("for (t = 0; t < i; t++) {\n    b[t] = 1;", (7, 19)),
    # ... and a break folded into it
    ("for (t = 0; t < T; t++) {\n    if (t >= i) break;\n    b[t] = 1;", (8, 14)),
])
def test_an_exit_value_is_refused_inside_a_loop_that_runs_another_loop_over_the_iterator(loop, where):
    """Wrong code: a read of i in a later loop (its body, its condition) whose body
    runs a loop over i sees that loop's exit value from the second iteration on."""
    text = f"""void f(int T, int n, int m, int *a, int *b)
{{
  int t, i;
#pragma scop
  for (i = 0; i < n; i++)
    a[i] = i;
  {loop}
    for (i = 0; i < m; i++)
      a[i] += t;
  }}
#pragma endscop
}}
"""
    with pytest.raises(ScopError, match="inside a later loop that runs another loop over 'i'") as err:
        extract(text, filename="w.c")
    assert (err.value.line, err.value.col) == where


EXIT_VALUES_IN_BRANCHES = r"""#include <stdio.h>
int A[64], out[4];

void kernel(int n)
{
  int i, j, t;
#pragma scop
  for (i = 0; i < 3; i++)
    A[i] = A[i] + 1;
  if (n > 4)
    for (i = 0; i < n; i++)
      A[i] = A[i] * 2;
  else
    out[0] = i;
  for (i = 0; i + 4 <= n; i += 4)
    A[i + 1] = A[i + 1] + 5;
  if (n > 9)
    for (i = 0; i < 5; i++)
      A[i + 2] = A[i + 2] + 3;
  else
    for (; i < n; i++)
      A[i] = A[i] - 7;
  out[1] = 1;
  out[2] = i;
  for (t = 0; t < 4; t++) {
    for (j = 0; j < t; j++)
      A[j + 20] += 1;
    if (t > 1)
      for (j = 0; j < n && j < 20; j++)
        A[j + 30] += t;
    A[j + 10] += 2;
  }
  for (j = 0; j < 2; j++)
    A[j + 40] += 1;
  if (n < 6)
    for (j = n; j > -3; j--)
      A[j + 3] += 1;
  out[3] = j;
#pragma endscop
}

int main(void)
{
  int sizes[] = {-2, 0, 1, 3, 4, 6, 9, 10, 13, 40};
  for (int s = 0; s < 10; s++) {
    for (int k = 0; k < 64; k++) A[k] = k % 9;
    out[0] = out[1] = out[2] = out[3] = -1;
    kernel(sizes[s]);
    long sum = 0;
    for (int k = 0; k < 64; k++) sum = sum * 3 + A[k];
    printf("%d %ld %d %d %d %d\n", sizes[s], sum, out[0], out[1], out[2], out[3]);
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_else_branch_sees_the_exit_values_from_before_its_if(tmp_path, mode):
    """Wrong code: the else branch was walked with the exit values the then branch's
    loops left, so 'out[0] = i' read n (the then loop's) instead of 3, and the
    remainder loop in the else branch started where the then branch's loop would
    have ended it, not at the strip-mined loop's exit. After the if, a variable both
    branches (or a branch and the code before the if) left at a known value has the
    value of the branch that ran ('out[2] = i', 'A[j + 10]' in a loop over t, 'out[3]
    = j'), once refused."""
    result = exact_roundtrip(tmp_path, EXIT_VALUES_IN_BRANCHES, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "out[0] = ((int) (3));" in optimized
    assert "out[3] = ((int) ((long long) n >= -3 && (long long) n <= 5 ? -3 : (long long) n >= 6 ? 2 : " \
           "(long long) n));" in optimized
    assert "original code kept" not in result.text


DATA_TESTS_OVER_LOOPS = r"""#include <stdio.h>

double A[40][40], B[40][40], x[40], s[40];
int mask[40];

void kernel(int n, int m)
{
  int i, j, k;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    if (mask[i] == 0)
      continue;
    s[i] = 0.0;
    for (j = 0; j < m; j++)
      s[i] += A[i][j] * x[j];
    A[i][0] = s[i];
  }
  for (i = 1; i < n; i++) {
    t = x[i] * 2.0;
    if (t > 0.5 && mask[i] != 2) {
      B[i][0] = t;
      for (j = 1; j < m; j++) {
        B[i][j] = B[i][j - 1] + A[i - 1][j];
        if (j > 3)
          for (k = 0; k < 3; k++)
            B[i][j] += x[k];
      }
    } else if (m > 5) {
      for (j = 0; j < m; j++)
        B[i][j] = -B[i][j];
    }
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      if (x[j] < 0.2)
        for (k = 0; k < m; k++)
          B[i][k] += A[j][k] * 0.25;
#pragma endscop
}

int main(void)
{
  int sizes[][2] = {{0, 0}, {1, 3}, {3, 1}, {7, 9}, {40, 40}, {33, 17}, {-2, 5}};
  for (int q = 0; q < 7; q++) {
    for (int a = 0; a < 40; a++) {
      x[a] = ((a * 7) % 11) / 10.0 - 0.3;
      mask[a] = a % 3;
      s[a] = -1;
      for (int b = 0; b < 40; b++) { A[a][b] = (a + 2 * b) % 13 / 4.0; B[a][b] = (a * b) % 7 / 2.0; }
    }
    kernel(sizes[q][0], sizes[q][1]);
    double sum = 0;
    for (int a = 0; a < 40; a++) {
      sum += s[a] * (a + 1);
      for (int b = 0; b < 40; b++) sum += A[a][b] * (a + 1) + B[a][b] * (b + 3);
    }
    printf("%d %d %.17g\\n", sizes[q][0], sizes[q][1], sum);
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_data_test_around_loops_moves_into_them(tmp_path, mode):
    """'if (mask[i] == 0) continue;' before a loop, 'if (t > 0.5 && mask[i] != 2) { ...
    for (j ...) ... } else if (m > 5) for (j ...) ...' and 'if (x[j] < 0.2) for (k ...)'
    were refused ("loop under a condition that reads the data"): the test now guards
    each run of statements inside the loops, as pet's filters do. Sizes 0 and
    negative run the original; outputs byte for byte at 1 and 2 threads."""
    result = exact_roundtrip(tmp_path, DATA_TESTS_OVER_LOOPS, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "original code kept" not in result.text
    # the continue's test, inside the loop over j, around the reduction's update
    assert re.search(r"if \(!\((mask\[c\d+\]|mask_r\d+) == 0\)\) \{\n\s*s\[c\d+\] \+= A\[c\d+\]\[c\d+\] \* (x\[c\d+\]|x_r\d+);",
                     optimized)
    assert re.search(r"if \((x\[[^]]+\]|x_r\d+) < 0\.2\) \{\n\s*B\[c\d+\]\[c\d+\] \+= A", optimized)


COMMAS_UNDER_DATA_TESTS = r"""#include <stdio.h>

double A[40][40], B[40][40], x[40], y[40];

void kernel(int n)
{
  double t;
#pragma scop
  for (int i = 0; i < n; i++) {
    if (x[i] > 0)
      for (int j = 0; j < n; j++)
        A[i][j] = A[i][j] * 2, B[i][j] = A[i][j] + x[i];
    else
      for (int j = 1; j < n; j++)
        B[i][j] = B[i][j - 1] + 1, A[i][j] -= B[i][j];
  }
  for (int p = 0; p < n; p++)
    for (int i = 0; i < n - 1; i++)
      if (y[i] > y[i + 1]) t = y[i], y[i] = y[i + 1], y[i + 1] = t;
  for (int i = 0; i < n; i++) {
    if (x[i] == 0) continue;
    for (int j = 0; j < n; j++)
      B[i][j] += 1, A[j][i] *= 0.5;
  }
#pragma endscop
}

int main(void)
{
  int sizes[] = {0, 1, 2, -3, 17, 40};
  for (int q = 0; q < 6; q++) {
    for (int i = 0; i < 40; i++) {
      x[i] = (i * 7) % 5 - 2;
      y[i] = (i * 3) % 11;
      for (int j = 0; j < 40; j++) { A[i][j] = i + j; B[i][j] = i - j; }
    }
    kernel(sizes[q]);
    double sum = 0;
    for (int i = 0; i < 40; i++) {
      sum += y[i] * (i + 1);
      for (int j = 0; j < 40; j++) sum += A[i][j] * (i + 1) + B[i][j] * (j + 3);
    }
    printf("%d %.17g\\n", sizes[q], sum);
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_comma_statements_run_under_data_tests(tmp_path, mode):
    """'if (x[i] > 0) for (j ...) A[i][j] = ..., B[i][j] = ...;', a bubble sort's swap
    't = y[i], y[i] = y[i + 1], y[i + 1] = t' under its test, and a comma statement
    after a data 'continue' were refused ("... is not an assignment, 'for' loop or 'if'
    statement"): the operands are the conditional statement's assignments, in order."""
    result = exact_roundtrip(tmp_path, COMMAS_UNDER_DATA_TESTS, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "original code kept" not in result.text
    assert re.search(r"if \(y\[c\d+\] > y\[c\d+ \+ 1\]\) t = y\[c\d+\], y\[c\d+\] = y\[c\d+ \+ 1\], "
                     r"y\[c\d+ \+ 1\] = t;", optimized)
    assert re.search(r"for \(int c\d+ = [^\n]*\n\s*if \(!\(x\[c\d+\] == 0\)\) \{\n\s*B\[c\d+\]\[c\d+\] \+= 1, ",
                     optimized), optimized


DECLARATIONS_UNDER_DATA_TESTS = r"""#include <stdio.h>

int a[64], mask[64];
double v[64], u[64], w[64][64];

void kernel(int n)
{
#pragma scop
  for (int p = 0; p < n; p++)
    for (int j = 0; j < n - 1; j++)
      if (a[j] > a[j + 1]) {
        int t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
      }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (v[i] > 0) { double s = v[i] * 2.0, q; q = s + w[i][j]; w[i][j] = q * 0.5; }
      else { long k = j; k += i; w[i][j] -= k; }
  for (int i = 0; i < n; i++) {
    if (mask[i] == 0)
      continue;
    if (v[i] > u[i]) { double t2 = v[i]; v[i] = u[i]; u[i] = t2; }
  }
  for (int i = 0; i < n; i++)
    if (mask[i] != 1)
      for (int j = 1; j < n; j++)
        if (w[i][j - 1] > w[i][j]) { double tmp = w[i][j - 1]; w[i][j - 1] = w[i][j]; w[i][j] = tmp; }
#pragma endscop
}

int main(void)
{
  int sizes[] = {0, 1, 2, -3, 17, 64};
  for (int q = 0; q < 6; q++) {
    for (int i = 0; i < 64; i++) {
      a[i] = (i * 37) % 23;
      v[i] = (i * 13) % 7 - 3;
      u[i] = (i * 5) % 9 - 4;
      mask[i] = i % 3;
      for (int j = 0; j < 64; j++) w[i][j] = (i * j) % 5;
    }
    kernel(sizes[q]);
    double sum = 0;
    for (int i = 0; i < 64; i++) {
      sum += a[i] * (i + 1) + v[i] * (i + 3) + u[i] * (i + 5);
      for (int j = 0; j < 64; j++) sum += w[i][j] * (i + 2 * j + 1);
    }
    printf("%d %.17g\\n", sizes[q], sum);
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_declaration_under_a_data_test_is_the_statements_own(tmp_path, mode):
    """A bubble sort's 'if (a[j] > a[j + 1]) { int t = a[j]; ... }' was refused ("declare
    't' before '#pragma scop'"): such a scalar lives in one run of the conditional
    statement, which sets it before reading it, so it is no memory access of the model
    (the wavefront of the sort and the parallel loop of the second nest are legal
    without it); the text runs as written. So after a data 'continue' and under a data
    test moved into loops (data_test_over_loops)."""
    result = exact_roundtrip(tmp_path, DECLARATIONS_UNDER_DATA_TESTS, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "original code kept" not in result.text
    assert re.search(r"if \(a\[[^]]+\] > a\[[^]]+ \+ 1\]\) \{\n\s*int t = a\[", optimized)
    assert "#pragma omp parallel for" in optimized
    assert re.search(r"if \(!\((mask\[[^]]+\]|mask_r\d+) == 0\)\) \{\n\s*if \(v\[[^]]+\] > u\[[^]]+\]\) \{ double t2 = ",
                     optimized), optimized
    assert re.search(r"if \((mask\[[^]]+\]|mask_r\d+) != 1\) \{\n\s*if \(w\[[^]]+\]\[[^]]+\] > w\[[^]]+\]\[[^]]+\]\) "
                     r"\{ double tmp = ", optimized), optimized
    assert not any(a.array in ("t", "s", "q", "k", "t2", "tmp") for stmt in result.regions[0].scop.statements
                   for a in stmt.accesses)


BODY_DECLARATIONS_UNDER_MOVED_TESTS = r"""#include <stdio.h>

double A[64][64], B[64][64], x[64];
int m[64];

void kernel(int n)
{
#pragma scop
  for (int i = 0; i < n; i++)
    if (m[i] != 1)
      for (int j = 0; j < n; j++) {
        double t = A[i][j] * x[i];
        B[i][j] = t * t + B[i][j];
      }
  for (int i = 1; i < n; i++) {
    if (x[i] > 0) {
      for (int j = 0; j < n; j++) {
        A[i][j] += A[i - 1][j];
        double u = B[i][j], w = u * 0.5;
        B[i][j] = w - A[i][j];
      }
    } else {
      for (int j = 0; j < n; j++) { int k = j % 3; A[i][j] -= k; }
    }
  }
#pragma endscop
}

int main(void)
{
  int sizes[] = {0, 1, 2, -3, 17, 64};
  for (int q = 0; q < 6; q++) {
    for (int i = 0; i < 64; i++) {
      x[i] = i % 5 - 2;
      m[i] = i % 3;
      for (int j = 0; j < 64; j++) { A[i][j] = (i * j * 7) % 11; B[i][j] = i - j; }
    }
    kernel(sizes[q]);
    double sum = 0;
    for (int i = 0; i < 64; i++)
      for (int j = 0; j < 64; j++) sum += A[i][j] * (i + 1) + B[i][j] * (j + 3);
    printf("%d %.17g\\n", sizes[q], sum);
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_declaration_in_a_loop_body_under_a_moved_data_test(tmp_path, mode):
    """'if (m[i] != 1) for (j ...) { double t = A[i][j] * x[i]; B[i][j] = t * t + ...; }'
    was refused ("with a declaration under the condition"): the declaration and the
    rest of its block run in one statement under the moved test, whose own scalar it
    is. (A declaration followed by a loop in its block is still refused.)"""
    result = exact_roundtrip(tmp_path, BODY_DECLARATIONS_UNDER_MOVED_TESTS, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "original code kept" not in result.text
    assert re.search(r"if \((m\[[^]]+\]|m_r\d+) != 1\) \{\n\s*double t = A\[", optimized), optimized
    assert re.search(r"if \((x\[[^]]+\]|x_r\d+) > 0\) \{\n\s*A\[[^\n]*\n\s*double u = B\[", optimized), optimized
    assert "#pragma omp parallel for" in optimized


DATA_TESTS_OF_MEMBERS = r"""#include <stdio.h>

struct cfg { double thr; int on; };
double A[20][20], x[20];

void kernel(int n, const double *lim, const struct cfg *p, const struct cfg c[20])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    if (x[i] > *lim)
      for (j = 0; j < n; j++)
        A[i][j] += 1.0;
  for (i = 0; i < n; i++)
    if (p->thr < x[i] && c[i].on)
      for (j = 0; j < n; j++)
        A[j][i] *= 0.5;
  for (i = 0; i < n; i++) {
    if (x[i] <= *lim)
      continue;
    A[i][0] -= 2.0;
  }
#pragma endscop
}

int main(void)
{
  int sizes[] = {0, 1, 2, 7, 20, -1};
  for (int s = 0; s < 6; s++) {
    struct cfg c[20], p = {0.7, 1};
    double lim = 1.2;
    for (int a = 0; a < 20; a++) {
      x[a] = (a % 7) * 0.4;
      c[a].thr = 0; c[a].on = a % 3 != 0;
      for (int b = 0; b < 20; b++) A[a][b] = a - b * 0.5;
    }
    kernel(sizes[s], &lim, &p, c);
    double sum = 0;
    for (int a = 0; a < 20; a++) for (int b = 0; b < 20; b++) sum += A[a][b] * (a + 2 * b + 1);
    printf("%d %.17g\\n", sizes[s], sum);
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_moved_data_test_is_written_as_the_source_writes_it(tmp_path, mode):
    """helper-79: a test moved into loops (or a 'continue''s, since before) was printed
    with the model's names, 'x[i] > lim__value', 'p__thr', which do not compile."""
    result = exact_roundtrip(tmp_path, DATA_TESTS_OF_MEMBERS, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "__" not in optimized.replace("__builtin", "").replace("__restrict", "")
    assert re.search(r"if \(\(p->thr < x\[c\d+\]\) && c\[c\d+\]\.on\) \{", optimized)


DATA_TEST_ITERATOR_READ_AFTER = r"""#include <stdio.h>
double A[30][30], x[30];

void kernel(int n, int clear)
{
  int i, j = -5;
#pragma scop
  for (i = 0; i < n; i++)
    if (x[i] != 0)
      for (j = 0; j < i; j++)
        A[i][j] = A[i][j] * x[i];
  CLEAR
#pragma endscop
  printf("%d %d\\n", i, j);
}

int main(void)
{
  int sizes[] = {0, 1, 2, 3, 4, 5, 29};
  for (int s = 0; s < 7; s++) {
    for (int a = 0; a < 30; a++) {
      x[a] = a % 3 - 1;
      for (int b = 0; b < 30; b++) A[a][b] = a + b;
    }
    kernel(sizes[s], 1);
    double sum = 0;
    for (int a = 0; a < 30; a++) for (int b = 0; b < 30; b++) sum += A[a][b] * (a + b + 1);
    printf("%.17g\\n", sum);
  }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_iterator_of_a_loop_under_a_data_test_is_set_after_the_region(tmp_path, mode):
    """'j' after 'if (x[i] != 0) for (j ...)' is where the last loop that ran left it:
    the original loops, statements left out, run after the optimized code and set it,
    which is exact when nothing in the region writes what the test reads. Where the
    region writes it, the region is refused."""
    result = exact_roundtrip(tmp_path, DATA_TEST_ITERATOR_READ_AFTER.replace("CLEAR", ""), mode)
    assert "original code kept" not in result.text
    # the region writes what the test reads: in a statement, a loop's start (helper-79,
    # wrong code: 'for (i = 0, lim = 100.0; ...)' was not counted), or a declaration in
    # the body that the re-run leaves out (no compile, or another 't' read)
    for change in ("CLEAR", "x[i] > t", "x[i] != 0"):
        text = DATA_TEST_ITERATOR_READ_AFTER.replace("CLEAR", "if (clear)\n    x[0] = 0;") if change == "CLEAR" \
            else DATA_TEST_ITERATOR_READ_AFTER.replace("CLEAR", "")
        if change == "x[i] > t":
            text = text.replace("x[i] != 0", "x[i] > t").replace("for (i = 0; i < n; i++)\n    if",
                                                                  "for (i = 0, t = 0.5; i < n; i++)\n    if") \
                .replace("int i, j = -5;", "int i, j = -5;\n  double t;")
        elif change == "x[i] != 0":
            text = text.replace("    if (x[i] != 0)", "  {\n    double t = x[i];\n    if (t != 0)") \
                .replace("        A[i][j] = A[i][j] * x[i];", "        A[i][j] = A[i][j] * x[i];\n  }")
        with pytest.raises(ScopError, match="sets 'j', which the code after the region reads"):
            extract(text, filename="w.c")


SECOND_COUNTERS_FROM_EXIT_VALUES = r"""#include <stdio.h>
int a[300], b[300];

void kernel(int n, int m)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    a[i] += 1;
  for (k = 0, j = i; k < m; k++, j++)
    b[j] += 1;
  for (k = 0, j = 2 * i + 1; k < m; k++, j += 1)
    b[j] += 2;
  for (k = i, j = i; k < n + 3; k++, j++)
    a[j + 100] += 1;
#pragma endscop
}

int main(void)
{
  int ns[] = {0, 1, 2, 3, 7, 40, 41};
  for (int s = 0; s < 7; s++)
    for (int m = -2; m < 45; m += 5) {
      for (int q = 0; q < 300; q++) { a[q] = q; b[q] = 2 * q; }
      kernel(ns[s], m);
      long sum = 0;
      for (int q = 0; q < 300; q++) sum = sum * 31 + a[q] + b[q];
      printf("%d %d %ld\n", ns[s], m, sum);
    }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_second_counter_starting_from_an_exit_value_reads_it(tmp_path, mode):
    """helper-75, wrong code: 'for (k = 0, j = i; ...)' after a loop over i wrote j's
    start as the raw 'i', which the optimized code never sets (its loops count c0)."""
    result = exact_roundtrip(tmp_path, SECOND_COUNTERS_FROM_EXIT_VALUES, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "(int) (i)" not in optimized and "(int) ((2 * i) + 1)" not in optimized


EXIT_VALUES_OF_SECOND_COUNTERS = r"""#include <stdio.h>

int a[400], b[400];
int out[8];

void kernel(int n, int m)
{
  int i, j, k;
  long w;
#pragma scop
  for (j = 0; j < 3; j++)
    b[j + 380] += j;
  for (i = 0, j = 5; i < n; i++, j += 2)
    a[j] = i;
  out[0] = j;
  for (i = n, k = 3; i > m; i--, k++)
    b[k] += i;
  out[1] = k;
  for (; k < 40; k++)
    b[k] += 7;
  a[j + 1] = out[1] + k;
  for (i = 0, j = n - 1; i < j; i++, j--)
    b[i + 200] = b[j + 200];
  out[2] = i;
  out[3] = j;
  for (i = 0, w = 100000; i < m; i++, w -= 3)
    a[i + 300] += 1;
  out[4] = w;
  for (k = j; k < 60; k++)
    b[k + 100] -= 1;
#pragma endscop
}

int main(void)
{
  int ns[] = {0, 1, 2, 3, 7, 40, 41};
  for (int s = 0; s < 7; s++)
    for (int m = -2; m < 45; m += 5) {
      for (int q = 0; q < 400; q++) { a[q] = q; b[q] = 2 * q; }
      kernel(ns[s], m);
      long sum = 0;
      for (int q = 0; q < 400; q++) sum = sum * 31 + a[q] + b[q];
      printf("%d %d %ld %d %d %d %d %d\n", ns[s], m, sum, out[0], out[1], out[2], out[3], out[4]);
    }
  return 0;
}
"""


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_second_counter_has_an_exit_value(tmp_path, mode):
    """'for (i = 0, j = 5; i < n; i++, j += 2) ...; out[0] = j;' was refused ("used
    outside its loop"): after the loop j is still j0 + (i - i0) * 2, at i's exit value;
    up, down, a long counter, the two-pointer 'i < j' loop, a remainder loop and
    another loop's start from one. (Wrong code once, when the loop before it over j
    was taken to be the last to set it: 'out[0] = j' read 3.)"""
    result = exact_roundtrip(tmp_path, EXIT_VALUES_OF_SECOND_COUNTERS, mode)
    optimized = result.text.split("/* polysched: the original code")[0]
    assert "out[0] = ((int) ((long long) n <= -1 ? 5 : 2 * (long long) n + 5));" in optimized
    assert "original code kept" not in result.text


STRUCTS = """struct img { int w, h; float *data; double grid[4][8]; };
typedef struct { int n; double *v; } vec_t;
struct img global_image;
void f(struct img *in, vec_t v, int k)
{
  int i, j;
#pragma scop
  for (i = 0; i < in->h; i++)
    for (j = 0; j < v.n; j++)
      in->data[i * in->w + j] = v.v[j] + global_image.grid[k][j % 8];
#pragma endscop
}
"""


def test_struct_members_are_variables_of_their_own():
    [scop] = extract(STRUCTS, filename="s.c")
    assert sorted(scop.parameters) == ["in__h", "in__w", "k", "v__n"]
    assert scop.c_texts == {"in__h": "in->h", "in__w": "in->w", "in__data": "in->data", "v__n": "v.n",
                            "v__v": "v.v", "global_image__grid": "global_image.grid"}
    data, vv, grid = scop.arrays["in__data"], scop.arrays["v__v"], scop.arrays["global_image__grid"]
    assert data.linearized and data.dims == ["", "in->w"] and data.through_pointer
    assert data.element(["i", "j"]) == "in->data[(i) * (in->w) + (j)]"
    assert vv.through_pointer and grid.dims == ["4", "8"] and not grid.through_pointer
    assert grid.element(["k", "j"]) == "global_image.grid[k][j]"


@pytest.mark.parametrize("declarators", ["p1 = {3, 0.5}, *q = &p1", "table[2] = {{1, 0.5}, {2, 1.5}}, *q",
                                         "p1 = { .n = 3 }, p2 = make(1, 2.0), *q"])
def test_the_variables_of_a_struct_definition_after_an_initializer_are_declared(declarators):
    """``struct S {...} p1 = {3, 0.5}, *q;``: ``q`` comes after an initializer (it was
    not read, so ``q->s`` was refused as a member of an undeclared variable)."""
    text = (f"struct S {{ int n; double s; }} {declarators};\ndouble A[100];\nvoid f(void)\n{{\n  int i;\n"
            "#pragma scop\n  for (i = 0; i < 50; i++)\n    A[i] = A[i] + q->s;\n#pragma endscop\n}\n")
    [scop] = extract(text, filename="init.c")
    assert scop.c_texts["q__s"] == "q->s"


AOS = """struct pt { double x, y; double v[3]; };
struct pt cloud[10][20];
void f(int n, int m, struct pt *p, double *out)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (k = 0; k < 3; k++)
      p[i].v[k] = p[i].x * k;
  for (i = 0; i < 10; i++)
    for (j = 0; j < m; j++)
      out[i * m + j] = cloud[i][j].y + p[i * m + j].y;
#pragma endscop
}
"""


def test_members_of_arrays_of_structs_are_arrays_of_their_own():
    """``p[i].v[k]`` is the element ``[i, k]`` of an array ``p__v`` of the model, printed
    back with the member after the struct's subscripts; one of a linearised array of
    structs keeps ``.y`` after the whole index."""
    [scop] = extract(AOS, filename="a.c")
    pv, px, py, cy = (scop.arrays[a] for a in ("p__v", "p__x", "p__y", "cloud__y"))
    assert pv.dims == ["", "3"] and pv.through_pointer and pv.element(["i", "k"]) == "p[i].v[k]"
    assert px.dims == [""] and px.element(["i"]) == "p[i].x"
    assert py.linearized and py.element(["i", "j"]) == "p[(i) * (m) + (j)].y"
    assert cy.dims == ["10", "20"] and not cy.through_pointer and cy.element(["i", "j"]) == "cloud[i][j].y"
    writes = {str(a.relation.range().get_tuple_name()) for s in scop.statements for a in s.accesses
              if a.kind == "write"}
    assert writes == {"p__v", "out"}


@pytest.mark.parametrize("body", [
    "  for (i = 0; i < 4; i++)\n    p[i] = q[i];\n  for (i = 0; i < 4; i++)\n    x[i] = p[i].n;",
    "  for (i = 0; i < 4; i++)\n    x[i] = s.n;\n  t = s;",
])
def test_a_struct_used_whole_and_through_members_is_refused(body):
    text = ("struct outer { int n; };\nvoid f(struct outer s, struct outer t, struct outer *p, struct outer *q,"
            " double *x)\n{\n  int i;\n#pragma scop\n" + body + "\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="used whole and through its members"):
        extract(text, filename="s.c")


@pytest.mark.parametrize("body", [
    # (s.inner.n is read since session 50: test_struct_member_arrays.py, NESTED)
    "  for (i = 0; i < 4; i++)\n    x[i] = ps[i].inner.n;",    # two levels in an array of structs
    "  for (i = 0; i < 4; i++)\n    x[i] = ps[i].n + ps[i + 1].inner.n;",
    "  for (i = 0; i < 4; i++)\n    x[i] = u->n;",             # a struct not defined in the file
])
def test_struct_members_this_front_end_does_not_read_are_refused(body):
    text = ("struct inner { int n; };\nstruct outer { struct inner inner; int n; };\nstruct unknown;\n"
            "void f(struct outer s, struct outer *ps, struct unknown *u, double *x)\n{\n  int i;\n"
            "#pragma scop\n" + body + "\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="struct member"):
        extract(text, filename="s.c")


@pytest.mark.parametrize("before", ["if (flag)", "for (t = 0; t < 3; t++)", "while (flag--)", "if (flag) ;\n  else",
                                    "if ((flag))", "WHEN(flag)", "ONLY_IF_FLAG",
                                    "if (flag)\n#ifdef NEVER\n  A[0] = 1;\n#endif"])
def test_a_region_that_is_the_body_of_a_braceless_statement_is_refused(before):
    """A probe's program: after ``if (flag)`` without braces, C guards only the
    region's first loop; the output's one if/else around the whole region put all of it
    under the if (and after ``for (t ...)`` repeated all of it, even with --identity)."""
    text = ("#define WHEN(c) if (c)\n#define ONLY_IF_FLAG if (flag)\nint A[100], B[100];\nvoid f(int flag)\n{\n  int i, t;\n  " + before + "\n#pragma scop\n"
            "  for (i = 0; i < 100; i++)\n    A[i] = A[i] + 1;\n  for (i = 0; i < 100; i++)\n"
            "    B[i] = A[i] * 2;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="without braces") as info:
        extract(text, filename="b.c")
    assert info.value.line == text[:text.index("#pragma scop")].count("\n") + 1


def test_a_region_after_a_braced_body_or_a_call_is_read():
    for before in ("if (flag) { A[0] = 1; }", "g(flag);", "{ }"):
        text = ("int A[100];\nvoid g(int);\nvoid f(int flag)\n{\n  int i;\n  " + before + "\n#pragma scop\n"
                "  for (i = 0; i < 100; i++)\n    A[i] = A[i] + 1;\n#pragma endscop\n}\n")
        [scop] = extract(text, filename="b.c")
        assert len(scop.statements) == 1


def test_declarations_with_attributes_after_the_declarator_are_read():
    """``double V[N][N] __attribute__((aligned(64)));`` stopped pycparser: V was an
    undeclared array, read as a pointer to pointers, and every region using it kept
    its original code."""
    text = ("#define N 64\ndouble V[N][N] __attribute__((aligned(64)));\n"
            "__attribute__((aligned(64))) double W[N][N];\n"
            "static double X[N] __attribute__ ((aligned (32))), Y[N];\n"
            "void k(int n)\n{\n  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n"
            "    for (j = 0; j < n; j++)\n      V[j][i] = W[i][j] + X[i] * Y[j];\n#pragma endscop\n}\n")
    [scop] = extract(text, filename="a.c")
    assert {name: (a.dims, a.origin) for name, a in scop.arrays.items()} == {
        "V": (["N", "N"], "global"), "W": (["N", "N"], "global"), "X": (["N"], "global"), "Y": (["N"], "global")}



def test_unsigned_types_of_integer_literals():
    from polysched.scop.unsigned import literal_unsigned_width
    widths = {text: literal_unsigned_width(text) for text in (
        "5", "5u", "5UL", "0x7FFFFFFF", "0xFFFFFFFF", "037777777777", "4294967295", "0xFFFFFFFFL",
        "0x1FFFFFFFFu", "0xFFFFFFFFFFFFFFFF", "0")}
    assert widths == {"5": None, "5u": 32, "5UL": 64, "0x7FFFFFFF": None, "0xFFFFFFFF": 32, "037777777777": 32,
                      "4294967295": None, "0xFFFFFFFFL": None, "0x1FFFFFFFFu": 64, "0xFFFFFFFFFFFFFFFF": 64,
                      "0": None}


@pytest.mark.parametrize("directive", ["#undef SCALE\n#define SCALE 3.0", "#define W 2.0"])
def test_defines_inside_a_region_are_refused(directive):
    """The optimized code comes first and the original's copy alone keeps the directive:
    the second nest saw the old ``SCALE``, and a ``W`` defined in the region was
    undeclared above it (probe)."""
    text = ("#define SCALE 2.0\ndouble A[30][30];\nvoid k(int n)\n{\n  int i;\n#pragma scop\n"
            "  for (i = 0; i < n; i++)\n    A[i][0] = SCALE;\n" + directive + "\n"
            "  for (i = 0; i < n; i++)\n    A[i][1] = SCALE;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="9:1: .*'#define' or '#undef' inside"):
        extract(text, filename="d.c")


def test_a_macro_that_spells_an_iterator_is_refused():
    """``#define NAMELEN(x) sizeof(#x)`` on ``i``: renamed to ``c1``, its value changed
    from 2 to 3 (probe)."""
    text = ("#define NAMELEN(x) sizeof(#x)\n#define CAT(a, b) a ## b\ndouble A[4][4];\nvoid k(int n)\n{\n"
            "  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n"
            "      A[j][i] = A[j][i] + NAMELEN(i);\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="10:7: .*'NAMELEN' turns its argument 'x' into text"):
        extract(text, filename="m.c")
    assert extract(text.replace("NAMELEN(i)", "NAMELEN(q)"), filename="m.c")


FLAT_STENCIL = r"""#include <stdio.h>
#include <stdlib.h>
#ifndef NV
#define NV 9
#endif
void kernel(int n, int m, double *D, double *E)
{
  int i, j, l;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 0; j < m; j++)
      for (l = 0; l < m; l++)
        E[(i * m + j) * m + l] = D[(i * m + j) * m + l - 1] + D[(i * m + j) * m + l + 1]
                                 + E[(i * m + j) * m + l - m] * 0.5;
#pragma endscop
}
int main(void)
{
  int n = NV, m = NV > 3 ? NV - 2 : NV;
  long i, size = (long)(n > 0 ? n : 0) * (m > 0 ? m : 0) * (m > 0 ? m : 0) + 2;
  double *D = malloc(sizeof(double) * size), *E = malloc(sizeof(double) * size);
  for (i = 0; i < size; i++) { D[i] = (double)(i % 7) - 2.5; E[i] = (double)(i % 5); }
  kernel(n, m, D + 1, E + 1);
  for (i = 0; i < size; i++) printf("%a\n", E[i]);
  return 0;
}
"""


def test_a_linearised_column_that_leaves_its_row_in_some_iterations(tmp_path):
    """``D[(i * m + j) * m + l - 1]`` at l = 0 is the last element of the row before
    (and at j = 0 too, of the plane before): read piecewise, exactly, so the region
    is optimized for every size instead of only for m <= 1, and runs right at every
    size, 0 included, against the original."""
    [scop] = extract(FLAT_STENCIL, filename="flat.c")
    assert scop.context.is_equal(isl.Set("[n, m] -> { : n > 0 and m > 0 }")), scop.context
    read = scop.statements[0].accesses[1]
    assert same_map(read, "[n, m] -> { S0[i, j, l] -> D[i, j, l - 1] : l > 0; "
                          "S0[i, j, 0] -> D[i, j - 1, m - 1] : j > 0; S0[i, 0, 0] -> D[i - 1, m - 1, m - 1] }")
    for value in (0, 1, 2, 3, 9):
        roundtrip(tmp_path, FLAT_STENCIL, MODES["pluto-tile-par"](), defines={"NV": str(value)})


def test_enumeration_constants_of_the_program_s_own_header(tmp_path):
    """helper-15: ``enum { NX = 40 }`` in the program's own header was "type not known"
    in a bound. The included headers' enumerators are constants like the file's."""
    (tmp_path / "grid.h").write_text("enum { NX = 40, NY = NX - 10 };\ntypedef enum { RED, GREEN } color_t;\n")
    source = tmp_path / "k.c"
    source.write_text('#include <stdio.h>\n#include "grid.h"\ndouble A[NX][NY];\nint main(void)\n{\n'
                      "  int i, j;\n  for (i = 0; i < NX; i++) for (j = 0; j < NY; j++) A[i][j] = i + j;\n"
                      "#pragma scop\n  for (i = 1; i < NX; i++)\n    for (j = 0; j < NY; j++)\n"
                      "      A[i][j] = A[i - 1][j] + GREEN;\n#pragma endscop\n"
                      '  for (i = 0; i < NX; i++) printf("%g\\n", A[i][NY - 1]);\n  return 0;\n}\n')
    [scop] = extract(source.read_text(), filename=str(source))
    assert scop.parameters == []
    assert scop.statements[0].domain.is_equal(isl.Set("{ S0[i, j] : 1 <= i < 40 and 0 <= j < 30 }"))
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "#pragma omp parallel for" in result.text
    assert outputs_of(result.text, tmp_path, "new", [()]) \
        == outputs_of(source.read_text(), tmp_path, "orig", [()])


def test_one_array_read_as_rows_of_two_sizes_is_refused_by_name():
    """helper-42: ``a[i * n + j]`` in one nest and ``a[i * m + j]`` in another was refused
    as a "non-affine product", which blamed a form the front end reads elsewhere."""
    text = ("void kern(int n, int m, double *a)\n{\n#pragma scop\n"
            "  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++)\n      a[i * n + j] = 1.0;\n"
            "  for (int i = 0; i < m; i++)\n    for (int j = 0; j < m; j++)\n      a[i * m + j] += 2.0;\n"
            "#pragma endscop\n}\n")
    with pytest.raises(ScopError) as info:
        extract(text, filename="mixed.c")
    assert info.value.line == 6
    assert "rows of 'm' and 'n' in different subscripts" in info.value.message, info.value.message
