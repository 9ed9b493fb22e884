#ifndef JETSON_TIMES_H
#define JETSON_TIMES_H

#include "jetson.h"

/* Civil date and clock time of one instant in one UTC offset. */
typedef struct jt_civil_time {
    long year;
    int month, day, hour, minute, second;
    long utc_offset; /* seconds east of UTC */
    bool utc;        /* the Time is in UTC mode (prints "UTC", not "+0000") */
} jt_civil_time;

/* Longest Time#to_s this file writes: "YYYY-MM-DD HH:MM:SS +HHMM". */
#define JT_TIME_TO_S_MAX 25

/* Whether instances of klass print with Ruby's own Time#to_s, reading the
 * fields through Ruby's own Time#to_i and Time#utc?; settled once per class
 * per call by the generator. */
bool jt_time_class_is_stock(VALUE klass);

/* Writes what Time#to_s returns for a Time of a stock class (see above), or
 * returns 0 when the Time lies outside what is formatted here (years before
 * 1 or after 9999, offsets with seconds) so that the caller asks Ruby. */
size_t jt_time_to_s(VALUE time, char out[JT_TIME_TO_S_MAX]);

#endif
