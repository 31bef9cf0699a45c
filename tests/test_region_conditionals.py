"""``#if``/``#ifdef``/``#elif``/``#else`` inside a region (they were refused): the model
reads the branches the preprocessor takes, and the optimized code is emitted under the
condition that those are the ones taken (``#if !defined(DEBUG) && (VERSION > 1)``),
with the original under any other. The same output compiled with other macros runs
the original: every configuration prints what the original prints."""
from __future__ import annotations

import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract

CONDITIONAL = r"""
#include <stdio.h>
#define N 48
#ifndef VERSION
#define VERSION 2
#endif
double A[N][N], B[N][N];
int debug_count;
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = (i * 7 + j * j) % 11; B[i][j] = 0; }
#pragma scop
  for (i = 1; i < N - 1; i++)
    for (j = 1; j < N - 1; j++) {
#ifdef DEBUG
      B[i][j] = -1;
#elif VERSION > 1
      B[i][j] = (A[i-1][j] + A[i+1][j]) * 0.5;
#  if VERSION > 5
      B[i][j] = B[i][j] * 2;
#  endif
#else
      B[i][j] = A[i][j] * 3;
#endif
#if 0
      debug_count++;
#endif
    }
#pragma endscop
  double s = 0;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) s += B[i][j] * (i + 1) * (j % 5 + 1);
  printf("%.17g %d\n", s, debug_count);
  return 0;
}
"""

CONFIGURATIONS = [[], ["-DDEBUG"], ["-DVERSION=1"], ["-DVERSION=7"]]


def _same_under_flags(new_text: str, old_text: str, tmp_path, flag_sets, extra=()) -> None:
    """The output ``new_text`` prints what ``old_text`` prints, both compiled with each
    of ``flag_sets`` (and ``extra``)."""
    import compiled_runs
    saved = compiled_runs.CFLAGS
    try:
        for k, flags in enumerate(flag_sets):
            compiled_runs.CFLAGS = [*saved, *flags, *extra]
            assert outputs_of(new_text, tmp_path, f"new{k}", [()]) == \
                outputs_of(old_text, tmp_path, f"orig{k}", [()]), flags
    finally:
        compiled_runs.CFLAGS = saved


def _outputs(text: str, tmp_path, tag: str) -> list[str]:
    import compiled_runs
    results = []
    for k, defines in enumerate(CONFIGURATIONS):
        saved = compiled_runs.CFLAGS
        compiled_runs.CFLAGS = [*saved, *defines]
        try:
            results += outputs_of(text, tmp_path, f"{tag}{k}", [()])
        finally:
            compiled_runs.CFLAGS = saved
    return results


@pytest.mark.parametrize("defines", [None, {"VERSION": "7"}, {"DEBUG": None}])
def test_the_branches_taken_are_optimized_and_every_configuration_runs_right(defines, tmp_path):
    source = tmp_path / "cond.c"
    source.write_text(CONDITIONAL)
    flags = dict(tile=True, parallel=True)
    options = OptimizeOptions.from_flags(**flags)
    if defines:
        options.source.defines = defines
    text = optimize(source, options).text
    expected_guard = {None: "#if (!defined(DEBUG) && (VERSION > 1)) && (!(VERSION > 5))",
                      "VERSION": "#if (!defined(DEBUG) && (VERSION > 1)) && ((VERSION > 5))",
                      "DEBUG": "#if (defined(DEBUG))"}[next(iter(defines)) if defines else None]
    assert expected_guard in text
    assert "#pragma omp parallel for" in text
    assert _outputs(text, tmp_path, "out") == _outputs(CONDITIONAL, tmp_path, "orig")
    again = tmp_path / "again.c"        # polysched's own output, optimized again: the same
    again.write_text(text)
    assert optimize(again, options).text == text


def test_the_model_reads_only_the_branches_taken():
    [scop] = extract(CONDITIONAL)
    assert [s.body.strip() for s in scop.statements] == ["B[i][j] = (A[i-1][j] + A[i+1][j]) * 0.5;"]
    assert scop.preprocessor_guard == "(!defined(DEBUG) && (VERSION > 1)) && (!(VERSION > 5))"


