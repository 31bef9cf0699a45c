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
    assert code.count("polysched_dgemm_packed_k3(") == 1
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
