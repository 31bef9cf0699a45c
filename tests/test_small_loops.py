"""Small inner loops (a FIR's taps, a 3x3 window) stay innermost, as written.

gcc unrolls a loop of a few iterations whole and keeps its accumulator in a register.
Pluto's hyperplanes skewed such a loop to keep the statements that set and store the
accumulator in one band (a 5-tap FIR: (i, 4i + k)), the tiler then tiled or sank it:
a 3x3 convolution and a FIR ran 4x slower than their source at 2 threads. The
policy keeps the source's loop nests when the schedule moves, skews or reverses such a
loop, and keeps the loop out of the tiler's bands. Each program is run against its
source (`test_wrong_code.assert_same_behaviour`: -O0 and -O2, 1 and 2 threads).
"""
from __future__ import annotations

import re

import islpy as isl
import pytest

from polysched.pipeline import OptimizeOptions, optimize
from test_wrong_code import FLAG_SETS, assert_same_behaviour


@pytest.mark.parametrize("domain, values, expected", [
    ("[n] -> { S[i, k] : 0 <= i < n and 0 <= k < 5 }", None, [5]),
    ("[n] -> { S[i, k] : 0 <= i < n and i <= k <= i + 2 }", None, [3]),
    ("[n, K] -> { S[y, x, a, b] : 0 <= y < n and 0 <= x < n and 0 <= a < K and 0 <= b < K }", {"K": 3}, [3, 3]),
    ("[n, K] -> { S[y, x, a, b] : 0 <= y < n and 0 <= x < n and 0 <= a < K and 0 <= b < K }", None, []),
    ("[n] -> { S[i, j] : 0 <= i < n and 0 <= j < n }", None, []),
    ("[n] -> { S[i, k] : 0 <= i < n and 0 <= k < 17 }", None, []),
    ("[n] -> { S[i, k] : 0 <= i < n and 0 <= k < 16 }", None, [16]),
    ("[n] -> { S[i, k] : 0 <= i < n and k = i }", None, []),
    ("{ S[k] : 0 <= k < 5 }", None, []),
    ("{ S[a, b] : 0 <= a < 3 and 0 <= b < 3 }", None, []),
    ("{ S[i, j, k] : 0 <= i < 16 and 0 <= j < 16 and 0 <= k < 16 }", None, []),
    ("{ S[i, a, b] : 0 <= i < 17 and 0 <= a < 4 and 0 <= b < 4 }", None, [4, 4]),
    ("[n] -> { S[i, a, b] : 0 <= i < n and 0 <= a < 5 and 0 <= b < 5 }", None, [5, 5]),
    ("[n] -> { S[i, a, b] : 0 <= i < n and 0 <= a < 8 and 0 <= b < 8 }", None, [8, 8]),
    ("[n] -> { S[i, a, b] : 0 <= i < n and 0 <= a < 9 and 0 <= b < 9 }", None, [9]),
    ("[n] -> { S[i, a, b, c] : 0 <= i < n and 0 <= a < 4 and 0 <= b < 4 and 0 <= c < 4 }", None, [4, 4, 4]),
    ("[n] -> { S[i, a, b] : 0 <= i < n and 0 <= a < 2 and 0 <= b < 20 }", None, []),
    ("[n] -> { S[i, k, j] : 0 <= i < n and 0 <= k < 4 and 0 <= j < n }", None, []),
])
def test_small_inner_loops_are_the_innermost_loops_of_a_few_iterations(domain, values, expected):
    from polysched.schedule import small_inner_loops
    assert small_inner_loops(isl.Set(domain), values) == expected


