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
 *   datetime  ISO_DATETIME => Time.utc / Time.local (an offset: the
 *             instant, then getlocal unless UTC); a Time: its seconds
 *             precision applied; then, when time zone aware, in_time_zone
 *   time      the same on 2000-01-01
 *   json      ActiveSupport::JSON.decode (json_column.c)
 *   uuid      a canonical UUID as is
 *   enum      mapping.key(the subtype's cast)
 *
 * Every kind refuses what it does not settle exactly, before writing. */

#include "generator_internal.h"
#include "db_cast.h"
#include "db_cast_internal.h"
#include "stock_memo.h"
#include <math.h>

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    VALUE mDbCast, mRails;
    ID json_decode, context, zone_period, zone_table, local_period, local_shift, utc_p;
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
    VALUE context = rb_funcall(h.mDbCast, h.context, 0);
    c->known = RB_TYPE_P(context, T_ARRAY) && RARRAY_LEN(context) >= 5;
    if (!c->known) return false;
    c->zone = RARRAY_AREF(context, 0);
    c->default_utc = RTEST(RARRAY_AREF(context, 1));
    /* ActiveSupport::JSON.decode as shipped: a question kept with its methods (stock_memo.c) */
    c->json_stock = !RTEST(RARRAY_AREF(context, 2)) && RTEST(jt_stock_memo_ask(h.mRails, h.json_decode, Qnil));
    c->relation_class = RARRAY_AREF(context, 3);
    c->proxy_class = RARRAY_AREF(context, 4);
    c->decimal_half_up = RARRAY_LEN(context) > 5 && RTEST(RARRAY_AREF(context, 5));
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
        *known = !NIL_P(klass) && jt_rails_stock(klass, kind, g->rails);
    }
    return *known;
}

/* --- instants and their presentation ---------------------------------------- */

/* How an instant is shown: as ActiveSupport shows a UTC Time, a local Time,
 * a Time at a fixed offset, or a TimeWithZone in Time.zone. */
enum presentation { SHOW_UTC, SHOW_LOCAL, SHOW_OFFSET, SHOW_ZONE };

static const struct jt_db_period *cached_period(struct jt_db_period *cache, int count, VALUE zone, int64_t secs)
{
    for (int i = 0; i < count; i++) {
        if (cache[i].zone == zone && cache[i].from <= secs && secs < cache[i].to) return &cache[i];
    }
    return NULL;
}

static const struct jt_db_period *remember_period(struct jt_db_period *cache, int *count, struct jt_db_period p)
{
    int slot = *count < JT_DB_PERIODS ? (*count)++ : (int)((uint64_t)(p.from >> 12) % JT_DB_PERIODS);
    cache[slot] = p;
    return &cache[slot];
}

static bool int64_of(VALUE v, int64_t fallback, int64_t *out)
{
    if (NIL_P(v)) {
        *out = fallback;
        return true;
    }
    if (!RB_INTEGER_TYPE_P(v)) return false;
    *out = NUM2LL(v);
    return true;
}

