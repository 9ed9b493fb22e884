/* Classes' profiles (rails/rails_call.h): what ActiveSupport does with
 * instances of a class, settled once per class and call, for both modes'
 * walks and the record writer. */

#include "rails/rails_call.h"

struct jt_rails_profile *jt_rails_profile(jt_gen *g, VALUE obj, struct jt_rails_profile *scratch)
{
    jt_rails_call *call = jt_rails_call_of(g);
    VALUE klass = CLASS_OF(obj); /* a singleton class's as_json counts */
    for (int i = 0; i < call->profile_count; i++) {
        if (call->profiles[i].klass == klass) return &call->profiles[i];
    }
    struct jt_rails_profile *p = call->profile_count < JT_PROFILE_CACHE ? &call->profiles[call->profile_count++] : scratch;
    p->klass = klass;
    p->kind = jt_rails_kind_of(klass, call->rails);
    if (p->kind == JT_RAILS_OBJECT && jt_record_relation_class_p(g, klass)) p->kind = JT_RAILS_RELATION;
    p->stock = jt_rails_stock(klass, p->kind, call->rails);
    p->record_stock = p->kind == JT_RAILS_MODEL && jt_rails_stock(klass, JT_RAILS_RECORD, call->rails);
    p->root = -1;
    p->oj_optimized = -1;
    return p;
}

bool jt_record_relation_class_p(jt_gen *g, VALUE klass)
{
    jt_db_context *c = &jt_rails_call_of(g)->attribute_access.db;
    if (!jt_db_context_ready(g, c) || NIL_P(c->relation_class)) return false;
    return RTEST(rb_class_inherited_p(klass, c->relation_class));
}
