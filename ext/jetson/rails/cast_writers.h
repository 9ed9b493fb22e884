#ifndef JETSON_RAILS_CAST_WRITERS_H
#define JETSON_RAILS_CAST_WRITERS_H

/* What the database casts' units share: db_cast.c reads what they
 * need, the casts of each kind are written by the file of their family
 * (db_cast_numbers.c, db_cast_times.c, json_column.c), the dispatch is
 * db_cast_write.c's. */

#include "rails/rails_call.h"

/* A Float cast from the database, as Float#as_json makes it and the call's
 * mode writes it (jt_record_mode). */
JT_INLINE void jt_db_write_float_value(jt_gen *g, VALUE value)
{
    jt_rails_call_of(g)->records->float_(g, value);
}

/* db_cast.c: its handles. */
void jt_init_db_cast_read(void);

/* Whether values of klass still encode as ActiveSupport's kind does; asked
 * once per call (*known caches it, -1: not asked). */
JT_INLINE bool jt_db_class_stock(jt_gen *g, signed char *known, VALUE klass, enum jt_rails_kind kind)
{
    if (RB_UNLIKELY(*known < 0)) {
        jt_before_ruby(g);
        *known = !NIL_P(klass) && jt_rails_stock(klass, kind, jt_rails_of(g));
    }
    return *known;
}

/* C's isspace in the C locale: what Ruby's String#strip and blank? treat
 * as space among ASCII. */
JT_INLINE bool jt_db_is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
}

/* A String of digits with an optional sign as a long (String#to_i's
 * reading of it); false for anything else or more than 18 digits. */
bool jt_db_plain_integer(VALUE str, long *out);

/* db_cast_times.c: datetime, time and timestamptz values; dates. */
bool jt_db_write_datetime(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, VALUE raw);
bool jt_db_write_date(jt_gen *g, jt_db_context *c, VALUE raw);
void jt_init_db_cast_times(void);

bool jt_db_write_integer(jt_gen *g, jt_db_context *c, VALUE raw);
bool jt_db_write_float(jt_gen *g, VALUE raw);
bool jt_db_write_decimal(jt_gen *g, jt_db_context *c, const jt_db_cast *cast, VALUE raw);

#endif
