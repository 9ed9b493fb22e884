#ifndef JETSON_BYTES_SIMD_H
#define JETSON_BYTES_SIMD_H

/* The 16-byte vectors of the escaping scans (escape.h, escape_loop.h,
 * json/strings.h), chosen at compile time: SSE2 on x86-64 and NEON on
 * arm64, which every CPU of those architectures has; none elsewhere, or
 * when the extension is built with JETSON_DISABLE_SIMD=1 (extconf.rb then
 * defines JT_DISABLE_SIMD), and the 8-byte word loops (SWAR) do it all.
 *
 * The choice is made here once, from what the compiler defines for the
 * whole file: escape.c's AVX2 block turns __SSE2__ back on under its
 * target pragma, so no code checks __SSE2__ itself, only JT_SIMD_*.
 *
 * A vector of hits has a lane per byte; a byte needs attention when its
 * lane's high bit is set (the comparisons give 0x00 or 0xFF). jt_vec_mask
 * gives the hits as a scalar mask with JT_VEC_MASK_BITS bits per byte, so
 * that the first hit is at ctz(mask) / JT_VEC_MASK_BITS. */

#include "bytes/base.h"

#if !defined(JT_DISABLE_SIMD) && defined(__SSE2__)
#define JT_SIMD_SSE2 1
#define JT_SIMD 1
#elif !defined(JT_DISABLE_SIMD) && defined(__aarch64__) && defined(__ARM_NEON)
#define JT_SIMD_NEON 1
#define JT_SIMD 1
#else
#define JT_SIMD 0
#endif

#if defined(JT_SIMD_SSE2)
#include <emmintrin.h>

typedef __m128i jt_vec;
#define JT_VEC_MASK_BITS 1

JT_INLINE jt_vec jt_vec_load(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
JT_INLINE void jt_vec_store(void *p, jt_vec v) { _mm_storeu_si128((__m128i *)p, v); }
JT_INLINE jt_vec jt_vec_or(jt_vec a, jt_vec b) { return _mm_or_si128(a, b); }
JT_INLINE jt_vec jt_vec_eq(jt_vec v, unsigned char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8((char)c)); }
/* Lanes <= 0x1F, unsigned: min(v, 0x1F) == v (SSE2 has no unsigned compare). */
JT_INLINE jt_vec jt_vec_control(jt_vec v) { return _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v); }
/* Lanes >= 0x80: the high bit is all movemask reads. */
JT_INLINE jt_vec jt_vec_non_ascii(jt_vec v) { return v; }
JT_INLINE uint64_t jt_vec_mask(jt_vec hits) { return (uint64_t)(unsigned)_mm_movemask_epi8(hits); }
JT_INLINE jt_vec jt_vec_from_words(uint64_t lo, uint64_t hi)
{
    return _mm_unpacklo_epi64(_mm_cvtsi64_si128((long long)lo), _mm_cvtsi64_si128((long long)hi));
}

#elif defined(JT_SIMD_NEON)
#include <arm_neon.h>

typedef uint8x16_t jt_vec;
#define JT_VEC_MASK_BITS 4

JT_INLINE jt_vec jt_vec_load(const void *p) { return vld1q_u8((const uint8_t *)p); }
JT_INLINE void jt_vec_store(void *p, jt_vec v) { vst1q_u8((uint8_t *)p, v); }
JT_INLINE jt_vec jt_vec_or(jt_vec a, jt_vec b) { return vorrq_u8(a, b); }
JT_INLINE jt_vec jt_vec_eq(jt_vec v, unsigned char c) { return vceqq_u8(v, vdupq_n_u8(c)); }
JT_INLINE jt_vec jt_vec_control(jt_vec v) { return vcleq_u8(v, vdupq_n_u8(0x1F)); }
/* Lanes >= 0x80 as full 0xFF lanes: jt_vec_mask needs whole lanes. */
JT_INLINE jt_vec jt_vec_non_ascii(jt_vec v) { return vcgeq_u8(v, vdupq_n_u8(0x80)); }
/* NEON has no movemask: shifting each 16-bit pair of lanes right by 4 and
 * narrowing keeps 4 bits of each lane (one shrn), a 64-bit mask. */
JT_INLINE uint64_t jt_vec_mask(jt_vec hits)
{
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(hits), 4)), 0);
}
JT_INLINE jt_vec jt_vec_from_words(uint64_t lo, uint64_t hi) { return vcombine_u8(vcreate_u8(lo), vcreate_u8(hi)); }
#endif

/* Which vector code this build has, for Jetson::BUILD_INFO (escape.c adds
 * whether the AVX2 loop runs on this CPU). */
#if defined(JT_SIMD_SSE2)
#define JT_SIMD_NAME "sse2"
#elif defined(JT_SIMD_NEON)
#define JT_SIMD_NAME "neon"
#else
#define JT_SIMD_NAME "none"
#endif

#endif
