"""A type chosen by an '#if' in a header of the program's own (PolyBench's DATA_TYPE
under -DDATA_TYPE_IS_FLOAT), which the file's text does not show: compiled under
another -D than polysched read it with, the output ran double micro-kernels over float
arrays and crashed. The optimized code now runs only for the types it was made for
(``__builtin_types_compatible_p``, folded by the compiler); checked by execution under
both definitions, and the checks are absent from files without such headers."""
from __future__ import annotations

import shutil

import pytest

from polysched.bench import compile_c, run_binary
from polysched.pipeline import OptimizeOptions, optimize

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

HEADER = """#ifndef DT_H
#define DT_H
#ifdef DT_FLOAT
#define DATA_TYPE float
#else
#define DATA_TYPE double
#endif
#endif
"""

PROGRAM = r"""#include <stdio.h>
#include "dt.h"
#define N 48
DATA_TYPE A[N][N], B[N][N], C[N][N];
int main(void)
{
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (i * j % 7) * 0.25f; B[i][j] = (i + j) % 5 * 0.5f; C[i][j] = 0;
    }
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j] * 0.75f;
#pragma endscop
  double s = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      s += C[i][j] * (i + 1) * (j + 2);
  printf("%.17g\n", s);
  return 0;
}
"""


def _same_under(out, source, tmp_path, configurations=({}, {"BIG": None})) -> None:
    """The output ``out`` prints what ``source`` prints, each built with every set of
    ``configurations`` (-D)."""
    for defines in configurations:
        tag = "_".join(defines) or "default"
        assert _output(out, tmp_path, "new_" + tag, defines) == _output(source, tmp_path, "orig_" + tag, defines)


def _output(source, tmp_path, tag: str, defines: dict) -> str:
    built = compile_c(source, tmp_path / tag, cflags=["-O1", "-ffp-contract=off", "-w"], defines=defines,
                      openmp=True)
    assert built.ok, built.reason
    outputs = [run_binary(tmp_path / tag, threads=t, timeout=60) for t in (1, 2)]
    assert all(run.ok for run in outputs), [run.reason for run in outputs]
    [text] = {run.stdout for run in outputs}
    return text


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(tile=True, parallel=True, reassociate=True)])
def test_output_compiled_under_another_header_type_runs_the_original(flags, tmp_path):
    (tmp_path / "dt.h").write_text(HEADER)
    source = tmp_path / "k.c"
    source.write_text(PROGRAM)
    result = optimize(source, OptimizeOptions.from_flags(**flags))
    assert "__builtin_types_compatible_p(__typeof__(A[0][0]), double)" in result.text
    out = tmp_path / "k.opt.c"
    out.write_text(result.text)
    _same_under(out, source, tmp_path, ({}, {"DT_FLOAT": None}))


def test_no_type_checks_without_headers_of_the_program_s_own(tmp_path):
    source = tmp_path / "k.c"
    source.write_text(PROGRAM.replace('#include "dt.h"', HEADER))
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "__builtin_types_compatible_p" not in text


