#include "rails/settings.h"
#include "rails/rails_handles.h"
#include "rails/stock_memo.h"

enum jt_rails_kind jt_rails_kind_of(VALUE klass, const jt_rails_settings *s)
{
    if (RTEST(rb_class_inherited_p(klass, rb_cTime))) return JT_RAILS_TIME;
    if (!NIL_P(s->time_with_zone) && RTEST(rb_class_inherited_p(klass, s->time_with_zone))) {
        return JT_RAILS_TIME_WITH_ZONE;
    }
    if (!NIL_P(s->date) && RTEST(rb_class_inherited_p(klass, s->date))) {
        /* DateTime (a Date subclass) prints through Ruby. */
        bool datetime = !NIL_P(s->datetime) && RTEST(rb_class_inherited_p(klass, s->datetime));
        return datetime ? JT_RAILS_OBJECT : JT_RAILS_DATE;
    }
    if (RTEST(rb_class_inherited_p(klass, rb_cNumeric))) return JT_RAILS_NUMERIC;
    if (!NIL_P(s->active_model) && RTEST(rb_class_inherited_p(klass, s->active_model))) return JT_RAILS_MODEL;
    if (RTEST(rb_class_inherited_p(klass, rb_cHash))) return JT_RAILS_HASH;
    if (RTEST(rb_class_inherited_p(klass, rb_cArray))) return JT_RAILS_ARRAY;
    return JT_RAILS_OBJECT;
}

static VALUE kind_symbol(enum jt_rails_kind kind)
{
    switch (kind) {
        case JT_RAILS_TIME: return jr.sym_time;
        case JT_RAILS_TIME_WITH_ZONE: return jr.sym_time_with_zone;
        case JT_RAILS_DATE: return jr.sym_date;
        case JT_RAILS_FLOAT: return jr.sym_float;
        case JT_RAILS_MODEL: return jr.sym_model;
        case JT_RAILS_HASH: return jr.sym_hash;
        case JT_RAILS_ARRAY: return jr.sym_array;
        case JT_RAILS_RECORD: return jr.sym_record;
        case JT_RAILS_RELATION: return jr.sym_relation;
        case JT_RAILS_DECIMAL: return jr.sym_decimal;
        default: return Qnil;
    }
}

bool jt_rails_stock(VALUE klass, enum jt_rails_kind kind, const jt_rails_settings *s)
{
    VALUE name = kind_symbol(kind);
    if (NIL_P(name)) return false;
    /* Time's own fields are read through to_i and utc? (see times.c). */
    if (kind == JT_RAILS_TIME && !jt_time_class_is_stock(klass)) return false;
    return RTEST(jt_stock_memo_ask(s->helper, SYM2ID(name), klass));
}

/* ITALY, Date's default calendar reform: Julian days before it are in the
 * Julian calendar, which is not formatted here. */
#define JT_JD_ITALY 2299161
#define JT_JD_UNIX_EPOCH 2440588

static size_t date_text(VALUE date, char separator, char out[JT_TIME_TEXT_MAX])
{
    VALUE jd = rb_funcall(date, jr.id_jd, 0);
    VALUE start = rb_funcall(date, jt.id_start, 0);
    if (!FIXNUM_P(jd) || !RB_FLOAT_TYPE_P(start)) return 0;
    long day_number = FIX2LONG(jd);
    /* Gregorian from `start` on (GREGORIAN is -Infinity). */
    if (day_number < JT_JD_ITALY || RFLOAT_VALUE(start) > (double)day_number) return 0;
    long year;
    int month, day;
    jt_civil_from_days(day_number - JT_JD_UNIX_EPOCH, &year, &month, &day);
    if (year > 9999) return 0;
    return jt_format_date(year, month, day, separator, out);
}

static size_t time_text(const jt_civil_time *t, const jt_rails_settings *s, char out[JT_TIME_TEXT_MAX])
{
    return s->standard_time ? jt_format_xmlschema(t, s->time_precision, out) : jt_format_legacy_time(t, out);
}

