"""Arrays reached through a pointer per row (``double **A``, ``R[i].v[j]``, a global
``double *R[N]``, pointer members ``R[i].a``, ``R[i].b``): their rows may overlap each
other or another array's. The programs in tests/data/aliasing (found by an adversarial
probe: each printed other values once optimized) call the kernels on overlapping rows;
the optimized files must print what the originals print, at 1 and 2 threads."""
from __future__ import annotations

from pathlib import Path

import pytest

from polysched.bench import compile_c, run_binary, verify
from polysched.pipeline import OptimizeOptions, optimize

DATA = Path(__file__).parent / "data" / "aliasing"
MODES = {"plain": OptimizeOptions.from_flags(),
         "tile-par": OptimizeOptions.from_flags(tile=True, parallel=True)}


@pytest.mark.parametrize("name", sorted(p.stem for p in DATA.glob("*.c")))
def test_overlapping_rows_give_the_original_results(name, tmp_path):
    source = DATA / f"{name}.c"
    for mode, options in MODES.items():
        out = tmp_path / f"{name}-{mode}.c"
        out.write_text(optimize(source, options).text)
        verdict = verify(source, out, cflags=["-O2"], openmp=True, workdir=tmp_path / mode)
        assert verdict.ok, f"{name} [{mode}]: {verdict.status} {verdict.reason}"


def test_rows_that_do_not_overlap_run_the_optimized_code(tmp_path):
    """The run-time check: one row pointer per row of a contiguous buffer passes it (the
    optimized code runs), rows one element apart fail it (the original runs); both
    print the original's values."""
    source = (DATA / "bug1_ptrptr_overlapping_rows.c").read_text()
    result = optimize(DATA / "bug1_ptrptr_overlapping_rows.c", MODES["tile-par"])
    assert "the rows of A do not overlap" in result.summary()
    marked = result.text.replace("if (polysched_rows_ok) {", 'if (polysched_rows_ok) {\n    puts("optimized");', 1)
    assert marked != result.text
    for layout, expected in (("base + i * n", True), ("base + i", False)):
        outputs = []
        for tag, text in (("orig", source), ("opt", marked)):
            text = text.replace("double base[8] = {0};", "double base[16] = {0};") \
                .replace("rows[i] = base + i;", f"rows[i] = {layout};").replace("i < 2 * n;", "i < 16;")
            path = tmp_path / f"{tag}.c"
            path.write_text(text)
            built = compile_c(path, tmp_path / tag, cflags=["-O2"], openmp=True)
            assert built.ok, built.reason
            run = run_binary(tmp_path / tag, threads=2)
            assert run.ok, run.reason
            outputs.append(run.stdout)
        assert ("optimized" in outputs[1]) == expected, layout
        assert outputs[1].replace("optimized\n", "") == outputs[0], layout



BLUR_ROWS = r"""#include <stdio.h>
#include <stdlib.h>
static void blur(int h, int w, float **in, float **out)
{
#pragma scop
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      out[y][x] = (in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1] + 4.0f * in[y][x]) * 0.125f;
#pragma endscop
}
int main(int argc, char **argv)
{
  int h = atoi(argv[1]), w = atoi(argv[2]), mode = atoi(argv[3]);
  int H = h > 0 ? h : 1, W = w > 0 ? w : 1;
  float **in = malloc((H + 2) * sizeof *in), **out = malloc((H + 2) * sizeof *out);
  float *block = malloc(sizeof(float) * (H + 2) * (W + 2) * 2);
  for (int y = 0; y < H; y++) {
    if (mode == 0) { in[y] = malloc(W * sizeof(float)); out[y] = malloc(W * sizeof(float)); }
    else if (mode == 1) { in[y] = block + y * W; out[y] = in[y]; }              /* in place */
    else if (mode == 2) { in[y] = block + y * W; out[y] = block + (y + 1) * W; } /* shifted by a row */
    else if (mode == 3) { in[y] = block + y * W; out[y] = block + (H + 1) * W + y * W; } /* apart, one block */
    else if (mode == 4) { in[y] = block + y * W; out[y] = block + (y * W + 1); }  /* shifted by one element */
    else { in[y] = block + (H - 1 - y) * W; out[y] = block + (H + 1) * W + (H - 1 - y) * W; } /* descending */
  }
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) { in[y][x] = (float)((y * 7 + x * 3) % 13) / 7.0f; }
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) if (mode == 0 || mode >= 3) out[y][x] = 0;
  blur(h, w, in, out);
  double s = 0;
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) s += out[y][x] * (1 + (y + x) % 5) + in[y][x];
  printf("%.17g\n", s);
  return 0;
}
"""

