/* rfc8785: true, the JSON Canonicalization Scheme as json 3.1 writes it.
 *
 * Two things differ from ordinary output: numbers are printed as ECMAScript
 * prints doubles (numbers.c: jt_write_jcs_double), and object keys are
 * Strings sorted by their UTF-16 code units. The sort compares the UTF-8
 * bytes themselves: byte order is code point order, which is UTF-16 order
 * except that characters past U+FFFF (4-byte UTF-8; surrogate pairs, 0xD800
 * and up, in UTF-16) come before U+E000..U+FFFF. Keys that are not plain
 * UTF-8 Strings or Symbols, strict mode's as_json, and colliding keys go to
 * Ruby (Jetson.rfc8785_hash), which does what json 3.1 does, errors and
 * messages included. */
#include "json/canonical.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "bytes/escape.h"
#include "bytes/numbers.h"

/* --- numbers ------------------------------------------------------------- */

static void canonical_double(jt_gen *g, double value)
{
    jt_buffer_reserve(g->buf, JT_DOUBLE_MAX_CHARS);
    g->buf->len += (size_t)jt_write_jcs_double(value, g->buf->ptr + g->buf->len);
}

/* json 3.1 converts an Integer to the nearest double first: exact up to
 * 2^53, rounded past it, and an error past the largest double. */
static void canonical_integer(jt_gen *g, VALUE obj)
{
    if (RB_FIXNUM_P(obj)) {
        long n = FIX2LONG(obj);
        if (n <= (1L << 53) && n >= -(1L << 53)) {
            jt_buffer_reserve(g->buf, JT_LONG_MAX_CHARS);
            g->buf->len += (size_t)jt_write_long(n, g->buf->ptr + g->buf->len);
        } else {
            canonical_double(g, (double)n);
        }
        return;
    }
    /* A Bignum, compared with ±Float::MAX exactly (not after rounding). */
    VALUE max = DBL2NUM(DBL_MAX);
    if (FIX2INT(rb_big_cmp(obj, max)) > 0 || FIX2INT(rb_big_cmp(obj, DBL2NUM(-DBL_MAX))) < 0) {
        jt_raise_generator_error(obj, "Integer out of range for RFC 8785");
    }
    canonical_double(g, rb_big2dbl(obj));
}

/* --- keys ---------------------------------------------------------------- */

struct sort_key {
    const unsigned char *bytes;
    long len;
    long index; /* of the pair in the collected Array */
};

static bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

/* UTF-16 code unit order of two valid UTF-8 strings (see the top). */
static int utf16_compare(const void *pa, const void *pb)
{
    const struct sort_key *a = pa, *b = pb;
    long n = a->len < b->len ? a->len : b->len;
    long i = 0;
    while (i < n && a->bytes[i] == b->bytes[i]) i++;
    if (i == n) return (a->len > b->len) - (a->len < b->len);
    /* The character that differs starts at the same place in both. */
    long start = i;
    while (start > 0 && is_continuation(a->bytes[start])) start--;
    unsigned char la = a->bytes[start], lb = b->bytes[start];
    if (la != lb) {
        bool astral_a = la >= 0xF0, astral_b = lb >= 0xF0;
        bool high_a = la == 0xEE || la == 0xEF, high_b = lb == 0xEE || lb == 0xEF;
        if (astral_a && high_b) return -1;
        if (astral_b && high_a) return 1;
    }
    return a->bytes[i] < b->bytes[i] ? -1 : 1;
}

/* Objects up to this many keys are sorted in arrays on the C stack: the
 * GC scans the stack conservatively, so the names and values held there stay
 * alive (and in place) however Ruby code run meanwhile changes the Hash.
 * Larger ones hold them in a hidden Array. */
#define JT_CANONICAL_STACK_PAIRS 32

struct collect {
    VALUE *stack;  /* name, value, name, value, ... when the Hash is small */
    VALUE pairs;   /* the same in a hidden Array otherwise (0 if unused) */
    long count;
    bool to_ruby;
};

static void collect_push(struct collect *c, VALUE name, VALUE value)
{
    if (c->pairs) {
        rb_ary_push(c->pairs, name);
        rb_ary_push(c->pairs, value);
    } else {
        c->stack[2 * c->count] = name;
        c->stack[2 * c->count + 1] = value;
    }
    c->count++;
}

JT_INLINE VALUE collected(const struct collect *c, long i)
{
    return c->pairs ? RARRAY_AREF(c->pairs, i) : c->stack[i];
}

/* The key's name when the native path can take it: a String or a Symbol
 * whose bytes are ASCII or valid UTF-8 in a UTF-8 or US-ASCII String. */
static VALUE plain_key_name(VALUE key)
{
    VALUE name;
    if (RB_SYMBOL_P(key)) {
        name = rb_sym2str(key);
    } else if (!RB_SPECIAL_CONST_P(key) && RBASIC_CLASS(key) == rb_cString) {
        name = key;
    } else {
        return 0;
    }
    int cr = RB_ENC_CODERANGE(name);
    if (cr == RUBY_ENC_CODERANGE_UNKNOWN) cr = rb_enc_str_coderange(name);
    if (cr == RUBY_ENC_CODERANGE_7BIT) return name;
    if (cr != RUBY_ENC_CODERANGE_VALID) return 0;
    int idx = RB_ENCODING_GET_INLINED(name);
    return idx == jt.utf8_encindex || idx == jt.usascii_encindex ? name : 0;
}

static int collect_i(VALUE key, VALUE value, VALUE data)
{
    struct collect *c = (struct collect *)data;
    VALUE name = plain_key_name(key);
    if (!name) {
        c->to_ruby = true;
        return ST_STOP;
    }
    collect_push(c, name, value);
    return ST_CONTINUE;
}