@pytest.mark.parametrize("region, message", [
    ("#pragma scop\n#ifndef DEBUG\n  for (i = 0; i < 8; i++)\n    A[i][0] = 1;\n#pragma endscop\n#endif\n",
     "ends after it"),
    ("#ifndef DEBUG\n#pragma scop\n  for (i = 0; i < 8; i++)\n    A[i][0] = 1;\n#endif\n#pragma endscop\n",
     "without its '#if'"),
])
def test_a_conditional_that_crosses_the_region_is_refused(region, message):
    text = "double A[8][8];\nvoid f(void) {\n  int i;\n" + region + "}\n"
    with pytest.raises(ScopError, match=message):
        extract(text)


TYPEDEF_BRANCHES = r"""
#include <stdio.h>
#include <stdlib.h>
#ifndef USE_DOUBLE
typedef float real;
#else
typedef double real;
#endif
typedef float elem;
#if 0
typedef long elem;
#endif
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  elem *x = malloc(sizeof(elem) * n);
  real page[1024];
  for (int i = 0; i < n; i++) x[i] = (elem)((i * 7) % 13) / 3;
  for (int i = 0; i < 1024; i++) page[i] = i % 5;
  elem s = 0;
  real t = 0;
#pragma scop
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  for (int i = 0; i < sizeof(page) / sizeof(page[0]); i++)
    t += page[i];
#pragma endscop
  printf("%a %a\n", (double)s, (double)t);
  free(x);
  return 0;
}
"""


def test_a_typedef_in_a_branch_not_taken_is_not_the_files(tmp_path):
    """A probe: the last typedef in the text won, even in '#else' or '#if 0': 'elem' read
    as long made 's += x[i] * x[i]' an integer reduction (a float sum reordered), 'real'
    read as double halved sizeof(page) / sizeof(page[0])."""
    [scop] = extract(TYPEDEF_BRANCHES)
    assert scop.arrays["s"].element_type == "float" and scop.arrays["page"].element_type == "float"
    source = tmp_path / "t.c"
    source.write_text(TYPEDEF_BRANCHES)
    for flags in (dict(parallel=True), dict(tile=True, parallel=True), dict(scheduler="identity")):
        text = optimize(source, OptimizeOptions.from_flags(**flags)).text
        assert "reduction(+:s)" not in text
        assert outputs_of(text, tmp_path, "out", [(1000,)]) == outputs_of(TYPEDEF_BRANCHES, tmp_path, "orig", [(1000,)])


HELPER_15 = {
    # a '#line' (bison, re2c) renumbered the lines gcc reports: no branch looked taken,
    # and the statement of the one taken was dropped from the model
    "line": ("#line 1 \"kernel.y\"\n", "#ifdef X\n    A[i] = A[i] + 5;\n#else\n    A[i] = A[i] * 3;\n#endif\n"),
    # the taken branch expands to nothing: its #else's '!(1)' was dropped from the guard,
    # which became '!defined(X)' (the branch that was not taken)
    "empty": ("", "#ifdef X\n    NOTHING\n#else\n    A[i] = A[i] * 3;\n#endif\n"),
    # a comment across lines continues the directive: '|| defined(BAR)' was lost
    "comment": ("", "#if defined(FOO) /* or\n      */ || defined(BAR)\n    A[i] = A[i] + A[i - 1];\n"
                    "#else\n    A[i] = A[i] * 3;\n#endif\n"),
}


