/* What the database casts read before they write (rails/db_cast.h): a
 * type's cast descriptor and the call's context (Time.zone, the default
 * timezone, ActiveRecord's classes, how time Strings are read). The casts
 * themselves are db_cast_write.c's. */

#include "rails/db_cast.h"
#include "rails/rails_handles.h"
#include "rails/stock_memo.h"
#include "json/json_walk.h"

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    ID json_decode, context, time_of_day, utc;
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
    cast->timezone = NIL_P(timezone) ? -1 : timezone == ID2SYM(h.utc) ? 1 : 0;
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

void jt_init_db_cast_read(void)
{
    h.json_decode = rb_intern("json_decode");
    h.context = rb_intern("context");
    h.time_of_day = rb_intern("time_of_day");
    h.utc = rb_intern("utc");
}
