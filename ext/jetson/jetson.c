#include "bytes/jetson.h"
#include "rails/attribute_set.h"
#include "rails/record_cache_keys.h"
#include "json/generator.h"
#include "bytes/buffer.h"
#include "bytes/symbol_names.h"
#include "rails/diagnostics.h"

jt_handles jt;

/* Jetson.generate(obj, opts = nil): opts may be a Hash (or keywords), a
 * Jetson::State, or the json gem's State. The configuration lives on the C
 * stack, so a call that needs no to_json allocates only its result. */
/* The json gem's defaults, for calls without options (set up by
 * Init_jetson, read-only after: it holds no object). */
static jt_config default_config;

static VALUE jetson_generate(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    VALUE opts = argc > 1 ? argv[1] : Qnil;
    if (NIL_P(opts) || opts == Qfalse) return jt_generate(argv[0], &default_config, Qnil);
    if (!NIL_P(opts) && jt_is_state(opts)) {
        return jt_generate(argv[0], jt_state_config(opts), Qnil);
    }
    jt_config cfg;
    jt_config_init(&cfg);
    jt_config_from_opts(&cfg, opts);
    VALUE result = jt_generate(argv[0], &cfg, Qnil);
    RB_GC_GUARD(opts);
    return result;
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
    cfg.indent = jt.pretty_indent;
    cfg.space = jt.pretty_space;
    cfg.object_nl = jt.pretty_nl;
    cfg.array_nl = jt.pretty_nl;
    if (RTEST(opts)) {
        opts = to_options_hash(opts);
        jt_config_apply(&cfg, 0, opts);
    }
    VALUE result = jt_generate(argv[0], &cfg, Qnil);
    RB_GC_GUARD(opts);
    return result;
}

/* Jetson.rails_generate(value, options, escape_html, standard_time, precision,
 * classes, active_model[, flags, coder_proc]): the engine of
 * Jetson::RailsEncoder, which reads ActiveSupport's settings on every call
 * and passes them here. options: the encoder's options Hash, or nil; classes
 * is [helper, TimeWithZone, Date, DateTime, BigDecimal] (each may be nil);
 * active_model: ActiveModel::Serializers::JSON once loaded, else nil; flags:
 * JT_RAILS_FLAG_* (what the ActiveSupport version and encoder do); coder_proc:
 * JSONGemCoderEncoder's conversion block, called where that encoder's Coder
 * would call it. */
static VALUE jetson_rails_generate(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 7, 9);
    VALUE options = argv[1];
    if (!NIL_P(options)) Check_Type(options, T_HASH);
    jt_rails_settings settings;
    jt_rails_settings_from_args(&settings, argv + 2);
    VALUE coder_proc = argc > 7 ? jt_rails_settings_apply_encoder(&settings, argv[7], argc > 8 ? argv[8] : Qnil) : Qfalse;
    settings.options = NIL_P(options) || RHASH_SIZE(options) == 0 ? Qundef : options;
    VALUE result = jt_generate_rails_coder(argv[0], &settings, coder_proc);
    jt_diag_native(jt_diagnostics_current(), JT_DIAG_CALLS, 1);
    RB_GC_GUARD(options);
    RB_GC_GUARD(coder_proc);
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
    VALUE opts = argc > 1 ? argv[1] : Qnil;
    VALUE io = argc > 2 ? argv[2] : Qnil;
    jt_config cfg;
    jt_config_init(&cfg);
    jt_config_from_opts(&cfg, opts);
    VALUE result = jt_generate(argv[0], &cfg, io);
    RB_GC_GUARD(opts);
    return result;
}

static VALUE frozen_string(const char *s)
{
    VALUE str = rb_str_freeze(rb_utf8_str_new_cstr(s));
    rb_gc_register_mark_object(str);
    return str;
}

