/* The extension's base handles (bytes/base.h) and its one error. */

#include "bytes/base.h"

jt_handles jt;

void jt_raise_generator_error_str(VALUE invalid_object, VALUE message)
{
    VALUE args[2] = {message, invalid_object};
    rb_exc_raise(rb_class_new_instance(2, args, jt.eGeneratorError));
}

void jt_raise_generator_error(VALUE invalid_object, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    VALUE message = rb_vsprintf(fmt, args);
    va_end(args);
    jt_raise_generator_error_str(invalid_object, message);
}

void jt_init_base(void)
{
    jt.mJetson = rb_define_module("Jetson");
    jt.eGeneratorError = rb_const_get(jt.mJetson, rb_intern("GeneratorError"));
    jt.eNestingError = rb_const_get(jt.mJetson, rb_intern("NestingError"));
    jt.cFragment = rb_const_get(jt.mJetson, rb_intern("Fragment"));
    /* Pinned: GC compaction must not move what these handles point to. */
    rb_gc_register_mark_object(jt.mJetson);
    rb_gc_register_mark_object(jt.cFragment);
    rb_gc_register_mark_object(jt.eGeneratorError);
    rb_gc_register_mark_object(jt.eNestingError);
    jt.id_to_s = rb_intern("to_s");
    jt.id_to_h = rb_intern("to_h");
    jt.id_to_i = rb_intern("to_i");
    jt.id_write = rb_intern("write");
    jt.id_utc_p = rb_intern("utc?");
    jt.id_start = rb_intern("start");
    jt.utf8_encindex = rb_utf8_encindex();
    jt.usascii_encindex = rb_usascii_encindex();
    jt.binary_encindex = rb_ascii8bit_encindex();
}
