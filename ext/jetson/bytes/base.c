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

/* The next name of a space-separated list into out (NUL-terminated);
 * returns where the list goes on, or NULL at its end. */
static const char *next_name(const char *names, char *out, size_t size)
{
    while (*names == ' ') names++;
    if (!*names) return NULL;
    size_t n = 0;
    while (names[n] && names[n] != ' ') n++;
    if (n >= size) rb_bug("Jetson: name too long in an intern list");
    memcpy(out, names, n);
    out[n] = '\0';
    return names + n;
}

/* Each name of the list interned, into ids[i] or, as a static Symbol, into
 * symbols[i]; the lists must be as long as each other. */
static void intern_list(const char *names, ID *const *ids, VALUE *const *symbols)
{
    char name[64];
    size_t i = 0;
    while ((names = next_name(names, name, sizeof(name))) != NULL) {
        if (ids ? !ids[i] : !symbols[i]) rb_bug("Jetson: more names than handles in an intern list");
        ID id = rb_intern(name);
        if (ids) {
            *ids[i++] = id;
        } else {
            *symbols[i++] = ID2SYM(id);
        }
    }
    if (ids ? ids[i] != NULL : symbols[i] != NULL) rb_bug("Jetson: more handles than names in an intern list");
}

void jt_intern_ids(const char *names, ID *const *ids)
{
    intern_list(names, ids, NULL);
}

void jt_intern_symbols(const char *names, VALUE *const *symbols)
{
    intern_list(names, NULL, symbols);
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
    jt_intern_ids("to_s to_h to_i write utc? start",
        (ID *const[]){&jt.id_to_s, &jt.id_to_h, &jt.id_to_i, &jt.id_write, &jt.id_utc_p, &jt.id_start, NULL});
    jt.utf8_encindex = rb_utf8_encindex();
    jt.usascii_encindex = rb_usascii_encindex();
    jt.binary_encindex = rb_ascii8bit_encindex();
}
