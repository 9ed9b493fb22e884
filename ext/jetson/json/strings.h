#ifndef JETSON_JSON_STRINGS_H
#define JETSON_JSON_STRINGS_H

/* Strings in the json walk: whether a String's bytes go out as they are
 * (ASCII, or valid UTF-8), writing them escaped, and what the json gem does
 * with the others (strict mode's as_json, json 2's BINARY, transcoding:
 * strings.c). The inline checks are every String's. */

#include "json/walk.h"

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
VALUE jt_convert_encoding(jt_gen *g, VALUE str, bool as_json_called, bool is_key);
/* A String that came out of a conversion: its bytes may still be broken. */
void jt_write_string_bytes(jt_gen *g, VALUE str);

#endif
