/* Hashes in the json walk: their keys (the json gem's coercions, the
 * mixed-key check, the key caches) and their pairs, one callback per pair
 * under rb_hash_foreach; each value goes back to the walk
 * (jt_gen_element_value). */

#include "json/json_walk.h"
#include "json/strings.h"
#include "json/key_cache.h"
#include "json/in_place.h"
#include <math.h>


JT_NOINLINE static void on_mixed_keys(struct hash_iter *it)
{
    if (it->mixed_keys_seen) return;
    it->mixed_keys_seen = true;
    it->mixed_after_error = it->g->deferred_error != 0;
    const jt_mode *mode = it->g->mode;
    if (mode && mode->mixed_keys && mode->mixed_keys(it->g, it->hash)) return;
    const jt_config *cfg = it->g->cfg;
    if (cfg->on_duplicate_key != JT_DUP_IGNORE) {
        jt_before_ruby(it->g);
        rb_funcall(jt.mJetson, jj.id_on_mixed_keys_hash, 2, it->hash,
                   cfg->on_duplicate_key == JT_DUP_RAISE ? Qtrue : Qfalse);
    }
}

static VALUE string_subclass_key(VALUE key)
{
    VALUE str = rb_funcall(key, jt.id_to_s, 0);
    if (!RB_TYPE_P(str, T_STRING)) {
        VALUE cname = rb_obj_class(key);
        rb_raise(rb_eTypeError, "can't convert %"PRIsVALUE" to %s (%"PRIsVALUE"#%s gives %"PRIsVALUE")",
                 cname, "String", cname, "to_s", rb_obj_class(str));
    }
    return str;
}

/* A key longer than JT_KEY_CACHE_MIN: copied from its first occurrence in
 * this call when there is one. */
JT_NOINLINE static void gen_cached_key(jt_gen *g, VALUE key, VALUE key_str)
{
    if (jt_long_key_write(g, key)) return;
    size_t start = g->buf->len;
    jt_write_ready_string(g, key_str);
    jt_long_key_store(g, key, start);
}

/* Every key that is not a plain, UTF-8 ready String or Symbol. */
JT_NOINLINE static void gen_key_general(struct hash_iter *it, VALUE key, int key_type)
{
    jt_gen *g = it->g;
    bool as_json_called = false;
    VALUE key_str;

    jt_before_ruby(g);
    for (;;) {
        if (key_type == T_STRING) {
            if (RB_UNLIKELY(it->first_key_type != T_STRING)) on_mixed_keys(it);
            key_str = RB_LIKELY(RBASIC_CLASS(key) == rb_cString) ? key : string_subclass_key(key);
            break;
        }
        if (key_type == T_SYMBOL) {
            if (RB_UNLIKELY(it->first_key_type != T_SYMBOL)) on_mixed_keys(it);
            key_str = jt_symbol_name(&g->symbol_names, key);
            break;
        }
        if (g->cfg->strict) {
            if (RTEST(g->cfg->as_json) && !as_json_called) {
                key = jt_call_as_json(g, key, Qtrue);
                key_type = rb_type(key);
                as_json_called = true;
                continue;
            }
            jt_raise_generator_error(key, "%"PRIsVALUE" not allowed as object key in JSON", CLASS_OF(key));
        }
        key_str = rb_convert_type(key, T_STRING, "String", "to_s");
        break;
    }

    if (RB_UNLIKELY(!jt_string_is_json_ready(key_str))) {
        if (g->mode && g->mode->string && g->mode->string(g, key_str)) return;
        key_str = jt_convert_encoding(g, key_str, as_json_called, true);
    }
    if (RB_LIKELY(RB_TYPE_P(key_str, T_STRING) && RBASIC_CLASS(key_str) == rb_cString)) {
        jt_write_string_bytes(g, key_str);
    } else {
        jt_gen_value(g, key_str);
    }
}

/* The common case inline: a plain String or a Symbol, already UTF-8 ready. */
JT_INLINE void gen_key(struct hash_iter *it, VALUE key)
{
    jt_gen *g = it->g;
    int key_type = rb_type(key);
    if (key_type == T_SYMBOL || (key_type == T_STRING && RBASIC_CLASS(key) == rb_cString)) {
        if (RB_UNLIKELY(it->first_key_type != key_type)) on_mixed_keys(it);
        VALUE key_str = key_type == T_SYMBOL ? jt_symbol_name(&g->symbol_names, key) : key;
        if (RB_LIKELY(jt_string_is_json_ready(key_str))) {
            /* Short keys are cheaper to write again than to look up. */
            if (RSTRING_LEN(key_str) <= JT_KEY_CACHE_MIN) {
                jt_write_ready_string(g, key_str);
            } else {
                gen_cached_key(g, key, key_str);
            }
            return;
        }
    }
    gen_key_general(it, key, key_type);
}

