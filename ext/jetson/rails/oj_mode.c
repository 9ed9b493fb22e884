/* Oj's Rails mode (Oj.optimize_rails) as a mode of the json walk: the bytes
 * Oj::Rails::Encoder writes, for apps that made Oj ActiveSupport's encoder.
 *
 * The walk writes natively what Oj writes with fixed rules: nil, booleans,
 * Integers, Symbols, Strings that are ASCII or valid UTF-8 (Oj's RailsXEsc
 * escaping under escape_html_entities_in_json: '<', '>', '&', U+2028 and
 * U+2029; only '"', '\\' and control characters otherwise), Floats (see
 * oj_float), and Hashes and Arrays that Oj::Rails.optimize walks itself:
 * their pairs as they are, a Symbol key and its String spelling both
 * written, no as_json.
 *
 * Times and TimeWithZones that Oj optimizes are written natively too (see
 * oj_time_text). Everything else is Oj's to write, so Oj writes it: the
 * value goes to Oj::Rails.encode(value, options), the call ActiveSupport's
 * encoder makes (options: the encoder's, an empty Hash for none), and its
 * text is pasted in place. That covers objects with as_json (records,
 * BigDecimals, Oj's other optimized classes), subclasses of String, Hash
 * and Array, Strings in other encodings, and Hashes, Arrays and Times that
 * Oj hands to as_json (optimize off). Inside Oj's own walk such a value is
 * written with the same options and no indentation (Jetson::Rails::OjRules
 * checks Oj's defaults), so the pasted text is the text Oj writes there. */

#include "rails/oj_mode.h"
#include "rails/handles.h"
#include "json/walk.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Oj's walk raises past this depth (its MAX_DEPTH). */
#define OJ_MAX_DEPTH 1000

typedef struct oj_call {
    const jt_rails_settings *rails;
    VALUE oj_rails; /* Oj::Rails */
} oj_call;

static const oj_call *oj_call_of(const jt_gen *g)
{
    return (const oj_call *)g->mode_state;
}

/* Oj's text for value, pasted where the walk stands. The call's options
 * (the encoder's, none of them Oj's own: OjEncoder) are what Oj hands every
 * as_json; a copy, as Oj's encoder copies them, for as_json may write into
 * what it is given. */
static void paste_oj_text(jt_gen *g, VALUE value)
{
    jt_before_ruby(g);
    VALUE given = oj_call_of(g)->rails->options;
    VALUE options = given == Qundef ? rb_hash_new() : rb_hash_dup(given);
    VALUE text = rb_funcall(oj_call_of(g)->oj_rails, jj.id_encode, 2, value, options);
    StringValue(text);
    jt_buffer_append_str(g->buf, text);
    RB_GC_GUARD(text);
    RB_GC_GUARD(value);
}

/* Neither ASCII nor valid UTF-8: Oj converts or raises, its own way. */
static bool oj_string(jt_gen *g, VALUE str)
{
    paste_oj_text(g, str);
    return true;
}

/* A Hash or Array Oj::Rails.optimize does not walk: Oj asks its as_json. */
static bool oj_container(jt_gen *g, VALUE *container, bool hash)
{
    const jt_rails_settings *rails = oj_call_of(g)->rails;
    if (hash ? rails->oj_hashes : rails->oj_arrays) return true;
    paste_oj_text(g, *container);
    return false;
}

/* Oj writes every pair: {id: 1, "id" => 2} keeps both. */
static bool oj_mixed_keys(jt_gen *g, VALUE hash)
{
    (void)g;
    (void)hash;
    return true;
}

static bool oj_too_deep(jt_gen *g, long depth)
{
    (void)depth;
    --g->depth;
    rb_raise(rb_eNoMemError, "Too deeply nested.\n");
    return false;
}

/* Oj writes a Bignum's digits with rb_big2str, whatever Integer#to_s is. */
static void oj_integer(jt_gen *g, VALUE obj)
{
    if (RB_FIXNUM_P(obj)) {
        jt_buffer_reserve(g->buf, JT_LONG_MAX_CHARS);
        g->buf->len += (size_t)jt_write_long(FIX2LONG(obj), g->buf->ptr + g->buf->len);
        return;
    }
    jt_before_ruby(g);
    VALUE digits = rb_big2str(obj, 10);
    jt_buffer_append_str(g->buf, digits);
    RB_GC_GUARD(digits);
}

/* Float#to_s, as Oj calls it (redefined or not), written as it is. */
static void float_to_s(jt_gen *g, VALUE obj)
{
    jt_before_ruby(g);
    VALUE text = rb_funcall(obj, jt.id_to_s, 0);
    StringValue(text);
    jt_buffer_append_str(g->buf, text);
    RB_GC_GUARD(text);
}