/* The period of the zone's table holding secs, if the table covers it. */
static bool table_period(jt_gen *g, jt_db_context *c, int64_t secs, struct jt_db_period *out)
{
    if (c->table_zone != c->zone || NIL_P(c->zone_table)) {
        jt_before_ruby(g);
        VALUE table = rb_funcall(h.mDbCast, h.zone_table, 1, c->zone);
        c->zone_table = RB_TYPE_P(table, T_ARRAY) && RARRAY_LEN(table) % 4 == 0 ? table : Qfalse;
        c->table_zone = c->zone;
    }
    VALUE table = c->zone_table;
    if (table == Qfalse) return false;
    long n = RARRAY_LEN(table) / 4, lo = 0, hi = n - 1;
    if (n == 0 || secs < FIX2LONG(RARRAY_AREF(table, 0)) || secs >= FIX2LONG(RARRAY_AREF(table, 4 * n - 3))) return false;
    while (lo < hi) { /* the last period starting at or before secs */
        long mid = (lo + hi + 1) / 2;
        if (FIX2LONG(RARRAY_AREF(table, 4 * mid)) <= secs) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    *out = (struct jt_db_period){.zone = c->zone, .from = FIX2LONG(RARRAY_AREF(table, 4 * lo)),
                                 .to = FIX2LONG(RARRAY_AREF(table, 4 * lo + 1)),
                                 .offset = (int32_t)FIX2LONG(RARRAY_AREF(table, 4 * lo + 2)),
                                 .utc = RARRAY_AREF(table, 4 * lo + 3) == INT2FIX(1)};
    return out->from <= secs && secs < out->to;
}

/* The zone's period at secs (Time.zone's TZInfo data). */
static const struct jt_db_period *zone_period(jt_gen *g, jt_db_context *c, int64_t secs)
{
    const struct jt_db_period *p = cached_period(c->zone_periods, c->zone_period_count, c->zone, secs);
    if (p) return p;
    struct jt_db_period from_table;
    if (table_period(g, c, secs, &from_table)) return remember_period(c->zone_periods, &c->zone_period_count, from_table);
    jt_before_ruby(g);
    VALUE found = rb_funcall(h.mDbCast, h.zone_period, 2, c->zone, LL2NUM(secs));
    if (!RB_TYPE_P(found, T_ARRAY) || RARRAY_LEN(found) != 4 || !FIXNUM_P(RARRAY_AREF(found, 2))) return NULL;
    struct jt_db_period period = {.zone = c->zone, .offset = (int32_t)FIX2LONG(RARRAY_AREF(found, 2)),
                                  .utc = RTEST(RARRAY_AREF(found, 3))};
    if (!int64_of(RARRAY_AREF(found, 0), INT64_MIN, &period.from) || !int64_of(RARRAY_AREF(found, 1), INT64_MAX, &period.to) ||
        !(period.from <= secs && secs < period.to)) {
        return NULL;
    }
    RB_GC_GUARD(found);
    return remember_period(c->zone_periods, &c->zone_period_count, period);
}

/* The system's local offset at secs (what Time#getlocal shows). */
static const struct jt_db_period *local_period(jt_gen *g, jt_db_context *c, int64_t secs)
{
    const struct jt_db_period *p = cached_period(c->local_periods, c->local_period_count, Qnil, secs);
    if (p) return p;
    jt_before_ruby(g);
    VALUE found = rb_funcall(h.mDbCast, h.local_period, 1, LL2NUM(secs));
    if (!RB_TYPE_P(found, T_ARRAY) || RARRAY_LEN(found) != 3 || !FIXNUM_P(RARRAY_AREF(found, 2))) return NULL;
    struct jt_db_period period = {.zone = Qnil, .offset = (int32_t)FIX2LONG(RARRAY_AREF(found, 2)), .utc = false};
    if (!int64_of(RARRAY_AREF(found, 0), INT64_MIN, &period.from) || !int64_of(RARRAY_AREF(found, 1), INT64_MAX, &period.to) ||
        !(period.from <= secs && secs < period.to)) {
        return NULL;
    }
    RB_GC_GUARD(found);
    return remember_period(c->local_periods, &c->local_period_count, period);
}

/* Time.local(civil): the instant of a civil time read in the system's zone,
 * from the shift of its hour (asked once per hour and call). */
static bool local_instant(jt_gen *g, jt_db_context *c, long year, int month, int day, int hour, int64_t civil,
                          int64_t *instant)
{
    int64_t hour_start = civil - civil % 3600;
    for (int i = 0; i < c->shift_count; i++) {
        if (c->shifts[i].hour == hour_start) {
            if (!c->shifts[i].known) return false;
            *instant = civil - c->shifts[i].shift;
            return true;
        }
    }
    jt_before_ruby(g);
    VALUE shift = rb_funcall(h.mDbCast, h.local_shift, 4, LONG2NUM(year), INT2FIX(month), INT2FIX(day), INT2FIX(hour));
    int slot = c->shift_count < JT_DB_PERIODS ? c->shift_count++ : (int)((uint64_t)hour_start / 3600 % JT_DB_PERIODS);
    c->shifts[slot].hour = hour_start;
    c->shifts[slot].known = FIXNUM_P(shift);
    c->shifts[slot].shift = FIXNUM_P(shift) ? (int32_t)FIX2LONG(shift) : 0;
    if (!c->shifts[slot].known) return false;
    *instant = civil - c->shifts[slot].shift;
    return true;
}

/* Writes the instant (secs, nsec) as ActiveSupport encodes it shown as
 * `show` (offset: SHOW_OFFSET's). False, nothing written, when Ruby has to. */
static bool write_instant(jt_gen *g, jt_db_context *c, int64_t secs, long nsec, enum presentation show, long offset)
{
    const jt_rails_settings *s = g->rails;
    if (s->standard_time && s->time_precision < 0) return false;
    bool utc = false;
    switch (show) {
        case SHOW_ZONE: {
            if (!jt_db_class_stock(g, &c->zone_time_stock, s->time_with_zone, JT_RAILS_TIME_WITH_ZONE)) return false;
            const struct jt_db_period *p = zone_period(g, c, secs);
            if (!p) return false;
            offset = p->offset;
            utc = s->standard_time && p->utc;
            break;
        }
        case SHOW_UTC:
            if (!jt_db_class_stock(g, &c->time_stock, rb_cTime, JT_RAILS_TIME)) return false;
            offset = 0;
            utc = true;
            break;
        case SHOW_LOCAL: {
            if (!jt_db_class_stock(g, &c->time_stock, rb_cTime, JT_RAILS_TIME)) return false;
            const struct jt_db_period *p = local_period(g, c, secs);
            if (!p) return false;
            offset = p->offset;
            break;
        }
        case SHOW_OFFSET:
            if (!jt_db_class_stock(g, &c->time_stock, rb_cTime, JT_RAILS_TIME)) return false;
            break;
    }
    jt_civil_time t;
    if (!jt_civil_time_from_seconds(secs, offset, utc, &t)) return false;
    t.nanosecond = nsec;
    char text[JT_TIME_TEXT_MAX];
    size_t n = s->standard_time ? jt_format_xmlschema(&t, s->time_precision, text) : jt_format_legacy_time(&t, text);
    jt_write_plain_text(g, text, n);
    return true;
}

JT_INLINE bool cast_utc(const jt_db_context *c, const jt_db_cast *cast)
{
    return cast->timezone >= 0 ? cast->timezone == 1 : c->default_utc;
}

/* A Time (a UTC or local one, as the cast made it) after the time zone
 * conversion of a zone aware attribute: in_time_zone, or the Time itself
 * when Time.zone is nil. */
static bool write_cast_time(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, int64_t secs, long nsec,
                            enum presentation show, long offset)
{
    if (cast->zone_aware && !NIL_P(c->zone)) show = SHOW_ZONE;
    return write_instant(g, c, secs, nsec, show, offset);
}

static inline bool digits(const char *p, int n)
{
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
    }
    return true;
}