@pytest.mark.parametrize("case", list(HELPER_15))
@pytest.mark.parametrize("seen", [[], ["-DX", "-DBAR"]])
def test_the_guard_holds_where_the_branches_taken_are_the_ones_seen(case, seen, tmp_path):
    """helper-15: three ways the guard or the model came out of another configuration
    than the one polysched read. Optimized under `seen`, compiled under each of
    none, -DX, -DBAR: every output prints what the original prints."""
    before, body = HELPER_15[case]
    text = ("#include <stdio.h>\n#define NOTHING\nint A[100], B[100];\nint main(void) {\n  int i;\n"
            "  for (i = 0; i < 100; i++) { A[i] = i % 7; B[i] = i % 3; }\n" + before +
            "#pragma scop\n  for (i = 1; i < 100; i++) {\n" + body + "    B[i] = B[i] + A[i];\n  }\n"
            "#pragma endscop\n  long s = 0;\n  for (i = 0; i < 100; i++) s += (long)A[i] * (i + 1) + B[i];\n"
            "  printf(\"%ld\\n\", s);\n  return 0;\n}\n")
    source = tmp_path / "k.c"
    source.write_text(text)
    defines = {flag[2:]: None for flag in seen}
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True, defines=defines))
    _same_under_flags(result.text, text, tmp_path, [[], ["-DX"], ["-DBAR"]], ["-DPOLYSCHED_PARALLEL_MIN_WORK=0"])


OUTSIDE = {
    # a function-like macro the region uses, chosen by an #ifdef outside it
    "macro": ("#ifdef CHAIN\n#define PREV(i) ((i) - 1)\n#else\n#define PREV(i) (i)\n#endif\n"
              "#define N 400\ndouble A[N + 2];\n", "double",
              "  for (i = 1; i <= N; i++)\n    A[i] = A[PREV(i)] + 1.0;\n"),
    # the element type of the arrays
    "typedef": ("#ifdef CHAIN\ntypedef float real;\n#else\ntypedef double real;\n#endif\n"
                "#define N 400\nreal A[N + 2];\n", "real",
                "  for (i = 1; i <= N; i++)\n    A[i] = A[i] * 0.5f + 1.0f / 3.0f;\n"),
    # a called function that is pure only without CHAIN
    "function": ("unsigned long h;\nstatic double f(double x) {\n#ifdef CHAIN\n  h = h * 31u + (unsigned long)x;\n"
                 "#endif\n  return x * 0.5 + 1.0;\n}\n#define N 400\ndouble A[N + 2];\n", "double",
                 "  for (i = N; i >= 1; i--)\n    A[i] = f(A[i]) + i;\n"),
}


@pytest.mark.parametrize("case", list(OUTSIDE))
def test_definitions_chosen_outside_the_region_are_in_its_guard(case, tmp_path):
    """helper-15: a macro, typedef or function the region depends on, defined under an
    #ifdef outside it, was read as polysched saw it; compiled with -DCHAIN the output
    ran A[PREV(i)] in parallel (wrong), called the double micro-kernel on floats
    (SIGSEGV), or reordered an impure function. Those branches are in the guard now."""
    before, _, body = OUTSIDE[case]
    text = ("#include <stdio.h>\n" + before + "int main(void) {\n  int i;\n"
            "  for (i = 0; i < N + 2; i++) A[i] = i % 5;\n#pragma scop\n" + body + "#pragma endscop\n"
            "  double s = 0;\n  for (i = 0; i < N + 2; i++) s += A[i] * (i + 1);\n"
            "  printf(\"%.6f %lu\\n\", s, " + ("h" if case == "function" else "0UL") + ");\n  return 0;\n}\n")
    source = tmp_path / "k.c"
    source.write_text(text)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "#if (!defined(CHAIN))" in result.text
    _same_under_flags(result.text, text, tmp_path, [[], ["-DCHAIN"]], ["-DPOLYSCHED_PARALLEL_MIN_WORK=0"])


