"""Macros are text: ``M * 2`` with ``#define M 30 - 5`` is ``30 - 5 * 2`` to the compiler.
The front end reads a macro use as one value, so a body or an argument that regroups
with the code around it gave a model of another program (wrong code, even under
--identity). Such a region is refused, at the use, with the macro named; the same
macros written with parentheses are read, and run right."""
import pytest

from polysched.scop import ScopError, extract

PROGRAM = """#include <stdio.h>
#define N 16
{defines}
static long A[80], B[80];
static void kernel(void)
{{
  int i, j;
#pragma scop
{body}
#pragma endscop
}}
int main(void)
{{
  int i;
  for (i = 0; i < 80; i++) A[i] = i % 7;
  kernel();
  for (i = 0; i < 80; i++) printf("%ld %ld\\n", A[i], B[i]);
  return 0;
}}
"""

CASES = {
    # (defines, body): an object-like body with a lower-precedence operator
    "object": ("#define M 30 - 5", "  for (i = 0; i < M * 2; i++)\n    A[i] = A[i] + 1;"),
    # an index macro without parentheses around its parameters
    "index": ("#define IDX(a, b) a * 4 + b",
              "  for (i = 0; i < 3; i++)\n    for (j = 0; j < 4; j++)\n"
              "      A[IDX(i + 1, j)] = A[IDX(i + 1, j)] + A[IDX(i, j)];"),
    # a function-like body whose argument regroups: TWICE(i + 1) is 2 * i + 1
    "argument": ("#define TWICE(x) 2 * x",
                 "  for (i = 0; i < 8; i++)\n    A[TWICE(i + 1)] = i;\n"
                 "  for (i = 0; i < 8; i++)\n    B[i] = A[2 * i + 3];"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_macro_that_regroups_is_refused_at_its_use(case):
    defines, body = CASES[case]
    text = PROGRAM.format(defines=defines, body=body)
    with pytest.raises(ScopError) as info:
        extract(text, filename="m.c")
    name = defines.split()[1].split("(")[0]
    assert f"macro '{name}'" in info.value.message and "parentheses" in info.value.message
    first_use = next(k for k, line in enumerate(text.splitlines(), 1) if name in line and "#define" not in line)
    assert info.value.line == first_use and "\n" not in info.value.message


@pytest.mark.parametrize("case", list(CASES))
def test_the_same_macros_in_parentheses_run_right(case, tmp_path):
    from polysched.bench import verify
    from polysched.pipeline import OptimizeOptions, optimize

    defines, body = CASES[case]
    fixed = {"object": "#define M (30 - 5)", "index": "#define IDX(a, b) ((a) * 4 + (b))",
             "argument": "#define TWICE(x) (2 * (x))"}[case]
    source = tmp_path / "m.c"
    source.write_text(PROGRAM.format(defines=fixed, body=body))
    result = optimize(source, OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True))
    out = tmp_path / "out.c"
    out.write_text(result.text)
    verdict = verify(source, out, workdir=tmp_path)
    assert verdict.ok, verdict.reason


def test_macros_that_stay_one_value_are_read():
    """PolyBench's own macros: a body that is one token or a call, an argument passed
    whole, integer sizes, a type."""
    defines = ("#define SCALAR_VAL(x) x\n#define POW_FUN(x, y) pow(x, y)\n#define DATA_TYPE long\n"
               "#define _PB_N N\n#define NEG -3")
    body = ("  for (i = 0; i < _PB_N - 1; i++)\n    A[i] = (DATA_TYPE)POW_FUN(B[i], 2) + SCALAR_VAL(1) * NEG;")
    [scop] = extract(PROGRAM.format(defines=defines, body=body), filename="m.c")
    assert [s.name for s in scop.statements] == ["S0"]


@pytest.mark.parametrize("defines, body", [
    # a local integer written only through an object-like macro (fuzz v6 programs 2303
    # and 2355): it was taken for a never-written name of its initialiser, and refused
    ("#define TOT tot",
     "  for (i = 0; i < 8; i++) {\n    long tot = 0;\n    for (j = 0; j < 10; j++)\n"
     "      TOT += A[i * 10 + j];\n    B[i] = TOT;\n  }"),
])
def test_a_local_written_through_a_macro_is_a_variable(defines, body, tmp_path):
    from polysched.bench import verify
    from polysched.pipeline import OptimizeOptions, optimize

    source = tmp_path / "m.c"
    source.write_text(PROGRAM.format(defines=defines, body=body))
    for flags in ({"scheduler": "pluto", "fuse": "no"}, {"scheduler": "pluto", "tile": True, "parallel": True}):
        result = optimize(source, OptimizeOptions.from_flags(**flags))
        assert len(result.regions) == 1
        out = tmp_path / "out.c"
        out.write_text(result.text)
        verdict = verify(source, out, workdir=tmp_path)
        assert verdict.ok, verdict.reason


def test_a_size_written_through_a_function_like_macro_is_written():
    """helper-14: 'N(0) = 2;' with '#define N(k) n' was not seen as writing n (a
    regression of the macro-written locals above), so the loops after it were fused
    with the ones before, over the old n: wrong code in 9 modes of 10."""
    text = ("#define N(k) n\n#define AT(j, i) A[(i) + (j) * 4]\nvoid f(int n, int *a, double *A) {\n  int p;\n"
            "#pragma scop\n  for (p = 0; p < n; p++)\n    a[p] = p + 1;\n  N(0) = 2;\n"
            "  for (p = 0; p < n; p++)\n    a[p] = a[p] * 2;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="'n' is written inside the SCoP"):
        extract(text, filename="m.c")
    # an array element assigned through one is the array's write, not its size's
    [scop] = extract(text.replace("  N(0) = 2;\n", "  AT(1, 2) = 2.0;\n"), filename="m.c")
    assert any(a.array == "A" and a.kind == "write" for s in scop.statements for a in s.accesses)


def test_the_culprit_inside_another_macro_is_named_at_the_use_that_regroups():
    """helper-62: with ROWS 6+2, COLS 3*3 and TOTAL ROWS*COLS, the refusal named COLS at
    its first use ('j < COLS', harmless: 3*3 is one product); it names ROWS, whose text
    makes TOTAL 6+2*3*3 (24 for 72), at the use of TOTAL."""
    body = ("  for (i = 0; i < ROWS; i++)\n    A[i] = 1;\n  for (j = 0; j < COLS; j++)\n    B[j] = 2;\n"
            "  for (i = 0; i < TOTAL; i++)\n    A[i] = A[i] + 3;")
    text = PROGRAM.format(defines="#define ROWS 6+2\n#define COLS 3*3\n#define TOTAL ROWS*COLS", body=body)
    with pytest.raises(ScopError) as info:
        extract(text, filename="m.c")
    total = next(k for k, line in enumerate(text.splitlines(), 1) if "i < TOTAL" in line)
    assert (info.value.line, info.value.col) == (total, text.splitlines()[total - 1].index("TOTAL") + 1)
    assert "macro 'ROWS' (defined as '6+2')" in info.value.message
    assert "here in 'TOTAL', defined as 'ROWS*COLS'" in info.value.message
