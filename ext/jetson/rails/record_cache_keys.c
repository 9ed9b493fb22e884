/* ActiveRecord's cache_key and cache_version of a record loaded from the
 * database, read from its attribute set (see
 * lib/jetson/rails/record_cache_keys.rb, which decides per class whether its
 * records may take this path and passes the class's plan in).
 *
 * ActiveRecord makes them through has_attribute?, updated_at_before_type_cast
 * and updated_at_came_from_user? (each building the updated_at Attribute)
 * and id (casting the primary key): about 2.5 µs a record on top of the
 * class's part, 100 times in a cached collection of 100. Here the raw
 * updated_at and id are read where nothing has built or changed them; any
 * other record state is answered nil and the Ruby path (which asks
 * ActiveRecord what it cannot settle) runs instead. The version rule
 * (version_of) is the one both paths use. */

#include "rails/record_cache_keys.h"
#include "rails/rails_handles.h"
#include "rails/attribute_set.h"
#include "rails/stock_memo.h"
#include "bytes/times.h"
#include <stdio.h>
#include <string.h>
#include <ruby/encoding.h>

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    ID ivar_new_record, ivar_primary_key, record_cache_keys, utc_p, getutc, strftime;
    VALUE updated_at;
} h;

/* The class's part: RecordCacheKeys::Plan, a Struct made by
 * RecordCacheKeys#plan, its members in this order. */
enum {
    PLAN_MODEL_KEY,   /* model_name.cache_key */
    PLAN_STRINGS,     /* String raws take ActiveRecord's fast path */
    PLAN_TIME_FORMAT, /* strftime format of a Time raw's version, or nil */
    PLAN_UNIT,        /* nanoseconds the updated_at type's precision keeps a multiple of */
    PLAN_PRIMARY_KEY, /* the primary key's name, or nil: no native id */
    PLAN_INTEGER_ID,  /* its type is a stock integer one: an Integer raw is the id */
    PLAN_SIZE
};

#define PLAN(plan, member) RSTRUCT_GET((plan), (member))

static void check_plan(VALUE plan)
{
    if (!RB_TYPE_P(plan, T_STRUCT) || RSTRUCT_LEN(plan) != PLAN_SIZE) {
        rb_raise(rb_eArgError, "Jetson: malformed cache key plan");
    }
}

JT_INLINE bool plain_string(VALUE str)
{
    return RB_TYPE_P(str, T_STRING) && RBASIC_CLASS(str) == rb_cString;
}

/* Integration#raw_timestamp_to_cache_version: the raw String without "- :."
 * padded with zeros to 20 characters. Qnil for a String that is not plain
 * ASCII (Ruby's String#delete then decides). */
static VALUE version_of_string(VALUE raw)
{
    enum { MAX = 40 };
    char out[MAX];
    long n = RSTRING_LEN(raw), k = 0;
    rb_encoding *enc = rb_enc_get(raw);
    if (n > MAX || !rb_enc_asciicompat(enc)) return Qnil;
    const char *p = RSTRING_PTR(raw);
    for (long i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x80) return Qnil;
        if (c != '-' && c != ' ' && c != ':' && c != '.') out[k++] = (char)c;
    }
    while (k < 20) out[k++] = '0';
    return rb_enc_str_new(out, k, enc);
}

/* Time::DATE_FORMATS[:usec], ActiveRecord's default cache_timestamp_format. */
static const char USEC_FORMAT[] = "%Y%m%d%H%M%S%6N";

/* updated_at.utc.to_fs(format) of a stock datetime type's cast of a Time:
 * the same instant, truncated to the type's precision (where that would
 * drop nothing), under the format; the :usec format written here for the
 * years 1000-9999, anything else by Time#strftime. */
static VALUE version_of_time(VALUE raw, VALUE plan)
{
    VALUE format = PLAN(plan, PLAN_TIME_FORMAT), unit = PLAN(plan, PLAN_UNIT);
    if (!plain_string(format) || !FIXNUM_P(unit) || FIX2LONG(unit) < 1) return Qnil;
    struct timespec ts = rb_time_timespec(raw);
    if (ts.tv_nsec % FIX2LONG(unit) != 0) return Qnil;
    jt_civil_time t;
    if (RSTRING_LEN(format) == (long)sizeof(USEC_FORMAT) - 1 &&
        memcmp(RSTRING_PTR(format), USEC_FORMAT, sizeof(USEC_FORMAT) - 1) == 0 &&
        jt_civil_time_from_seconds((int64_t)ts.tv_sec, 0, true, &t) && t.year >= 1000 && t.year <= 9999) {
        char out[32];
        int n = snprintf(out, sizeof(out), "%04ld%02d%02d%02d%02d%02d%06ld", t.year, t.month, t.day, t.hour, t.minute,
                         t.second, (long)ts.tv_nsec / 1000);
        if (n == 20) return rb_enc_str_new(out, n, rb_enc_get(format));
    }
    VALUE utc = RTEST(rb_funcall(raw, h.utc_p, 0)) ? raw : rb_funcall(raw, h.getutc, 0);
    return rb_funcall(utc, h.strftime, 1, format);
}

