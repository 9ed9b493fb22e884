/* Database values written as their cast would be encoded (see db_cast.h).
 * Each kind below follows the cast of ActiveModel/ActiveRecord 7.2 for the
 * raw values the sqlite3, pg, mysql2 and trilogy adapters hand over:
 *
 *   integer   deserialize: nil if blank?, else to_i
 *   float     Float as is; "Infinity", "-Infinity", "NaN"; else to_f
 *   decimal   BigDecimal(value, precision) for Numerics (exact for
 *             Integers and BigDecimals), String#to_d for Strings; then
 *             round(scale); encoded as to_s("F") in a JSON string
 *   string    the same bytes (String.new, or to_s.freeze)
 *   boolean   "" => nil, FALSE_VALUES (a Set: eql?) => false, else true
 *   date      "YYYY-MM-DD" => Date.new (nil when invalid); a Date as is
 *   datetime  a String: fast_string_to_time as the running Ruby has it
 *             (db_cast_times.c): before Ruby 3.2 ISO_DATETIME => Time.utc /
 *             Time.local (an offset: the instant, then getlocal unless
 *             UTC), from 3.2 Time.new(string) (nanoseconds, "Z" a UTC Time,
 *             an offset kept); a String's cast keeps its digits. A Time:
 *             its seconds precision applied. Then, when time zone aware,
 *             in_time_zone
 *   time      the same on 2000-01-01; when time zone aware, ActiveRecord
 *             8.0 on then moves the TimeWithZone to 2000-01-01 (change)
 *   json      ActiveSupport::JSON.decode (json_column.c)
 *   uuid      a canonical UUID as is
 *   enum      mapping.key(the subtype's cast)
 *
 * Every kind refuses what it does not settle exactly, before writing. */

#include "rails/walk.h"
#include "rails/db_cast.h"
#include "rails/db_cast_internal.h"
#include "rails/stock_memo.h"

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    ID json_decode, context, time_of_day;
} h;

bool jt_db_cast_read(VALUE d, jt_db_cast *cast)
{
    cast->kind = JT_CAST_NONE;
    if (!RB_TYPE_P(d, T_ARRAY) || RARRAY_LEN(d) < 7 || !FIXNUM_P(RARRAY_AREF(d, 0))) return false;
    long kind = FIX2LONG(RARRAY_AREF(d, 0));
    if (kind <= JT_CAST_NONE || kind >= JT_CAST_KINDS) return false;
    VALUE precision = RARRAY_AREF(d, 1), scale = RARRAY_AREF(d, 2), timezone = RARRAY_AREF(d, 4);
    VALUE labels = RARRAY_AREF(d, 5), subkind = RARRAY_AREF(d, 6);
    cast->precision = FIXNUM_P(precision) && FIX2LONG(precision) >= 0 && FIX2LONG(precision) <= 9
                          ? (int8_t)FIX2LONG(precision) : -1;
    cast->scale = FIXNUM_P(scale) && FIX2LONG(scale) >= 0 && FIX2LONG(scale) <= 1000 ? (int16_t)FIX2LONG(scale) : -1;
    cast->zone_aware = RTEST(RARRAY_AREF(d, 3));
    cast->time_of_day = kind == JT_CAST_TIME && RARRAY_AREF(d, 3) == ID2SYM(h.time_of_day);
    cast->timezone = NIL_P(timezone) ? -1 : timezone == ID2SYM(rb_intern("utc")) ? 1 : 0;
    cast->labels = labels;
    cast->enum_subkind = FIXNUM_P(subkind) ? (uint8_t)FIX2LONG(subkind) : 0;
    if (kind == JT_CAST_ENUM) {
        if (!RB_TYPE_P(labels, T_HASH) || RBASIC_CLASS(labels) != rb_cHash) return false;
        if (cast->enum_subkind != JT_CAST_INTEGER && cast->enum_subkind != JT_CAST_STRING) return false;
    }
    cast->kind = (uint8_t)kind;
    return true;
}

bool jt_db_context_ready(jt_gen *g, jt_db_context *c)
{
    if (RB_LIKELY(c->known >= 0)) return c->known;
    jt_before_ruby(g);
    return jt_db_context_load(c);
}

