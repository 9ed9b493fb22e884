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

JT_NOINLINE jt_symbol_names *jt_symbol_names_make(void)
{
    jt_symbol_names *names = ZALLOC(jt_symbol_names);
    rb_ractor_local_storage_ptr_set(jt.symbol_names_key, names);
    return names;
}

/* Whether every byte of the name is one that no escaping mode changes
 * (json's, script_safe, ascii_only, ActiveSupport's HTML and separators):
 * the letters, the digits and '_', which most Symbol keys are made of. */
static bool plain_in_every_mode(const char *p, long n)
{
    for (long i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

JT_NOINLINE VALUE jt_symbol_name_miss(jt_symbol_names *names, VALUE sym)
{
    VALUE name = rb_sym2str(sym);
    jt_symbol_entry *e = &names->entries[jt_symbol_slot(sym)];
    e->sym = sym;
    e->name = name;
    e->key_length = 0;
    const long n = RSTRING_LEN(name);
    /* Bytes alone: letters, digits and '_' are the same characters in
     * every ASCII-compatible encoding a Symbol's name can have. */
    if (n >= 1 && n <= JT_SYMBOL_KEY_NAME_MAX && rb_enc_asciicompat(rb_enc_get(name)) &&
        plain_in_every_mode(RSTRING_PTR(name), n)) {
        memset(e->key, 0, sizeof(e->key));
        e->key[0] = '"';
        memcpy(e->key + 1, RSTRING_PTR(name), (size_t)n);
        e->key[n + 1] = '"';
        e->key[n + 2] = ':';
        e->key_length = (uint8_t)(n + 3);
    }
    return name;
}

void jt_init_symbol_names(void)
{
    jt.symbol_names_key = rb_ractor_local_storage_ptr_newkey(&symbol_names_type);
}
