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
 * oj_time_text), and so are ActiveRecord records and relations (see
 * oj_record): Oj asks their as_json, which ActiveModel answers with
 * serializable_hash(options).as_json, a Hash of JSON-ready values that Oj
 * then walks; Jetson writes that Hash from the record's attribute set
 * (record.c), each value as its as_json makes it and Oj writes it.
 *
 * Everything else is Oj's to write, so Oj writes it: the value goes to
 * Oj::Rails.encode(value, options), the call ActiveSupport's encoder makes
 * (options: the encoder's, an empty Hash for none; none inside an as_json
 * result), and its text is pasted in place. That covers objects with
 * as_json (BigDecimals, Oj's other optimized classes, a model's own
 * as_json), subclasses of String, Hash and Array, Strings in other
 * encodings, and Hashes, Arrays and Times that Oj hands to as_json
 * (optimize off). Inside Oj's own walk such a value is written with the
 * same options and no indentation (Jetson::Rails::OjRules checks Oj's
 * defaults), so the pasted text is the text Oj writes there. */

#include "rails/oj_mode.h"
#include "rails/handles.h"
#include "rails/walk.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Oj's walk raises past this depth (its MAX_DEPTH). */
#define OJ_MAX_DEPTH 1000

/* The call's state. It starts with Rails mode's (jt_rails_call_of reads
 * it), which record.c and the attribute sets use for records: their plans,
 * profiles and casts. Its as_json_options are the options Oj hands the
 * objects met where the walk stands: the call's (Qnil: the empty Hash Oj's
 * encoder holds when it was given none), and none (Qundef) inside a
 * record's Hash or an as_json result, which Oj walks without them. */
typedef struct oj_call {
    jt_rails_call records; /* first: see above */
    VALUE oj_rails;        /* Oj::Rails */
    /* The call's options name Oj's only: or except:, which Oj applies to the
     * keys of the Hashes it walks outside as_json results (see oj_container);
     * Oj::Rails.encode does not, so what Oj writes there is written by an
     * Oj::Rails::Encoder of the call's options (made on first need; on the
     * C stack, where the GC sees it). */
    bool key_filter;
    VALUE filter_encoder;
} oj_call;

static const oj_call *oj_call_of(const jt_gen *g)
{
    return (const oj_call *)g->mode_state;
}

/* Oj's text for value, pasted where the walk stands. The options where it
 * stands (the encoder's, none of them Oj's own: OjEncoder) are what Oj hands
 * every as_json; a copy, as Oj's encoder copies them, for as_json may write
 * into what it is given. */
