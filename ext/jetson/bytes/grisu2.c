/* Grisu2 (bytes/grisu2.h). Names follow the paper: w the value, m+ and m-
 * its boundaries (halfway to the neighbouring doubles), c~ a cached power of
 * ten, kappa the position of the digit being generated. */

#include "bytes/grisu2.h"

#include <string.h>

#include "jetson_grisu_powers.h"

/* The scaled boundary's exponent must land in [alpha, gamma]: then its
 * integral part fits 32 bits and its fraction leaves at least 4 bits above
 * the 64-bit word for each multiplication by ten. */
#define JT_GRISU_ALPHA (-60)
#define JT_GRISU_GAMMA (-32)

#if defined(__SIZEOF_INT128__) && !defined(JT_NO_INT128)
__extension__ typedef unsigned __int128 jt_grisu_u128;

/* The high word of a * b, rounded half up: Grisu's multiplication of two
 * 64-bit significands, whose error is then at most half a unit. */
static inline uint64_t mul_rounded(uint64_t a, uint64_t b)
{
    return (uint64_t)(((jt_grisu_u128)a * b + ((jt_grisu_u128)1 << 63)) >> 64);
}
#else
static inline uint64_t mul_rounded(uint64_t a, uint64_t b)
{
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32;
    uint64_t b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t lh = a_lo * b_hi, hl = a_hi * b_lo;
    /* The bits 32-63 of the product and the rounding half: below 2^34. */
    uint64_t mid = (uint32_t)lh + (uint32_t)hl + ((a_lo * b_lo) >> 32) + (1ULL << 31);
    return a_hi * b_hi + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
#endif

static inline int leading_zeros(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_clzll(x);
#else
    int n = 0;
    while (!(x & (1ULL << 63))) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

/* The cached power for a boundary of binary exponent e: the one that puts
 * the product's exponent in [alpha, gamma]. Two neighbours can both fit; the
 * json gem starts from this estimate of log10 and steps to the nearest that
 * fits, and its choice decides the last digits, so Jetson starts from the
 * same estimate. */
static inline int cached_power(int e)
{
    int estimate = (int)(-(e + JT_GRISU_POWERS) * 0.30102999566398114);
    int i = (estimate - JT_GRISU_FIRST_EXP) / JT_GRISU_STEP;
    for (;;) {
        int scaled = e + jt_grisu_powers[i].e + 64;
        if (scaled < JT_GRISU_ALPHA) i++;
        else if (scaled > JT_GRISU_GAMMA) i--;
        else return i;
    }
}

static const uint32_t pow10_32[10] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

static inline int digit_count(uint32_t v)
{
    int n = 1;
    while (n < 10 && v >= pow10_32[n]) n++;
    return n;
}

/* Grisu2's "round_weed": d's last digit, at unit ten_kappa, lowered while
 * the candidate stays inside the narrowed interval (rest is its distance
 * below m+, delta the interval's width) and comes closer to w (at w_dist
 * below m+). */
static inline uint64_t weed(uint64_t d, uint64_t delta, uint64_t rest, uint64_t ten_kappa, uint64_t w_dist)
{
    while (rest < w_dist && delta - rest >= ten_kappa &&
           (rest + ten_kappa < w_dist || w_dist - rest > rest + ten_kappa - w_dist)) {
        d--;
        rest += ten_kappa;
    }
    return d;
}

uint64_t jt_grisu2(double value, int *k)
{
    uint64_t bits, f;
    int e, biased;

    memcpy(&bits, &value, sizeof(bits));
    f = bits & ((1ULL << 52) - 1);
    biased = (int)((bits >> 52) & 0x7ff);
    if (biased) {
        f |= 1ULL << 52;
        e = biased - 1075;
    } else {
        e = -1074;
    }

    /* m+ = (2f + 1) 2^(e-1), normalized to 64 bits; w normalized shares its
     * exponent. m- = (2f - 1) 2^(e-1), or (4f - 1) 2^(e-2) where f is a
     * power of two and the double below is twice as close (the json gem
     * takes the closer bound for the smallest normal double too), brought to
     * m+'s exponent. */
    uint64_t upper = (f << 1) + 1;
    int shift = leading_zeros(upper);
    upper <<= shift;
    int upper_e = e - 1 - shift;
    int lower_shift = f == (1ULL << 52) ? 2 : 1;
    uint64_t lower = ((f << lower_shift) - 1) << (e - lower_shift - upper_e);
    uint64_t w = f << leading_zeros(f);

    int i = cached_power(upper_e);
    uint64_t c = jt_grisu_powers[i].f;
    /* One unit in from each end: the products' rounding errors can then not
     * carry a candidate outside the real interval. */
    uint64_t up = mul_rounded(upper, c) - 1;
    uint64_t low = mul_rounded(lower, c) + 1;
    uint64_t w_dist = up - mul_rounded(w, c);
    uint64_t delta = up - low;
    int point = -(upper_e + jt_grisu_powers[i].e + 64); /* 32..60 */
    int k0 = -(JT_GRISU_FIRST_EXP + JT_GRISU_STEP * i);

    uint64_t one = 1ULL << point;
    uint32_t integral = (uint32_t)(up >> point); /* at least 4: up >= 2^62 */
    uint64_t fraction = up & (one - 1);
    uint64_t d = 0;

    /* m+'s digits from its integral part, until what is left of m+ below the
     * digits fits in the interval. */
    int kappa = digit_count(integral);
    while (kappa > 0) {
        uint32_t unit = pow10_32[kappa - 1];
        uint32_t digit = integral / unit;
        integral -= digit * unit;
        d = d * 10 + digit;
        kappa--;
        uint64_t rest = ((uint64_t)integral << point) + fraction;
        if (rest <= delta) {
            *k = k0 + kappa;
            return weed(d, delta, rest, (uint64_t)unit << point, w_dist);
        }
    }
    /* Then from its fraction, the interval's width scaled along. */
    uint64_t scale = 10;
    for (;;) {
        fraction *= 10;
        delta *= 10;
        kappa--;
        d = d * 10 + (fraction >> point);
        fraction &= one - 1;
        if (fraction < delta) {
            *k = k0 + kappa;
            return weed(d, delta, fraction, one, w_dist * scale);
        }
        scale *= 10;
    }
}
