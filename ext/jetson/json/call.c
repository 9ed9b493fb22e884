/* One call of the json walk: its state set up on the C stack (jt_gen,
 * the output buffer, the key caches, the prebuilt layout), the value
 * walked under the call's mode, the result; and the nesting limit's error. */

#include "json/json_walk.h"
#include "json/canonical.h"
#include "json/key_cache.h"
#include "json/layout.h"

/* The json gem's NestingError for a container at level `refused`: json 3
 * names that level, json 2 the last one it took. */
VALUE jt_nesting_error(long refused)
{
    return rb_exc_new_str(jt.eNestingError, rb_sprintf(
        "nesting of %ld is too deep. Did you try to serialize objects with circular references?",
        jj.json3 ? refused : refused - 1));
}

/* Past max_nesting, or deep enough that the real stack is checked. */
long jt_enter_deep_container(jt_gen *g, long depth)
{
    if (g->cfg->max_nesting && depth > g->cfg->max_nesting) {
        if (g->mode && g->mode->too_deep && g->mode->too_deep(g, depth)) return depth;
        --g->depth;
        rb_exc_raise(jt_nesting_error(depth));
    }
    if (depth > JT_STACK_CHECK_DEPTH && ruby_stack_check()) {
        --g->depth;
        rb_raise(rb_eSysStackError, "stack level too deep");
    }
    return depth;
}

/* jt_gen_value with the call's mode stepped aside: the json gem's rules
 * alone for value, Symbols by their to_json, as for a value ActiveSupport
 * hands the json gem unencoded. */
void jt_gen_value_unmoded(jt_gen *g, VALUE value)
{
    const jt_mode *mode = g->mode;
    bool names = g->symbols_are_names;
    g->mode = NULL;
    g->symbols_are_names = false;
    jt_gen_settle_paths(g);
    jt_gen_value(g, value);
    g->mode = mode;
    g->symbols_are_names = names;
    jt_gen_settle_paths(g);
}

/* Inline into its two callers: jt_generate's copy, which most calls take,
 * has no mode, no write function and the configuration's escaping as
 * constants, so that what they decide is settled at compile time and the
 * set-up is a row of stores. */
JT_INLINE VALUE generate(VALUE obj, const jt_config *cfg, VALUE io, const jt_mode *mode, void *state, int escape_mode,
                         jt_write_fn *write)
{
    char stack[JT_STACK_BUFFER_SIZE];
    struct jt_key_entry key_cache_storage[JT_KEY_CACHE]; /* zeroed only if used */
    jt_buffer buf;
    jt_buffer_init(&buf, stack, sizeof(stack), io, cfg->buffer_initial_length);

    /* Field by field: an initializer would also zero the class profiles,
     * which only count up to profile_count. */
    jt_gen g;
    g.buf = &buf;
    g.cfg = cfg;
    g.depth = cfg->depth;
    g.escape_mode = escape_mode >= 0 ? escape_mode
                                     : JT_ESCAPE_BASIC | (cfg->script_safe ? JT_ESCAPE_SCRIPT_SAFE : 0) |
                                           (cfg->ascii_only ? JT_ESCAPE_ASCII_ONLY : 0);
    g.mode = mode;
    g.mode_state = state;
    g.deferred_error = 0;
    g.vstate = Qfalse;
    g.profile_count = 0;
    g.key_cache = NULL;
    g.key_cache_storage = key_cache_storage;
    g.key_epoch = 1;
    struct jt_short_key short_key_storage[JT_SHORT_KEYS]; /* zeroed only if used */
    g.short_keys = NULL;
    g.short_key_storage = mode ? NULL : short_key_storage;
    g.symbol_names = NULL;
    g.symbol_to_json = JT_SYMBOL_UNKNOWN;
    g.symbols_are_names = mode && mode->symbols_as_names;
    jt_gen_settle_paths(&g);
    jt_layout layout; /* built only with layout options, which plain walks have none of */
    g.layout = NULL;
    if (RB_UNLIKELY(!g.plain_hashes || !g.plain_arrays) &&
        (cfg->indent || cfg->object_nl || cfg->array_nl || cfg->space || cfg->space_before)) {
        jt_layout_prepare(&layout, cfg);
        g.layout = &layout;
    }
    if (write) {
        write(&g, obj);
    } else if (!RB_SPECIAL_CONST_P(obj) && RBASIC_CLASS(obj) == rb_cArray) {
        jt_gen_array(&g, obj); /* without the dispatcher's frame */
    } else if (!RB_SPECIAL_CONST_P(obj) && RBASIC_CLASS(obj) == rb_cHash) {
        jt_gen_hash(&g, obj);
    } else {
        jt_gen_value(&g, obj);
    }
    if (mode && mode->finish) mode->finish(&g);
    if (RB_UNLIKELY(g.deferred_error)) rb_exc_raise(g.deferred_error);
    VALUE result = jt_buffer_finish(&buf);
    RB_GC_GUARD(g.vstate);
    RB_GC_GUARD(obj);
    return result;
}

VALUE jt_generate_mode(VALUE obj, const jt_config *cfg, VALUE io, const jt_mode *mode, void *state, int escape_mode,
                       jt_write_fn *write)
{
    /* Options set one by one on a State are checked here, before a byte. */
    if (RB_UNLIKELY(cfg->rfc8785)) {
        jt_canonical_validate(cfg);
        mode = &jt_canonical_mode;
    }
    return generate(obj, cfg, io, mode, state, escape_mode, write);
}

VALUE jt_generate(VALUE obj, const jt_config *cfg, VALUE io)
{
    if (RB_UNLIKELY(cfg->rfc8785)) return jt_generate_mode(obj, cfg, io, NULL, NULL, -1, NULL);
    return generate(obj, cfg, io, NULL, NULL, -1, NULL);
}
