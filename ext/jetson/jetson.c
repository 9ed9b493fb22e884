/* The extension's entry: each layer defines its part of Jetson, from the
 * bottom up (docs/architecture.md). */

#include "bytes/base.h"
#include "bytes/buffer.h"
#include "bytes/escape.h"
#include "bytes/fresh_pages.h"
#include "bytes/symbol_names.h"
#include "json/json.h"
#include "rails/rails.h"
#include "builder/builder.h"

#include <limits.h>

#define JT_STRINGIFY(x) #x
#define JT_TEXT(x) JT_STRINGIFY(x)
#if defined(__clang__)
#define JT_COMPILER "clang " JT_TEXT(__clang_major__) "." JT_TEXT(__clang_minor__) "." JT_TEXT(__clang_patchlevel__)
#elif defined(__GNUC__)
#define JT_COMPILER "gcc " __VERSION__
#else
#define JT_COMPILER "unknown"
#endif

/* Jetson::BUILD_INFO: how the loaded build was compiled, for bug reports and
 * for the tests that check a build took the path it should
 * (test/build_info_test.rb): a fast path compiled out fails a test. */
static void define_build_info(void)
{
    VALUE info = rb_hash_new();
    rb_hash_aset(info, ID2SYM(rb_intern("simd")), rb_obj_freeze(rb_str_new_cstr(jt_escape_simd())));
    rb_hash_aset(info, ID2SYM(rb_intern("compiler")), rb_obj_freeze(rb_str_new_cstr(JT_COMPILER)));
    /* Plain char is signed on x86-64 and unsigned on arm64. */
    rb_hash_aset(info, ID2SYM(rb_intern("plain_char")),
                 rb_obj_freeze(rb_str_new_cstr(CHAR_MIN < 0 ? "signed" : "unsigned")));
    /* Whether JT_ASSERT checks its invariants (bytes/base.h): the ASan
     * build's do, release builds' compile them out. */
#ifdef JT_ASSERTS
    rb_hash_aset(info, ID2SYM(rb_intern("asserts")), Qtrue);
#else
    rb_hash_aset(info, ID2SYM(rb_intern("asserts")), Qfalse);
#endif
    /* How a large document's fresh pages come in (bytes/fresh_pages.c). */
#if defined(__linux__)
    rb_hash_aset(info, ID2SYM(rb_intern("fresh_pages")), rb_obj_freeze(rb_str_new_cstr("populate")));
#else
    rb_hash_aset(info, ID2SYM(rb_intern("fresh_pages")), rb_obj_freeze(rb_str_new_cstr("faults")));
#endif
    rb_define_const(jt.mJetson, "BUILD_INFO", rb_ractor_make_shareable(info));
}

/* Jetson.send(:fresh_pages_probe, bytes) -> [resident pages, pages]: what
 * populating a fresh mapping of that size left in memory
 * (test/fresh_pages_test.rb checks the running kernel honours it). */
static VALUE fresh_pages_probe(VALUE self, VALUE bytes)
{
    (void)self;
    const long len = NUM2LONG(bytes);
    if (len <= 0) rb_raise(rb_eArgError, "bytes must be positive");
    size_t resident, pages;
    jt_fresh_pages_probe((size_t)len, &resident, &pages);
    return rb_assoc_new(SIZET2NUM(resident), SIZET2NUM(pages));
}

JT_EXPORT void Init_jetson(void)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    rb_ext_ractor_safe(true);
#endif
    jt_init_base();
    jt_init_symbol_names();
    jt_init_buffer();
    jt_init_json();
    jt_init_rails();
    jt_init_builder();
    define_build_info();
    rb_define_private_method(rb_singleton_class(jt.mJetson), "fresh_pages_probe", fresh_pages_probe, 1);
}
