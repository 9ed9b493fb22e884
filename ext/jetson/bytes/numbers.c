#include "bytes/numbers.h"

#include <stdbool.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "bytes/grisu2.h"
#include "jetson_pow10_table.h"

/* numbers.c includes no Ruby header, so it spells its two compiler hints
 * itself. */
#if defined(__GNUC__)
#define JT_NUMBERS_NOINLINE __attribute__((noinline))
#define JT_NUMBERS_RARE(x) __builtin_expect(!!(x), 0)
#else
#define JT_NUMBERS_NOINLINE
#define JT_NUMBERS_RARE(x) (x)
#endif


/* Writing two digits per step halves the number of divisions. */
const char jt_digit_pairs[201] =
    "00010203040506070809"
    "10111213141516171819"
    "20212223242526272829"
    "30313233343536373839"
    "40414243444546474849"
    "50515253545556575859"
    "60616263646566676869"
    "70717273747576777879"
    "80818283848586878889"
    "90919293949596979899";

/* Entry 0 is 0 rather than 1 so that decimal_length(0) comes out as 1. */
static const uint64_t jt_pow10_u64[20] = {
    0ULL,
    10ULL,
    100ULL,
    1000ULL,
    10000ULL,
    100000ULL,
    1000000ULL,
    10000000ULL,
    100000000ULL,
    1000000000ULL,
    10000000000ULL,
    100000000000ULL,
    1000000000000ULL,
    10000000000000ULL,
    100000000000000ULL,
    1000000000000000ULL,
    10000000000000000ULL,
    100000000000000000ULL,
    1000000000000000000ULL,
    10000000000000000000ULL,
};

static inline int decimal_length(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    /* 1233 / 4096 ~ log10(2): the bit length pins the digit count down to two
     * candidates, and one table compare picks between them. */
    int bits = 64 - __builtin_clzll(v | 1);
    int t = (bits * 1233) >> 12;
    return t + 1 - (v < jt_pow10_u64[t]);
#else
    int n = 1;
    while (n < 20 && v >= jt_pow10_u64[n]) n++;
    return n;
#endif
}

/* ---- Schubfach ----------------------------------------------------------
 *
 * A finite double is c * 2^q. Every real number in its rounding interval R
 * reads back as the same double; we want the shortest decimal in R and, among
 * equally short ones, the closest to c * 2^q (ties to an even last digit),
 * which is what Ruby's Float#to_s prints.
 *
 * Scale everything by 10^-k, where 10^k is the largest power of ten not above
 * the width of R. Then the scaled R holds at least one integer and at most
 * one multiple of ten, so the answer is either that multiple of ten (a digit
 * shorter) or whichever of s = floor(v) and s + 1 is in R and closer to v,
 * v being the scaled c * 2^q. Only v and the two ends of R are needed, each
 * times 4 so that the half- and quarter-units of the interval stay integral.
 *
 * They are computed as g * (n << h) / 2^127 with g a 126-bit overestimate of
 * 10^-k. Rather than the exact product we keep its floor plus a "sticky" bit
 * (set when the fraction is at least 2^-66), i.e. the value rounded to odd.
 * Every comparison below is against an even integer, where a value rounded to
 * odd compares exactly like the true one, provided the sticky bit is right.
 * It is: g's overshoot adds less than 2^-66 to the product, while for every
 * double the true fraction is either 0 or at least 2^-66 away from 0 and 1
 * (the closest calls are 2^-65.4 and 1 - 2^-63.4). Jetson::Pow10Table.verify
 * in pow10_table.rb proves this for all exponents and all n up to 2^55 + 2;
 * the 63 fraction bits a plain high-word product would give are not enough
 * (q = 163 needs 64). */

#define JT_C_MIN (1ULL << 52)
#define JT_Q_MIN (-1074)