static inline int number(const char *p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) v = v * 10 + (p[i] - '0');
    return v;
}

static bool leap_year(long y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(long y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap_year(y) ? 29 : days[m - 1];
}

/* The parts of ActiveModel's ISO_DATETIME:
 *   \A(\d{4})-(\d\d)-(\d\d)(?:T|\s)(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6})\d*)?
 *   (?:(Z(?=\z)|[+-]\d\d)(?::?(\d\d))?)?\z
 * with its offset arithmetic ("-00:30" is +00:30: the hours' sign decides). */
struct iso_time {
    long year;
    int month, day, hour, minute, second;
    long usec;
    bool has_offset;
    long offset;
};

static bool parse_iso_time(const char *p, long len, struct iso_time *t)
{
    if (len < 19 || !digits(p, 4) || p[4] != '-' || !digits(p + 5, 2) || p[7] != '-' || !digits(p + 8, 2) ||
        !(p[10] == 'T' || jt_db_is_space(p[10])) || !digits(p + 11, 2) || p[13] != ':' || !digits(p + 14, 2) ||
        p[16] != ':' || !digits(p + 17, 2)) {
        return false;
    }
    t->year = number(p, 4);
    t->month = number(p + 5, 2);
    t->day = number(p + 8, 2);
    t->hour = number(p + 11, 2);
    t->minute = number(p + 14, 2);
    t->second = number(p + 17, 2);
    t->usec = 0;
    t->has_offset = false;
    t->offset = 0;
    long i = 19;
    if (i < len && p[i] == '.' && i + 1 < len && p[i + 1] >= '0' && p[i + 1] <= '9') {
        i++;
        int n = 0;
        while (i < len && p[i] >= '0' && p[i] <= '9') {
            if (n < 6) {
                t->usec = t->usec * 10 + (p[i] - '0');
                n++;
            }
            i++;
        }
        for (; n < 6; n++) t->usec *= 10;
    }
    if (i == len) return true;
    if (p[i] == 'Z') return i + 1 == len && (t->has_offset = true);
    if ((p[i] != '+' && p[i] != '-') || i + 3 > len || !digits(p + i + 1, 2)) return false;
    int hours = number(p + i + 1, 2);
    bool negative = p[i] == '-' && hours != 0;
    i += 3;
    int minutes = 0;
    if (i < len && p[i] == ':') i++;
    if (i + 2 == len && digits(p + i, 2)) {
        minutes = number(p + i, 2);
        i += 2;
    }
    if (i != len) return false;
    t->has_offset = true;
    t->offset = negative ? -(hours * 3600L + minutes * 60L) : hours * 3600L + minutes * 60L;
    return true;
}

/* new_time's Time.utc / Time.local of the parts: false where Ruby would
 * roll the parts over, refuse them, or give nil (0000-00-00). */
static bool civil_seconds(const struct iso_time *t, int64_t *secs)
{
    if (t->year < 1 || t->month < 1 || t->month > 12 || t->day < 1 || t->day > days_in_month(t->year, t->month) ||
        t->hour > 23 || t->minute > 59 || t->second > 59) {
        return false;
    }
    *secs = jt_days_from_civil(t->year, t->month, t->day) * 86400 + t->hour * 3600 + t->minute * 60 + t->second;
    return true;
}

/* fast_string_to_time, then the attribute's presentation. */
static bool write_time_string(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, const char *p, long len)
{
    struct iso_time t;
    int64_t civil, secs;
    if (!parse_iso_time(p, len, &t) || !civil_seconds(&t, &civil)) return false;
    bool utc = cast_utc(c, cast);
    if (t.has_offset) {
        secs = civil - t.offset;
    } else if (utc) {
        secs = civil;
    } else if (!local_instant(g, c, t.year, t.month, t.day, t.hour, civil, &secs)) {
        return false;
    }
    return write_cast_time(g, c, cast, secs, t.usec * 1000, utc ? SHOW_UTC : SHOW_LOCAL, 0);
}

/* A Time handed over by the adapter (pg, mysql2, trilogy decode them). */
static bool write_time_object(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, VALUE time)
{
    if (CLASS_OF(time) != rb_cTime) return false;
    /* Time#utc? and #utc_offset are Ruby's own while Time is stock. */
    if (!jt_db_class_stock(g, &c->time_stock, rb_cTime, JT_RAILS_TIME)) return false;
    struct timespec ts = rb_time_timespec(time);
    bool utc = RTEST(rb_funcall(time, h.utc_p, 0));
    VALUE offset_value = rb_time_utc_offset(time);
    if (!FIXNUM_P(offset_value)) return false;
    long offset = FIX2LONG(offset_value);
    long nsec = ts.tv_nsec;
    if (cast->precision >= 0) {
        /* apply_seconds_precision: nsec truncated with Time#change, which
         * keeps a UTC or fixed-offset Time's offset; a local one is made
         * again with Time.local (left to Ruby). */
        static const long powers[] = {1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1};
        long rest = nsec % powers[cast->precision];
        if (rest > 0) {
            if (!utc) return false;
            nsec -= rest;
        }
    }
    enum presentation show = utc ? SHOW_UTC : SHOW_OFFSET;
    if (cast->kind == JT_CAST_TIMESTAMPTZ) show = cast_utc(c, cast) ? SHOW_UTC : SHOW_LOCAL;
    return write_cast_time(g, c, cast, (int64_t)ts.tv_sec, nsec, show, offset);
}


static bool write_datetime(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, VALUE raw)
{
    if (!RB_TYPE_P(raw, T_STRING)) return RB_TYPE_P(raw, T_DATA) && write_time_object(g, c, cast, raw);
    long len = RSTRING_LEN(raw);
    const char *p = RSTRING_PTR(raw);
    if (len == 0) {
        if (cast->kind == JT_CAST_TIME) return false; /* blank?: also whitespace, left to Ruby */
        jt_buffer_append(g->buf, "null", 4);
        return true;
    }
    if (cast->kind == JT_CAST_TIME) {
        /* value.sub(/\A\d{4}-\d\d-\d\d(?:T|\s)|/, "2000-01-01 ") */
        char text[64];
        long skip = len >= 11 && digits(p, 4) && p[4] == '-' && digits(p + 5, 2) && p[7] == '-' && digits(p + 8, 2) &&
                            (p[10] == 'T' || jt_db_is_space(p[10]))
                        ? 11 : 0;
        if (len - skip + 11 > (long)sizeof(text) || (skip == 0 && len > 0 && jt_db_is_space(p[0]))) return false;
        memcpy(text, "2000-01-01 ", 11);
        memcpy(text + 11, p + skip, (size_t)(len - skip));
        bool ok = write_time_string(g, c, cast, text, len - skip + 11);
        RB_GC_GUARD(raw);
        return ok;
    }
    char text[64];
    if (len > (long)sizeof(text)) return false;
    memcpy(text, p, (size_t)len); /* the GC may run while zones are asked */
    RB_GC_GUARD(raw);
    return write_time_string(g, c, cast, text, len);
}

static bool write_date(jt_gen *g, jt_db_context *c, VALUE raw)
{
    const jt_rails_settings *s = g->rails;
    if (!jt_db_class_stock(g, &c->date_stock, s->date, JT_RAILS_DATE)) return false;
    if (!RB_TYPE_P(raw, T_STRING)) {
        /* A Date (mysql2, trilogy): Date#to_date is the Date itself. */
        if (NIL_P(s->date) || CLASS_OF(raw) != s->date) return false;
        jt_gen_value(g, raw);
        return true;
    }
    const char *p = RSTRING_PTR(raw);
    long len = RSTRING_LEN(raw);
    if (len == 0) {
        jt_buffer_append(g->buf, "null", 4);
        return true;
    }
    /* ISO_DATE, then Date.new; the Julian years before the reform are left to Ruby. */
    if (len != 10 || !digits(p, 4) || p[4] != '-' || !digits(p + 5, 2) || p[7] != '-' || !digits(p + 8, 2)) return false;
    long year = number(p, 4);
    int month = number(p + 5, 2), day = number(p + 8, 2);
    if (year < 1583 || month < 1 || month > 12 || day < 1) return false;
    if (day > days_in_month(year, month)) {
        jt_buffer_append(g->buf, "null", 4); /* Date.new raises, new_date rescues it */
        return true;
    }
    char text[JT_TIME_TEXT_MAX];
    size_t n = jt_format_date(year, month, day, s->standard_time ? '-' : '/', text);
    jt_write_plain_text(g, text, n);
    return true;
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
        case JT_CAST_DATE: return write_date(g, c, raw);
        case JT_CAST_DATETIME:
        case JT_CAST_TIME:
        case JT_CAST_TIMESTAMPTZ: return write_datetime(g, c, cast, raw);
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
            return jt_json_column_write(g, raw);
        case JT_CAST_UUID: return write_uuid(g, raw);
        case JT_CAST_ENUM: return write_enum(g, cast, raw);
        default: return false;
    }
}

void jt_init_db_cast(void)
{
    h.mRails = rb_define_module_under(jt.mJetson, "Rails");
    h.mDbCast = rb_define_module_under(h.mRails, "DbCast");
    rb_gc_register_mark_object(h.mDbCast);
    rb_gc_register_mark_object(h.mRails);
    h.json_decode = rb_intern("json_decode");
    static const char *const names[] = {"NONE", "INTEGER", "FLOAT", "DECIMAL", "STRING", "BOOLEAN", "DATE",
                                        "DATETIME", "TIME", "TIMESTAMPTZ", "JSON", "UUID", "ENUM"};
    for (int kind = JT_CAST_INTEGER; kind < JT_CAST_KINDS; kind++) {
        char name[32];
        snprintf(name, sizeof(name), "KIND_%s", names[kind]);
        rb_define_const(h.mDbCast, name, INT2FIX(kind));
    }
    h.context = rb_intern("context");
    h.zone_period = rb_intern("zone_period");
    h.zone_table = rb_intern("zone_table");
    h.local_period = rb_intern("local_period");
    h.local_shift = rb_intern("local_shift");
    h.utc_p = rb_intern("utc?");
}