@pytest.mark.parametrize("before, defines, guard", [
    # an unrelated group right before a called function was taken for part of it: guard 0
    ("#ifdef UNRELATED\n#define ZZZ 1\n#endif\nstatic int prev(int i) { return i + 1000; }\n", {}, None),
    # an #elif whose branch holds a group: the inner group of a branch not read added a 0
    ("#if MODE == 1\n#define PREV(i) ((i) + 1000)\n#elif MODE == 2\n# ifdef SUB\n#  define PREV(i) ((i) - 1)\n"
     "# else\n#  define PREV(i) ((i) + 1001)\n# endif\n#else\n#define PREV(i) ((i) - 2)\n#endif\n"
     "static int prev(int i) { return PREV(i); }\n", {"MODE": "1"}, "#if ((MODE == 1))"),
    # a comment across the lines of an #if outside the region
    ("#if defined(ALT) /* a comment\n   spanning lines */ || defined(ALT2)\n#define PREV(i) ((i) + 1000)\n#else\n"
     "#define PREV(i) ((i) - 1)\n#endif\nstatic int prev(int i) { return PREV(i); }\n", {"ALT2": None},
     "#if ((defined(ALT) || defined(ALT2)))"),
])
def test_the_guard_of_definitions_outside_names_what_was_read(before, defines, guard, tmp_path):
    """helper-16: the guard came out 0 (optimized code never run) in the first two cases
    and lost a term in the third."""
    text = ("#include <stdio.h>\n" + before + "static double a[2000];\nint main(void) {\n"
            "  for (int i = 0; i < 2000; i++) a[i] = i % 9;\n#pragma scop\n  for (int i = 2; i < 900; i++)\n"
            "    a[i] = a[prev(i)] * 0.5 + 1.0;\n#pragma endscop\n  double s = 0;\n"
            "  for (int i = 0; i < 2000; i++) s += a[i] * (i % 5);\n  printf(\"%f\\n\", s);\n  return 0;\n}\n")
    source = tmp_path / "k.c"
    source.write_text(text)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True, defines=defines))
    guards = [line for line in result.text.splitlines() if line.startswith("#if (")]
    assert guards == ([guard] if guard else [])


def test_no_suite_kernel_gets_a_guard():
    """The suite's '#ifdef POLYSCHED_DUMP' printing code and dataset size groups define
    nothing the kernels' models read: a guard there (it happened while this was built)
    would make every verification, which defines POLYSCHED_DUMP, run the original."""
    from polysched.bench.suite import kernels
    for kernel in kernels():
        for scop in extract(str(kernel.path)):
            assert scop.preprocessor_guard is None, (kernel.name, scop.preprocessor_guard)


_BODY = ("double A[32];\nint main(void) {\n#pragma scop\n  for (int i = 0; i < 16; i++)\n    A[F(i)] = i + 1.0;\n"
         "  for (int i = 0; i < 16; i++)\n    A[16 + i] = A[15 - i];\n#pragma endscop\n"
         "  for (int k = 0; k < 32; k++) printf(\"%g\\n\", A[k]);\n  return 0;\n}\n")

CHANGED_CONDITIONS = {
    # helper-22: the branch #undefs its own test: '#if (defined(SHIFT))' at the region was
    # false under -DSHIFT... and '!defined(SHIFT)' true, so the code fused for F(i) =
    # 15 - i ran for F(i) = i (wrong)
    "undef": ("#ifdef SHIFT\n#undef SHIFT\n#define F(i) (i)\n#else\n#define F(i) (15 - (i))\n#endif\n", ["-DSHIFT"]),
    # helper-22: '#ifndef F' then '#define F': '#if (!defined(F))' never held at the
    # region, and the optimized code never ran
    "default definition": ("#ifndef F\n#define F(i) (15 - (i))\n#endif\n", ["-DF(i)=(i)"]),
}


@pytest.mark.parametrize("case", list(CHANGED_CONDITIONS))
def test_a_condition_the_file_changes_before_the_region_is_not_the_guard(case, tmp_path):
    """A name of the #if is #defined or #undefined after it: tested at the region it no
    longer tells the branch taken. The macros of such a group are compared by their
    expansions at compile time instead."""
    before, other = CHANGED_CONDITIONS[case]
    text = "#include <stdio.h>\n" + before + _BODY
    source = tmp_path / "k.c"
    source.write_text(text)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert not [line for line in result.text.splitlines() if line.startswith("#if (")]
    assert "__builtin_strcmp" in result.text
    _same_under_flags(result.text, text, tmp_path, [[], other])