/* These take floor(x / 2^s) of possibly negative x. Right-shifting a negative
 * int is implementation-defined, so x is first biased into positive range by
 * a multiple of 2^s; for the exponents a double has (|q| <= 1074, |e| <= 324)
 * the biased products stay below 2^31. */
static inline int floor_log10_pow2(int q)
{
    /* 315653 / 2^20 ~ log10(2); exact for |q| <= 1100. */
    return ((q * 315653 + (1 << 30)) >> 20) - (1 << 10);
}

static inline int floor_log10_three_quarters_pow2(int q)
{
    /* 131008 / 2^20 ~ log10(4/3); exact for |q| <= 1100. */
    return ((q * 315653 - 131008 + (1 << 30)) >> 20) - (1 << 10);
}

static inline int floor_log2_pow10(int e)
{
    /* 1741647 / 2^19 ~ log2(10); exact for |e| <= 350. */
    return ((e * 1741647 + (1 << 30)) >> 19) - (1 << 11);
}

#define JT_MASK63 0x7fffffffffffffffULL

#if defined(__SIZEOF_INT128__) && !defined(JT_NO_INT128)
__extension__ typedef unsigned __int128 jt_u128;

/* Rounds g * cp / 2^127 to odd (see above); g = { high 64, low 64 }. */
static inline uint64_t round_to_odd(const uint64_t *g, uint64_t cp)
{
    jt_u128 lo = (jt_u128)g[1] * cp;
    /* z = floor(g * cp / 2^64); g[0] < 2^62 and cp < 2^61 keep it in range. */
    jt_u128 z = (jt_u128)g[0] * cp + (uint64_t)(lo >> 64);
    uint64_t sticky = ((uint64_t)z & JT_MASK63) | ((uint64_t)lo >> 61);
    return (uint64_t)(z >> 63) | (sticky != 0);
}
#else
/* 64x64 -> 128 from 32-bit halves, for compilers without __int128. */
static inline uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *hi)
{
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32;
    uint64_t b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t ll = a_lo * b_lo;
    uint64_t lh = a_lo * b_hi;
    uint64_t hl = a_hi * b_lo;
    uint64_t hh = a_hi * b_hi;
    /* Sums of one 32x32 product and two 32-bit halves cannot overflow 64. */
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return (mid << 32) | (uint32_t)ll;
}

static inline uint64_t round_to_odd(const uint64_t *g, uint64_t cp)
{
    uint64_t lo_hi, z_hi, z_lo, sticky;
    uint64_t lo_lo = mul_64x64(g[1], cp, &lo_hi);
    z_lo = mul_64x64(g[0], cp, &z_hi);
    z_lo += lo_hi;
    z_hi += (z_lo < lo_hi);
    sticky = (z_lo & JT_MASK63) | (lo_lo >> 61);
    return (z_hi << 1) | (z_lo >> 63) | (sticky != 0);
}
#endif

/* Finds the shortest, closest decimal d * 10^k for c * 2^q. */
static inline uint64_t schubfach(uint64_t c, int q, int *k_out)
{
    /* Ties on the interval ends round to the even c, so they belong to R
     * exactly when c is even. */
    uint64_t out = c & 1;
    uint64_t cb = c << 2;
    uint64_t cbr = cb + 2;
    uint64_t cbl;
    const uint64_t *g;
    uint64_t vb, vbl, vbr, s, t, sp10, tp10;
    int k, h, upin, wpin, uin, win;

    if (c != JT_C_MIN || q == JT_Q_MIN) {
        cbl = cb - 2;
        k = floor_log10_pow2(q);
    } else {
        /* At a power of two the gap below is half the gap above. */
        cbl = cb - 1;
        k = floor_log10_three_quarters_pow2(q);
    }
    h = q + floor_log2_pow10(-k) + 2;
    g = jt_pow10_table[-k - JT_POW10_MIN_EXP];

    vb = round_to_odd(g, cb << h);
    vbl = round_to_odd(g, cbl << h);
    vbr = round_to_odd(g, cbr << h);

    s = vb >> 2;
    sp10 = (s / 10) * 10;
    tp10 = sp10 + 10;
    upin = vbl + out <= sp10 << 2;
    wpin = (tp10 << 2) + out <= vbr;
    if (upin != wpin) {
        *k_out = k;
        return upin ? sp10 : tp10;
    }
    t = s + 1;
    uin = vbl + out <= s << 2;
    win = (t << 2) + out <= vbr;
    *k_out = k;
    if (uin != win) return uin ? s : t;
    /* Both in R: the closer one, and the even one on an exact tie. */
    if (vb < 4 * s + 2) return s;
    if (vb > 4 * s + 2) return t;
    return (s & 1) ? t : s;
}