static void paste_oj_text(jt_gen *g, VALUE value)
{
    jt_before_ruby(g);
    VALUE given = jt_rails_call_of(g)->as_json_options;
    oj_call *call = (oj_call *)g->mode_state;
    VALUE oj_rails = call->oj_rails, text;
    if (given == Qundef) {
        text = rb_funcall(oj_rails, jj.id_encode, 1, value);
    } else if (call->key_filter) {
        if (!call->filter_encoder) {
            VALUE encoder_class = rb_const_get(oj_rails, rb_intern("Encoder"));
            call->filter_encoder = rb_funcall(encoder_class, rb_intern("new"), 1, given);
        }
        text = rb_funcall(call->filter_encoder, jj.id_encode, 1, value); /* hands as_json a copy */
    } else {
        text = rb_funcall(oj_rails, jj.id_encode, 2, value, NIL_P(given) ? rb_hash_new() : rb_hash_dup(given));
    }
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

/* A Hash or Array Oj::Rails.optimize does not walk: Oj asks its as_json.
 * A Hash under the call's only: or except: (Oj's key filter): Oj writes it
 * with them, as it writes it where the walk stands. */
static bool oj_container(jt_gen *g, VALUE *container, bool hash)
{
    const jt_rails_settings *rails = jt_rails_of(g);
    bool filtered = hash && oj_call_of(g)->key_filter && jt_rails_call_of(g)->as_json_options != Qundef;
    if (!filtered && (hash ? rails->oj_hashes : rails->oj_arrays)) return true;
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
    } else if (jt_rails_of(g)->oj_floats) {
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

/* What an as_json returned, written as Oj walks it: with no options, so
 * that objects in it go to Oj without the call's. */
static void write_as_json_result(jt_gen *g, VALUE result)
{
    jt_rails_call *call = jt_rails_call_of(g);
    VALUE saved = call->as_json_options;
    call->as_json_options = Qundef;
    jt_gen_value(g, result);
    call->as_json_options = saved;
    RB_GC_GUARD(result);
}

/* obj.as_json(options) as Oj (or ActiveSupport's Array#as_json) calls it:
 * a copy of the options (Qnil: an empty Hash), or none (Qundef). */
static VALUE call_as_json(jt_gen *g, VALUE obj, VALUE options)
{
    jt_before_ruby(g);
    if (options == Qundef) return rb_funcall(obj, jr.id_as_json, 0);
    return rb_funcall(obj, jr.id_as_json, 1, NIL_P(options) ? rb_hash_new() : rb_hash_dup(options));
}

void jt_oj_as_json_float(jt_gen *g, VALUE value)
{
    jt_rails_call *call = jt_rails_call_of(g);
    if (RB_UNLIKELY(call->float_stock < 0)) {
        jt_before_ruby(g);
        call->float_stock = jt_rails_stock(rb_cFloat, JT_RAILS_FLOAT, jt_rails_of(g));
    }
    /* Float#as_json: the Float when finite, else nil, which oj_float writes. */
    if (RB_LIKELY(call->float_stock)) {
        oj_float(g, value);
    } else {
        write_as_json_result(g, call_as_json(g, value, Qundef));
    }
}

/* A plain Array's as_json, ActiveSupport's while array_stock says so: its
 * elements' as_json (a methods: value such as names read from an
 * association), each written as jt_oj_as_json_value writes it. Ruby code
 * may run between elements: the length is read again each time. */
static bool oj_as_json_array(jt_gen *g, VALUE ary)
{
    jt_rails_call *call = jt_rails_call_of(g);
    if (RB_UNLIKELY(call->array_stock < 0)) {
        jt_before_ruby(g);
        call->array_stock = jt_rails_stock(rb_cArray, JT_RAILS_ARRAY, jt_rails_of(g));
    }
    if (!call->array_stock) return false;
    jt_enter_container(g);
    jt_buffer_push(g->buf, '[');
    for (long i = 0; i < RARRAY_LEN(ary); i++) {
        if (i > 0) jt_buffer_push(g->buf, ',');
        jt_oj_as_json_value(g, RARRAY_AREF(ary, i));
    }
    g->depth--;
    jt_buffer_push(g->buf, ']');
    RB_GC_GUARD(ary);
    return true;
}

/* value.as_json as Hash#as_json calls it on serializable_hash's values,
 * then Oj's writing of what it returns: nil, booleans, Integers, Symbols
 * (to_s) and Strings are their own as_json; a Float's is itself or nil; a
 * Time's, TimeWithZone's or Date's is ActiveSupport's text, written here
 * while its as_json is ActiveSupport's; a plain Array's is its elements'.
 * The rest is asked of Ruby. */
void jt_oj_as_json_value(jt_gen *g, VALUE value)
{
    switch (rb_type(value)) {
        case T_NIL:
        case T_TRUE:
        case T_FALSE:
        case T_FIXNUM:
        case T_BIGNUM:
        case T_SYMBOL:
            jt_gen_value(g, value);
            return;
        case T_FLOAT:
            jt_oj_as_json_float(g, value);
            return;
        case T_STRING:
            if (RBASIC_CLASS(value) == rb_cString) {
                jt_gen_value(g, value);
                return;
            }
            break;
        case T_ARRAY:
            if (RBASIC_CLASS(value) == rb_cArray && oj_as_json_array(g, value)) return;
            break;
        case T_OBJECT:
        case T_DATA: {
            jt_before_ruby(g);
            struct jt_rails_profile scratch;
            struct jt_rails_profile *p = jt_rails_profile(g, value, &scratch);
            char text[JT_TIME_TEXT_MAX];
            size_t n = p->stock ? jt_rails_native_text(value, p->kind, jt_rails_of(g), text) : 0;
            if (n) {
                jt_write_plain_text(g, text, n);
                return;
            }
            break;
        }
        default:
            break;
    }
    write_as_json_result(g, call_as_json(g, value, Qundef));
}

/* Whether Oj::Rails.optimize covers p's class itself (asked once per class
 * and call): Oj then writes a record's @attributes, or a relation as an
 * Enumerable, its own way. */
static bool oj_optimizes(jt_gen *g, struct jt_rails_profile *p)
{
    if (p->oj_optimized < 0) {
        jt_before_ruby(g);
        p->oj_optimized = RTEST(rb_funcall(oj_call_of(g)->oj_rails, rb_intern("optimized?"), 1, p->klass));
    }
    return p->oj_optimized;
}

/* One record as ActiveModel's as_json(options) makes it: natively while its
 * as_json and serialization are ActiveModel's and ActiveRecord's (record.c),
 * else through its as_json, whose result Oj walks. */
static void oj_record_as_json(jt_gen *g, VALUE record, struct jt_rails_profile *p, VALUE options)
{
    if (p->kind == JT_RAILS_MODEL && p->stock && jt_record_model_oj(g, record, p, options == Qundef ? Qnil : options)) {
        return;
    }
    if (p->kind == JT_RAILS_MODEL && !p->stock) {
        jt_before_ruby(g);
        jt_attribute_fallback(&jt_rails_call_of(g)->attribute_access, JT_DIAG_RECORDS, JT_WHY_AS_JSON,
                              rb_obj_class(record), Qnil);
    }
    write_as_json_result(g, call_as_json(g, record, options));
}

/* An ActiveRecord record or relation (an association's proxy too) that Oj's
 * walk meets: Oj asks its as_json with the options where the walk stands,
 * unless Oj::Rails.optimize names its class. A relation's as_json is its
 * records' (Array#as_json: each record's as_json with a copy of the
 * options, never Oj's own path). False: Oj writes it (the caller pastes its
 * text). */
static bool oj_record(jt_gen *g, VALUE obj)
{
    jt_before_ruby(g);
    struct jt_rails_profile scratch;
    struct jt_rails_profile *p = jt_rails_profile(g, obj, &scratch);
    if (p->kind != JT_RAILS_MODEL && p->kind != JT_RAILS_RELATION) return false;
    VALUE options = jt_rails_call_of(g)->as_json_options;
    if (oj_optimizes(g, p)) {
        if (p->kind == JT_RAILS_MODEL) {
            jt_attribute_fallback(&jt_rails_call_of(g)->attribute_access, JT_DIAG_RECORDS, JT_WHY_OJ_OPTIMIZED,
                                  rb_obj_class(obj), Qnil);
        }
        return false;
    }
    if (p->kind == JT_RAILS_MODEL) {
        if (!p->stock) {
            /* Its own as_json, which Oj calls as it calls it (arity and all). */
            jt_attribute_fallback(&jt_rails_call_of(g)->attribute_access, JT_DIAG_RECORDS, JT_WHY_AS_JSON,
                                  rb_obj_class(obj), Qnil);
            return false;
        }
        oj_record_as_json(g, obj, p, options);
        return true;
    }
    if (!p->stock) return false;
    VALUE records = rb_funcall(obj, jr.id_records, 0);
    Check_Type(records, T_ARRAY);
    jt_enter_container(g);
    jt_buffer_push(g->buf, '[');
    for (long i = 0; i < RARRAY_LEN(records); i++) {
        if (i > 0) jt_buffer_push(g->buf, ',');
        VALUE record = RARRAY_AREF(records, i);
        struct jt_rails_profile element_scratch;
        jt_before_ruby(g);
        oj_record_as_json(g, record, jt_rails_profile(g, record, &element_scratch), options);
    }
    g->depth--;
    jt_buffer_push(g->buf, ']');
    RB_GC_GUARD(records);
    return true;
}

static bool oj_object(jt_gen *g, VALUE obj, bool as_json_called)
{
    (void)as_json_called;
    char text[JT_TIME_TEXT_MAX];
    jt_before_ruby(g); /* TimeWithZone's offset and utc? are Ruby calls */
    size_t n = RB_SPECIAL_CONST_P(obj) ? 0 : oj_time_text(jt_rails_of(g), obj, RBASIC_CLASS(obj), text);
    if (n) {
        jt_write_plain_text(g, text, n);
        return true;
    }
    if (!RB_SPECIAL_CONST_P(obj) && RB_BUILTIN_TYPE(obj) == T_OBJECT && oj_record(g, obj)) return true;
    paste_oj_text(g, obj);
    return true;
}

static void oj_finish(jt_gen *g)
{
    jt_attribute_access_finish(&jt_rails_call_of(g)->attribute_access);
}

static const jt_mode oj_mode = {
    .string = oj_string,
    .container = oj_container,
    .mixed_keys = oj_mixed_keys,
    .too_deep = oj_too_deep,
    .integer = oj_integer,
    .float_ = oj_float,
    .object = oj_object,
    .finish = oj_finish,
    .symbols_as_names = true, /* oj_dump_sym: the name */
};

VALUE jt_generate_oj(VALUE obj, const jt_rails_settings *rails, VALUE oj_rails, jt_write_fn *write)
{
    jt_config cfg;
    jt_config_init(&cfg);
    cfg.max_nesting = OJ_MAX_DEPTH + 1;
    oj_call call;
    jt_rails_call_start(&call.records, rails);
    call.oj_rails = oj_rails;
    /* Oj's encoder hands as_json an empty Hash where it was given none. */
    VALUE options = call.records.as_json_options;
    if (options == Qundef) call.records.as_json_options = Qnil;
    call.filter_encoder = 0;
    call.key_filter = options != Qundef && (rb_hash_lookup2(options, jr.sym_only, Qundef) != Qundef ||
                                            rb_hash_lookup2(options, jr.sym_except, Qundef) != Qundef);
    int escape_mode = JT_ESCAPE_BASIC | (rails->escape_html ? JT_ESCAPE_JS_SEPARATORS | JT_ESCAPE_HTML : 0);
    VALUE result = jt_generate_mode(obj, &cfg, Qnil, &oj_mode, &call, escape_mode, write);
    RB_GC_GUARD(oj_rails);
    return result;
}
