"""The output around the region: names polysched makes up avoid the macros of the
file's own headers, and the headers it pastes keep the file's feature-test macros in
force. Both found by a probe; each program compiles and runs as the original does."""
from __future__ import annotations

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.textio import feature_definitions

HEADER = "#define c0 5\n#define c1 (c0 + 1)\n#define NN 30\n"

USES_HEADER = r"""
#include <stdio.h>
#include "sizes.h"
double A[NN][NN];
int main(void) {
  int i, j, n = NN;
  for (i = 0; i < NN; i++) for (j = 0; j < NN; j++) A[i][j] = i + j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[j][i] = A[j][i] * 2 + A[i][j];
#pragma endscop
  printf("%g %g %d\n", A[NN - 1][3], A[2][7], c1);
  return 0;
}
"""


def test_generated_names_avoid_the_macros_of_included_headers(tmp_path):
    (tmp_path / "sizes.h").write_text(HEADER)
    source = tmp_path / "uses.c"
    source.write_text(USES_HEADER)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    region = text[text.index("#pragma scop"):]
    assert "for (int t0 = " in region
    assert "c0 =" not in region and "c1 =" not in region
    expected = outputs_of(USES_HEADER.replace('#include "sizes.h"', HEADER), tmp_path, "orig", [()])
    assert outputs_of(text.replace('#include "sizes.h"', HEADER), tmp_path, "out", [()]) == expected


GNU_LATE = r"""
#define N 48
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
double A[N][N], B[N][N], C[N][N];
int main(void) {
  int i, j, k, n = N;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = (i + j) % 5; B[i][j] = (i * j) % 3; C[i][j] = 0; }
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
  const char *rest = strchrnul("gemm:done", ':');
  printf("%g %g %s\n", C[3][5], C[N - 1][N - 2], rest);
  return 0;
}
"""


def test_pasted_headers_keep_a_late_feature_test_macro(tmp_path):
    """``_GNU_SOURCE`` after an ordinary macro: the pasted header (which includes
    <stdint.h>) goes above ``#define N``, and the feature macro goes above it again,
    or glibc's features are fixed without it (strchrnul undeclared: a crash)."""
    source = tmp_path / "gnu.c"
    source.write_text(GNU_LATE)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "polysched_dgemm" in text
    assert text.index("#define _GNU_SOURCE") < text.index("#include <stdint.h>") < text.index("#define N 48")
    from polysched.bench import compile_c
    out = tmp_path / "gnu_out.c"
    out.write_text(text)
    built = compile_c(out, tmp_path / "gnu_out", cflags=["-O1", "-Werror=implicit-function-declaration"],
                      openmp=True)
    assert built.ok, built.reason
    assert outputs_of(text, tmp_path, "out", [()]) == outputs_of(GNU_LATE, tmp_path, "orig", [()])
    again = tmp_path / "again.c"          # polysched's own output, optimized again
    again.write_text(text)
    assert optimize(again, OptimizeOptions.from_flags(tile=True, parallel=True)).text.count("_GNU_SOURCE") == 2


def test_feature_definitions_are_those_outside_conditionals_and_not_undone():
    text = ("#define N 4\n#define _GNU_SOURCE\n#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 1\n#endif\n"
            "#define _XOPEN_SOURCE 700 /* x */\n#define _DEFAULT_SOURCE\n#undef _DEFAULT_SOURCE\n"
            "#include <stdio.h>\n#define _LATE 1\n")
    assert feature_definitions(text) == "#define _GNU_SOURCE\n#define _XOPEN_SOURCE 700\n"
    assert feature_definitions("int x;\n") == ""


# one region the model cannot read (an indirect subscript) made optimize refuse the whole
# file; now it stays as written, with a note where it is, and the others are optimized
INDIRECT_THEN_AFFINE = r"""#include <stdio.h>
#include <stdlib.h>
double A[200], B[200];
int idx[200];
int main(int argc, char **argv) {
  int i, n = atoi(argv[1]);
  for (i = 0; i < 200; i++) { A[i] = i; B[i] = 0; idx[i] = (i * 7) % 200; }
#pragma scop
  for (i = 0; i < n; i++)
    B[idx[i]] = A[i] * 2.0;
#pragma endscop
#pragma scop
  for (i = 1; i < n; i++)
    for (int j = 0; j < n; j++)
      A[j] = A[j] * 0.5 + B[i] + j;
#pragma endscop
  for (i = 0; i < 200; i++) printf("%a %a\n", A[i], B[i]);
  return 0;
}
"""


def test_an_unreadable_region_is_kept_and_the_others_optimized(tmp_path, capsys):
    from polysched.cli import main

    src = tmp_path / "two.c"
    src.write_text(INDIRECT_THEN_AFFINE)
    out = tmp_path / "out.c"
    assert main(["optimize", str(src), "-o", str(out), "--tile", "--parallel"]) == 0
    err = capsys.readouterr().err
    assert f"{src}:10:7: note: indirect access" in err and "the region is kept as written" in err, err
    text = out.read_text()
    first = INDIRECT_THEN_AFFINE.split("#pragma endscop")[0]
    assert text.startswith(first)                               # verbatim
    assert text.count("#pragma scop") == 2 and "polysched" in text.split("#pragma scop")[2]
    sizes = [(0,), (1,), (57,), (200,)]
    assert outputs_of(text, tmp_path, "opt", sizes) == outputs_of(INDIRECT_THEN_AFFINE, tmp_path, "orig", sizes)
    # alone, the region is an error, as before (exit 2, nothing written)
    alone = tmp_path / "one.c"
    alone.write_text(INDIRECT_THEN_AFFINE.split("#pragma scop\n  for (i = 1")[0] + "  return 0;\n}\n")
    assert main(["optimize", str(alone), "-o", str(tmp_path / "none.c")]) == 2
    assert not (tmp_path / "none.c").exists()
