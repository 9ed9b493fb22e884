#ifndef JETSON_BYTES_NUMBERS_H
#define JETSON_BYTES_NUMBERS_H

/* Numbers as JSON text (numbers.c): doubles as the json gem prints them
 * (Grisu2's digits, bytes/grisu2.h, in the layout of the json release the
 * app has; Float#to_s's before json 2.11), as ECMAScript prints them (RFC
 * 8785: the shortest digits that round-trip, by Schubfach), and integers. */

#include <stdint.h>

/* Upper bounds on what the writers below emit, so callers can reserve once. */
#define JT_DOUBLE_MAX_CHARS 32
#define JT_LONG_MAX_CHARS 21

/* Whose rules a Float is written by: the json releases that changed how
 * Floats come out. Decided once per process from the json the app has
 * (Jetson::JSON_FLOAT_RULES). */
typedef enum jt_float_rules {
    /* json 2.15 and later (json 3): Grisu2's digits; integers plain below
     * 1e15, fractions plain from 1e-6 or while the exponent is above -10. */
    JT_FLOATS_JSON_2_15,
    /* json 2.12 to 2.14: integers plain up to 7 zeros past their digits (6
     * when negative), else as 2.15. */
    JT_FLOATS_JSON_2_12,
    /* json 2.11: as 2.12, but fractions below 1e-6 plain only while the
     * exponent is above -4. */
    JT_FLOATS_JSON_2_11,
    /* json before 2.11: Float#to_s (the shortest digits, "1.0e+20",
     * "2.5e-05"). */
    JT_FLOATS_RUBY
} jt_float_rules;

/* Writes a finite double as the json gem of those rules does ("1.0",
 * "1e+15", "0.0001", "2.2471348024634546e-10", "-0.0"); NaN and the
 * Infinities as Float#to_s does. Returns the number of bytes written; no NUL
 * terminator. */
int jt_write_double(double value, char *dst, jt_float_rules rules);

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

/* Integers are written front to back. Below 10^8 a value takes one
 * multiplication into 32.32 fixed point, v / 10^(2k), whose integer part is
 * the leading one or two digits; every further pair is then one
 * multiplication of the fraction by 100 (the integer part that comes out),
 * with no division and no chain of dependent divisions (James Anhalt's
 * method). The product is rounded up by one unit so that it is never below
 * the exact fraction, and it stays below the exact fraction plus 2^32 /
 * 10^(2k) after every multiplication, so every pair is exact: k = 3 uses a
 * 2^-16 finer constant for that reason. script/verify_integer_digits checks
 * all 10^8 values of each writer against snprintf. */
JT_NUMBERS_INLINE char *jt_write_pair(char *p, uint32_t v)
{
    memcpy(p, jt_digit_pairs + 2 * v, 2);
    return p + 2;
}

/* ceil(2^32 / 10^2), ceil(2^32 / 10^4), ceil(2^48 / 10^6) */
#define JT_FRACTION_1E2 UINT64_C(42949673)
#define JT_FRACTION_1E4 UINT64_C(429497)
#define JT_FRACTION_1E6 UINT64_C(281474977)

JT_NUMBERS_INLINE char *jt_write_next_pair(char *p, uint64_t *y)
{
    *y = (uint64_t)(uint32_t)*y * 100;
    return jt_write_pair(p, (uint32_t)(*y >> 32));
}

/* The integer part of y (1 or 2 digits, no leading zero). */
JT_NUMBERS_INLINE char *jt_write_lead(char *p, uint64_t y)
{
    uint32_t lead = (uint32_t)(y >> 32);
    if (lead < 10) {
        *p = (char)('0' + lead);
        return p + 1;
    }
    return jt_write_pair(p, lead);
}

/* 1 to 8 digits, no leading zeros; two compares to find the length. */
JT_NUMBERS_INLINE char *jt_write_upto8(char *p, uint32_t v)
{
    uint64_t y;
    if (v < 10000) {
        if (v < 100) {
            if (v < 10) {
                *p = (char)('0' + v);
                return p + 1;
            }
            return jt_write_pair(p, v);
        }
        y = v * JT_FRACTION_1E2 + 1;
        p = jt_write_lead(p, y);
        return jt_write_next_pair(p, &y);
    }
    if (v < 1000000) {
        y = v * JT_FRACTION_1E4 + 1;
        p = jt_write_lead(p, y);
        p = jt_write_next_pair(p, &y);
        return jt_write_next_pair(p, &y);
    }
    y = ((v * JT_FRACTION_1E6) >> 16) + 1;
    p = jt_write_lead(p, y);
    p = jt_write_next_pair(p, &y);
    p = jt_write_next_pair(p, &y);
    return jt_write_next_pair(p, &y);
}

/* Exactly 8 digits, with leading zeros. */
JT_NUMBERS_INLINE char *jt_write_8(char *p, uint32_t v)
{
    uint64_t y = ((v * JT_FRACTION_1E6) >> 16) + 1;
    p = jt_write_pair(p, (uint32_t)(y >> 32));
    p = jt_write_next_pair(p, &y);
    p = jt_write_next_pair(p, &y);
    return jt_write_next_pair(p, &y);
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
        p = jt_write_upto8(p, (uint32_t)top);
        p = jt_write_8(p, (uint32_t)(hi - top * 100000000ULL));
    }
    return jt_write_8(p, lo);
}

/* Writes value at p; returns the end. */
JT_NUMBERS_INLINE char *jt_write_long_at(char *p, long value)
{
    unsigned long u = (unsigned long)value;
    /* Counts, flags, enum values, ratings, quantities, coordinates of a
     * grid: most Integers in documents are below 100. One unsigned compare
     * takes them (a negative value is huge as unsigned) past the sign test
     * and the length tests that longer values need. Spelled out as in
     * jt_write_upto8, not shared through a helper: built with one (ae5d346),
     * the same instructions ran the small nested array case 20% slower in
     * time, the Array loop laid out differently (docs/benchmarks.md). */
    if (u < 100) {
        if (u < 10) {
            *p = (char)('0' + u);
            return p + 1;
        }
        return jt_write_pair(p, (uint32_t)u);
    }
    /* Negate in unsigned arithmetic: -LONG_MIN overflows a long. */
    if (value < 0) {
        *p++ = '-';
        u = 0UL - u;
    }
    return jt_write_u64(p, u);
}

JT_NUMBERS_INLINE int jt_write_long(long value, char *dst)
{
    return (int)(jt_write_long_at(dst, value) - dst);
}


#endif