ROWS_INTO_BLOCK = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void rowsum(int h, int w, double **in, double *out)
{
#pragma scop
  for (int y = 0; y < h; y++)
    for (int x = 1; x < w; x++)
      out[y * w + x] = in[y][x] + 0.5 * in[y][x - 1];
#pragma endscop
}
int main(int argc, char **argv)
{
  int h = atoi(argv[1]), w = atoi(argv[2]), mode = atoi(argv[3]);
  int H = h > 0 ? h : 1, W = w > 0 ? w : 1;
  double *block = calloc((size_t)(H + 4) * (W + 4) * 3, sizeof(double));
  double **in = malloc(H * sizeof *in);
  double *out;
  for (int y = 0; y < H; y++) in[y] = block + (size_t)y * W;
  if (mode == 0) out = calloc((size_t)H * W + 1, sizeof(double));
  else if (mode == 1) out = block;                       /* over the rows */
  else if (mode == 2) out = block + (size_t)H * W;       /* just after them */
  else out = block + (size_t)(H + 2) * (W + 2) * 2;      /* far */
  for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) in[y][x] = (y * 5 + x * 3) % 11;
  rowsum(h, w, in, out);
  double s = 0;
  for (int i = 0; i < H * W; i++) s += out[i] * (i % 7 + 1) + block[i];
  printf("%.17g\n", s);
  return 0;
}
"""

GEMM_ROWS = r"""#include <stdio.h>
#include <stdlib.h>
void kern(int n, double **C, double **A, double **B) {
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), N = n > 0 ? n : 1;
  double **A = malloc(N * sizeof *A), **B = malloc(N * sizeof *B), **C = malloc(N * sizeof *C);
  for (int i = 0; i < N; i++) {
    A[i] = malloc(N * sizeof(double) + 24 * (i % 3)); B[i] = malloc(N * sizeof(double) + 8); C[i] = malloc(N * sizeof(double) + 40);
    for (int j = 0; j < N; j++) { A[i][j] = (i * 3 + j) % 7; B[i][j] = (i + 2 * j) % 5; C[i][j] = 1; }
  }
  kern(n, C, A, B);
  double s = 0; for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += C[i][j] * (1 + (i + j) % 3);
  printf("%.17g\n", s);
  return 0;
}
"""


def _marked(text: str) -> str:
    """``text`` printing "optimized" where the checks let the optimized code run."""
    marked = text.replace("if (polysched_rows_ok) {", 'if (polysched_rows_ok) {\n    puts("optimized");', 1)
    assert marked != text
    return marked


@pytest.mark.parametrize("source, layouts", [
    # float **in read, float **out written: 0 separate rows, 1 in place, 2 out a row
    # down, 3 apart in one block, 4 out one element along, 5 both lists of rows descending
    (BLUR_ROWS, {0: True, 1: False, 2: False, 3: True, 4: False, 5: False}),
    # double **in read, double *out written: 0 its own block, 1 over in's rows, 2 just
    # after them, 3 far in the same block
    (ROWS_INTO_BLOCK, {0: True, 1: False, 2: True, 3: True})])
def test_rows_next_to_another_array_are_checked_row_by_row(source, layouts, tmp_path):
    """Row pointers next to another array were never optimized ("no run-time check
    can prove otherwise", helper-68's p01 blur over float **): the check now compares
    each row with the other array's rows (a merge of the two ascending lists) or block,
    and with both tables of row pointers. The optimized code runs exactly where the
    layout keeps them apart, and every layout prints the original's values."""
    from compiled_runs import outputs_of
    path = tmp_path / "rows.c"
    path.write_text(source)
    result = optimize(path, MODES["tile-par"])
    assert "row by row, that these arrays reached through row pointers do not overlap" in result.summary()
    assert "#pragma omp parallel for" in result.text
    sizes = [(0, 0), (1, 1), (3, 5), (7, 4), (33, 17), (64, 80)]
    for layout, runs_optimized in layouts.items():
        arguments = [size + (layout,) for size in sizes]
        new = outputs_of(_marked(result.text), tmp_path, f"new{layout}", arguments)
        assert [out.replace("optimized\n", "") for out in new] == \
            outputs_of(source, tmp_path, f"orig{layout}", arguments), layout
        assert ("optimized" in new[-1]) == runs_optimized, layout


def test_rows_are_no_operands_of_an_intrinsic_call(tmp_path):
    """A call takes a base and a fixed distance between rows: gemm over double ** is
    not tensorized (its call was printed with an empty leading dimension, which did
    not compile, once the region's rows were checked instead of kept as written); it
    runs checked and tiled, printing the original's values."""
    from compiled_runs import outputs_of
    path = tmp_path / "gemm.c"
    path.write_text(GEMM_ROWS)
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True, tensorize=True))
    assert "polysched_dgemm" not in result.text and "#pragma omp parallel for" in result.text
    sizes = [(0,), (1,), (5,), (33,), (70,)]
    assert outputs_of(result.text, tmp_path, "new", sizes) == outputs_of(GEMM_ROWS, tmp_path, "orig", sizes)



