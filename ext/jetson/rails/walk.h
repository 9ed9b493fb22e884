#ifndef JETSON_RAILS_WALK_H
#define JETSON_RAILS_WALK_H

/* Rails mode's state for one call, and what its units (walk.c, coder.c,
 * record.c, the database casts) and the builder's writers share: the json
 * walk (json/walk.h) runs under the Rails mode's hooks (generate.c), with
 * this struct as its mode_state. */

#include "json/walk.h"
#include "rails/handles.h"
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
    /* Under Oj's encoder: Oj::Rails.optimized?(klass), -1 until asked. */
    signed char oj_optimized;
};

typedef struct jt_rails_call {
    const jt_rails_settings *rails;
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
JT_INLINE void jt_rails_call_start(jt_rails_call *call, const jt_rails_settings *rails)
{
    /* Field by field: the record plans and profiles count up from 0. */
    call->rails = rails;
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

/* walk.c: Rails mode's side of the walk */
void jt_rails_string(jt_gen *g, VALUE str);
void jt_rails_check_duplicate_keys(jt_gen *g, VALUE hash);
void jt_rails_hash_pairs(jt_gen *g, VALUE hash);
bool jt_rails_container_prologue(jt_gen *g, VALUE *container, enum jt_rails_kind kind);
void jt_rails_float(jt_gen *g, VALUE obj);
void jt_rails_object(jt_gen *g, VALUE obj);
struct jt_rails_profile *jt_rails_profile(jt_gen *g, VALUE obj, struct jt_rails_profile *scratch);
VALUE jt_rails_call_as_json(jt_gen *g, VALUE obj);
/* Walks value in the given pass (see as_json_options), then returns to the
 * current one. */
void jt_rails_gen_in_pass(jt_gen *g, VALUE value, VALUE options);
void jt_rails_end_pass(jt_gen *g);

/* coder.c: JSONGemCoderEncoder's side (see there) */
bool jt_rails_coder_native(jt_gen *g, VALUE obj);
bool jt_rails_coder_float(jt_gen *g, VALUE obj);
bool jt_rails_fragment(jt_gen *g, VALUE obj, VALUE klass);

/* record.c: ActiveRecord records and relations */
/* ActiveModel's as_json: serializable_hash(options).as_json, wrapped in a
 * root key when asked (false: left to Ruby). The Hash comes from the model's
 * own serializable_hash, or is written natively for ActiveRecord records. */
bool jt_record_model(jt_gen *g, VALUE model, struct jt_rails_profile *p);
/* Whether klass is an ActiveRecord::Relation (association proxies too). */
bool jt_record_relation_class_p(jt_gen *g, VALUE klass);
/* A relation written as as_json writes it: its records. */
bool jt_record_relation(jt_gen *g, VALUE relation);

/* Under Oj's encoder (oj_mode.c), whose call state starts with a
 * jt_rails_call: record.as_json(options) as ActiveModel makes it
 * (serializable_hash(options).as_json), written as Oj writes that Hash;
 * false, with nothing written, where Oj has to write it. */
bool jt_record_model_oj(jt_gen *g, VALUE model, struct jt_rails_profile *p, VALUE options);

/* oj_mode.c: a value of a record's serializable_hash as `.as_json` makes
 * it and Oj then writes it; a Float as Float#as_json makes it and Oj
 * writes it. */
void jt_oj_as_json_value(jt_gen *g, VALUE value);
void jt_oj_as_json_float(jt_gen *g, VALUE value);

#endif
