#ifndef JETSON_JSON_IN_PLACE_H
#define JETSON_JSON_IN_PLACE_H

/* Values the json walk writes in place, into room already made in the
 * buffer, with no call and nothing that can run Ruby code: the scalars
 * (Integers, nil, true, false) and short Arrays of numbers. The caller
 * makes the room and keeps or drops what was written. */

#include "json/json_walk.h"
#include <math.h>

/* The longest scalar written in place (a Float's digits, or an Integer's). */
#define JT_SCALAR_MAX_CHARS (JT_DOUBLE_MAX_CHARS > JT_LONG_MAX_CHARS ? JT_DOUBLE_MAX_CHARS : JT_LONG_MAX_CHARS)

/* Writes a scalar that needs no call (an Integer, nil, true, false) at dst,
 * which has room for the longest Integer; returns the end, or NULL for any
 * other value. */
JT_INLINE char *jt_write_scalar_in_place(char *dst, VALUE value)
{
    if (RB_FIXNUM_P(value)) return jt_write_long_at(dst, FIX2LONG(value));
    if (value == Qnil) {
        memcpy(dst, "null", 4);
        return dst + 4;
    }
    if (value == Qtrue) {
        memcpy(dst, "true", 4);
        return dst + 4;
    }
    if (value == Qfalse) {
        memcpy(dst, "false", 5);
        return dst + 5;
    }
    return NULL;
}

/* Short Arrays of numbers inside an Array or as a pair's value
 * (coordinates, pairs of ids, rows of a matrix) are written where their
 * container's loop is, without a call, a loop set-up or a depth change of
 * their own: at most this many elements, with room made for each at its
 * longest. */
#define JT_INLINE_TUPLE_MAX 8
#define JT_TUPLE_ROOM (2 + JT_INLINE_TUPLE_MAX * (1 + JT_SCALAR_MAX_CHARS))

/* Writes ary, a plain Array of up to JT_INLINE_TUPLE_MAX Integers, Floats
 * (flonums, when the walk writes Floats), nil, true and false, at p, which
 * has room for all of them; returns the end, or NULL having written nothing
 * that counts (another element: the caller's general path writes it).
 * The caller has found a container one level down within max_nesting
 * (jt_child_within_nesting): a row of tuples tests that once. */
JT_INLINE char *jt_write_nested_number_tuple(char *p, VALUE ary, bool floats)
{
    const long n = RARRAY_LEN(ary);
    if (n > JT_INLINE_TUPLE_MAX) return NULL;
    const VALUE *elements = JT_ARRAY_ELEMENTS(ary);
    *p++ = '[';
    if (n == 0) {
        *p++ = ']';
        return p;
    }
    /* Each element is followed by a ',', and the last one's becomes the ']'. */
    for (long i = 0; i < n; i++) {
        VALUE obj = elements[i];
        char *end = jt_write_scalar_in_place(p, obj);
        if (!end) {
            if (!(RB_FLONUM_P(obj) && floats)) return NULL;
            const double value = RFLOAT_VALUE(obj);
            if (RB_UNLIKELY(!isfinite(value))) return NULL; /* allow_nan, as_json, errors */
            end = p + jt_write_double(value, p, jj.float_rules);
        }
        *end = ',';
        p = end + 1;
    }
    p[-1] = ']';
    return p;
}

/* jt_write_nested_number_tuple where the nesting is not tested yet: NULL
 * past max_nesting too, where the general path raises the NestingError. */
JT_INLINE char *jt_write_number_tuple(jt_gen *g, char *p, VALUE ary, bool floats)
{
    return jt_child_within_nesting(g) ? jt_write_nested_number_tuple(p, ary, floats) : NULL;
}

#endif
