#ifndef JETSON_GENERATOR_INTERNAL_H
#define JETSON_GENERATOR_INTERNAL_H

struct jt_short_key;

/* What generator.c (the walk and json mode) and rails_walk.c (Rails mode)
 * share: the per-call context and the writers each calls in the other. */

/* Ruby's headers first: its config sets the feature macros (struct
 * timespec, for db_cast.c) before any system header is read. */
#include "json/generator.h"
#include "bytes/buffer.h"
#include "bytes/escape.h"
#include "bytes/numbers.h"
#include "rails/rails.h"
#include "rails/attribute_set.h"
#include "rails/db_cast.h"
#include "bytes/symbol_names.h"

#define JT_PROFILE_CACHE 8
#define JT_RECORD_PLANS 4
#define JT_PLAN_DECIDED 16
#define JT_KEY_CACHE 64
#define JT_KEY_CACHE_MIN 32 /* longest key written without the cache */
/* An Array's elements, read in place. (Ruby 3.1's transient-heap variant,
 * which left the Array where it was, is gone since 3.3; on 3.1 this moves a
 * young Array out of the transient heap once.) */
#define JT_ARRAY_ELEMENTS(ary) RARRAY_CONST_PTR(ary)

/* What a serializable_hash options Hash asks for, worked out once per
 * options object and call (the same Hash serves every record of a
 * collection): only:/except: as Strings, methods: as Strings, include: as
 * [[association, options], ...], and every name methods: and include: add. */
struct jt_record_plan {
    VALUE options;
    VALUE only, except; /* Arrays of Strings, or Qnil */
    VALUE methods, includes, extras;
    /* Names already decided by only:/except: (frozen Strings: the rows of a
     * query share their key objects, so the same few recur). */
    struct {
        VALUE name;
        bool keep;
    } decided[JT_PLAN_DECIDED];
    int decided_count;
};

/* How instances of one class without a native encoding are written, settled
 * on the first instance met in a call and reused for the rest of it. */
struct jt_class_profile {
    VALUE klass;
    bool json_known, rails_known; /* which half below is filled in */
    /* json mode. respond_to? and respond_to_missing? are Ruby's own, so
     * whether an instance responds to to_json depends on its class alone:
     * responds_to_json holds for all of them. Otherwise each is asked. */
    bool respond_to_is_stock;
    bool responds_to_json;
    signed char generic_to_json; /* see to_json_is_generic; -1: not looked up yet */
    bool stock_time;             /* a Time printed by Ruby's own Time#to_s */
    /* Rails mode: the kind of value and whether its as_json is ActiveSupport's. */
    enum jt_rails_kind rails_kind;
    bool rails_stock;
    bool rails_record_stock; /* an ActiveRecord class serialized natively (gen_rails_record) */
    /* include_root_in_json of its instances (a class attribute without an
     * instance writer): -1 until the first instance is asked. */
    signed char rails_root;
};

