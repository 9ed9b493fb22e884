/* Objects without a native encoding in json mode: their to_json (handed a
 * State with the call's options and depth), or the json gem's generic
 * to_json and to_s done natively, settled once per class per call. Split
 * out of generator.c, which calls jt_gen_fallback. */
#include "json/json_walk.h"
#include "bytes/times.h"

/* --- state handed to to_json ------------------------------------------------ */

/* A to_json written for the json gem (`as_json.to_json(*args)`) only keeps our
 * options and depth if it is given a JSON::State, so that is what it gets
 * when the json gem is loaded. */
static VALUE json_gem_state_class(void)
{
    VALUE klass = jt_json_gem_constant(jj.id_json_state_class);
    return RB_TYPE_P(klass, T_CLASS) ? klass : Qnil;
}

static VALUE config_to_hash(const jt_config *cfg, long depth)
{
    VALUE h = rb_hash_new();
    VALUE empty = rb_str_new_cstr("");
    rb_hash_aset(h, jj.sym_indent, cfg->indent ? cfg->indent : empty);
    rb_hash_aset(h, jj.sym_space, cfg->space ? cfg->space : empty);
    rb_hash_aset(h, jj.sym_space_before, cfg->space_before ? cfg->space_before : empty);
    rb_hash_aset(h, jj.sym_object_nl, cfg->object_nl ? cfg->object_nl : empty);
    rb_hash_aset(h, jj.sym_array_nl, cfg->array_nl ? cfg->array_nl : empty);
    rb_hash_aset(h, jj.sym_allow_nan, cfg->allow_nan ? Qtrue : Qfalse);
    rb_hash_aset(h, jj.sym_ascii_only, cfg->ascii_only ? Qtrue : Qfalse);
    rb_hash_aset(h, jj.sym_max_nesting, LONG2NUM(cfg->max_nesting));
    rb_hash_aset(h, jj.sym_script_safe, cfg->script_safe ? Qtrue : Qfalse);
    rb_hash_aset(h, jj.sym_strict, cfg->strict ? Qtrue : Qfalse);
    rb_hash_aset(h, jj.sym_depth, LONG2NUM(depth));
    rb_hash_aset(h, jj.sym_buffer_initial_length, LONG2NUM(cfg->buffer_initial_length));
    rb_hash_aset(h, jj.sym_as_json, cfg->as_json);
    rb_hash_aset(h, jj.sym_sort_keys, cfg->sort_keys);
    if (cfg->on_duplicate_key != JT_DUP_WARN) {
        rb_hash_aset(h, jj.sym_allow_duplicate_key, cfg->on_duplicate_key == JT_DUP_IGNORE ? Qtrue : Qfalse);
    }
    if (jj.json3 || cfg->rfc8785) rb_hash_aset(h, jj.sym_rfc8785, cfg->rfc8785 ? Qtrue : Qfalse);
    return h;
}

static VALUE call_to_json(jt_gen *g, VALUE obj)
{
    jt_before_ruby(g);
    if (!RTEST(g->vstate)) {
        VALUE json_state = json_gem_state_class();
        if (NIL_P(json_state)) {
            g->vstate = jt_state_new_from_config(g->cfg, g->depth);
        } else {
            VALUE opts = config_to_hash(g->cfg, g->depth);
            g->vstate = rb_class_new_instance(1, &opts, json_state);
        }
    }
    if (jt_is_state(g->vstate)) {
        jt_state_config(g->vstate)->depth = g->depth;
    } else {
        rb_funcall(g->vstate, jj.id_depth_set, 1, LONG2NUM(g->depth));
    }
    return rb_funcall(obj, jj.id_to_json, 1, g->vstate);
}

/* The json gem defines one to_json for every object (JSON::GeneratorMethods):
 * it generates nil, booleans, numbers, Arrays and Hashes (subclasses too) as
 * themselves and everything else as the String "#{self}", with the State it
 * is given. When that is the method an object would run, Jetson produces the
 * same bytes natively instead of a round trip through Ruby and a second
 * generator. */