JT_EXPORT void Init_jetson(void)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    rb_ext_ractor_safe(true);
#endif

    jt.mJetson = rb_define_module("Jetson");
    jt.eGeneratorError = rb_const_get(jt.mJetson, rb_intern("GeneratorError"));
    jt.eNestingError = rb_const_get(jt.mJetson, rb_intern("NestingError"));
    jt.cFragment = rb_const_get(jt.mJetson, rb_intern("Fragment"));
    jt.cState = rb_define_class_under(jt.mJetson, "State", rb_cObject);
    /* Pinned: GC compaction must not move what these handles point to. */
    rb_gc_register_mark_object(jt.mJetson);
    rb_gc_register_mark_object(jt.cState);
    rb_gc_register_mark_object(jt.cFragment);
    rb_gc_register_mark_object(jt.eGeneratorError);
    rb_gc_register_mark_object(jt.eNestingError);

    jt.id_to_s = rb_intern("to_s");
    jt.id_to_json = rb_intern("to_json");
    jt.id_to_h = rb_intern("to_h");
    jt.id_write = rb_intern("write");
    jt.id_encode = rb_intern("encode");
    jt.id_new = rb_intern("new");
    jt.id_depth_set = rb_intern("depth=");
    jt.id_on_mixed_keys_hash = rb_intern("on_mixed_keys_hash");
    jt.id_default_sort_keys = rb_intern("DEFAULT_SORT_KEYS");
    jt.id_json_fragment_class = rb_intern("Fragment");
    jt.id_json_state_class = rb_intern("State");
    jt.id_to_i = rb_intern("to_i");
    jt.id_utc_p = rb_intern("utc?");
    jt.id_respond_to = rb_intern("respond_to?");
    jt.id_respond_to_missing = rb_intern("respond_to_missing?");
    jt.id_method = rb_intern("method");
    jt.id_owner = rb_intern("owner");
    jt.id_generator_methods = rb_intern("GeneratorMethods");
    jt.id_as_json = rb_intern("as_json");
    jt.id_jd = rb_intern("jd");
    jt.id_start = rb_intern("start");
    jt.id_utc = rb_intern("utc");
    jt.id_utc_offset = rb_intern("utc_offset");
    jt.id_stock_p = rb_intern("stock?");
    jt.id_subset = rb_intern("subset");
    jt.id_serializable_hash = rb_intern("serializable_hash");
    jt.id_include_root_in_json = rb_intern("include_root_in_json");
    jt.id_attribute_names_for_serialization = rb_intern("attribute_names_for_serialization");
    jt.id_to_ary = rb_intern("to_ary");
    jt.id_to_a = rb_intern("to_a");
    jt.id_records = rb_intern("records");

#define SYM(name) jt.sym_##name = ID2SYM(rb_intern(#name))
    SYM(indent); SYM(space); SYM(space_before); SYM(object_nl); SYM(array_nl);
    SYM(allow_nan); SYM(max_nesting); SYM(depth); SYM(ascii_only); SYM(script_safe);
    SYM(escape_slash); SYM(strict); SYM(as_json); SYM(allow_duplicate_key); SYM(rfc8785);
    SYM(sort_keys); SYM(buffer_initial_length); SYM(time); SYM(time_with_zone); SYM(date); SYM(float);
    SYM(model); SYM(hash); SYM(array); SYM(only); SYM(except); SYM(root);
    SYM(record); SYM(methods); SYM(include); SYM(relation); SYM(decimal);
#undef SYM

    jt.json3 = rb_const_defined_at(jt.mJetson, rb_intern("JSON_RULES")) &&
               NUM2INT(rb_const_get_at(jt.mJetson, rb_intern("JSON_RULES"))) >= 3;

    jt_config_init(&default_config); /* after jt.json3: the duplicate-key rule depends on it */

    jt.utf8_encindex = rb_utf8_encindex();
    jt.usascii_encindex = rb_usascii_encindex();
    jt.binary_encindex = rb_ascii8bit_encindex();

    jt.pretty_indent = frozen_string("  ");
    jt.pretty_space = frozen_string(" ");
    jt.pretty_nl = frozen_string("\n");

    jt_init_diagnostics();
    jt_init_symbol_names();
    jt_init_buffer();
    jt_init_state();
    jt_init_builder();
    jt_init_writer();
    jt_init_attribute_set();
    jt_init_db_cast();
    jt_init_stock_memo();
    jt_init_record_cache_keys();

    rb_define_module_function(jt.mJetson, "generate", jetson_generate, -1);
    rb_define_module_function(jt.mJetson, "pretty_generate", jetson_pretty_generate, -1);
    rb_define_singleton_method(jt.mJetson, "rails_generate", jetson_rails_generate, -1);
    rb_define_method(jt.cState, "generate", state_generate, -1);
    rb_define_singleton_method(jt.cState, "generate", state_s_generate, -1);
}
