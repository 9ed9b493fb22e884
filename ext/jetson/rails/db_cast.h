#ifndef JETSON_RAILS_DB_CAST_H
#define JETSON_RAILS_DB_CAST_H

/* Values loaded from the database and not read yet, written as the bytes
 * ActiveSupport writes for what the attribute's type would cast them to,
 * without making the cast value (a Time, a TimeWithZone, a BigDecimal, a
 * Hash). Only for ActiveRecord's stock types, described once per type object
 * by Jetson::Rails::DbCast (lib/jetson/rails/db_cast.rb); a value a
 * descriptor does not cover exactly (an unusual format, a date outside the
 * proleptic Gregorian years, a zone offset with seconds) is refused before a
 * byte is written, and the attribute's reader then runs as ActiveRecord
 * would. The record is left as it was: nothing is cast into it, so a later
 * read casts as it always does. */

#include "bytes/base.h"
#include "bytes/times.h"

struct jt_gen;

enum jt_cast_kind {
    JT_CAST_NONE = 0, /* the reader runs */
    JT_CAST_INTEGER,
    JT_CAST_FLOAT,
    JT_CAST_DECIMAL,
    JT_CAST_STRING,
    JT_CAST_BOOLEAN,
    JT_CAST_DATE,
    JT_CAST_DATETIME,
    JT_CAST_TIME,        /* a time of day on 2000-01-01 */
    JT_CAST_TIMESTAMPTZ, /* PostgreSQL's timestamptz: getutc or getlocal */
    JT_CAST_JSON,
    JT_CAST_UUID,
    JT_CAST_ENUM,
    JT_CAST_KINDS
};

/* How ActiveModel reads a time String on this Ruby (DbCast.time_string_rules
 * answers by probing its casts): its ISO_DATETIME regex and new_time (Ruby
 * before 3.2), or Time.new(string) (3.2 and later); db_cast_times.c has the
 * rules of each. UNKNOWN: neither, so time Strings are left to the readers. */
enum jt_time_strings { JT_TIME_STRINGS_UNKNOWN = 0, JT_TIME_STRINGS_REGEX = 1, JT_TIME_STRINGS_TIME_NEW = 2 };

/* A descriptor, read from its Ruby form (DbCast.descriptor). labels: the
 * enum's Hash of database value => label, kept alive by the descriptor the
 * caller holds. */
typedef struct jt_db_cast {
    uint8_t kind;
    uint8_t enum_subkind;  /* JT_CAST_INTEGER or JT_CAST_STRING */
    int8_t precision;      /* seconds digits kept by a Time's cast, -1: all */
    int8_t timezone;       /* 1: UTC, 0: local, -1: ActiveRecord.default_timezone */
    bool zone_aware;       /* time_zone_aware_attributes: a TimeWithZone in Time.zone */
    bool time_of_day;      /* and then moved to 2000-01-01 there (ActiveRecord 8's time columns) */
    int16_t scale;         /* decimal: digits kept after the point, -1: all */
    VALUE labels;
} jt_db_cast;

/* Fills cast from a descriptor; false (kind NONE) for anything malformed. */
bool jt_db_cast_read(VALUE descriptor, jt_db_cast *cast);

/* What a cast reads from the moment of the call, asked once when the first
 * record is met (DbCast.context), and what it learns during the call. */
/* A zone has two periods a year where it observes daylight saving time:
 * the timestamps of a few years of records fit. */
#define JT_DB_PERIODS 32
typedef struct jt_db_context {
    signed char known;        /* -1: not asked; 0: no ActiveRecord; 1: read */
    VALUE zone;               /* Time.zone, or Qnil */
    bool default_utc;         /* ActiveRecord.default_timezone == :utc */
    bool json_stock;          /* JSON columns decode as the json gem parses (see json_column.c) */
    VALUE relation_class;     /* ActiveRecord::Relation */
    VALUE proxy_class;        /* ActiveRecord::Associations::CollectionProxy */
    bool decimal_half_up;     /* BigDecimal.mode(BigDecimal::ROUND_MODE) rounds half up */
    uint8_t time_strings;     /* enum jt_time_strings */
    /* Whether the values' classes still encode as ActiveSupport's (-1: not asked). */
    signed char time_stock, zone_time_stock, date_stock, decimal_stock;
    /* Offsets met in this call: [from, to) seconds since the epoch. Zone
     * periods are the zone's (TZInfo), local ones the system's; shifts turn
     * a local civil hour into its instant (Time.local). */
    struct jt_db_period {
        VALUE zone; /* whose period (Qnil: the system's) */
        int64_t from, to;
        int32_t offset;
        bool utc;
    } zone_periods[JT_DB_PERIODS], local_periods[JT_DB_PERIODS];
    int zone_period_count, local_period_count;
    /* DbCast.zone_table of table_zone (Qnil: not asked; Qfalse: none). */
    VALUE zone_table, table_zone;
    struct {
        int64_t hour; /* civil seconds of the hour, read as UTC */
        int32_t shift;
        bool known; /* false: the shift changes inside the hour */
    } shifts[JT_DB_PERIODS];
    int shift_count;
} jt_db_context;

JT_INLINE void jt_db_context_init(jt_db_context *c)
{
    c->known = -1;
    c->zone = c->relation_class = c->proxy_class = Qnil;
    c->zone_table = c->table_zone = Qnil;
}

/* Reads the call's context (once); false without ActiveRecord. */
bool jt_db_context_ready(struct jt_gen *g, jt_db_context *c);
/* The same outside a generator call (the builder's extract!). */
bool jt_db_context_load(jt_db_context *c);

/* Writes what cast makes of raw (a value of the record's @values) as
 * ActiveSupport encodes it, and returns true; or returns false with nothing
 * written (the buffer as it was), when the reader has to run. May call Ruby
 * (a zone's period, a stock check): the caller's row must allow it. */
bool jt_db_cast_write(struct jt_gen *g, jt_db_context *c, const jt_db_cast *cast, VALUE raw);

/* json_column.c: the text of a JSON column written as ActiveSupport writes
 * ActiveSupport::JSON.decode(text); false, with the buffer as it was, for
 * anything the json gem's parser might read differently (duplicate keys,
 * comments, NaN, lone surrogates, deep nesting, invalid text). */
bool jt_json_column_write(struct jt_gen *g, VALUE text);

void jt_init_db_cast(void);

#endif
