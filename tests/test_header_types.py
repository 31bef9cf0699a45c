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
    for defines in ({}, {"DT_FLOAT": None}):
        tag = "float" if defines else "double"
        assert _output(out, tmp_path, "new_" + tag, defines) == _output(source, tmp_path, "orig_" + tag, defines)


def test_no_type_checks_without_headers_of_the_program_s_own(tmp_path):
    source = tmp_path / "k.c"
    source.write_text(PROGRAM.replace('#include "dt.h"', HEADER))
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "__builtin_types_compatible_p" not in text


@pytest.mark.skipif(shutil.which("clang") is None and shutil.which("clang-19") is None, reason="needs clang")
def test_the_pasted_intrinsics_draw_no_unused_function_warning_from_clang(tmp_path):
    """helper-18: clang -Wall named each pasted micro-kernel the output does not call
    (22 warnings; -Werror builds broke)."""
    (tmp_path / "dt.h").write_text(HEADER)
    source = tmp_path / "k.c"
    source.write_text(PROGRAM.replace(" * 0.75f", ""))
    out = tmp_path / "k.opt.c"
    out.write_text(optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
    assert "polysched_dgemm" in out.read_text()
    clang = shutil.which("clang") or shutil.which("clang-19")
    built = compile_c(out, tmp_path / "k", cc=clang, cflags=["-O1", "-Wall", "-Werror=unused-function"], openmp=True)
    assert built.ok, built.reason
