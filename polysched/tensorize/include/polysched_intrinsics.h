/* polysched_intrinsics.h -- the implementations behind polysched's shipped intrinsic
 * descriptions (polysched/tensorize/intrinsics/NAME.c).  Each function is static inline,
 * picks an ISA path at run time with __builtin_cpu_supports (the vector paths are
 * compiled with target attributes, so the file builds with plain -O2 on any x86-64
 * gcc/clang) and always has a portable scalar path.  -DPOLYSCHED_FORCE_PORTABLE forces
 * the portable path everywhere; non-x86 targets get it automatically.
 *
 * -DPOLYSCHED_NO_AVX512 ignores AVX-512 (as on an AVX2-only Zen 3) and -DPOLYSCHED_NO_AVXVNNI
 * ignores AVX-VNNI, so every path can be exercised on one machine; with
 * -DPOLYSCHED_TRACE_PATH each dispatcher stores the path it took in polysched_path_taken.
 *
 * Operands are (base pointer, row stride, column stride) in elements; an operand
 * dimension the description declares stride-1 has no stride argument.
 *
 * Floating point: the portable path runs the description's loop nest verbatim, and
 * the vector paths do, per C element, the same multiply then add in the same k order
 * (one rounding each, no FMA), so every path is bit-identical to the C semantics
 * compiled with -ffp-contract=off.  -DPOLYSCHED_CONTRACT lets the vector paths fuse the
 * multiply-add (faster, not bit-identical; the portable path never fuses on its own).
 * Integer kernels sum the int32 products in another order (exact: int32 addition is
 * associative whenever the C semantics do not overflow, which would be undefined).
 */
#ifndef POLYSCHED_INTRINSICS_H
#define POLYSCHED_INTRINSICS_H

#include <stdint.h>
#include <string.h>

#if !defined(POLYSCHED_FORCE_PORTABLE) && (defined(__x86_64__) || defined(__i386__)) \
    && (defined(__GNUC__) || defined(__clang__))
#  define POLYSCHED_X86 1
#  include <immintrin.h>
#  define POLYSCHED_HAS(feature) __builtin_cpu_supports(feature)
#else
#  define POLYSCHED_X86 0
#endif

#ifdef POLYSCHED_NO_AVX512
#  define POLYSCHED_HAS_AVX512(feature) 0
#else
#  define POLYSCHED_HAS_AVX512(feature) POLYSCHED_HAS(feature)
#endif
#ifdef POLYSCHED_NO_AVXVNNI
#  define POLYSCHED_HAS_AVXVNNI() 0
#else
#  define POLYSCHED_HAS_AVXVNNI() POLYSCHED_HAS("avxvnni")
#endif

#ifdef POLYSCHED_TRACE_PATH
static const char *polysched_path_taken = "";
#  define POLYSCHED_PATH(name) (polysched_path_taken = (name))
#else
#  define POLYSCHED_PATH(name) ((void)0)
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define POLYSCHED_TARGET(t) __attribute__((target(t)))
#else
#  define POLYSCHED_TARGET(t)
#endif

/* ---------------------------------------------------------------- f64 4x8 -------- */

static inline void polysched_dgemm_4x8_portable(long K, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
  long k, i, j;
  for (k = 0; k < K; k++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 8; j++) {
        double a = A[i * rsA + k * csA];
        if (scaled)
          a = alpha * a;
        C[i * rsC + j] = C[i * rsC + j] + a * B[k * rsB + j];
      }
}