/* A key written without its Hash (Jetson::Writer): the same coercion and
 * escaping as a Hash key. There are no sibling keys at hand, so the
 * duplicate-key check for mixed String and Symbol keys never fires. */
void jt_gen_object_key(jt_gen *g, VALUE key)
{
    struct hash_iter it = { .g = g, .hash = Qnil, .first = false, .mixed_keys_seen = true };
    it.first_key_type = rb_type(key);
    gen_key(&it, key);
}

/* The first pair sets the key type that later keys are checked against. */
JT_INLINE void pair_separator(struct hash_iter *it, VALUE key)
{
    if (RB_LIKELY(!it->first)) {
        jt_buffer_push(it->g->buf, ',');
    } else {
        it->first = false;
        it->first_key_type = rb_type(key);
    }
}

/* The name of a Symbol key, or a plain String key, when its type is the
 * Hash's first key type (else the mixed-key check has work to do): 0 if not. */
JT_INLINE VALUE plain_key_string(jt_gen *g, const struct hash_iter *it, VALUE key)
{
    if (RB_STATIC_SYM_P(key)) {
        return it->first_key_type == T_SYMBOL ? jt_symbol_name(&g->symbol_names, key) : 0;
    }
    if (RB_SPECIAL_CONST_P(key)) return 0;
    int type = RB_BUILTIN_TYPE(key);
    if (type != it->first_key_type) return 0;
    if (type == T_SYMBOL) return rb_sym2str(key);
    return type == T_STRING && RBASIC_CLASS(key) == rb_cString ? key : 0;
}

/* The key of a pair that is not a plain short name (see jt_hash_pair_compact_i). */
JT_NOINLINE static void gen_key_slow(struct hash_iter *it, VALUE key)
{
    gen_key(it, key);
}

void jt_short_keys_enable(jt_gen *g)
{
    /* A mode may run Ruby code between pairs, which the cache cannot see. */
    if (g->buf->io != Qnil || g->mode) {
        g->short_key_storage = NULL;
        return;
    }
    memset(g->short_key_storage, 0, JT_SHORT_KEYS * sizeof(*g->short_key_storage));
    g->short_keys = g->short_key_storage;
}

/* After `"key":` ends at dst (room made for JT_SCALAR_MAX_CHARS): a scalar
 * (Integer, flonum, nil, true, false) in place; a short String that needs
 * no escaping, or a short Array of scalars, after making room; anything
 * else through gen_element_value. */
JT_INLINE int finish_pair(jt_gen *g, jt_buffer *b, char *dst, VALUE value)
{
    if (RB_SPECIAL_CONST_P(value)) {
        char *end = jt_write_scalar_in_place(dst, value);
        if (end) {
            b->len = (size_t)(end - b->ptr);
            return ST_CONTINUE;
        }
        if (RB_FLONUM_P(value) && g->json_floats) { /* else the mode's (jt_mode.float_) */
            const double d = RFLOAT_VALUE(value);
            if (RB_LIKELY(isfinite(d))) {
                b->len = (size_t)(dst + jt_write_double(d, dst, jj.float_rules) - b->ptr);
                return ST_CONTINUE;
            }
        }
    }
    b->len = (size_t)(dst - b->ptr);
    if (!RB_SPECIAL_CONST_P(value)) {
        const VALUE klass = RBASIC_CLASS(value);
        char *end = NULL;
        if (klass == rb_cString) {
            end = jt_write_plain_name(b, NULL, value, g->escape_mode, false, 0);
        } else if (klass == rb_cArray && g->plain_arrays) {
            jt_buffer_reserve(b, JT_TUPLE_ROOM);
            end = jt_write_number_tuple(g, b->ptr + b->len, value, g->json_floats);
        }
        if (end) {
            b->len = (size_t)(end - b->ptr);
            return ST_CONTINUE;
        }
    }
    return jt_gen_element_value(g, value);
}

/* The full pair writer without layout options, behind the leaves below
 * (which take the commonest pairs): any key, with one reservation for the
 * separator, a plain quoted key, the colon and a scalar; with `cached`, a
 * key met before in the call is copied from the short-key cache
 * (key_cache.h) when `look` finds it, and a new short key is kept there.
 * Any other value is a tail call. */