/* Per-call generation context; lives on the C stack. */
typedef struct jt_gen {
    jt_buffer *buf;
    const jt_config *cfg;
    long depth;
    int escape_mode;
    /* Rails mode (ActiveSupport's encoding) when set; see jt_generate_rails. */
    const jt_rails_settings *rails;
    VALUE deferred_error;          /* Rails mode: see defer_generator_errors */
    signed char rails_float_stock; /* Rails mode: Float#as_json is ActiveSupport's; -1 unknown */
    signed char rails_hash_stock, rails_array_stock; /* the same for Hash and Array */
    /* Rails mode walks a value the way one of ActiveSupport's two passes
     * would: as_json(options) (the options, or Qnil for none), which turns
     * every Hash key into a String, or the pass after it (Qundef), which
     * keeps String and Symbol keys and calls as_json without options. */
    VALUE as_json_options;
    /* Rails mode: serializable_hash options already worked out (gen_rails_record). */
    struct jt_record_plan *record_plans; /* JT_RECORD_PLANS entries on the stack */
    int record_plan_count;
    jt_attribute_access *attribute_access; /* Rails mode: records' attribute sets */
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
    /* Pretty output: the indent repeated indents_depth times, prebuilt so
     * that indenting a line is one copy (see write_indent). */
    const char *indents;
    size_t indent_len;
    long indents_depth;
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

/* Which containers take the short paths of jt_gen_hash and jt_gen_array:
 * json mode, no layout, no canonical order, no sort_keys. Called once cfg
 * and rails are set. */
JT_INLINE void jt_gen_settle_paths(jt_gen *g)
{
    const jt_config *cfg = g->cfg;
    const bool plain = !g->rails && !cfg->rfc8785 && !cfg->indent;
    g->plain_hashes = plain && !RTEST(cfg->sort_keys) && !cfg->object_nl && !cfg->space && !cfg->space_before;
    g->plain_arrays = plain && !cfg->array_nl;
}

JT_INLINE bool jt_in_as_json_pass(const jt_gen *g)
{
    return g->as_json_options != Qundef;
}

/* Rails mode where JSONGemCoderEncoder's Coder walks (outside as_json(options)
 * passes): the json gem's strict walk, cfg->as_json being the Coder's block. */
JT_INLINE bool jt_coder_walk(const jt_gen *g)
{
    return g->rails && g->rails->coder && !jt_in_as_json_pass(g);
}

/* Rails mode where ActiveSupport's own rules apply: everywhere under
 * JSONGemEncoder, in as_json(options) passes under the Coder encoder. */
JT_INLINE bool jt_rails_jsonify(const jt_gen *g)
{
    return g->rails && !(g->rails->coder && !jt_in_as_json_pass(g));
}

/* generator.c */
void jt_gen_value(jt_gen *g, VALUE obj);
void jt_gen_string(jt_gen *g, VALUE str, bool as_json_called);
void jt_gen_hash(jt_gen *g, VALUE hash);
void jt_gen_array(jt_gen *g, VALUE ary);
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
struct jt_class_profile *jt_profile_of(jt_gen *g, VALUE obj, struct jt_class_profile *scratch);
/* fallback.c: an object without a native encoding (json mode): its to_json, else "#{obj}" */
void jt_gen_fallback(jt_gen *g, VALUE obj);
/* Whether obj's to_json is the json gem's generic one (JSON::GeneratorMethods). */
bool jt_to_json_is_generic(VALUE obj);
int jt_hash_pair_compact_i(VALUE key, VALUE value, VALUE data);
VALUE jt_convert_encoding(jt_gen *g, VALUE str, bool as_json_called, bool is_key);
void jt_write_string_bytes(jt_gen *g, VALUE str);
void jt_write_plain_text(jt_gen *g, const char *text, size_t n);

/* rails_walk.c: Rails mode's side of the walk */
void jt_rails_string(jt_gen *g, VALUE str);
void jt_rails_check_duplicate_keys(jt_gen *g, VALUE hash);
void jt_rails_hash_pairs(jt_gen *g, VALUE hash);
bool jt_rails_container_prologue(jt_gen *g, VALUE *container, enum jt_rails_kind kind);
void jt_rails_float(jt_gen *g, VALUE obj);
void jt_rails_object(jt_gen *g, VALUE obj);
struct jt_class_profile *jt_rails_profile(jt_gen *g, VALUE obj, struct jt_class_profile *scratch);
VALUE jt_rails_call_as_json(jt_gen *g, VALUE obj);
/* Walks value in the given pass (see as_json_options), then returns to the
 * current one. */
void jt_rails_gen_in_pass(jt_gen *g, VALUE value, VALUE options);
/* rails_coder.c: JSONGemCoderEncoder's side (see there) */
bool jt_rails_deferrable_error(VALUE error);
void jt_rails_coder_subtree(jt_gen *g, VALUE value);
bool jt_rails_coder_native(jt_gen *g, VALUE obj);
bool jt_rails_coder_float(jt_gen *g, VALUE obj);
bool jt_rails_fragment(jt_gen *g, VALUE obj, VALUE klass);

/* record.c: ActiveRecord records and relations */
/* ActiveModel's as_json: serializable_hash(options).as_json, wrapped in a
 * root key when asked (false: left to Ruby). The Hash comes from the model's
 * own serializable_hash, or is written natively for ActiveRecord records. */
bool jt_record_model(jt_gen *g, VALUE model, struct jt_class_profile *p);
/* Whether klass is an ActiveRecord::Relation (association proxies too). */
bool jt_record_relation_class_p(jt_gen *g, VALUE klass);
/* A relation written as as_json writes it: its records. */
bool jt_record_relation(jt_gen *g, VALUE relation);

#endif