#if POLYSCHED_X86
POLYSCHED_TARGET("avx2,fma")
static inline void polysched_dgemm_4x8_avx2(long K, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
  __m256d c[4][2];
  long k;
  int i;
  for (i = 0; i < 4; i++) {
    c[i][0] = _mm256_loadu_pd(C + i * rsC);
    c[i][1] = _mm256_loadu_pd(C + i * rsC + 4);
  }
  for (k = 0; k < K; k++) {
    __m256d b0 = _mm256_loadu_pd(B + k * rsB), b1 = _mm256_loadu_pd(B + k * rsB + 4);
    for (i = 0; i < 4; i++) {
      double s = A[i * rsA + k * csA];
      __m256d a;
      if (scaled)
        s = alpha * s;
      a = _mm256_set1_pd(s);
#ifdef POLYSCHED_CONTRACT
      c[i][0] = _mm256_fmadd_pd(a, b0, c[i][0]);
      c[i][1] = _mm256_fmadd_pd(a, b1, c[i][1]);
#else
      c[i][0] = _mm256_add_pd(c[i][0], _mm256_mul_pd(a, b0));
      c[i][1] = _mm256_add_pd(c[i][1], _mm256_mul_pd(a, b1));
#endif
    }
  }
  for (i = 0; i < 4; i++) {
    _mm256_storeu_pd(C + i * rsC, c[i][0]);
    _mm256_storeu_pd(C + i * rsC + 4, c[i][1]);
  }
}
#endif

