"""The C front end, one construct at a time: domains and accesses are compared with
hand-written isl sets/maps by isl equality."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from polysched.scop import ScopError, extract

DATA = Path(__file__).parent / "data" / "scop"

PRELUDE = """#include <math.h>
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))
#ifndef N
# define N 100
#endif
#define M 50
#define _PB_N N
#define NM1 (N - 1)
#define DATA_TYPE double
#define ARR2D(a, x, y) a[x][y]
#define SCALE 0.5
"""


def scop_of(body: str, signature: str = "int n, int m, DATA_TYPE alpha, DATA_TYPE ARR2D(A, N, N), "
                                          "DATA_TYPE B[N][N], DATA_TYPE x[N], DATA_TYPE y[N]",
            defines=None, locals_: str = "int i, j, k; double s;"):
    text = f"{PRELUDE}void kernel({signature})\n{{\n  {locals_}\n#pragma scop\n{body}\n#pragma endscop\n}}\n"
    scops = extract(text, defines=defines, filename="t.c")
    assert len(scops) == 1
    return scops[0]


def same_set(actual: isl.Set, expected: str) -> bool:
    return actual.is_equal(isl.Set(expected).align_params(actual.get_space()))


def same_map(actual: isl.Map, expected: str) -> bool:
    return actual.is_equal(isl.Map(expected).align_params(actual.get_space()))


def accesses(stmt, kind):
    return [a for a in stmt.accesses if a.kind == kind]


def test_perfect_nest_with_size_macros_and_define_override():
    scop = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j < M; j++)\n    B[i][j] = A[j][i];", defines=["N=7"])
    s0 = scop.statements[0]
    assert same_set(s0.domain, "[N, M] -> { S0[i, j] : 0 <= i < N and 0 <= j < M }")
    assert scop.parameter_values == {"N": 7, "M": 50}
    # the context stays symbolic: every preset must be handled by generated code
    assert same_set(scop.context, "[N, M] -> { : N >= 1 and M >= 1 }")
    assert same_map(accesses(s0, "write")[0].relation,
                    "[N, M] -> { S0[i, j] -> B[i, j] : 0 <= i < N and 0 <= j < M }")
    assert same_map(accesses(s0, "read")[0].relation,
                    "[N, M] -> { S0[i, j] -> A[j, i] : 0 <= i < N and 0 <= j < M }")
    assert s0.iterators == ["i", "j"]
    assert s0.body == "B[i][j] = A[j][i];"


def test_ifndef_default_value_is_recorded():
    scop = scop_of("for (i = 0; i < N; i++)\n  x[i] = 0;")
    assert scop.parameter_values == {"N": 100}


def test_macro_expanding_to_expressions():
    scop = scop_of("for (i = 1; i < NM1; i++)\n  for (j = 0; j < _PB_N; j++)\n    B[i][j] = 0;")
    assert scop.parameters == ["N"]
    assert same_set(scop.statements[0].domain, "[N] -> { S0[i, j] : 1 <= i < N - 1 and 0 <= j < N }")


def test_int_function_parameters_become_parameters():
    scop = scop_of("for (i = 0; i < n; i++)\n  for (j = i; j <= m + 1; j++)\n    B[i][j] = 0;")
    assert scop.parameters == ["n", "m"]
    assert scop.parameter_values == {}
    assert same_set(scop.statements[0].domain, "[n, m] -> { S0[i, j] : 0 <= i < n and i <= j <= m + 1 }")
    # j <= m + 1 runs at m = 0: a size only where 0 empties the loop
    assert same_set(scop.context, "[n, m] -> { : n >= 1 and m >= 0 }")


def test_array_declarations_through_macros_locals_and_globals():
    text = PRELUDE + """double G[M][N + 1];