JT_INLINE int gen_compact_pair(VALUE key, VALUE value, struct hash_iter *it, bool cached, bool look)
{
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;
    /* Between pairs no pointer into an object is held: a chunk may go out. */
    jt_buffer_safe_point(b);
    bool separator = !it->first;
    if (cached && look) {
        const struct jt_short_key *e = jt_short_key_find(g, key);
        if (e) {
            if (RB_UNLIKELY(!separator)) {
                it->first = false;
                it->first_key_type = e->type;
            }
            if (RB_LIKELY(e->type == it->first_key_type)) {
                /* The entry is on the C stack: growing cannot move it. */
                jt_buffer_reserve(b, 1 + JT_SHORT_KEY_BYTES + JT_SCALAR_MAX_CHARS);
                char *dst = b->ptr + b->len;
                *dst = ',';
                dst += separator;
                memcpy(dst, e->bytes, JT_SHORT_KEY_BYTES);
                return finish_pair(g, b, dst + e->length, value);
            }
        }
    }
    if (RB_UNLIKELY(!separator)) { /* sets the key type later keys are checked against */
        it->first = false;
        it->first_key_type = rb_type(key);
    }
    VALUE name = plain_key_string(g, it, key);
    char *dst;
    if (RB_LIKELY(name) &&
        (dst = jt_write_plain_name(b, NULL, name, g->escape_mode, separator, 1 + JT_SCALAR_MAX_CHARS)) != NULL) {
        *dst++ = ':';
        if (cached) {
            const size_t length = (size_t)RSTRING_LEN(name) + 3;
            if (length <= JT_SHORT_KEY_BYTES) jt_short_key_store(g, key, it->first_key_type, dst - length, length);
        }
        return finish_pair(g, b, dst, value);
    }
    if (separator) jt_buffer_push(b, ',');
    gen_key_slow(it, key);
    jt_buffer_push(b, ':');
    return jt_gen_element_value(g, value);
}

JT_NOINLINE static int compact_pair(VALUE key, VALUE value, struct hash_iter *it)
{
    return gen_compact_pair(key, value, it, false, false);
}

/* finish_pair out of line, for the leaf paths below: a value that is
 * neither a scalar nor a short String. Containers and long Strings go
 * straight to the walk (a tail call); Floats and short Arrays of numbers
 * are written in place by finish_pair. */
JT_NOINLINE static int finish_leaf_pair_slow(jt_gen *g, jt_buffer *b, char *dst, VALUE value)
{
    return finish_pair(g, b, dst, value);
}

JT_INLINE int finish_leaf_pair(jt_gen *g, jt_buffer *b, char *dst, VALUE value)
{
    if (!RB_SPECIAL_CONST_P(value) && RBASIC_CLASS(value) == rb_cArray) {
        /* An empty Array, the commonest Array value of records ("tags": []),
         * like a scalar; it still counts as a level of nesting. */
        if (RARRAY_LEN(value) == 0 && g->plain_arrays && jt_child_within_nesting(g)) {
            memcpy(dst, "[]", 2);
            b->len = (size_t)(dst + 2 - b->ptr);
            return ST_CONTINUE;
        }
        return finish_leaf_pair_slow(g, b, dst, value);
    }
    if (RB_FLONUM_P(value)) return finish_leaf_pair_slow(g, b, dst, value);
    b->len = (size_t)(dst - b->ptr);
    return jt_gen_element_value(g, value);
}

/* A plain String of 1..32 ASCII bytes that needs no escaping in this mode,
 * quoted at dst after an optional ','; returns the end, or NULL having
 * written nothing that counts. No call, no room test: the caller made room
 * for JT_LEAF_NAME bytes and a separator. */
JT_INLINE char *write_leaf_name(char *dst, VALUE str, int mode, bool separator)
{
    if (RB_ENC_CODERANGE(str) != RUBY_ENC_CODERANGE_7BIT) return NULL;
    return jt_write_plain_name(NULL, dst, str, mode, separator, 0);
}

/* After a leaf's key and colon (ending at dst): the value, in place when
 * it is a scalar or a short String, else by finish_leaf_pair. */
JT_INLINE int write_leaf_value(jt_gen *g, jt_buffer *b, char *dst, VALUE value)
{
    char *end = jt_write_scalar_in_place(dst, value);
    if (!end && !RB_SPECIAL_CONST_P(value) && RBASIC_CLASS(value) == rb_cString) {
        end = write_leaf_name(dst, value, g->escape_mode, false);
    }
    if (!end) return finish_leaf_pair(g, b, dst, value);
    b->len = (size_t)(end - b->ptr);
    return ST_CONTINUE;
}

