#include "bytes/symbol_names.h"

static void symbol_names_mark(void *ptr)
{
    jt_symbol_names *names = ptr;
    for (int i = 0; i < JT_SYMBOL_NAMES; i++) {
        /* rb_gc_mark, not rb_gc_mark_movable: the pointers are kept. */
        if (names->entries[i].name) rb_gc_mark(names->entries[i].name);
    }
}

static void symbol_names_free(void *ptr)
{
    ruby_xfree(ptr);
}

static const struct rb_ractor_local_storage_type symbol_names_type = {
    symbol_names_mark,
    symbol_names_free,
};

jt_symbol_names *jt_symbol_names_of_ractor(void)
{
    jt_symbol_names *names = rb_ractor_local_storage_ptr(jt.symbol_names_key);
    if (!names) {
        names = ZALLOC(jt_symbol_names);
        rb_ractor_local_storage_ptr_set(jt.symbol_names_key, names);
    }
    return names;
}

JT_NOINLINE VALUE jt_symbol_name_miss(jt_symbol_names *names, VALUE sym)
{
    VALUE name = rb_sym2str(sym);
    size_t slot = jt_symbol_slot(sym);
    names->entries[slot].sym = sym;
    names->entries[slot].name = name;
    return name;
}

void jt_init_symbol_names(void)
{
    jt.symbol_names_key = rb_ractor_local_storage_ptr_newkey(&symbol_names_type);
}