void kernel(int n, DATA_TYPE ARR2D(A, N, N), float *p)
{
  int i;
  DATA_TYPE loc[M];
  DATA_TYPE acc;
#pragma scop
  for (i = 0; i < M; i++) {
    loc[i] = G[i][i + 1] + A[i][i] + p[i];
    acc += loc[i];
  }
#pragma endscop
}
"""
    scop = extract(text, filename="t.c")[0]
    arrays = scop.arrays
    assert (arrays["A"].element_type, arrays["A"].dims) == ("double", ["N", "N"])
    assert (arrays["G"].element_type, arrays["G"].dims) == ("double", ["M", "N + 1"])
    assert (arrays["loc"].element_type, arrays["loc"].dims) == ("double", ["M"])
    assert (arrays["p"].element_type, arrays["p"].dims) == ("float", [""])
    assert arrays["acc"].element_type == "double" and arrays["acc"].is_scalar
    assert scop.function == "kernel"


def test_scalars_are_zero_dimensional_arrays_and_compound_assignment_reads_and_writes():
    scop = scop_of("for (i = 0; i < N; i++) {\n  s = alpha * x[i];\n  y[i] += s;\n}")
    s0, s1 = scop.statements
    assert same_map(accesses(s0, "write")[0].relation, "[N] -> { S0[i] -> s[] : 0 <= i < N }")
    assert same_map(accesses(s0, "read")[0].relation, "[N] -> { S0[i] -> alpha[] : 0 <= i < N }")
    assert [a.array for a in accesses(s1, "read")] == ["y", "s"]
    assert [a.array for a in accesses(s1, "write")] == ["y"]
    assert scop.arrays["s"].is_scalar and scop.arrays["s"].element_type == "double"
    assert scop.arrays["alpha"].element_type == "double"


def test_access_positions_are_original_lines_and_columns():
    scop = scop_of("for (i = 0; i < N; i++)\n  x[i] = y[i + 1];")
    # prelude (15 lines) + signature, brace, locals, pragma: the loop is on line 20
    line = PRELUDE.count("\n") + 5
    write, read = accesses(scop.statements[0], "write")[0], accesses(scop.statements[0], "read")[0]
    assert (write.line, write.col) == (line + 1, 3)
    assert (read.line, read.col) == (line + 1, 10)
    assert (scop.statements[0].line, scop.statements[0].col) == (line + 1, 3)


def test_downward_loops_and_reversed_band():
    scop = scop_of("for (i = N - 1; i >= 0; i--)\n  for (j = i; j > 0; --j)\n    x[j] = x[j - 1];")
    s0 = scop.statements[0]
    assert same_set(s0.domain, "[N] -> { S0[i, j] : 0 <= i <= N - 1 and 0 < j <= i }")
    band = scop.schedule.get_root().child(0)
    assert band.get_type() == isl.schedule_node_type.band
    assert str(band.band_get_partial_schedule()).replace(" ", "") == "[{S0[i0,i1]->[(-i0)]}]"


def test_strided_loops():
    scop = scop_of("for (i = 1; i < N; i += 3)\n  for (j = 10; j >= i; j -= 2)\n    for (k = 0; k <= 6; k = k + 4)\n"
                   "      B[i][j] = k;")
    assert same_set(scop.statements[0].domain,
                    "[N] -> { S0[i, j, k] : 1 <= i < N and (i - 1) mod 3 = 0 and i <= j <= 10 "
                    "and (10 - j) mod 2 = 0 and (k = 0 or k = 4) }")


def test_loop_variants_inclusive_bounds_preincrement_and_declared_iterator():
    scop = scop_of("for (int ii = 2; ii <= N; ++ii)\n  for (j = ii + 1; N >= j; j = 1 + j)\n    B[ii][j] = 0;")
    assert same_set(scop.statements[0].domain, "[N] -> { S0[ii, j] : 2 <= ii <= N and ii < j <= N }")
    assert scop.statements[0].iterators == ["ii", "j"]


def test_min_max_ternaries_and_macros():
    scop = scop_of("for (i = 0; i < N; i++)\n  for (j = MAX(0, i - 3); j <= MIN(i + 3, M - 1); j++)\n"
                   "    for (k = (i < 5 ? i : 5); k < (j > i ? j : i); k++)\n      B[i][j] = k;")
    assert same_set(scop.statements[0].domain,
                    "[N, M] -> { S0[i, j, k] : 0 <= i < N and j >= 0 and j >= i - 3 and j <= i + 3 and j <= M - 1"
                    " and (k >= i or k >= 5) and (k < j or k < i) }")


def test_min_in_bound_exact():
    scop = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j < MIN(i, M); j++)\n    B[i][j] = 0;")
    assert same_set(scop.statements[0].domain, "[N, M] -> { S0[i, j] : 0 <= i < N and 0 <= j < i and j < M }")


def test_division_of_non_negative_dividend_is_floor():
    scop = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j < (i + 1) / 2; j++)\n    B[i][j] = 0;")
    assert same_set(scop.statements[0].domain, "[N] -> { S0[i, j] : 0 <= i < N and 0 <= j and 2 j <= i - 1 }")


def test_division_of_possibly_negative_dividend_truncates_toward_zero():
    # (i - 5) / 2 in C is 0 for i = 4 (truncation), where floor would give -1
    scop = scop_of("for (i = 0; i < 10; i++)\n  for (j = 0; j <= (i - 5) / 2; j++)\n    x[j] = 0;")
    assert same_set(scop.statements[0].domain,
                    "{ S0[i, j] : 0 <= i < 10 and 0 <= j and (2 j <= i - 5 or (i = 4 and j = 0)) }")


def test_modulo_in_condition():
    scop = scop_of("for (i = 0; i < N; i++)\n  if (i % 3 == 1)\n    x[i] = 0;")
    assert same_set(scop.statements[0].domain, "[N] -> { S0[i] : 0 <= i < N and i mod 3 = 1 }")


def test_floord_ceild_macros():
    scop = scop_of("for (i = floord(-N + 1, 4); i <= ceild(N, 3); i++)\n  x[i] = 0;")
    assert same_set(scop.statements[0].domain,
                    "[N] -> { S0[i] : floor((-N + 1) / 4) <= i <= ceil(N / 3) }")


def test_if_conditions_with_logic_and_else():
    scop = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n"
                   "    if ((i == j || i + j > N) && !(j <= 2))\n      B[i][j] = 1;\n    else\n      B[i][j] = 2;")
    s0, s1 = scop.statements
    cond = "((i = j or i + j > N) and j > 2)"
    assert same_set(s0.domain, f"[N] -> {{ S0[i, j] : 0 <= i < N and 0 <= j < N and {cond} }}")
    assert same_set(s1.domain, f"[N] -> {{ S1[i, j] : 0 <= i < N and 0 <= j < N and not {cond} }}")


def test_if_with_not_equal_and_param_condition():
    scop = scop_of("if (n > 2)\n  for (i = 0; i < N; i++)\n    if (i != n)\n      x[i] = 0;")
    assert same_set(scop.statements[0].domain, "[n, N] -> { S0[i] : n > 2 and 0 <= i < N and i != n }")


def test_imperfect_nest_statement_order_and_depths():
    scop = scop_of("s = 0;\nfor (i = 0; i < N; i++) {\n  x[i] = 0;\n  for (j = 0; j < i; j++) {\n"
                   "    x[i] += B[i][j];\n  }\n  y[i] = x[i];\n}\nalpha = s;")
    names = [(s.name, s.iterators, s.body) for s in scop.statements]
    assert names == [("S0", [], "s = 0;"), ("S1", ["i"], "x[i] = 0;"), ("S2", ["i", "j"], "x[i] += B[i][j];"),
                     ("S3", ["i"], "y[i] = x[i];"), ("S4", [], "alpha = s;")]
    assert same_set(scop.statements[0].domain, "{ S0[] }")
    assert same_set(scop.statements[2].domain, "[N] -> { S2[i, j] : 0 <= i < N and 0 <= j < i }")
    order = scop.schedule_map
    before = order.lex_lt_union_map(order)       # { a -> b : a runs before b }
    expected = isl.UnionMap("[N] -> { S0[] -> S1[i]; S1[i] -> S2[i, j]; S2[i, j] -> S3[i]; S3[i] -> S1[i + 1];"
                            " S2[i, j] -> S2[i, j + 1]; S3[i] -> S4[] }").intersect_domain(scop.domain) \
        .intersect_range(scop.domain)
    assert expected.is_subset(before)
    assert before.intersect(expected.reverse()).is_empty()


def test_rhs_math_calls_and_value_macros_kept_verbatim():
    scop = scop_of("for (i = 0; i < N; i++)\n  y[i] = sqrt(fabs(x[i])) * SCALE   +  pow(alpha, 2.0);")
    s0 = scop.statements[0]
    assert s0.body == "y[i] = sqrt(fabs(x[i])) * SCALE   +  pow(alpha, 2.0);"
    assert [a.array for a in accesses(s0, "read")] == ["x", "alpha"]
    assert "SCALE" not in scop.arrays


def test_multi_line_statement_body_is_verbatim():
    scop = scop_of("for (i = 1; i < N; i++)\n  y[i] = x[i - 1]\n         + x[i];")
    assert scop.statements[0].body == "y[i] = x[i - 1]\n         + x[i];"


def test_increment_statements_on_elements_and_scalars():
    scop = scop_of("for (i = 0; i < N; i++) {\n  x[i]++;\n  --s;\n}")
    s0, s1 = scop.statements
    assert [a.kind for a in s0.accesses] == ["read", "write"]
    assert s0.body == "x[i]++;" and s1.body == "--s;"
    assert same_map(accesses(s1, "write")[0].relation, "[N] -> { S1[i] -> s[] : 0 <= i < N }")


def test_region_offsets_exclude_pragmas_and_multiple_regions():
    text = (DATA / "two_regions.c").read_text()
    scops = extract(DATA / "two_regions.c")
    assert [s.function for s in scops] == ["first", "second"]
    for s in scops:
        region = text[s.region_start:s.region_end]
        assert "pragma" not in region
        assert text[:s.region_start].rstrip().endswith("#pragma scop")
        assert text[s.region_end:].lstrip().startswith("#pragma endscop")
        assert text.count("\n", 0, s.region_start) + 1 == s.start_line + 1
    assert scops[1].parameters == ["n"]
    assert "helper_name_used_elsewhere" in scops[0].identifiers
    assert "main" in scops[0].identifiers


def test_system_headers_and_gemm_file():
    scop = extract(DATA / "gemm.c", defines={"NI": "10"})[0]
    assert scop.parameter_values == {"NI": 10, "NJ": 25, "NK": 30}
    assert [s.body for s in scop.statements] == ["C[i][j] *= beta;", "C[i][j] += alpha * A[i][k] * B[k][j];"]
    assert scop.arrays["C"].dims == ["NI", "NJ"]


def test_no_region_gives_empty_list():
    assert extract("int main(void) { return 0; }\n") == []


def test_access_relation_intersected_with_domain_and_subscript_expressions():
    scop = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j <= i; j++)\n    B[2 * i - j + 1][N - 1 - j] = x[(i + j) / 2];")
    s0 = scop.statements[0]
    assert same_map(accesses(s0, "write")[0].relation,
                    "[N] -> { S0[i, j] -> B[2i - j + 1, N - 1 - j] : 0 <= j <= i < N }")
    assert same_map(accesses(s0, "read")[0].relation,
                    "[N] -> { S0[i, j] -> x[floor((i + j) / 2)] : 0 <= j <= i < N }")


def test_defines_as_dict_and_list_are_equivalent():
    a = scop_of("for (i = 0; i < N; i++) x[i] = 0;", defines={"N": "9"})
    b = scop_of("for (i = 0; i < N; i++) x[i] = 0;", defines=["N=9"])
    assert a.parameter_values == b.parameter_values == {"N": 9}


def test_macros_in_statements_are_analysed_through_their_expansion():
    text = PRELUDE + """#define AT(a, i, j) a[(i)][(j) + 1]
