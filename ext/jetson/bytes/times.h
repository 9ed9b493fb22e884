#ifndef JETSON_BYTES_TIMES_H
#define JETSON_BYTES_TIMES_H

/* Dates and times as text (times.c): the civil time of an instant in an
 * offset, Time#to_s, xmlschema with any number of fraction digits, and the
 * "%Y/%m/%d %H:%M:%S %z" layout. */

#include "bytes/base.h"

/* Civil date and clock time of one instant in one UTC offset. */
typedef struct jt_civil_time {
    long year;
    int month, day, hour, minute, second;
    long nanosecond; /* truncated, as strftime's %N */
    long utc_offset; /* seconds east of UTC, a whole number of minutes */
    bool utc;        /* the Time is in UTC mode (prints "UTC"/"Z", not an offset) */
} jt_civil_time;

/* Longest text written by the formatters below (xmlschema with 9 digits). */
#define JT_TIME_TEXT_MAX 40

/* Whether instances of klass print with Ruby's own Time#to_s, reading the
 * fields through Ruby's own Time#to_i and Time#utc?; settled once per class
 * per call by the generator. */
bool jt_time_class_is_stock(VALUE klass);

/* Writes what Time#to_s returns for a Time of a stock class (see above), or
 * returns 0 when the Time lies outside what is formatted here (years before
 * 1 or after 9999, offsets with seconds) so that the caller asks Ruby. */
size_t jt_time_to_s(VALUE time, char out[JT_TIME_TEXT_MAX]);

/* The civil time of a Time of a stock class, or of the instant utc_time (a
 * Time) seen at utc_offset seconds east (an ActiveSupport::TimeWithZone's
 * parts). False when outside years 1-9999 or the offset has seconds: the
 * caller then asks Ruby. */
bool jt_civil_time_of(VALUE time, jt_civil_time *t);
bool jt_civil_time_at(VALUE utc_time, VALUE utc_offset, bool utc, jt_civil_time *t);

/* The civil time secs seconds after the epoch (UTC) at off seconds east;
 * false outside years 1-9999 or when the offset has seconds. The
 * nanosecond is left for the caller. */
bool jt_civil_time_from_seconds(int64_t secs, long off, bool utc, jt_civil_time *t);
/* Days from 1970-01-01 of a proleptic Gregorian date. */
int64_t jt_days_from_civil(long year, int month, int day);

/* Time#xmlschema(digits) / TimeWithZone#xmlschema(digits), digits 0-9:
 * "2024-05-06T07:08:09.123Z" or "...+09:00". */
size_t jt_format_xmlschema(const jt_civil_time *t, int digits, char out[JT_TIME_TEXT_MAX]);
/* ActiveSupport's legacy JSON time: "2024/05/06 07:08:09 +0900". */
size_t jt_format_legacy_time(const jt_civil_time *t, char out[JT_TIME_TEXT_MAX]);
/* "2024-05-06" with separator '-', or "2024/05/06" with '/'. */
size_t jt_format_date(long year, int month, int day, char separator, char out[JT_TIME_TEXT_MAX]);
/* Proleptic Gregorian date of a day count from 1970-01-01. */
void jt_civil_from_days(long days, long *year, int *month, int *day);

#endif
