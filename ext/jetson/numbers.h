#ifndef JETSON_NUMBERS_H
#define JETSON_NUMBERS_H

#include <stdint.h>

/* Upper bounds on what the writers below emit, so callers can reserve once. */
#define JT_DOUBLE_MAX_CHARS 32
#define JT_LONG_MAX_CHARS 21

/* Writes a finite double in the json gem's layout ("1.0", "1e+15", "0.0001",
 * "2.2471348024634546e-10", "-0.0") using the shortest digits that round-trip.
 * Returns the number of bytes written; no NUL terminator. */
int jt_write_double(double value, char *dst);

/* Writes a finite double as RFC 8785 (JSON Canonicalization Scheme) and
 * ECMAScript print it: "0", "1e+21", "1e-7", "123.456", "100". */
int jt_write_jcs_double(double value, char *dst);
void jt_shortest_decimal(double value, uint64_t *digits, int *exponent);

#include <string.h>

#if defined(__GNUC__)
#define JT_NUMBERS_INLINE static inline __attribute__((always_inline))
#else
#define JT_NUMBERS_INLINE static inline
#endif

/* "00" to "99", for writing integers two digits at a time. */
extern const char jt_digit_pairs[201];

/* Writes a signed 64-bit integer in decimal. Returns the number of bytes.
 * Inline: it is the hot path of integer-heavy documents. */
/* Integers are written front to back, branching once on magnitude so that
 * each digit pair costs a multiply-shift division and a 2-byte copy. */
JT_NUMBERS_INLINE char *jt_write_pair(char *p, uint32_t v)
{
    memcpy(p, jt_digit_pairs + 2 * v, 2);
    return p + 2;
}

/* 1 to 4 digits, no leading zeros. */
JT_NUMBERS_INLINE char *jt_write_upto4(char *p, uint32_t v)
{
    if (v < 100) {
        if (v < 10) {
            *p = (char)('0' + v);
            return p + 1;
        }
        return jt_write_pair(p, v);
    }
    uint32_t hi = v / 100;
    if (hi < 10) {
        *p++ = (char)('0' + hi);
    } else {
        p = jt_write_pair(p, hi);
    }
    return jt_write_pair(p, v - hi * 100);
}

/* Exactly 4 digits, with leading zeros. */
JT_NUMBERS_INLINE char *jt_write_4(char *p, uint32_t v)
{
    uint32_t hi = v / 100;
    p = jt_write_pair(p, hi);
    return jt_write_pair(p, v - hi * 100);
}

/* Exactly 8 digits, with leading zeros. */
JT_NUMBERS_INLINE char *jt_write_8(char *p, uint32_t v)
{
    uint32_t hi = v / 10000;
    p = jt_write_4(p, hi);
    return jt_write_4(p, v - hi * 10000);
}

/* 1 to 8 digits, no leading zeros. */
JT_NUMBERS_INLINE char *jt_write_upto8(char *p, uint32_t v)
{
    if (v < 10000) return jt_write_upto4(p, v);
    uint32_t hi = v / 10000;
    p = jt_write_upto4(p, hi);
    return jt_write_4(p, v - hi * 10000);
}

JT_NUMBERS_INLINE char *jt_write_u64(char *p, uint64_t v)
{
    if (v < 100000000ULL) return jt_write_upto8(p, (uint32_t)v);
    uint64_t hi = v / 100000000ULL;
    uint32_t lo = (uint32_t)(v - hi * 100000000ULL);
    if (hi < 100000000ULL) {
        p = jt_write_upto8(p, (uint32_t)hi);
    } else {
        uint64_t top = hi / 100000000ULL; /* at most 4 digits: 2^64 < 10^20 */
        p = jt_write_upto4(p, (uint32_t)top);
        p = jt_write_8(p, (uint32_t)(hi - top * 100000000ULL));
    }
    return jt_write_8(p, lo);
}

JT_NUMBERS_INLINE int jt_write_long(long value, char *dst)
{
    /* Negate in unsigned arithmetic: -LONG_MIN overflows a long. */
    unsigned long u = (unsigned long)value;
    char *p = dst;
    if (value < 0) {
        *p++ = '-';
        u = 0UL - u;
    }
    return (int)(jt_write_u64(p, u) - dst);
}


#endif