def _gemm_output(tmp_path):
    """(source, output) of PROGRAM's plain gemm under "dt.h": the output calls a
    micro-kernel of the pasted header."""
    (tmp_path / "dt.h").write_text(HEADER)
    source = tmp_path / "k.c"
    source.write_text(PROGRAM.replace(" * 0.75f", ""))
    out = tmp_path / "k.opt.c"
    out.write_text(optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
    assert "polysched_dgemm" in out.read_text()
    return source, out


@pytest.mark.skipif(shutil.which("clang") is None and shutil.which("clang-19") is None, reason="needs clang")
def test_the_pasted_intrinsics_draw_no_unused_function_warning_from_clang(tmp_path):
    """helper-18: clang -Wall named each pasted micro-kernel the output does not call
    (22 warnings; -Werror builds broke)."""
    _, out = _gemm_output(tmp_path)
    clang = shutil.which("clang") or shutil.which("clang-19")
    built = compile_c(out, tmp_path / "k", cc=clang, cflags=["-O1", "-Wall", "-Werror=unused-function"], openmp=True)
    assert built.ok, built.reason


def test_a_micro_kernel_call_compiles_under_the_other_header_type(tmp_path):
    """Under -DDT_FLOAT the double micro-kernel's call is not run (the type check), but
    it passed float * for double *, which GCC 14 refuses (gcc 12: -Werror=...)."""
    source, out = _gemm_output(tmp_path)
    built = compile_c(out, tmp_path / "k", cflags=["-O1", "-Werror=incompatible-pointer-types"],
                      defines={"DT_FLOAT": None}, openmp=True)
    assert built.ok, built.reason
    assert _output(out, tmp_path, "new", {"DT_FLOAT": None}) == _output(source, tmp_path, "orig", {"DT_FLOAT": None})


HEADER_CASES = {
    # helper-21: an enumerator chosen by a header's #ifdef was baked in as a number
    "enum": ("#ifdef BIG\nenum { N = 8 };\n#else\nenum { N = 4 };\n#endif\n",
             "#pragma scop\n  for (int i = 0; i < N; i++)\n    A[i] = i + 1.0;\n#pragma endscop\n"),
    # helper-21: a header function's own enum hid the file's global W
    "local enum": ("static inline int helper(int x) {\n  enum { W = 4 };\n  return x * W;\n}\n",
                   "#pragma scop\n  for (int i = 0; i < W; i++)\n    A[i + W] = i + 1.0;\n#pragma endscop\n"),
    # helper-21: a loop's own iterator of a typedef chosen by a header's #ifdef
    "typedef": ("#ifdef BIG\ntypedef unsigned idx;\n#else\ntypedef int idx;\n#endif\n",
                "#pragma scop\n  for (idx i = 0; i < 10; i++)\n    if (i - 3 < 5)\n      A[i] = i + 1.0;\n"
                "#pragma endscop\n"),
    # a function-like macro chosen by a header's #ifdef: the model fused the two loops
    # for F(i) = 15 - i; under -DBIG (F(i) = i) the fused loop read A before writing it
    "function-like macro": ("#ifdef BIG\n#define F(i) (i)\n#else\n#define F(i) (15 - (i))\n#endif\n",
                            "#pragma scop\n  for (int i = 0; i < 16; i++)\n    A[F(i)] = i + 1.0;\n"
                            "  for (int i = 0; i < 16; i++)\n    A[16 + i] = A[15 - i];\n#pragma endscop\n"),
    # a macro of no parameters and a variadic one: their checks must compile (F() and
    # not F(x))
    "no and variadic parameters": ("#ifdef BIG\n#define F() 1\n#define G(...) (__VA_ARGS__)\n#else\n#define F() 0\n"
                                   "#define G(...) (__VA_ARGS__ / 2)\n#endif\n",
                                   "#pragma scop\n  for (int i = 0; i < 16; i++)\n    A[G(i) + F()] = i + 1.0;\n"
                                   "  for (int i = 0; i < 16; i++)\n    A[16 + i] = A[15 - i];\n#pragma endscop\n"),
}


def _program(region: str) -> str:
    """A program around ``region`` (of HEADER_CASES) that includes "h.h" and prints A."""
    return ('#include <stdio.h>\n#include "h.h"\nint W = 7;\ndouble A[32];\nint main(void)\n{\n'
            + region + '  for (int k = 0; k < 32; k++) printf("%.17g\\n", A[k]);\n  return 0;\n}\n')


def test_conditional_lines_of_a_header():
    from polysched.scop.macros import conditional_lines
    text = ("#ifndef K_H\n#define K_H\n#define A 1\n#ifdef BIG\n#define B(x) (x)\n#else\n#define B(x) \\\n  (2*(x))\n"
            "#endif\n#if !defined(C)\n#define C(x) x\n#endif\n#define D 4\n/* #ifdef X */\n#define E 5\n#endif\n")
    lines = conditional_lines(text)
    defined_at = {line.split()[1].split("(")[0]: k + 1 for k, line in enumerate(text.split("\n"))
                  if line.startswith("#define")}
    assert {name for name, line in defined_at.items() if line in lines} == {"B", "C"}


def test_an_unconditional_header_macro_pins_no_size(tmp_path):
    """#define NX (N + 2) in a header, outside any #if: its expansion names the size N,
    which the output leaves free; comparing the expansion would pin N's value."""
    (tmp_path / "h.h").write_text("#ifndef H_H\n#define H_H\n#ifndef N\n#define N 20\n#endif\n#define NX (N + 2)\n#endif\n")
    source = tmp_path / "k.c"
    source.write_text('#include <stdio.h>\n#include "h.h"\ndouble A[4 * N];\nint main(void)\n{\n'
                      "#pragma scop\n  for (int i = 0; i < NX; i++)\n    A[i + NX] = A[i] + i;\n#pragma endscop\n"
                      '  for (int k = 0; k < 4 * N; k++) printf("%.17g\\n", A[k]);\n  return 0;\n}\n')
    out = tmp_path / "k.opt.c"
    out.write_text(optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
    assert "__builtin_strcmp" not in out.read_text()
    _same_under(out, source, tmp_path, ({}, {"N": "37"}))


def test_a_macro_of_a_header_included_under_an_if(tmp_path):
    """The header itself has no #if; the #include of one header or another does."""
    (tmp_path / "small.h").write_text("#define F(i) (15 - (i))\n")
    (tmp_path / "big.h").write_text("#define F(i) (i)\n")
    (tmp_path / "h.h").write_text('#ifdef BIG\n#include "big.h"\n#else\n#include "small.h"\n#endif\n')
    _, region = HEADER_CASES["function-like macro"]
    source = tmp_path / "k.c"
    source.write_text(_program(region))
    out = tmp_path / "k.opt.c"
    out.write_text(optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
    assert "__builtin_strcmp" in out.read_text()
    _same_under(out, source, tmp_path)


@pytest.mark.parametrize("header, helper", [
    # helper-23: S's value was baked into the inlined subscript (A[2 * i + 1])
    ("#ifdef BIG\n#define S 1\n#else\n#define S 2\n#endif\n", "static int g(int x) { return x * S; }\n"),
    # helper-23: a pure function's header macro read an array the region writes under -DBIG
    ("#ifdef BIG\n#define SCALE(x) ((x) * A[40])\n#else\n#define SCALE(x) ((x) * 0.5)\n#endif\n",
     "static int g(int x) { return 2 * x; }\nstatic double f(double x) { return SCALE(x); }\n"),
])
def test_macros_of_the_functions_the_region_calls(header, helper, tmp_path):
    """The macros a called function uses (inlined into a subscript, or judged pure) are
    checked like the region's own: by value, or by expansion."""
    (tmp_path / "h.h").write_text(header)
    source = tmp_path / "k.c"
    source.write_text('#include <stdio.h>\n#include "h.h"\ndouble A[64];\n' + helper.replace("static double f", "static double f")
                      + ("" if "f(" in helper else "static double f(double x) { return x; }\n")
                      + "int main(void)\n{\n  for (int i = 0; i < 64; i++) A[i] = i % 5;\n#pragma scop\n"
                      "  for (int t = 0; t < 3; t++)\n    for (int i = 0; i < 20; i++)\n"
                      "      A[g(i) + 1] = f(A[g(i)]) + t;\n#pragma endscop\n"
                      '  for (int k = 0; k < 64; k++) printf("%.17g\\n", A[k]);\n  return 0;\n}\n')
    out = tmp_path / "k.opt.c"
    out.write_text(optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
    _same_under(out, source, tmp_path)


def test_an_output_with_micro_kernels_builds_under_pedantic_errors(tmp_path):
    """helper-23: gcc -std=c99 -pedantic-errors refused the pasted header's dlsym
    results converted to function pointers (ISO C has no such conversion)."""
    _, out = _gemm_output(tmp_path)
    built = compile_c(out, tmp_path / "k", cflags=["-O1", "-std=c99", "-pedantic-errors"], openmp=True)
    assert built.ok, built.reason


HEADER_PROGRAMS = {name: (header, _program(region)) for name, (header, region) in HEADER_CASES.items()}
HEADER_PROGRAMS.update({
    # helper-23: an element type spelled with <stdint.h>'s int32_t got no type check; the
    # long reduction over doubles under -DBIG ran in parallel, in another order
    "stdint element type": ("#include <stdint.h>\n#ifdef BIG\n#define VAL double\n#else\n#define VAL int32_t\n#endif\n",
                            '#include <stdio.h>\n#include "h.h"\n#define N 200000\nVAL a[N];\nlong s;\n'
                            "int main(void) {\n  int i;\n  for (i = 0; i < N; i++) a[i] = i < N / 2 ? -1.5 : 0.5;\n"
                            "#pragma scop\n  for (i = 0; i < N; i++)\n    s += a[i];\n#pragma endscop\n"
                            '  printf("%ld\\n", s);\n  return 0;\n}\n'),
    # helper-23: restrict defined away under -DBIG; the call's arrays overlap, which is
    # legal then (only then: the program is compared under -DBIG alone), and the
    # overlap check had been left out
    "restrict defined away": ("#ifdef BIG\n#define restrict\n#endif\n",
                              '#include <stdio.h>\n#include "h.h"\n'
                              "static void shift(int n, double *restrict dst, const double *restrict src) {\n"
                              "  int t, i;\n#pragma scop\n  for (t = 0; t < 4; t++)\n    for (i = 0; i < n; i++)\n"
                              "      dst[i] = src[i] + t;\n#pragma endscop\n}\nint main(void) {\n"
                              "  static double A[80];\n  int i;\n  for (i = 0; i < 80; i++) A[i] = i % 7;\n"
                              "  shift(64, A + 1, A);\n  double s = 0;\n  for (i = 0; i < 80; i++) s += A[i] * (i + 1);\n"
                              '  printf("%.17g\\n", s);\n  return 0;\n}\n'),
})


HEADER_PROGRAMS.update({
    # helper-23: OUT is a macro only under -DBIG (#define OUT IN): the arrays are one then
    "a name made a macro": ("#ifdef BIG\n#define OUT IN\n#endif\n",
                            '#include <stdio.h>\n#include "h.h"\n#define N 4096\ndouble IN[N], OUT[N];\n'
                            "int main(void) {\n  for (int i = 0; i < N; i++) IN[i] = i % 7;\n#pragma scop\n"
                            "  for (int t = 0; t < 3; t++)\n    for (int i = 1; i < N; i++)\n"
                            "      OUT[i] = IN[i - 1] * 0.5 + t;\n#pragma endscop\n  double s = 0;\n"
                            "  for (int i = 0; i < N; i++) s += (IN[i] + 2 * OUT[i]) * (i % 13);\n"
                            '  printf("%.17g\\n", s);\n  return 0;\n}\n'),
    # helper-23: a loop counter's name (c0) a macro under -DBIG: the output did not compile
    "a counter's name made a macro": ("#ifdef BIG\n#define c0 2.5\n#endif\n",
                                      '#include <stdio.h>\n#include "h.h"\ndouble A[64];\nint main(void) {\n'
                                      "#pragma scop\n  for (int i = 0; i < 64; i++)\n    A[i] = i * 0.5;\n"
                                      '#pragma endscop\n  printf("%.17g\\n", A[63]);\n  return 0;\n}\n'),
})


@pytest.mark.parametrize("case", sorted(HEADER_PROGRAMS))
def test_header_programs_under_another_definition(case, tmp_path):
    header, program = HEADER_PROGRAMS[case]
    (tmp_path / "h.h").write_text(header)
    source = tmp_path / "k.c"
    source.write_text(program)
    out = tmp_path / "k.opt.c"
    out.write_text(optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
    if "made a macro" in case:      # (a race under -DBIG need not show in one run)
        assert "!defined(OUT)" in out.read_text() or "!defined(c0)" in out.read_text()
    _same_under(out, source, tmp_path, ({}, {"BIG": None}) if "restrict" not in case else ({"BIG": None},))
