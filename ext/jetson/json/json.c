/* The json layer's Ruby API (json/json.h). */

#include "json/json.h"
#include "json/json_handles.h"
#include "json/generator.h"
#include "json/writer.h"
#include "bytes/symbol_names.h"

/* The json gem's defaults, for calls without options (set up by
 * jt_init_json, read-only after: it holds no object). */
static jt_config default_config;

/* Jetson.generate(obj, opts = nil): opts may be a Hash (or keywords), a
 * Jetson::State, or the json gem's State. The configuration lives on the C
 * stack, so a call that needs no to_json allocates only its result. */
/* obj generated under options given as a Hash, a State or the json gem's
 * State (into io unless it is nil), the configuration on the C stack. */
static VALUE generate_with_options(VALUE obj, VALUE opts, VALUE io)
{
    jt_config cfg;
    jt_config_init(&cfg);
    jt_config_from_opts(&cfg, opts);
    VALUE result = jt_generate(obj, &cfg, io);
    RB_GC_GUARD(opts);
    return result;
}

static VALUE jetson_generate(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    VALUE opts = argc > 1 ? argv[1] : Qnil;
    if (NIL_P(opts) || opts == Qfalse) return jt_generate(argv[0], &default_config, Qnil);
    if (jt_is_state(opts)) return jt_generate(argv[0], jt_state_config(opts), Qnil);
    return generate_with_options(argv[0], opts, Qnil);
}

static VALUE to_options_hash(VALUE opts)
{
    if (RB_TYPE_P(opts, T_HASH)) return opts;
    if (rb_respond_to(opts, rb_intern("to_hash"))) return rb_funcall(opts, rb_intern("to_hash"), 0);
    if (rb_respond_to(opts, jt.id_to_h)) return rb_funcall(opts, jt.id_to_h, 0);
    rb_raise(rb_eTypeError, "can't convert %"PRIsVALUE" into Hash", rb_obj_class(opts));
}

static VALUE jetson_pretty_generate(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    VALUE opts = argc > 1 ? argv[1] : Qnil;
    if (!NIL_P(opts) && jt_is_state(opts)) {
        return jt_generate(argv[0], jt_state_config(opts), Qnil);
    }
    jt_config cfg;
    jt_config_init(&cfg);
    cfg.indent = jj.pretty_indent;
    cfg.space = jj.pretty_space;
    cfg.object_nl = jj.pretty_nl;
    cfg.array_nl = jj.pretty_nl;
    if (RTEST(opts)) {
        opts = to_options_hash(opts);
        jt_config_apply(&cfg, 0, opts);
    }
    VALUE result = jt_generate(argv[0], &cfg, Qnil);
    RB_GC_GUARD(opts);
    return result;
}

/* State#generate(obj, io = nil) */
static VALUE state_generate(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    VALUE io = argc > 1 ? argv[1] : Qnil;
    VALUE result = jt_generate(argv[0], jt_state_config(self), io);
    RB_GC_GUARD(self);
    return result;
}

/* State.generate(obj, opts = nil, io = nil): one-off generation, as used by dump. */
static VALUE state_s_generate(int argc, VALUE *argv, VALUE klass)
{
    rb_check_arity(argc, 1, 3);
    return generate_with_options(argv[0], argc > 1 ? argv[1] : Qnil, argc > 2 ? argv[2] : Qnil);
}

/* Jetson::Coder#dump(obj, io = nil), also #generate: obj under the Coder's
 * frozen State (@state, which Coder#initialize sets: lib/jetson/coder.rb),
 * with no Ruby frame between the call and the walk. */
static VALUE coder_dump(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    VALUE state = rb_ivar_get(self, jj.id_state_ivar);
    if (!jt_is_state(state)) rb_raise(rb_eTypeError, "uninitialized %"PRIsVALUE, rb_obj_class(self));
    VALUE result = jt_generate(argv[0], jt_state_config(state), argc > 1 ? argv[1] : Qnil);
    RB_GC_GUARD(state);
    return result;
}

/* Jetson._symbol_key(sym) (private, for the tests): the quoted key the
 * current Ractor's name cache holds for a static Symbol met before, which
 * the Hash walk copies instead of reading the name (bytes/symbol_names.h);
 * nil when it holds none. */
static VALUE jetson_symbol_key(VALUE self, VALUE sym)
{
    if (!RB_STATIC_SYM_P(sym)) return Qnil;
    const jt_symbol_entry *e = jt_symbol_entry_cached(jt_symbol_names_of_ractor(), sym);
    return e && e->key_length ? rb_utf8_str_new(e->key, e->key_length) : Qnil;
}

void jt_init_json(void)
{
    jt_init_json_handles();
    jt_config_init(&default_config); /* after jj.json3: the duplicate-key rule depends on it */
    jt_init_state();
    jt_init_writer();
    rb_define_module_function(jt.mJetson, "generate", jetson_generate, -1);
    rb_define_module_function(jt.mJetson, "pretty_generate", jetson_pretty_generate, -1);
    rb_define_method(jj.cState, "generate", state_generate, -1);
    rb_define_singleton_method(jj.cState, "generate", state_s_generate, -1);
    VALUE coder = rb_define_class_under(jt.mJetson, "Coder", rb_cObject);
    rb_define_method(coder, "dump", coder_dump, -1);
    rb_define_method(coder, "generate", coder_dump, -1);
    rb_define_private_method(rb_singleton_class(jt.mJetson), "_symbol_key", jetson_symbol_key, 1);
}
