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
 * dimension the description declares stride-1 has no stride argument. Extents are the
 * first arguments (k_, or m_, n_, k_): names a -DK=... on the command line leaves alone.
 *
 * Floating point: the portable path runs the description's loop nest verbatim, and
 * the vector paths do, per C element, the same multiply then add in the same k order
 * (one rounding each, no FMA, whatever -ffp-contract the file is compiled with: see
 * POLYSCHED_EXACT_FP), so every path is bit-identical to the C semantics compiled with
 * -ffp-contract=off.  -DPOLYSCHED_CONTRACT lets the vector paths fuse the
 * multiply-add (faster, not bit-identical; the portable path never fuses on its own).
 * Integer kernels sum the int32 products in another order (exact: int32 addition is
 * associative whenever the C semantics do not overflow, which would be undefined).
 */
#ifndef POLYSCHED_INTRINSICS_H
#define POLYSCHED_INTRINSICS_H

/* Pasted into an output, these static functions are the file's own: clang's -Wall would
   name each one a call does not use (gcc does not warn about unused static inline ones). */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

#include <stdint.h>
#include <stdlib.h>
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

/* Exact floating point: a function marked POLYSCHED_EXACT_FP (and starting its body with
 * POLYSCHED_EXACT_FP_BODY) never fuses a multiply and an add, whatever -ffp-contract the
 * file is compiled with (gcc's default, -ffp-contract=fast, would otherwise turn
 * _mm512_add_pd(c, _mm512_mul_pd(a, b)) into an FMA: one rounding instead of two). */
#if defined(__clang__)
#  define POLYSCHED_EXACT_FP
#  define POLYSCHED_EXACT_FP_BODY _Pragma("clang fp contract(off)")
#elif defined(__GNUC__)
#  define POLYSCHED_EXACT_FP __attribute__((optimize("fp-contract=off")))
#  define POLYSCHED_EXACT_FP_BODY
#else
#  define POLYSCHED_EXACT_FP
#  define POLYSCHED_EXACT_FP_BODY
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define POLYSCHED_TLS __thread
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#  define POLYSCHED_TLS _Thread_local
#else
#  define POLYSCHED_TLS
#endif

/* ---------------------------------------------------------------- f64 4x8 -------- */

