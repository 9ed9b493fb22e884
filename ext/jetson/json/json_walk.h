#ifndef JETSON_JSON_WALK_H
#define JETSON_JSON_WALK_H

/* The json walk's per-call state (jt_gen) and the writers of the walk that
 * the rest of the json layer, and the modes above it, call: what
 * generator.c, pairs.c, fallback.c, canonical.c and writer.c share, and what a mode
 * (json/mode.h) writes with. */

struct jt_short_key;

/* Ruby's headers first: its config sets the feature macros (struct
 * timespec, for the database casts above) before any system header is read. */
#include "json/generator.h"
#include "json/json_handles.h"
#include "json/mode.h"
#include "bytes/buffer.h"
#include "bytes/escape.h"
#include "bytes/numbers.h"
#include "bytes/symbol_names.h"
#include "json/layout.h"

#define JT_PROFILE_CACHE 8
#define JT_KEY_CACHE 64
#define JT_KEY_CACHE_MIN 32 /* longest key written without the cache */
/* An Array's elements, read in place. (Ruby 3.1's transient-heap variant,
 * which left the Array where it was, is gone since 3.3; on 3.1 this moves a
 * young Array out of the transient heap once.) */
#define JT_ARRAY_ELEMENTS(ary) RARRAY_CONST_PTR(ary)

/* How instances of one class without a native encoding are written by the
 * json gem's rules, settled on the first instance met in a call and reused
 * for the rest of it (fallback.c). */
struct jt_class_profile {
    VALUE klass;
    /* respond_to? and respond_to_missing? are Ruby's own, so whether an
     * instance responds to to_json depends on its class alone:
     * responds_to_json holds for all of them. Otherwise each is asked. */
    bool respond_to_is_stock;
    bool responds_to_json;
    signed char generic_to_json; /* see to_json_is_generic; -1: not looked up yet */
    bool stock_time;             /* a Time printed by Ruby's own Time#to_s */
};

/* Per-call generation context; lives on the C stack. */
typedef struct jt_gen {
    jt_buffer *buf;
    const jt_config *cfg;
    long depth;
    int escape_mode;
    /* The mode the call runs under (json/mode.h), or NULL: the json gem's
     * rules alone; and that mode's own state for the call. */
    const jt_mode *mode;
    void *mode_state;
    /* What the walk writes itself, settled from the mode at the start:
     * Floats and Integers (no float_ or integer hook), Symbols as names. */
    bool json_floats, json_integers, mode_symbols;
    /* An error a mode keeps until the walk is over (jt_mode.too_deep, and
     * what Rails mode defers): raised then, after jt_mode.finish. */
    VALUE deferred_error;
    VALUE vstate; /* State handed to to_json, created on first need; else Qfalse */
    /* Classes met in gen_fallback during this call (see class_profile). */
    struct jt_class_profile profiles[JT_PROFILE_CACHE];
    int profile_count;
    /* Keys already written in this call: where their escaped, quoted bytes sit
     * in the output (see key_cache_write). Entries count only while their epoch
     * matches; the epoch moves on whenever Ruby code could run. */
    struct jt_key_entry {
        VALUE key;
        uint32_t offset;
        uint32_t length;
        uint32_t epoch;
    } *key_cache, *key_cache_storage; /* storage: JT_KEY_CACHE entries, set up lazily */
    uint32_t key_epoch;
    /* Short keys' quoted forms (key_cache.h): NULL until set up; the
     * storage is NULL where the cache never applies. */
    struct jt_short_key *short_keys, *short_key_storage;
    jt_symbol_names *symbol_names; /* this Ractor's, once a static Symbol is met */
    enum { JT_SYMBOL_UNKNOWN = 0, JT_SYMBOL_GENERIC, JT_SYMBOL_CUSTOM } symbol_to_json;
    bool symbols_are_names; /* settled: a Symbol is written as its name */
    /* Hashes and Arrays written without layout, order or Rails mode's
     * checks (see jt_gen_hash, jt_gen_array). */
    bool plain_hashes, plain_arrays;
    /* Pretty output's line breaks, indents and colon, prebuilt for the
     * call (layout.h); NULL without layout options or where not built. */
    const struct jt_layout *layout;
} jt_gen;

/* Hash keys repeat: a collection of records writes the same few keys again
 * and again. Within one call, a key object that was written once is copied
 * from where its escaped form already sits in the output instead of being
 * escaped again. This is sound while no Ruby code runs: the document cannot
 * change, so every key seen so far is alive and unchanged (Hash String keys
 * are frozen; Symbols are immutable) and its address cannot be reused by
 * another object. Written bytes never move relative to the start of the
 * output, except when streaming to an io, where the cache is off.
 *
 * So anything that may run Ruby code (to_json, as_json, to_s, respond_to?,
 * a warning, a constant lookup, a proc) calls jt_before_ruby first: it moves
 * the key cache on. */
JT_INLINE void jt_before_ruby(jt_gen *g)
{
    g->key_epoch++;
}

struct hash_iter {
    jt_gen *g;
    VALUE hash;
    int first_key_type;
    bool first;
    bool mixed_keys_seen;
    bool mixed_after_error; /* Rails mode: seen after a deferred error, where the json gem had stopped */
    bool rekey; /* Rails mode: a key that is neither a String nor a Symbol */
};

