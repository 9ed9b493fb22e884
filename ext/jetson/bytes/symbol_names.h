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

typedef struct jt_symbol_names {
    struct {
        VALUE sym, name;
    } entries[JT_SYMBOL_NAMES];
} jt_symbol_names;

jt_symbol_names *jt_symbol_names_of_ractor(void);
VALUE jt_symbol_name_miss(jt_symbol_names *names, VALUE sym);
void jt_init_symbol_names(void);

/* A static Symbol is its ID shifted left by RUBY_SPECIAL_SHIFT, and IDs
 * are serial numbers above their 4 scope bits: consecutive Symbols get
 * consecutive slots. */
JT_INLINE size_t jt_symbol_slot(VALUE sym)
{
    return ((uintptr_t)sym >> (RUBY_SPECIAL_SHIFT + 4)) & (JT_SYMBOL_NAMES - 1);
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