/* The version ActiveRecord makes of raw, the updated_at it was handed, under
 * the class's plan; nil when ActiveRecord has to be asked. */
static VALUE version_of(VALUE raw, VALUE plan)
{
    if (plain_string(raw)) return RTEST(PLAN(plan, PLAN_STRINGS)) ? version_of_string(raw) : Qnil;
    if (!RB_SPECIAL_CONST_P(raw) && rb_obj_class(raw) == rb_cTime && !NIL_P(PLAN(plan, PLAN_TIME_FORMAT))) {
        return version_of_time(raw, plan);
    }
    return Qnil;
}

/* record.id where its reader would return it without running Ruby: the
 * primary key's value cast earlier, or an Integer raw of an integer type
 * (whose cast is itself). Qundef otherwise. */
static VALUE id_of(jt_attribute_access *a, VALUE record, VALUE key, VALUE plan)
{
    /* PrimaryKey#id reads @primary_key, the class's key when the record was built. */
    VALUE own = rb_attr_get(record, h.ivar_primary_key);
    if (own != key && (!plain_string(own) || !jt_same_string(own, key))) return Qundef;
    VALUE casted;
    VALUE raw = jt_attribute_raw(a, record, key, &casted);
    if (raw == Qundef) return Qundef;
    if (casted != Qundef) return RB_INTEGER_TYPE_P(casted) || plain_string(casted) ? casted : Qundef;
    return RTEST(PLAN(plan, PLAN_INTEGER_ID)) && RB_INTEGER_TYPE_P(raw) ? raw : Qundef;
}

/* RecordCacheKeys#native_key(record, plan): [cache_key, cache_version], or
 * nil when the Ruby path has to answer. */
static VALUE native_key(VALUE self, VALUE record, VALUE plan)
{
    check_plan(plan);
    VALUE model_key = PLAN(plan, PLAN_MODEL_KEY), primary_key = PLAN(plan, PLAN_PRIMARY_KEY);
    if (!plain_string(model_key) || !plain_string(primary_key)) return Qnil;
    if (RB_SPECIAL_CONST_P(record) || RB_BUILTIN_TYPE(record) != T_OBJECT) return Qnil;
    if (RTEST(rb_attr_get(record, h.ivar_new_record))) return Qnil;

    jt_attribute_access a;
    jt_attribute_access_init(&a, jr.mRails);
    VALUE casted;
    VALUE raw = jt_attribute_raw(&a, record, h.updated_at, &casted);
    VALUE id = raw == Qundef ? Qundef : id_of(&a, record, primary_key, plan);
    jt_attribute_access_finish(&a);
    if (id == Qundef) return Qnil;
    VALUE version = version_of(raw, plan);
    if (NIL_P(version)) return Qnil;

    VALUE key = rb_str_dup(model_key);
    rb_str_cat(key, "/", 1);
    if (FIXNUM_P(id)) {
        id = rb_fix2str(id, 10);
    } else if (RB_INTEGER_TYPE_P(id)) {
        id = rb_big2str(id, 10);
    }
    rb_str_append(key, id);
    RB_GC_GUARD(raw);
    return rb_assoc_new(key, version);
}

/* RecordCacheKeys#native_version(raw, plan): the version of a raw updated_at
 * the Ruby path read (version_of), nil when ActiveRecord has to be asked. */
static VALUE native_version(VALUE self, VALUE raw, VALUE plan)
{
    check_plan(plan);
    return version_of(raw, plan);
}

/* RecordCacheKeys.stock_class(klass): RecordCacheKeys.stock_answer's answer
 * for klass, kept until a method it rests on is defined again. */
static VALUE stock_class(VALUE self, VALUE klass)
{
    return jt_stock_memo_ask(jr.mRails, h.record_cache_keys, klass);
}

void jt_init_record_cache_keys(void)
{
    jt_intern_ids("@new_record @primary_key record_cache_keys utc? getutc strftime",
        (ID *const[]){&h.ivar_new_record, &h.ivar_primary_key, &h.record_cache_keys, &h.utc_p, &h.getutc,
            &h.strftime, NULL});
    h.updated_at = rb_obj_freeze(rb_str_new_cstr("updated_at"));
    rb_gc_register_mark_object(h.updated_at);
    VALUE c = rb_define_class_under(jr.mRails, "RecordCacheKeys", rb_cObject);
    rb_define_private_method(c, "native_key", native_key, 2);
    rb_define_private_method(c, "native_version", native_version, 2);
    rb_define_singleton_method(c, "stock_class", stock_class, 1);
}
