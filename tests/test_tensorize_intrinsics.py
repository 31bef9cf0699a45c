"""Shipped intrinsic descriptions parse with our front end, and every C implementation
in polysched_intrinsics.h equals a naive loop nest of its semantics, bit for bit, on the
run-time-selected ISA path and with -DPOLYSCHED_FORCE_PORTABLE."""
import re
import shutil
import subprocess

import pytest

from polysched.tensorize import INCLUDE_DIR, builtin_intrinsics, load_intrinsic
from polysched.tensorize.intrinsic import IntrinsicError

SHIPPED = {"dgemm_4x8", "dgemm_4x8_scaled", "dgemm_8x8_avx512", "dgemm_8x8_avx512_scaled", "sgemm_8x8",
           "i8dot_u8s8_4x8", "i8dot_s8s8_4x8", "mtile16_f64", "dgemm_packed", "dgemm_packed_scaled", "dgemm_packed_k3",
           "dgemm_packed_fma", "dgemm_packed_fma_scaled", "i8gemm_packed_s8s8", "i8gemm_packed_u8s8",
           "sgemm_packed_bf16", "dgemm_cblas", "dgemm_cblas_scaled", "sgemm_cblas", "sgemm_cblas_scaled",
           "dgemm_packed_beta", "dgemm_packed_beta_scaled", "dgemm_packed_zero", "dgemm_packed_zero_scaled",
           "dgemm_packed_sub"}


def test_shipped_descriptions():
    found = {i.name: i for i in builtin_intrinsics()}
    assert set(found) == SHIPPED
    d = found["dgemm_4x8"]
    assert d.shape() == {"k": None, "i": 4, "j": 8}
    assert d.output == "C" and d.operands == ["C", "A", "B"]
    assert d.pattern.types == {"C": "double", "A": "double", "B": "double"}
    assert d.stride1 == {"B": {1}, "C": {1}} and d.remainder == {"i", "j"}
    assert d.features == (("avx2", "fma"),)
    u8 = found["i8dot_u8s8_4x8"]
    assert u8.pattern.types == {"C": "int32_t", "A": "uint8_t", "B": "int8_t"}
    assert u8.features == (("avx512vnni", "avx512vl"), ("avxvnni",), ("avx2",))
    assert found["mtile16_f64"].shape() == {"i": 16, "j": 16, "k": 16}
    assert found["mtile16_f64"].remainder == frozenset()
    assert found["dgemm_4x8_scaled"].operands == ["C", "alpha", "A", "B"]
    packed = found["dgemm_packed_scaled"]
    assert packed.shape() == {"k": None, "i": None, "j": None} and packed.exact
    assert packed.extent_params == {"k": "K", "i": "M", "j": "N"} and packed.packing == {"A", "B"}
    assert found["dgemm_packed_fma"].numerics == "fma" and not found["dgemm_packed_fma"].exact
    band = found["dgemm_packed_beta_scaled"]
    assert band.loops == ["i", "j", "k"] and band.init.loops == ["i", "j"] and found["dgemm_packed"].init is None
    assert band.operands == ["C", "alpha", "A", "B"] and band.init_operands == ["beta"]
    assert found["dgemm_packed_zero"].init.tree[2] == ("const", "0.0")
    blas = found["dgemm_cblas_scaled"]
    assert blas.library == "cblas" and blas.numerics == "reassociate" and not blas.exact
    assert blas.operands == ["C", "alpha", "A", "B"] and found["dgemm_packed"].library == ""


