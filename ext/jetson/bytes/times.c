#include "bytes/times.h"

/* Proleptic Gregorian date of a day count from 1970-01-01, after Howard
 * Hinnant's "chrono-Compatible Low-Level Date Algorithms" (civil_from_days):
 * eras of 400 years, years starting in March so the leap day comes last. */
void jt_civil_from_days(long days, long *year, int *month, int *day)
{
    days += 719468;
    long era = (days >= 0 ? days : days - 146096) / 146097;
    long doe = days - era * 146097;                               /* [0, 146096] */
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);          /* [0, 365] */
    long mp = (5 * doy + 2) / 153;                                /* [0, 11], March first */
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

/* Its inverse (Hinnant's days_from_civil). */
int64_t jt_days_from_civil(long year, int month, int day)
{
    year -= month <= 2;
    long era = (year >= 0 ? year : year - 399) / 400;
    long yoe = year - era * 400;                                          /* [0, 399] */
    long doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1; /* [0, 365] */
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;                     /* [0, 146096] */
    return (int64_t)era * 146097 + doe - 719468;
}

static long floor_div(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Beyond +-2^40 s (~35,000 years) the year is out of range anyway; the
 * bound keeps the arithmetic below far from overflow. */
#define JT_TIME_SECONDS_LIMIT (1L << 40)

bool jt_civil_time_from_seconds(int64_t secs, long off, bool utc, jt_civil_time *t)
{
    if (secs > JT_TIME_SECONDS_LIMIT || secs < -JT_TIME_SECONDS_LIMIT || off % 60 != 0 || off >= 86400 ||
        off <= -86400) {
        return false;
    }
    t->utc = utc;
    t->utc_offset = off;
    long local = (long)secs + off;
    long days = floor_div(local, 86400);
    long in_day = local - days * 86400;
    jt_civil_from_days(days, &t->year, &t->month, &t->day);
    t->hour = (int)(in_day / 3600);
    t->minute = (int)(in_day / 60 % 60);
    t->second = (int)(in_day % 60);
    t->nanosecond = -1; /* the caller's */
    return t->year >= 1 && t->year <= 9999;
}

/* Fills t from floored seconds since the epoch (read through Time#to_i, as
 * strftime sees them) and the offset. */
static bool civil_time_from(VALUE seconds, VALUE offset, bool utc, jt_civil_time *t)
{
    if (!FIXNUM_P(offset) || !FIXNUM_P(seconds)) return false;
    return jt_civil_time_from_seconds(FIX2LONG(seconds), FIX2LONG(offset), utc, t);
}

bool jt_civil_time_of(VALUE time, jt_civil_time *t)
{
    VALUE seconds = rb_funcall(time, jt.id_to_i, 0);
    bool utc = RTEST(rb_funcall(time, jt.id_utc_p, 0));
    if (!civil_time_from(seconds, rb_time_utc_offset(time), utc, t)) return false;
    /* In range (checked above), so rb_time_timespec cannot raise. */
    t->nanosecond = rb_time_timespec(time).tv_nsec;
    return true;
}

bool jt_civil_time_at(VALUE utc_time, VALUE utc_offset, bool utc, jt_civil_time *t)
{
    if (!rb_obj_is_kind_of(utc_time, rb_cTime)) return false;
    VALUE seconds = rb_funcall(utc_time, jt.id_to_i, 0);
    if (!civil_time_from(seconds, utc_offset, utc, t)) return false;
    t->nanosecond = rb_time_timespec(utc_time).tv_nsec;
    return true;
}

static char *put2(char *p, int v)
{
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

static char *put_date(char *p, long year, int month, int day, char separator)
{
    p = put2(p, (int)(year / 100));
    p = put2(p, (int)(year % 100));
    *p++ = separator;
    p = put2(p, month);
    *p++ = separator;
    return put2(p, day);
}

static char *put_clock(char *p, const jt_civil_time *t)
{
    p = put2(p, t->hour);
    *p++ = ':';
    p = put2(p, t->minute);
    *p++ = ':';
    return put2(p, t->second);
}

/* "+HHMM" or, with a colon, "+HH:MM". */
static char *put_offset(char *p, long off, bool colon)
{
    *p++ = off < 0 ? '-' : '+';
    if (off < 0) off = -off;
    p = put2(p, (int)(off / 3600));
    if (colon) *p++ = ':';
    return put2(p, (int)(off / 60 % 60));
}

size_t jt_time_to_s(VALUE time, char out[JT_TIME_TEXT_MAX])
{
    jt_civil_time t;
    if (!jt_civil_time_of(time, &t)) return 0;
    char *p = put_date(out, t.year, t.month, t.day, '-');
    *p++ = ' ';
    p = put_clock(p, &t);
    *p++ = ' ';
    if (t.utc) {
        memcpy(p, "UTC", 3);
        p += 3;
    } else {
        p = put_offset(p, t.utc_offset, false);
    }
    return (size_t)(p - out);
}

size_t jt_format_xmlschema(const jt_civil_time *t, int digits, char out[JT_TIME_TEXT_MAX])
{
    char *p = put_date(out, t->year, t->month, t->day, '-');
    *p++ = 'T';
    p = put_clock(p, t);
    if (digits > 0) {
        char nine[9];
        long ns = t->nanosecond;
        for (int i = 8; i >= 0; i--) {
            nine[i] = (char)('0' + ns % 10);
            ns /= 10;
        }
        *p++ = '.';
        memcpy(p, nine, (size_t)digits);
        p += digits;
    }
    if (t->utc) {
        *p++ = 'Z';
    } else {
        p = put_offset(p, t->utc_offset, true);
    }
    return (size_t)(p - out);
}

size_t jt_format_legacy_time(const jt_civil_time *t, char out[JT_TIME_TEXT_MAX])
{
    char *p = put_date(out, t->year, t->month, t->day, '/');
    *p++ = ' ';
    p = put_clock(p, t);
    *p++ = ' ';
    p = put_offset(p, t->utc_offset, false);
    return (size_t)(p - out);
}

size_t jt_format_date(long year, int month, int day, char separator, char out[JT_TIME_TEXT_MAX])
{
    return (size_t)(put_date(out, year, month, day, separator) - out);
}

bool jt_time_class_is_stock(VALUE klass)
{
    return RTEST(rb_class_inherited_p(klass, rb_cTime)) &&
           rb_method_basic_definition_p(klass, jt.id_to_s) &&
           rb_method_basic_definition_p(klass, jt.id_to_i) &&
           rb_method_basic_definition_p(klass, jt.id_utc_p);
}
