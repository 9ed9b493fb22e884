/* The instants and dates of db_cast_write.c's kinds (see db_cast.h): a raw
 * datetime, time or date value written as ActiveSupport encodes what the
 * attribute's type casts it to, without making the Time, the TimeWithZone
 * or the Date. Strings (sqlite3's, and any adapter's text) are read by one
 * of ActiveModel's two readings, the one the running Ruby gets (see
 * parse_time_string); Time objects (pg, mysql2, trilogy decode them) are
 * read from the Time. */

#include "rails/cast_writers.h"

/* Written once by jt_init_db_cast_times, only read afterwards. */
static struct {
    ID zone_period, zone_table, local_period, local_shift, utc_p;
} h;

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
        VALUE table = rb_funcall(jr.mDbCast, h.zone_table, 1, c->zone);
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
    VALUE found = rb_funcall(jr.mDbCast, h.zone_period, 2, c->zone, LL2NUM(secs));
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
    VALUE found = rb_funcall(jr.mDbCast, h.local_period, 1, LL2NUM(secs));
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
    VALUE shift = rb_funcall(jr.mDbCast, h.local_shift, 4, LONG2NUM(year), INT2FIX(month), INT2FIX(day), INT2FIX(hour));
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
    const jt_rails_settings *s = jt_rails_of(g);
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

#define Y2K INT64_C(946684800) /* 2000-01-01 00:00:00 UTC */
#define DAY INT64_C(86400)

/* ActiveRecord 8's zone aware time column: in_time_zone, then
 * change(year: 2000, month: 1, day: 1), the same wall clock time in
 * Time.zone on 2000-01-01 at the zone's offset there. The instant of that
 * wall clock time is taken only where the zone keeps one offset for two
 * days around it: no other instant can show it, so TimeWithZone's choice
 * between periods (a repeated or skipped hour) does not arise; anything
 * else is left to Ruby. */
static bool time_of_day_in_zone(jt_gen *g, jt_db_context *c, int64_t secs, int64_t *moved)
{
    const struct jt_db_period *p = zone_period(g, c, secs);
    if (!p) return false;
    int64_t local = secs + p->offset;
    int64_t wall = Y2K + ((local % DAY) + DAY) % DAY;
    /* A guess: the offset at the wall clock time read as UTC. */
    p = zone_period(g, c, wall);
    if (!p) return false;
    int64_t instant = wall - p->offset;
    p = zone_period(g, c, instant);
    if (!p || instant + p->offset != wall || !(p->from <= instant - 2 * DAY && instant + 2 * DAY < p->to)) return false;
    *moved = instant;
    return true;
}

/* A Time (a UTC or local one, as the cast made it) after the time zone
 * conversion of a zone aware attribute: in_time_zone (and the move to
 * 2000-01-01 of ActiveRecord 8's time columns), or the Time itself when
 * Time.zone is nil. */