def test_bad_description(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text("void f(double x[4]) {\n#pragma scop\nx[0] = 1;\n#pragma endscop\n}\n")
    with pytest.raises(IntrinsicError, match="polysched intrinsic"):
        load_intrinsic(bad)
    bad.write_text("/* polysched intrinsic\n * colour: red\n */\n")
    with pytest.raises(IntrinsicError, match=re.escape(f"{bad}:2:1: cannot read metadata line 'colour: red'")):
        load_intrinsic(bad)
    text = (INCLUDE_DIR.parent / "intrinsics" / "dgemm_packed.c").read_text()
    bad.write_text(text.replace("packing: A B", "packing: A X"))
    packing_line = text.splitlines().index(" * packing: A B") + 1
    with pytest.raises(IntrinsicError, match=re.escape(f"{bad}:{packing_line}:1: packing operand 'X'")):
        load_intrinsic(bad)
    bad.write_text(text.replace("stride1: C[1]", "stride1: C.j"))
    with pytest.raises(IntrinsicError, match=re.escape(f"{bad}:{packing_line - 1}:1: stride1 item 'C.j'")):
        load_intrinsic(bad)
    bad.write_text(text.replace("numerics: exact", "numerics: fma or not"))
    with pytest.raises(IntrinsicError, match="numerics must be one word"):
        load_intrinsic(bad)


AXPY4 = """/* polysched intrinsic
 * name: my_axpy4
 * call: my_axpy4(a, base(x), base(y))
 */
void my_axpy4(double a, double x[4], double y[4])
{
  int i;
#pragma scop
  for (i = 0; i < 4; i++)
    y[i] += a * x[i];
#pragma endscop
}
"""


ROWDOT = AXPY4.replace("double a, double x[4], double y[4]", "int M, double a, double x[M + 1], double y[M + 1]") \
    .replace("i < 4;", "i <= M;").replace("my_axpy4(a,", "my_axpy4(M, a,")


@pytest.mark.parametrize("text, message", [
    # no call: each matched block became an empty statement
    (AXPY4.replace("call: my_axpy4(a, base(x), base(y))", "function: my_axpy4"), "no 'call:' line"),
    # a name that is no operand was pasted as written, and bound to the program's own
    (AXPY4.replace("my_axpy4(a,", "my_axpy4(alpha,"), "'alpha' is neither a scalar operand"),
    # M bounds the loop, but the extent is M + 1: the call passed the wrong count
    (ROWDOT, "'M' is neither"),
    (AXPY4.replace("call: my_axpy4(a, base(x), base(y))", "call: base(x) + 1"), "is not a C call"),
    (AXPY4.replace("  for (i = 0; i < 4; i++)\n    y[i] += a * x[i];", "  y[0] += a * x[0];"),
     "at least one loop"),
    (AXPY4.replace("i < 4;", "i < 0;"), "runs no iteration"),
    (AXPY4.replace("name: my_axpy4", "name: dgemm_4x8"), "the name of a shipped intrinsic"),
    # a typo: the host never matched it, and the intrinsic silently counted as portable-only
    (AXPY4.replace(" * name: my_axpy4", " * name: my_axpy4\n * features: avx2 | avx512"),
     ":3:1: unknown CPU feature 'avx512'"),
])
def test_description_refused(tmp_path, text, message):
    """Descriptions that gave wrong code or internal errors: each is refused when read."""
    (tmp_path / "d.c").write_text(text)
    with pytest.raises(IntrinsicError, match=re.escape(message)):
        load_intrinsic(tmp_path / "d.c")


def test_description_directory_refused(tmp_path):
    """Two descriptions of one name (a match reported for one, applied with the other);
    an empty or missing directory (silently nothing matched, or 'unknown intrinsic')."""
    from polysched.tensorize import load_intrinsics
    with pytest.raises(IntrinsicError, match="no intrinsic description"):
        load_intrinsics(tmp_path)
    (tmp_path / "a.c").write_text(AXPY4)
    (tmp_path / "b.c").write_text(AXPY4)
    with pytest.raises(IntrinsicError, match="'my_axpy4' is described in .*a.c too"):
        load_intrinsics(tmp_path)
    (tmp_path / "b.c").unlink()
    [axpy] = load_intrinsics(tmp_path)
    assert axpy.name == "my_axpy4" and axpy.call == "my_axpy4(a, base(x), base(y))"
    with pytest.raises(IntrinsicError, match="no such file or directory"):
        load_intrinsics(tmp_path / "missing" / "")


# Each case: (setup of operands, the call, the naive semantics) at K = 11 (odd: the
# int8 paths' k remainders run) with strided, offset operands.
_C_TEST = r"""
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "polysched_intrinsics.h"
#define K 11
static unsigned seed = 12345u;
static int rnd(void) { seed = seed * 1103515245u + 12345u; return (int)((seed >> 16) & 0x7fff); }
#define FILL(X, n, expr) for (int q = 0; q < (n); q++) X[q] = (expr)
#define CHECK(name, X, R) do { if (memcmp(X, R, sizeof X)) { printf("%s differs\n", name); fails++; } \
                               else printf("%s ok %s\n", name, polysched_path_taken); } while (0)
int main(void)
{
  int fails = 0;
  { /* f64 4x8, A column-major (rsA = 1, csA = 5), C with row stride 10 */
    double A[5 * K], B[K * 9], C[4 * 10], R[4 * 10];
    FILL(A, 5 * K, rnd() / 1000.0 - 3); FILL(B, K * 9, rnd() / 777.0 - 1); FILL(C, 40, rnd() / 99.0);
    memcpy(R, C, sizeof C);
    polysched_dgemm_4x8(K, A, 1, 5, B, 9, C, 10);
    for (int k = 0; k < K; k++) for (int i = 0; i < 4; i++) for (int j = 0; j < 8; j++)
      R[i * 10 + j] += A[i + k * 5] * B[k * 9 + j];
    CHECK("dgemm_4x8", C, R);
    memcpy(R, C, sizeof C);
    polysched_dgemm_4x8_scaled(K, 1.37, A, 1, 5, B, 9, C, 10);
    for (int k = 0; k < K; k++) for (int i = 0; i < 4; i++) for (int j = 0; j < 8; j++)
      R[i * 10 + j] += 1.37 * A[i + k * 5] * B[k * 9 + j];
    CHECK("dgemm_4x8_scaled", C, R);
  }
  { double A[8 * K], B[K * 8], C[8 * 8], R[8 * 8];
    FILL(A, 8 * K, rnd() / 1000.0 - 3); FILL(B, K * 8, rnd() / 777.0 - 1); FILL(C, 64, rnd() / 99.0);
    memcpy(R, C, sizeof C);
    polysched_dgemm_8x8_avx512(K, A, K, 1, B, 8, C, 8);
    for (int k = 0; k < K; k++) for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++)
      R[i * 8 + j] += A[i * K + k] * B[k * 8 + j];
    CHECK("dgemm_8x8_avx512", C, R);
    memcpy(R, C, sizeof C);
    polysched_dgemm_8x8_avx512_scaled(K, -0.71, A, K, 1, B, 8, C, 8);
    for (int k = 0; k < K; k++) for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++)
      R[i * 8 + j] += -0.71 * A[i * K + k] * B[k * 8 + j];
    CHECK("dgemm_8x8_avx512_scaled", C, R);
  }
  { float A[8 * K], B[K * 8], C[8 * 8], R[8 * 8];
    FILL(A, 8 * K, rnd() / 1000.0f - 3); FILL(B, K * 8, rnd() / 777.0f - 1); FILL(C, 64, rnd() / 99.0f);
    memcpy(R, C, sizeof C);
    polysched_sgemm_8x8(K, A, K, 1, B, 8, C, 8);
    for (int k = 0; k < K; k++) for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++)
      R[i * 8 + j] += A[i * K + k] * B[k * 8 + j];
    CHECK("sgemm_8x8", C, R);
  }
  { uint8_t A[4 * K]; int8_t As[4 * K], B[K * 8]; int32_t C[4 * 8], R[4 * 8];
    FILL(A, 4 * K, (uint8_t)rnd()); FILL(As, 4 * K, (int8_t)rnd()); FILL(B, K * 8, (int8_t)rnd());
    A[0] = 255; As[0] = -128; As[1] = 127; B[0] = -128; B[1] = 127; B[8] = -128;
    FILL(C, 32, rnd() - 16000);
    memcpy(R, C, sizeof C);
    polysched_i8dot_u8s8_4x8(K, A, K, 1, B, 8, C, 8);
    for (int k = 0; k < K; k++) for (int i = 0; i < 4; i++) for (int j = 0; j < 8; j++)
      R[i * 8 + j] += A[i * K + k] * B[k * 8 + j];
    CHECK("i8dot_u8s8_4x8", C, R);
    memcpy(R, C, sizeof C);
    polysched_i8dot_s8s8_4x8(K, As, K, 1, B, 8, C, 8);
    for (int k = 0; k < K; k++) for (int i = 0; i < 4; i++) for (int j = 0; j < 8; j++)
      R[i * 8 + j] += As[i * K + k] * B[k * 8 + j];
    CHECK("i8dot_s8s8_4x8", C, R);
  }
  { double A[16 * 16], B[16 * 16], C[16 * 20], R[16 * 20];
    FILL(A, 256, rnd() / 1000.0 - 3); FILL(B, 256, rnd() / 777.0 - 1); FILL(C, 320, rnd() / 99.0);
    memcpy(R, C, sizeof C);
    polysched_mtile16_f64(A, 16, 1, B, 1, 16, C, 20, 1);   /* B transposed in memory */
    for (int i = 0; i < 16; i++) for (int j = 0; j < 16; j++) for (int k = 0; k < 16; k++)
      R[i * 20 + j] += A[i * 16 + k] * B[k + j * 16];
    CHECK("mtile16_f64", C, R);
  }
  { /* packed f64 blocks: M, N not multiples of any register block, K over two k blocks;
       A column-major, B transposed (rsB = 1), C with a wider row stride */
    enum { M = 29, N = 37, KK = 300, LDC = 41 };
    static double A[M * KK], B[KK * N], C[M * LDC], R[M * LDC], F[M * LDC];
    const char *name[4] = {"dgemm_packed", "dgemm_packed_scaled", "dgemm_packed_fma", "dgemm_packed_fma_scaled"};
    FILL(A, M * KK, rnd() / 1000.0 - 3); FILL(B, KK * N, rnd() / 777.0 - 1);
    for (int v = 0; v < 4; v++) {
      double alpha = v % 2 ? -0.71 : 1.0, worst = 0;
      FILL(C, M * LDC, rnd() / 99.0);
      memcpy(R, C, sizeof C);
      memcpy(F, C, sizeof C);
      if (v == 0) polysched_dgemm_packed(M, N, KK, A, 1, M, B, 1, KK, C, LDC);
      if (v == 1) polysched_dgemm_packed_scaled(M, N, KK, alpha, A, 1, M, B, 1, KK, C, LDC);
      if (v == 2) polysched_dgemm_packed_fma(M, N, KK, A, 1, M, B, 1, KK, C, LDC);
      if (v == 3) polysched_dgemm_packed_fma_scaled(M, N, KK, alpha, A, 1, M, B, 1, KK, C, LDC);
      for (int k = 0; k < KK; k++) for (int i = 0; i < M; i++) for (int j = 0; j < N; j++)
        R[i * LDC + j] += (v % 2 ? alpha * A[i + k * M] : A[i + k * M]) * B[k + j * KK];
      if (v < 2) {
        CHECK(name[v], C, R);
        continue;
      }
      /* fused: not bit-identical; close, and the columns past N untouched */
      for (int q = 0; q < M * LDC; q++) {
        double d = C[q] > R[q] ? C[q] - R[q] : R[q] - C[q];
        worst = d > worst ? d : worst;
        if (q % LDC >= N && C[q] != F[q]) worst = 1;
      }
      if (worst > 1e-9) { printf("%s differs by %g\n", name[v], worst); fails++; }
      else printf("%s ok %s\n", name[v], polysched_path_taken);
    }
  }
  { /* the packed product subtracted, against C's own '-=': A row-major with a NaN of
       each sign and a zero against an infinity of B (a NaN of the product's making), B
       transposed; M, N not multiples of any register block, K over two k blocks */
    enum { M = 29, N = 37, KK = 300, LDC = 41 };
    static double A[M * KK], B[KK * N], C[M * LDC], R[M * LDC];
    FILL(A, M * KK, rnd() / 1000.0 - 3); FILL(B, KK * N, rnd() / 777.0 - 1); FILL(C, M * LDC, rnd() / 99.0);
    A[2 * KK + 5] = __builtin_nan(""); A[7 * KK + 9] = -__builtin_nan(""); A[13 * KK + 20] = 0.0;
    B[20 + 11 * KK] = __builtin_inf();
    memcpy(R, C, sizeof C);
    polysched_dgemm_packed_sub(M, N, KK, A, KK, 1, B, 1, KK, C, LDC);
    for (int k = 0; k < KK; k++) for (int i = 0; i < M; i++) for (int j = 0; j < N; j++)
      R[i * LDC + j] -= A[i * KK + k] * B[k + j * KK];
    CHECK("dgemm_packed_sub", C, R);
  }
  { /* bands of two statements: C *= beta (or C = 0.0), then the packed product; A and B
       row-major, C with a wider row stride whose columns past N stay untouched */
    enum { M = 29, N = 37, KK = 300, LDC = 41 };
    static double A[M * KK], B[KK * N], C[M * LDC], R[M * LDC];
    const char *name[4] = {"dgemm_packed_beta", "dgemm_packed_beta_scaled", "dgemm_packed_zero",
                           "dgemm_packed_zero_scaled"};
    FILL(A, M * KK, rnd() / 1000.0 - 3); FILL(B, KK * N, rnd() / 777.0 - 1);
    for (int v = 0; v < 4; v++) {
      double alpha = -0.71, beta = 1.3;
      int scaled = v % 2, zero = v >= 2;
      FILL(C, M * LDC, rnd() / 99.0);
      memcpy(R, C, sizeof C);
      if (v == 0) polysched_dgemm_packed_beta(M, N, KK, beta, A, KK, 1, B, N, 1, C, LDC);
      if (v == 1) polysched_dgemm_packed_beta_scaled(M, N, KK, alpha, beta, A, KK, 1, B, N, 1, C, LDC);
      if (v == 2) polysched_dgemm_packed_zero(M, N, KK, A, KK, 1, B, N, 1, C, LDC);
      if (v == 3) polysched_dgemm_packed_zero_scaled(M, N, KK, alpha, A, KK, 1, B, N, 1, C, LDC);
      for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) {
        if (zero) R[i * LDC + j] = 0.0; else R[i * LDC + j] *= beta;
        for (int k = 0; k < KK; k++)
          R[i * LDC + j] += (scaled ? alpha * A[i * KK + k] : A[i * KK + k]) * B[k * N + j];
      }
      CHECK(name[v], C, R);
    }
  }
  { /* packed int8 blocks: K over two k blocks and not a multiple of 4; extreme values;
       row-major operands (the fast packing paths) and strided ones (the general ones) */
    enum { M = 29, N = 45, KK = 1031, LDC = 47 };
    static int8_t As[M * KK], B[KK * N]; static uint8_t Au[M * KK];
    static int32_t C[M * LDC], R[M * LDC];
    const char *name[2] = {"i8gemm_packed_s8s8", "i8gemm_packed_u8s8"};
    FILL(As, M * KK, (int8_t)rnd()); FILL(Au, M * KK, (uint8_t)rnd()); FILL(B, KK * N, (int8_t)rnd());
    for (int q = 0; q < 40; q++) { As[q] = -128; Au[q] = 255; B[q * N] = -128; B[q * N + 1] = 127; }
    for (int v = 0; v < 4; v++) {
      int sgn = v % 2 == 0, strided = v >= 2;
      long rsA = strided ? 1 : KK, csA = strided ? M : 1, rsB = strided ? 1 : N, csB = strided ? KK : 1;
      FILL(C, M * LDC, rnd() - 16000);
      memcpy(R, C, sizeof C);
      if (sgn) polysched_i8gemm_packed_s8s8(M, N, KK, As, rsA, csA, B, rsB, csB, C, LDC);
      else polysched_i8gemm_packed_u8s8(M, N, KK, Au, rsA, csA, B, rsB, csB, C, LDC);
      for (int i = 0; i < M; i++) for (int k = 0; k < KK; k++) for (int j = 0; j < N; j++)
        R[i * LDC + j] += (sgn ? As[i * rsA + k * csA] : Au[i * rsA + k * csA]) * B[k * rsB + j * csB];
      if (v < 2) CHECK(name[v], C, R);
      else if (memcmp(C, R, sizeof C)) { printf("%s strided differs\n", name[v % 2]); fails++; }
    }
  }
  { /* bf16 dot products: the definition of vdpbf16ps (inputs rounded to bf16, per pair
       c = (c + a1 * b1) + a0 * b0) written out; B transposed; K odd, over two k blocks */
    enum { M = 29, N = 45, KK = 1031, LDC = 47 };
    static float A[M * KK], B[KK * N], C[M * LDC], R[M * LDC];
    FILL(A, M * KK, rnd() / 1000.0f - 3); FILL(B, KK * N, rnd() / 777.0f - 1); FILL(C, M * LDC, rnd() / 99.0f);
    memcpy(R, C, sizeof C);
    polysched_sgemm_packed_bf16(M, N, KK, A, KK, 1, B, 1, KK, C, LDC);
    for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) {
      float acc = R[i * LDC + j];
      for (int k = 0; k < KK; k += 2) {
        float a0 = polysched_from_bf16(polysched_to_bf16(A[i * KK + k]));
        float b0 = polysched_from_bf16(polysched_to_bf16(B[k + j * KK]));
        float a1 = k + 1 < KK ? polysched_from_bf16(polysched_to_bf16(A[i * KK + k + 1])) : 0;
        float b1 = k + 1 < KK ? polysched_from_bf16(polysched_to_bf16(B[k + 1 + j * KK])) : 0;
        acc = acc + a1 * b1;
        acc = acc + a0 * b0;
      }
      R[i * LDC + j] = acc;
    }
    CHECK("sgemm_packed_bf16", C, R);
  }
  return fails != 0;
}
"""


def _flags():
    try:
        return set(open("/proc/cpuinfo").read().split())
    except OSError:
        return set()


FLAGS = _flags()
# (defines, expected path per kernel given this host's flags)
VARIANTS = {
    "native": [],
    "no-avx512": ["-DPOLYSCHED_NO_AVX512"],
    "avx2-only": ["-DPOLYSCHED_NO_AVX512", "-DPOLYSCHED_NO_AVXVNNI"],
    "portable": ["-DPOLYSCHED_FORCE_PORTABLE"],
}


def _expected(variant):
    portable = variant == "portable" or "avx2" not in FLAGS
    avx512 = variant == "native" and "avx512f" in FLAGS
    vnni512 = avx512 and {"avx512_vnni", "avx512vl"} <= FLAGS
    avxvnni = variant in ("native", "no-avx512") and "avx_vnni" in FLAGS
    avx2 = "portable" if portable else "avx2"
    packed = "portable" if portable else "avx512" if avx512 else "avx2"
    packed_fma = packed if portable else packed + "-fma"
    vnni512bw = avx512 and {"avx512_vnni", "avx512bw"} <= FLAGS
    i8packed = ("portable" if portable else "avx512vnni" if vnni512bw else "avxvnni" if avxvnni
                else "avx2")
    int8 = "portable" if portable else "avx512vnni" if vnni512 else "avxvnni" if avxvnni else "avx2"
    return {
        "dgemm_4x8": avx2, "dgemm_4x8_scaled": avx2, "sgemm_8x8": avx2,
        "dgemm_8x8_avx512": "avx512" if avx512 and not portable else "portable",
        "dgemm_8x8_avx512_scaled": "avx512" if avx512 and not portable else "portable",
        "i8dot_u8s8_4x8": int8, "i8dot_s8s8_4x8": int8, "mtile16_f64": "portable",
        "dgemm_packed": packed, "dgemm_packed_scaled": packed,
        "dgemm_packed_beta": packed, "dgemm_packed_beta_scaled": packed, "dgemm_packed_zero": packed,
        "dgemm_packed_zero_scaled": packed, "dgemm_packed_sub": packed,
        "dgemm_packed_fma": packed_fma, "dgemm_packed_fma_scaled": packed_fma,
        "i8gemm_packed_s8s8": i8packed, "i8gemm_packed_u8s8": i8packed,
        "sgemm_packed_bf16": "avx512bf16" if avx512 and "avx512_bf16" in FLAGS and not portable else "portable",
    }


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_header_implementations(tmp_path, variant):
    """Bit-identical to the naive loops on every ISA path this host can run; the path
    taken is the one expected from /proc/cpuinfo and the -D switches."""
    src = tmp_path / "t.c"
    src.write_text(_C_TEST)
    exe = tmp_path / "t"
    cmd = ["gcc", "-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Werror", "-DPOLYSCHED_TRACE_PATH",
           *VARIANTS[variant], f"-I{INCLUDE_DIR}", str(src), "-o", str(exe)]
    subprocess.run(cmd, check=True, timeout=60, capture_output=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stdout
    taken = dict(line.split(" ok ") for line in run.stdout.splitlines())
    assert taken == _expected(variant)


def test_descriptions_come_from_the_cache_until_they_change(tmp_path, monkeypatch):
    """Reading a description runs the C front end and gcc -E (about a second for the
    shipped 20, on every optimize): the result is cached on disk, keyed by the file's
    path and text and the code that reads it."""
    from polysched.tensorize import intrinsic as module
    module._shipped()      # (read once per process; alone, this test's first load reads them)
    monkeypatch.setenv("POLYSCHED_CACHE_DIR", str(tmp_path / "cache"))
    shipped = sorted(module.INTRINSICS_DIR.glob("*.c"))[0]
    text = re.sub(r"name: \S+", "name: cached_copy", shipped.read_text(), count=1)   # not a shipped name
    copy = tmp_path / shipped.name
    copy.write_text(text)
    first = module.load_intrinsic(copy)
    assert len(list((tmp_path / "cache").glob("intrinsic-*.pickle"))) == 1

    def no_front_end(*args, **kwargs):
        raise AssertionError("the front end ran")
    monkeypatch.setattr(module, "extract", no_front_end)
    again = module.load_intrinsic(copy)
    assert again == first and again is not first
    copy.write_text(text.replace("doc:", "doc: changed;", 1))
    with pytest.raises(AssertionError, match="the front end ran"):
        module.load_intrinsic(copy)
    monkeypatch.setenv("POLYSCHED_CACHE_DIR", "none")
    copy.write_text(text)
    with pytest.raises(AssertionError, match="the front end ran"):
        module.load_intrinsic(copy)
