/* Oj mode's values (rails/oj_call.h): Floats and optimized times as Oj
 * writes them, and a record's values as Hash#as_json makes them and Oj then
 * writes them, which is how the record writer (record.c) writes records'
 * Hashes under Oj mode (jt_oj_records). */

#include "rails/oj_call.h"
#include "rails/record.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

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
bool jt_oj_float(jt_gen *g, VALUE obj)
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
size_t jt_oj_time_text(const jt_rails_settings *rails, VALUE obj, VALUE klass, char out[JT_TIME_TEXT_MAX])
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
void jt_oj_write_as_json_result(jt_gen *g, VALUE result)
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
VALUE jt_oj_call_as_json(jt_gen *g, VALUE obj, VALUE options)
{
    jt_before_ruby(g);
    if (options == Qundef) return rb_funcall(obj, jr.id_as_json, 0);
    return rb_funcall(obj, jr.id_as_json, 1, NIL_P(options) ? rb_hash_new() : rb_hash_dup(options));
}

static void as_json_float(jt_gen *g, VALUE value)
{
    jt_rails_call *call = jt_rails_call_of(g);
    if (RB_UNLIKELY(call->float_stock < 0)) {
        jt_before_ruby(g);
        call->float_stock = jt_rails_stock(rb_cFloat, JT_RAILS_FLOAT, jt_rails_of(g));
    }
    /* Float#as_json: the Float when finite, else nil, which oj_float writes. */
    if (RB_LIKELY(call->float_stock)) {
        jt_oj_float(g, value);
    } else {
        jt_oj_write_as_json_result(g, jt_oj_call_as_json(g, value, Qundef));
    }
}

static void as_json_value(jt_gen *g, VALUE value);

static void as_json_element(jt_gen *g, VALUE element, VALUE unused)
{
    (void)unused;
    as_json_value(g, element);
}

/* A plain Array's as_json, ActiveSupport's while array_stock says so: its
 * elements' as_json (a methods: value such as names read from an
 * association), each written as as_json_value writes it. */
static bool as_json_array(jt_gen *g, VALUE ary)
{
    jt_rails_call *call = jt_rails_call_of(g);
    if (RB_UNLIKELY(call->array_stock < 0)) {
        jt_before_ruby(g);
        call->array_stock = jt_rails_stock(rb_cArray, JT_RAILS_ARRAY, jt_rails_of(g));
    }
    if (!call->array_stock) return false;
    jt_rails_write_list(g, ary, as_json_element, Qnil);
    return true;
}

/* value.as_json as Hash#as_json calls it on serializable_hash's values,
 * then Oj's writing of what it returns: nil, booleans, Integers, Symbols
 * (to_s) and Strings are their own as_json; a Float's is itself or nil; a
 * Time's, TimeWithZone's or Date's is ActiveSupport's text, written here
 * while its as_json is ActiveSupport's; a plain Array's is its elements'.
 * The rest is asked of Ruby. */
static void as_json_value(jt_gen *g, VALUE value)
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
            as_json_float(g, value);
            return;
        case T_STRING:
            if (RBASIC_CLASS(value) == rb_cString) {
                jt_gen_value(g, value);
                return;
            }
            break;
        case T_ARRAY:
            if (RBASIC_CLASS(value) == rb_cArray && as_json_array(g, value)) return;
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
    jt_oj_write_as_json_result(g, jt_oj_call_as_json(g, value, Qundef));
}

const jt_record_mode jt_oj_records = {
    .value = as_json_value,
    .float_ = as_json_float,
    .json_columns = false, /* json_column.c writes ActiveSupport's numbers, not Oj's */
};
