/* Grisu2 (bytes/grisu2.h). Names follow the paper: w the value, m+ and m-
 * its boundaries (halfway to the neighbouring doubles), c~ a cached power of
 * ten, kappa the position of the digit being generated. */

#include "bytes/grisu2.h"

#include <string.h>

#include "jetson_grisu_powers.h"

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

static const uint32_t pow10_32[10] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

static const uint64_t pow10_64[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL,
};

/* The decimal digits of v > 0 (v < 2^32): the bit length pins them down to
 * two candidates, one compare picks. */
static inline int digit_count(uint32_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    int t = ((32 - __builtin_clz(v)) * 1233) >> 12;
    return t + (t < 10 && v >= pow10_32[t]);
#else
    int n = 1;
    while (n < 10 && v >= pow10_32[n]) n++;
    return n;
#endif
}

/* v / 10^k and v mod 10^k with constant divisors (multiplications). */
static inline uint32_t div_pow10(uint32_t v, int k)
{
    switch (k) {
    case 0: return v;
    case 1: return v / 10;
    case 2: return v / 100;
    case 3: return v / 1000;
    case 4: return v / 10000;
    case 5: return v / 100000;
    case 6: return v / 1000000;
    case 7: return v / 10000000;
    case 8: return v / 100000000;
    default: return v / 1000000000;
    }
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

    /* The cached power json picks for this exponent (grisu_powers_table.rb):
     * its product's exponent lands in [alpha, gamma]. */
    int i = jt_grisu_power_index[upper_e - JT_GRISU_MIN_BOUNDARY_EXP];
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

    /* m+'s digits from its integral part, until what is left of m+ below
     * the digits fits in the interval. What is left below digit k only grows
     * with k, so digit by digit from the top Grisu2 stops at the largest k
     * whose rest fits: found here directly. If even the fraction alone does
     * not fit, every integral digit is kept. */
    int kappa = 0;
    if (fraction <= delta) {
        /* rest(k) = (integral mod 10^k) * one + fraction <= delta holds for
         * every k with 10^k - 1 <= room; try the next ones up. */
        uint64_t room = (delta - fraction) >> point;
        int n = digit_count(integral);
        kappa = room >= 999999999 ? 9 : digit_count((uint32_t)room + 1) - 1;
        if (kappa > n - 1) kappa = n - 1;
        while (kappa + 1 <= n - 1 && integral - div_pow10(integral, kappa + 1) * pow10_32[kappa + 1] <= room) kappa++;
        uint32_t head = div_pow10(integral, kappa);
        uint64_t rest = ((uint64_t)(integral - head * pow10_32[kappa]) << point) + fraction;
        *k = k0 + kappa;
        return weed(head, delta, rest, (uint64_t)pow10_32[kappa] << point, w_dist);
    }
    d = integral;
    /* Then from its fraction, the interval's width scaled along: Grisu2
     * stops at the first j whose rest, fraction * 10^j mod one, is below
     * delta * 10^j. That rest over 10^j (what is left below digit j) only
     * shrinks with j, and it is below delta once delta * 10^j reaches one,
     * so the j is found from there down, each candidate one product. */
#if defined(__SIZEOF_INT128__) && !defined(JT_NO_INT128)
    /* 10^e <= 2^(point - bit length of delta) < one / delta for this e, so
     * the j sought is above it, most often just above. */
    int j = (((point - (64 - leading_zeros(delta))) * 1233) >> 12) + 1;
    while (delta * pow10_64[j] < one) j++;
    jt_grisu_u128 t = (jt_grisu_u128)fraction * pow10_64[j];
    while (j > 1) {
        jt_grisu_u128 shorter = (jt_grisu_u128)fraction * pow10_64[j - 1];
        if (((uint64_t)shorter & (one - 1)) >= delta * pow10_64[j - 1]) break;
        t = shorter;
        j--;
    }
    *k = k0 - j;
    return weed(d * pow10_64[j] + (uint64_t)(t >> point), delta * pow10_64[j], (uint64_t)t & (one - 1), one,
                w_dist * pow10_64[j]);
#else
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
#endif
}
