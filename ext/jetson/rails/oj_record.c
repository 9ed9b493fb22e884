/* Oj mode's records (rails/oj_call.h): ActiveRecord records and relations
 * as Oj's walk meets them. Oj asks their as_json, which ActiveModel answers
 * with serializable_hash(options).as_json, a Hash of JSON-ready values that
 * Oj then walks; the record writer (record.c) writes that Hash from the
 * record's attribute set, each value through jt_oj_records (oj_values.c). */

#include "rails/oj_call.h"
#include "rails/record.h"

/* record.as_json(options) as ActiveModel makes it, written as Oj writes
 * that Hash; false, with nothing written, where Oj has to write it. The
 * Hash's values are as_json'd without options: objects met in them go to
 * Oj without the call's. */
static bool record_model(jt_gen *g, VALUE model, struct jt_rails_profile *p, VALUE options)
{
    jt_rails_call *call = jt_rails_call_of(g);
    VALUE saved = call->as_json_options;
    call->as_json_options = Qundef;
    enum jt_record_outcome outcome = jt_record_serialize(g, model, p, options);
    call->as_json_options = saved;
    return outcome == JT_RECORD_WRITTEN;
}

/* Whether Oj::Rails.optimize covers p's class itself (asked once per class
 * and call): Oj then writes a record's @attributes, or a relation as an
 * Enumerable, its own way. */
static bool oj_optimizes(jt_gen *g, struct jt_rails_profile *p)
{
    if (p->oj_optimized < 0) {
        jt_before_ruby(g);
        p->oj_optimized = RTEST(rb_funcall(jt_oj_call_of(g)->oj_rails, rb_intern("optimized?"), 1, p->klass));
    }
    return p->oj_optimized;
}

/* One record as ActiveModel's as_json(options) makes it: natively while its
 * as_json and serialization are ActiveModel's and ActiveRecord's (record.c),
 * else through its as_json, whose result Oj walks. */
static void record_as_json(jt_gen *g, VALUE record, struct jt_rails_profile *p, VALUE options)
{
    if (p->kind == JT_RAILS_MODEL && p->stock && record_model(g, record, p, options == Qundef ? Qnil : options)) return;
    jt_oj_write_as_json_result(g, jt_oj_call_as_json(g, record, options));
}

/* A relation's record, with the options where the relation stood: one
 * with an as_json of its own is counted here (a record outside a relation
 * with one goes to Oj, see jt_oj_record). */
static void relation_element(jt_gen *g, VALUE record, VALUE options)
{
    struct jt_rails_profile scratch;
    jt_before_ruby(g);
    struct jt_rails_profile *p = jt_rails_profile(g, record, &scratch);
    if (p->kind == JT_RAILS_MODEL && !p->stock) {
        jt_attribute_fallback(&jt_rails_call_of(g)->attribute_access, JT_DIAG_RECORDS, JT_WHY_AS_JSON,
                              rb_obj_class(record), Qnil);
    }
    record_as_json(g, record, p, options);
}

/* An ActiveRecord record or relation (an association's proxy too) that Oj's
 * walk meets: Oj asks its as_json with the options where the walk stands,
 * unless Oj::Rails.optimize names its class. A relation's as_json is its
 * records' (Array#as_json: each record's as_json with a copy of the
 * options, never Oj's own path). False: Oj writes it (the caller pastes its
 * text). */
bool jt_oj_record(jt_gen *g, VALUE obj)
{
    jt_before_ruby(g);
    struct jt_rails_profile scratch;
    struct jt_rails_profile *p = jt_rails_profile(g, obj, &scratch);
    if (p->kind != JT_RAILS_MODEL && p->kind != JT_RAILS_RELATION) return false;
    /* A record Oj writes: Oj::Rails.optimize names its class, or its own
     * as_json, which Oj calls as it calls it (arity and all). */
    enum jt_diag_reason why = oj_optimizes(g, p) ? JT_WHY_OJ_OPTIMIZED
                              : p->kind == JT_RAILS_MODEL && !p->stock ? JT_WHY_AS_JSON : JT_WHY_NONE;
    if (why != JT_WHY_NONE) {
        if (p->kind == JT_RAILS_MODEL) {
            jt_attribute_fallback(&jt_rails_call_of(g)->attribute_access, JT_DIAG_RECORDS, why, rb_obj_class(obj), Qnil);
        }
        return false;
    }
    VALUE options = jt_rails_call_of(g)->as_json_options;
    if (p->kind == JT_RAILS_MODEL) {
        record_as_json(g, obj, p, options);
        return true;
    }
    if (!p->stock) return false;
    VALUE records = rb_funcall(obj, jr.id_records, 0);
    Check_Type(records, T_ARRAY);
    jt_rails_write_list(g, records, relation_element, options);
    return true;
}
