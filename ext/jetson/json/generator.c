/* The json walk: the json gem's generator over Ruby values (the dispatch
 * by type, Hashes, Arrays, Strings, keys, numbers), calling the call's
 * mode (json/mode.h) where it rules a value, and the entry of a call. */

#include "json/walk.h"
#include "json/strings.h"
#include "json/key_cache.h"
#include "json/in_place.h"
#include "json/layout.h"
#include <math.h>


JT_INLINE void gen_element(jt_gen *g, VALUE obj);
static int gen_element_value(jt_gen *g, VALUE obj);

/* --- layout helpers ------------------------------------------------------ */

JT_INLINE void write_layout(jt_gen *g, VALUE str)
{
    if (RB_UNLIKELY(str)) jt_buffer_append_str(g->buf, str);
}

JT_NOINLINE static void write_indent(jt_gen *g, VALUE indent, long depth)
{
    size_t n = (size_t)RSTRING_LEN(indent);
    if (depth <= 0) return;
    jt_buffer_reserve(g->buf, n * (size_t)depth);
    /* Read after growing: growth may run the GC, which may move an embedded String. */
    const char *p = RSTRING_PTR(indent);
    char *dst = g->buf->ptr + g->buf->len;
    for (long i = 0; i < depth; i++, dst += n) memcpy(dst, p, n);
    g->buf->len += n * (size_t)depth;
    RB_GC_GUARD(indent);
}

/* A line break (the object's or the array's) and the indent of depth:
 * prebuilt (layout.h) where the call built them, else the options' Strings. */
JT_INLINE void write_line(jt_gen *g, bool object, long depth)
{
    const jt_config *cfg = g->cfg;
    VALUE nl = object ? cfg->object_nl : cfg->array_nl;
    if (g->layout && jt_layout_write_line(g->buf, object ? &g->layout->object : &g->layout->array, depth)) return;
    write_layout(g, nl);
    if (cfg->indent) write_indent(g, cfg->indent, depth);
}

/* space_before, ':' and space. */
JT_INLINE void write_colon(jt_gen *g)
{
    const jt_config *cfg = g->cfg;
    if (g->layout && jt_layout_write_colon(g->buf, g->layout)) return;
    write_layout(g, cfg->space_before);
    jt_buffer_push(g->buf, ':');
    write_layout(g, cfg->space);
}

/* --- objects ------------------------------------------------------------- */


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
                b->len = (size_t)(dst + jt_write_double(d, dst) - b->ptr);
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
    return gen_element_value(g, value);
}

/* Without layout options, the loop body is only this. The commonest pair, a
 * short key that needs no escaping, takes one reservation for the
 * separator, the quoted key, the colon and a scalar (an Integer, nil, true,
 * false) written in place; with `cached`, a key met before in the call is
 * copied from the short-key cache (key_cache.h). Any other value is a tail
 * call, so that the body stays small (a callback per pair: its frame is
 * paid per pair). */