static void write_pair_separator(jt_gen *g, long i)
{
    if (i > 0) jt_buffer_push(g->buf, ',');
}

/* What Ruby's path returns: a new Hash of String keys in canonical order. */
static void write_sorted_hash(jt_gen *g, VALUE sorted)
{
    VALUE pairs = rb_funcall(sorted, rb_intern("to_a"), 0);
    jt_open_container(g, '{');
    for (long i = 0; i < RARRAY_LEN(pairs); i++) {
        VALUE pair = RARRAY_AREF(pairs, i);
        write_pair_separator(g, i);
        jt_gen_object_key(g, RARRAY_AREF(pair, 0));
        jt_buffer_push(g->buf, ':');
        jt_gen_value(g, RARRAY_AREF(pair, 1));
    }
    jt_close_container(g, '}');
    RB_GC_GUARD(pairs);
}

static void canonical_hash_in_ruby(jt_gen *g, VALUE hash)
{
    jt_before_ruby(g);
    const jt_config *cfg = g->cfg;
    /* json 3.1 passes strict mode's as_json, false when there is none (which
     * its errors then name), and nil outside strict mode. */
    VALUE as_json = cfg->strict ? cfg->as_json : Qnil;
    VALUE sorted = rb_funcall(jt.mJetson, rb_intern("rfc8785_hash"), 2, hash, as_json);
    Check_Type(sorted, T_HASH);
    write_sorted_hash(g, sorted);
    RB_GC_GUARD(sorted);
}

static void canonical_hash(jt_gen *g, VALUE hash)
{
    long size = (long)RHASH_SIZE(hash);
    if (g->cfg->strict && RTEST(g->cfg->as_json)) {
        canonical_hash_in_ruby(g, hash);
        return;
    }
    VALUE stack_pairs[2 * JT_CANONICAL_STACK_PAIRS];
    struct sort_key stack_keys[JT_CANONICAL_STACK_PAIRS];
    bool small = size <= JT_CANONICAL_STACK_PAIRS;
    struct collect c = { .stack = stack_pairs, .pairs = small ? 0 : rb_ary_tmp_new(2 * size), .count = 0 };
    rb_hash_foreach(hash, collect_i, (VALUE)&c);
    if (c.to_ruby) {
        canonical_hash_in_ruby(g, hash);
        return;
    }
    long n = c.count;
    VALUE keys_buffer = 0;
    struct sort_key *keys = small ? stack_keys : ALLOCV_N(struct sort_key, keys_buffer, n);
    /* Nothing allocates from here to the end of the sort: the pointers into
     * the names stay valid (the GC, which could move them, cannot run). */
    for (long i = 0; i < n; i++) {
        VALUE name = collected(&c, 2 * i);
        keys[i] = (struct sort_key){ (const unsigned char *)RSTRING_PTR(name), RSTRING_LEN(name), i };
    }
    qsort(keys, (size_t)n, sizeof(*keys), utf16_compare);
    bool collision = false;
    for (long i = 1; i < n && !collision; i++) {
        collision = keys[i].len == keys[i - 1].len && memcmp(keys[i].bytes, keys[i - 1].bytes, (size_t)keys[i].len) == 0;
    }
    if (collision) { /* json 3.1's error, from Ruby */
        if (keys_buffer) ALLOCV_END(keys_buffer);
        canonical_hash_in_ruby(g, hash);
        return;
    }
    /* The order, as indexes: writing may run the GC (and Ruby code). */
    long *order = (long *)keys;
    for (long i = 0; i < n; i++) order[i] = keys[i].index;

    jt_open_container(g, '{');
    for (long i = 0; i < n; i++) {
        long at = order[i];
        VALUE name = collected(&c, 2 * at);
        write_pair_separator(g, i);
        jt_escape_string(g->buf, RSTRING_PTR(name), (size_t)RSTRING_LEN(name), g->escape_mode);
        RB_GC_GUARD(name);
        jt_buffer_push(g->buf, ':');
        jt_gen_value(g, collected(&c, 2 * at + 1));
    }
    jt_close_container(g, '}');
    if (keys_buffer) ALLOCV_END(keys_buffer);
    RB_GC_GUARD(c.pairs);
    RB_GC_GUARD(hash);
}

/* ArgumentError for an option json 3.1 does not allow with rfc8785, in its
 * order. */
/* --- the mode ------------------------------------------------------------ */

/* A finite Float in ECMAScript's layout; NaN and the Infinities are the
 * json gem's (an error: allow_nan is refused with rfc8785). */
static bool canonical_float(jt_gen *g, VALUE obj)
{
    double value = RFLOAT_VALUE(obj);
    if (!isfinite(value)) return false;
    canonical_double(g, value);
    return true;
}

/* A Hash in its keys' order; Arrays are the walk's. */
static bool canonical_container(jt_gen *g, VALUE *container, bool hash)
{
    if (!hash) return true;
    canonical_hash(g, *container);
    return false;
}

const jt_mode jt_canonical_mode = {
    .container = canonical_container,
    .integer = canonical_integer,
    .float_ = canonical_float,
};

void jt_canonical_validate(const jt_config *cfg)
{
    if (!cfg->rfc8785) return;
    const char *option = cfg->indent ? "indent" :
                         cfg->space ? "space" :
                         cfg->space_before ? "space_before" :
                         cfg->object_nl ? "object_nl" :
                         cfg->array_nl ? "array_nl" :
                         cfg->ascii_only ? "ascii_only" :
                         cfg->script_safe ? "script_safe" :
                         cfg->allow_nan ? "allow_nan" : NULL;
    if (option) rb_raise(rb_eArgError, "%s cannot be used with rfc8785", option);
}
