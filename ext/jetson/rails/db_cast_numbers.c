/* Database numbers written as their cast would be encoded (db_cast_write.c's
 * integer, float and decimal kinds; see the table at the top of db_cast_write.c):
 * Integers and their texts, Floats, and decimals rounded to their scale as
 * BigDecimal#round would, written as ActiveSupport writes a BigDecimal. */

#include "rails/cast_writers.h"
#include <math.h>

/* A String of digits, with an optional sign, as a long: what String#to_i
 * reads of it; false for anything else or more than 18 digits. */
bool jt_db_plain_integer(VALUE str, long *out)
{
    const char *p = RSTRING_PTR(str);
    long len = RSTRING_LEN(str), i = 0;
    bool negative = false;
    if (len > 0 && (p[0] == '-' || p[0] == '+')) {
        negative = p[0] == '-';
        i = 1;
    }
    if (i == len || len - i > 18) return false;
    long v = 0;
    for (; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        v = v * 10 + (p[i] - '0');
    }
    *out = negative ? -v : v;
    return true;
}

static bool blank_string(VALUE str)
{
    const char *p = RSTRING_PTR(str);
    for (long i = 0; i < RSTRING_LEN(str); i++) {
        if (!jt_db_is_space(p[i])) return false;
    }
    return true;
}

static bool split_decimal(const char *p, long len, bool *negative, const char **int_part, long *int_len,
                          const char **frac, long *frac_len);
static VALUE decimal_text(jt_gen *g, jt_db_context *c, VALUE raw);

/* BigDecimal#to_i of a decimal column without scale (DecimalWithoutScale):
 * the integer digits of its text, truncated toward zero. */
static bool write_decimal_integer(jt_gen *g, jt_db_context *c, VALUE raw)
{
    VALUE text = decimal_text(g, c, raw);
    if (NIL_P(text)) return false;
    bool negative;
    const char *int_part, *frac;
    long int_len, frac_len;
    char copy[200];
    long len = RSTRING_LEN(text);
    if (len >= (long)sizeof(copy)) return false;
    memcpy(copy, RSTRING_PTR(text), (size_t)len);
    RB_GC_GUARD(text);
    if (!split_decimal(copy, len, &negative, &int_part, &int_len, &frac, &frac_len)) return false;
    while (int_len > 1 && int_part[0] == '0') {
        int_part++;
        int_len--;
    }
    bool zero = int_len == 1 && int_part[0] == '0';
    jt_buffer_reserve(g->buf, (size_t)int_len + 1);
    if (negative && !zero) jt_buffer_push_unsafe(g->buf, '-');
    jt_buffer_append(g->buf, int_part, (size_t)int_len);
    return true;
}

bool jt_db_write_integer(jt_gen *g, jt_db_context *c, VALUE raw)
{
    if (RB_TYPE_P(raw, T_DATA)) return write_decimal_integer(g, c, raw);
    if (RB_INTEGER_TYPE_P(raw)) {
        jt_gen_value(g, raw);
        return true;
    }
    if (RB_FLOAT_TYPE_P(raw)) {
        double d = RFLOAT_VALUE(raw);
        if (!isfinite(d) || d >= 9.2e18 || d <= -9.2e18) return false;
        jt_gen_value(g, LL2NUM((long long)d)); /* to_i truncates */
        return true;
    }
    if (!RB_TYPE_P(raw, T_STRING)) return false;
    long v;
    if (blank_string(raw)) { /* blank?: nil (other Unicode spaces are left to Ruby) */
        jt_buffer_append(g->buf, "null", 4);
        return true;
    }
    if (!jt_db_plain_integer(raw, &v)) return false;
    jt_gen_value(g, LONG2NUM(v));
    return true;
}

bool jt_db_write_float(jt_gen *g, VALUE raw)
{
    if (RB_FLOAT_TYPE_P(raw)) {
        jt_db_write_float_value(g, raw);
        return true;
    }
    if (FIXNUM_P(raw)) {
        jt_db_write_float_value(g, DBL2NUM((double)FIX2LONG(raw)));
        return true;
    }
    return false;
}

/* A decimal number in digits: sign, integer digits, fraction digits (the
 * text of BigDecimal#to_s("F"), of an Integer, or of a plain decimal
 * String), to be rounded at `scale` fraction digits (half up) and written as
 * to_s("F"): no leading zeros, at least one digit on each side of the
 * point, no trailing zeros after the first fraction digit. */
#define DECIMAL_DIGITS_MAX 160