/* Room for the leaf path's longest pair: ',', a quoted 32-byte key, ':'
 * and the longest scalar or a quoted 32-byte String. */
#define JT_LEAF_NAME (2 + 32)
#define JT_LEAF_PAIR_ROOM (1 + JT_LEAF_NAME + 1 + (JT_SCALAR_MAX_CHARS > JT_LEAF_NAME ? JT_SCALAR_MAX_CHARS : JT_LEAF_NAME))

/* A leaf's pair once its key's name is known and room made: the name
 * quoted (after a ',' unless first), the colon and the value; the full
 * writer when the name needs more than the leaf does. `first` is a
 * constant at each caller: the first pair sets the key type (of `type`)
 * that later keys are checked against. */
JT_INLINE int write_leaf_pair(struct hash_iter *it, VALUE key, VALUE name, int type, VALUE value, bool first)
{
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;
    char *dst = write_leaf_name(b->ptr + b->len, name, g->escape_mode, !first);
    if (!dst) return compact_pair(key, value, it);
    if (first) {
        it->first = false;
        it->first_key_type = type;
    }
    *dst++ = ':';
    return write_leaf_value(g, b, dst, value);
}

/* A pair whose key is a static Symbol with its quoted form in the name
 * cache (symbol_names.h), room made for a leaf: that form copied whole
 * (after a ',' unless first), then the value. */
JT_INLINE int write_symbol_key_pair(jt_gen *g, jt_buffer *b, const jt_symbol_entry *e, VALUE value, bool first)
{
    char *dst = b->ptr + b->len;
    *dst = ','; /* past the length: overwritten by the key when first */
    dst += !first;
    memcpy(dst, e->key, JT_SYMBOL_KEY_BYTES);
    return write_leaf_value(g, b, dst + e->key_length, value);
}

/* write_symbol_key_pair after the first pair, out of line (a tail call):
 * inline, its value writer made the callback below save registers on
 * every path, the String keys' and the dynamic Symbols' too. */
JT_NOINLINE static int symbol_key_pair(const jt_symbol_entry *e, VALUE value, struct hash_iter *it)
{
    return write_symbol_key_pair(it->g, it->g->buf, e, value, false);
}

/* A Hash's first pair, when its key is a short String or a static Symbol
 * and its value a scalar or a short String: the leaf below without a
 * separator, setting the key type the other pairs are checked against.
 * Out of the leaf's way: small Hashes (two or three pairs) have one such
 * pair in every two or three. */
JT_NOINLINE static int first_pair(VALUE key, VALUE value, struct hash_iter *it)
{
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;
    if (RB_UNLIKELY(b->len >= b->flush_at) || b->capa - b->len < JT_LEAF_PAIR_ROOM) {
        return compact_pair(key, value, it);
    }
    VALUE name;
    int type;
    if (RB_STATIC_SYM_P(key)) {
        /* Sets the Ractor's name cache up on the call's first Symbol. */
        if (RB_UNLIKELY(!g->symbol_names)) g->symbol_names = jt_symbol_names_of_ractor();
        const jt_symbol_entry *e = jt_symbol_entry_cached(g->symbol_names, key);
        if (RB_LIKELY(e && e->key_length)) {
            it->first = false;
            it->first_key_type = T_SYMBOL;
            return write_symbol_key_pair(g, b, e, value, true);
        }
        name = e ? e->name : jt_symbol_name_miss(g->symbol_names, key);
        type = T_SYMBOL;
    } else if (!RB_SPECIAL_CONST_P(key) && RBASIC_CLASS(key) == rb_cString) {
        name = key;
        type = T_STRING;
    } else {
        return compact_pair(key, value, it);
    }
    /* The buffer is read after the name: setting its cache up allocates. */
    return write_leaf_pair(it, key, name, type, value, true);
}

/* A dynamic Symbol key (String#to_sym, JSON.parse's symbolize_names) in
 * a Hash of Symbol keys, room made: the leaf's write, out of the leaf
 * because its name is a call away (which allocates nothing). */
JT_NOINLINE static int dynamic_symbol_pair(VALUE key, VALUE value, struct hash_iter *it)
{
    return write_leaf_pair(it, key, rb_sym2str(key), T_SYMBOL, value, false);
}

