#ifndef JETSON_RAILS_DB_CAST_INTERNAL_H
#define JETSON_RAILS_DB_CAST_INTERNAL_H

/* What db_cast.c and db_cast_numbers.c share: the casts of each kind are
 * written by the file of their family, the dispatch is db_cast.c's. */

#include "rails/walk.h"
#include "rails/db_cast.h"

/* Whether values of klass still encode as ActiveSupport's kind does; asked
 * once per call (*known caches it, -1: not asked). */
bool jt_db_class_stock(jt_gen *g, signed char *known, VALUE klass, enum jt_rails_kind kind);

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