FIR = r"""
#include <stdio.h>
#define TAPS 5
float in[2100], out[2048], out2[2048], ker[TAPS];
void fir(int n) {
#pragma scop
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < 5; k++)
      s += ker[k] * in[i + k];
    out[i] = s;
  }
  for (int i = 0; i < n; i++) {
    out2[i] = 0.5f * in[i];
    for (int k = 0; k < TAPS; k++)
      out2[i] += ker[k] * in[i + k];
  }
#pragma endscop
}
int main(void) {
  for (int k = 0; k < TAPS; k++) ker[k] = 0.1f * (k + 1);
  for (int i = 0; i < 2100; i++) in[i] = (i % 37) * 0.25f - 3.0f;
  fir(2048); fir(0); fir(-4); fir(7);
  double s = 0;
  for (int i = 0; i < 2048; i++) s += (out[i] + 3.0 * out2[i]) * (i % 11 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""

CONV = r"""
#include <stdio.h>
#define K 3
float img[66][70], res[64][68];
void conv(int h, int w, float ker[K][K]) {
#pragma scop
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float acc = 0.0f;
      for (int a = 0; a < K; a++)
        for (int b = 0; b < K; b++)
          acc += ker[a][b] * img[y + a][x + b];
      res[y][x] = acc;
    }