bool jt_db_context_load(jt_db_context *c)
{
    if (c->known >= 0) return c->known;
    VALUE context = rb_funcall(jr.mDbCast, h.context, 0);
    c->known = RB_TYPE_P(context, T_ARRAY) && RARRAY_LEN(context) >= 5;
    if (!c->known) return false;
    c->zone = RARRAY_AREF(context, 0);
    c->default_utc = RTEST(RARRAY_AREF(context, 1));
    /* ActiveSupport::JSON.decode as shipped: a question kept with its methods (stock_memo.c) */
    c->json_stock = !RTEST(RARRAY_AREF(context, 2)) && RTEST(jt_stock_memo_ask(jr.mRails, h.json_decode, Qnil));
    c->relation_class = RARRAY_AREF(context, 3);
    c->proxy_class = RARRAY_AREF(context, 4);
    c->decimal_half_up = RARRAY_LEN(context) > 5 && RTEST(RARRAY_AREF(context, 5));
    VALUE rules = RARRAY_LEN(context) > 6 ? RARRAY_AREF(context, 6) : Qnil;
    c->time_strings = rules == INT2FIX(JT_TIME_STRINGS_REGEX) || rules == INT2FIX(JT_TIME_STRINGS_TIME_NEW)
                          ? (uint8_t)FIX2LONG(rules) : JT_TIME_STRINGS_UNKNOWN;
    c->time_stock = c->zone_time_stock = c->date_stock = c->decimal_stock = -1;
    c->zone_period_count = c->local_period_count = c->shift_count = 0;
    RB_GC_GUARD(context);
    return true;
}

/* Whether values of klass still encode as ActiveSupport's kind does; asked
 * once per call. */
bool jt_db_class_stock(jt_gen *g, signed char *known, VALUE klass, enum jt_rails_kind kind)
{
    if (RB_UNLIKELY(*known < 0)) {
        jt_before_ruby(g);
        *known = !NIL_P(klass) && jt_rails_stock(klass, kind, jt_rails_of(g));
    }
    return *known;
}

/* --- the rest ----------------------------------------------------------------- */

static bool same_text(VALUE str, const char *text)
{
    long n = (long)strlen(text);
    return RSTRING_LEN(str) == n && memcmp(RSTRING_PTR(str), text, (size_t)n) == 0;
}

static bool write_boolean(jt_gen *g, VALUE raw)
{
    VALUE value;
    if (raw == Qtrue || raw == Qfalse) {
        value = raw;
    } else if (RB_INTEGER_TYPE_P(raw)) {
        value = raw == INT2FIX(0) ? Qfalse : Qtrue;
    } else if (RB_FLOAT_TYPE_P(raw)) {
        value = Qtrue; /* FALSE_VALUES is a Set: 0.0 is not eql? to 0 */
    } else if (RB_TYPE_P(raw, T_STRING) && RBASIC_CLASS(raw) == rb_cString) {
        if (RSTRING_LEN(raw) == 0) {
            value = Qnil;
        } else {
            static const char *const false_texts[] = {"0", "f", "F", "false", "FALSE", "off", "OFF"};
            value = Qtrue;
            int enc = ENCODING_GET(raw);
            if (enc != jt.utf8_encindex && enc != jt.usascii_encindex && enc != jt.binary_encindex) return false;
            for (size_t i = 0; i < sizeof(false_texts) / sizeof(false_texts[0]); i++) {
                if (same_text(raw, false_texts[i])) value = Qfalse;
            }
        }
    } else {
        return false;
    }
    jt_gen_value(g, value);
    return true;
}

static bool hex_digits(const char *p, int n)
{
    for (int i = 0; i < n; i++) {
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return false;
    }
    return true;
}

/* A canonical UUID is its own cast; other spellings are reformatted in Ruby. */
static bool write_uuid(jt_gen *g, VALUE raw)
{
    if (!RB_TYPE_P(raw, T_STRING) || RSTRING_LEN(raw) != 36) return false;
    const char *p = RSTRING_PTR(raw);
    if (!hex_digits(p, 8) || p[8] != '-' || !hex_digits(p + 9, 4) || p[13] != '-' || !hex_digits(p + 14, 4) ||
        p[18] != '-' || !hex_digits(p + 19, 4) || p[23] != '-' || !hex_digits(p + 24, 12)) {
        return false;
    }
    char text[36];
    memcpy(text, p, 36);
    jt_write_plain_text(g, text, 36);
    RB_GC_GUARD(raw);
    return true;
}

