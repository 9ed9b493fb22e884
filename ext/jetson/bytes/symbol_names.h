#ifndef JETSON_BYTES_SYMBOL_NAMES_H
#define JETSON_BYTES_SYMBOL_NAMES_H

/* The name String of a Symbol. Ruby's rb_sym2str costs about 100
 * instructions for a static Symbol (the :name kind written in code): a
 * lookup in the global symbol table under its lock. Symbol keys are most
 * of the keys a Ruby app writes, so each Ractor keeps a small cache of
 * static Symbols and their names, reached through Ractor-local storage
 * (a pointer read in the main Ractor).
 *
 * Sound because a static Symbol is never freed or renamed, and its name is
 * a frozen String that lives as long; the cache marks the names it holds
 * without letting them move, so GC compaction cannot leave a stale pointer.
 * Dynamic Symbols (String#to_sym of new names) can be collected and are not
 * cached; their name is a field read anyway. */

#include "bytes/base.h"

#define JT_SYMBOL_NAMES 512 /* a power of two */
/* A name of at most this many bytes that no escaping mode touches is also
 * kept as an object key: quoted, with its colon. */
#define JT_SYMBOL_KEY_NAME_MAX 12
#define JT_SYMBOL_KEY_BYTES 15 /* '"', the name, '"', ':' */

typedef struct jt_symbol_entry {
    VALUE sym, name;
    /* The name as an object key, `"name":`, in every escaping mode the
     * same bytes; key_length 0 where the name is longer or has a byte
     * other than a letter, a digit or '_'. A key is then one copy of a
     * fixed size from here, without reading the name String. */
    char key[JT_SYMBOL_KEY_BYTES];
    uint8_t key_length;
} jt_symbol_entry;

typedef struct jt_symbol_names {
    jt_symbol_entry entries[JT_SYMBOL_NAMES];
} jt_symbol_names;

/* The current Ractor's cache, made on first use (jt_symbol_names_of_ractor
 * makes it); inline, as a call's first static Symbol looks it up. */
jt_symbol_names *jt_symbol_names_make(void);
JT_INLINE jt_symbol_names *jt_symbol_names_of_ractor(void)
{
    jt_symbol_names *names = rb_ractor_local_storage_ptr(jt.symbol_names_key);
    return RB_LIKELY(names) ? names : jt_symbol_names_make();
}
VALUE jt_symbol_name_miss(jt_symbol_names *names, VALUE sym);
void jt_init_symbol_names(void);

/* A static Symbol is its ID shifted left by RUBY_SPECIAL_SHIFT, and IDs
 * are serial numbers above their 4 scope bits: consecutive Symbols get
 * consecutive slots. */
JT_INLINE size_t jt_symbol_slot(VALUE sym)
{
    return ((uintptr_t)sym >> (RUBY_SPECIAL_SHIFT + 4)) & (JT_SYMBOL_NAMES - 1);
}

/* sym's entry (a static Symbol) when the cache holds it, else NULL. */
JT_INLINE const jt_symbol_entry *jt_symbol_entry_cached(const jt_symbol_names *names, VALUE sym)
{
    const jt_symbol_entry *e = &names->entries[jt_symbol_slot(sym)];
    return RB_LIKELY(e->sym == sym) ? e : NULL;
}

/* *names is the caller's handle on the current Ractor's cache: NULL until
 * the first static Symbol, so calls without Symbols never look it up. */
JT_INLINE VALUE jt_symbol_name(jt_symbol_names **names, VALUE sym)
{
    if (!RB_STATIC_SYM_P(sym)) return rb_sym2str(sym);
    if (RB_UNLIKELY(!*names)) *names = jt_symbol_names_of_ractor();
    size_t slot = jt_symbol_slot(sym);
    if (RB_LIKELY((*names)->entries[slot].sym == sym)) return (*names)->entries[slot].name;
    return jt_symbol_name_miss(*names, sym);
}

#endif
