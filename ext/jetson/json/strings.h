#ifndef JETSON_JSON_STRINGS_H
#define JETSON_JSON_STRINGS_H

/* Strings in the json walk: whether a String's bytes go out as they are
 * (ASCII, or valid UTF-8), writing them escaped, and what the json gem does
 * with the others (strict mode's as_json, json 2's BINARY, transcoding:
 * strings.c). The inline checks are every String's, and so is the
 * writer of short names that need no escaping (keys, values, elements). */

#include "json/json_walk.h"

/* strict mode's as_json(obj, is_key), the configuration's Proc. */
JT_INLINE VALUE jt_call_as_json(jt_gen *g, VALUE obj, VALUE is_key)
{
    jt_before_ruby(g);
    VALUE args[2] = { obj, is_key };
    return rb_proc_call_with_block(g->cfg->as_json, 2, args, Qnil);
}

JT_INLINE int jt_string_coderange(VALUE str)
{
    int cr = RB_ENC_CODERANGE(str);
    if (cr == RUBY_ENC_CODERANGE_UNKNOWN) cr = rb_enc_str_coderange(str);
    return cr;
}

/* True when the bytes can be written as they are: ASCII, or valid UTF-8. */
JT_INLINE bool jt_string_is_json_ready(VALUE str)
{
    int cr = jt_string_coderange(str);
    if (RB_LIKELY(cr == RUBY_ENC_CODERANGE_7BIT)) return true;
    if (cr == RUBY_ENC_CODERANGE_VALID) {
        int idx = RB_ENCODING_GET_INLINED(str);
        return idx == jt.utf8_encindex || idx == jt.usascii_encindex;
    }
    return false;
}

/* A String already known to be ASCII or valid UTF-8. */
JT_INLINE void jt_write_ready_string(jt_gen *g, VALUE str)
{
    jt_escape_string(g->buf, RSTRING_PTR(str), (size_t)RSTRING_LEN(str), g->escape_mode);
    RB_GC_GUARD(str);
}

/* A String that is not UTF-8 ready as the json gem converts it: strict
 * mode's as_json, json 2's BINARY as UTF-8, else transcoded (a
 * GeneratorError when it cannot be). */
/* Where a quoted name of len bytes goes, after an optional ',' and before
 * `more` bytes: at dst, or, when b is given, at the end of b after
 * reserving room there. */
JT_INLINE char *jt_plain_name_slot(jt_buffer *b, char *dst, size_t len, bool separator, size_t more)
{
    if (b) {
        jt_buffer_reserve(b, separator + len + 2 + more);
        dst = b->ptr + b->len;
    }
    *dst = ',';
    dst += separator;
    dst[0] = '"';
    dst[len + 1] = '"';
    return dst + 1;
}

/* Writes a String of 1..32 bytes that needs no escaping in this mode,
 * quoted (see jt_plain_name_slot), and returns the end of what it wrote; or
 * writes nothing and returns NULL. The bytes are held in registers while
 * room is reserved, which may run the GC, which may move the String. */
JT_INLINE char *jt_write_plain_name(jt_buffer *b, char *dst, VALUE str, int mode, bool separator, size_t more)
{
    if (!jt_string_is_json_ready(str)) return NULL;
    const size_t len = (size_t)RSTRING_LEN(str);
    const char *src = RSTRING_PTR(str);
    if (len - 1 < 16) { /* 1..16 bytes; 0 wraps around */
        jt_short_string s = jt_short_load(src, len);
        if (jt_short_attention(s.lo, s.hi, mode)) return NULL;
        dst = jt_plain_name_slot(b, dst, len, separator, more);
        jt_short_store(dst, len, s);
        return dst + len + 1;
    }
#if JT_SIMD
    if (len - 17 < 16) { /* 17..32 bytes: two overlapping vectors */
        jt_vec first = jt_vec_load(src);
        jt_vec last = jt_vec_load(src + len - 16);
        if (jt_vec_mask(jt_vec_or(jt_vector_hits(first, mode), jt_vector_hits(last, mode)))) return NULL;
        dst = jt_plain_name_slot(b, dst, len, separator, more);
        jt_vec_store(dst, first);
        jt_vec_store(dst + len - 16, last);
        return dst + len + 1;
    }
#endif
    return NULL;
}

VALUE jt_convert_encoding(jt_gen *g, VALUE str, bool as_json_called, bool is_key);
/* A String that came out of a conversion: its bytes may still be broken. */
void jt_write_string_bytes(jt_gen *g, VALUE str);

#endif
