#ifndef JETSON_BYTES_GRISU2_H
#define JETSON_BYTES_GRISU2_H

/* The digits of a double by Loitsch's Grisu2 ("Printing Floating-Point
 * Numbers Quickly and Accurately with Integers", PLDI 2010) with the
 * parameters the json gem prints Floats with since 2.11: 64-bit products,
 * cached powers of ten every eighth exponent, scaled exponents in [-60, -32],
 * the boundaries narrowed by one unit and the last digit weeded towards the
 * value. Grisu2 is not always shortest nor closest (1e23 comes out as
 * 9999999999999999e7), which is why Jetson follows it: these are the json
 * gem's bytes. */

#include <stdint.h>

/* For a positive finite double: value ~ d * 10^(*k), d of at most 18 digits
 * with no leading zero (a trailing zero is possible, and kept: the json gem
 * lays out the digits it has). */
uint64_t jt_grisu2(double value, int *k);

#endif
