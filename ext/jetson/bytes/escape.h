#ifndef JETSON_BYTES_ESCAPE_H
#define JETSON_BYTES_ESCAPE_H

/* Escaping a JSON string's bytes (escape.c, escape_loop.h): the sets of
 * characters each mode escapes, and strings up to 32 bytes checked and
 * copied inline (two overlapping words or vectors). */

#include "bytes/buffer.h"
#include "bytes/simd.h"

/* Which characters a JSON string must escape; the bits combine. */
enum {
    JT_ESCAPE_BASIC = 1,       /* '"', '\\' and control characters: always */
    JT_ESCAPE_SCRIPT_SAFE = 2, /* also '/', U+2028 and U+2029 */
    JT_ESCAPE_ASCII_ONLY = 4,  /* also every non-ASCII character, as \uXXXX */
    /* ActiveSupport's escaping (Rails mode): */
    JT_ESCAPE_JS_SEPARATORS = 8, /* U+2028 and U+2029, not '/' */
    JT_ESCAPE_HTML = 16,         /* '<', '>' and '&' as \u003c, \u003e, \u0026 */
};
/* Modes whose lead byte 0xE2 may start a separator to escape. */
#define JT_ESCAPE_E2 (JT_ESCAPE_SCRIPT_SAFE | JT_ESCAPE_JS_SEPARATORS)
/* Highest mode >> 1 (JT_ESCAPE_BASIC is always set) that has a loop. */
#define JT_ESCAPE_MODES ((JT_ESCAPE_JS_SEPARATORS | JT_ESCAPE_HTML) >> 1)

/* Any string, any length: the vector loops of escape.c. */
void jt_escape_string_general(jt_buffer *b, const char *src, size_t len, int mode);

/* The vector code this build escapes with: "sse2+avx2" (the AVX2 loop runs
 * on this CPU), "sse2", "neon" or "none" (Jetson::BUILD_INFO[:simd]). */
const char *jt_escape_simd(void);

#define JT_ONES UINT64_C(0x0101010101010101)
#define JT_HIGHS UINT64_C(0x8080808080808080)

/* High bit set in each byte of x equal to b. Borrows can only flag bytes
 * above a real match, so the lowest flagged byte is always exact. */
JT_INLINE uint64_t jt_swar_equal(uint64_t x, unsigned char b)
{
    uint64_t y = x ^ (JT_ONES * b);
    return (y - JT_ONES) & ~y & JT_HIGHS;
}

/* Flags the bytes of x that stop a plain copy in this mode. */
JT_INLINE uint64_t jt_swar_attention(uint64_t x, int mode)
{
    uint64_t hit = ((x - JT_ONES * 0x20) & ~x & JT_HIGHS) | jt_swar_equal(x, '"') | jt_swar_equal(x, '\\');
    if (mode & JT_ESCAPE_SCRIPT_SAFE) hit |= jt_swar_equal(x, '/');
    if (mode & JT_ESCAPE_E2) hit |= jt_swar_equal(x, 0xE2);
    if (mode & JT_ESCAPE_HTML) hit |= jt_swar_equal(x, '<') | jt_swar_equal(x, '>') | jt_swar_equal(x, '&');
    if (mode & JT_ESCAPE_ASCII_ONLY) hit |= x & JT_HIGHS;
    return hit;
}

#if JT_SIMD
/* The bytes of v that need attention in this mode, as lanes whose high bit
 * is set (simd.h). */
JT_INLINE jt_vec jt_vector_hits(jt_vec v, int mode)
{
    jt_vec hit = jt_vec_or(jt_vec_eq(v, '"'), jt_vec_eq(v, '\\'));
    hit = jt_vec_or(hit, jt_vec_control(v));
    if (RB_UNLIKELY(mode != JT_ESCAPE_BASIC)) {
        if (mode & JT_ESCAPE_SCRIPT_SAFE) hit = jt_vec_or(hit, jt_vec_eq(v, '/'));
        if (mode & JT_ESCAPE_E2) hit = jt_vec_or(hit, jt_vec_eq(v, 0xE2));
        if (mode & JT_ESCAPE_HTML) {
            hit = jt_vec_or(hit, jt_vec_eq(v, '<'));
            hit = jt_vec_or(hit, jt_vec_eq(v, '>'));
            hit = jt_vec_or(hit, jt_vec_eq(v, '&'));
        }
        if (mode & JT_ESCAPE_ASCII_ONLY) hit = jt_vec_or(hit, jt_vec_non_ascii(v));
    }
    return hit;
}

/* The hits of v as a scalar mask (jt_vec_mask): 0 when none. */
JT_INLINE uint64_t jt_vector_attention(jt_vec v, int mode)
{
    return jt_vec_mask(jt_vector_hits(v, mode));
}
#endif