/* C[i][j] += A[i][k] * B[k][j], i < 4, j < 8 (stride 1), k < K. */
static inline void polysched_dgemm_4x8(long K, const double *A, long rsA, long csA,
    const double *B, long rsB, double *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS("avx2") && POLYSCHED_HAS("fma")) {
    POLYSCHED_PATH("avx2");
    polysched_dgemm_4x8_avx2(K, 1.0, 0, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  polysched_dgemm_4x8_portable(K, 1.0, 0, A, rsA, csA, B, rsB, C, rsC);
}

/* C[i][j] += alpha * A[i][k] * B[k][j] (alpha * A first, as C parses it). */
static inline void polysched_dgemm_4x8_scaled(long K, double alpha, const double *A, long rsA,
    long csA, const double *B, long rsB, double *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS("avx2") && POLYSCHED_HAS("fma")) {
    POLYSCHED_PATH("avx2");
    polysched_dgemm_4x8_avx2(K, alpha, 1, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  polysched_dgemm_4x8_portable(K, alpha, 1, A, rsA, csA, B, rsB, C, rsC);
}

/* ---------------------------------------------------------------- f64 8x8 AVX-512 - */

#if POLYSCHED_X86
POLYSCHED_TARGET("avx512f")
static inline void polysched_dgemm_8x8_avx512_kernel(long K, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
  __m512d c[8];
  long k;
  int i;
  for (i = 0; i < 8; i++)
    c[i] = _mm512_loadu_pd(C + i * rsC);
  for (k = 0; k < K; k++) {
    __m512d b = _mm512_loadu_pd(B + k * rsB);
    for (i = 0; i < 8; i++) {
      double s = A[i * rsA + k * csA];
      __m512d a;
      if (scaled)
        s = alpha * s;
      a = _mm512_set1_pd(s);
#ifdef POLYSCHED_CONTRACT
      c[i] = _mm512_fmadd_pd(a, b, c[i]);
#else
      c[i] = _mm512_add_pd(c[i], _mm512_mul_pd(a, b));
#endif
    }
  }
  for (i = 0; i < 8; i++)
    _mm512_storeu_pd(C + i * rsC, c[i]);
}
#endif

static inline void polysched_dgemm_8x8_portable(long K, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
  long k, i, j;
  for (k = 0; k < K; k++)
    for (i = 0; i < 8; i++)
      for (j = 0; j < 8; j++) {
        double a = A[i * rsA + k * csA];
        if (scaled)
          a = alpha * a;
        C[i * rsC + j] = C[i * rsC + j] + a * B[k * rsB + j];
      }
}

/* C[i][j] += A[i][k] * B[k][j], i < 8, j < 8 (stride 1), k < K. */
static inline void polysched_dgemm_8x8_avx512(long K, const double *A, long rsA, long csA,
    const double *B, long rsB, double *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512f")) {
    POLYSCHED_PATH("avx512");
    polysched_dgemm_8x8_avx512_kernel(K, 1.0, 0, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  polysched_dgemm_8x8_portable(K, 1.0, 0, A, rsA, csA, B, rsB, C, rsC);
}

/* C[i][j] += alpha * A[i][k] * B[k][j] (alpha * A first, as C parses it), 8x8 blocks. */
static inline void polysched_dgemm_8x8_avx512_scaled(long K, double alpha, const double *A,
    long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512f")) {
    POLYSCHED_PATH("avx512");
    polysched_dgemm_8x8_avx512_kernel(K, alpha, 1, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  polysched_dgemm_8x8_portable(K, alpha, 1, A, rsA, csA, B, rsB, C, rsC);
}

/* ---------------------------------------------------------------- f32 8x8 -------- */

#if POLYSCHED_X86
POLYSCHED_TARGET("avx2,fma")
static inline void polysched_sgemm_8x8_avx2(long K, const float *A, long rsA, long csA,
    const float *B, long rsB, float *C, long rsC)
{
  __m256 c[8];
  long k;
  int i;
  for (i = 0; i < 8; i++)
    c[i] = _mm256_loadu_ps(C + i * rsC);
  for (k = 0; k < K; k++) {
    __m256 b = _mm256_loadu_ps(B + k * rsB);
    for (i = 0; i < 8; i++) {
      __m256 a = _mm256_set1_ps(A[i * rsA + k * csA]);
#ifdef POLYSCHED_CONTRACT
      c[i] = _mm256_fmadd_ps(a, b, c[i]);
#else
      c[i] = _mm256_add_ps(c[i], _mm256_mul_ps(a, b));
#endif
    }
  }
  for (i = 0; i < 8; i++)
    _mm256_storeu_ps(C + i * rsC, c[i]);
}
#endif

/* C[i][j] += A[i][k] * B[k][j] in float, i < 8, j < 8 (stride 1), k < K. */
static inline void polysched_sgemm_8x8(long K, const float *A, long rsA, long csA,
    const float *B, long rsB, float *C, long rsC)
{
  long k, i, j;
#if POLYSCHED_X86
  if (POLYSCHED_HAS("avx2") && POLYSCHED_HAS("fma")) {
    POLYSCHED_PATH("avx2");
    polysched_sgemm_8x8_avx2(K, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  for (k = 0; k < K; k++)
    for (i = 0; i < 8; i++)
      for (j = 0; j < 8; j++)
        C[i * rsC + j] = C[i * rsC + j] + A[i * rsA + k * csA] * B[k * rsB + j];
}

/* ---------------------------------------------------------------- int8 dot 4x8 --- */

#if POLYSCHED_X86
/* 8 bytes of row k of B (columns j..j+7), widened to 8 int16 in the low half */
POLYSCHED_TARGET("avx2")
static inline __m128i polysched_load8_s8(const int8_t *p)
{
  return _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)p));
}

POLYSCHED_TARGET("avx2")
static inline void polysched_i8dot_4x8_avx2(long K, int a_signed, const void *Av, long rsA,
    long csA, const int8_t *B, long rsB, int32_t *C, long rsC)
{
  const uint8_t *Au = (const uint8_t *)Av;
  const int8_t *As = (const int8_t *)Av;
  __m256i c[4];
  long k;
  int i;
  for (i = 0; i < 4; i++)
    c[i] = _mm256_loadu_si256((const __m256i *)(C + i * rsC));
  for (k = 0; k + 1 < K; k += 2) {
    /* (b[k][j], b[k+1][j]) int16 pairs for j = 0..7 */
    __m128i r0 = polysched_load8_s8(B + k * rsB), r1 = polysched_load8_s8(B + (k + 1) * rsB);
    __m256i b = _mm256_set_m128i(_mm_unpackhi_epi16(r0, r1), _mm_unpacklo_epi16(r0, r1));
    for (i = 0; i < 4; i++) {
      int32_t a0 = a_signed ? As[i * rsA + k * csA] : Au[i * rsA + k * csA];
      int32_t a1 = a_signed ? As[i * rsA + (k + 1) * csA] : Au[i * rsA + (k + 1) * csA];
      __m256i a = _mm256_set1_epi32((int32_t)(((uint32_t)(uint16_t)a1 << 16) | (uint16_t)a0));
      c[i] = _mm256_add_epi32(c[i], _mm256_madd_epi16(a, b));
    }
  }
  for (i = 0; i < 4; i++)
    _mm256_storeu_si256((__m256i *)(C + i * rsC), c[i]);
  for (; k < K; k++)
    for (i = 0; i < 4; i++) {
      int j;
      int32_t a = a_signed ? As[i * rsA + k * csA] : Au[i * rsA + k * csA];
      for (j = 0; j < 8; j++)
        C[i * rsC + j] += a * B[k * rsB + j];
    }
}

/* One body, two instructions: vpdpbusd on ymm registers (AVX512-VNNI + VL, or AVX-VNNI).
 * vpdpbusd multiplies unsigned by signed bytes; for a signed A (SIGNED = 1) it gets
 * a + 128 (a ^ 0x80) and the sum 128 * b[k][j] over k is subtracted at the end: exact. */
#define POLYSCHED_I8DOT_VNNI_BODY(DPBUSD, SIGNED, AT)                                          \
  const AT *Ab = (const AT *)Av;                                                              \
  __m256i c[4], corr = _mm256_setzero_si256();                                                \
  const __m256i bias = _mm256_set1_epi32((int32_t)0x80808080u);                               \
  long k;                                                                                     \
  int i;                                                                                      \
  for (i = 0; i < 4; i++)                                                                     \
    c[i] = _mm256_loadu_si256((const __m256i *)(C + i * rsC));                                \
  for (k = 0; k + 3 < K; k += 4) {                                                            \
    /* bytes (b[k][j], b[k+1][j], b[k+2][j], b[k+3][j]) for j = 0..7 */                       \
    __m128i r0 = _mm_loadl_epi64((const __m128i *)(B + k * rsB));                             \
    __m128i r1 = _mm_loadl_epi64((const __m128i *)(B + (k + 1) * rsB));                       \
    __m128i r2 = _mm_loadl_epi64((const __m128i *)(B + (k + 2) * rsB));                       \
    __m128i r3 = _mm_loadl_epi64((const __m128i *)(B + (k + 3) * rsB));                       \
    __m128i p01 = _mm_unpacklo_epi8(r0, r1), p23 = _mm_unpacklo_epi8(r2, r3);                 \
    __m256i b = _mm256_set_m128i(_mm_unpackhi_epi16(p01, p23), _mm_unpacklo_epi16(p01, p23)); \
    if (SIGNED)                                                                               \
      corr = DPBUSD(corr, bias, b);                                                           \
    for (i = 0; i < 4; i++) {                                                                 \
      const uint8_t *a = (const uint8_t *)(Ab + i * rsA + k * csA);                           \
      uint32_t word;                                                                          \
      if (csA == 1)                                                                           \
        memcpy(&word, a, 4);                                                                  \
      else                                                                                    \
        word = (uint32_t)a[0] | (uint32_t)a[csA] << 8 | (uint32_t)a[2 * csA] << 16            \
               | (uint32_t)a[3 * csA] << 24;                                                  \
      if (SIGNED)                                                                             \
        word ^= 0x80808080u;                                                                  \
      c[i] = DPBUSD(c[i], _mm256_set1_epi32((int32_t)word), b);                               \
    }                                                                                         \
  }                                                                                           \
  for (i = 0; i < 4; i++)                                                                     \
    _mm256_storeu_si256((__m256i *)(C + i * rsC), _mm256_sub_epi32(c[i], corr));             \
  for (; k < K; k++)                                                                          \
    for (i = 0; i < 4; i++) {                                                                 \
      int j;                                                                                  \
      for (j = 0; j < 8; j++)                                                                 \
        C[i * rsC + j] += Ab[i * rsA + k * csA] * B[k * rsB + j];                             \
    }

#define POLYSCHED_I8DOT_VNNI(NAME, TARGET, DPBUSD, SIGNED, AT)                                 \
  POLYSCHED_TARGET(TARGET)                                                                    \
  static inline void NAME(long K, const void *Av, long rsA, long csA, const int8_t *B,         \
                          long rsB, int32_t *C, long rsC)                                     \
  {                                                                                           \
    POLYSCHED_I8DOT_VNNI_BODY(DPBUSD, SIGNED, AT)                                             \
  }

POLYSCHED_I8DOT_VNNI(polysched_i8dot_u8s8_4x8_vnni, "avx2,avx512f,avx512vl,avx512vnni",
                     _mm256_dpbusd_epi32, 0, uint8_t)
POLYSCHED_I8DOT_VNNI(polysched_i8dot_u8s8_4x8_avxvnni, "avx2,avxvnni", _mm256_dpbusd_avx_epi32, 0, uint8_t)
POLYSCHED_I8DOT_VNNI(polysched_i8dot_s8s8_4x8_vnni, "avx2,avx512f,avx512vl,avx512vnni",
                     _mm256_dpbusd_epi32, 1, int8_t)
POLYSCHED_I8DOT_VNNI(polysched_i8dot_s8s8_4x8_avxvnni, "avx2,avxvnni", _mm256_dpbusd_avx_epi32, 1, int8_t)
#endif

/* C[i][j] += A[i][k] * B[k][j]: uint8 x int8 -> int32, i < 4, j < 8 (stride 1), k < K.
 * AVX-512 VNNI or AVX-VNNI (vpdpbusd on 256-bit vectors), else AVX2 (widen to int16, vpmaddwd: no
 * saturation, unlike pmaddubsw), else portable. */
static inline void polysched_i8dot_u8s8_4x8(long K, const uint8_t *A, long rsA, long csA,
    const int8_t *B, long rsB, int32_t *C, long rsC)
{
  long k, i, j;
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512vnni") && POLYSCHED_HAS_AVX512("avx512vl")) {
    POLYSCHED_PATH("avx512vnni");
    polysched_i8dot_u8s8_4x8_vnni(K, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
  if (POLYSCHED_HAS_AVXVNNI()) {
    POLYSCHED_PATH("avxvnni");
    polysched_i8dot_u8s8_4x8_avxvnni(K, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
  if (POLYSCHED_HAS("avx2")) {
    POLYSCHED_PATH("avx2");
    polysched_i8dot_4x8_avx2(K, 0, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  for (k = 0; k < K; k++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 8; j++)
        C[i * rsC + j] += A[i * rsA + k * csA] * B[k * rsB + j];
}

/* C[i][j] += A[i][k] * B[k][j]: int8 x int8 -> int32 (VNNI with a bias on A, AVX-VNNI, AVX2
 * vpmaddwd, else portable). */
static inline void polysched_i8dot_s8s8_4x8(long K, const int8_t *A, long rsA, long csA,
    const int8_t *B, long rsB, int32_t *C, long rsC)
{
  long k, i, j;
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512vnni") && POLYSCHED_HAS_AVX512("avx512vl")) {
    POLYSCHED_PATH("avx512vnni");
    polysched_i8dot_s8s8_4x8_vnni(K, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
  if (POLYSCHED_HAS_AVXVNNI()) {
    POLYSCHED_PATH("avxvnni");
    polysched_i8dot_s8s8_4x8_avxvnni(K, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
  if (POLYSCHED_HAS("avx2")) {
    POLYSCHED_PATH("avx2");
    polysched_i8dot_4x8_avx2(K, 1, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  for (k = 0; k < K; k++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 8; j++)
        C[i * rsC + j] += A[i * rsA + k * csA] * B[k * rsB + j];
}

/* ---------------------------------------------------------------- emulated unit -- */

/* An accelerator-style matrix unit, emulated: one 16x16x16 f64 tile product
 * C[i][j] += A[i][k] * B[k][j], every operand with general (row, column) strides.
 * Portable C only; the loop order is the description's (i, j, k). */
static inline void polysched_mtile16_f64(const double *A, long rsA, long csA, const double *B,
    long rsB, long csB, double *C, long rsC, long csC)
{
  int i, j, k;
  POLYSCHED_PATH("portable");
  for (i = 0; i < 16; i++)
    for (j = 0; j < 16; j++)
      for (k = 0; k < 16; k++)
        C[i * rsC + j * csC] = C[i * rsC + j * csC] + A[i * rsA + k * csA] * B[k * rsB + j * csB];
}

#endif /* POLYSCHED_INTRINSICS_H */