/* The pair callback without layout. The commonest pair after the first,
 * a short key of the Hash's first key type and a scalar or a short
 * String, is written by a leaf: one room test up front and no call, so
 * that the callback (paid per pair) saves few registers and keeps no
 * frame. Everything else takes the full pair writer, which starts over
 * (the bytes written here are past the buffer's length and do not count),
 * or, once the key is written, finish_pair. Rails mode's passes over a
 * Hash call it too (rails/walk.c). */
int jt_hash_pair_compact_i(VALUE key, VALUE value, VALUE data)
{
    struct hash_iter *it = (struct hash_iter *)data;
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;
    if (RB_UNLIKELY(it->first)) return first_pair(key, value, it);
    if (RB_UNLIKELY(b->len >= b->flush_at) || b->capa - b->len < JT_LEAF_PAIR_ROOM) {
        return compact_pair(key, value, it);
    }
    VALUE name;
    if (RB_STATIC_SYM_P(key)) {
        /* The Ractor's name cache, when this call has looked it up. */
        jt_symbol_names *names = g->symbol_names;
        if (it->first_key_type != T_SYMBOL || !names) return compact_pair(key, value, it);
        const jt_symbol_entry *e = jt_symbol_entry_cached(names, key);
        if (!e) return compact_pair(key, value, it);
        if (RB_LIKELY(e->key_length)) return symbol_key_pair(e, value, it);
        name = e->name;
    } else if (!RB_SPECIAL_CONST_P(key) && RBASIC_CLASS(key) == rb_cString && it->first_key_type == T_STRING) {
        name = key;
    } else if (!RB_SPECIAL_CONST_P(key) && RBASIC_CLASS(key) == rb_cSymbol && it->first_key_type == T_SYMBOL) {
        return dynamic_symbol_pair(key, value, it);
    } else {
        return compact_pair(key, value, it);
    }
    return write_leaf_pair(it, key, name, it->first_key_type, value, false);
}

JT_NOINLINE static int cached_pair(VALUE key, VALUE value, struct hash_iter *it)
{
    return gen_compact_pair(key, value, it, true, true);
}

/* A key the leaf below did not find in the cache: written and kept,
 * without looking for it again (a Hash of unique keys misses at every
 * pair). */
JT_NOINLINE static int uncached_pair(VALUE key, VALUE value, struct hash_iter *it)
{
    return gen_compact_pair(key, value, it, true, false);
}

/* Room for the leaf path's longest pair with a cached key. */
#define JT_LEAF_CACHED_PAIR_ROOM (1 + JT_SHORT_KEY_BYTES + (JT_SCALAR_MAX_CHARS > JT_LEAF_NAME ? JT_SCALAR_MAX_CHARS : JT_LEAF_NAME))

/* Whether the buffer has room for a cached leaf's longest pair, and no
 * chunk is due out (into an io) first. */
JT_INLINE bool cached_leaf_room(const jt_buffer *b)
{
    return RB_LIKELY(b->len < b->flush_at) && b->capa - b->len >= JT_LEAF_CACHED_PAIR_ROOM;
}

/* A cached leaf's pair, room made: the key's entry (which holds the
 * colon) copied after a ',' unless first, then the value. `first` is a
 * constant at each caller, as in write_leaf_pair. */
JT_INLINE int write_cached_leaf_pair(jt_gen *g, jt_buffer *b, const struct jt_short_key *e, VALUE value, bool first)
{
    char *dst = b->ptr + b->len;
    *dst = ','; /* past the length: overwritten by the key when first */
    dst += !first;
    memcpy(dst, e->bytes, JT_SHORT_KEY_BYTES);
    return write_leaf_value(g, b, dst + e->length, value);
}

/* A Hash's first pair where the short-key cache is on: a key met before
 * in the call is copied from its entry with no separator, and sets the
 * key type the other pairs are checked against. Every record of an Array
 * of records starts with a pair like this ("id"). */
JT_NOINLINE static int first_cached_pair(VALUE key, VALUE value, struct hash_iter *it)
{
    jt_gen *g = it->g;
    if (!cached_leaf_room(g->buf)) return cached_pair(key, value, it);
    const struct jt_short_key *e = jt_short_key_find(g, key);
    if (!e) return uncached_pair(key, value, it);
    it->first = false;
    it->first_key_type = e->type;
    return write_cached_leaf_pair(g, g->buf, e, value, true);
}

/* jt_hash_pair_compact_i's leaf where the short-key cache is on: a key
 * met before in the call (of the Hash's key type) is copied from its
 * entry. */