/* d * 10^k with d's trailing zeros moved into k. Halving steps strip any
 * count of them (at most 16, as d has at most 17 digits) with five
 * divisibility tests, after a first test that most digits (a price, a
 * coordinate, a ratio) fail. */
static inline void strip_trailing_zeros(uint64_t *d, int *k)
{
    if (*d % 10 != 0) return;
    *d /= 10;
    *k += 1;
    if (*d % 10000000000000000ULL == 0) { *d /= 10000000000000000ULL; *k += 16; }
    if (*d % 100000000 == 0) { *d /= 100000000; *k += 8; }
    if (*d % 10000 == 0) { *d /= 10000; *k += 4; }
    if (*d % 100 == 0) { *d /= 100; *k += 2; }
    if (*d % 10 == 0) { *d /= 10; *k += 1; }
}

/* Layout thresholds of the json gem: plain notation for integers below 1e15
 * and for fractions with few leading zeros, scientific otherwise. */
/* d (n digits) as d.ddde+x / d.ddde-x (one digit: de+x); returns the end. */
static inline char *write_scientific(char *p, uint64_t d, int n, int e)
{
    jt_write_u64(p + 1, d);
    p[0] = p[1];
    if (n > 1) {
        p[1] = '.';
        p += n + 1;
    } else {
        p += 1;
    }
    *p++ = 'e';
    if (e < 0) {
        *p++ = '-';
        e = -e;
    } else {
        *p++ = '+';
    }
    if (e >= 100) {
        *p++ = (char)('0' + e / 100);
        e %= 100;
        memcpy(p, jt_digit_pairs + 2 * e, 2);
        p += 2;
    } else if (e >= 10) {
        memcpy(p, jt_digit_pairs + 2 * e, 2);
        p += 2;
    } else {
        *p++ = (char)('0' + e);
    }
    return p;
}

/* Most Floats in API payloads are short decimals: prices, ratings,
 * percentages, coordinates to the millimetre. For x > 0 with at most
 * 8 digits after the point this finds the digits with one multiplication and
 * one division instead of Schubfach's 128-bit products: m, x * 10^8
 * rounded, is below 2^51, so x's ulp is below 10^-8 and at most one decimal
 * with 8 places reads back as x. When m / 10^8 (correctly rounded, as
 * strtod rounds "m e-8") is x again, m is that decimal, and every shorter
 * one that reads back is m with trailing zeros dropped: the digits Schubfach
 * finds, returned with their exponent in *k. Returns 0 where x is no such
 * decimal (or too large or too small), at the cost of a few
 * instructions. Needs doubles evaluated as doubles (no x87 excess
 * precision). */
#define JT_EIGHT_PLACES 1e8
/* m * 10^-8 with m's trailing zeros moved into *k: at most 7 of them, as 8
 * would make the value an integer, which is written before these paths. */
static inline uint64_t eight_places_stripped(uint64_t m, int *k)
{
    *k = -8;
    if (m % 10000 == 0) { m /= 10000; *k += 4; }
    if (m % 100 == 0) { m /= 100; *k += 2; }
    if (m % 10 == 0) { m /= 10; *k += 1; }
    return m;
}

