/* Rails mode as a mode of the json walk (json/mode.h): the hooks through
 * which ActiveSupport's rules take the values they rule (walk.c, coder.c),
 * and a Rails-mode call: its configuration and state (rails/rails_call.h). */

#include "rails/rails_mode.h"
#include "rails/walk.h"

/* A String the json gem would transcode or refuse: ActiveSupport's order of
 * errors, where its own rules apply. */
static bool rails_string(jt_gen *g, VALUE str)
{
    if (!jt_rails_jsonify(g)) return false;
    jt_rails_string(g, str);
    return true;
}

static bool rails_container(jt_gen *g, VALUE *container, bool hash)
{
    return jt_rails_container_prologue(g, container, hash ? JT_RAILS_HASH : JT_RAILS_ARRAY);
}

static bool rails_pairs(jt_gen *g, VALUE hash)
{
    if (!jt_rails_jsonify(g)) return false;
    jt_rails_hash_pairs(g, hash);
    return true;
}

/* Under json 2 the Hash ActiveSupport would hand the json gem is checked
 * once its pairs are through (jt_rails_hash_pairs); under json 3 a
 * duplicate is an error the json gem meets here, at the first key of
 * another type, after every as_json (so it is deferred). */
static bool rails_mixed_keys(jt_gen *g, VALUE hash)
{
    if (!jt_rails_jsonify(g)) return false;
    if (jj.json3) jt_rails_check_duplicate_keys(g, hash);
    return true;
}

/* ActiveSupport calls every as_json before the json gem counts nesting:
 * errors from as_json come first, and a cycle ends in SystemStackError, so
 * the walk goes on. */
static bool rails_too_deep(jt_gen *g, long depth)
{
    if (!jt_rails_jsonify(g)) return false;
    if (!g->deferred_error) g->deferred_error = jt_nesting_error(depth);
    if (ruby_stack_check()) {
        --g->depth;
        rb_raise(rb_eSysStackError, "stack level too deep");
    }
    return true;
}

static bool rails_float(jt_gen *g, VALUE obj)
{
    if (jt_rails_jsonify(g)) {
        jt_rails_float(g, obj);
        return true;
    }
    return jt_rails_coder_float(g, obj);
}

static bool rails_object(jt_gen *g, VALUE obj, bool as_json_called)
{
    /* ActiveSupport before 8.1 encodes a Fragment as a Struct. */
    if (RB_TYPE_P(obj, T_STRUCT) && jt_rails_fragment(g, obj, RBASIC_CLASS(obj))) return true;
    if (!jt_coder_walk(g)) {
        jt_rails_object(g, obj);
        return true;
    }
    /* The Coder's block, unless ActiveSupport's as_json is known. */
    return !as_json_called && jt_rails_coder_native(g, obj);
}

static void rails_finish(jt_gen *g)
{
    jt_attribute_access_finish(&jt_rails_call_of(g)->attribute_access);
    jt_rails_end_pass(g);
}

const jt_mode jt_rails_mode = {
    .string = rails_string,
    .container = rails_container,
    .pairs = rails_pairs,
    .mixed_keys = rails_mixed_keys,
    .too_deep = rails_too_deep,
    .float_ = rails_float,
    .object = rails_object,
    .finish = rails_finish,
    .symbols_as_names = true, /* ActiveSupport writes a Symbol's name */
};

/* The json gem's configuration under the app's ActiveSupport encoder:
 * JSON.generate's defaults, without a nesting limit for 8.0's JSONGemEncoder
 * (max_nesting: false), and the Coder's strict walk with its block. */
static void rails_config(jt_config *cfg, const jt_rails_settings *rails, VALUE coder_proc)
{
    jt_config_init(cfg);
    if (rails->unlimited_nesting) cfg->max_nesting = 0;
    if (rails->coder) {
        cfg->strict = true;
        cfg->as_json = coder_proc;
    }
}

VALUE jt_generate_as_rails(VALUE obj, const jt_rails_settings *rails, VALUE coder_proc, jt_write_fn *write)
{
    jt_config cfg;
    rails_config(&cfg, rails, coder_proc);
    jt_rails_call call;
    jt_rails_call_start(&call, rails, &jt_rails_records);
    int escape_mode = JT_ESCAPE_BASIC | (rails->escape_js ? JT_ESCAPE_JS_SEPARATORS : 0) |
                      (rails->escape_html ? JT_ESCAPE_HTML : 0);
    VALUE result = jt_generate_mode(obj, &cfg, Qnil, &jt_rails_mode, &call, escape_mode, write);
    RB_GC_GUARD(coder_proc);
    return result;
}