static bool write_enum(jt_gen *g, const jt_db_cast *cast, VALUE raw)
{
    VALUE value;
    if (cast->enum_subkind == JT_CAST_INTEGER) {
        long v;
        if (FIXNUM_P(raw)) {
            value = raw;
        } else if (RB_TYPE_P(raw, T_STRING) && RSTRING_LEN(raw) > 0 && jt_db_plain_integer(raw, &v)) {
            value = LONG2NUM(v);
        } else {
            return false;
        }
    } else if (RB_TYPE_P(raw, T_STRING) && RBASIC_CLASS(raw) == rb_cString) {
        value = raw;
    } else {
        return false;
    }
    /* Integer and String keys: the lookup runs no Ruby code. */
    VALUE label = rb_hash_lookup2(cast->labels, value, Qnil);
    if (NIL_P(label)) {
        jt_buffer_append(g->buf, "null", 4);
    } else {
        jt_gen_string(g, label, false);
    }
    return true;
}

bool jt_db_cast_write(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, VALUE raw)
{
    if (RB_UNLIKELY(c->known != 1)) return false;
    if (NIL_P(raw)) {
        /* deserialize(nil) is nil for every kind (an enum maps no label to nil). */
        jt_buffer_append(g->buf, "null", 4);
        return true;
    }
    switch ((enum jt_cast_kind)cast->kind) {
        case JT_CAST_INTEGER: return jt_db_write_integer(g, c, raw);
        case JT_CAST_FLOAT: return jt_db_write_float(g, raw);
        case JT_CAST_DECIMAL: return jt_db_write_decimal(g, c, cast, raw);
        case JT_CAST_STRING:
            if (!RB_TYPE_P(raw, T_STRING) || RBASIC_CLASS(raw) != rb_cString) return false;
            jt_gen_value(g, raw);
            return true;
        case JT_CAST_BOOLEAN: return write_boolean(g, raw);
        case JT_CAST_DATE: return jt_db_write_date(g, c, raw);
        case JT_CAST_DATETIME:
        case JT_CAST_TIME:
        case JT_CAST_TIMESTAMPTZ: return jt_db_write_datetime(g, c, cast, raw);
        case JT_CAST_JSON:
            /* deserialize: a value that is not a String is the value itself
             * (sqlite3's NUMERIC affinity turns the text of a number into one). */
            if (RB_INTEGER_TYPE_P(raw)) {
                jt_gen_value(g, raw);
                return true;
            }
            if (RB_FLOAT_TYPE_P(raw)) {
                jt_rails_float(g, raw);
                return true;
            }
            if (!c->json_stock || !RB_TYPE_P(raw, T_STRING) || RBASIC_CLASS(raw) != rb_cString) return false;
            /* json_column.c writes ActiveSupport's numbers, not Oj's: the reader runs. */
            if (jt_rails_of(g)->oj) return false;
            return jt_json_column_write(g, raw);
        case JT_CAST_UUID: return write_uuid(g, raw);
        case JT_CAST_ENUM: return write_enum(g, cast, raw);
        default: return false;
    }
}

void jt_init_db_cast(void)
{
    h.json_decode = rb_intern("json_decode");
    h.time_of_day = rb_intern("time_of_day");
    static const char *const names[] = {"NONE", "INTEGER", "FLOAT", "DECIMAL", "STRING", "BOOLEAN", "DATE",
                                        "DATETIME", "TIME", "TIMESTAMPTZ", "JSON", "UUID", "ENUM"};
    for (int kind = JT_CAST_INTEGER; kind < JT_CAST_KINDS; kind++) {
        char name[32];
        snprintf(name, sizeof(name), "KIND_%s", names[kind]);
        rb_define_const(jr.mDbCast, name, INT2FIX(kind));
    }
    rb_define_const(jr.mDbCast, "TIME_STRINGS_UNKNOWN", INT2FIX(JT_TIME_STRINGS_UNKNOWN));
    rb_define_const(jr.mDbCast, "TIME_STRINGS_REGEX", INT2FIX(JT_TIME_STRINGS_REGEX));
    rb_define_const(jr.mDbCast, "TIME_STRINGS_TIME_NEW", INT2FIX(JT_TIME_STRINGS_TIME_NEW));
    h.context = rb_intern("context");
    jt_init_db_cast_times();
}
