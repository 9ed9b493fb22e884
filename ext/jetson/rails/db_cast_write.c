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

#include "rails/cast_writers.h"

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
                jt_db_write_float_value(g, raw);
                return true;
            }
            if (!c->json_stock || !RB_TYPE_P(raw, T_STRING) || RBASIC_CLASS(raw) != rb_cString) return false;
            /* json_column.c writes ActiveSupport's numbers: a mode that writes
             * others has the reader run. */
            if (!jt_rails_call_of(g)->records->json_columns) return false;
            return jt_json_column_write(g, raw);
        case JT_CAST_UUID: return write_uuid(g, raw);
        case JT_CAST_ENUM: return write_enum(g, cast, raw);
        default: return false;
    }
}

void jt_init_db_cast(void)
{
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
    jt_init_db_cast_read();
    jt_init_db_cast_times();
}