size_t jt_rails_native_text(VALUE obj, enum jt_rails_kind kind, const jt_rails_settings *s,
                            char out[JT_TIME_TEXT_MAX])
{
    jt_civil_time t;
    switch (kind) {
        case JT_RAILS_TIME:
            if (s->standard_time && s->time_precision < 0) return 0;
            if (!jt_civil_time_of(obj, &t)) return 0;
            return time_text(&t, s, out);
        case JT_RAILS_TIME_WITH_ZONE: {
            if (s->standard_time && s->time_precision < 0) return 0;
            /* The instant (@utc, a UTC Time) seen at the zone's offset is
             * the local time TimeWithZone#time would build. */
            VALUE utc_time = rb_funcall(obj, jr.id_utc, 0);
            VALUE offset = rb_funcall(obj, jr.id_utc_offset, 0);
            bool utc = s->standard_time && RTEST(rb_funcall(obj, jt.id_utc_p, 0));
            if (!jt_civil_time_at(utc_time, offset, utc, &t)) return 0;
            return time_text(&t, s, out);
        }
        case JT_RAILS_DATE:
            return date_text(obj, s->standard_time ? '-' : '/', out);
        default:
            return 0;
    }
}

void jt_rails_settings_from_args(jt_rails_settings *settings, const VALUE *args)
{
    VALUE escape_html = args[0], standard_time = args[1], precision = args[2], classes = args[3];
    Check_Type(classes, T_ARRAY);
    if (RARRAY_LEN(classes) != 5) rb_raise(rb_eArgError, "expected 5 classes");
    *settings = (jt_rails_settings){
        .helper = RARRAY_AREF(classes, 0),
        .time_with_zone = RARRAY_AREF(classes, 1),
        .date = RARRAY_AREF(classes, 2),
        .datetime = RARRAY_AREF(classes, 3),
        .big_decimal = RARRAY_AREF(classes, 4),
        .active_model = args[4],
        .options = Qundef,
        .time_precision = -1,
        .standard_time = RTEST(standard_time),
        .escape_html = RTEST(escape_html),
        .escape_js = true,
    };
    if (FIXNUM_P(precision) && FIX2LONG(precision) >= 0 && FIX2LONG(precision) <= 9) {
        settings->time_precision = (int)FIX2LONG(precision);
    }
}

VALUE jt_rails_settings_apply_encoder(jt_rails_settings *settings, VALUE flags, VALUE coder_proc)
{
    long bits = NUM2LONG(flags);
    settings->escape_js = (bits & JT_RAILS_FLAG_ESCAPE_JS) != 0;
    settings->coder = (bits & JT_RAILS_FLAG_CODER) != 0;
    settings->fragments = (bits & JT_RAILS_FLAG_FRAGMENTS) != 0;
    settings->unlimited_nesting = (bits & JT_RAILS_FLAG_UNLIMITED_NESTING) != 0;
    settings->frozen_options = (bits & JT_RAILS_FLAG_FROZEN_OPTIONS) != 0;
    settings->oj = (bits & JT_RAILS_FLAG_OJ) != 0;
    settings->oj_hashes = (bits & JT_RAILS_FLAG_OJ_HASHES) != 0;
    settings->oj_arrays = (bits & JT_RAILS_FLAG_OJ_ARRAYS) != 0;
    settings->oj_floats = (bits & JT_RAILS_FLAG_OJ_FLOATS) != 0;
    settings->oj_times = (bits & JT_RAILS_FLAG_OJ_TIMES) != 0;
    settings->oj_zoned_times = (bits & JT_RAILS_FLAG_OJ_ZONED_TIMES) != 0;
    if (settings->oj) {
        if (settings->coder) rb_raise(rb_eArgError, "Oj's encoder and the Coder encoder are exclusive");
        if (!RB_TYPE_P(coder_proc, T_MODULE)) rb_raise(rb_eTypeError, "Oj's encoder needs the Oj::Rails module");
        return coder_proc;
    }
    if (!settings->coder) return Qfalse;
    if (!rb_obj_is_proc(coder_proc)) rb_raise(rb_eTypeError, "the Coder encoder needs its conversion Proc");
    return coder_proc;
}
