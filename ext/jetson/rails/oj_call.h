#ifndef JETSON_RAILS_OJ_CALL_H
#define JETSON_RAILS_OJ_CALL_H

/* Oj mode's state for one call and what its units share: oj_mode.c (the
 * mode's hooks and its entry), oj_record.c (records and relations as Oj
 * meets them) and oj_values.c (Floats, times and as_json values under Oj's
 * rules, and the record writer's table for Oj). */

#include "rails/rails_call.h"

/* The call's state. It starts with the state Rails mode has too
 * (jt_rails_call_of reads it), which the record writer and the attribute
 * sets use for records: their plans, profiles and casts. Its
 * as_json_options are the options Oj hands the objects met where the walk
 * stands: the call's (Qnil: the empty Hash Oj's encoder holds when it was
 * given none), and none (Qundef) inside a record's Hash or an as_json
 * result, which Oj walks without them. */
typedef struct jt_oj_call {
    jt_rails_call records; /* first: see above */
    VALUE oj_rails;        /* Oj::Rails */
    /* The call's options name Oj's only: or except:, which Oj applies to the
     * keys of the Hashes it walks outside as_json results (see oj_container);
     * Oj::Rails.encode does not, so what Oj writes there is written by an
     * Oj::Rails::Encoder of the call's options (made on first need; on the
     * C stack, where the GC sees it). */
    bool key_filter;
    VALUE filter_encoder;
} jt_oj_call;

JT_INLINE jt_oj_call *jt_oj_call_of(const jt_gen *g)
{
    return (jt_oj_call *)g->mode_state;
}

/* oj_values.c */
/* Oj's Rails-mode Float (see there); always written. */
bool jt_oj_float(jt_gen *g, VALUE obj);
/* The text of a Time or TimeWithZone whose class Oj optimizes, or 0. */
size_t jt_oj_time_text(const jt_rails_settings *rails, VALUE obj, VALUE klass, char out[JT_TIME_TEXT_MAX]);
/* obj.as_json as Oj calls it: with a copy of options (Qnil: an empty
 * Hash), or none (Qundef). */
VALUE jt_oj_call_as_json(jt_gen *g, VALUE obj, VALUE options);
/* What an as_json returned, written as Oj walks it: without options. */
void jt_oj_write_as_json_result(jt_gen *g, VALUE result);
/* How Oj mode writes records' values: as `.as_json` makes them and Oj
 * then writes them. */
extern const jt_record_mode jt_oj_records;

/* oj_record.c: an ActiveRecord record or relation as Oj's walk meets it;
 * false, with nothing written, where Oj writes it. */
bool jt_oj_record(jt_gen *g, VALUE obj);

#endif
