#ifndef JETSON_NUMBERS_H
#define JETSON_NUMBERS_H

#include <stdint.h>

/* Upper bounds on what the writers below emit, so callers can reserve once. */
#define JT_DOUBLE_MAX_CHARS 32
#define JT_LONG_MAX_CHARS 21

/* Writes a finite double in the json gem's layout ("1.0", "1e+15", "0.0001",
 * "2.2471348024634546e-10", "-0.0") using the shortest digits that round-trip.
 * Returns the number of bytes written; no NUL terminator. */
int jt_write_double(double value, char *dst);

/* Writes a signed 64-bit integer in decimal. Returns the number of bytes. */
int jt_write_long(long value, char *dst);

#endif
