"""Packed panels kept across calls (``epoch(X)`` in a call template, ``polysched_pk_cache``
in polysched_intrinsics.h): an operand that the region never writes, a convolution's
filter, is packed once per region run instead of once per call. Run against the
original, bit for bit: a filter changed between two runs of the region (the kept panels
must not survive the run), an operand the region writes (never kept), every ISA path,
1 and 2 threads."""
import shutil

import pytest

import polysched as ps
from polysched.bench.harness import DEFAULT_CFLAGS
from polysched.emit_c import without_pasted_headers as calls_only
from polysched.tensorize import INTRINSICS_DIR, IntrinsicError, load_intrinsics

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# NHWC convolution, called three times; the filter and the input change between calls
# (outside the region). K = NR * NS * NC = 360: two k blocks of the packed driver; NK =
# 19 and NH = 13 leave edge blocks of the register tile in both directions.
CONV = r"""#include <stdio.h>
#define NB 2
#define NH 13
#define NW 5
#define NK 19
#define NC 40
#define NR 3
#define NS 3
static double in[NB][NH + NR - 1][NW + NS - 1][NC], wt[NR][NS][NC][NK], out[NB][NH][NW][NK];
static void kernel(void)
{
  int n, h, w, k, r, s, c;
#pragma scop
  for (n = 0; n < NB; n++)
    for (h = 0; h < NH; h++)
      for (w = 0; w < NW; w++)
        for (k = 0; k < NK; k++)
          out[n][h][w][k] = 0.0;
  for (n = 0; n < NB; n++)
    for (h = 0; h < NH; h++)
      for (w = 0; w < NW; w++)
        for (r = 0; r < NR; r++)
          for (s = 0; s < NS; s++)
            for (c = 0; c < NC; c++)
              for (k = 0; k < NK; k++)
                out[n][h][w][k] += in[n][h + r][w + s][c] * wt[r][s][c][k];
#pragma endscop
}
int main(void)
{
  int n, h, w, k, r, s, c, round;
  for (n = 0; n < NB; n++) for (h = 0; h < NH + NR - 1; h++) for (w = 0; w < NW + NS - 1; w++)
    for (c = 0; c < NC; c++) in[n][h][w][c] = (double)((n + 2 * c + 3 * h + 5 * w) % 17) / 17.0 - 0.5;
  for (round = 0; round < 3; round++) {
    for (r = 0; r < NR; r++) for (s = 0; s < NS; s++) for (c = 0; c < NC; c++) for (k = 0; k < NK; k++)
      wt[r][s][c][k] = (double)((3 * k + 5 * c + 7 * r + 11 * s + round * 29) % 13) / 13.0 - 0.5;
    kernel();
    for (n = 0; n < NB; n++) for (h = 0; h < NH; h++) for (w = 0; w < NW; w++) for (k = 0; k < NK; k++)
      printf("%a\n", out[n][h][w][k]);
    in[round % NB][round][round][round] += 1.0;
  }
  return 0;
}
"""

FLAGS = {"native": [], "avx2": ["-DPOLYSCHED_NO_AVX512"], "portable": ["-DPOLYSCHED_FORCE_PORTABLE"]}


@pytest.mark.parametrize("path", list(FLAGS))
def test_filter_changed_between_region_runs(path):
    program = ps.Program.from_source(CONV, filename="conv.c").tensorize("S1", "dgemm_packed_k3", parallel=True)
    code = calls_only(program.c_code())
    # the region takes a new epoch where it starts; both inputs are read-only in the region
    assert code.count("unsigned long polysched_epoch = polysched_pk_next_epoch();") == 1
    # (the call twice: in its parallel loop, and in that loop's copy in place)
    assert code.count("polysched_dgemm_packed_k3(") == 2
    assert "(long)(NW) * (long)(NK), polysched_epoch, polysched_epoch);" in code
    for threads in (1, 2):
        result = program.verify(threads=threads, cflags=[*DEFAULT_CFLAGS, *FLAGS[path]], rtol=0, atol=0)
        assert result.status == "equal", result


# the filter is updated inside the region, after the product: its panels must be packed
# in every call (epoch 0), the input's may be kept
UPDATED = CONV.replace("""                out[n][h][w][k] += in[n][h + r][w + s][c] * wt[r][s][c][k];
#pragma endscop""", """                out[n][h][w][k] += in[n][h + r][w + s][c] * wt[r][s][c][k];
  for (r = 0; r < NR; r++)
    for (s = 0; s < NS; s++)
      for (c = 0; c < NC; c++)
        for (k = 0; k < NK; k++)
          wt[r][s][c][k] = wt[r][s][c][k] * 0.5 + out[0][r][s][k];
#pragma endscop""")


