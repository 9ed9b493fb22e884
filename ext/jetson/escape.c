#include "escape.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* For each byte, the escape modes in which it interrupts a plain copy. 0xE2 is
 * the lead byte of U+2028/U+2029, so script-safe mode must look at it. */
#define B JT_ESCAPE_BASIC
#define S JT_ESCAPE_SCRIPT_SAFE
#define A JT_ESCAPE_ASCII_ONLY
static const unsigned char attention[256] = {
    B,B,B,B,B,B,B,B,B,B,B,B,B,B,B,B, B,B,B,B,B,B,B,B,B,B,B,B,B,B,B,B,
    0,0,B,0,0,0,0,0,0,0,0,0,0,0,0,S, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,B,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,A, A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,
    A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,A, A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,
    A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,A, A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,
    A,A,A|S,A,A,A,A,A,A,A,A,A,A,A,A,A, A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,A,
};
#undef B
#undef S
#undef A

/* The letter after the backslash for one-byte escapes; 'u' means \u00XX. */
static const char short_escape[128] = {
    'u','u','u','u','u','u','u','u','b','t','n','u','f','r','u','u',
    'u','u','u','u','u','u','u','u','u','u','u','u','u','u','u','u',
    0,0,'"',0,0,0,0,0,0,0,0,0,0,0,0,'/', 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,'\\',0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
};

static const char hex_digits[16] = "0123456789abcdef";

/* Returns the first byte at or after p that needs attention in `mode`. */
JT_INLINE const unsigned char *scan(const unsigned char *p, const unsigned char *end, int mode)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i below_space = _mm_set1_epi8(0x1F);
    const __m128i slash = _mm_set1_epi8('/');
    const __m128i line_sep_lead = _mm_set1_epi8((char)0xE2);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
        /* unsigned v <= 0x1F, as min(v, 0x1F) == v */
        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v));
        if (mode & JT_ESCAPE_SCRIPT_SAFE) {
            hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, slash));
            hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, line_sep_lead));
        }
        int mask = _mm_movemask_epi8(hit);
        if (mode & JT_ESCAPE_ASCII_ONLY) mask |= _mm_movemask_epi8(v);
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (p < end && !(attention[*p] & mode)) p++;
    return p;
}

JT_INLINE void write_u_escape(char *dst, unsigned int code)
{
    dst[0] = '\\';
    dst[1] = 'u';
    dst[2] = hex_digits[(code >> 12) & 0xF];
    dst[3] = hex_digits[(code >> 8) & 0xF];
    dst[4] = hex_digits[(code >> 4) & 0xF];
    dst[5] = hex_digits[code & 0xF];
}

/* Length of the UTF-8 sequence that starts with `lead` (input is valid UTF-8). */
JT_INLINE int utf8_length(unsigned char lead)
{
    if (lead < 0xE0) return 2;
    if (lead < 0xF0) return 3;
    return 4;
}

/* Escapes the non-ASCII character at p as \uXXXX (a surrogate pair above the
 * BMP). Returns the number of input bytes consumed. */
static size_t escape_non_ascii(jt_buffer *b, const unsigned char *p, const unsigned char *end)
{
    int n = utf8_length(*p);
    if (end - p < n) n = (int)(end - p); /* cannot happen for valid input; stay in bounds */
    unsigned int code;
    switch (n) {
        case 2: code = ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu); break;
        case 3: code = ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu); break;
        case 4: code = ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu); break;
        default: code = 0xFFFD; n = 1; break;
    }
    jt_buffer_reserve(b, 12);
    char *dst = b->ptr + b->len;
    if (code >= 0x10000) {
        code -= 0x10000;
        write_u_escape(dst, 0xD800 | (code >> 10));
        write_u_escape(dst + 6, 0xDC00 | (code & 0x3FF));
        b->len += 12;
    } else {
        write_u_escape(dst, code);
        b->len += 6;
    }
    return (size_t)n;
}

void jt_escape_string(jt_buffer *b, const char *src, size_t len, int mode)
{
    const unsigned char *p = (const unsigned char *)src;
    const unsigned char *end = p + len;
    const unsigned char *run = p;

    jt_buffer_push(b, '"');
    for (;;) {
        p = scan(p, end, mode);
        if (p >= end) break;
        unsigned char c = *p;
        if (c < 0x80) {
            if (p > run) jt_buffer_append(b, (const char *)run, (size_t)(p - run));
            jt_buffer_reserve(b, 6);
            char *dst = b->ptr + b->len;
            char e = short_escape[c];
            if (e == 'u') {
                write_u_escape(dst, c);
                b->len += 6;
            } else {
                dst[0] = '\\';
                dst[1] = e;
                b->len += 2;
            }
            run = ++p;
        } else if (mode & JT_ESCAPE_ASCII_ONLY) {
            if (p > run) jt_buffer_append(b, (const char *)run, (size_t)(p - run));
            p += escape_non_ascii(b, p, end);
            run = p;
        } else if (c == 0xE2 && end - p >= 3 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            if (p > run) jt_buffer_append(b, (const char *)run, (size_t)(p - run));
            jt_buffer_append(b, p[2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
            p += 3;
            run = p;
        } else {
            p++; /* an ordinary 0xE2 lead byte in script-safe mode */
        }
    }
    if (p > run) jt_buffer_append(b, (const char *)run, (size_t)(p - run));
    jt_buffer_push(b, '"');
}