static int hash_pair_cached_i(VALUE key, VALUE value, VALUE data)
{
    struct hash_iter *it = (struct hash_iter *)data;
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;
    if (RB_UNLIKELY(it->first)) return first_cached_pair(key, value, it);
    if (!cached_leaf_room(b)) return cached_pair(key, value, it);
    const struct jt_short_key *e = jt_short_key_find(g, key);
    if (!e) return uncached_pair(key, value, it);
    if (e->type != it->first_key_type) return cached_pair(key, value, it);
    return write_cached_leaf_pair(g, b, e, value, false);
}

/* A pair with layout options (pretty output): the line and the colon
 * around the compact pair's key and value paths. */
static int hash_pair_i(VALUE key, VALUE value, VALUE data)
{
    struct hash_iter *it = (struct hash_iter *)data;
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;

    jt_buffer_safe_point(b);
    pair_separator(it, key);
    jt_write_line(g, true, g->depth);
    VALUE name = plain_key_string(g, it, key);
    char *dst;
    if (RB_LIKELY(name) && (dst = jt_write_plain_name(b, NULL, name, g->escape_mode, false, 0)) != NULL) {
        b->len = (size_t)(dst - b->ptr);
        jt_write_colon(g);
        jt_buffer_reserve(b, JT_SCALAR_MAX_CHARS);
        return finish_pair(g, b, b->ptr + b->len, value);
    }
    gen_key_slow(it, key);
    jt_write_colon(g);
    return jt_gen_element_value(g, value);
}

/* rb_hash_foreach guards the Hash while it iterates, so that Ruby code run
 * meanwhile (a to_json) cannot reallocate its table under the walk. Ruby's
 * public API has no unguarded walk (json pays the same guard). */
JT_INLINE void gen_pairs(VALUE hash, int (*pair_i)(VALUE, VALUE, VALUE), struct hash_iter *it)
{
    rb_hash_foreach(hash, pair_i, (VALUE)it);
}

/* A Hash with layout options, sort_keys or under a mode (see jt_gen_hash). */
JT_NOINLINE static void gen_hash_general(jt_gen *g, VALUE hash)
{
    const jt_config *cfg = g->cfg;
    /* The mode's first (rfc8785's key order wins over sort_keys, as in json 3.1). */
    if (RB_UNLIKELY(g->mode && g->mode->container) && !g->mode->container(g, &hash, true)) return;
    if (RB_UNLIKELY(RTEST(cfg->sort_keys))) {
        jt_before_ruby(g);
        hash = rb_proc_call_with_block(cfg->sort_keys, 1, &hash, Qnil);
        Check_Type(hash, T_HASH);
    }

    jt_enter_container(g);
    if (RHASH_SIZE(hash) == 0) {
        jt_buffer_append(g->buf, "{}", 2);
        --g->depth;
        return;
    }

    jt_buffer_push(g->buf, '{');
    if (RB_UNLIKELY(g->mode && g->mode->pairs) && g->mode->pairs(g, hash)) {
        /* written by the mode */
    } else {
        struct hash_iter it = { .g = g, .hash = hash, .first = true };
        bool compact = !cfg->object_nl && !cfg->indent && !cfg->space && !cfg->space_before;
        gen_pairs(hash, compact ? jt_hash_pair_compact_i : hash_pair_i, &it);
    }
    long depth = --g->depth;
    if (RB_UNLIKELY(cfg->object_nl)) jt_write_line(g, true, depth);
    jt_buffer_push(g->buf, '}');
    RB_GC_GUARD(hash);
}

/* Every Hash comes here. The plain path (no layout, order or mode) is all
 * this function holds, the rest out of line, so that it saves few
 * registers: small documents are mostly a few such calls. */
void jt_gen_hash(jt_gen *g, VALUE hash)
{
    if (RB_UNLIKELY(!g->plain_hashes)) {
        gen_hash_general(g, hash);
        return;
    }
    /* An empty Hash walks no pair: "{}" all the same, without asking its
     * size (a call). */
    jt_open_container(g, '{');
    struct hash_iter it = { .g = g, .hash = hash, .first = true };
    if (RB_UNLIKELY(!g->short_keys) && g->buf->heap && g->short_key_storage) jt_short_keys_enable(g);
    gen_pairs(hash, g->short_keys ? hash_pair_cached_i : jt_hash_pair_compact_i, &it);
    jt_close_container(g, '}');
    RB_GC_GUARD(hash);
}