static bool ends_with(const char *text, int n, const char *tail)
{
    return n >= 4 && memcmp(text + n - 4, tail, 4) == 0;
}

/* Oj's Rails-mode Float: 0.0 and -0.0; null for NaN and the infinities;
 * "%.1f" for a value that converts to a long long and back unchanged;
 * otherwise, where Oj::Rails.optimize covers Floats, 16 significant digits
 * ("%0.16g"), unless that text is 17 characters or more and ends in 0001 or
 * 9999 (a rounding artefact, Oj's test), which is left to Float#to_s, as
 * are all Floats where optimize does not cover them. The conversion test
 * is made in range only: out of range C leaves the cast undefined, and
 * x86-64, where Oj's test then fails, is what is matched. */
static bool oj_float(jt_gen *g, VALUE obj)
{
    double d = RFLOAT_VALUE(obj);
    char text[64];
    int n;
    if (d == 0.0) {
        n = signbit(d) ? 4 : 3;
        memcpy(text, signbit(d) ? "-0.0" : "0.0", (size_t)n);
    } else if (isnan(d) || isinf(d)) {
        n = 4;
        memcpy(text, "null", 4);
    } else if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(long long)d) {
        n = snprintf(text, sizeof(text), "%.1f", d);
    } else if (oj_call_of(g)->rails->oj_floats) {
        n = snprintf(text, sizeof(text), "%0.16g", d);
        if (n >= 17 && (ends_with(text, n, "0001") || ends_with(text, n, "9999"))) {
            float_to_s(g, obj);
            return true;
        }
    } else {
        float_to_s(g, obj);
        return true;
    }
    if (n < 0 || (size_t)n >= sizeof(text)) rb_raise(rb_eRuntimeError, "Float text too long");
    jt_buffer_append(g->buf, text, (size_t)n);
    return true;
}

/* A Time or TimeWithZone of Oj's optimized classes (the class itself: Oj
 * looks a subclass up and finds nothing): Oj's text is ActiveSupport's,
 * xmlschema with time_precision digits or the legacy "%Y/%m/%d %H:%M:%S %z",
 * from the same fields (the instant's seconds, floored nanoseconds, the
 * offset, utc? for "Z"), and OjRules checked that Oj's precision is
 * ActiveSupport's. Ruby's own Time fields only (jt_time_class_is_stock);
 * 0 outside years 1-9999 or with offsets that have seconds. */
static size_t oj_time_text(const jt_rails_settings *rails, VALUE obj, VALUE klass, char out[JT_TIME_TEXT_MAX])
{
    if (klass == rb_cTime) {
        if (!rails->oj_times || !jt_time_class_is_stock(klass)) return 0;
        return jt_rails_native_text(obj, JT_RAILS_TIME, rails, out);
    }
    if (klass == rails->time_with_zone && rails->oj_zoned_times) {
        return jt_rails_native_text(obj, JT_RAILS_TIME_WITH_ZONE, rails, out);
    }
    return 0;
}

static bool oj_object(jt_gen *g, VALUE obj, bool as_json_called)
{
    (void)as_json_called;
    char text[JT_TIME_TEXT_MAX];
    jt_before_ruby(g); /* TimeWithZone's offset and utc? are Ruby calls */
    size_t n = RB_SPECIAL_CONST_P(obj) ? 0 : oj_time_text(oj_call_of(g)->rails, obj, RBASIC_CLASS(obj), text);
    if (n) {
        jt_write_plain_text(g, text, n);
        return true;
    }
    paste_oj_text(g, obj);
    return true;
}

static const jt_mode oj_mode = {
    .string = oj_string,
    .container = oj_container,
    .mixed_keys = oj_mixed_keys,
    .too_deep = oj_too_deep,
    .integer = oj_integer,
    .float_ = oj_float,
    .object = oj_object,
    .symbols_as_names = true, /* oj_dump_sym: the name */
};

VALUE jt_generate_oj(VALUE obj, const jt_rails_settings *rails, VALUE oj_rails, jt_write_fn *write)
{
    jt_config cfg;
    jt_config_init(&cfg);
    cfg.max_nesting = OJ_MAX_DEPTH + 1;
    oj_call call = { .rails = rails, .oj_rails = oj_rails };
    int escape_mode = JT_ESCAPE_BASIC | (rails->escape_html ? JT_ESCAPE_JS_SEPARATORS | JT_ESCAPE_HTML : 0);
    VALUE result = jt_generate_mode(obj, &cfg, Qnil, &oj_mode, &call, escape_mode, write);
    RB_GC_GUARD(oj_rails);
    return result;
}
