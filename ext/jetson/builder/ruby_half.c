/* Jetson::Builder's Ruby half, loaded on first use (builder/builder.h).
 *
 * `require "jetson"` loads the extension, which defines Jetson::Builder with
 * its native half (dsl.c); the Ruby half (lib/jetson/builder/builder.rb:
 * construction, key formats, target!, the class methods) comes with the
 * entry point `require "jetson/builder"`, which first checks that
 * ActiveSupport is there. Alone, the native half would take target! for a
 * key and answer nil. So a Builder made (its allocator), a class method
 * called (encode, key_format, ...: method_missing) or a constant of it named
 * (KeyFormatter, NullError, ...: const_missing) before the Ruby half was
 * loaded requires the entry point first: it works where ActiveSupport is
 * installed, and raises the entry point's Jetson::MissingDependencyError,
 * which names the gem, where it is not. Two threads that get there at once
 * both wait for one require (Ruby's lock on a feature being loaded). */

#include "builder/builder.h"

#define JB_RUBY_HALF "jetson/builder"

/* The Ruby half defines Jetson::Builder#initialize; until it does, a
 * Builder's is BasicObject's. */
static bool ruby_half_loaded(void)
{
    return !rb_method_basic_definition_p(jb.cBuilder, jb.id_initialize);
}

void jb_need_ruby_half(void)
{
    if (RB_LIKELY(ruby_half_loaded())) return;
    rb_require(JB_RUBY_HALF);
}

/* Jetson::Builder.method_missing (private): a class method of the Ruby half
 * (encode, key_format, ignore_nil, deep_format_keys) called before it was
 * loaded is called again once it is, as a public call; anything else is
 * BasicObject's NoMethodError. */
static VALUE builder_s_method_missing(int argc, VALUE *argv, VALUE klass)
{
    if (!ruby_half_loaded() && argc > 0 && SYMBOL_P(argv[0])) {
        rb_require(JB_RUBY_HALF);
        /* Still not there: required from inside its own load. */
        if (ruby_half_loaded()) {
            VALUE block = rb_block_given_p() ? rb_block_proc() : Qnil;
            return rb_funcall_with_block_kw(klass, SYM2ID(argv[0]), argc - 1, argv + 1, block,
                                            RB_PASS_CALLED_KEYWORDS);
        }
    }
    return rb_call_super_kw(argc, argv, RB_PASS_CALLED_KEYWORDS);
}

/* Jetson::Builder.const_missing(name): a constant of the Ruby half named
 * before it was loaded; anything else is Module#const_missing's NameError. */
static VALUE builder_s_const_missing(VALUE klass, VALUE name)
{
    if (!ruby_half_loaded() && SYMBOL_P(name)) {
        rb_require(JB_RUBY_HALF);
        if (ruby_half_loaded() && rb_const_defined(klass, SYM2ID(name))) return rb_const_get(klass, SYM2ID(name));
    }
    return rb_call_super(1, &name);
}

void jt_init_builder_ruby_half(void)
{
    VALUE singleton = rb_singleton_class(jb.cBuilder);
    rb_define_private_method(singleton, "method_missing", builder_s_method_missing, -1);
    rb_define_method(singleton, "const_missing", builder_s_const_missing, 1);
}