static inline uint64_t eight_place_decimal(double x, int *k)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    const double scaled = x * JT_EIGHT_PLACES;
    if (!(scaled < 2251799813685248.0)) return 0; /* 2^51 */
    uint64_t m = (uint64_t)(int64_t)(scaled + 0.5);
    if (m == 0 || (double)(int64_t)m / JT_EIGHT_PLACES != x) return 0;
    return eight_places_stripped(m, k);
#else
    (void)x;
    (void)k;
    return 0;
#endif
}

/* Grisu2's digits for the same decimals, without running it. m, the
 * eight-place decimal above, is what Grisu2 finds whenever m lies inside
 * Grisu2's narrowed interval and is unambiguously the closest to x on its
 * grid: Grisu2's scaled boundaries and value are off by at most a few units
 * of 2^-62 relative, about 2^-8 of the half-gap between doubles, while this
 * asks m to be 1/32 of the half-gap inside the interval and 1/32 of half a
 * step nearer to x than any other decimal of 8 places (checked against the
 * json gem over millions of short decimals: test/float_rules_test.rb). The
 * residual x * 10^8 - m is exact up to one rounding: x splits into halves of
 * 26 and 27 bits (Veltkamp) whose products with 10^8 (19 significant bits)
 * are exact, and the high one is within a factor of two of m (Sterbenz).
 * Returns 0 where m is not certain to be Grisu2's answer. */
static inline uint64_t grisu_eight_place_decimal(double x, uint64_t bits, int *k)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    const double scaled = x * JT_EIGHT_PLACES;
    if (!(scaled >= 2.0 && scaled < 2251799813685248.0)) return 0; /* 2^51 */
    uint64_t m = (uint64_t)(int64_t)(scaled + 0.5);
    /* No division to check that m / 10^8 reads back as x: a residual below
     * the half-gap says so, and more. */
    const double split = 134217729.0 * x; /* 2^27 + 1 */
    const double high = split - (split - x);
    const double residual = (high * JT_EIGHT_PLACES - (double)(int64_t)m) + (x - high) * JT_EIGHT_PLACES;
    /* Half the gap to the nearer neighbouring double, times 10^8; the gap
     * below a power of two is half the gap above it. */
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t power_bits = (uint64_t)(biased - 52 - ((bits & (JT_C_MIN - 1)) == 0 ? 2 : 1)) << 52;
    double power; /* 2^(e - 1) or 2^(e - 2), e the exponent of x's last bit: a normal double here */
    memcpy(&power, &power_bits, sizeof(power));
    double half_gap = JT_EIGHT_PLACES * power;
    double bound = half_gap < 0.5 ? half_gap : 0.5;
    if (!(fabs(residual) < bound * (31.0 / 32.0))) return 0;
    return eight_places_stripped(m, k);
#else
    (void)x;
    (void)bits;
    (void)k;
    return 0;
#endif
}

/* The shortest digits of a positive finite double: value ~ d * 10^k, d without
 * trailing zeros (the digits jt_write_double lays out). */
void jt_shortest_decimal(double value, uint64_t *digits, int *exponent)
{
    uint64_t bits, frac, c, d;
    int be, q, k;

    memcpy(&bits, &value, sizeof(bits));
    frac = bits & (JT_C_MIN - 1);
    be = (int)((bits >> 52) & 0x7ff);
    if (be == 0) {
        d = schubfach(frac, JT_Q_MIN, &k);
    } else {
        c = frac | JT_C_MIN;
        q = be - 1075;
        uint64_t f = q <= 0 && q > -53 ? c >> -q : 0;
        if (f && (f << -q) == c) {
            d = f;
            k = 0;
        } else if ((d = eight_place_decimal(value, &k)) != 0) {
            goto stripped;
        } else {
            d = schubfach(c, q, &k);
        }
    }
    strip_trailing_zeros(&d, &k);
stripped:
    *digits = d;
    *exponent = k;
}

