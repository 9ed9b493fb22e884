#include "escape.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The letter after the backslash for one-byte escapes; 'u' means \u00XX. */
static const char short_escape[128] = {
    'u','u','u','u','u','u','u','u','b','t','n','u','f','r','u','u',
    'u','u','u','u','u','u','u','u','u','u','u','u','u','u','u','u',
    0,0,'"',0,0,0,0,0,0,0,0,0,0,0,0,'/', 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,'\\',0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
};

static const char hex_digits[16] = "0123456789abcdef";

JT_INLINE char *write_u_escape(char *dst, unsigned int code)
{
    dst[0] = '\\';
    dst[1] = 'u';
    dst[2] = hex_digits[(code >> 12) & 0xF];
    dst[3] = hex_digits[(code >> 8) & 0xF];
    dst[4] = hex_digits[(code >> 4) & 0xF];
    dst[5] = hex_digits[code & 0xF];
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
static char *escape_non_ascii(char *dst, const unsigned char **pp, const unsigned char *end)
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

/* Escapes [p, end) into dst, which has room for 6 bytes per input byte (the
 * most any byte can grow: a control character becomes \u00XX) plus
 * JT_ESCAPE_SLACK. With that room guaranteed, runs are copied a vector or a
 * word at a time by storing what was just scanned, even past the character
 * that stops the run. */
JT_INLINE char *escape_into(char *dst, const unsigned char *p, const unsigned char *end, int mode)
{
    for (;;) {
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
            _mm_storeu_si128((__m128i *)dst, v);
            if (mask) {
                int skip = __builtin_ctz((unsigned)mask);
                dst += skip;
                p += skip;
                goto special;
            }
            dst += 16;
            p += 16;
        }
#endif
        /* Eight bytes at a time for what SSE2 left (and for short strings). */
        while (end - p >= 8) {
            uint64_t x;
            memcpy(&x, p, 8);
            memcpy(dst, &x, 8);
            uint64_t hit = jt_swar_attention(x, mode);
            if (hit) {
                int skip = __builtin_ctzll(hit) >> 3;
                dst += skip;
                p += skip;
                goto special;
            }
            dst += 8;
            p += 8;
        }
        /* The last 1..7 bytes in one word too, read without overrunning. */
        if (p >= end) return dst;
        {
            size_t rest = (size_t)(end - p);
            uint64_t x = load_partial(p, rest);
            memcpy(dst, &x, 8);
            uint64_t hit = jt_swar_attention(x, mode) & (JT_HIGHS >> (8 * (8 - rest)));
            if (!hit) return dst + rest;
            int skip = __builtin_ctzll(hit) >> 3;
            dst += skip;
            p += skip;
        }

    special:
        {
            unsigned char c = *p;
            if (c < 0x80) {
                char e = short_escape[c];
                if (e == 'u') {
                    dst = write_u_escape(dst, c);
                } else {
                    dst[0] = '\\';
                    dst[1] = e;
                    dst += 2;
                }
                p++;
            } else if (mode & JT_ESCAPE_ASCII_ONLY) {
                dst = escape_non_ascii(dst, &p, end);
            } else if (c == 0xE2 && end - p >= 3 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
                dst = write_u_escape(dst, p[2] == 0xA8 ? 0x2028 : 0x2029);
                p += 3;
            } else {
                *dst++ = (char)*p++; /* an ordinary 0xE2 lead byte in script-safe mode */
            }
        }
    }
}

/* One copy per mode, so that each loop carries only its own checks. */
static char *escape_basic(char *dst, const unsigned char *p, const unsigned char *end)
{
    return escape_into(dst, p, end, JT_ESCAPE_BASIC);
}

static char *escape_script_safe(char *dst, const unsigned char *p, const unsigned char *end)
{
    return escape_into(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_SCRIPT_SAFE);
}

static char *escape_ascii_only(char *dst, const unsigned char *p, const unsigned char *end)
{
    return escape_into(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_ASCII_ONLY);
}

static char *escape_ascii_script_safe(char *dst, const unsigned char *p, const unsigned char *end)
{
    return escape_into(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_SCRIPT_SAFE | JT_ESCAPE_ASCII_ONLY);
}

JT_INLINE char *escape_mode(char *dst, const unsigned char *p, const unsigned char *end, int mode)
{
    switch (mode) {
        case JT_ESCAPE_BASIC: return escape_basic(dst, p, end);
        case JT_ESCAPE_BASIC | JT_ESCAPE_SCRIPT_SAFE: return escape_script_safe(dst, p, end);
        case JT_ESCAPE_BASIC | JT_ESCAPE_ASCII_ONLY: return escape_ascii_only(dst, p, end);
        default: return escape_ascii_script_safe(dst, p, end);
    }
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
