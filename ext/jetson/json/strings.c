/* Strings the json gem converts before writing them (json/strings.h),
 * and text written as a JSON string. */

#include "json/strings.h"


static VALUE encode_to_utf8(VALUE str)
{
    return rb_funcall(str, jj.id_encode, 1, rb_enc_from_encoding(rb_utf8_encoding()));
}

static VALUE encode_failed(VALUE str, VALUE error)
{
    jt_raise_generator_error_str(str, rb_funcall(error, rb_intern("message"), 0));
    return Qnil;
}

/* A String that is not UTF-8 ready: strict mode's as_json gets the first
 * say; BINARY that holds valid UTF-8 is reinterpreted; anything else is
 * transcoded, and failure to transcode is a GeneratorError. */
JT_NOINLINE VALUE jt_convert_encoding(jt_gen *g, VALUE str, bool as_json_called, bool is_key)
{
    jt_before_ruby(g);
    if (!as_json_called && g->cfg->strict && RTEST(g->cfg->as_json)) {
        VALUE coerced = jt_call_as_json(g, str, Qfalse);
        if (coerced != str) {
            if (RB_TYPE_P(coerced, T_STRING)) {
                if (!jt_string_is_json_ready(coerced)) {
                    jt_raise_generator_error(str, "source sequence is illegal/malformed utf-8");
                }
            } else if (is_key) {
                jt_raise_generator_error(coerced, "%"PRIsVALUE" not allowed as object key in JSON", CLASS_OF(coerced));
            }
            return coerced;
        }
    }

    /* json 2 reinterpreted BINARY as UTF-8 (with a warning); json 3.1
     * transcodes it like any other encoding, which fails past ASCII. */
    if (!jj.json3 && RB_ENCODING_GET_INLINED(str) == jt.binary_encindex) {
        VALUE utf8 = rb_enc_associate_index(rb_str_dup(str), jt.utf8_encindex);
        switch (rb_enc_str_coderange(utf8)) {
            case RUBY_ENC_CODERANGE_7BIT:
                return utf8;
            case RUBY_ENC_CODERANGE_VALID:
                rb_warn("Jetson.generate: UTF-8 string passed as BINARY, this will raise an encoding error in json 3.0");
                return utf8;
        }
    }
    return rb_rescue(encode_to_utf8, str, encode_failed, str);
}

/* A String that came out of a conversion: its bytes may still be broken. */
static void write_string_bytes(jt_gen *g, VALUE str)
{
    int cr = jt_string_coderange(str);
    if (RB_UNLIKELY(cr != RUBY_ENC_CODERANGE_7BIT && cr != RUBY_ENC_CODERANGE_VALID)) {
        jt_raise_generator_error(str, "source sequence is illegal/malformed utf-8");
    }
    jt_write_ready_string(g, str);
}

/* Any T_STRING value (the json gem's generate_json_string). as_json gets one
 * say per value: once it has been called, a String that is still not UTF-8 is
 * an error, so a callback cannot bounce a value back and forth forever. */
void jt_gen_string(jt_gen *g, VALUE str, bool as_json_called)
{
    if (RB_LIKELY(jt_string_is_json_ready(str))) {
        jt_write_ready_string(g, str);
        return;
    }
    if (RB_UNLIKELY(g->mode && g->mode->string) && g->mode->string(g, str)) return;
    if (as_json_called) jt_raise_generator_error(str, "source sequence is illegal/malformed utf-8");
    str = jt_convert_encoding(g, str, false, false);
    if (!RB_TYPE_P(str, T_STRING)) {
        jt_gen_converted_value(g, str); /* what as_json returned */
        return;
    }
    write_string_bytes(g, str);
}


void jt_write_string_bytes(jt_gen *g, VALUE str)
{
    write_string_bytes(g, str);
}

/* A JSON string of text that needs no escaping in any mode (the digits,
 * separators and letters of the time and date formats). */
void jt_write_plain_text(jt_gen *g, const char *text, size_t n)
{
    jt_buffer_reserve(g->buf, n + 2);
    jt_buffer_push_unsafe(g->buf, '"');
    memcpy(g->buf->ptr + g->buf->len, text, n);
    g->buf->len += n;
    jt_buffer_push_unsafe(g->buf, '"');
}