/* d * 10^k (n digits, k < 0) with a decimal point: "0.000ddd" or "dd.ddd". */
static inline int write_fraction(char *dst, char *p, uint64_t d, int n, int k)
{
    int point = n + k;
    if (point <= 0) {
        p[0] = '0';
        p[1] = '.';
        memset(p + 2, '0', (size_t)-point);
        p += 2 - point;
        return (int)(jt_write_u64(p, d) - dst);
    }
    /* Write the digits one place right, then slide the integer part back
     * over the gap to make room for the point. Up to 8 digits (nearly
     * always) that is one word moved left and the word after the point put
     * back: the callers' JT_DOUBLE_MAX_CHARS of room cover the 9 bytes read
     * and written past the point, and a memmove call cost as much as the
     * rest of the layout. */
    jt_write_u64(p + 1, d);
    if (point <= 8) {
        uint64_t integer_part, after_point;
        memcpy(&integer_part, p + 1, 8);
        memcpy(&after_point, p + point + 1, 8);
        memcpy(p, &integer_part, 8);
        memcpy(p + point + 1, &after_point, 8);
    } else {
        memmove(p, p + 1, (size_t)point);
    }
    p[point] = '.';
    return (int)(p - dst) + n + 1;
}

/* ECMAScript's Number::toString, which RFC 8785 prescribes: plain digits for
 * decimal exponents -7 < e < 21, else d.ddde+x / d.ddde-x; -0 is "0". */
int jt_write_jcs_double(double value, char *dst)
{
    char *p = dst;
    if (value == 0) {
        *p = '0';
        return 1;
    }
    if (value < 0) {
        *p++ = '-';
        value = -value;
    }
    uint64_t d;
    int k;
    jt_shortest_decimal(value, &d, &k);
    int n = decimal_length(d);
    int e = k + n - 1;
    if (e >= 21 || e <= -7) return (int)(write_scientific(p, d, n, e) - dst);
    if (k >= 0) { /* an integer: the digits, then zeros */
        jt_write_u64(p, d);
        memset(p + n, '0', (size_t)k);
        return (int)(p - dst) + n + k;
    }
    return write_fraction(dst, p, d, n, k); /* 0.000ddd, ddd.ddd */
}

/* "d.0" with k zeros before the point. */
static inline int write_plain_integer(char *dst, char *p, uint64_t d, int k)
{
    p = jt_write_u64(p, d);
    memset(p, '0', (size_t)k);
    p += k;
    memcpy(p, ".0", 2);
    return (int)(p - dst) + 2;
}

/* The json gem keeps at most 18 digits in scientific notation (17 after a
 * minus sign), cut, not rounded, and signs the exponent from the digits it
 * kept while printing the exponent of those it had. Grisu2 gives at most 17
 * digits, so this is never reached in practice; it is here so that the
 * layout is the json gem's for any digits. */
static JT_NUMBERS_NOINLINE int write_cut_scientific(char *dst, char *p, uint64_t d, int n, int k, int kept)
{
    int magnitude = k + n - 1 < 0 ? -(k + n - 1) : k + n - 1;
    int e = k + kept - 1 < 0 ? -magnitude : magnitude;
    while (n > kept) {
        d /= 10;
        n--;
    }
    return (int)(write_scientific(p, d, n, e) - dst);
}

/* Grisu2's digits d * 10^k in the layout of the json release of the rules
 * (its fpconv's emit_digits, as changed in 2.12 and 2.15). */
static inline int json_layout(char *dst, char *p, uint64_t d, int k, jt_float_rules rules)
{
    int n = decimal_length(d);
    int e = k + n - 1;
    int magnitude = e < 0 ? -e : e;
    bool negative = p != dst;

    if (k >= 0) {
        if (rules == JT_FLOATS_JSON_2_15 ? e < 15 : e < n + (negative ? 6 : 7))
            return write_plain_integer(dst, p, d, k);
    } else if (k > -7 || magnitude < (rules == JT_FLOATS_JSON_2_11 ? 4 : 10)) {
        return write_fraction(dst, p, d, n, k);
    }
    if (JT_NUMBERS_RARE(n > 18 - negative)) return write_cut_scientific(dst, p, d, n, k, 18 - negative);
    return (int)(write_scientific(p, d, n, e) - dst);
}