# helper-71: dst's row 2 is the bytes of src->rows (c01) or of a global pointer to a
# table (c02); char stores change the pointer, which the original reloads
_TABLES_SETUP = r"""  int mode = atoi(argv[1]);
  int h = 8, w = 6, xs = 2;
  for (int y = 0; y < 16; y++) { T.a[y] = RA[y]; T.b[y] = RB[y]; }
  unsigned char **tb = T.b;
  unsigned char bytes[8]; memcpy(bytes, &tb, 8);
  for (int y = 0; y < 16; y++) for (int x = 0; x < 64; x++) { RA[y][x] = 'a' + (y + x) % 20; RB[y][x] = 'A' + (y * 3 + x) % 20; }
  for (int y = 0; y < 8; y++) { RA[y][xs] = bytes[y]; RB[y][xs] = bytes[y]; }
"""
STORE_INTO_TABLE_POINTER = {"member": r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct img { int h, w; unsigned char **rows; };
static void kern(int h, int w, struct img *dst, struct img *src)
{
#pragma scop
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      dst->rows[x][y] = src->rows[y][x];
#pragma endscop
}
struct { unsigned char *a[16]; unsigned char *b[16]; } T __attribute__((aligned(256)));
struct { unsigned char pre[1024]; struct img S; unsigned char post[1024]; } G;
unsigned char *TD[16];
unsigned char RA[16][64], RB[16][64];
int main(int argc, char **argv)
{
""" + _TABLES_SETUP + r"""  G.S.h = h; G.S.w = w; G.S.rows = T.a;
  for (int x = 0; x < 16; x++) TD[x] = x < xs ? G.pre + x * 64 : G.post + x * 64;
  if (mode == 1) TD[xs] = (unsigned char *)&G.S.rows;   /* row xs of dst is src's pointer to its table */
  struct img D = {w, h, TD};
  kern(h, w, &D, &G.S);
  unsigned long long c = 0;
  for (int x = 0; x < w; x++) if (x != xs) for (int y = 0; y < h; y++) c = c * 31 + TD[x][y];
  printf("%llx %d\n", c, G.S.rows == T.b);
  return 0;
}
""", "global": r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct { unsigned char pre[1024]; unsigned char **src; unsigned char post[1024]; } G;
unsigned char **dst;
static void kern(int h, int w)
{
#pragma scop
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      dst[x][y] = G.src[y][x];
#pragma endscop
}
struct { unsigned char *a[16]; unsigned char *b[16]; } T __attribute__((aligned(256)));
unsigned char *TD[16];
unsigned char RA[16][64], RB[16][64];
int main(int argc, char **argv)
{
""" + _TABLES_SETUP + r"""  G.src = T.a;
  for (int x = 0; x < 16; x++) TD[x] = x < xs ? G.pre + x * 64 : G.post + x * 64;
  if (mode == 1) TD[xs] = (unsigned char *)&G.src;
  dst = TD;
  kern(h, w);
  unsigned long long c = 0;
  for (int x = 0; x < w; x++) if (x != xs) for (int y = 0; y < h; y++) c = c * 31 + TD[x][y];
  printf("%llx %d\n", c, G.src == T.b);
  return 0;
}
"""}


