#include "bytes/escape.h"

/* The letter after the backslash for one-byte escapes; 'u' means \u00XX
 * (also for '<', '>' and '&', which only the HTML mode flags). */
static const char short_escape[128] = {
    'u','u','u','u','u','u','u','u','b','t','n','u','f','r','u','u',
    'u','u','u','u','u','u','u','u','u','u','u','u','u','u','u','u',
    0,0,'"',0,0,0,'u',0,0,0,0,0,0,0,0,'/', 0,0,0,0,0,0,0,0,0,0,0,0,'u',0,'u',0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,'\\',0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
};

/* "00".."ff": two hex digits per lookup. */
static const char hex_pairs[512] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

JT_INLINE char *write_u_escape(char *dst, unsigned int code)
{
    dst[0] = '\\';
    dst[1] = 'u';
    memcpy(dst + 2, hex_pairs + 2 * ((code >> 8) & 0xFF), 2);
    memcpy(dst + 4, hex_pairs + 2 * (code & 0xFF), 2);
    return dst + 6;
}

/* Length of the UTF-8 sequence that starts with `lead` (input is valid UTF-8). */
JT_INLINE int utf8_length(unsigned char lead)
{
    if (lead < 0xE0) return 2;
    if (lead < 0xF0) return 3;
    return 4;
}

/* Writes the non-ASCII character at *pp as \uXXXX (a surrogate pair above the
 * BMP) and advances *pp past it. */
JT_INLINE char *escape_non_ascii(char *dst, const unsigned char *pp[], const unsigned char *end)
{
    const unsigned char *p = *pp;
    int n = utf8_length(*p);
    if (end - p < n) n = 1; /* cannot happen for valid input; stay in bounds */
    unsigned int code;
    switch (n) {
        case 2: code = ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu); break;
        case 3: code = ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu); break;
        case 4: code = ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu); break;
        default: code = 0xFFFD; break;
    }
    *pp = p + n;
    if (code >= 0x10000) {
        code -= 0x10000;
        dst = write_u_escape(dst, 0xD800 | (code >> 10));
        return write_u_escape(dst, 0xDC00 | (code & 0x3FF));
    }
    return write_u_escape(dst, code);
}

/* Eight bytes as a word (the word loop's block). */
JT_INLINE uint64_t load_word(const unsigned char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* Reads n (1..7) bytes as a little-endian word, zero above them, with loads
 * that stay inside [p, p + n). */
JT_INLINE uint64_t load_partial(const unsigned char *p, size_t n)
{
    uint32_t lo, hi;
    uint16_t lo16, hi16;
    if (n >= 4) {
        memcpy(&lo, p, 4);
        memcpy(&hi, p + n - 4, 4);
        return (uint64_t)lo | ((uint64_t)hi << (8 * (n - 4)));
    }
    if (n >= 2) {
        memcpy(&lo16, p, 2);
        memcpy(&hi16, p + n - 2, 2);
        return (uint64_t)lo16 | ((uint64_t)hi16 << (8 * (n - 2)));
    }
    return p[0];
}

typedef char *escape_fn(char *dst, const unsigned char *p, const unsigned char *end);

/* The loops, once for the baseline instruction set (SSE2, NEON or words;
 * simd.h) and, with GCC or clang on x86-64, once more for AVX2, chosen per
 * string at run time. */
#define JT_ESCAPE_AVX2 0
#define JT_ESCAPE_NAME(f) f##_base
#include "bytes/escape_loop.h"
#undef JT_ESCAPE_AVX2
#undef JT_ESCAPE_NAME

/* Not with JETSON_DISABLE_SIMD: the pragma defines __SSE2__ again, and its
 * loop would still run. */
#if defined(JT_SIMD_SSE2) && defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define JT_HAVE_AVX2_TARGET 1
#include <immintrin.h>
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define JT_ESCAPE_AVX2 1
#define JT_ESCAPE_NAME(f) f##_avx2
#include "bytes/escape_loop.h"
#undef JT_ESCAPE_AVX2
#undef JT_ESCAPE_NAME
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
#define JT_HAVE_AVX2_TARGET 0
#endif

JT_INLINE bool cpu_has_avx2(void)
{
#if JT_HAVE_AVX2_TARGET
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

JT_INLINE char *escape_mode(char *dst, const unsigned char *p, const unsigned char *end, int mode)
{
    escape_fn *const *by_mode = escape_by_mode_base;
#if JT_HAVE_AVX2_TARGET
    /* Long runs are scanned 32 bytes at a time where the CPU can. */
    if (end - p >= 64 && cpu_has_avx2()) by_mode = escape_by_mode_avx2;
#endif
    return by_mode[mode >> 1](dst, p, end);
}

/* Input is escaped in slices so that the worst-case reservation stays small;
 * a slice never ends inside a UTF-8 sequence. */
#define JT_ESCAPE_SLICE 8192
#define JT_ESCAPE_SLACK 8

void jt_escape_string_general(jt_buffer *b, const char *src, size_t len, int mode)
{
    const unsigned char *p = (const unsigned char *)src;
    const unsigned char *end = p + len;

    if (RB_LIKELY(len <= JT_ESCAPE_SLICE)) {
        jt_buffer_reserve(b, len * 6 + 2 + JT_ESCAPE_SLACK);
        char *dst = b->ptr + b->len;
        *dst++ = '"';
        dst = escape_mode(dst, p, end, mode);
        *dst++ = '"';
        b->len = (size_t)(dst - b->ptr);
        return;
    }

    jt_buffer_push(b, '"');
    while (p < end) {
        const unsigned char *slice_end = end - p > JT_ESCAPE_SLICE ? p + JT_ESCAPE_SLICE : end;
        while (slice_end < end && (*slice_end & 0xC0) == 0x80) slice_end--;
        jt_buffer_reserve(b, (size_t)(slice_end - p) * 6 + JT_ESCAPE_SLACK);
        char *dst = escape_mode(b->ptr + b->len, p, slice_end, mode);
        b->len = (size_t)(dst - b->ptr);
        p = slice_end;
    }
    jt_buffer_push(b, '"');
}

const char *jt_escape_simd(void)
{
    return cpu_has_avx2() ? JT_SIMD_NAME "+avx2" : JT_SIMD_NAME;
}