/* Whether any byte of the two words needs attention in this mode. */
JT_INLINE bool jt_short_attention(uint64_t lo, uint64_t hi, int mode)
{
#if JT_SIMD
    return jt_vector_attention(jt_vec_from_words(lo, hi), mode) != 0;
#else
    return (jt_swar_attention(lo, mode) | jt_swar_attention(hi, mode)) != 0;
#endif
}

/* For a string of len bytes that needs no escaping: reserves its quoted
 * form, writes the opening quote and the closing one, and returns where the
 * len bytes go. */
JT_INLINE char *jt_quoted_slot(jt_buffer *b, size_t len)
{
    jt_buffer_reserve(b, len + 2);
    char *dst = b->ptr + b->len;
    dst[0] = '"';
    dst[len + 1] = '"';
    b->len += len + 2;
    return dst + 1;
}

/* A string of 1..16 bytes as two words that together hold every byte (some
 * twice, which is harmless: the check only looks for bytes that need
 * attention), loaded with overlapping reads that never leave the string. */
typedef struct jt_short_string {
    uint64_t lo, hi;
} jt_short_string;

JT_INLINE jt_short_string jt_short_load(const char *src, size_t len)
{
    jt_short_string s;
    if (len >= 8) {
        memcpy(&s.lo, src, 8);
        memcpy(&s.hi, src + len - 8, 8);
    } else if (len >= 4) {
        uint32_t l4, h4;
        memcpy(&l4, src, 4);
        memcpy(&h4, src + len - 4, 4);
        s.lo = s.hi = l4 | ((uint64_t)h4 << 32);
    } else {
        uint32_t w = (unsigned char)src[0] | ((uint32_t)(unsigned char)src[len / 2] << 8) |
                     ((uint32_t)(unsigned char)src[len - 1] << 16) | ((uint32_t)(unsigned char)src[0] << 24);
        s.lo = s.hi = w * UINT64_C(0x100000001);
    }
    return s;
}

/* Stores the len bytes of s at dst, from the registers: the source may have
 * moved since it was loaded (reserving room can run the GC). */
JT_INLINE void jt_short_store(char *dst, size_t len, jt_short_string s)
{
    if (len >= 8) {
        memcpy(dst, &s.lo, 8);
        memcpy(dst + len - 8, &s.hi, 8);
    } else if (len >= 4) {
        uint32_t l4 = (uint32_t)s.lo, h4 = (uint32_t)(s.hi >> 32);
        memcpy(dst, &l4, 4);
        memcpy(dst + len - 4, &h4, 4);
    } else {
        dst[0] = (char)s.lo;
        dst[len / 2] = (char)(s.lo >> 8);
        dst[len - 1] = (char)(s.lo >> 16);
    }
}

/* Writes `src` (valid UTF-8) as a quoted JSON string.
 *
 * Most strings in real documents (keys, ids, names, URLs) are short and need
 * no escaping. Up to 64 bytes they are checked and copied here, inline, with
 * overlapping loads that cover the string exactly (never a byte outside it),
 * so the common case costs a few dozen instructions and no call. */
JT_INLINE void jt_escape_string(jt_buffer *b, const char *src, size_t len, int mode)
{
    if (len - 1 < 16) { /* 1..16 bytes; 0 wraps around */
        jt_short_string s = jt_short_load(src, len);
        if (!jt_short_attention(s.lo, s.hi, mode)) {
            jt_short_store(jt_quoted_slot(b, len), len, s);
            return;
        }
    }
#if JT_SIMD
    else if (len - 17 < 48) { /* 17..64 bytes: two or four overlapping vectors */
        jt_vec first = jt_vec_load(src);
        jt_vec last = jt_vec_load(src + len - 16);
        jt_vec hits = jt_vec_or(jt_vector_hits(first, mode), jt_vector_hits(last, mode));
        jt_vec second = first, third = last; /* 17..32: the first two cover it */
        if (len > 32) {
            second = jt_vec_load(src + 16);
            third = jt_vec_load(src + len - 32);
            hits = jt_vec_or(hits, jt_vec_or(jt_vector_hits(second, mode), jt_vector_hits(third, mode)));
        }
        if (!jt_vec_mask(hits)) {
            char *dst = jt_quoted_slot(b, len);
            jt_vec_store(dst, first);
            if (len > 32) {
                jt_vec_store(dst + 16, second);
                jt_vec_store(dst + len - 32, third);
            }
            jt_vec_store(dst + len - 16, last);
            return;
        }
    }
#endif
    jt_escape_string_general(b, src, len, mode);
}

#endif