static bool write_cast_time(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, int64_t secs, long nsec,
                            enum presentation show, long offset)
{
    if (cast->zone_aware && !NIL_P(c->zone)) {
        show = SHOW_ZONE;
        if (cast->time_of_day && !time_of_day_in_zone(g, c, secs, &secs)) return false;
    } else if (cast->time_of_day) {
        /* Without Time.zone the Time itself is moved (Time#change): a no-op
         * when it shows 2000-01-01 already, what the cast of a time of day
         * gives; any other day is left to Ruby. */
        long shown = offset;
        if (show == SHOW_UTC) {
            shown = 0;
        } else if (show == SHOW_LOCAL) {
            const struct jt_db_period *p = local_period(g, c, secs);
            if (!p) return false;
            shown = p->offset;
        }
        int64_t local = secs + shown;
        if (local < Y2K || local >= Y2K + DAY) return false;
    }
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

/* ActiveModel's Helpers::TimeValue#fast_string_to_time has two bodies, and
 * which one runs depends on the Ruby (RUBY_VERSION >= "3.2"); the context
 * says which (DbCast.time_string_rules probes the real casts once):
 *
 * JT_TIME_STRINGS_REGEX, its ISO_DATETIME
 *   \A(\d{4})-(\d\d)-(\d\d)(?:T|\s)(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6})\d*)?
 *   (?:(Z(?=\z)|[+-]\d\d)(?::?(\d\d))?)?\z
 * then new_time: microseconds (digits past the sixth dropped); "Z" is an
 * offset of 0 like any other; the hours' sign decides ("-00:30" is +00:30,
 * "+99:99" is taken as is); with an offset the instant is shown getutc or
 * getlocal, as the attribute's timezone says.
 *
 * JT_TIME_STRINGS_TIME_NEW, Time.new(string) (in: "UTC" when is_utc?):
 * nanoseconds (digits past the ninth dropped); the separator a space or
 * "T" only; "Z", "-00", "-0000" and "-00:00" make a UTC Time, any other
 * offset (hours 00-23, minutes 00-59, the sign its own) a Time at that
 * fixed offset, shown with it whatever the attribute's timezone.
 *
 * Anything else either body might still take (a space before the offset,
 * "UTC", a military zone letter, an offset with seconds, hour 24, second 60,
 * February 30th, which Ruby rolls over or Time.new leaves to
 * Date._parse) is refused here: the reader casts it. */

enum zone_kind { ZONE_NONE, ZONE_UTC, ZONE_OFFSET };

struct iso_time {
    long year;
    int month, day, hour, minute, second;
    long nsec;
    enum zone_kind zone;
    long offset; /* ZONE_OFFSET: seconds east of UTC */
};

static bool parse_time_string(const char *p, long len, enum jt_time_strings rules, struct iso_time *t)
{
    bool time_new = rules == JT_TIME_STRINGS_TIME_NEW;
    if (len < 19 || !digits(p, 4) || p[4] != '-' || !digits(p + 5, 2) || p[7] != '-' || !digits(p + 8, 2) ||
        !(p[10] == 'T' || (time_new ? p[10] == ' ' : jt_db_is_space(p[10]))) || !digits(p + 11, 2) || p[13] != ':' ||
        !digits(p + 14, 2) || p[16] != ':' || !digits(p + 17, 2)) {
        return false;
    }
    t->year = number(p, 4);
    t->month = number(p + 5, 2);
    t->day = number(p + 8, 2);
    t->hour = number(p + 11, 2);
    t->minute = number(p + 14, 2);
    t->second = number(p + 17, 2);
    t->nsec = 0;
    t->zone = ZONE_NONE;
    t->offset = 0;
    long i = 19;
    if (i < len && p[i] == '.') {
        /* Both want a digit after the point (Time.new raises, the regex
         * does not match: "." then is left to the offset, which refuses it). */
        if (i + 1 >= len || p[i + 1] < '0' || p[i + 1] > '9') return false;
        i++;
        int kept = time_new ? 9 : 6, n = 0;
        while (i < len && p[i] >= '0' && p[i] <= '9') {
            if (n < kept) {
                t->nsec = t->nsec * 10 + (p[i] - '0');
                n++;
            }
            i++;
        }
        for (; n < 9; n++) t->nsec *= 10;
    }
    if (i == len) return true;
    if (p[i] == 'Z') {
        if (i + 1 != len) return false;
        t->zone = time_new ? ZONE_UTC : ZONE_OFFSET;
        return true;
    }
    if ((p[i] != '+' && p[i] != '-') || i + 3 > len || !digits(p + i + 1, 2)) return false;
    bool minus = p[i] == '-';
    int hours = number(p + i + 1, 2), minutes = 0;
    i += 3;
    if (i < len) {
        /* ":MM" or "MM", nothing else (a colon alone or "+HH:MM:SS" is
         * refused: the regex rejects them, Time.new reads the seconds). */
        if (p[i] == ':') i++;
        if (i + 2 != len || !digits(p + i, 2)) return false;
        minutes = number(p + i, 2);
        i += 2;
    }
    long magnitude = hours * 3600L + minutes * 60L;
    if (time_new) {
        /* Time.new raises past 23:59 (then Date._parse decides). */
        if (hours > 23 || minutes > 59) return false;
        t->zone = minus && magnitude == 0 ? ZONE_UTC : ZONE_OFFSET;
        t->offset = minus ? -magnitude : magnitude;
    } else {
        t->zone = ZONE_OFFSET;
        t->offset = minus && hours != 0 ? -magnitude : magnitude;
    }
    return true;
}

/* The civil parts as seconds: false where Ruby would roll them over
 * (Time.utc, Time.new), refuse them, or give nil (0000-00-00). */
static bool civil_seconds(const struct iso_time *t, int64_t *secs)
{
    if (t->year < 1 || t->month < 1 || t->month > 12 || t->day < 1 || t->day > days_in_month(t->year, t->month) ||
        t->hour > 23 || t->minute > 59 || t->second > 59) {
        return false;
    }
    *secs = jt_days_from_civil(t->year, t->month, t->day) * 86400 + t->hour * 3600 + t->minute * 60 + t->second;
    return true;
}

/* fast_string_to_time, then the attribute's presentation. A String's cast
 * keeps its digits: apply_seconds_precision is only for values that are not
 * Strings. */
static bool write_time_string(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, const char *p, long len)
{
    enum jt_time_strings rules = (enum jt_time_strings)c->time_strings;
    if (rules != JT_TIME_STRINGS_REGEX && rules != JT_TIME_STRINGS_TIME_NEW) return false;
    struct iso_time t;
    int64_t civil, secs;
    if (!parse_time_string(p, len, rules, &t) || !civil_seconds(&t, &civil)) return false;
    bool utc = cast_utc(c, cast);
    enum presentation show = utc ? SHOW_UTC : SHOW_LOCAL;
    long offset = 0;
    switch (t.zone) {
        case ZONE_NONE:
            if (utc) {
                secs = civil;
            } else if (!local_instant(g, c, t.year, t.month, t.day, t.hour, civil, &secs)) {
                return false;
            }
            break;
        case ZONE_UTC: /* Time.new's "Z": a UTC Time, whatever the timezone */
            secs = civil;
            show = SHOW_UTC;
            break;
        case ZONE_OFFSET:
            secs = civil - t.offset;
            if (rules == JT_TIME_STRINGS_TIME_NEW) {
                show = SHOW_OFFSET;
                offset = t.offset;
            }
            break;
    }
    /* PostgreSQL's timestamptz: getutc or getlocal of whatever was read. */
    if (cast->kind == JT_CAST_TIMESTAMPTZ) show = utc ? SHOW_UTC : SHOW_LOCAL;
    return write_cast_time(g, c, cast, secs, t.nsec, show, offset);
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


bool jt_db_write_datetime(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, VALUE raw)
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

bool jt_db_write_date(jt_gen *g, jt_db_context *c, VALUE raw)
{
    const jt_rails_settings *s = jt_rails_of(g);
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

void jt_init_db_cast_times(void)
{
    jt_intern_ids("zone_period zone_table local_period local_shift utc?",
        (ID *const[]){&h.zone_period, &h.zone_table, &h.local_period, &h.local_shift, &h.utc_p, NULL});
}
