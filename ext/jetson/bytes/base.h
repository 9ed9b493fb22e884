#ifndef JETSON_BYTES_BASE_H
#define JETSON_BYTES_BASE_H

/* The base of every layer: Ruby's headers, the compiler macros, the
 * extension's handles (jt), and the few helpers every file uses. */

#include <ruby.h>
#include <ruby/encoding.h>
#include <ruby/ractor.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Ruby's headers define memcpy as ruby_nonempty_memcpy (NULL is allowed
 * when the size is 0), a plain `static inline` that gcc stops inlining in
 * large functions: the fixed-size copies of the hot paths (a digit pair, a
 * word of a key) became calls. No copy here passes NULL. */
#if defined(__GNUC__) && defined(memcpy)
#undef memcpy
#define memcpy __builtin_memcpy
#endif

#ifndef RB_UNLIKELY
#define RB_UNLIKELY(x) (x)
#define RB_LIKELY(x) (x)
#endif

#if defined(__GNUC__)
#define JT_INLINE static inline __attribute__((always_inline))
#define JT_NOINLINE __attribute__((noinline))
#define JT_EXPORT __attribute__((visibility("default")))
/* Formats go to rb_vsprintf, whose %-directives are printf's (and
 * PRIsVALUE, which Ruby's headers spell so that printf checks accept it). */
#define JT_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define JT_INLINE static inline
#define JT_NOINLINE
#define JT_EXPORT
#define JT_PRINTF(fmt, first)
#endif

/* JT_ASSERT(cond): an invariant the code rests on (room reserved before an
 * unchecked write, a length within its buffer), checked where JT_ASSERTS is
 * defined: the ASan+UBSan build (`rake compile:asan`, JETSON_ASSERTS=1 to
 * extconf.rb) and any build made with JETSON_ASSERTS=1. A broken one is a
 * bug of Jetson's, not an error a caller can rescue: rb_bug prints where
 * and both backtraces, then aborts, so a test run cannot pass over it. In
 * release builds it compiles to nothing: the condition is not evaluated
 * (sizeof only type-checks it, and keeps a variable read only by an
 * assertion from being reported unused). */
#ifdef JT_ASSERTS
#define JT_ASSERT(cond) \
    ((cond) ? (void)0 : rb_bug("Jetson: assertion failed: %s (%s:%d)", #cond, __FILE__, __LINE__))
#else
#define JT_ASSERT(cond) ((void)sizeof(!(cond)))
#endif

/* The handles every layer uses: the Jetson module, its errors, Ruby's
 * generic method IDs, encodings and the Ractor-local keys of this layer's
 * caches. Written once by Init_jetson and only read afterwards, which keeps
 * the extension free of mutable global state (and so Ractor-safe); the
 * json and Rails layers keep their own (json/json_handles.h, rails/rails_handles.h). */
typedef struct jt_handles {
    VALUE mJetson, cFragment, eGeneratorError, eNestingError;
    ID id_to_s, id_to_h, id_to_i, id_write, id_utc_p, id_start;
    rb_ractor_local_key_t symbol_names_key; /* see symbol_names.h */
    rb_ractor_local_key_t spare_buffer_key; /* see buffer.c */
    rb_ractor_local_key_t scratch_buffer_key; /* see buffer.c */
    rb_ractor_local_key_t large_size_key;   /* see buffer.c */
    int utf8_encindex, usascii_encindex, binary_encindex;
} jt_handles;

extern jt_handles jt;

/* Fills jt (Init_jetson, first). */
void jt_init_base(void);

/* Interns each name of a space-separated list into the ID each pointer of
 * `ids` (NULL-terminated, one per name) points to; the symbols' form
 * writes their static Symbols. For the handles every unit sets up once. */
void jt_intern_ids(const char *names, ID *const *ids);
void jt_intern_symbols(const char *names, VALUE *const *symbols);

/* String#== for names (attribute names, only:/except: lists), whose
 * encodings often differ (a Symbol's name is US-ASCII, a column's UTF-8):
 * rb_str_equal's answer, which differs from comparing bytes only when the
 * bytes are the same and the encodings are not. */
JT_INLINE bool jt_same_string(VALUE a, VALUE b)
{
    if (a == b) return true;
    if (!RB_TYPE_P(a, T_STRING) || !RB_TYPE_P(b, T_STRING)) return rb_str_equal(a, b) == Qtrue;
    long len = RSTRING_LEN(a);
    if (len != RSTRING_LEN(b) || memcmp(RSTRING_PTR(a), RSTRING_PTR(b), (size_t)len) != 0) return false;
    int ea = ENCODING_GET(a), eb = ENCODING_GET(b);
    if (ea == eb) return true;
    /* ASCII bytes in UTF-8 and US-ASCII: both 7-bit, so comparable. */
    if ((ea == jt.utf8_encindex || ea == jt.usascii_encindex) && (eb == jt.utf8_encindex || eb == jt.usascii_encindex)) {
        const unsigned char *p = (const unsigned char *)RSTRING_PTR(a);
        long i = 0;
        while (i < len && p[i] < 0x80) i++;
        if (i == len) return true;
    }
    return rb_str_equal(a, b) == Qtrue;
}

NORETURN(void jt_raise_generator_error(VALUE invalid_object, const char *fmt, ...)) JT_PRINTF(2, 3);
NORETURN(void jt_raise_generator_error_str(VALUE invalid_object, VALUE message));


#endif
