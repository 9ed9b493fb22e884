/* Escaping loops, instantiated once per instruction set by escape.c:
 * JT_ESCAPE_NAME(f) names this instance's copy of f, and JT_ESCAPE_AVX2 adds
 * a 32-byte loop in front of the 16-byte one. Not a standalone header. */

#if JT_ESCAPE_AVX2
/* jt_vector_hits (escape.h), 32 bytes wide. */
JT_INLINE __m256i JT_ESCAPE_NAME(wide_hits)(__m256i v, int mode)
{
    __m256i hit = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
    hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1F)), v));
    if (mode & JT_ESCAPE_SCRIPT_SAFE) hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('/')));
    if (mode & JT_ESCAPE_E2) hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)0xE2)));
    if (mode & JT_ESCAPE_HTML) {
        hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('<')));
        hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('>')));
        hit = _mm256_or_si256(hit, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('&')));
    }
    if (mode & JT_ESCAPE_ASCII_ONLY) hit = _mm256_or_si256(hit, v);
    return hit;
}
#endif

#ifndef JT_COPY_CLEAN_BLOCKS
/* The loop of each block width below (AVX2's 32 bytes, the vectors' 16, a
 * word's 8): a block of `width` bytes loaded into `block` (LOAD, an
 * expression of p), stored whole (STORE: dst has the room), and HITS, a
 * mask of its bytes that need attention with LANE_BITS bits per byte; at
 * the first block with a hit, dst and p move to that byte and the loop
 * leaves for `special`. */
#define JT_COPY_CLEAN_BLOCKS(width, type, load, store, hits, lane_bits) \
    while (end - p >= (width)) {                                      \
        type block = (load);                                          \
        uint64_t hit_mask = (uint64_t)(hits);                         \
        store;                                                        \
        if (hit_mask) {                                               \
            int skip = __builtin_ctzll(hit_mask) / (lane_bits);       \
            dst += skip;                                              \
            p += skip;                                                \
            goto special;                                             \
        }                                                             \
        dst += (width);                                               \
        p += (width);                                                 \
    }
#endif

/* Escapes [p, end) into dst, which has room for 6 bytes per input byte (the
 * most any byte can grow: a control character becomes \u00XX) plus
 * JT_ESCAPE_SLACK. With that room guaranteed, runs are copied a vector or a
 * word at a time by storing what was just scanned, even past the character
 * that stops the run. */
JT_INLINE char *JT_ESCAPE_NAME(escape_into)(char *dst, const unsigned char *p, const unsigned char *end, int mode)
{
    for (;;) {
#if JT_ESCAPE_AVX2
        JT_COPY_CLEAN_BLOCKS(32, __m256i, _mm256_loadu_si256((const __m256i *)p),
                             _mm256_storeu_si256((__m256i *)dst, block),
                             (unsigned)_mm256_movemask_epi8(JT_ESCAPE_NAME(wide_hits)(block, mode)), 1)
#endif
#if JT_SIMD
        JT_COPY_CLEAN_BLOCKS(16, jt_vec, jt_vec_load(p), jt_vec_store(dst, block), jt_vector_attention(block, mode),
                             JT_VEC_MASK_BITS)
#endif
        /* Eight bytes at a time for what the vectors left (and for short strings). */
        JT_COPY_CLEAN_BLOCKS(8, uint64_t, load_word(p), memcpy(dst, &block, 8), jt_swar_attention(block, mode), 8)
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
                /* Non-ASCII text comes in runs (words, sentences): stay
                 * here until the run ends instead of rescanning. */
                do {
                    dst = escape_non_ascii(dst, &p, end);
                } while (p < end && *p >= 0x80);
            } else if (c == 0xE2 && end - p >= 3 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
                dst = write_u_escape(dst, p[2] == 0xA8 ? 0x2028 : 0x2029);
                p += 3;
            } else {
                *dst++ = (char)*p++; /* an ordinary 0xE2 lead byte */
            }
        }
    }
}

/* One copy per mode, so that each loop carries only its own checks. */
static char *JT_ESCAPE_NAME(escape_basic)(char *dst, const unsigned char *p, const unsigned char *end)
{
    return JT_ESCAPE_NAME(escape_into)(dst, p, end, JT_ESCAPE_BASIC);
}

static char *JT_ESCAPE_NAME(escape_script_safe)(char *dst, const unsigned char *p, const unsigned char *end)
{
    return JT_ESCAPE_NAME(escape_into)(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_SCRIPT_SAFE);
}

static char *JT_ESCAPE_NAME(escape_ascii_only)(char *dst, const unsigned char *p, const unsigned char *end)
{
    return JT_ESCAPE_NAME(escape_into)(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_ASCII_ONLY);
}

static char *JT_ESCAPE_NAME(escape_ascii_script_safe)(char *dst, const unsigned char *p, const unsigned char *end)
{
    return JT_ESCAPE_NAME(escape_into)(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_SCRIPT_SAFE | JT_ESCAPE_ASCII_ONLY);
}

static char *JT_ESCAPE_NAME(escape_rails)(char *dst, const unsigned char *p, const unsigned char *end)
{
    return JT_ESCAPE_NAME(escape_into)(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_JS_SEPARATORS);
}

static char *JT_ESCAPE_NAME(escape_rails_html)(char *dst, const unsigned char *p, const unsigned char *end)
{
    return JT_ESCAPE_NAME(escape_into)(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_JS_SEPARATORS | JT_ESCAPE_HTML);
}

/* escape_js_separators_in_json = false (ActiveSupport 8.1) with HTML entities. */
static char *JT_ESCAPE_NAME(escape_rails_html_only)(char *dst, const unsigned char *p, const unsigned char *end)
{
    return JT_ESCAPE_NAME(escape_into)(dst, p, end, JT_ESCAPE_BASIC | JT_ESCAPE_HTML);
}

/* Indexed by mode >> 1 (JT_ESCAPE_BASIC is always set); the json gem's four
 * combinations and ActiveSupport's three (its fourth, nothing escaped, is
 * the json gem's basic one). */
static escape_fn *const JT_ESCAPE_NAME(escape_by_mode)[JT_ESCAPE_MODES + 1] = {
    [0] = JT_ESCAPE_NAME(escape_basic),
    [JT_ESCAPE_SCRIPT_SAFE >> 1] = JT_ESCAPE_NAME(escape_script_safe),
    [JT_ESCAPE_ASCII_ONLY >> 1] = JT_ESCAPE_NAME(escape_ascii_only),
    [(JT_ESCAPE_SCRIPT_SAFE | JT_ESCAPE_ASCII_ONLY) >> 1] = JT_ESCAPE_NAME(escape_ascii_script_safe),
    [JT_ESCAPE_JS_SEPARATORS >> 1] = JT_ESCAPE_NAME(escape_rails),
    [(JT_ESCAPE_JS_SEPARATORS | JT_ESCAPE_HTML) >> 1] = JT_ESCAPE_NAME(escape_rails_html),
    [JT_ESCAPE_HTML >> 1] = JT_ESCAPE_NAME(escape_rails_html_only),
};