#define SQRT_FUN(v) sqrt(v)
#define ALPHA alpha
void kernel(double alpha, double A[N][N + 1], double B[N][N + 1])
{
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      AT(A, i, j) = SQRT_FUN(AT(B, j, i)) * ALPHA + INFINITY * 0.0;
#pragma endscop
}
"""
    scop = extract(text, filename="t.c")[0]
    s0 = scop.statements[0]
    assert s0.body == "AT(A, i, j) = SQRT_FUN(AT(B, j, i)) * ALPHA + INFINITY * 0.0;"
    assert same_map(accesses(s0, "write")[0].relation, "[N] -> { S0[i, j] -> A[i, j + 1] : 0 <= i, j < N }")
    reads = accesses(s0, "read")
    assert [a.array for a in reads] == ["B", "alpha"]
    assert same_map(reads[0].relation, "[N] -> { S0[i, j] -> B[j, i + 1] : 0 <= i, j < N }")
    # positions of accesses written through macros point at the macro use
    assert reads[0].col == s0.body.index("SQRT_FUN") + s0.col   # the outermost macro use


def test_division_under_the_context_is_floor():
    # N - 1 >= 0 because the context says N >= 1: plain floor, no truncation pieces
    scop = scop_of("for (i = 0; i <= (N - 1) / 2; i++)\n  x[i] = 0;")
    assert same_set(scop.statements[0].domain, "[N] -> { S0[i] : 0 <= i and 2 i <= N - 1 }")


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        extract(str(tmp_path / "missing.c"))


def test_quoted_include_next_to_the_file_and_include_dirs():
    scop = extract(DATA / "local_header.c", defines=["LEN=8"], include_dirs=[str(DATA / "include2")])[0]
    assert scop.parameter_values == {"LEN": 8, "STRIDE": 4}
    assert scop.arrays["v"].element_type == "real_t" and scop.arrays["v"].dims == ["LEN", "STRIDE"]
    assert scop.arrays["alpha"].element_type == "real_t"
    assert scop.statements[0].body == "v[i][j] = (REAL)(v[i][j] * alpha);"


def test_missing_include_is_a_scop_error():
    with pytest.raises(ScopError) as info:
        extract(DATA / "local_header.c")
    assert info.value.line == 3 and "local.h" in info.value.message


def test_crlf_and_tabs():
    text = ("#define N 8\r\nvoid f(double x[N]) {\r\n\tint i;\r\n#pragma scop\r\n\tfor (i = 0; i < N; i++)\r\n"
            "\t\tx[i] = x[i] + 1;\r\n#pragma endscop\r\n}\r\n")
    s0 = extract(text)[0].statements[0]
    assert (s0.body, s0.line, s0.col) == ("x[i] = x[i] + 1;", 6, 3)
    assert same_set(s0.domain, "[N] -> { S0[i] : 0 <= i < N }")


# helper-31: a negative macro as a divisor (`#define NEG -4`, `i % NEG`) was recorded as
# a macro read at its value, whose parameter the context lacks: a TypeError reported as
# "cannot handle this input"
NEGATIVE_DIVISOR = r"""#include <stdio.h>
#include <stdlib.h>
#define NEG DEFINITION
int E[80];
void kernel(int n) {
  int i;
#pragma scop
  for (i = -30; i < n; i++)
    if (GUARD)
      E[i + 30] = E[i + 30] * 7 + i / NEG;
#pragma endscop
}
int main(int argc, char **argv) {
  kernel(atoi(argv[1]));
  for (int q = 0; q < 80; q++) printf("%d ", E[q]);
  printf("\n");
  return 0;
}
"""


@pytest.mark.parametrize("definition", ["-4", "(-4)"])
@pytest.mark.parametrize("guard", ["i % NEG == 0", "i / NEG + 5 > 2"])
def test_a_negative_macro_divisor_is_read_at_its_value(tmp_path, definition, guard):
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize

    text = NEGATIVE_DIVISOR.replace("DEFINITION", definition).replace("GUARD", guard)
    src = tmp_path / "neg.c"
    src.write_text(text)
    result = optimize(src, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert not result.regions[0].kept_as_written
    sizes = [(-31,), (-30,), (-5,), (0,), (1,), (17,), (50,)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(text, tmp_path, "orig", sizes)


# helper-31: `_Float16 H[N]` at file scope was unknown to the parser: H had no type and
# no sizes, and the region was kept as written with a wrong reason ("reached through a
# pointer to pointers")
HALF = r"""#include <stdio.h>
#include <stdlib.h>
#define N 64
_Float16 H[N];
float G[N][N];
void kernel(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      H[i] = H[i] + G[i][j] * 0.37f;
#pragma endscop
}
int main(int argc, char **argv) {
  for (int q = 0; q < N; q++) for (int w = 0; w < N; w++) G[q][w] = q * 0.1f + w * 0.013f;
  kernel(atoi(argv[1]));
  for (int q = 0; q < N; q++) printf("%a\n", (double)H[q]);
  return 0;
}
"""


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(tile=True, unroll=4)])
def test_gcc_floating_types_are_element_types(tmp_path, flags):
    import subprocess

    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize

    [scop] = extract(HALF, filename="half.c")
    assert scop.arrays["H"].element_type == "_Float16" and scop.arrays["H"].dims == ["N"]
    probe = subprocess.run(["cc", "-x", "c", "-fsyntax-only", "-"], input="_Float16 x;", text=True,
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("the C compiler has no _Float16")
    src = tmp_path / "half.c"
    src.write_text(HALF)
    result = optimize(src, OptimizeOptions.from_flags(**flags))
    assert not result.regions[0].kept_as_written and result.regions[0].tiling.tiled
    sizes = [(0,), (1,), (5,), (64,)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(HALF, tmp_path, "orig", sizes)


MASKED = r"""#include <stdio.h>
#ifndef RB
#define RB 16
#endif
#define N 12
float H[N][32], A[N][40];
int main(void)
{
  for (int j = 0; j < N; j++)
    for (int i = 0; i < 40; i++)
      A[j][i] = (j * 7 + i * 3) % 11;
#pragma scop
  for (int j = 0; j < N; j++)
    for (int i = 0; i < 40; i++)
      H[j][i & (RB - 1)] += A[j][i];
#pragma endscop
  for (int j = 0; j < N; j++)
    for (int k = 0; k < 32; k++)
      printf("%.9g\n", H[j][k]);
  return 0;
}
"""


def test_a_mask_written_with_a_size_macro_is_read_at_the_macros_value(tmp_path):
    """``i & (RB - 1)`` with ``#define RB 16`` (helper-37: 'operator & is not allowed'):
    ``i mod 16``, RB fixed at 16 and checked at run time; compiled with -DRB=8 the
    output runs the original and prints what it prints."""
    import compiled_runs
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize
    [scop] = extract(MASKED, filename="masked.c")
    write = next(a for s in scop.statements for a in s.accesses if a.array == "H" and a.kind == "write")
    name = write.relation.get_tuple_name(isl.dim_type.in_)
    expected = isl.Map(f"[N, RB] -> {{ {name}[j, i] -> H[j, i mod 16] : 0 <= j < N and 0 <= i < 40 }}")
    assert write.relation.intersect_params(scop.context).is_equal(expected.intersect_params(scop.context))
    assert scop.context.is_subset(isl.Set("[RB] -> { : RB = 16 }"))
    path = tmp_path / "masked.c"
    path.write_text(MASKED)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "#pragma omp parallel for" in text
    saved = compiled_runs.CFLAGS
    try:
        for k, defines in enumerate([[], ["-DRB=8"]]):
            compiled_runs.CFLAGS = [*saved, *defines]
            assert outputs_of(text, tmp_path, f"new{k}", [()]) == outputs_of(MASKED, tmp_path, f"orig{k}", [()])
    finally:
        compiled_runs.CFLAGS = saved


# helper-52: the arm of 'j > 0 ? C[i][j - 1] : 0' was modelled as read at j = 0 too, so
# the run-time check that C[i][j - 1] stays in its row could never hold: the region was
# never optimized ("the model holds for no parameter value")
GUARDED_ARM = r"""#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8, na = n > 0 ? n : 1;
  double *a = malloc(sizeof(double) * na), (*C)[na] = malloc(sizeof(double) * na * na);
  for (int i = 0; i < na; i++) { a[i] = i; for (int j = 0; j < na; j++) C[i][j] = 0; }
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      C[i][j] = a[i] + (j > 0 ? C[i][j - 1] : 0) + (j < n - 1 ? 0 : C[i][0]);
#pragma endscop
  for (int i = 0; i < na; i++) printf("%.17g\n", C[i][na - 1]);
  return 0;
}
"""


def test_the_arms_of_a_conditional_expression_read_only_where_they_run(tmp_path):
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize

    [scop] = extract(GUARDED_ARM, filename="arm.c")
    reads = {str(a.relation) for a in scop.statements[0].accesses if a.kind == "read" and a.array == "C"}
    assert reads == {"[n] -> { S0[i, j] -> C[i, -1 + j] : 0 <= i < n and 0 < j < n }",
                     "[n] -> { S0[i, j = -1 + n] -> C[i, 0] : n > 0 and 0 <= i < n }"}
    src = tmp_path / "arm.c"
    src.write_text(GUARDED_ARM)
    result = optimize(src, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert not result.regions[0].kept_as_written and "#pragma omp parallel for" in result.text
    sizes = [(-2,), (0,), (1,), (2,), (7,), (40,)]
    assert outputs_of(result.text, tmp_path, "opt", sizes) == outputs_of(GUARDED_ARM, tmp_path, "orig", sizes)


PING_PONG = r"""#include <stdio.h>
#include <stdlib.h>
static void ping(int n, int steps, float A[2][n], int B[4][n])
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      A[(t & 1) ^ 1][i] = 0.5f * (A[t & 1][i - 1] + A[t & 1][i + 1]);
    for (int i = 0; i < n; i++)
      B[3 ^ (t & 3)][i] += B[t & 3][i] + t;
  }
