"""Bad input: every construct outside the polyhedral model raises ScopError at the
right place of the ORIGINAL file. The marker ``/*@*/`` (a comment, invisible to the
front end) is put right before the offending token; the expected line and column
are computed from it."""
from __future__ import annotations

import pytest

from polysched.scop import ScopError, extract

HEADER = """#include <stdio.h>
#define N 64
#define MIN(a, b) ((a) < (b) ? (a) : (b))
int helper(int v);
void kernel(int n, double A[N][N], double x[N], int idx[N], double *p, double alpha)
{
  int i, j, k, t;
  double s;
"""
MARK = "/*@*/"


def where(text: str) -> tuple[int, int]:
    pos = text.index(MARK)
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1 + len(MARK)
    return line, col


def check(region: str, fragment: str, header: str = HEADER, col: bool = True):
    text = header + "#pragma scop\n" + region + "\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    err = info.value
    line, column = where(text)
    assert err.filename == "bad.c"
    assert err.line == line, str(err)
    if col:
        assert err.col == column, str(err)
    assert fragment in err.message, str(err)
    assert str(err).startswith(f"bad.c:{err.line}:{err.col}: error: ")
    assert "\n" not in str(err)
    return err


CASES = {
    # (helper-29: the message said it shadows a loop iterator, which it does not)
    "iterator_declared_in_a_block": ("for (i = 0; i < N; i++) {\n  int k;\n  /*@*/for (k = 0; k < N; k++)\n"
                                     "    A[i][k] = 0;\n  x[i] = k;\n}", "loop over 'k', a variable that a block of "
                                     "the region declares and uses outside its loops"),
    "non_affine_subscript": ("for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    x[i] = A[/*@*/i * j][0];",
                             "non-affine"),
    "indirect_access": ("for (i = 0; i < N; i++)\n  x[/*@*/idx[i]] = 0;", "indirect access"),
    "array_bound": ("for (i = 0; i < N; i++)\n  for (j = 0; j < /*@*/idx[i]; j++)\n    A[i][j] = 0;",
                    "data-dependent"),
    "written_scalar_bound": ("t = 3;\nt += 1;\nfor (i = 0; i < /*@*/t; i++)\n  x[i] = 0;", "written inside the SCoP"),
    "while_under_array_condition": ("for (i = 0; i < N; i++)\n  if (x[i] > 0) {\n    /*@*/while (x[i] > 1) x[i] -= 1;"
                                    "\n  }", "'while'"),
    "side_effect_in_array_condition": ("for (i = 0; i < N; i++)\n  if (x[i] > /*@*/helper(i))\n    x[i] = 0;",
                                       "side effects"),
    "double_in_bound": ("for (i = 0; i < /*@*/alpha; i++)\n  x[i] = 0;", "only integer parameters"),
    "while": ("for (i = 0; i < N; i++) {\n  /*@*/while (x[i] > 0) x[i] -= 1;\n}", "'while'"),
    "do_while": ("/*@*/do { x[0] = 1; } while (0);", "'do'"),
    "break": ("for (i = 0; i < N; i++) {\n  x[i] = 0;\n  /*@*/break;\n}", "'break'"),
    "continue": ("for (i = 0; i < N; i++) {\n  /*@*/continue;\n}", "'continue'"),
    "goto": ("for (i = 0; i < N; i++)\n  /*@*/goto out;", "'goto'"),
    "return": ("for (i = 0; i < N; i++)\n  /*@*/return;", "'return'"),
    # *p and *(p + i) of a pointer p are p[0] and p[i]; a row's dereference is not read
    "dereference": ("for (i = 0; i < N; i++)\n  x[i] = /*@*/*A[i];", "dereference"),
    "pointer_arithmetic": ("for (i = 0; i < N; i++)\n  x[i] = /*@*/*(A[i] + 1);", "dereference"),
    "address_of": ("for (i = 0; i < N; i++)\n  x[i] = sqrt(/*@*/&s);", "address-of"),
    "printf": ("for (i = 0; i < N; i++)\n  /*@*/printf(\"%d\", i);", "call statement"),
    "user_function_in_rhs": ("for (i = 0; i < N; i++)\n  x[i] = /*@*/helper(i);", "side effects"),
    # inside a loop body it is a private scalar (test_scop_accept.py); at the top level
    # of the region it moves before it (test_region_declarations.py), but for an array
    # whose values the region computes
    "declaration": ("x[0] = 1.0;\n/*@*/double tmp[2] = {x[0], 2.0};\nfor (i = 0; i < N; i++) {\n  x[i] = tmp[1];\n}",
                    "only a scalar's initialiser can stay in place"),
    # (helper-45: called a second counter that "must be a signed integer"; set from
    # nothing the start sets, it is the statement before the loop: test_wrong_code.py)
    "set_once_in_the_loop_start": ("for (i = 0, s = /*@*/i * 0.5; i < N; i++)\n  x[i] = s;",
                                   "the start of 's' reads a variable the same loop sets"),
    # (j reads the s before 1.0: it cannot run before the loop)
    "read_before_set_in_the_loop_start": ("for (i = 0, j = /*@*/(int)s, s = 1.0; i < N; i++)\n  x[i] = s + j;",
                                          "the start of 'j' reads a variable the same loop sets"),
    "updated_in_the_loop_start": ("for (/*@*/i = 0, s += 1.0; i < N; i++)\n  x[i] = s;",
                                  "'s' in the loop over 'i' must be set ('s = e')"),
    "iterator_modified": ("for (i = 0; i < N; i++) {\n  /*@*/i = i + 2;\n}", "modified"),
    "non_constant_step": ("for (i = 0; i < N; /*@*/i += n)\n  x[i] = 0;", "constant"),
    # 'i != N' alone with a step of 1 is accepted (test_wrong_code.py); inside a larger
    # condition, or with a step of 2 (it may step over N), it is not
    "not_equal_condition": ("for (i = 0; /*@*/i != N && i < 5; i++)\n  x[i] = 0;", "'!='"),
    "not_equal_condition_step_2": ("for (i = 0; /*@*/i != N; i += 2)\n  x[i] = 0;", "'!='"),
    # a test of the data around a loop is moved into it only where it keeps its value
    "data_test_over_a_loop_changed_under_it": ("for (i = 0; i < N; i++)\n  if (/*@*/x[i] > 0)\n"
                                               "    for (j = 0; j < N; j++)\n      x[j] = 0;",
                                               "which the code under the condition changes"),
    "data_tests_nested_over_a_loop": ("for (i = 0; i < N; i++)\n  if (x[i] > 0)\n    /*@*/if (idx[i] > 0)\n"
                                      "      for (j = 0; j < N; j++)\n        A[i][j] = 0;",
                                      "two nested conditions that read the data"),
    "declaration_under_a_data_test_over_a_loop": ("for (i = 0; i < N; i++)\n  if (x[i] > 0) {\n"
                                                  "    /*@*/double t = x[i];\n    for (j = 0; j < N; j++)\n"
                                                  "      A[i][j] = t;\n  }", "after the declaration of 't' in its block"),
    "gnu_conditional": ("for (i = 0; i < N; i++)\n  x[i] = i ?/*@*/: 5;", "the GNU conditional 'a ?: b'"),
    # (helper-79, wrong code: the start 's = 0.0' ran for every i, not only where m[i])
    "loop_start_under_a_data_test": ("for (i = 0; i < N; i++)\n  if (idx[i])\n    for (j = 0, /*@*/s = 0.0; j < N; j++)\n"
                                     "      s += A[i][j];", "whose start sets 's'"),
    # (helper-77: a swap under a data test was told to declare 't' in a block, as it
    # was; such a 't' is the statement's own now, unless another variable has its name)
    "declaration_under_a_data_test": ("for (i = 0; i < N; i++)\n  if (x[i] > x[i + 1]) {\n"
                                      "    /*@*/double t = x[i];\n    x[i] = x[i + 1];\n    x[i + 1] = t;\n  }",
                                      "'t' also names another variable or macro here; declare it before"),
    "static_under_a_data_test": ("for (i = 0; i < N; i++)\n  if (x[i] > 0) {\n"
                                 "    /*@*/static int calls = 0;\n    x[i] = calls;\n  }",
                                 "a 'static' variable lives across runs of the statement"),
    # (helper-80: told that the step must be a constant, which it is)
    "floating_point_counter": ("/*@*/for (float f = 0.0f; f < 1.0f; f += 0.25f)\n  x[0] += f;", "loop counter 'f' is a float"),
    # (helper-80: "operator 'p++' is not allowed")
    "step_inside_a_subscript": ("for (i = 0; i < n; i++)\n  x[/*@*/k++] = 0;",
                                "'k++' changes a variable inside an expression: step it in a statement of its own"),
    # (helper-80: 'm = n / 2;' then 'n = m - 1;': told only that m is written)
    "region_constant_of_a_written_size": ("k = n / 2;\nfor (i = 0; i < /*@*/k; i++)\n  x[i] = 0;\nn = k - 1;",
                                          "(set at the region's top to 'n / 2', no function of the sizes: it reads "
                                          "'n', which the SCoP writes too)"),
    # (helper-81: "'q' is not declared")
    "own_scalar_in_a_subscript": ("for (i = 0; i < N - 1; i++)\n  if (x[i] > 0) {\n    int q = i + 1;\n"
                                  "    A[/*@*/q][0] = 0;\n  }",
                                  "'q', declared under a condition that reads the data, is used in a subscript"),
    "array_under_a_data_test": ("for (i = 0; i < N; i++)\n  if (x[i] > 0) {\n"
                                "    /*@*/double pair[2] = {x[i], 1.0};\n    x[i] = pair[0];\n  }",
                                "only scalars of arithmetic types can be declared there"),
    # a data test ('a[i] != 0', the search loop) is refused as what it is, not as '!='
    "not_equal_on_data": ("for (i = 0; /*@*/idx[i] != 0 && i < N; i++)\n  x[i] = 0;", "data-dependent"),
    "non_monotone_condition": ("for (i = 0; /*@*/i < 10 || i > 20; i++)\n  x[i] = 0;", "not monotone"),
    "unbounded_loop": ("for (i = 0; /*@*/n > 0; i++)\n  x[i] = 0;", "does not bound"),
    "shadowed_iterator": ("for (i = 0; i < N; i++)\n  /*@*/for (i = 0; i < N; i++)\n    x[i] = 0;", "shadows"),
    "struct_member": ("for (i = 0; i < N; i++)\n  x[i] = /*@*/s.re;", "struct"),
    "wrong_dimension_count": ("for (i = 0; i < N; i++)\n  x[i] = /*@*/A[i];", "2 dimension(s)"),
    "array_without_subscripts": ("for (i = 0; i < N; i++)\n  for (j = 0; j < /*@*/x; j++)\n    A[i][j] = 0;",
                                 "without subscripts"),
    "side_effect_in_expression": ("for (i = 0; i < N; i++)\n  x[i] = /*@*/s++;", "side effect"),
    "nested_assignment": ("for (i = 0; i < N; i++)\n  x[i] = 1.0 + (/*@*/s = 2.0);", "assignment inside an expression"),
    "division_by_variable": ("for (i = 0; i < N; i++)\n  x[/*@*/i / n] = 0;", "nonzero integer constant"),
    "switch": ("/*@*/switch (n) { case 1: x[0] = 0; }", "'switch'"),
    "iterator_outside_loop": ("if (n > 2)\n  for (i = 0; i < N; i++)\n    x[i] = 0;\nx[/*@*/i] = 1;",
                              "used outside its loop, where its value is not known"),
    "non_integer_subscript": ("x[/*@*/1.5] = 0;", "non-integer constant"),
    "pointer_swap": ("for (t = 0; t < 4; t++) {\n  for (i = 0; i < N; i++)\n    p[i] = x[i];\n  /*@*/p = x;\n}",
                     "'p' is a pointer used as a whole value here (assigned, swapped, compared or passed)"),
    "pointer_compare": ("for (i = 0; i < N; i++)\n  x[i] = (/*@*/p == x) ? 1.0 : x[i];",
                        "'p' is a pointer used as a whole value here (assigned, swapped, compared or passed)"),
    # valid C for x[i], which the front end reads the other way round only
    "commuted_subscript": ("for (i = 0; i < N; i++)\n  /*@*/i[x] = 0;", "'i[x]' subscripts the loop iterator: write 'x[i]'"),
    "row_of_an_array": ("for (i = 0; i < N; i++)\n  /*@*/A[i] = 0;",
                        "'A' has 2 dimension(s) but is accessed with 1 subscript(s) (a partial subscript"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rejected_construct(name):
    region, fragment = CASES[name]
    check(region, fragment)


def test_a_statement_a_macro_writes_is_named_with_the_macro():
    """helper-95: SWAP(x, y)'s 'do { ... } while (0)' was refused as "a 'do'-'while'
    loop" at the macro's use, where the file shows no loop: the message names the
    macro (and still points at its use)."""
    header = HEADER + "#define SWAP(a, b) do { double t_ = (a); (a) = (b); (b) = t_; } while (0)\n"
    err = check("for (i = 0; i < N - 1; i += 2)\n  /*@*/SWAP(x[i], x[i + 1]);", "'do'", header)
    assert err.message.endswith("(from the expansion of macro 'SWAP')"), err.message
    plain = check("/*@*/do { x[0] = 1; } while (0);", "'do'")
    assert "macro" not in plain.message


def test_syntax_error_points_at_the_right_line():
    err = check("for (i = 0; i < N; i++) {\n  x[i] = 1;\n  x[i] = /*@*/);\n}", "syntax error")
    assert err.line == HEADER.count("\n") + 4


@pytest.mark.parametrize("region, message", [
    ("for (i = 0; i < N; i++) {\n  x[i] = 1/*@*/\n  x[i] = 2;\n}", "expected ';' before 'x'"),
    ("for (i = 0; i < N; i++) {\n  x[i] = A[i][0]/*@*/   // note\n  x[i] = 2;\n}", "expected ';' before 'x'"),
    ("for (i = 0; i < N; i++) {\n  x[i] = helper(i)/*@*/\n}", "expected ';' before '}'"),
    # a header without its statement is another mistake: pycparser's words, at the token
    ("for (i = 0; i < N; i++) {\n  for (j = 0; j < N; j++)\n/*@*/}", "syntax error before '}'"),
])
def test_a_missing_semicolon_is_named_where_it_is_missing(region, message):
    """Where gcc puts it: after the line that ends without one (it was 'syntax error
    before' the next line's first token)."""
    err = check(region, message, col=False)
    assert err.message == message
    # the mark is the comment after the last token (or before the token, for pycparser's)
    col = where(HEADER + "#pragma scop\n" + region)[1]
    assert err.col == (col if message.startswith("syntax") else col - len(MARK)), str(err)


@pytest.mark.parametrize("definition, use", [("#define DIR +", "x[i DIR 1]"), ("#define AT(i) [(i)]", "x AT(i)")])
def test_a_macro_that_is_part_of_an_expression_is_named(definition, use):
    """(helper-43: 'syntax error before DIR', which did not say why.)"""
    name = use.split()[1 if " DIR " in use else 1].split("(")[0]
    err = check(f"for (i = 0; i < N - 1; i++)\n  {use.replace(name, '/*@*/' + name, 1)} = 0;", "syntax error",
                header=definition + "\n" + HEADER)
    body = definition.split(maxsplit=2)[2]
    assert err.message == (f"syntax error before '{name}': macro '{name}' (defined as '{body}') is read in place, "
                           "as a value or a statement; one that expands to an operator or a part of one is not")


def test_missing_endscop_points_at_pragma_scop():
    text = HEADER + "/*@*/#pragma scop\nfor (i = 0; i < N; i++)\n  x[i] = 0;\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    assert (info.value.line, info.value.col) == where(text)
    assert "'#pragma endscop'" in info.value.message


def test_nested_pragma_scop():
    text = HEADER + "#pragma scop\nfor (i = 0; i < N; i++)\n  x[i] = 0;\n/*@*/#pragma scop\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    assert (info.value.line, info.value.col) == where(text)
    assert "nested" in info.value.message


def test_stray_endscop():
    text = HEADER + "  x[0] = 0;\n/*@*/#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    assert (info.value.line, info.value.col) == where(text)


def test_preprocessor_directive_inside_region():
    text = HEADER + "#pragma scop\nfor (i = 0; i < N; i++)\n/*@*/#pragma omp critical\n  x[i] = 0;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    assert (info.value.line, info.value.col) == where(text)


@pytest.mark.parametrize("operator, fragment", [
    ('_Pragma("omp critical")', "'#pragma omp critical' inside"),
    ('_Pragma ( "omp for" )', "'#pragma omp for' inside"),
])
def test_a_pragma_operator_inside_region_is_a_directive_where_it_is(operator, fragment):
    """C99's ``_Pragma("...")`` was a parse error ("pragma inside a SCoP region") even
    for the loop pragmas a '#pragma' line may give; it is now that directive, refused
    (or kept) as it would be, at the operator's own place."""
    check(f"for (i = 0; i < N; i++) {{\n  x[i] = 0; /*@*/{operator}\n  x[i] += 1;\n}}", fragment)


def test_preprocessor_error_is_reported_at_its_line():
    text = "#define N 4\n#ifndef N\n#endif\n/*@*/#error unsupported configuration\n" \
           "void f(double x[N]) {\n  int i;\n#pragma scop\nfor (i = 0; i < N; i++) x[i] = 0;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    assert info.value.line == where(text)[0]
    assert "unsupported configuration" in info.value.message


def test_region_without_statements():
    """The only region: an error at the pragma's line (next to other regions it is left
    out with a notice: test_scop_accept.py)."""
    text = HEADER + "#pragma scop\n;\n#pragma endscop\n}\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    assert info.value.line == HEADER.count("\n") + 1


def test_error_inside_macro_expansion_points_at_the_use():
    header = HEADER.replace("#define N 64", "#define N 64\n#define BAD(a) ((a) * (a))")
    check("for (i = 0; i < N; i++)\n  x[/*@*/BAD(i)] = 0;", "non-affine", header=header)


def test_macro_hiding_a_side_effect_is_rejected():
    header = HEADER.replace("#define N 64", "#define N 64\n#define LOG(v) printf(\"%f\", v)")
    check("for (i = 0; i < N; i++)\n  x[i] = /*@*/LOG(x[i]);", "call of 'printf'", header=header)


def test_loop_running_away_from_its_bound_is_unbounded():
    check("for (i = 0; /*@*/i >= 0; i++)\n  x[i] = 0;", "unbounded")


def test_loop_invariant_not_equal_guard_is_accepted():
    text = HEADER + "#pragma scop\nfor (i = 0; i < N && n != 3; i++)\n  x[i] = 0;\n#pragma endscop\n}\n"
    scop = extract(text, filename="ok.c")[0]
    import islpy as isl
    assert scop.statements[0].domain.is_equal(
        isl.Set("[N, n] -> { S0[i] : 0 <= i < N and n != 3 }").align_params(scop.statements[0].domain.get_space()))


def test_inconsistent_dimensionality_of_an_undeclared_array():
    # declared in a way the front end does not read (an unknown array is still checked
    # for consistency; a name declared nowhere at all is an error of its own)
    check("for (i = 0; i < N; i++) {\n  undeclared[i][0] = 1;\n  x[i] = /*@*/undeclared[i];\n}", "2 elsewhere",
          header=HEADER + "  __typeof__(A) undeclared;\n")


def test_a_function_the_file_defines_is_not_the_math_library_s():
    """A probe's ``static double fmax(double a, double b) { calls++; ... }``, without
    <math.h>: read as <math.h>'s pure fmax, its calls were reordered."""
    header = ("static int calls;\nstatic double fmax(double a, double b) { calls++; return a > b ? a : b; }\n"
              + HEADER)
    check("for (i = 0; i < N; i++)\n  x[i] = /*@*/fmax(x[i], 1.0);",
          "a function of this file that reads or writes 'calls', which is not its own", header)


VOLATILE_HEADER = """struct S { volatile double x; };
volatile double V[8][512];
volatile int nv;
_Atomic int count;
void kernel(int n, volatile double (*W)[512], double *B, struct S *p, double * volatile q)
{
  int i, j;
"""


@pytest.mark.parametrize("region, name", [
    ("for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n    B[j] = /*@*/V[j][i];", "'V'"),
    ("for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n    B[j] = /*@*/W[j][i];", "'W'"),
    ("for (i = 0; i < /*@*/nv; i++)\n  B[i] = 0;", "'nv'"),
    ("for (i = 0; i < n; i++)\n  B[i] = /*@*/p[i].x;", "'p[].x'"),
    ("for (i = 0; i < n; i++)\n  /*@*/q[i] = 0;", "'q'"),
    ("for (i = 0; i < n; i++)\n  /*@*/count += 1;", "'count' is _Atomic"),
])
def test_volatile_data_is_refused(region, name):
    """A probe counted page switches of a volatile array with a SIGSEGV handler: the
    interchanged loops (and a scalar-replaced element) changed the order and number of
    the accesses, which C makes part of what the program does."""
    check(region, name if " is " in name else f"{name} is volatile", VOLATILE_HEADER)


def test_loops_declaring_two_types_next_to_the_function_s_iterator_are_refused():
    """``for (unsigned i ...)`` and ``for (long i ...)`` are each typed as declared
    (tests/test_c_types.py); a third loop using the function's ``i`` would leave it with
    a counter's value of either type: refused."""
    header = "void kernel(int n, double *x)\n{\n  int i;\n"
    check("/*@*/for (unsigned i = 0; i < n; i++)\n  x[i] = 0;\nfor (long i = 0; i < n; i++)\n  x[i] = 1;\n"
          "for (i = 0; i < n; i++)\n  x[i] = 2;",
          "loops declare 'i' with several types and another uses the 'i' declared before", header)


def test_a_loop_scoped_iterator_of_another_type_than_the_function_s_is_refused():
    """``unsigned i`` used by one loop, ``for (int i ...)`` by another: the int loop got
    the unsigned casts (probe: 4294967291 for -5)."""
    header = "void kernel(int n, long long *x)\n{\n  unsigned i;\n"
    check("for (i = 0; i < n; i++)\n  x[i] = i - 5;\n/*@*/for (int i = 0; i < n; i++)\n  x[i] = i - 5;",
          "a loop declares 'i' as 'int' and another uses the 'unsigned i'", header)


@pytest.mark.parametrize("qualifier", ["volatile", "_Atomic"])
def test_qualifiers_through_typedefs_are_seen(qualifier):
    """``typedef volatile double vdouble; vdouble V[8][512];`` was reordered and
    scalar-replaced, and a typedef'd ``_Atomic int`` got a reduction clause gcc
    rejects (probe)."""
    header = (f"typedef {qualifier} double qdouble;\ntypedef qdouble qd2;\nqd2 V[8][512];\n"
              "void kernel(int n, double *x)\n{\n  int i, j;\n")
    check("for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n    x[j] = /*@*/V[j][i];",
          f"'V' is {qualifier}", header)


@pytest.mark.parametrize("declaration", ["static double (*sqrt)(double) = 0;\nvoid kernel(int n, double *x)",
                                         "void kernel(int n, double *x, double (*sqrt)(double))"])
def test_a_function_pointer_named_like_a_math_function_is_not_pure(declaration):
    check("for (i = 0; i < n; i++)\n  x[i] = /*@*/sqrt(x[i]);", "a variable (a function pointer)",
          declaration + "\n{\n  int i;\n")


def test_a_region_that_ends_inside_a_block_it_opens_says_so():
    """A probe's file: ``{`` opened in the region, closed after ``#pragma endscop``
    (valid C) was a "syntax error: at end of input"."""
    text = ("double A[100];\nvoid k(int n) { int i;\n#pragma scop\n  for (i = 0; i < n; i++) {\n"
            "#pragma endscop\n    A[i] = 1; }\n}\n")
    with pytest.raises(ScopError, match="inside a block that the region opens") as info:
        extract(text, filename="b.c")
    assert info.value.line == 5


def test_a_member_three_levels_deep_is_named_as_written():
    """``o->a.v[i]`` was reported as ``'o__a.v[i]' is not a plain array reference``; two
    levels are read since session 50 (``o->a.v`` an array of its own), three are not."""
    text = ("struct in { double v[10]; };\nstruct mid { struct in b; };\nstruct out { struct mid a; int n; };\n"
            "void k(struct out *o) { int i;\n#pragma scop\n  for (i = 0; i < 10; i++) o->a.b.v[i] = i;\n"
            "#pragma endscop\n}\n")
    with pytest.raises(ScopError, match=r"struct member access 'o->a\.b\.v\[i\]' is not supported"):
        extract(text, filename="m.c")
    [scop] = extract(text.replace("o->a.b.v[i]", "o->a.v[i]").replace("struct mid a;", "struct in a;"),
                     filename="m.c")
    assert [a.c_text for a in scop.arrays.values()] == ["o->a.v"]


def test_a_loop_that_ends_by_wrapping_around_says_so():
    """``unsigned char c; for (c = 200; c > 100; c += 20)`` runs 3 times in C (220, 240,
    then 4): it was called "unbounded"."""
    text = ("int B[256];\nvoid k(void) {\n  unsigned char c;\n#pragma scop\n"
            "  for (c = 200; c > 100; c += 20) B[c] = B[c] + 7;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="ends only when 'c' wraps around past the end of its type"):
        extract(text, filename="w.c")


def test_assert_is_named():
    """helper-29: glibc's assert, read expanded, gave "syntax error: invalid expression"."""
    check("for (i = 0; i < N; i++) {\n  /*@*/assert(x[i] < 100);\n  x[i] = 0;\n}",
          "'assert' inside a SCoP: it may end the program", header="#include <assert.h>\n" + HEADER)


def test_a_region_ending_in_another_function_points_at_the_closing_brace():
    """The wrapped region parsed (its rest as a function of its own): the error named a
    parameter of the other function as undeclared."""
    text = ("void k(int n, double *a) {\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)\n    a[i] = 1.0;\n"
            "/*@*/}\nvoid k2(double *b) {\n  b[0] = 1.0;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError) as info:
        extract(text.replace(MARK, ""), filename="bad.c")
    assert (info.value.line, info.value.col) == (6, 1)
    assert "'}' closes a block the region did not open" in info.value.message


def test_a_list_walk_is_refused_for_its_while_loop():
    """helper-80: 'while (p) { s += p->v; p = p->next; }' was told that 'p' is used whole
    and through its members, not that its 'while' is no loop of the model."""
    header = ("struct node { double v; struct node *next; };\n"
              "void kernel(struct node *p)\n{\n  double s = 0;\n")
    check("/*@*/while (p) {\n  s += p->v;\n  p = p->next;\n}", "'while' loop inside a SCoP", header=header)


def test_with_every_region_refused_each_reason_is_said(capfd):
    """helper-95: a file whose three regions were all refused said only the first
    reason; the others are notes on stderr before it (as they are when another region
    can be read)."""
    text = HEADER + ("#pragma scop\nfor (i = 0; i < N; i++)\n  x[idx[i]] = 0;\n#pragma endscop\n"
                     "#pragma scop\nfor (i = 0; i < N; i++)\n  while (x[i] > 0) x[i] -= 1;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="indirect access"):
        extract(text, filename="bad.c")
    notes = capfd.readouterr().err.strip().splitlines()
    assert len(notes) == 1 and notes[0].startswith("bad.c:15:3: note: 'while' loop inside a SCoP") \
        and notes[0].endswith("; this region is refused too"), notes


@pytest.mark.parametrize("pragma", ["omp atomic", "omp critical", "omp ordered", "unknown_vendor thing"])
def test_a_pragma_a_region_cannot_hold_is_named(pragma):
    """(helper-99 of session 65) '#pragma omp atomic' was 'a preprocessor directive',
    while 'omp simd' and 'GCC unroll' are kept: the message names the pragma."""
    name = " ".join(pragma.split()[:2]) if pragma.startswith("omp") else pragma.split()[0]
    check(f"for (i = 0; i < N; i++) {{\n/*@*/#pragma {pragma}\n  x[i] += 1;\n}}", f"'#pragma {name}' inside")


def test_a_region_between_a_function_header_and_its_body():
    """``void f(int n, double *a)\\n#pragma scop\\n{ ... }``: the region is outside the
    function's body (it was 'the type of n is not known')."""
    text = "void f(int n, double *a)\n#pragma scop\n{\n  for (int i = 0; i < n; i++) a[i] = 0;\n}\n#pragma endscop\n"
    with pytest.raises(ScopError) as info:
        extract(text, filename="bad.c")
    assert (info.value.line, info.value.col) == (2, 1)
    assert "outside every function body" in info.value.message


def test_a_byte_that_is_not_text_is_shown_as_that_byte(tmp_path):
    """A stray 0xff in a region: the message shows '\\xff', not Python's '\\udcff'."""
    path = tmp_path / "bad.c"
    path.write_bytes(b"void f(int n, double *a) {\n#pragma scop\n  for (int i = 0; i < n; i++) a[i] = a[i] \xff 2;\n"
                     b"#pragma endscop\n}\n")
    with pytest.raises(ScopError) as info:
        extract(path)
    assert info.value.line == 3 and "'\\xff'" in info.value.message and "udc" not in info.value.message