JT_INLINE int gen_compact_pair(VALUE key, VALUE value, struct hash_iter *it, bool cached)
{
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;
    /* Between pairs no pointer into an object is held: a chunk may go out. */
    jt_buffer_safe_point(b);
    bool separator = !it->first;
    if (cached) {
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
    return gen_element_value(g, value);
}

JT_NOINLINE static int compact_pair(VALUE key, VALUE value, struct hash_iter *it)
{
    return gen_compact_pair(key, value, it, false);
}

/* finish_pair out of line, for the leaf path below. */
JT_NOINLINE static int finish_leaf_pair(jt_gen *g, jt_buffer *b, char *dst, VALUE value)
{
    return finish_pair(g, b, dst, value);
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

/* Room for the leaf path's longest pair: ',', a quoted 32-byte key, ':'
 * and the longest scalar or a quoted 32-byte String. */
#define JT_LEAF_NAME (2 + 32)
#define JT_LEAF_PAIR_ROOM (1 + JT_LEAF_NAME + 1 + (JT_SCALAR_MAX_CHARS > JT_LEAF_NAME ? JT_SCALAR_MAX_CHARS : JT_LEAF_NAME))

/* Every pair after the first comes here first. The commonest one, a short
 * key of the Hash's first key type and a scalar or a short String, is
 * written by a leaf: one room test up front and no call, so that the
 * callback (paid per pair) saves no registers and keeps no frame.
 * Everything else takes the full pair writer, which starts over (the
 * bytes written here are past the buffer's length and do not count), or,
 * once the key is written, finish_pair. */
int jt_hash_pair_compact_i(VALUE key, VALUE value, VALUE data)
{
    struct hash_iter *it = (struct hash_iter *)data;
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;
    if (RB_UNLIKELY(it->first) || b->len >= b->flush_at || b->capa - b->len < JT_LEAF_PAIR_ROOM) {
        return compact_pair(key, value, it);
    }
    VALUE name;
    if (RB_STATIC_SYM_P(key)) {
        /* The Ractor's name cache, when this call has looked it up. */
        jt_symbol_names *names = g->symbol_names;
        if (it->first_key_type != T_SYMBOL || !names) return compact_pair(key, value, it);
        const size_t slot = jt_symbol_slot(key);
        if (names->entries[slot].sym != key) return compact_pair(key, value, it);
        name = names->entries[slot].name;
    } else if (!RB_SPECIAL_CONST_P(key) && RBASIC_CLASS(key) == rb_cString && it->first_key_type == T_STRING) {
        name = key;
    } else {
        return compact_pair(key, value, it);
    }
    const int mode = g->escape_mode;
    char *dst = write_leaf_name(b->ptr + b->len, name, mode, true);
    if (!dst) return compact_pair(key, value, it);
    *dst++ = ':';
    char *end = jt_write_scalar_in_place(dst, value);
    if (!end && !RB_SPECIAL_CONST_P(value) && RBASIC_CLASS(value) == rb_cString) end = write_leaf_name(dst, value, mode, false);
    if (!end) return finish_leaf_pair(g, b, dst, value);
    b->len = (size_t)(end - b->ptr);
    return ST_CONTINUE;
}

JT_NOINLINE static int cached_pair(VALUE key, VALUE value, struct hash_iter *it)
{
    return gen_compact_pair(key, value, it, true);
}

/* Room for the leaf path's longest pair with a cached key. */
#define JT_LEAF_CACHED_PAIR_ROOM (1 + JT_SHORT_KEY_BYTES + (JT_SCALAR_MAX_CHARS > JT_LEAF_NAME ? JT_SCALAR_MAX_CHARS : JT_LEAF_NAME))

/* jt_hash_pair_compact_i's leaf where the short-key cache is on: a key
 * met before in the call (of the Hash's key type) is copied from its
 * entry. */
static int hash_pair_cached_i(VALUE key, VALUE value, VALUE data)
{
    struct hash_iter *it = (struct hash_iter *)data;
    jt_gen *g = it->g;
    jt_buffer *b = g->buf;
    if (RB_UNLIKELY(it->first) || b->len >= b->flush_at || b->capa - b->len < JT_LEAF_CACHED_PAIR_ROOM) {
        return cached_pair(key, value, it);
    }
    const struct jt_short_key *e = jt_short_key_find(g, key);
    if (!e || e->type != it->first_key_type) return cached_pair(key, value, it);
    char *dst = b->ptr + b->len;
    *dst = ',';
    memcpy(dst + 1, e->bytes, JT_SHORT_KEY_BYTES);
    dst += 1 + e->length;
    char *end = jt_write_scalar_in_place(dst, value);
    if (!end && !RB_SPECIAL_CONST_P(value) && RBASIC_CLASS(value) == rb_cString) {
        end = write_leaf_name(dst, value, g->escape_mode, false);
    }
    if (!end) return finish_leaf_pair(g, b, dst, value);
    b->len = (size_t)(end - b->ptr);
    return ST_CONTINUE;
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
    write_line(g, true, g->depth);
    VALUE name = plain_key_string(g, it, key);
    char *dst;
    if (RB_LIKELY(name) && (dst = jt_write_plain_name(b, NULL, name, g->escape_mode, false, 0)) != NULL) {
        b->len = (size_t)(dst - b->ptr);
        write_colon(g);
        jt_buffer_reserve(b, JT_SCALAR_MAX_CHARS);
        return finish_pair(g, b, b->ptr + b->len, value);
    }
    gen_key_slow(it, key);
    write_colon(g);
    return gen_element_value(g, value);
}

/* rb_hash_foreach guards the Hash while it iterates, so that Ruby code run
 * meanwhile (a to_json) cannot reallocate its table under the walk. Ruby's
 * public API has no unguarded walk (json pays the same guard). */
JT_INLINE void gen_pairs(VALUE hash, int (*pair_i)(VALUE, VALUE, VALUE), struct hash_iter *it)
{
    rb_hash_foreach(hash, pair_i, (VALUE)it);
}

void jt_gen_hash(jt_gen *g, VALUE hash)
{
    if (RB_LIKELY(g->plain_hashes)) {
        /* An empty Hash walks no pair: "{}" all the same, without asking
         * its size (a call). */
        jt_enter_container(g);
        jt_buffer_push(g->buf, '{');
        struct hash_iter it = { .g = g, .hash = hash, .first = true };
        if (RB_UNLIKELY(!g->short_keys) && g->buf->heap && g->short_key_storage) jt_short_keys_enable(g);
        gen_pairs(hash, g->short_keys ? hash_pair_cached_i : jt_hash_pair_compact_i, &it);
        --g->depth;
        jt_buffer_push(g->buf, '}');
        RB_GC_GUARD(hash);
        return;
    }
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
    if (RB_UNLIKELY(cfg->object_nl)) write_line(g, true, depth);
    jt_buffer_push(g->buf, '}');
    RB_GC_GUARD(hash);
}

/* The String an element is written as, when it is a plain String or a
 * Symbol written as its name: 0 if not. Allocates nothing, so the GC cannot
 * run: a static Symbol met before the Ractor's name cache is set up (which
 * allocates it) is left to gen_element. */
JT_INLINE VALUE element_name(jt_gen *g, VALUE obj)
{
    if (RB_SPECIAL_CONST_P(obj)) {
        if (!RB_STATIC_SYM_P(obj) || !g->symbols_are_names || !g->symbol_names) return 0;
        return jt_symbol_name(&g->symbol_names, obj);
    }
    VALUE klass = RBASIC_CLASS(obj);
    if (klass == rb_cString) return obj;
    return klass == rb_cSymbol && g->symbols_are_names ? rb_sym2str(obj) : 0;
}

/* After a short Array of numbers, the ones that follow it (the rows of a
 * matrix, a list of coordinates) in a loop of their own, from element i;
 * returns the index of the first element it leaves to the caller. Kept
 * out of the loop below: there, the test cost every Hash element (a
 * collection of records) more than it saved. */
static long write_more_rows(jt_gen *g, VALUE ary, long i, bool floats)
{
    jt_buffer *b = g->buf;
    for (; i < RARRAY_LEN(ary); i++) {
        const VALUE obj = RARRAY_AREF(ary, i);
        if (RB_SPECIAL_CONST_P(obj) || RBASIC_CLASS(obj) != rb_cArray) break;
        jt_buffer_reserve(b, 1 + JT_TUPLE_ROOM);
        char *p = b->ptr + b->len;
        *p = ',';
        char *end = jt_write_number_tuple(g, p + 1, obj, floats);
        if (!end) break;
        b->len = (size_t)(end - b->ptr);
    }
    return i;
}

/* Runs of Integers and of short Strings or Symbols (1..32 bytes, nothing to
 * escape) are written in one loop, with the Array's elements and the
 * buffer's end in registers: the loop stops where the buffer may have to
 * grow (which may run the GC, which may move the elements) or, with an io,
 * where a chunk is pending. Every other element takes gen_element. */
static void gen_elements_compact(jt_gen *g, VALUE ary)
{
    jt_buffer *b = g->buf;
    /* ',' and the longest Integer; room: that, or ',' and a quoted 32-byte
     * name, or ',' and the longest Float (JT_DOUBLE_MAX_CHARS) */
    const long integer_room = JT_LONG_MAX_CHARS + 1;
    const size_t room = integer_room > 35 ? (size_t)integer_room : 35;
    const int mode = g->escape_mode;
    /* Flonums (most Floats) in place: json mode's Float#to_s digits,
     * unless the call's mode writes Floats (jt_mode.float_). */
    const bool floats = g->json_floats;
    const size_t array_start = b->len;
    long i = 0;
    /* The length is re-read after every element the loop leaves to
     * gen_element: a to_json may shrink or grow the Array. */
    while (i < RARRAY_LEN(ary)) {
        const VALUE *elements = JT_ARRAY_ELEMENTS(ary);
        const long n = RARRAY_LEN(ary);
        char *const start = b->ptr;
        size_t stop = b->capa >= room ? b->capa - room + 1 : 0;
        if (stop > b->flush_at) stop = b->flush_at;
        char *p = start + b->len;
        char *const limit = start + stop;
        for (; i < n && p < limit; i++) {
            VALUE obj = elements[i];
            *p = ',';
            if (RB_FIXNUM_P(obj)) {
                p = jt_write_long_at(p + (i > 0), FIX2LONG(obj));
                /* A run of Integers: nothing but the separator and the
                 * digits per element, in batches of as many as surely fit
                 * (no room test, no first-element test, no dispatch). */
                long fit;
                while (i + 1 < n && (fit = (limit - p) / integer_room) > 0) {
                    const long batch_end = n - (i + 1) < fit ? n : i + 1 + fit;
                    while (i + 1 < batch_end && RB_FIXNUM_P(obj = elements[i + 1])) {
                        *p = ',';
                        p = jt_write_long_at(p + 1, FIX2LONG(obj));
                        i++;
                    }
                    if (i + 1 < batch_end) break; /* not an Integer */
                }
                continue;
            }
            if (RB_FLONUM_P(obj) && floats) {
                const double value = RFLOAT_VALUE(obj);
                if (RB_UNLIKELY(!isfinite(value))) break; /* allow_nan, as_json, errors */
                p += i > 0;
                p += jt_write_double(value, p);
                continue;
            }
            VALUE name = element_name(g, obj);
            char *end = name ? jt_write_plain_name(NULL, p, name, mode, i > 0, 0) : NULL;
            if (!end) break;
            p = end;
        }
        b->len = (size_t)(p - start);
        if (i >= n) break;
        /* Read before pushing: growing the buffer may run the GC, which may
         * move the elements (transient heap). */
        VALUE obj = elements[i];
        if (p >= limit && i >= 16 && NIL_P(b->io)) {
            /* Out of room part-way through a long Array: room for the rest
             * at its elements' average length so far, in one step, rather
             * than the doublings that copy everything written each time. */
            const size_t average = (b->len - array_start) / (size_t)i + 1;
            const size_t rest = (size_t)(n - i);
            if (rest <= SIZE_MAX / 2 / average) jt_buffer_expect(b, rest * average + rest * average / 16 + room);
        }
        if (i > 0) jt_buffer_push(b, ',');
        /* Out of the loop above, which stays as small as its runs need. */
        if (!RB_SPECIAL_CONST_P(obj) && RBASIC_CLASS(obj) == rb_cArray && g->plain_arrays) {
            jt_buffer_reserve(b, JT_TUPLE_ROOM);
            char *end = jt_write_number_tuple(g, b->ptr + b->len, obj, floats);
            if (end) {
                b->len = (size_t)(end - b->ptr);
                i = write_more_rows(g, ary, i + 1, floats);
                continue;
            }
        }
        gen_element(g, obj);
        i++;
    }
}

void jt_gen_array(jt_gen *g, VALUE ary)
{
    if (RB_LIKELY(g->plain_arrays)) {
        jt_enter_container(g);
        jt_buffer_push(g->buf, '[');
        if (RARRAY_LEN(ary) != 0) gen_elements_compact(g, ary); /* else "[]" */
        --g->depth;
        jt_buffer_push(g->buf, ']');
        return;
    }
    const jt_config *cfg = g->cfg;
    if (RB_UNLIKELY(g->mode && g->mode->container) && !g->mode->container(g, &ary, false)) return;
    long depth = jt_enter_container(g);
    if (RARRAY_LEN(ary) == 0) {
        jt_buffer_append(g->buf, "[]", 2);
        --g->depth;
        return;
    }

    jt_buffer_push(g->buf, '[');
    /* The compact loop writes Integers itself: not where the mode does. */
    if (RB_LIKELY(!cfg->array_nl && !cfg->indent && g->json_integers)) {
        gen_elements_compact(g, ary);
    } else {
        /* The length is re-read every time: a to_json may shrink the Array. */
        for (long i = 0; i < RARRAY_LEN(ary); i++) {
            if (i > 0) jt_buffer_push(g->buf, ',');
            write_line(g, false, depth);
            gen_element(g, RARRAY_AREF(ary, i));
        }
    }
    g->depth = --depth;
    if (RB_UNLIKELY(cfg->array_nl)) write_line(g, false, depth);
    jt_buffer_push(g->buf, ']');
}

/* --- scalars ------------------------------------------------------------- */

JT_INLINE void gen_fixnum(jt_gen *g, VALUE obj)
{
    if (RB_UNLIKELY(!g->json_integers)) {
        g->mode->integer(g, obj);
        return;
    }
    jt_buffer_reserve(g->buf, JT_LONG_MAX_CHARS);
    g->buf->len += (size_t)jt_write_long(FIX2LONG(obj), g->buf->ptr + g->buf->len);
}

static void gen_bignum(jt_gen *g, VALUE obj)
{
    if (RB_UNLIKELY(!g->json_integers)) {
        g->mode->integer(g, obj);
        return;
    }
    jt_before_ruby(g); /* it allocates: the GC may run (see key_cache.h) */
    /* The json gem writes a Bignum's to_s, converted with StringValue: an
     * Integer#to_s redefined by the app is called (and what it returns must
     * be a String, or TypeError), as there. */
    VALUE digits = rb_method_basic_definition_p(rb_cInteger, jt.id_to_s) ? rb_big2str(obj, 10)
                                                                          : rb_funcall(obj, jt.id_to_s, 0);
    StringValue(digits);
    jt_buffer_append_str(g->buf, digits);
    RB_GC_GUARD(digits);
}

static void gen_float(jt_gen *g, VALUE obj)
{
    if (RB_UNLIKELY(!g->json_floats) && g->mode->float_(g, obj)) return;
    double value = RFLOAT_VALUE(obj);
    if (RB_UNLIKELY(isnan(value) || isinf(value))) {
        jt_before_ruby(g); /* Float#to_s may be redefined */
        if (!g->cfg->allow_nan) {
            if (g->cfg->strict && RTEST(g->cfg->as_json)) {
                VALUE replacement = jt_call_as_json(g, obj, Qfalse);
                if (replacement != obj) {
                    jt_enter_container(g);
                    jt_gen_value(g, replacement);
                    g->depth--;
                    return;
                }
            }
            jt_raise_generator_error(obj, "%"PRIsVALUE" not allowed in JSON", rb_funcall(obj, jt.id_to_s, 0));
        }
        jt_buffer_append_str(g->buf, rb_funcall(obj, jt.id_to_s, 0));
        return;
    }
    jt_buffer_reserve(g->buf, JT_DOUBLE_MAX_CHARS);
    g->buf->len += (size_t)jt_write_double(value, g->buf->ptr + g->buf->len);
}


VALUE jt_json_fragment_class(void)
{
    return jt_json_gem_constant(jj.id_json_fragment_class);
}

/* JSON::Fragment when the json gem is loaded: pasted like our own. */
static bool is_json_gem_fragment(VALUE klass)
{
    return jt_json_fragment_class() == klass;
}

static void gen_fragment(jt_gen *g, VALUE obj)
{
    VALUE json = rb_struct_aref(obj, INT2FIX(0));
    Check_Type(json, T_STRING);
    jt_buffer_append_str(g->buf, json);
    RB_GC_GUARD(json);
}

/* Symbols have no singleton classes, so whether a Symbol's JSON is simply its
 * name is the same for every Symbol of the call; it is settled once. */
static bool symbols_use_generic_to_json(jt_gen *g, VALUE sym)
{
    if (g->symbol_to_json == JT_SYMBOL_UNKNOWN) {
        jt_before_ruby(g);
        /* Both the json gem's to_json ("#{self}") and the to_s fallback end
         * in Symbol#to_s, which is the name itself unless redefined. */
        bool generic = rb_method_basic_definition_p(rb_cSymbol, jt.id_to_s) &&
                       (!rb_respond_to(sym, jj.id_to_json) || jt_to_json_is_generic(sym));
        g->symbol_to_json = generic ? JT_SYMBOL_GENERIC : JT_SYMBOL_CUSTOM;
    }
    return g->symbol_to_json == JT_SYMBOL_GENERIC;
}

void jt_gen_value(jt_gen *g, VALUE obj)
{
    bool as_json_called = false;
again:
    if (obj == Qnil) { jt_buffer_append(g->buf, "null", 4); return; }
    if (obj == Qfalse) { jt_buffer_append(g->buf, "false", 5); return; }
    if (obj == Qtrue) { jt_buffer_append(g->buf, "true", 4); return; }
    if (RB_FIXNUM_P(obj)) { gen_fixnum(g, obj); return; }
    if (RB_FLONUM_P(obj)) { gen_float(g, obj); return; }

    if (RB_SPECIAL_CONST_P(obj)) {
        if (RB_STATIC_SYM_P(obj)) goto symbol;
        goto general;
    }

    {
        VALUE klass = RBASIC_CLASS(obj);
        switch (RB_BUILTIN_TYPE(obj)) {
            case T_STRING:
                if (klass != rb_cString) goto general;
                if (RB_LIKELY(jt_string_is_json_ready(obj))) {
                    jt_write_ready_string(g, obj);
                    return;
                }
                if (g->mode && g->mode->string && g->mode->string(g, obj)) return;
                if (as_json_called) jt_raise_generator_error(obj, "source sequence is illegal/malformed utf-8");
                obj = jt_convert_encoding(g, obj, false, false);
                as_json_called = true;
                goto again;
            case T_HASH:
                if (klass != rb_cHash) goto general;
                jt_gen_hash(g, obj);
                return;
            case T_ARRAY:
                if (klass != rb_cArray) goto general;
                jt_gen_array(g, obj);
                return;
            case T_FLOAT:
                if (klass != rb_cFloat) goto general;
                gen_float(g, obj);
                return;
            case T_BIGNUM:
                gen_bignum(g, obj);
                return;
            case T_SYMBOL:
                goto symbol;
            case T_STRUCT:
                /* A mode that writes objects decides about Fragments too. */
                if (g->mode && g->mode->object) goto general;
                jt_before_ruby(g); /* a constant lookup may autoload */
                if (klass == jt.cFragment || is_json_gem_fragment(klass)) {
                    gen_fragment(g, obj);
                    return;
                }
                goto general;
            default:
                goto general;
        }
    }

symbol:
    if (g->cfg->strict || g->mode_symbols) {
        g->symbols_are_names = true;
        jt_gen_string(g, jt_symbol_name(&g->symbol_names, obj), as_json_called);
    } else if (symbols_use_generic_to_json(g, obj)) {
        g->symbols_are_names = true;
        jt_gen_string(g, jt_symbol_name(&g->symbol_names, obj), false);
    } else {
        jt_gen_fallback(g, obj);
    }
    return;

general:
    if (g->mode && g->mode->object && g->mode->object(g, obj, as_json_called)) return;
    if (g->cfg->strict) {
        if (RTEST(g->cfg->as_json) && !as_json_called) {
            obj = jt_call_as_json(g, obj, Qfalse);
            as_json_called = true;
            goto again;
        }
        jt_raise_generator_error(obj, "%"PRIsVALUE" not allowed in JSON", CLASS_OF(obj));
    }
    jt_gen_fallback(g, obj);
}

/* A Symbol once the call has settled that Symbols are written as their names. */
JT_INLINE void gen_symbol_name(jt_gen *g, VALUE sym)
{
    VALUE name = jt_symbol_name(&g->symbol_names, sym);
    if (RB_LIKELY(RB_ENC_CODERANGE(name) == RUBY_ENC_CODERANGE_7BIT)) {
        jt_write_ready_string(g, name);
    } else {
        jt_gen_string(g, name, false);
    }
}

/* Container elements: the commonest scalars without the full dispatcher's
 * call overhead. Out of line, so that its callers stay small; returns
 * ST_CONTINUE for the Hash walk's tail call. */
static int gen_element_value(jt_gen *g, VALUE obj)
{
    if (RB_SPECIAL_CONST_P(obj)) {
        if (RB_FIXNUM_P(obj)) {
            gen_fixnum(g, obj);
        } else if (obj == Qnil) {
            jt_buffer_append(g->buf, "null", 4);
        } else if (RB_STATIC_SYM_P(obj) && g->symbols_are_names) {
            gen_symbol_name(g, obj);
        } else {
            jt_gen_value(g, obj);
        }
        return ST_CONTINUE;
    }
    VALUE klass = RBASIC_CLASS(obj);
    if (klass == rb_cString && RB_ENC_CODERANGE(obj) == RUBY_ENC_CODERANGE_7BIT) {
        jt_write_ready_string(g, obj);
    } else if (klass == rb_cHash) {
        jt_gen_hash(g, obj);
    } else if (klass == rb_cArray) {
        jt_gen_array(g, obj);
    } else if (RB_BUILTIN_TYPE(obj) == T_SYMBOL && g->symbols_are_names) {
        gen_symbol_name(g, obj);
    } else {
        jt_gen_value(g, obj);
    }
    return ST_CONTINUE;
}

JT_INLINE void gen_element(jt_gen *g, VALUE obj)
{
    jt_buffer_safe_point(g->buf);
    gen_element_value(g, obj);
}