#pragma endscop
}
int main(void) {
  float ker[K][K];
  for (int a = 0; a < K; a++)
    for (int b = 0; b < K; b++) ker[a][b] = 0.125f * (a + 2 * b + 1);
  for (int y = 0; y < 66; y++)
    for (int x = 0; x < 70; x++) img[y][x] = ((y * 7 + x * 3) % 23) * 0.5f;
  conv(64, 68, ker); conv(0, 68, ker); conv(5, -1, ker);
  double s = 0;
  for (int y = 0; y < 64; y++)
    for (int x = 0; x < 68; x++) s += res[y][x] * (y + 1) * (x % 5 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""

# (fusion by cost, the default: an explicit --fuse max asks for Pluto's own choice)
MODES = {**{m: FLAG_SETS[m] for m in ("default", "tile", "tile-par")},
         "l2-unroll": dict(tile=True, l2tile=True, parallel=True, unroll=4)}


def _innermost_loops(text: str) -> list[str]:
    """The headers of the loops of the optimized branch with no loop inside."""
    optimized = text.split("the original code")[0]
    headers = list(re.finditer(r"for \(int (\w+) = [^;]*; \1 [^;]*;[^)]*\)", optimized))
    return [m.group(0) for k, m in enumerate(headers)
            if k + 1 == len(headers) or "{" not in optimized[m.end():headers[k + 1].start()]
            or "}" in optimized[m.end():headers[k + 1].start()]]


# helper-102: a 5 x 5 window (25 taps) was no small nest; the scheduler skewed its rows
# by the pixel loop, (x, 4x + a), and the code ran 10x slower than the source
# (literal sizes: with h and w parameters the schedule kept the rows whole already)
CONV5 = r"""
#include <stdio.h>
#define H 60
#define W 70
float in[H + 4][W + 4], wt[5][5], out[H][W];
static void conv(void) {
#pragma scop
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      float acc = 0.0f;
      for (int ky = 0; ky < 5; ky++)
        for (int kx = 0; kx < 5; kx++)
          acc += in[y + ky][x + kx] * wt[ky][kx];
      out[y][x] = acc;
    }
#pragma endscop
}
int main(void) {
  for (int i = 0; i < 5; i++) for (int j = 0; j < 5; j++) wt[i][j] = (i * 5 + j) * 0.01f;
  for (int i = 0; i < H + 4; i++) for (int j = 0; j < W + 4; j++) in[i][j] = ((i * 31 + j * 17) % 101) * 0.01f;
  for (int r = 0; r < 3; r++) { conv(); in[r][r] += 1.0f; }
  double s = 0;
  for (int i = 0; i < H; i++) for (int j = 0; j < W; j++) s += out[i][j] * (i % 3 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("text, taps", [(FIR, "(<= 4|< TAPS)"), (CONV, "(<= 2|< K)"), (CONV5, "(<= 4|< 5)")],
                         ids=["fir", "conv3x3", "conv5x5"])
def test_small_inner_loops_stay_innermost_and_whole(tmp_path, text, taps):
    """The taps loop is the innermost loop of every statement that has it, from 0 to
    its last tap, in every mode (before: (i, 4i + k), tiled, or sunk above i)."""
    outputs = assert_same_behaviour(tmp_path, text, modes=MODES, opts=("-O2",))
    for mode, output in outputs.items():
        inner = _innermost_loops(output)
        small = [h for h in inner if re.search(rf"= 0; \w+ {taps}; \w+( \+= 1|\+\+)", h)]
        assert small, (mode, inner, output)
        assert not re.search(r"\w+ = \d+ \* c\d+; \w+ <= \d+ \* c\d+ \+", output.split("the original code")[0]), \
            (mode, output)


def test_the_summary_says_the_source_nests_were_kept(tmp_path):
    source = tmp_path / "fir.c"
    # (a literal bound: Pluto cannot skew by a TAPS of any value, as the model reads it)
    source.write_text(FIR[:FIR.index("  for (int i = 0; i < n; i++) {\n    out2")]
                      + "#pragma endscop\n}\n")
    summary = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).summary()
    assert re.search(r"kept the source's loop nests: the schedule found skews, reverses or moves the "
                     r"5-iteration loop 'k' of S\d", summary), summary
    assert re.search(r"parallel: loop 0 \[private=s(_1)?\]", summary), summary


FIR_IN_PLACE = r"""
#include <stdio.h>
float in[2100], out[2048], ker[5];
void fir(int n) {
#pragma scop
  for (int i = 0; i < n; i++) {
    out[i] = 0.0f;
    for (int k = 0; k < 5; k++)
      out[i] += ker[k] * in[i + k];
  }
#pragma endscop
}
int main(void) {
  for (int k = 0; k < 5; k++) ker[k] = 0.1f * (k + 1);
  for (int i = 0; i < 2100; i++) in[i] = (i % 37) * 0.25f - 3.0f;
  fir(2048); fir(0); fir(-4); fir(7);
  double s = 0;
  for (int i = 0; i < 2048; i++) s += out[i] * (i % 11 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_a_statement_around_small_loops_is_not_distributed_from_them(tmp_path):
    """Fusion by cost does not count a small inner loop as a loop level: 'out[i] = 0'
    stays in the loop around the taps that accumulate into out[i] (it was a loop of its
    own: one more pass over out, 1.8x slower than the source)."""
    outputs = assert_same_behaviour(tmp_path, FIR_IN_PLACE, modes={m: MODES[m] for m in ("default", "tile-par")},
                                    opts=("-O2",))
    for mode, output in outputs.items():
        optimized = output.split("the original code")[0]
        # one nest (a parallel one twice: forked, and its copy in place, the same lines)
        nests = re.findall(r"for \(int c0 = [^\n]*", optimized)
        assert len(set(nests)) == 1 and len(nests) == (2 if "omp parallel for" in optimized else 1), \
            (mode, optimized)


# a small loop that is not innermost (3 row offsets around a loop over the columns): the
# scheduler skews it by the row loop to keep the accumulator's band permutable, (i, 2i + k)
ROWS3 = r"""
#include <stdio.h>
float A[300][200], w[3], out[300];
static void rows(int n, int m) {
#pragma scop
  for (int i = 0; i < n; i++) {
    float acc = 0.0f;
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < m; j++)
        acc += A[i + k][j] * w[k];
    out[i] = acc;
  }
#pragma endscop
}
int main(void) {
  for (int k = 0; k < 3; k++) w[k] = 0.25f * (k + 1);
  for (int i = 0; i < 300; i++) for (int j = 0; j < 200; j++) A[i][j] = ((i * 7 + j * 3) % 19) * 0.125f;
  rows(297, 200); rows(0, 5); rows(5, -2);
  double s = 0; for (int i = 0; i < 300; i++) s += out[i] * (i % 7 + 1);
  printf("%.17g\\n", s);
  return 0;
}
"""


def test_a_band_member_that_skews_a_small_loop_is_not_tiled(tmp_path):
    """Tiles along ``2i + k`` hold a few values of it each and cut the three offsets
    apart: the band is left untiled, with a note, and its outputs are the source's."""
    assert_same_behaviour(tmp_path, ROWS3, modes=MODES, opts=("-O2",))
    source = tmp_path / "rows3.c"
    source.write_text(ROWS3)
    summary = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).summary()
    assert "not tiled: member 1 is a skew that spans at most 3 values for each value of the members before it" \
        in summary, summary
    assert "tiled [" not in summary, summary