#pragma endscop
}
int main(int argc, char **argv)
{
  int n = atoi(argv[1]), st = atoi(argv[2]), N = n > 0 ? n : 1;
  float (*A)[N] = malloc(sizeof(float[2][N]));
  int (*B)[N] = malloc(sizeof(int[4][N]));
  for (int i = 0; i < N; i++) {
    A[0][i] = (float)(i % 7); A[1][i] = -1.0f;
    for (int k = 0; k < 4; k++) B[k][i] = i * k - 3;
  }
  ping(n, st, A, B);
  for (int i = 0; i < N; i++) printf("%a %a %d %d %d %d\n", A[0][i], A[1][i], B[0][i], B[1][i], B[2][i], B[3][i]);
  return 0;
}
"""


def test_a_ping_pong_buffer_flipped_with_xor_is_read(tmp_path):
    """``A[(t & 1) ^ 1]`` is ``A[1 - t mod 2]`` (helper-68: "operator '^' is not allowed
    in an affine expression"): the flip of a mask's bits over a value the domain keeps
    within the mask. Checked on the model and by execution; ``x ^ 1`` of an ``x`` that
    may be 2 or -1 stays refused."""
    from compiled_runs import outputs_of
    from polysched.pipeline import OptimizeOptions, optimize
    [scop] = extract(PING_PONG, filename="ping.c")
    writes = [a for s in scop.statements for a in s.accesses if a.kind == "write"]
    name = writes[0].relation.get_tuple_name(isl.dim_type.in_)
    expected = isl.Map(f"[n, steps] -> {{ {name}[t, i] -> A[1 - (t mod 2), i] }}")
    assert writes[0].relation.is_equal(expected.intersect_domain(writes[0].relation.domain()))
    path = tmp_path / "ping.c"
    path.write_text(PING_PONG)
    sizes = [(0, 0), (1, 1), (4, 3), (9, 7), (60, 10), (5, 0), (3, 1), (17, 6)]
    expected_out = outputs_of(PING_PONG, tmp_path, "orig", sizes)
    # (isl with --tile: alone, --parallel keeps the stride-1 i innermost inside t, _keeps_innermost)
    for k, flags in enumerate([dict(tile=True, parallel=True), dict(scheduler="isl", tile=True, parallel=True)]):
        text = optimize(path, OptimizeOptions.from_flags(**flags)).text
        assert "#pragma omp parallel for" in text
        assert outputs_of(text, tmp_path, f"new{k}", sizes) == expected_out
    for subscript in ("(t % 3) ^ 1", "(t - 1) ^ 1", "t ^ 3"):
        with pytest.raises(ScopError, match="'\\^' is not allowed"):
            extract(PING_PONG.replace("(t & 1) ^ 1", subscript), filename="ping.c")