def test_an_include_guard_around_the_function_is_no_guard(tmp_path):
    """helper-22: '#ifndef ONCE / #define ONCE' around the function gave '#if
    (!defined(ONCE))' at the region, never true there: the region is compiled only
    inside its group's branch, which is therefore taken wherever it is."""
    text = ("#ifndef ONCE\n#define ONCE\n#include <stdio.h>\n#define N 64\ndouble A[N], B[N];\n"
            "static void scale(void) {\n#pragma scop\n  for (int i = 0; i < N; i++)\n    B[i] = A[i] * 2.0;\n"
            "#pragma endscop\n}\nint main(void) {\n  for (int i = 0; i < N; i++) A[i] = i;\n  scale();\n"
            "  printf(\"%g\\n\", B[N - 1]);\n  return 0;\n}\n#endif\n")
    source = tmp_path / "k.c"
    source.write_text(text)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "#pragma omp parallel for" in result.text
    assert not [line for line in result.text.splitlines() if line.startswith("#if (")]
    assert outputs_of(result.text, tmp_path, "new", [()]) == outputs_of(text, tmp_path, "orig", [()])


CHANGED_ELSEWHERE = {
    # helper-24: a called function's macro #undefined after it: nothing to compare at the region
    "undef after a called function": (
        "#ifdef FAST\n#define SCALE(x) (x)\n#else\n#define SCALE(x) (15 - (x))\n#endif\n"
        "static int F(int i) { return SCALE(i); }\n#undef SCALE\n" + _BODY, "", ["-DFAST"]),
    # helper-24: the condition's name changed through another macro
    "through another macro": (
        "#define LEVEL BASE\n#if LEVEL\n#define F(i) (i)\n#else\n#define F(i) (15 - (i))\n#endif\n#undef BASE\n"
        + _BODY, "", ["-DBASE=1"]),
    # helper-24: a header the file includes between the group and the region changes it
    "in a header": (
        "#ifdef SHIFT\n#define F(i) (i)\n#else\n#define F(i) (15 - (i))\n#endif\n#include \"k.h\"\n" + _BODY,
        "#undef SHIFT\n", ["-DSHIFT"]),
    # helper-24: the group after the region, its condition defined between them
    "a group after the region": (
        "static int F(int i);\n" + _BODY + "#define SHIFT LVL\n#if SHIFT\nstatic int F(int i) { return i; }\n"
        "#else\nstatic int F(int i) { return 15 - i; }\n#endif\n", "", ["-DLVL=1"]),
}


@pytest.mark.parametrize("case", list(CHANGED_ELSEWHERE))
def test_conditions_changed_elsewhere(case, tmp_path):
    text, header, other = CHANGED_ELSEWHERE[case]
    (tmp_path / "k.h").write_text(header)
    source = tmp_path / "k.c"
    source.write_text("#include <stdio.h>\n" + text)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    _same_under_flags(result.text, source.read_text(), tmp_path, [[], other], [f"-I{tmp_path}"])


def test_the_directives_words_are_no_names_of_the_region(tmp_path):
    """helper-97: with a header of the program's own, the optimized code is compiled
    only where none of the region's names is a macro; the words of its directives were
    names too (``!defined(endif) && !defined(ifdef)``, ``defined(omp)``): they are not."""
    (tmp_path / "common.h").write_text("#define SCALE 3.0\n")
    source = tmp_path / "k.c"
    source.write_text('#include "common.h"\nvoid k(int n, double *a, double *b) {\n#pragma scop\n'
                      "#pragma omp parallel for\n  for (int i = 0; i < n; i++) {\n#ifdef _OPENMP\n"
                      "    b[i] = a[i] * 2.0;\n#else\n    b[i] = a[i] * SCALE;\n#endif\n  }\n#pragma endscop\n}\n")
    [scop] = extract(source)
    assert {"a", "b", "i", "n"} <= set(scop.plain_names), scop.plain_names
    assert not {"ifdef", "endif", "pragma", "omp", "parallel", "_OPENMP"} & set(scop.plain_names), scop.plain_names
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "defined(endif)" not in text and "defined(ifdef)" not in text and "defined(omp)" not in text