/* Float#to_s's layout of the shortest digits d * 10^k, which the json gem
 * printed before 2.11: plain for a whole number of up to 15 places
 * (100000000000000.0, but 1.0e+15), for a fraction whose point is up to 16
 * places right of the first digit (1680465498994961.2) or at most 3 zeros
 * left of it (0.0001, but 1.0e-05); else "d.ddde+XX" with at least two
 * exponent digits and ".0" after a single digit. */
static JT_NUMBERS_NOINLINE int ruby_layout(char *dst, char *p, uint64_t d, int k)
{
    int n = decimal_length(d);
    int point = n + k; /* value = 0.ddd * 10^point */

    if (point > 0) {
        if (k >= 0 && point <= 15) return write_plain_integer(dst, p, d, k);
        if (k < 0 && point <= 16) return write_fraction(dst, p, d, n, k);
    }
    if (point <= 0 && point > -4) return write_fraction(dst, p, d, n, k);
    jt_write_u64(p + 1, d);
    p[0] = p[1];
    p[1] = '.';
    if (n > 1) {
        p += n + 1;
    } else {
        p[2] = '0';
        p += 3;
    }
    int e = point - 1;
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e >= 100) {
        *p++ = (char)('0' + e / 100);
        e %= 100;
    }
    memcpy(p, jt_digit_pairs + 2 * e, 2);
    return (int)(p - dst) + 2;
}

int jt_write_double(double value, char *dst, jt_float_rules rules)
{
    uint64_t bits, frac, c, d;
    int be, q, k;
    char *p = dst;

    memcpy(&bits, &value, sizeof(bits));
    if (bits >> 63) *p++ = '-';
    frac = bits & (JT_C_MIN - 1);
    be = (int)((bits >> 52) & 0x7ff);

    if (be == 0 && frac == 0) {
        memcpy(p, "0.0", 3);
        return (int)(p - dst) + 3;
    }
    if (JT_NUMBERS_RARE(be == 0x7ff)) {
        /* Callers write NaN and the Infinities themselves (allow_nan,
         * errors); should one reach here, it is Float#to_s's text, never a
         * read past Grisu2's tables. */
        if (frac) {
            memcpy(dst, "NaN", 3);
            return 3;
        }
        memcpy(p, "Infinity", 8);
        return (int)(p - dst) + 8;
    }
    c = frac | JT_C_MIN;
    q = be - 1075;
    /* Integers below 2^53 are their own shortest form, and Grisu2's digits
     * for them are the same (checked over every power of two and millions of
     * random ones against the json gem); q == 0 is included because there
     * the rounding interval's width is 1, so it holds no other integer. */
    if (be != 0 && q <= 0 && q > -53) {
        uint64_t f = c >> -q;
        if ((f << -q) == c) {
            if (f < 1000000000000000ULL && rules == JT_FLOATS_JSON_2_15) return write_plain_integer(dst, p, f, 0);
            d = f;
            k = 0;
            strip_trailing_zeros(&d, &k);
            return rules == JT_FLOATS_RUBY ? ruby_layout(dst, p, d, k) : json_layout(dst, p, d, k, rules);
        }
    }
    const double positive = fabs(value);
    if (JT_NUMBERS_RARE(rules == JT_FLOATS_RUBY)) {
        jt_shortest_decimal(positive, &d, &k);
        return ruby_layout(dst, p, d, k);
    }
    d = grisu_eight_place_decimal(positive, bits, &k);
    if (!d) d = jt_grisu2(positive, &k);
    return json_layout(dst, p, d, k, rules);
}
