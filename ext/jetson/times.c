#include "times.h"

/* Proleptic Gregorian date of a day count from 1970-01-01, after Howard
 * Hinnant's "chrono-Compatible Low-Level Date Algorithms" (civil_from_days):
 * eras of 400 years, years starting in March so the leap day comes last. */
static void civil_from_days(long days, long *year, int *month, int *day)
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

static long floor_div(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Reads the instant through Time#to_i (floored seconds) and the offset
 * through rb_time_utc_offset, both exactly what Time#to_s formats. */
static bool civil_time_of(VALUE time, jt_civil_time *t)
{
    VALUE offset = rb_time_utc_offset(time);
    VALUE seconds = rb_funcall(time, jt.id_to_i, 0);
    if (!FIXNUM_P(offset) || !FIXNUM_P(seconds)) return false;
    long off = FIX2LONG(offset);
    long secs = FIX2LONG(seconds);
    /* Beyond +-2^40 s (~35,000 years) the year is out of range anyway;
     * the bound keeps secs + off and the day arithmetic far from overflow. */
    if (secs > (1L << 40) || secs < -(1L << 40) || off % 60 != 0) return false;
    t->utc = RTEST(rb_funcall(time, jt.id_utc_p, 0));
    t->utc_offset = off;
    long local = secs + off;
    long days = floor_div(local, 86400);
    long in_day = local - days * 86400;
    civil_from_days(days, &t->year, &t->month, &t->day);
    t->hour = (int)(in_day / 3600);
    t->minute = (int)(in_day / 60 % 60);
    t->second = (int)(in_day % 60);
    return true;
}

static char *put2(char *p, int v)
{
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

size_t jt_time_to_s(VALUE time, char out[JT_TIME_TO_S_MAX])
{
    jt_civil_time t;
    if (!civil_time_of(time, &t) || t.year < 1 || t.year > 9999) return 0;
    char *p = out;
    p = put2(p, (int)(t.year / 100));
    p = put2(p, (int)(t.year % 100));
    *p++ = '-';
    p = put2(p, t.month);
    *p++ = '-';
    p = put2(p, t.day);
    *p++ = ' ';
    p = put2(p, t.hour);
    *p++ = ':';
    p = put2(p, t.minute);
    *p++ = ':';
    p = put2(p, t.second);
    *p++ = ' ';
    if (t.utc) {
        memcpy(p, "UTC", 3);
        p += 3;
    } else {
        long off = t.utc_offset;
        *p++ = off < 0 ? '-' : '+';
        if (off < 0) off = -off;
        p = put2(p, (int)(off / 3600));
        p = put2(p, (int)(off / 60 % 60));
    }
    return (size_t)(p - out);
}

bool jt_time_class_is_stock(VALUE klass)
{
    return RTEST(rb_class_inherited_p(klass, rb_cTime)) &&
           rb_method_basic_definition_p(klass, jt.id_to_s) &&
           rb_method_basic_definition_p(klass, jt.id_to_i) &&
           rb_method_basic_definition_p(klass, jt.id_utc_p);
}