bool jt_to_json_is_generic(VALUE obj)
{
    VALUE generic_module = jt_json_gem_constant(jj.id_generator_methods);
    if (!RB_TYPE_P(generic_module, T_MODULE)) return false;
    /* Kernel#method itself: objects often have a `method` of their own (an
     * HTTP request's verb, a Struct member) that would be called instead. */
    VALUE method = rb_obj_method(obj, ID2SYM(jj.id_to_json));
    return rb_funcall(method, jj.id_owner, 0) == generic_module;
}

/* Looking up respond_to?, to_json's owner and to_s costs more than writing
 * most values, and the answers depend on the class alone, so they are
 * settled once per class per call. A to_json or to_s that defines methods
 * half-way through a call is not seen until the next call. */
static struct jt_class_profile *json_profile(jt_gen *g, VALUE obj, struct jt_class_profile *scratch)
{
    VALUE klass = CLASS_OF(obj);
    for (int i = 0; i < g->profile_count; i++) {
        if (g->profiles[i].klass == klass) return &g->profiles[i];
    }
    struct jt_class_profile *p = g->profile_count < JT_PROFILE_CACHE ? &g->profiles[g->profile_count++] : scratch;
    p->klass = klass;
    p->respond_to_is_stock = rb_method_basic_definition_p(klass, jj.id_respond_to) &&
                             rb_method_basic_definition_p(klass, jj.id_respond_to_missing);
    p->responds_to_json = p->respond_to_is_stock && rb_respond_to(obj, jj.id_to_json);
    p->generic_to_json = -1;
    p->stock_time = jt_time_class_is_stock(klass);
    return p;
}


static bool profile_responds_to_json(const struct jt_class_profile *p, VALUE obj)
{
    return p->respond_to_is_stock ? p->responds_to_json : rb_respond_to(obj, jj.id_to_json);
}

static bool profile_generic_to_json(struct jt_class_profile *p, VALUE obj)
{
    if (p->generic_to_json < 0) p->generic_to_json = jt_to_json_is_generic(obj);
    return p->generic_to_json;
}

/* "#{obj}" for an object printed by Ruby's own to_s. */
static void gen_as_string(jt_gen *g, const struct jt_class_profile *p, VALUE obj)
{
    if (p->stock_time) {
        char text[JT_TIME_TEXT_MAX];
        size_t n = jt_time_to_s(obj, text);
        if (n) {
            jt_write_plain_text(g, text, n);
            return;
        }
    }
    VALUE str = rb_funcall(obj, jt.id_to_s, 0);
    Check_Type(str, T_STRING);
    jt_gen_string(g, str, false);
}

/* Objects without a native encoding: their to_json, else their to_s. */
void jt_gen_fallback(jt_gen *g, VALUE obj)
{
    jt_before_ruby(g); /* respond_to?, to_json and to_s are Ruby code */
    struct jt_class_profile scratch;
    struct jt_class_profile *p = json_profile(g, obj, &scratch);
    bool has_to_json = profile_responds_to_json(p, obj);
    if (has_to_json && profile_generic_to_json(p, obj)) {
        switch (rb_type(obj)) {
            case T_HASH: jt_gen_hash(g, obj); return;
            case T_ARRAY: jt_gen_array(g, obj); return;
            /* "#{self}" makes a plain String copy; errors name that copy. */
            case T_STRING: jt_gen_string(g, rb_enc_associate_index(rb_str_new(RSTRING_PTR(obj), RSTRING_LEN(obj)), ENCODING_GET(obj)), false); return;
            default: break;
        }
        if (p->stock_time) {
            gen_as_string(g, p, obj);
        } else {
            jt_gen_string(g, rb_obj_as_string(obj), false);
        }
        return;
    }
    if (has_to_json) {
        VALUE json = call_to_json(g, obj);
        Check_Type(json, T_STRING);
        jt_buffer_append_str(g->buf, json);
        RB_GC_GUARD(json);
        return;
    }
    switch (rb_type(obj)) {
        /* Subclasses keep their natural encoding when nothing overrides it
         * (the json gem would reach the same bytes through its to_json). */
        case T_HASH: jt_gen_hash(g, obj); return;
        case T_ARRAY: jt_gen_array(g, obj); return;
        case T_STRING: jt_gen_string(g, obj, false); return;
        default: break;
    }
    gen_as_string(g, p, obj);
}