@pytest.mark.parametrize("case", sorted(STORE_INTO_TABLE_POINTER))
def test_written_rows_are_checked_against_the_pointers_to_tables(case, tmp_path):
    """A written row over the pointer through which the other array's table is reached
    (a struct member, a global) passed the row checks, and the interchanged loops read
    through the changed pointer: the pointer's own bytes are in the checks now."""
    from compiled_runs import outputs_of
    source = STORE_INTO_TABLE_POINTER[case]
    path = tmp_path / "rows.c"
    path.write_text(source)
    result = optimize(path, OptimizeOptions.from_flags(parallel=True))
    assert "#pragma omp parallel for" in result.text
    layouts = [(0,), (1,)]
    assert outputs_of(result.text, tmp_path, "new", layouts) == outputs_of(source, tmp_path, "orig", layouts)


NO_COLUMNS = r"""#include <stdio.h>
#include <stdlib.h>
static void kern(int h, int x0, int x1, float **in, float **out)
{
#pragma scop
  for (int y = 0; y < h; y++)
    for (int x = x0; x < x1; x++)
      out[y][x] = in[y][x] * 2.0f;
#pragma endscop
}
int main(int argc, char **argv)
{
  int h = atoi(argv[1]), x0 = atoi(argv[2]), x1 = atoi(argv[3]);
  /* x1 <= x0: the kernel touches nothing, so tables of one row suffice */
  float **in = malloc(sizeof *in), **out = malloc(sizeof *out);
  in[0] = calloc(8, sizeof(float)); out[0] = calloc(8, sizeof(float));
  kern(h, x0, x1, in, out);
  printf("%a\n", (double)out[0][0]);
  return 0;
}
"""


def test_the_row_check_loads_no_row_pointer_when_no_column_is_touched(tmp_path):
    """x1 <= x0: the region touches nothing and the tables hold one row each; the check
    of out's rows loaded out[1] (AddressSanitizer: a read past the table). Row checks
    run only where the arrays are touched."""
    path = tmp_path / "rows.c"
    path.write_text(NO_COLUMNS)
    (tmp_path / "opt.c").write_text(optimize(path, MODES["tile-par"]).text)
    built = compile_c(tmp_path / "opt.c", tmp_path / "opt", openmp=True,
                      cflags=["-O1", "-fsanitize=address", "-fno-sanitize-recover"])
    if not built.ok and "sanitize" in built.reason:
        pytest.skip("no AddressSanitizer runtime")
    assert built.ok, built.reason
    for args in (["1000", "5", "5"], ["1000", "5", "1"], ["1", "0", "3"]):
        run = run_binary(tmp_path / "opt", args=args, threads=2, timeout=60,
                         env={"ASAN_OPTIONS": "detect_leaks=0"})
        assert run.ok, f"{args}: {run.reason}"
