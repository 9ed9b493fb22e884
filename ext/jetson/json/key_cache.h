#ifndef JETSON_JSON_KEY_CACHE_H
#define JETSON_JSON_KEY_CACHE_H

/* Hash keys repeat: a collection of records writes the same few keys again
 * and again. Within one call, a key object written once is written again
 * from what was kept of it, without its type, encoding and escaping checks:
 *
 * - short keys (JT_SHORT_KEY_MAX bytes or less: nearly all of them) keep
 *   their quoted form and the colon in the entry itself, copied out in one
 *   fixed-size copy (jt_short_key_*);
 * - longer ones are copied from where their escaped form already sits in
 *   the output (jt_long_key_*).
 *
 * An entry stands for its key object while that object cannot have changed
 * or been replaced at the same address: no Ruby code has run (which could
 * change the document; Hash String keys are frozen, Symbols immutable) and
 * the GC has not run (compaction may move a key and let another take its
 * place). jt_before_ruby moves the epoch on before any Ruby code; the GC can
 * only run where the walk allocates, which is where the buffer moves
 * (buffer.moves), where the Ractor's Symbol-name cache is set up, and in
 * places that call jt_before_ruby anyway (Bignums). The stamp sums all three,
 * each of which only grows. Only in json mode, without an io (streaming
 * moves bytes out; Rails mode allocates in more places), and only once the
 * document has outgrown the stack buffer: small documents are over before a
 * cache would pay for itself. */

#include "json/json_walk.h"

#define JT_SHORT_KEYS 128 /* a power of two */
/* A key up to this many bytes: its quoted form and the colon fill at most
 * JT_SHORT_KEY_BYTES, copied whole. */
#define JT_SHORT_KEY_MAX 29
#define JT_SHORT_KEY_BYTES 32

struct jt_short_key {
    VALUE key;
    uint32_t stamp;
    unsigned char length; /* of bytes used: '"', the name, '"', ':' */
    unsigned char type;   /* T_STRING or T_SYMBOL: the Hash's first key type when stored */
    char bytes[JT_SHORT_KEY_BYTES];
};

JT_INLINE uint32_t jt_key_stamp(const jt_gen *g)
{
    return g->key_epoch + g->buf->moves + (g->symbol_names != NULL);
}

JT_INLINE size_t jt_key_hash(VALUE key, size_t entries)
{
    /* Fibonacci hashing: the top bits of the address times 2^64 / phi.
     * Keys sit at strides of Ruby's slot sizes (40, 80, 160 bytes...),
     * which the bits of the address alone spread badly: on twitter.json,
     * a quarter of the short-key lookups missed with (h >> 3) ^ (h >> 10),
     * keys of the same objects evicting each other. */
    const uint64_t h = (uint64_t)key * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> (64 - __builtin_ctzll(entries)));
}

/* Sets the short-key cache up once the document has outgrown the stack
 * buffer (see above); forgets about it where it never applies. */
JT_NOINLINE void jt_short_keys_enable(jt_gen *g);

/* Short keys are kept in sets of two, a key in either entry of its set
 * (a new key goes first, the set's first moves second): a document's keys
 * (twitter.json has 94) fill a direct-mapped table's slots unevenly, and
 * two keys of the same object that shared one slot evicted each other at
 * every pair. */
#define JT_SHORT_KEY_WAYS 2

JT_INLINE struct jt_short_key *jt_short_key_set(const jt_gen *g, VALUE key)
{
    return &g->short_keys[jt_key_hash(key, JT_SHORT_KEYS / JT_SHORT_KEY_WAYS) * JT_SHORT_KEY_WAYS];
}

/* The entry for key if it holds key's bytes now, else NULL. */
JT_INLINE const struct jt_short_key *jt_short_key_find(const jt_gen *g, VALUE key)
{
    const struct jt_short_key *set = jt_short_key_set(g, key);
    const uint32_t stamp = jt_key_stamp(g);
    if (set[0].key == key && set[0].stamp == stamp) return &set[0];
    if (set[1].key == key && set[1].stamp == stamp) return &set[1];
    return NULL;
}

/* Keeps `"name":`, just written at quoted (length bytes), for key. The
 * copy is whole: the pair's reservation leaves room past the key for a
 * scalar, so JT_SHORT_KEY_BYTES from quoted are in the buffer. */
JT_INLINE void jt_short_key_store(jt_gen *g, VALUE key, int type, const char *quoted, size_t length)
{
    struct jt_short_key *set = jt_short_key_set(g, key);
    set[1] = set[0];
    set[0].key = key;
    set[0].stamp = jt_key_stamp(g);
    set[0].length = (unsigned char)length;
    set[0].type = (unsigned char)type;
    memcpy(set[0].bytes, quoted, JT_SHORT_KEY_BYTES);
}

/* --- longer keys: their bytes in the output ------------------------------- */

JT_INLINE struct jt_key_entry *jt_long_key_slot(jt_gen *g, VALUE key)
{
    return &g->key_cache[jt_key_hash(key, JT_KEY_CACHE)];
}

/* Writes the cached bytes for key and returns true, or returns false. */
JT_INLINE bool jt_long_key_write(jt_gen *g, VALUE key)
{
    if (RB_UNLIKELY(!g->key_cache)) {
        if (!g->buf->heap || g->buf->io != Qnil) return false;
        memset(g->key_cache_storage, 0, JT_KEY_CACHE * sizeof(*g->key_cache_storage));
        g->key_cache = g->key_cache_storage;
    }
    struct jt_key_entry *e = jt_long_key_slot(g, key);
    if (e->key != key || e->epoch != jt_key_stamp(g)) return false;
    jt_buffer *b = g->buf;
    jt_buffer_reserve(b, e->length);
    /* Growing moves the bytes with the rest of the output: the offset holds. */
    memcpy(b->ptr + b->len, b->ptr + e->offset, e->length);
    b->len += e->length;
    return true;
}

JT_INLINE void jt_long_key_store(jt_gen *g, VALUE key, size_t start)
{
    if (!g->key_cache || g->buf->len > UINT32_MAX) return;
    struct jt_key_entry *e = jt_long_key_slot(g, key);
    e->key = key;
    e->offset = (uint32_t)start;
    e->length = (uint32_t)(g->buf->len - start);
    e->epoch = jt_key_stamp(g);
}

#endif