/* Which containers take the short paths of jt_gen_hash and jt_gen_array
 * (no mode, no layout, no sort_keys), and what the walk writes itself
 * under the call's mode. Called once cfg and mode are set, and again when
 * a mode steps aside (jt_gen_value_unmoded). */
JT_INLINE void jt_gen_settle_paths(jt_gen *g)
{
    const jt_config *cfg = g->cfg;
    const jt_mode *mode = g->mode;
    const bool plain = !mode && !cfg->indent;
    g->plain_hashes = plain && !RTEST(cfg->sort_keys) && !cfg->object_nl && !cfg->space && !cfg->space_before;
    g->plain_arrays = plain && !cfg->array_nl;
    g->json_floats = !mode || !mode->float_;
    g->json_integers = !mode || !mode->integer;
    g->mode_symbols = mode && mode->symbols_as_names;
}

/* A line break (the object's or the array's) and the indent of depth:
 * prebuilt (layout.h) where the call built them, else the options' Strings. */
JT_INLINE void jt_write_line(jt_gen *g, bool object, long depth)
{
    const jt_config *cfg = g->cfg;
    VALUE nl = object ? cfg->object_nl : cfg->array_nl;
    if (g->layout && jt_layout_write_line(g->buf, object ? &g->layout->object : &g->layout->array, depth)) return;
    jt_layout_write_str(g->buf, nl);
    if (cfg->indent) jt_layout_write_indent(g->buf, cfg->indent, depth);
}

/* space_before, ':' and space. */
JT_INLINE void jt_write_colon(jt_gen *g)
{
    const jt_config *cfg = g->cfg;
    if (g->layout && jt_layout_write_colon(g->buf, g->layout)) return;
    jt_layout_write_str(g->buf, cfg->space_before);
    jt_buffer_push(g->buf, ':');
    jt_layout_write_str(g->buf, cfg->space);
}

/* generator.c */
void jt_gen_value(jt_gen *g, VALUE obj);
/* A value strict mode's as_json returned: written as jt_gen_value writes
 * it, but never handed to as_json again (an object JSON has no type for,
 * or text that is still not UTF-8, raises). */
void jt_gen_converted_value(jt_gen *g, VALUE obj);
/* A container's element or a pair's value: the commonest scalars without
 * jt_gen_value's full dispatch; returns ST_CONTINUE (a Hash walk's
 * callback ends with it). */
int jt_gen_element_value(jt_gen *g, VALUE obj);
/* value as the json gem alone writes it: the call's mode steps aside for
 * it (what ActiveSupport hands the json gem unencoded). */
void jt_gen_value_unmoded(jt_gen *g, VALUE value);
/* Any T_STRING value (the json gem's generate_json_string); as_json_called:
 * strict mode's as_json has had its say on it (strings.c). */
void jt_gen_string(jt_gen *g, VALUE str, bool as_json_called);
void jt_gen_array(jt_gen *g, VALUE ary);
/* pairs.c */
void jt_gen_hash(jt_gen *g, VALUE hash);
void jt_gen_object_key(jt_gen *g, VALUE key);
/* Deep documents are checked against the real stack limit, so that
 * max_nesting: false on a million levels raises instead of crashing. */
#define JT_STACK_CHECK_DEPTH 256

long jt_enter_deep_container(jt_gen *g, long depth);
VALUE jt_nesting_error(long refused);

/* One level deeper, or a NestingError (SystemStackError when the stack runs
 * out); returns the new depth. Inline: every Hash and Array comes here. */
JT_INLINE long jt_enter_container(jt_gen *g)
{
    long depth = ++g->depth;
    long max = g->cfg->max_nesting;
    if (RB_UNLIKELY((max && depth > max) || depth > JT_STACK_CHECK_DEPTH)) return jt_enter_deep_container(g, depth);
    return depth;
}

/* A container's opening bracket once it is entered (the nesting test
 * above), and its closing one as it is left: how a writer without layout
 * begins and ends a Hash or an Array. */
JT_INLINE void jt_open_container(jt_gen *g, char bracket)
{
    jt_enter_container(g);
    jt_buffer_push(g->buf, bracket);
}

JT_INLINE void jt_close_container(jt_gen *g, char bracket)
{
    --g->depth;
    jt_buffer_push(g->buf, bracket);
}

/* Whether a container one level below the current one is within
 * max_nesting: the test of jt_enter_container for the writers that write
 * a container in place without entering it (number tuples, an empty Array
 * as a pair's value). */
JT_INLINE bool jt_child_within_nesting(const jt_gen *g)
{
    const long max = g->cfg->max_nesting;
    return !max || g->depth < max;
}

/* fallback.c: an object without a native encoding (json mode): its to_json, else "#{obj}" */
void jt_gen_fallback(jt_gen *g, VALUE obj);
/* Whether obj's to_json is the json gem's generic one (JSON::GeneratorMethods). */
bool jt_to_json_is_generic(VALUE obj);
/* The Hash walk's pair writer without layout (a mode's own pass over a
 * Hash's pairs writes them with it). */
int jt_hash_pair_compact_i(VALUE key, VALUE value, VALUE data);
/* A JSON string of text that needs no escaping in any mode (strings.c). */
void jt_write_plain_text(jt_gen *g, const char *text, size_t n);
/* The json gem's JSON::Fragment class, or nil when the gem is not loaded. */
VALUE jt_json_fragment_class(void);

#endif