def test_an_operand_the_region_writes_is_never_kept():
    assert UPDATED != CONV
    program = ps.Program.from_source(UPDATED, filename="conv.c").tensorize("S1", "dgemm_packed_k3")
    code = calls_only(program.c_code())
    assert "(long)(NW) * (long)(NK), polysched_epoch, 0UL);" in code
    result = program.verify(threads=1, rtol=0, atol=0)
    assert result.status == "equal", result


def test_epoch_names_an_input_array_operand(tmp_path):
    source = (INTRINSICS_DIR / "dgemm_packed_k3.c").read_text()
    for bad in ("epoch(C)", "epoch(Q)"):
        (tmp_path / "k3.c").write_text(source.replace("epoch(B))", bad + ")"))
        with pytest.raises(IntrinsicError, match="does not name an input array operand"):
            load_intrinsics(tmp_path)


# The driver alone, against the description's loops (bit for bit): A read in place (its k
# offsets mostly step by one: the direct kernels), A and B kept or not, one epoch over
# calls with other blocks of A (A in place from the second call), epochs 0, and sizes
# that leave edge panels (m_ % 12, m_ % 6, n_ % 16: the in-place tail kernels of 8 and 4
# rows, or 4 and 2, then a packed rest), several k blocks and offsets that jump (k2
# stride 7).
DRIVER = r"""#include <stdio.h>
#include <string.h>
#include "polysched_intrinsics.h"
#define K1 3
#define K2 5
#define K3 37
static double A[300][K1 * K2 * K3 + 64], B[K1][K2][K3][70], C0[40][70], C1[40][70];
int main(void)
{
  long m, n, i, j, k1, k2, k3, call, bad = 0;
  unsigned long epoch = polysched_pk_next_epoch();
  for (i = 0; i < 300; i++) for (j = 0; j < K1 * K2 * K3 + 64; j++) A[i][j] = (double)((i * 7 + j * 13) % 101) / 37.0 - 1.3;
  for (k1 = 0; k1 < K1; k1++) for (k2 = 0; k2 < K2; k2++) for (k3 = 0; k3 < K3; k3++) for (j = 0; j < 70; j++)
    B[k1][k2][k3][j] = (double)((k1 * 11 + k2 * 5 + k3 * 3 + j * 17) % 89) / 29.0 - 1.1;
  for (call = 0; call < 12; call++) {
    m = 1 + (call * 7) % 40; n = 1 + (call * 23) % 70;
    const double *a = &A[call * 20][call % 5];
    for (i = 0; i < m; i++) for (j = 0; j < n; j++) C0[i][j] = C1[i][j] = (double)(i - j) / 7.0;
    /* A[i][k1][k2][k3] at a + i * 2 * 320 + k1 * K2 * K3 + k2 * (K3 + 7) + k3 (rows 2 apart) */
    polysched_dgemm_packed_k3(m, n, K1, K2, K3, a, 2 * (K1 * K2 * K3 + 64), K2 * K3, K3 + 7, 1,
                              &B[0][0][0][0], K2 * K3 * 70, K3 * 70, 70, 1, &C1[0][0], 70,
                              call < 8 ? epoch : 0UL, call % 3 ? epoch : 0UL);
    for (k1 = 0; k1 < K1; k1++) for (k2 = 0; k2 < K2; k2++) for (k3 = 0; k3 < K3; k3++)
      for (i = 0; i < m; i++) for (j = 0; j < n; j++)
        C0[i][j] = C0[i][j] + a[i * 2 * (K1 * K2 * K3 + 64) + k1 * K2 * K3 + k2 * (K3 + 7) + k3] * B[k1][k2][k3][j];
    bad += memcmp(C0, C1, sizeof C0) != 0;
  }
  printf("%ld\n", bad);
  return 0;
}
"""


@pytest.mark.parametrize("path", list(FLAGS))
def test_driver_against_the_loops(tmp_path, path):
    import subprocess
    from polysched.tensorize import INCLUDE_DIR

    src = tmp_path / "driver.c"
    src.write_text(DRIVER)
    exe = tmp_path / "driver"
    subprocess.run(["gcc", *DEFAULT_CFLAGS, "-ffp-contract=off", *FLAGS[path], f"-I{INCLUDE_DIR}", str(src),
                    "-o", str(exe)], check=True, capture_output=True, timeout=120)
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out == "0\n"