POLYSCHED_EXACT_FP
static inline void polysched_dgemm_4x8_portable(long k_, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  long k, i, j;
  for (k = 0; k < k_; k++)
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
POLYSCHED_EXACT_FP
static inline void polysched_dgemm_4x8_avx2(long k_, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  __m256d c[4][2];
  long k;
  int i;
  for (i = 0; i < 4; i++) {
    c[i][0] = _mm256_loadu_pd(C + i * rsC);
    c[i][1] = _mm256_loadu_pd(C + i * rsC + 4);
  }
  for (k = 0; k < k_; k++) {
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
static inline void polysched_dgemm_4x8(long k_, const double *A, long rsA, long csA,
    const double *B, long rsB, double *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS("avx2") && POLYSCHED_HAS("fma")) {
    POLYSCHED_PATH("avx2");
    polysched_dgemm_4x8_avx2(k_, 1.0, 0, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  polysched_dgemm_4x8_portable(k_, 1.0, 0, A, rsA, csA, B, rsB, C, rsC);
}

/* C[i][j] += alpha * A[i][k] * B[k][j] (alpha * A first, as C parses it). */
static inline void polysched_dgemm_4x8_scaled(long k_, double alpha, const double *A, long rsA,
    long csA, const double *B, long rsB, double *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS("avx2") && POLYSCHED_HAS("fma")) {
    POLYSCHED_PATH("avx2");
    polysched_dgemm_4x8_avx2(k_, alpha, 1, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  polysched_dgemm_4x8_portable(k_, alpha, 1, A, rsA, csA, B, rsB, C, rsC);
}

/* ---------------------------------------------------------------- f64 8x8 AVX-512 - */

#if POLYSCHED_X86
POLYSCHED_TARGET("avx512f")
POLYSCHED_EXACT_FP
static inline void polysched_dgemm_8x8_avx512_kernel(long k_, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  __m512d c[8];
  long k;
  int i;
  for (i = 0; i < 8; i++)
    c[i] = _mm512_loadu_pd(C + i * rsC);
  for (k = 0; k < k_; k++) {
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

POLYSCHED_EXACT_FP
static inline void polysched_dgemm_8x8_portable(long k_, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  long k, i, j;
  for (k = 0; k < k_; k++)
    for (i = 0; i < 8; i++)
      for (j = 0; j < 8; j++) {
        double a = A[i * rsA + k * csA];
        if (scaled)
          a = alpha * a;
        C[i * rsC + j] = C[i * rsC + j] + a * B[k * rsB + j];
      }
}

/* C[i][j] += A[i][k] * B[k][j], i < 8, j < 8 (stride 1), k < K. */
static inline void polysched_dgemm_8x8_avx512(long k_, const double *A, long rsA, long csA,
    const double *B, long rsB, double *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512f")) {
    POLYSCHED_PATH("avx512");
    polysched_dgemm_8x8_avx512_kernel(k_, 1.0, 0, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  polysched_dgemm_8x8_portable(k_, 1.0, 0, A, rsA, csA, B, rsB, C, rsC);
}

/* C[i][j] += alpha * A[i][k] * B[k][j] (alpha * A first, as C parses it), 8x8 blocks. */
static inline void polysched_dgemm_8x8_avx512_scaled(long k_, double alpha, const double *A,
    long rsA, long csA, const double *B, long rsB, double *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512f")) {
    POLYSCHED_PATH("avx512");
    polysched_dgemm_8x8_avx512_kernel(k_, alpha, 1, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  polysched_dgemm_8x8_portable(k_, alpha, 1, A, rsA, csA, B, rsB, C, rsC);
}

/* ---------------------------------------------------------------- f32 8x8 -------- */

#if POLYSCHED_X86
POLYSCHED_TARGET("avx2,fma")
POLYSCHED_EXACT_FP
static inline void polysched_sgemm_8x8_avx2(long k_, const float *A, long rsA, long csA,
    const float *B, long rsB, float *C, long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  __m256 c[8];
  long k;
  int i;
  for (i = 0; i < 8; i++)
    c[i] = _mm256_loadu_ps(C + i * rsC);
  for (k = 0; k < k_; k++) {
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
POLYSCHED_EXACT_FP
static inline void polysched_sgemm_8x8(long k_, const float *A, long rsA, long csA,
    const float *B, long rsB, float *C, long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  long k, i, j;
#if POLYSCHED_X86
  if (POLYSCHED_HAS("avx2") && POLYSCHED_HAS("fma")) {
    POLYSCHED_PATH("avx2");
    polysched_sgemm_8x8_avx2(k_, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  for (k = 0; k < k_; k++)
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
static inline void polysched_i8dot_4x8_avx2(long k_, int a_signed, const void *Av, long rsA,
    long csA, const int8_t *B, long rsB, int32_t *C, long rsC)
{
  const uint8_t *Au = (const uint8_t *)Av;
  const int8_t *As = (const int8_t *)Av;
  __m256i c[4];
  long k;
  int i;
  for (i = 0; i < 4; i++)
    c[i] = _mm256_loadu_si256((const __m256i *)(C + i * rsC));
  for (k = 0; k + 1 < k_; k += 2) {
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
  for (; k < k_; k++)
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
  for (k = 0; k + 3 < k_; k += 4) {                                                            \
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
  for (; k < k_; k++)                                                                          \
    for (i = 0; i < 4; i++) {                                                                 \
      int j;                                                                                  \
      for (j = 0; j < 8; j++)                                                                 \
        C[i * rsC + j] += Ab[i * rsA + k * csA] * B[k * rsB + j];                             \
    }

#define POLYSCHED_I8DOT_VNNI(NAME, TARGET, DPBUSD, SIGNED, AT)                                 \
  POLYSCHED_TARGET(TARGET)                                                                    \
  static inline void NAME(long k_, const void *Av, long rsA, long csA, const int8_t *B,         \
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
static inline void polysched_i8dot_u8s8_4x8(long k_, const uint8_t *A, long rsA, long csA,
    const int8_t *B, long rsB, int32_t *C, long rsC)
{
  long k, i, j;
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512vnni") && POLYSCHED_HAS_AVX512("avx512vl")) {
    POLYSCHED_PATH("avx512vnni");
    polysched_i8dot_u8s8_4x8_vnni(k_, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
  if (POLYSCHED_HAS_AVXVNNI()) {
    POLYSCHED_PATH("avxvnni");
    polysched_i8dot_u8s8_4x8_avxvnni(k_, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
  if (POLYSCHED_HAS("avx2")) {
    POLYSCHED_PATH("avx2");
    polysched_i8dot_4x8_avx2(k_, 0, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  for (k = 0; k < k_; k++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 8; j++)
        C[i * rsC + j] += A[i * rsA + k * csA] * B[k * rsB + j];
}

/* C[i][j] += A[i][k] * B[k][j]: int8 x int8 -> int32 (VNNI with a bias on A, AVX-VNNI, AVX2
 * vpmaddwd, else portable). */
static inline void polysched_i8dot_s8s8_4x8(long k_, const int8_t *A, long rsA, long csA,
    const int8_t *B, long rsB, int32_t *C, long rsC)
{
  long k, i, j;
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512vnni") && POLYSCHED_HAS_AVX512("avx512vl")) {
    POLYSCHED_PATH("avx512vnni");
    polysched_i8dot_s8s8_4x8_vnni(k_, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
  if (POLYSCHED_HAS_AVXVNNI()) {
    POLYSCHED_PATH("avxvnni");
    polysched_i8dot_s8s8_4x8_avxvnni(k_, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
  if (POLYSCHED_HAS("avx2")) {
    POLYSCHED_PATH("avx2");
    polysched_i8dot_4x8_avx2(k_, 1, A, rsA, csA, B, rsB, C, rsC);
    return;
  }
#endif
  POLYSCHED_PATH("portable");
  for (k = 0; k < k_; k++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 8; j++)
        C[i * rsC + j] += A[i * rsA + k * csA] * B[k * rsB + j];
}

/* ---------------------------------------------------------------- packed f64 gemm - */

/* C[i][j] += A[i][k] * B[k][j] (or alpha * A[i][k] * B[k][j]) for a whole m_ x n_ x k_ block,
 * BLIS-style: B is packed kc x nc at a time into nr_-column panels, A mc x kc at a time
 * into mr_-row panels (times alpha when scaled: the same one rounding as alpha * A[i][k]
 * in C), and a register-blocked mr_ x nr_ micro-kernel runs over kc with the C block in
 * registers. Any strides for A and B (packing absorbs them: a transposed operand is
 * just another pair of strides), C row-major (stride-1 columns).
 *
 * Exact (polysched_dgemm_packed, _scaled): every C element gets its products added one
 * by one in increasing k, each product rounded, each sum rounded: bit-identical to the
 * loop nest compiled with -ffp-contract=off. The _fma variants fuse each multiply-add
 * (one rounding instead of two): faster, not bit-identical, opt-in only.
 *
 * Paths: AVX-512F 12x16 (24 zmm accumulators), AVX2 6x8 (12 ymm), portable 4x8 C; A read
 * in place ends a block with tail kernels of fewer rows (see polysched_pk_path).
 * Packing buffers are per thread (grown on demand, kept for the next call); an operand
 * the region never writes may keep its panels across calls (polysched_pk_cache), and an
 * A with k offsets is read in place when that is cheaper (polysched_pk_direct_a). */
#define POLYSCHED_PK_KC 256
#define POLYSCHED_PK_MC 96
#define POLYSCHED_PK_NC 2048

static POLYSCHED_TLS double *polysched_pk_buffer;
static POLYSCHED_TLS size_t polysched_pk_size;

/* n doubles, 64-byte aligned, owned by the calling thread (NULL when out of memory) */
static inline double *polysched_pk_scratch(size_t n)
{
  static POLYSCHED_TLS void *raw;
  if (n > polysched_pk_size) {
    free(raw);
    raw = malloc(n * sizeof(double) + 64);
    if (raw == NULL) {
      polysched_pk_size = 0;
      return NULL;
    }
    polysched_pk_buffer = (double *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    polysched_pk_size = n;
  }
  return polysched_pk_buffer;
}

/* x rounded up to a multiple of w (a block's extent in whole panels of w) */
static inline long polysched_pk_round_up(long x, long w)
{
  return (x + w - 1) / w * w;
}

/* Packed panels kept from one call to the next. A call made inside a region that never
 * writes operand X's array (nor anything overlapping it: the region's run-time check)
 * passes the region run's epoch for X, a number no other run of any region shares
 * (polysched_pk_next_epoch, taken once where the region starts), else 0. Then X's
 * content cannot change between two calls with the same epoch, and its panels, once
 * packed, serve every later call of that run that packs the same elements the same way
 * (the key: epoch, base, strides, the k offsets, extents, panel width, alpha). A
 * convolution's filter is one such operand: one call per output row repacked it (896
 * calls in conv2d-nhwc at LARGE, 6% of its time). Each thread keeps its own, up to
 * POLYSCHED_PK_CACHE_MAX doubles per operand (larger ones are packed per call). */
#ifndef POLYSCHED_PK_CACHE_MAX
#  define POLYSCHED_PK_CACHE_MAX (1L << 19)
#endif

static unsigned long polysched_pk_epochs;

static inline unsigned long polysched_pk_next_epoch(void)
{
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_add_fetch(&polysched_pk_epochs, 1UL, __ATOMIC_RELAXED);
#else
  return ++polysched_pk_epochs;
#endif
}

typedef struct {
  unsigned long epoch;               /* 0: nothing kept */
  const double *base;
  long rs, cs, k_, extent, width, nkoff;
  double alpha;
  int scaled;
  long *koff;                        /* a copy of the k offsets (nkoff of them) */
  void *raw;                         /* the allocation; data is it aligned to 64 bytes */
  double *data;
  size_t capacity;                   /* doubles */
} polysched_pk_cache;

static POLYSCHED_TLS polysched_pk_cache polysched_pk_cache_a, polysched_pk_cache_b;

/* The kept panels of an operand for this call: ``need`` doubles, whose content is valid
 * (*hit = 1) when the key matches, else to be packed by the caller (*hit = 0; the key is
 * set by the caller once they are). NULL when nothing can be kept (epoch 0,
 * too large, out of memory, or the operand varies within the run): the caller packs into
 * its scratch buffer as before. *varies (unless NULL): the panels kept are of this run but
 * of another block; they are left as they are (that block may come again, and refilling
 * for an operand that changes in every call would only copy its k offsets each time). */
static inline double *polysched_pk_cache_get(polysched_pk_cache *c, unsigned long epoch, const double *base,
    long rs, long cs, const long *koff, long k_, long extent, long width, double alpha, int scaled,
    size_t need, int *hit, int *varies)
{
  long nkoff = koff ? k_ : 0;
  *hit = 0;
  if (varies != NULL)
    *varies = 0;
  if (epoch == 0 || need > (size_t)POLYSCHED_PK_CACHE_MAX)
    return NULL;
  if (c->epoch == epoch && c->base == base && c->rs == rs && c->cs == cs && c->k_ == k_
      && c->extent == extent && c->width == width && c->scaled == scaled
      && (!scaled || memcmp(&c->alpha, &alpha, sizeof alpha) == 0) && c->nkoff == nkoff
      && (nkoff == 0 || memcmp(c->koff, koff, (size_t)nkoff * sizeof(long)) == 0)) {
    *hit = 1;
    return c->data;
  }
  if (c->epoch == epoch) {           /* kept in this run, but another block now */
    if (varies != NULL)
      *varies = 1;
    return NULL;
  }
  c->epoch = 0;                      /* invalid until the caller has packed it all */
  if (need > c->capacity) {
    free(c->raw);
    c->raw = malloc(need * sizeof(double) + 64);
    c->capacity = c->raw ? need : 0;
    if (c->raw == NULL)
      return NULL;
    c->data = (double *)(((uintptr_t)c->raw + 63) & ~(uintptr_t)63);
  }
  if (nkoff > 0) {
    free(c->koff);
    c->koff = (long *)malloc((size_t)nkoff * sizeof(long));
    if (c->koff == NULL)
      return NULL;
    memcpy(c->koff, koff, (size_t)nkoff * sizeof(long));
  }
  c->base = base; c->rs = rs; c->cs = cs; c->k_ = k_; c->extent = extent; c->width = width;
  c->alpha = alpha; c->scaled = scaled; c->nkoff = nkoff;
  return c->data;
}

/* rows x kc of A into mr_-row panels (zeros below the last row): panel p holds, for each
 * k, mr_ values. Element (i, k) is A[i * rs + k * cs], or A[i * rs + koff[k]] when koff
 * is given (a k that runs over several program loops, see polysched_dgemm_packed_k3). */
static inline void polysched_pk_pack_a(long rows, long kc, double alpha, int scaled, const double *A,
                                       long rs, long cs, const long *koff, double *out, int mr_)
{
  long p, i, k;
  for (p = 0; p < rows; p += mr_, out += (long)mr_ * kc) {
    long mr = rows - p < mr_ ? rows - p : mr_;
    const double *a = A + p * rs;
    if (koff != NULL) {
      for (i = 0; i < mr; i++)
        for (k = 0; k < kc; k++)
          out[k * mr_ + i] = scaled ? alpha * a[i * rs + koff[k]] : a[i * rs + koff[k]];
    } else if (cs == 1) {       /* row-major A: read rows, write with stride mr_ */
      for (i = 0; i < mr; i++)
        for (k = 0; k < kc; k++)
          out[k * mr_ + i] = scaled ? alpha * a[i * rs + k] : a[i * rs + k];
    } else {
      for (k = 0; k < kc; k++)
        for (i = 0; i < mr; i++)
          out[k * mr_ + i] = scaled ? alpha * a[i * rs + k * cs] : a[i * rs + k * cs];
    }
    for (k = 0; mr < mr_ && k < kc; k++)
      for (i = mr; i < mr_; i++)
        out[k * mr_ + i] = 0.0;
  }
}

/* kc x cols of B into nr_-column panels (zeros right of the last column); element
 * (k, j) is B[k * rs + j * cs], or B[koff[k] + j * cs] when koff is given */
static inline void polysched_pk_pack_b(long kc, long cols, const double *B, long rs, long cs,
                                       const long *koff, double *out, int nr_)
{
  long q, j, k;
  for (q = 0; q < cols; q += nr_, out += (long)nr_ * kc) {
    long nr = cols - q < nr_ ? cols - q : nr_;
    const double *b = B + q * cs;
    if (koff != NULL && cs == 1 && nr == nr_) {
      for (k = 0; k < kc; k++)
        memcpy(out + k * nr_, b + koff[k], (size_t)nr_ * sizeof(double));
    } else if (koff != NULL) {
      for (k = 0; k < kc; k++)
        for (j = 0; j < nr; j++)
          out[k * nr_ + j] = b[koff[k] + j * cs];
    } else if (cs == 1 && nr == nr_) {
      for (k = 0; k < kc; k++)
        memcpy(out + k * nr_, b + k * rs, (size_t)nr_ * sizeof(double));
    } else if (rs == 1) {   /* B stored transposed: read its columns */
      for (j = 0; j < nr; j++)
        for (k = 0; k < kc; k++)
          out[k * nr_ + j] = b[j * cs + k];
    } else {
      for (k = 0; k < kc; k++)
        for (j = 0; j < nr; j++)
          out[k * nr_ + j] = b[k * rs + j * cs];
    }
    for (k = 0; nr < nr_ && k < kc; k++)
      for (j = nr; j < nr_; j++)
        out[k * nr_ + j] = 0.0;
  }
}

/* C (mr_ x nr_, row stride rsC) += Ap (kc x mr_ panel) * Bp (kc x nr_ panel) */
typedef void (*polysched_pk_kernel)(long kc, const double *Ap, const double *Bp, double *C, long rsC);

/* the same reading A in place: its mr_ rows from A with row stride rsA, element k of a
 * row at koff[k] (see polysched_pk_direct_a) */
typedef void (*polysched_pk_direct_kernel)(long kc, const double *A, long rsA, const long *koff,
                                           const double *Bp, double *C, long rsC);

/* a path's kernels: mr_ x nr_ blocks, packed or in place (direct may be NULL), and direct
 * kernels of fewer rows (tail_mr[t] rows, largest first, 0 ends the list) for the last rows
 * of a block read in place: a convolution's m_ is an image height such as 56, 4 x 12 + 8,
 * and its 8 last rows went through a padded 12-row block, 7% of the time */
typedef struct {
  int mr_, nr_;
  polysched_pk_kernel kernel;
  polysched_pk_direct_kernel direct;
  int tail_mr[3];
  polysched_pk_direct_kernel tail[2];
} polysched_pk_path;

/* Should A be read in place rather than packed? Packing costs one pass over A's block,
   paid back when many nr_-column panels reuse it; a convolution's input window (k over
   (r, s, c), m_ output rows, n_ output channels) has few panels and is different in
   every call: packing it was a quarter of conv2d-nhwc's time. In place needs k offsets
   that mostly step by one element (each row then streams through whole cache lines). */
static inline int polysched_pk_direct_a(long k_, const long *koff)
{
  long k, steps = 0;
  if (koff == NULL || k_ < 2)
    return 0;
  for (k = 1; k < k_; k++)
    steps += koff[k] == koff[k - 1] + 1;
  return 4 * steps >= 3 * (k_ - 1);
}

/* the blocked driver; returns 0 when no packing buffer could be had (the caller then
 * runs the plain loops). koffA/koffB: NULL, or k's offset in A/B for each k < k_ (then
 * csA/rsB are unused) */
static inline int polysched_pk_dgemm(long m_, long n_, long k_, double alpha, int scaled, const double *A,
    long rsA, long csA, const long *koffA, unsigned long epochA, const double *B, long rsB, long csB,
    const long *koffB, unsigned long epochB, double *C, long rsC, const polysched_pk_path *path)
{
  const int mr_ = path->mr_, nr_ = path->nr_;
  const polysched_pk_kernel kernel = path->kernel;
  const polysched_pk_direct_kernel direct = path->direct;
  long jc, pc, ic, jr, ir, i, j;
  long kcmax = k_ < POLYSCHED_PK_KC ? k_ : POLYSCHED_PK_KC;
  long ncmax = polysched_pk_round_up(n_ < POLYSCHED_PK_NC ? n_ : POLYSCHED_PK_NC, nr_);
  long mcmax = polysched_pk_round_up(m_ < POLYSCHED_PK_MC ? m_ : POLYSCHED_PK_MC, mr_);
  long mcfull = polysched_pk_round_up(POLYSCHED_PK_MC, mr_);      /* a full MC block of A */
  /* all of B's (A's) panels, as kept: k_ rows of n_ (m_) padded per block */
  long npad = n_ / POLYSCHED_PK_NC * polysched_pk_round_up(POLYSCHED_PK_NC, nr_)
              + polysched_pk_round_up(n_ % POLYSCHED_PK_NC, nr_);
  long mpad = m_ / POLYSCHED_PK_MC * mcfull + polysched_pk_round_up(m_ % POLYSCHED_PK_MC, mr_);
  long boff = 0;
  int hitA = 0, hitB = 0, varies = 0, directA;
  double tile[16 * 16];
  double *bp, *ap, *keptA, *keptB;
  if (m_ <= 0 || n_ <= 0 || k_ <= 0)
    return 1;
  bp = polysched_pk_scratch((size_t)kcmax * (size_t)(ncmax + mcmax));
  if (bp == NULL)
    return 0;
  ap = bp + kcmax * ncmax;
  keptA = polysched_pk_cache_get(&polysched_pk_cache_a, epochA, A, rsA, csA, koffA, k_, m_, mr_, alpha,
                                 scaled, (size_t)k_ * (size_t)mpad, &hitA, &varies);
  /* A read in place: when it is not kept, or kept but different in every call of the run
     (the same epoch, another block: a convolution's input window); keptA is NULL then */
  directA = direct != NULL && !scaled && !hitA && (epochA == 0 || varies) && polysched_pk_direct_a(k_, koffA);
  keptB = polysched_pk_cache_get(&polysched_pk_cache_b, epochB, B, rsB, csB, koffB, k_, n_, nr_, 1.0, 0,
                                 (size_t)k_ * (size_t)npad, &hitB, NULL);
  for (jc = 0; jc < n_; jc += POLYSCHED_PK_NC) {
    long nc = n_ - jc < POLYSCHED_PK_NC ? n_ - jc : POLYSCHED_PK_NC;
    long ncpad = polysched_pk_round_up(nc, nr_);
    for (pc = 0; pc < k_; pc += POLYSCHED_PK_KC) {     /* k blocks in increasing order */
      long kc = k_ - pc < POLYSCHED_PK_KC ? k_ - pc : POLYSCHED_PK_KC;
      if (keptB != NULL) {
        bp = keptB + boff;
        boff += kc * ncpad;
      }
      if (!hitB)
        polysched_pk_pack_b(kc, nc, B + (koffB ? 0 : pc * rsB) + jc * csB, rsB, csB,
                            koffB ? koffB + pc : NULL, bp, nr_);
      for (ic = 0; ic < m_; ic += POLYSCHED_PK_MC) {
        long mc = m_ - ic < POLYSCHED_PK_MC ? m_ - ic : POLYSCHED_PK_MC;
        /* A's block (pc, ic): after the k rows before pc (of mpad each), and the blocks
           before ic in pc's rows (full MC blocks, padded) */
        if (keptA != NULL)
          ap = keptA + pc * mpad + kc * (ic / POLYSCHED_PK_MC) * mcfull;
        if (directA) {        /* only the rows left after the full blocks and the tails */
          long rest = mc % mr_;
          int t;
          for (t = 0; path->tail_mr[t] > 0; t++)
            while (rest >= path->tail_mr[t])
              rest -= path->tail_mr[t];
          if (rest != 0)
            polysched_pk_pack_a(rest, kc, alpha, scaled, A + (ic + mc - rest) * rsA, rsA, csA, koffA + pc,
                                ap, mr_);
        } else if (keptA == NULL || (!hitA && jc == 0))
          polysched_pk_pack_a(mc, kc, alpha, scaled, A + ic * rsA + (koffA ? 0 : pc * csA), rsA, csA,
                              koffA ? koffA + pc : NULL, ap, mr_);
        for (jr = 0; jr < nc; jr += nr_) {
          long nr = nc - jr < nr_ ? nc - jr : nr_;
          long mr;
          for (ir = 0; ir < mc; ir += mr) {
            mr = mc - ir < mr_ ? mc - ir : mr_;
            double *c = C + (ic + ir) * rsC + jc + jr;
            const double *a = directA ? ap : ap + ir * kc, *b = bp + jr * kc;
            const double *arow = A + (ic + ir) * rsA;
            polysched_pk_direct_kernel in_place = directA && mr == mr_ ? direct : NULL;
            int t;
            for (t = 0; directA && in_place == NULL && path->tail_mr[t] > 0; t++)
              if (mr >= path->tail_mr[t]) {
                in_place = path->tail[t];
                mr = path->tail_mr[t];
              }
            if ((mr == mr_ || in_place != NULL) && nr == nr_) {
              if (in_place != NULL)
                in_place(kc, arow, rsA, koffA + pc, b, c, rsC);
              else
                kernel(kc, a, b, c, rsC);
              continue;
            }
            /* an edge block: through a full mr_ x nr_ tile (the padding lanes compute
               with zeros and are dropped) */
            for (i = 0; i < mr; i++)
              for (j = 0; j < nr; j++)
                tile[i * nr_ + j] = c[i * rsC + j];
            if (in_place != NULL)
              in_place(kc, arow, rsA, koffA + pc, b, tile, nr_);
            else
              kernel(kc, a, b, tile, nr_);
            for (i = 0; i < mr; i++)
              for (j = 0; j < nr; j++)
                c[i * rsC + j] = tile[i * nr_ + j];
          }
        }
      }
    }
  }
  if (keptA != NULL && !hitA)        /* packed whole: valid for the rest of the run */
    polysched_pk_cache_a.epoch = epochA;
  if (keptB != NULL && !hitB)
    polysched_pk_cache_b.epoch = epochB;
  return 1;
}

/* what a packed product does to C: adds each product (exact), adds it fused (one rounding),
 * or subtracts it (exact) */
#define POLYSCHED_PK_ADD 0
#define POLYSCHED_PK_FUSED 1
#define POLYSCHED_PK_SUB 2

/* portable micro-kernel, 4 x 8: C OP= A * B (OP + or -) */
#define POLYSCHED_PK_PORTABLE_KERNEL(NAME, OP)                                                \
  POLYSCHED_EXACT_FP                                                                          \
  static void NAME(long kc, const double *Ap, const double *Bp, double *C, long rsC)         \
  {                                                                                           \
    POLYSCHED_EXACT_FP_BODY                                                                   \
    double c[4][8];                                                                           \
    long k;                                                                                   \
    int i, j;                                                                                 \
    for (i = 0; i < 4; i++)                                                                   \
      for (j = 0; j < 8; j++)                                                                 \
        c[i][j] = C[i * rsC + j];                                                             \
    for (k = 0; k < kc; k++)                                                                  \
      for (i = 0; i < 4; i++)                                                                 \
        for (j = 0; j < 8; j++)                                                               \
          c[i][j] = c[i][j] OP Ap[k * 4 + i] * Bp[k * 8 + j];                                 \
    for (i = 0; i < 4; i++)                                                                   \
      for (j = 0; j < 8; j++)                                                                 \
        C[i * rsC + j] = c[i][j];                                                             \
  }
POLYSCHED_PK_PORTABLE_KERNEL(polysched_pk_kernel_portable, +)
POLYSCHED_PK_PORTABLE_KERNEL(polysched_pk_kernel_portable_sub, -)

#if POLYSCHED_X86
/* A's parameters, what each step k sets up, and POLYSCHED_PK_AELEM(MR, r), A's element
 * of row r at step k (defined around each kernel): packed, a panel of MR-value columns;
 * or in place (the direct kernels: row r at A + r * rsA, step k at koff[k], see
 * polysched_pk_direct_a) */
#define POLYSCHED_PK_PACKED_A const double *Ap
#define POLYSCHED_PK_PACKED_AELEM(MR, r) Ap[k * (MR) + (r)]
#define POLYSCHED_PK_DIRECT_A const double *A, long rsA, const long *koff
#define POLYSCHED_PK_DIRECT_A_AT_K const double *Ak = A + koff[k];
#define POLYSCHED_PK_DIRECT_AELEM(MR, r) Ak[(r) * rsA]

/* AVX-512F, 12 x 16: 24 accumulators, 2 B vectors, one broadcast A value per row */
#define POLYSCHED_PK_Z_ROW(r)                                                                 \
  { __m512d a = _mm512_set1_pd(POLYSCHED_PK_AELEM(12, r));                                   \
    c##r##0 = POLYSCHED_PK_Z_OP(c##r##0, a, b0); c##r##1 = POLYSCHED_PK_Z_OP(c##r##1, a, b1); }
#define POLYSCHED_PK_Z_LOAD(r)                                                                \
  __m512d c##r##0 = _mm512_loadu_pd(C + r * rsC), c##r##1 = _mm512_loadu_pd(C + r * rsC + 8);
#define POLYSCHED_PK_Z_STORE(r)                                                               \
  _mm512_storeu_pd(C + r * rsC, c##r##0); _mm512_storeu_pd(C + r * rsC + 8, c##r##1);
#define POLYSCHED_PK_Z_ALL(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define POLYSCHED_PK_Z_ROWS8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define POLYSCHED_PK_Z_ROWS4(X) X(0) X(1) X(2) X(3)
#define POLYSCHED_PK_Z_KERNEL(NAME, ATTR, A_PARAMS, A_AT_K, ROWS)                             \
  POLYSCHED_TARGET("avx512f") ATTR                                                            \
  static void NAME(long kc, A_PARAMS, const double *Bp, double *C, long rsC)                 \
  {                                                                                           \
    POLYSCHED_EXACT_FP_BODY                                                                   \
    long k;                                                                                   \
    ROWS(POLYSCHED_PK_Z_LOAD)                                                                 \
    for (k = 0; k < kc; k++) {                                                                \
      A_AT_K                                                                                  \
      __m512d b0 = _mm512_load_pd(Bp + k * 16), b1 = _mm512_load_pd(Bp + k * 16 + 8);         \
      ROWS(POLYSCHED_PK_Z_ROW)                                                                \
    }                                                                                         \
    ROWS(POLYSCHED_PK_Z_STORE)                                                                \
  }
#define POLYSCHED_PK_Z_OP(c, a, b)                                                            \
  _mm512_add_round_pd(c, _mm512_mul_round_pd(a, b, _MM_FROUND_CUR_DIRECTION), _MM_FROUND_CUR_DIRECTION)
#define POLYSCHED_PK_AELEM POLYSCHED_PK_PACKED_AELEM
POLYSCHED_PK_Z_KERNEL(polysched_pk_kernel_avx512, POLYSCHED_EXACT_FP, POLYSCHED_PK_PACKED_A, , POLYSCHED_PK_Z_ALL)
#undef POLYSCHED_PK_AELEM
#define POLYSCHED_PK_AELEM POLYSCHED_PK_DIRECT_AELEM
POLYSCHED_PK_Z_KERNEL(polysched_pk_direct_avx512, POLYSCHED_EXACT_FP, POLYSCHED_PK_DIRECT_A,
                      POLYSCHED_PK_DIRECT_A_AT_K, POLYSCHED_PK_Z_ALL)
POLYSCHED_PK_Z_KERNEL(polysched_pk_direct8_avx512, POLYSCHED_EXACT_FP, POLYSCHED_PK_DIRECT_A,
                      POLYSCHED_PK_DIRECT_A_AT_K, POLYSCHED_PK_Z_ROWS8)
POLYSCHED_PK_Z_KERNEL(polysched_pk_direct4_avx512, POLYSCHED_EXACT_FP, POLYSCHED_PK_DIRECT_A,
                      POLYSCHED_PK_DIRECT_A_AT_K, POLYSCHED_PK_Z_ROWS4)
#undef POLYSCHED_PK_AELEM
#undef POLYSCHED_PK_Z_OP
/* C -= A * B: the subtraction itself, as the source's (c - a * b returns c's NaN, or the
   product's, with its own sign: c + (-a) * b would flip the product's) */
#define POLYSCHED_PK_Z_OP(c, a, b)                                                            \
  _mm512_sub_round_pd(c, _mm512_mul_round_pd(a, b, _MM_FROUND_CUR_DIRECTION), _MM_FROUND_CUR_DIRECTION)
#define POLYSCHED_PK_AELEM POLYSCHED_PK_PACKED_AELEM
POLYSCHED_PK_Z_KERNEL(polysched_pk_kernel_avx512_sub, POLYSCHED_EXACT_FP, POLYSCHED_PK_PACKED_A, ,
                      POLYSCHED_PK_Z_ALL)
#undef POLYSCHED_PK_AELEM
#undef POLYSCHED_PK_Z_OP
#define POLYSCHED_PK_Z_OP(c, a, b) _mm512_fmadd_pd(a, b, c)
#define POLYSCHED_PK_AELEM POLYSCHED_PK_PACKED_AELEM
POLYSCHED_PK_Z_KERNEL(polysched_pk_kernel_avx512_fma, , POLYSCHED_PK_PACKED_A, , POLYSCHED_PK_Z_ALL)
#undef POLYSCHED_PK_AELEM
#undef POLYSCHED_PK_Z_OP

/* AVX2, 6 x 8: 12 accumulators */
#define POLYSCHED_PK_Y_ROW(r)                                                                 \
  { __m256d a = _mm256_broadcast_sd(&POLYSCHED_PK_AELEM(6, r));                                   \
    c##r##0 = POLYSCHED_PK_Y_OP(c##r##0, a, b0); c##r##1 = POLYSCHED_PK_Y_OP(c##r##1, a, b1); }
#define POLYSCHED_PK_Y_LOAD(r)                                                                \
  __m256d c##r##0 = _mm256_loadu_pd(C + r * rsC), c##r##1 = _mm256_loadu_pd(C + r * rsC + 4);
#define POLYSCHED_PK_Y_STORE(r)                                                               \
  _mm256_storeu_pd(C + r * rsC, c##r##0); _mm256_storeu_pd(C + r * rsC + 4, c##r##1);
#define POLYSCHED_PK_Y_ALL(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define POLYSCHED_PK_Y_ROWS4(X) X(0) X(1) X(2) X(3)
#define POLYSCHED_PK_Y_ROWS2(X) X(0) X(1)
#define POLYSCHED_PK_Y_KERNEL(NAME, TARGET, ATTR, A_PARAMS, A_AT_K, ROWS)                     \
  POLYSCHED_TARGET(TARGET) ATTR                                                               \
  static void NAME(long kc, A_PARAMS, const double *Bp, double *C, long rsC)                 \
  {                                                                                           \
    POLYSCHED_EXACT_FP_BODY                                                                   \
    long k;                                                                                   \
    ROWS(POLYSCHED_PK_Y_LOAD)                                                                 \
    for (k = 0; k < kc; k++) {                                                                \
      A_AT_K                                                                                  \
      __m256d b0 = _mm256_load_pd(Bp + k * 8), b1 = _mm256_load_pd(Bp + k * 8 + 4);           \
      ROWS(POLYSCHED_PK_Y_ROW)                                                                \
    }                                                                                         \
    ROWS(POLYSCHED_PK_Y_STORE)                                                                \
  }
#define POLYSCHED_PK_Y_OP(c, a, b) _mm256_add_pd(c, _mm256_mul_pd(a, b))
#define POLYSCHED_PK_AELEM POLYSCHED_PK_PACKED_AELEM
POLYSCHED_PK_Y_KERNEL(polysched_pk_kernel_avx2, "avx2", POLYSCHED_EXACT_FP, POLYSCHED_PK_PACKED_A, ,
                      POLYSCHED_PK_Y_ALL)
#undef POLYSCHED_PK_AELEM
#define POLYSCHED_PK_AELEM POLYSCHED_PK_DIRECT_AELEM
POLYSCHED_PK_Y_KERNEL(polysched_pk_direct_avx2, "avx2", POLYSCHED_EXACT_FP, POLYSCHED_PK_DIRECT_A,
                      POLYSCHED_PK_DIRECT_A_AT_K, POLYSCHED_PK_Y_ALL)
POLYSCHED_PK_Y_KERNEL(polysched_pk_direct4_avx2, "avx2", POLYSCHED_EXACT_FP, POLYSCHED_PK_DIRECT_A,
                      POLYSCHED_PK_DIRECT_A_AT_K, POLYSCHED_PK_Y_ROWS4)
POLYSCHED_PK_Y_KERNEL(polysched_pk_direct2_avx2, "avx2", POLYSCHED_EXACT_FP, POLYSCHED_PK_DIRECT_A,
                      POLYSCHED_PK_DIRECT_A_AT_K, POLYSCHED_PK_Y_ROWS2)
#undef POLYSCHED_PK_AELEM
#undef POLYSCHED_PK_Y_OP
#define POLYSCHED_PK_Y_OP(c, a, b) _mm256_sub_pd(c, _mm256_mul_pd(a, b))
#define POLYSCHED_PK_AELEM POLYSCHED_PK_PACKED_AELEM
POLYSCHED_PK_Y_KERNEL(polysched_pk_kernel_avx2_sub, "avx2", POLYSCHED_EXACT_FP, POLYSCHED_PK_PACKED_A, ,
                      POLYSCHED_PK_Y_ALL)
#undef POLYSCHED_PK_AELEM
#undef POLYSCHED_PK_Y_OP
#define POLYSCHED_PK_Y_OP(c, a, b) _mm256_fmadd_pd(a, b, c)
#define POLYSCHED_PK_AELEM POLYSCHED_PK_PACKED_AELEM
POLYSCHED_PK_Y_KERNEL(polysched_pk_kernel_avx2_fma, "avx2,fma", , POLYSCHED_PK_PACKED_A, , POLYSCHED_PK_Y_ALL)
#undef POLYSCHED_PK_AELEM
#undef POLYSCHED_PK_Y_OP
#endif

/* the plain loop nest (the description's order), when no packing buffer can be had */
POLYSCHED_EXACT_FP
static inline void polysched_pk_dgemm_loops(long m_, long n_, long k_, double alpha, int scaled, int op,
    const double *A, long rsA, long csA, const long *koffA, const double *B, long rsB, long csB,
    const long *koffB, double *C, long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  long i, j, k;
  for (k = 0; k < k_; k++) {
    long ka = koffA ? koffA[k] : k * csA, kb = koffB ? koffB[k] : k * rsB;
    for (i = 0; i < m_; i++)
      for (j = 0; j < n_; j++) {
        double a = scaled ? alpha * A[i * rsA + ka] : A[i * rsA + ka];
        if (op == POLYSCHED_PK_SUB)
          C[i * rsC + j] = C[i * rsC + j] - a * B[kb + j * csB];
        else
          C[i * rsC + j] = C[i * rsC + j] + a * B[kb + j * csB];
      }
  }
}

static inline void polysched_pk_dispatch_off(long m_, long n_, long k_, double alpha, int scaled, int op,
    const double *A, long rsA, long csA, const long *koffA, unsigned long epochA, const double *B, long rsB,
    long csB, const long *koffB, unsigned long epochB, double *C, long rsC)
{
#if POLYSCHED_X86
  static const polysched_pk_path avx512 = {12, 16, polysched_pk_kernel_avx512, polysched_pk_direct_avx512,
                                           {8, 4, 0}, {polysched_pk_direct8_avx512, polysched_pk_direct4_avx512}};
  static const polysched_pk_path avx512_fma = {12, 16, polysched_pk_kernel_avx512_fma, NULL, {0}, {NULL}};
  static const polysched_pk_path avx512_sub = {12, 16, polysched_pk_kernel_avx512_sub, NULL, {0}, {NULL}};
  static const polysched_pk_path avx2 = {6, 8, polysched_pk_kernel_avx2, polysched_pk_direct_avx2,
                                         {4, 2, 0}, {polysched_pk_direct4_avx2, polysched_pk_direct2_avx2}};
  static const polysched_pk_path avx2_fma = {6, 8, polysched_pk_kernel_avx2_fma, NULL, {0}, {NULL}};
  static const polysched_pk_path avx2_sub = {6, 8, polysched_pk_kernel_avx2_sub, NULL, {0}, {NULL}};
#endif
  static const polysched_pk_path portable = {4, 8, polysched_pk_kernel_portable, NULL, {0}, {NULL}};
  static const polysched_pk_path portable_sub = {4, 8, polysched_pk_kernel_portable_sub, NULL, {0}, {NULL}};
  const polysched_pk_path *path = op == POLYSCHED_PK_SUB ? &portable_sub : &portable;
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512f")) {
    POLYSCHED_PATH(op == POLYSCHED_PK_FUSED ? "avx512-fma" : "avx512");
    path = op == POLYSCHED_PK_FUSED ? &avx512_fma : op == POLYSCHED_PK_SUB ? &avx512_sub : &avx512;
  } else if (POLYSCHED_HAS("avx2") && (op != POLYSCHED_PK_FUSED || POLYSCHED_HAS("fma"))) {
    POLYSCHED_PATH(op == POLYSCHED_PK_FUSED ? "avx2-fma" : "avx2");
    path = op == POLYSCHED_PK_FUSED ? &avx2_fma : op == POLYSCHED_PK_SUB ? &avx2_sub : &avx2;
  } else
#endif
  {
    POLYSCHED_PATH("portable");
  }
  if (polysched_pk_dgemm(m_, n_, k_, alpha, scaled, A, rsA, csA, koffA, epochA, B, rsB, csB, koffB, epochB,
                         C, rsC, path))
    return;
  polysched_pk_dgemm_loops(m_, n_, k_, alpha, scaled, op, A, rsA, csA, koffA, B, rsB, csB, koffB, C, rsC);
}

static inline void polysched_pk_dispatch(long m_, long n_, long k_, double alpha, int scaled, int op,
    const double *A, long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_pk_dispatch_off(m_, n_, k_, alpha, scaled, op, A, rsA, csA, NULL, 0, B, rsB, csB, NULL, 0, C, rsC);
}

/* C[i][j] += A[i][k1][k2][k3] * B[k1][k2][k3][j] for i < m_, j < n_ (stride 1), the k's in
 * increasing (k1, k2, k3) order: one product over k = (k1, k2, k3). A and B are given by
 * one stride per loop (sAi: A's stride along i, sA1 along k1, ...), so any affine view
 * will do: a convolution's input window in[c][h + r][w + s] is A or B with strides
 * (H'W', W', 1). epochA/epochB: the region run's epoch when the region never writes that
 * operand (its panels are then packed once per run, see polysched_pk_cache), else 0.
 * Exact, like polysched_dgemm_packed. */
POLYSCHED_EXACT_FP
static inline void polysched_dgemm_packed_k3(long m_, long n_, long k1_, long k2_, long k3_,
    const double *A, long sAi, long sA1, long sA2, long sA3,
    const double *B, long sB1, long sB2, long sB3, long sBj, double *C, long rsC,
    unsigned long epochA, unsigned long epochB)
{
  POLYSCHED_EXACT_FP_BODY
  long k1, k2, k3, k = 0, k_, *off;
  if (m_ <= 0 || n_ <= 0 || k1_ <= 0 || k2_ <= 0 || k3_ <= 0)
    return;
  k_ = k1_ * k2_ * k3_;
  off = (long *)malloc(2 * (size_t)k_ * sizeof(long));
  if (off == NULL) {           /* the description's loops, offsets computed in place */
    long i, j;
    for (k1 = 0; k1 < k1_; k1++)
      for (k2 = 0; k2 < k2_; k2++)
        for (k3 = 0; k3 < k3_; k3++)
          for (i = 0; i < m_; i++)
            for (j = 0; j < n_; j++)
              C[i * rsC + j] = C[i * rsC + j] + A[i * sAi + k1 * sA1 + k2 * sA2 + k3 * sA3]
                                                * B[k1 * sB1 + k2 * sB2 + k3 * sB3 + j * sBj];
    return;
  }
  for (k1 = 0; k1 < k1_; k1++)
    for (k2 = 0; k2 < k2_; k2++)
      for (k3 = 0; k3 < k3_; k3++, k++) {
        off[k] = k1 * sA1 + k2 * sA2 + k3 * sA3;
        off[k_ + k] = k1 * sB1 + k2 * sB2 + k3 * sB3;
      }
  polysched_pk_dispatch_off(m_, n_, k_, 1.0, 0, POLYSCHED_PK_ADD, A, sAi, 0, off, epochA, B, 0, sBj, off + k_, epochB,
                            C, rsC);
  free(off);
}

/* C[i][j] += A[i][k] * B[k][j], i < m_, j < n_ (stride 1), k < K: exact */
static inline void polysched_dgemm_packed(long m_, long n_, long k_, const double *A, long rsA, long csA,
    const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_pk_dispatch(m_, n_, k_, 1.0, 0, POLYSCHED_PK_ADD, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* C[i][j] += alpha * A[i][k] * B[k][j] (alpha * A first, as C parses it): exact */
static inline void polysched_dgemm_packed_scaled(long m_, long n_, long k_, double alpha, const double *A,
    long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_pk_dispatch(m_, n_, k_, alpha, 1, POLYSCHED_PK_ADD, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* C[i][j] -= A[i][k] * B[k][j], i < m_, j < n_ (stride 1), k < K: exact, each product
 * subtracted as the source subtracts it */
static inline void polysched_dgemm_packed_sub(long m_, long n_, long k_, const double *A, long rsA, long csA,
    const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_pk_dispatch(m_, n_, k_, 1.0, 0, POLYSCHED_PK_SUB, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* bands of two statements: C *= beta (or C = 0.0) over the block, then C += [alpha *] A * B;
 * each element is initialised before its first product is added, as in the source */
static inline void polysched_dgemm_block_init(long m_, long n_, int zero, double beta, double *C, long rsC)
{
  long i, j;
  for (i = 0; i < m_; i++)
    for (j = 0; j < n_; j++)
      C[i * rsC + j] = zero ? 0.0 : C[i * rsC + j] * beta;
}

static inline void polysched_dgemm_packed_beta_scaled(long m_, long n_, long k_, double alpha, double beta,
    const double *A, long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_dgemm_block_init(m_, n_, 0, beta, C, rsC);
  polysched_dgemm_packed_scaled(m_, n_, k_, alpha, A, rsA, csA, B, rsB, csB, C, rsC);
}

static inline void polysched_dgemm_packed_beta(long m_, long n_, long k_, double beta,
    const double *A, long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_dgemm_block_init(m_, n_, 0, beta, C, rsC);
  polysched_dgemm_packed(m_, n_, k_, A, rsA, csA, B, rsB, csB, C, rsC);
}

static inline void polysched_dgemm_packed_zero_scaled(long m_, long n_, long k_, double alpha,
    const double *A, long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_dgemm_block_init(m_, n_, 1, 0.0, C, rsC);
  polysched_dgemm_packed_scaled(m_, n_, k_, alpha, A, rsA, csA, B, rsB, csB, C, rsC);
}

static inline void polysched_dgemm_packed_zero(long m_, long n_, long k_,
    const double *A, long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_dgemm_block_init(m_, n_, 1, 0.0, C, rsC);
  polysched_dgemm_packed(m_, n_, k_, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* the same with fused multiply-adds: NOT bit-identical (opt-in) */
static inline void polysched_dgemm_packed_fma(long m_, long n_, long k_, const double *A, long rsA,
    long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_pk_dispatch(m_, n_, k_, 1.0, 0, POLYSCHED_PK_FUSED, A, rsA, csA, B, rsB, csB, C, rsC);
}

static inline void polysched_dgemm_packed_fma_scaled(long m_, long n_, long k_, double alpha,
    const double *A, long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_pk_dispatch(m_, n_, k_, alpha, 1, POLYSCHED_PK_FUSED, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* ---------------------------------------------------------------- CBLAS library -- */

/* C[i][j] += A[i][k] * B[k][j] (or alpha * A[i][k] * B[k][j]) as one cblas_dgemm (f64)
 * or cblas_sgemm (f32) call with beta = 1, through a CBLAS found at run time: the shared
 * library named by the environment variable POLYSCHED_CBLAS (and only it, when it is
 * set: "none" means no library), else POLYSCHED_CBLAS_DEFAULT (polysched defines it
 * above this #include with the library it found when it wrote the file), else the usual
 * sonames (libcblas.so.3, libopenblas.so.0, libblis.so.4, libmkl_rt.so.2).
 * The ABI is read from the symbols: cblas_?gemm / scipy_cblas_?gemm take int sizes,
 * cblas_?gemm64_ / scipy_cblas_?gemm64_ (and an OpenBLAS built with USE64BITINT) take
 * int64_t.  A BLAS sums in its own order with fused multiply-adds: NOT bit-identical
 * (opt-in, like the FMA kernels).  No library (or no dlopen: -DPOLYSCHED_NO_DLOPEN),
 * an operand with no unit stride, a size past the ABI's int, C overlapping an operand,
 * or a call from inside an OpenMP parallel region (the BLAS has threads of its own)
 * take the fallback: polysched_dgemm_packed_fma[_scaled] for f64, the loop nest for f32.
 * When OMP_NUM_THREADS is set the BLAS is told to use that many threads, so a timing
 * at T threads means T threads for both. */
#if !defined(POLYSCHED_NO_DLOPEN) && (defined(__linux__) || defined(__APPLE__))
#  include <dlfcn.h>
#  include <stdio.h>
#  define POLYSCHED_DLOPEN 1
#else
#  define POLYSCHED_DLOPEN 0
#endif
#ifdef _OPENMP
#  include <omp.h>
#  define POLYSCHED_IN_PARALLEL() omp_in_parallel()
#else
#  define POLYSCHED_IN_PARALLEL() 0
#endif
#ifndef POLYSCHED_CBLAS_DEFAULT
#  define POLYSCHED_CBLAS_DEFAULT ""
#endif

/* 0: not looked for yet; 1: found, int sizes; 2: found, int64_t sizes; -1: none */
static int polysched_cblas_abi;
/* function pointers of no particular type (ISO C converts none to or from void *: the
   symbols are copied in with memcpy, as POSIX allows, so -pedantic-errors builds) */
typedef void (*polysched_cblas_fn)(void);
static polysched_cblas_fn polysched_cblas_dgemm_fn, polysched_cblas_sgemm_fn;

#if POLYSCHED_DLOPEN
static polysched_cblas_fn polysched_cblas_symbol(void *lib, const char *symbol) {
  polysched_cblas_fn fn;
  void *address = dlsym(lib, symbol);
  memcpy(&fn, &address, sizeof fn);
  return fn;
}
#endif

static inline int polysched_cblas_load(void)
{
  int abi = __atomic_load_n(&polysched_cblas_abi, __ATOMIC_ACQUIRE);
  if (abi)
    return abi;
  abi = -1;
#if POLYSCHED_DLOPEN
  {
    /* the symbol prefixes and suffixes (naming schemes) tried in each library */
    static const char *const prefix[4] = {"", "scipy_", "", "scipy_"};
    static const char *const suffix[4] = {"", "", "64_", "64_"};
    const char *chosen = getenv("POLYSCHED_CBLAS");
    const char *names[] = {chosen ? chosen : POLYSCHED_CBLAS_DEFAULT, chosen ? "" : "libcblas.so.3",
                           chosen ? "" : "libopenblas.so.0", chosen ? "" : "libblis.so.4",
                           chosen ? "" : "libmkl_rt.so.2", chosen ? "" : "libmkl_rt.so"};
    size_t n, s;
    char symbol[64];
    for (n = 0; n < sizeof names / sizeof *names && abi < 0; n++) {
      void *lib;
      if (!names[n] || !names[n][0] || !(lib = dlopen(names[n], RTLD_NOW | RTLD_LOCAL)))
        continue;
      for (s = 0; s < 4 && abi < 0; s++) {
        const char *threads = getenv("OMP_NUM_THREADS");
        char *(*config)(void);
        void (*set_threads)(int);
        snprintf(symbol, sizeof symbol, "%scblas_dgemm%s", prefix[s], suffix[s]);
        if (!(polysched_cblas_dgemm_fn = polysched_cblas_symbol(lib, symbol)))
          continue;
        snprintf(symbol, sizeof symbol, "%scblas_sgemm%s", prefix[s], suffix[s]);
        polysched_cblas_sgemm_fn = polysched_cblas_symbol(lib, symbol);
        snprintf(symbol, sizeof symbol, "%sopenblas_get_config%s", prefix[s], suffix[s]);
        config = (char *(*)(void))polysched_cblas_symbol(lib, symbol);
        abi = suffix[s][0] || (config && strstr(config(), "USE64BITINT")) ? 2 : 1;
        snprintf(symbol, sizeof symbol, "%sopenblas_set_num_threads%s", prefix[s], suffix[s]);
        set_threads = (void (*)(int))polysched_cblas_symbol(lib, symbol);   /* an int in every OpenBLAS ABI */
        if (threads && atoi(threads) > 0 && set_threads)
          set_threads(atoi(threads));
      }
      if (abi < 0)
        dlclose(lib);
    }
  }
#endif
  __atomic_store_n(&polysched_cblas_abi, abi, __ATOMIC_RELEASE);
  return abi;
}

/* One operand (rows x cols, strides rs, cs) as CBLAS sees it: 111 (CblasNoTrans) with
 * leading dimension rs when cs == 1, 112 (CblasTrans) with cs when rs == 1; 0 when
 * neither stride is 1 or the leading dimension is too small for CBLAS. */
static inline int polysched_cblas_trans(long rows, long cols, long rs, long cs, long *ld)
{
  if (cs == 1 && rs >= (cols > 1 ? cols : 1)) {
    *ld = rs;
    return 111;
  }
  if (rs == 1 && cs >= (rows > 1 ? rows : 1)) {
    *ld = cs;
    return 112;
  }
  return 0;
}

/* The ABI to call ?gemm with for these operands (1 int, 2 int64_t), or 0: take the
 * fallback; *ta, *tb, *lda, *ldb: how CBLAS sees A and B (polysched_cblas_trans).
 * Elements are ``size`` bytes. C (m x n, row stride rsC) may not share memory with A
 * or B. */
static inline int polysched_cblas_usable(long m_, long n_, long k_, const void *A, long rsA, long csA,
    const void *B, long rsB, long csB, const void *C, long rsC, size_t size, int *ta, int *tb, long *lda,
    long *ldb)
{
  const char *a0 = (const char *)A, *b0 = (const char *)B, *c0 = (const char *)C;
  const char *a1 = a0 + ((m_ - 1) * rsA + (k_ - 1) * csA + 1) * (long)size;
  const char *b1 = b0 + ((k_ - 1) * rsB + (n_ - 1) * csB + 1) * (long)size;
  const char *c1 = c0 + ((m_ - 1) * rsC + n_) * (long)size;
  int abi;
  *ta = polysched_cblas_trans(m_, k_, rsA, csA, lda);
  *tb = polysched_cblas_trans(k_, n_, rsB, csB, ldb);
  if (!*ta || !*tb || rsC < n_ || POLYSCHED_IN_PARALLEL() || (a0 < c1 && c0 < a1) || (b0 < c1 && c0 < b1))
    return 0;
  abi = polysched_cblas_load();
  if (abi == 1 && (m_ > 2147483647L || n_ > 2147483647L || k_ > 2147483647L || *lda > 2147483647L
                   || *ldb > 2147483647L || rsC > 2147483647L))
    return 0;
  return abi > 0 ? abi : 0;
}

/* polysched_?gemm_cblas_call(T, ...): one cblas_?gemm call (row-major, beta = 1) through
 * the loaded function pointer FN with the ABI's integer type */
#define POLYSCHED_CBLAS_CALL(T, FN, abi, ta, tb, m, n, k, alpha, A, lda, B, ldb, C, ldc)                  \
  do {                                                                                                   \
    if ((abi) == 1)                                                                                      \
      ((void (*)(int, int, int, int, int, int, T, const T *, int, const T *, int, T, T *, int))(FN))(   \
          101, ta, tb, (int)(m), (int)(n), (int)(k), alpha, A, (int)(lda), B, (int)(ldb), (T)1, C,      \
          (int)(ldc));                                                                                   \
    else                                                                                                 \
      ((void (*)(int, int, int, int64_t, int64_t, int64_t, T, const T *, int64_t, const T *, int64_t, T, \
                 T *, int64_t))(FN))(101, ta, tb, m, n, k, alpha, A, lda, B, ldb, (T)1, C, ldc);         \
  } while (0)

static inline void polysched_dgemm_cblas_or_packed(long m_, long n_, long k_, double alpha, int scaled,
    const double *A, long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  long lda = 0, ldb = 0;
  int ta = 0, tb = 0, abi;
  if (m_ <= 0 || n_ <= 0 || k_ <= 0)
    return;
  abi = polysched_cblas_usable(m_, n_, k_, A, rsA, csA, B, rsB, csB, C, rsC, sizeof *C, &ta, &tb, &lda, &ldb);
  if (abi && polysched_cblas_dgemm_fn) {
    POLYSCHED_PATH("cblas");
    POLYSCHED_CBLAS_CALL(double, polysched_cblas_dgemm_fn, abi, ta, tb, m_, n_, k_, alpha, A, lda, B, ldb,
                         C, rsC);
    return;
  }
  polysched_pk_dispatch(m_, n_, k_, alpha, scaled, POLYSCHED_PK_FUSED, A, rsA, csA, B, rsB, csB, C, rsC);
}

static inline void polysched_dgemm_cblas(long m_, long n_, long k_, const double *A, long rsA, long csA,
    const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_dgemm_cblas_or_packed(m_, n_, k_, 1.0, 0, A, rsA, csA, B, rsB, csB, C, rsC);
}

static inline void polysched_dgemm_cblas_scaled(long m_, long n_, long k_, double alpha, const double *A,
    long rsA, long csA, const double *B, long rsB, long csB, double *C, long rsC)
{
  polysched_dgemm_cblas_or_packed(m_, n_, k_, alpha, 1, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* f32: the fallback is the description's loop nest (k, i, j), exact */
POLYSCHED_EXACT_FP
static inline void polysched_sgemm_cblas_or_loops(long m_, long n_, long k_, float alpha, int scaled,
    const float *A, long rsA, long csA, const float *B, long rsB, long csB, float *C, long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  long lda = 0, ldb = 0, i, j, k;
  int ta = 0, tb = 0, abi;
  if (m_ <= 0 || n_ <= 0 || k_ <= 0)
    return;
  abi = polysched_cblas_usable(m_, n_, k_, A, rsA, csA, B, rsB, csB, C, rsC, sizeof *C, &ta, &tb, &lda, &ldb);
  if (abi && polysched_cblas_sgemm_fn) {
    POLYSCHED_PATH("cblas");
    POLYSCHED_CBLAS_CALL(float, polysched_cblas_sgemm_fn, abi, ta, tb, m_, n_, k_, alpha, A, lda, B, ldb,
                         C, rsC);
    return;
  }
  POLYSCHED_PATH("portable");
  for (k = 0; k < k_; k++)
    for (i = 0; i < m_; i++)
      for (j = 0; j < n_; j++)
        C[i * rsC + j] = scaled ? C[i * rsC + j] + alpha * A[i * rsA + k * csA] * B[k * rsB + j * csB]
                                : C[i * rsC + j] + A[i * rsA + k * csA] * B[k * rsB + j * csB];
}

static inline void polysched_sgemm_cblas(long m_, long n_, long k_, const float *A, long rsA, long csA,
    const float *B, long rsB, long csB, float *C, long rsC)
{
  polysched_sgemm_cblas_or_loops(m_, n_, k_, 1.0f, 0, A, rsA, csA, B, rsB, csB, C, rsC);
}

static inline void polysched_sgemm_cblas_scaled(long m_, long n_, long k_, float alpha, const float *A,
    long rsA, long csA, const float *B, long rsB, long csB, float *C, long rsC)
{
  polysched_sgemm_cblas_or_loops(m_, n_, k_, alpha, 1, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* ---------------------------------------------------------------- packed int8 gemm - */

/* C[i][j] += A[i][k] * B[k][j]: int8 (or uint8) A x int8 B -> int32 C, a whole M x N x K
 * block, BLIS-style like polysched_dgemm_packed: B packed kc x nc, A mc x kc, per thread.
 * Integer sums are exact in any order (the C semantics may not overflow), so the
 * kernels sum 4 (VNNI) or 2 (AVX2) consecutive k at once.
 *
 * Paths:
 *   avx512vnni  12 x 32 block, vpdpbusd on zmm (64 multiply-adds an instruction);
 *   avxvnni     6 x 16 block, vpdpbusd on ymm (AVX-VNNI, or AVX512-VNNI+VL);
 *   avx2        6 x 16 block, operands widened to int16 when packed, vpmaddwd + vpaddd
 *               (pmaddubsw would saturate: 2 x 255 x 127 > 32767);
 *   portable    the loop nest.
 * vpdpbusd multiplies unsigned by signed bytes: a signed A is packed as a + 128
 * (a ^ 0x80) and 128 x sum_k B[k][j] of the block (computed while packing B) is
 * subtracted at the end: exact. */
#define POLYSCHED_PQ_KC 512
#define POLYSCHED_PQ_MC 96
#define POLYSCHED_PQ_NC 2048

/* bytes, 64-byte aligned, per thread (a second buffer, apart from the f64 kernels') */
static inline unsigned char *polysched_pq_scratch(size_t bytes)
{
  static POLYSCHED_TLS void *raw;
  static POLYSCHED_TLS unsigned char *buffer;
  static POLYSCHED_TLS size_t size;
  if (bytes > size) {
    free(raw);
    raw = malloc(bytes + 64);
    if (raw == NULL) {
      size = 0;
      return NULL;
    }
    buffer = (unsigned char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    size = bytes;
  }
  return buffer;
}

static inline int32_t polysched_pq_a(const void *A, int a_signed, long at)
{
  return a_signed ? (int32_t)((const int8_t *)A)[at] : (int32_t)((const uint8_t *)A)[at];
}

/* VNNI layout. A: MR-row panels; per group of 4 k, MR 32-bit words (bytes a[i][k..k+3],
 * signed ones biased by 128; zero past K). B: NR-column panels; per group of 4 k, NR
 * 4-byte columns (b[k..k+3][j], zero past K or past the last column); corr[j] = 128 x
 * the column's sum when A is signed. kg = groups of 4. */
static inline void polysched_pq_pack_a4(long rows, long kc, int a_signed, const void *A, long rs, long cs,
                                        uint8_t *out, int mr_)
{
  long p, i, k, g, kg = (kc + 3) / 4, full = kc / 4;
  uint32_t bias = a_signed ? 0x80808080u : 0;
  for (p = 0; p < rows; p += mr_, out += (long)mr_ * kg * 4) {
    long mr = rows - p < mr_ ? rows - p : mr_;
    for (i = 0; i < mr; i++) {
      const uint8_t *a = (const uint8_t *)A + (p + i) * rs * 1;    /* int8 and uint8: 1 byte */
      g = 0;
      if (cs == 1)          /* row-major: 4 consecutive bytes are one word */
        for (; g < full; g++) {
          uint32_t word;
          memcpy(&word, a + 4 * g, 4);
          word ^= bias;
          memcpy(out + (g * mr_ + i) * 4, &word, 4);
        }
      for (k = 4 * g; k < kg * 4; k++)
        out[(k / 4) * mr_ * 4 + i * 4 + k % 4] = k < kc ? (uint8_t)(a[k * cs] ^ (uint8_t)bias) : 0;
    }
    for (i = mr; i < mr_; i++)
      for (k = 0; k < kg * 4; k++)
        out[(k / 4) * mr_ * 4 + i * 4 + k % 4] = 0;
  }
}

static inline void polysched_pq_pack_b4(long kc, long cols, int a_signed, const int8_t *B, long rs, long cs,
                                        int8_t *out, int32_t *corr, int nr_)
{
  long q, j, k, g, kg = (kc + 3) / 4, full = kc / 4;
  for (q = 0; q < cols; q += nr_, out += (long)nr_ * kg * 4, corr += nr_) {
    long nr = cols - q < nr_ ? cols - q : nr_;
    int32_t sum[32] = {0};
    g = 0;
    if (cs == 1 && nr == nr_ && nr_ <= 32)      /* interleave 4 rows, column by column */
      for (; g < full; g++) {
        const int8_t *r0 = B + 4 * g * rs + q, *r1 = r0 + rs, *r2 = r1 + rs, *r3 = r2 + rs;
        int8_t *o = out + g * nr_ * 4;
        for (j = 0; j < nr_; j++) {
          o[j * 4] = r0[j];
          o[j * 4 + 1] = r1[j];
          o[j * 4 + 2] = r2[j];
          o[j * 4 + 3] = r3[j];
          sum[j] += (int32_t)r0[j] + r1[j] + r2[j] + r3[j];
        }
      }
    for (k = 4 * g; k < kg * 4; k++)
      for (j = 0; j < nr_; j++) {
        int8_t b = (k < kc && j < nr) ? B[k * rs + (q + j) * cs] : 0;
        out[(k / 4) * nr_ * 4 + j * 4 + k % 4] = b;
        sum[j] += b;
      }
    for (j = 0; j < nr_; j++)
      corr[j] = a_signed ? 128 * sum[j] : 0;
  }
}

/* AVX2 layout: the same with pairs of k widened to int16 (a 32-bit word = 2 int16) */
static inline void polysched_pq_pack_a2(long rows, long kc, int a_signed, const void *A, long rs, long cs,
                                        int16_t *out, int mr_)
{
  long p, i, k, kp = (kc + 1) / 2;
  for (p = 0; p < rows; p += mr_, out += (long)mr_ * kp * 2) {
    long mr = rows - p < mr_ ? rows - p : mr_;
    for (i = 0; i < mr_; i++) {
      k = 0;
      if (i < mr && cs == 1 && a_signed) {
        const int8_t *a = (const int8_t *)A + (p + i) * rs;
        for (; k + 1 < kc; k += 2) {
          out[k * mr_ + i * 2] = a[k];
          out[k * mr_ + i * 2 + 1] = a[k + 1];
        }
      } else if (i < mr && cs == 1) {
        const uint8_t *a = (const uint8_t *)A + (p + i) * rs;
        for (; k + 1 < kc; k += 2) {
          out[k * mr_ + i * 2] = a[k];
          out[k * mr_ + i * 2 + 1] = a[k + 1];
        }
      }
      for (; k < kp * 2; k++)
        out[(k / 2) * mr_ * 2 + i * 2 + k % 2] =
            (i < mr && k < kc) ? (int16_t)polysched_pq_a(A, a_signed, (p + i) * rs + k * cs) : 0;
    }
  }
}

static inline void polysched_pq_pack_b2(long kc, long cols, const int8_t *B, long rs, long cs,
                                        int16_t *out, int nr_)
{
  long q, j, k, kp = (kc + 1) / 2;
  for (q = 0; q < cols; q += nr_, out += (long)nr_ * kp * 2) {
    long nr = cols - q < nr_ ? cols - q : nr_;
    k = 0;
    if (cs == 1 && nr == nr_)
      for (; k + 1 < kc; k += 2) {
        const int8_t *r0 = B + k * rs + q, *r1 = r0 + rs;
        int16_t *o = out + k * nr_;
        for (j = 0; j < nr_; j++) {
          o[j * 2] = r0[j];
          o[j * 2 + 1] = r1[j];
        }
      }
    for (; k < kp * 2; k++)
      for (j = 0; j < nr_; j++)
        out[(k / 2) * nr_ * 2 + j * 2 + k % 2] = (k < kc && j < nr) ? B[k * rs + (q + j) * cs] : 0;
  }
}

/* C (MR x NR, row stride rsC) += Ap x Bp over `steps` groups, minus corr (may be NULL) */
typedef void (*polysched_pq_kernel)(long steps, const void *Ap, const void *Bp, const int32_t *corr,
                                    int32_t *C, long rsC);

#if POLYSCHED_X86
/* avx512vnni 12 x 32 */
#define POLYSCHED_PQ_Z_LOAD(r)                                                                \
  __m512i c##r##0 = _mm512_loadu_si512((const void *)(C + r * rsC)),                          \
          c##r##1 = _mm512_loadu_si512((const void *)(C + r * rsC + 16));
#define POLYSCHED_PQ_Z_ROW(r)                                                                 \
  { __m512i a = _mm512_set1_epi32(Aw[g * 12 + r]);                                            \
    c##r##0 = _mm512_dpbusd_epi32(c##r##0, a, b0); c##r##1 = _mm512_dpbusd_epi32(c##r##1, a, b1); }
#define POLYSCHED_PQ_Z_STORE(r)                                                               \
  _mm512_storeu_si512((void *)(C + r * rsC), _mm512_sub_epi32(c##r##0, k0));                  \
  _mm512_storeu_si512((void *)(C + r * rsC + 16), _mm512_sub_epi32(c##r##1, k1));
POLYSCHED_TARGET("avx512f,avx512bw,avx512vnni")
static void polysched_pq_kernel_avx512vnni(long steps, const void *Ap, const void *Bp, const int32_t *corr,
                                           int32_t *C, long rsC)
{
  const int32_t *Aw = (const int32_t *)Ap;
  const int8_t *Bb = (const int8_t *)Bp;
  __m512i k0 = corr ? _mm512_loadu_si512((const void *)corr) : _mm512_setzero_si512();
  __m512i k1 = corr ? _mm512_loadu_si512((const void *)(corr + 16)) : _mm512_setzero_si512();
  long g;
  POLYSCHED_PK_Z_ALL(POLYSCHED_PQ_Z_LOAD)
  for (g = 0; g < steps; g++) {
    __m512i b0 = _mm512_load_si512((const void *)(Bb + g * 128));
    __m512i b1 = _mm512_load_si512((const void *)(Bb + g * 128 + 64));
    POLYSCHED_PK_Z_ALL(POLYSCHED_PQ_Z_ROW)
  }
  POLYSCHED_PK_Z_ALL(POLYSCHED_PQ_Z_STORE)
}

/* 6 x 16 on ymm: VNNI (two encodings) and AVX2 vpmaddwd */
#define POLYSCHED_PQ_Y_LOAD(r)                                                                \
  __m256i c##r##0 = _mm256_loadu_si256((const __m256i *)(C + r * rsC)),                       \
          c##r##1 = _mm256_loadu_si256((const __m256i *)(C + r * rsC + 8));
#define POLYSCHED_PQ_Y_ROW(r)                                                                 \
  { __m256i a = _mm256_set1_epi32(Aw[g * 6 + r]);                                             \
    c##r##0 = POLYSCHED_PQ_Y_OP(c##r##0, a, b0); c##r##1 = POLYSCHED_PQ_Y_OP(c##r##1, a, b1); }
#define POLYSCHED_PQ_Y_STORE(r)                                                               \
  _mm256_storeu_si256((__m256i *)(C + r * rsC), _mm256_sub_epi32(c##r##0, k0));               \
  _mm256_storeu_si256((__m256i *)(C + r * rsC + 8), _mm256_sub_epi32(c##r##1, k1));
#define POLYSCHED_PQ_Y_KERNEL(NAME, TARGET, STEP_BYTES)                                       \
  POLYSCHED_TARGET(TARGET)                                                                    \
  static void NAME(long steps, const void *Ap, const void *Bp, const int32_t *corr,          \
                   int32_t *C, long rsC)                                                      \
  {                                                                                           \
    const int32_t *Aw = (const int32_t *)Ap;                                                  \
    const char *Bb = (const char *)Bp;                                                        \
    __m256i k0 = corr ? _mm256_loadu_si256((const __m256i *)corr) : _mm256_setzero_si256();   \
    __m256i k1 = corr ? _mm256_loadu_si256((const __m256i *)(corr + 8)) : _mm256_setzero_si256(); \
    long g;                                                                                   \
    POLYSCHED_PK_Y_ALL(POLYSCHED_PQ_Y_LOAD)                                                   \
    for (g = 0; g < steps; g++) {                                                             \
      __m256i b0 = _mm256_load_si256((const __m256i *)(Bb + g * STEP_BYTES));                 \
      __m256i b1 = _mm256_load_si256((const __m256i *)(Bb + g * STEP_BYTES + 32));            \
      POLYSCHED_PK_Y_ALL(POLYSCHED_PQ_Y_ROW)                                                  \
    }                                                                                         \
    POLYSCHED_PK_Y_ALL(POLYSCHED_PQ_Y_STORE)                                                  \
  }
#define POLYSCHED_PQ_Y_OP(c, a, b) _mm256_dpbusd_epi32(c, a, b)
POLYSCHED_PQ_Y_KERNEL(polysched_pq_kernel_vnni256, "avx2,avx512f,avx512vl,avx512vnni", 64)
#undef POLYSCHED_PQ_Y_OP
#define POLYSCHED_PQ_Y_OP(c, a, b) _mm256_dpbusd_avx_epi32(c, a, b)
POLYSCHED_PQ_Y_KERNEL(polysched_pq_kernel_avxvnni, "avx2,avxvnni", 64)
#undef POLYSCHED_PQ_Y_OP
#define POLYSCHED_PQ_Y_OP(c, a, b) _mm256_add_epi32(c, _mm256_madd_epi16(a, b))
POLYSCHED_PQ_Y_KERNEL(polysched_pq_kernel_avx2, "avx2", 64)
#undef POLYSCHED_PQ_Y_OP
#endif

/* the blocked driver (0: no buffer; the caller runs the loops). wide: the AVX2 int16
 * layout (k in pairs) instead of the VNNI one (k in fours). */
static inline int polysched_pq_i8gemm(long m_, long n_, long k_, int a_signed, const void *A, long rsA,
    long csA, const int8_t *B, long rsB, long csB, int32_t *C, long rsC, int mr_, int nr_, int wide,
    polysched_pq_kernel kernel)
{
  long jc, pc, ic, jr, ir, i, j;
  int step = wide ? 2 : 4;           /* k per group */
  int esize = wide ? 2 : 1;          /* bytes per packed element */
  long kcmax = k_ < POLYSCHED_PQ_KC ? k_ : POLYSCHED_PQ_KC;
  long kpad = (kcmax + step - 1) / step * step;
  long ncmax = ((n_ < POLYSCHED_PQ_NC ? n_ : POLYSCHED_PQ_NC) + nr_ - 1) / nr_ * nr_;
  long mcmax = ((m_ < POLYSCHED_PQ_MC ? m_ : POLYSCHED_PQ_MC) + mr_ - 1) / mr_ * mr_;
  size_t bbytes = ((size_t)kpad * ncmax * esize + 63) / 64 * 64;
  size_t abytes = ((size_t)kpad * mcmax * esize + 63) / 64 * 64;
  int32_t tile[12 * 32];
  unsigned char *bp, *ap;
  int32_t *corr;
  if (m_ <= 0 || n_ <= 0 || k_ <= 0)
    return 1;
  bp = polysched_pq_scratch(bbytes + abytes + (size_t)ncmax * sizeof(int32_t));
  if (bp == NULL)
    return 0;
  ap = bp + bbytes;
  corr = (int32_t *)(ap + abytes);
  for (jc = 0; jc < n_; jc += POLYSCHED_PQ_NC) {
    long nc = n_ - jc < POLYSCHED_PQ_NC ? n_ - jc : POLYSCHED_PQ_NC;
    for (pc = 0; pc < k_; pc += POLYSCHED_PQ_KC) {
      long kc = k_ - pc < POLYSCHED_PQ_KC ? k_ - pc : POLYSCHED_PQ_KC;
      long steps = (kc + step - 1) / step;
      if (wide)
        polysched_pq_pack_b2(kc, nc, B + pc * rsB + jc * csB, rsB, csB, (int16_t *)bp, nr_);
      else
        polysched_pq_pack_b4(kc, nc, a_signed, B + pc * rsB + jc * csB, rsB, csB, (int8_t *)bp, corr, nr_);
      for (ic = 0; ic < m_; ic += POLYSCHED_PQ_MC) {
        long mc = m_ - ic < POLYSCHED_PQ_MC ? m_ - ic : POLYSCHED_PQ_MC;
        const void *a0 = a_signed ? (const void *)((const int8_t *)A + ic * rsA + pc * csA)
                                  : (const void *)((const uint8_t *)A + ic * rsA + pc * csA);
        if (wide)
          polysched_pq_pack_a2(mc, kc, a_signed, a0, rsA, csA, (int16_t *)ap, mr_);
        else
          polysched_pq_pack_a4(mc, kc, a_signed, a0, rsA, csA, (uint8_t *)ap, mr_);
        for (jr = 0; jr < nc; jr += nr_) {
          long nr = nc - jr < nr_ ? nc - jr : nr_;
          const int32_t *cj = (!wide && a_signed) ? corr + jr : NULL;
          for (ir = 0; ir < mc; ir += mr_) {
            long mr = mc - ir < mr_ ? mc - ir : mr_;
            int32_t *c = C + (ic + ir) * rsC + jc + jr;
            const unsigned char *a = ap + (size_t)ir * steps * step * esize;
            const unsigned char *b = bp + (size_t)jr * steps * step * esize;
            if (mr == mr_ && nr == nr_) {
              kernel(steps, a, b, cj, c, rsC);
              continue;
            }
            for (i = 0; i < mr; i++)
              for (j = 0; j < nr; j++)
                tile[i * nr_ + j] = c[i * rsC + j];
            kernel(steps, a, b, cj, tile, nr_);
            for (i = 0; i < mr; i++)
              for (j = 0; j < nr; j++)
                c[i * rsC + j] = tile[i * nr_ + j];
          }
        }
      }
    }
  }
  return 1;
}

static inline void polysched_pq_loops(long m_, long n_, long k_, int a_signed, const void *A, long rsA,
    long csA, const int8_t *B, long rsB, long csB, int32_t *C, long rsC)
{
  long i, j, k;
  for (i = 0; i < m_; i++)
    for (k = 0; k < k_; k++) {
      int32_t a = polysched_pq_a(A, a_signed, i * rsA + k * csA);
      for (j = 0; j < n_; j++)
        C[i * rsC + j] += a * B[k * rsB + j * csB];
    }
}

static inline void polysched_pq_dispatch(long m_, long n_, long k_, int a_signed, const void *A, long rsA,
    long csA, const int8_t *B, long rsB, long csB, int32_t *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512vnni") && POLYSCHED_HAS_AVX512("avx512bw")) {
    POLYSCHED_PATH("avx512vnni");
    if (polysched_pq_i8gemm(m_, n_, k_, a_signed, A, rsA, csA, B, rsB, csB, C, rsC, 12, 32, 0,
                            polysched_pq_kernel_avx512vnni))
      return;
  } else if (POLYSCHED_HAS_AVXVNNI()) {
    POLYSCHED_PATH("avxvnni");
    if (polysched_pq_i8gemm(m_, n_, k_, a_signed, A, rsA, csA, B, rsB, csB, C, rsC, 6, 16, 0,
                            polysched_pq_kernel_avxvnni))
      return;
  } else if (POLYSCHED_HAS_AVX512("avx512vnni") && POLYSCHED_HAS_AVX512("avx512vl")) {
    POLYSCHED_PATH("avxvnni");
    if (polysched_pq_i8gemm(m_, n_, k_, a_signed, A, rsA, csA, B, rsB, csB, C, rsC, 6, 16, 0,
                            polysched_pq_kernel_vnni256))
      return;
  } else if (POLYSCHED_HAS("avx2")) {
    POLYSCHED_PATH("avx2");
    if (polysched_pq_i8gemm(m_, n_, k_, a_signed, A, rsA, csA, B, rsB, csB, C, rsC, 6, 16, 1,
                            polysched_pq_kernel_avx2))
      return;
  } else
#endif
  {
    POLYSCHED_PATH("portable");
  }
  polysched_pq_loops(m_, n_, k_, a_signed, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* C[i][j] += A[i][k] * B[k][j]: int8 x int8 -> int32, i < M, j < N (stride 1), k < K */
static inline void polysched_i8gemm_packed_s8s8(long m_, long n_, long k_, const int8_t *A, long rsA,
    long csA, const int8_t *B, long rsB, long csB, int32_t *C, long rsC)
{
  polysched_pq_dispatch(m_, n_, k_, 1, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* C[i][j] += A[i][k] * B[k][j]: uint8 x int8 -> int32 */
static inline void polysched_i8gemm_packed_u8s8(long m_, long n_, long k_, const uint8_t *A, long rsA,
    long csA, const int8_t *B, long rsB, long csB, int32_t *C, long rsC)
{
  polysched_pq_dispatch(m_, n_, k_, 0, A, rsA, csA, B, rsB, csB, C, rsC);
}

/* ---------------------------------------------------------------- packed bf16 dot -- */

/* C[i][j] += A[i][k] * B[k][j] on float arrays, computed with A and B rounded to bfloat16
 * (round to nearest even) and AVX512-BF16 vdpbf16ps: per C element and pair of k,
 * c = (c + a[k+1] * b[k+1]) + a[k] * b[k], each product exact in float, each sum rounded
 * (the instruction's definition; it also flushes denormals). NOT the float semantics:
 * the inputs lose 16 bits of mantissa and k goes in pairs, so this intrinsic is applied
 * only when named (numerics: bf16). Packed like polysched_dgemm_packed: per thread, B
 * kc x nc and A mc x kc as pairs of bf16 (one 32-bit word per row or column and pair).
 * Paths: avx512bf16 12 x 32 (24 zmm float accumulators); portable 4 x 8, the same
 * arithmetic in C (bit-identical to the vector path when nothing is denormal). */
#define POLYSCHED_PB_KC 512
#define POLYSCHED_PB_MC 96
#define POLYSCHED_PB_NC 2048

static inline uint16_t polysched_to_bf16(float x)
{
  uint32_t u;
  memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)          /* NaN: keep it a (quiet) NaN */
    return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);                /* round to nearest even */
  return (uint16_t)(u >> 16);
}

static inline float polysched_from_bf16(uint16_t h)
{
  uint32_t u = (uint32_t)h << 16;
  float x;
  memcpy(&x, &u, 4);
  return x;
}

static inline uint32_t *polysched_pb_scratch(size_t words)
{
  static POLYSCHED_TLS void *raw;
  static POLYSCHED_TLS uint32_t *buffer;
  static POLYSCHED_TLS size_t size;
  if (words > size) {
    free(raw);
    raw = malloc(words * 4 + 64);
    if (raw == NULL) {
      size = 0;
      return NULL;
    }
    buffer = (uint32_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    size = words;
  }
  return buffer;
}

/* word (lo: x[k], hi: x[k + 1]) in bf16, zero past kc */
static inline uint32_t polysched_pb_pair(const float *x, long stride, long k, long kc)
{
  uint32_t lo = k < kc ? polysched_to_bf16(x[k * stride]) : 0;
  uint32_t hi = k + 1 < kc ? polysched_to_bf16(x[(k + 1) * stride]) : 0;
  return lo | hi << 16;
}

static inline void polysched_pb_pack_a(long rows, long kc, const float *A, long rs, long cs, uint32_t *out,
                                       int mr_)
{
  long p, i, g, kp = (kc + 1) / 2;
  for (p = 0; p < rows; p += mr_, out += (long)mr_ * kp)
    for (i = 0; i < mr_; i++)
      for (g = 0; g < kp; g++)
        out[g * mr_ + i] = p + i < rows ? polysched_pb_pair(A + (p + i) * rs, cs, 2 * g, kc) : 0;
}

static inline void polysched_pb_pack_b(long kc, long cols, const float *B, long rs, long cs, uint32_t *out,
                                       int nr_)
{
  long q, j, g, kp = (kc + 1) / 2;
  for (q = 0; q < cols; q += nr_, out += (long)nr_ * kp)
    for (g = 0; g < kp; g++)
      for (j = 0; j < nr_; j++)
        out[g * nr_ + j] = q + j < cols ? polysched_pb_pair(B + (q + j) * cs, rs, 2 * g, kc) : 0;
}

typedef void (*polysched_pb_kernel)(long pairs, const uint32_t *Ap, const uint32_t *Bp, float *C, long rsC);

POLYSCHED_EXACT_FP
static void polysched_pb_kernel_portable(long pairs, const uint32_t *Ap, const uint32_t *Bp, float *C,
                                         long rsC)
{
  POLYSCHED_EXACT_FP_BODY
  float c[4][8];
  long g;
  int i, j;
  for (i = 0; i < 4; i++)
    for (j = 0; j < 8; j++)
      c[i][j] = C[i * rsC + j];
  for (g = 0; g < pairs; g++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 8; j++) {
        uint32_t a = Ap[g * 4 + i], b = Bp[g * 8 + j];
        c[i][j] = c[i][j] + polysched_from_bf16((uint16_t)(a >> 16)) * polysched_from_bf16((uint16_t)(b >> 16));
        c[i][j] = c[i][j] + polysched_from_bf16((uint16_t)a) * polysched_from_bf16((uint16_t)b);
      }
  for (i = 0; i < 4; i++)
    for (j = 0; j < 8; j++)
      C[i * rsC + j] = c[i][j];
}

#if POLYSCHED_X86
#define POLYSCHED_PB_Z_LOAD(r)                                                                \
  __m512 c##r##0 = _mm512_loadu_ps(C + r * rsC), c##r##1 = _mm512_loadu_ps(C + r * rsC + 16);
#define POLYSCHED_PB_Z_ROW(r)                                                                 \
  { __m512bh a = (__m512bh)_mm512_set1_epi32((int)Ap[g * 12 + r]);                            \
    c##r##0 = _mm512_dpbf16_ps(c##r##0, a, b0); c##r##1 = _mm512_dpbf16_ps(c##r##1, a, b1); }
#define POLYSCHED_PB_Z_STORE(r)                                                               \
  _mm512_storeu_ps(C + r * rsC, c##r##0); _mm512_storeu_ps(C + r * rsC + 16, c##r##1);
POLYSCHED_TARGET("avx512f,avx512bf16")
static void polysched_pb_kernel_avx512bf16(long pairs, const uint32_t *Ap, const uint32_t *Bp, float *C,
                                           long rsC)
{
  long g;
  POLYSCHED_PK_Z_ALL(POLYSCHED_PB_Z_LOAD)
  for (g = 0; g < pairs; g++) {
    __m512bh b0 = (__m512bh)_mm512_load_si512((const void *)(Bp + g * 32));
    __m512bh b1 = (__m512bh)_mm512_load_si512((const void *)(Bp + g * 32 + 16));
    POLYSCHED_PK_Z_ALL(POLYSCHED_PB_Z_ROW)
  }
  POLYSCHED_PK_Z_ALL(POLYSCHED_PB_Z_STORE)
}
#endif

static inline int polysched_pb_sgemm(long m_, long n_, long k_, const float *A, long rsA, long csA,
    const float *B, long rsB, long csB, float *C, long rsC, int mr_, int nr_, polysched_pb_kernel kernel)
{
  long jc, pc, ic, jr, ir, i, j;
  long kcmax = k_ < POLYSCHED_PB_KC ? k_ : POLYSCHED_PB_KC, kpmax = (kcmax + 1) / 2;
  long ncmax = ((n_ < POLYSCHED_PB_NC ? n_ : POLYSCHED_PB_NC) + nr_ - 1) / nr_ * nr_;
  long mcmax = ((m_ < POLYSCHED_PB_MC ? m_ : POLYSCHED_PB_MC) + mr_ - 1) / mr_ * mr_;
  float tile[12 * 32];
  uint32_t *bp, *ap;
  if (m_ <= 0 || n_ <= 0 || k_ <= 0)
    return 1;
  bp = polysched_pb_scratch((size_t)kpmax * (size_t)(ncmax + mcmax));
  if (bp == NULL)
    return 0;
  ap = bp + kpmax * ncmax;
  for (jc = 0; jc < n_; jc += POLYSCHED_PB_NC) {
    long nc = n_ - jc < POLYSCHED_PB_NC ? n_ - jc : POLYSCHED_PB_NC;
    for (pc = 0; pc < k_; pc += POLYSCHED_PB_KC) {
      long kc = k_ - pc < POLYSCHED_PB_KC ? k_ - pc : POLYSCHED_PB_KC, kp = (kc + 1) / 2;
      polysched_pb_pack_b(kc, nc, B + pc * rsB + jc * csB, rsB, csB, bp, nr_);
      for (ic = 0; ic < m_; ic += POLYSCHED_PB_MC) {
        long mc = m_ - ic < POLYSCHED_PB_MC ? m_ - ic : POLYSCHED_PB_MC;
        polysched_pb_pack_a(mc, kc, A + ic * rsA + pc * csA, rsA, csA, ap, mr_);
        for (jr = 0; jr < nc; jr += nr_) {
          long nr = nc - jr < nr_ ? nc - jr : nr_;
          for (ir = 0; ir < mc; ir += mr_) {
            long mr = mc - ir < mr_ ? mc - ir : mr_;
            float *c = C + (ic + ir) * rsC + jc + jr;
            if (mr == mr_ && nr == nr_) {
              kernel(kp, ap + ir * kp, bp + jr * kp, c, rsC);
              continue;
            }
            for (i = 0; i < mr; i++)
              for (j = 0; j < nr; j++)
                tile[i * nr_ + j] = c[i * rsC + j];
            kernel(kp, ap + ir * kp, bp + jr * kp, tile, nr_);
            for (i = 0; i < mr; i++)
              for (j = 0; j < nr; j++)
                c[i * rsC + j] = tile[i * nr_ + j];
          }
        }
      }
    }
  }
  return 1;
}

/* C[i][j] += A[i][k] * B[k][j] in float via bf16 dot products (see above): opt-in only */
static inline void polysched_sgemm_packed_bf16(long m_, long n_, long k_, const float *A, long rsA,
    long csA, const float *B, long rsB, long csB, float *C, long rsC)
{
#if POLYSCHED_X86
  if (POLYSCHED_HAS_AVX512("avx512bf16")) {
    POLYSCHED_PATH("avx512bf16");
    if (polysched_pb_sgemm(m_, n_, k_, A, rsA, csA, B, rsB, csB, C, rsC, 12, 32,
                           polysched_pb_kernel_avx512bf16))
      return;
  } else
#endif
  {
    POLYSCHED_PATH("portable");
    if (polysched_pb_sgemm(m_, n_, k_, A, rsA, csA, B, rsB, csB, C, rsC, 4, 8, polysched_pb_kernel_portable))
      return;
  }
  {   /* no buffer: the same arithmetic, unblocked */
    long i, j, k;
    for (i = 0; i < m_; i++)
      for (j = 0; j < n_; j++) {
        float acc = C[i * rsC + j];
        for (k = 0; k < k_; k += 2) {
          uint32_t a = polysched_pb_pair(A + i * rsA, csA, k, k_), b = polysched_pb_pair(B + j * csB, rsB, k, k_);
          acc = acc + polysched_from_bf16((uint16_t)(a >> 16)) * polysched_from_bf16((uint16_t)(b >> 16));
          acc = acc + polysched_from_bf16((uint16_t)a) * polysched_from_bf16((uint16_t)b);
        }
        C[i * rsC + j] = acc;
      }
  }
}

/* ---------------------------------------------------------------- emulated unit -- */

/* An accelerator-style matrix unit, emulated: one 16x16x16 f64 tile product
 * C[i][j] += A[i][k] * B[k][j], every operand with general (row, column) strides.
 * Portable C only; the loop order is the description's (i, j, k). */
POLYSCHED_EXACT_FP
static inline void polysched_mtile16_f64(const double *A, long rsA, long csA, const double *B,
    long rsB, long csB, double *C, long rsC, long csC)
{
  POLYSCHED_EXACT_FP_BODY
  int i, j, k;
  POLYSCHED_PATH("portable");
  for (i = 0; i < 16; i++)
    for (j = 0; j < 16; j++)
      for (k = 0; k < 16; k++)
        C[i * rsC + j * csC] = C[i * rsC + j * csC] + A[i * rsA + k * csA] * B[k * rsB + j * csB];
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* POLYSCHED_INTRINSICS_H */