static bool write_decimal_digits(jt_gen *g, bool negative, const char *int_part, long int_len, const char *frac,
                                 long frac_len, int scale)
{
    char digits_buffer[DECIMAL_DIGITS_MAX + 2];
    if (int_len + frac_len > DECIMAL_DIGITS_MAX) return false;
    /* All the digits in one run: digits_buffer[1..], one spare in front for a carry. */
    char *d = digits_buffer + 1;
    memcpy(d, int_part, (size_t)int_len);
    memcpy(d + int_len, frac, (size_t)frac_len);
    long n = int_len + frac_len, point = int_len;
    if (scale >= 0 && frac_len > scale) {
        bool up = d[point + scale] >= '5';
        n = point + scale;
        if (up) {
            long i = n - 1;
            while (i >= 0 && d[i] == '9') d[i--] = '0';
            if (i >= 0) {
                d[i]++;
            } else {
                *--d = '1';
                n++;
                point++;
            }
        }
    }
    /* Leading zeros of the integer part, trailing zeros of the fraction. */
    long start = 0;
    while (start < point - 1 && d[start] == '0') start++;
    long end = n;
    while (end > point + 1 && d[end - 1] == '0') end--;
    bool zero = true;
    for (long i = start; i < end; i++) zero = zero && d[i] == '0';
    if (zero && negative) return false; /* BigDecimal's -0.0: left to Ruby */
    char out[DECIMAL_DIGITS_MAX + 8];
    char *o = out;
    if (negative) *o++ = '-';
    if (point - start > 0) {
        memcpy(o, d + start, (size_t)(point - start));
        o += point - start;
    } else {
        *o++ = '0';
    }
    *o++ = '.';
    if (end > point) {
        memcpy(o, d + point, (size_t)(end - point));
        o += end - point;
    } else {
        *o++ = '0';
    }
    jt_write_plain_text(g, out, (size_t)(o - out));
    return true;
}

/* "[-]digits[.digits]" into its parts; false for anything else. */
static bool split_decimal(const char *p, long len, bool *negative, const char **int_part, long *int_len,
                          const char **frac, long *frac_len)
{
    long i = 0;
    *negative = false;
    if (i < len && (p[i] == '-' || p[i] == '+')) *negative = p[i++] == '-';
    *int_part = p + i;
    while (i < len && p[i] >= '0' && p[i] <= '9') i++;
    *int_len = (p + i) - *int_part;
    if (*int_len == 0) return false;
    *frac = p + i;
    *frac_len = 0;
    if (i < len && p[i] == '.') {
        *frac = p + ++i;
        while (i < len && p[i] >= '0' && p[i] <= '9') i++;
        *frac_len = (p + i) - *frac;
        if (*frac_len == 0) return false;
    }
    return i == len;
}

/* A BigDecimal's text, as to_s("F") writes it; nil for another object. */
static VALUE decimal_text(jt_gen *g, jt_db_context *c, VALUE raw)
{
    VALUE klass = jt_rails_of(g)->big_decimal;
    if (NIL_P(klass) || CLASS_OF(raw) != klass || !jt_db_class_stock(g, &c->decimal_stock, klass, JT_RAILS_DECIMAL)) return Qnil;
    jt_before_ruby(g);
    VALUE text = rb_funcall(raw, jt.id_to_s, 0); /* ActiveSupport's to_s: "F" */
    return RB_TYPE_P(text, T_STRING) ? text : Qnil;
}

bool jt_db_write_decimal(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, VALUE raw)
{
    /* round(0) gives an Integer, written as a number: left to Ruby. */
    if (cast->scale == 0 || !c->decimal_half_up) return false;
    VALUE text;
    if (FIXNUM_P(raw)) {
        text = rb_fix2str(raw, 10);
    } else if (RB_TYPE_P(raw, T_STRING)) {
        text = raw;
    } else if (RB_TYPE_P(raw, T_DATA)) {
        text = decimal_text(g, c, raw);
        if (NIL_P(text)) return false;
    } else {
        return false;
    }
    if (!jt_db_class_stock(g, &c->decimal_stock, jt_rails_of(g)->big_decimal, JT_RAILS_DECIMAL)) return false;
    bool negative;
    const char *int_part, *frac;
    long int_len, frac_len;
    char copy[DECIMAL_DIGITS_MAX + 4];
    long len = RSTRING_LEN(text);
    if (len > DECIMAL_DIGITS_MAX) return false;
    memcpy(copy, RSTRING_PTR(text), (size_t)len);
    RB_GC_GUARD(text);
    if (!split_decimal(copy, len, &negative, &int_part, &int_len, &frac, &frac_len)) return false;
    return write_decimal_digits(g, negative, int_part, int_len, frac, frac_len, cast->scale);
}
