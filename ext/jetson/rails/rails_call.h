#ifndef JETSON_RAILS_CALL_H
#define JETSON_RAILS_CALL_H

/* The state of one call under Rails mode or Oj mode (jt_gen.mode_state):
 * what both modes' units, the record writer and the database casts below
 * them share: ActiveSupport's settings, the pass the walk stands in, record
 * plans, per-class profiles (class_profiles.c), records' attribute sets,
 * and the mode's table for records' values (jt_record_mode). */

#include "json/json_walk.h"
#include "rails/rails_handles.h"
#include "rails/settings.h"
#include "rails/attribute_set.h"
#include "rails/db_cast.h"

#define JT_RECORD_PLANS 4
#define JT_PLAN_DECIDED 16

/* What a serializable_hash options Hash asks for, worked out once per
 * options object and call (the same Hash serves every record of a
 * collection): only:/except: as Strings, methods: as Strings, include: as
 * [[association, options], ...], and every name methods: and include: add. */
struct jt_record_plan {
    VALUE options;
    VALUE only, except; /* Arrays of Strings, or Qnil */
    VALUE methods, includes, extras;
    /* Names already decided by only:/except: (frozen Strings: the rows of a
     * query share their key objects, so the same few recur). */
    struct {
        VALUE name;
        bool keep;
    } decided[JT_PLAN_DECIDED];
    int decided_count;
};

/* What ActiveSupport does with instances of one class, settled on the first
 * instance met in a call and reused for the rest of it. */
struct jt_rails_profile {
    VALUE klass;
    enum jt_rails_kind kind;
    bool stock;        /* its as_json is ActiveSupport's */
    bool record_stock; /* an ActiveRecord class serialized natively (record.c) */
    /* include_root_in_json of its instances (a class attribute without an
     * instance writer): -1 until the first instance is asked. */
    signed char root;
    /* Oj mode: Oj::Rails.optimized?(klass), -1 until asked (oj_record.c). */
    signed char oj_optimized;
};

/* How a mode writes what the record writer (record.c) and the database
 * casts under it hand back: the walk's own mode (json/mode.h) decides the
 * rest of the document, this table the values inside a record's Hash. A
 * mode fills one once; the call holds it (jt_rails_call.records). */
typedef struct jt_record_mode {
    /* A value of serializable_hash's Hash, as Hash#as_json makes it and the
     * mode writes it (also the Hash itself, where Ruby built it). */
    void (*value)(jt_gen *g, VALUE value);
    /* A Float cast from the database, as Float#as_json makes it. */
    void (*float_)(jt_gen *g, VALUE value);
    /* A JSON column's text written again natively (json_column.c writes
     * ActiveSupport's numbers); false: its reader runs. */
    bool json_columns;
} jt_record_mode;

typedef struct jt_rails_call {
    const jt_rails_settings *rails;
    const jt_record_mode *records; /* how the mode writes records' values */
    /* Float#as_json, Hash#as_json and Array#as_json are ActiveSupport's; -1: unknown */
    signed char float_stock, hash_stock, array_stock;
    /* Rails mode walks a value the way one of ActiveSupport's two passes
     * would: as_json(options) (the options, or Qnil for none), which turns
     * every Hash key into a String, or the pass after it (Qundef), which
     * keeps String and Symbol keys and calls as_json without options. */
    VALUE as_json_options;
    /* Walking a value the as_json pass computes and then drops (a Hash pair
     * a later key replaces): ActiveSupport never walks such a value's as_json
     * results in the pass after, so neither does Jetson (walk.c). */
    bool dropping;
    /* JSONGemEncoder: the first error met in the results of the innermost
     * as_json(options) pass, raised when that pass is over (walk.c). */
    VALUE held_error;
    int catching; /* results being walked under rb_protect (walk.c) */
    /* serializable_hash options already worked out (record.c). */
    struct jt_record_plan record_plans[JT_RECORD_PLANS];
    int record_plan_count;
    jt_attribute_access attribute_access; /* records' attribute sets */
    struct jt_rails_profile profiles[JT_PROFILE_CACHE];
    int profile_count;
} jt_rails_call;

/* A call's state before its walk: nothing settled yet. */
JT_INLINE void jt_rails_call_start(jt_rails_call *call, const jt_rails_settings *rails, const jt_record_mode *records)
{
    /* Field by field: the record plans and profiles count up from 0. */
    call->rails = rails;
    call->records = records;
    call->float_stock = call->hash_stock = call->array_stock = -1;
    call->as_json_options = rails->options;
    call->dropping = false;
    call->held_error = 0;
    call->catching = 0;
    call->record_plan_count = 0;
    call->profile_count = 0;
    jt_attribute_access_init(&call->attribute_access, rails->helper);
}

JT_INLINE jt_rails_call *jt_rails_call_of(const jt_gen *g)
{
    return (jt_rails_call *)g->mode_state;
}

JT_INLINE const jt_rails_settings *jt_rails_of(const jt_gen *g)
{
    return jt_rails_call_of(g)->rails;
}

JT_INLINE bool jt_in_as_json_pass(const jt_gen *g)
{
    return jt_rails_call_of(g)->as_json_options != Qundef;
}

/* Where JSONGemCoderEncoder's Coder walks (outside as_json(options)
 * passes): the json gem's strict walk, cfg->as_json being the Coder's block. */
JT_INLINE bool jt_coder_walk(const jt_gen *g)
{
    return jt_rails_of(g)->coder && !jt_in_as_json_pass(g);
}

/* Where ActiveSupport's own rules apply: everywhere under JSONGemEncoder,
 * in as_json(options) passes under the Coder encoder. */
JT_INLINE bool jt_rails_jsonify(const jt_gen *g)
{
    return !jt_coder_walk(g);
}

/* class_profiles.c: the profile of obj's class, from the call's cache or
 * settled now (into scratch once the cache is full). */
struct jt_rails_profile *jt_rails_profile(jt_gen *g, VALUE obj, struct jt_rails_profile *scratch);
/* Whether klass is an ActiveRecord::Relation (association proxies too). */
bool jt_record_relation_class_p(jt_gen *g, VALUE klass);
#endif
