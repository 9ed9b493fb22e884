/* A JSON column's text, as ActiveSupport writes the value its type decodes
 * (ActiveSupport::JSON.decode: the json gem's JSON.parse, then as_json):
 * the same members in the same order, whitespace dropped, strings decoded
 * and escaped again with ActiveSupport's escaping, integers as their digits
 * ("-0" is 0), other numbers as the Float they parse to.
 *
 * Whatever the json gem might read another way is refused before the
 * buffer keeps a byte (the caller's reader then decodes it in Ruby):
 * duplicate keys, comments, NaN and Infinity, lone surrogates, control
 * characters, numbers that overflow a double, text that is not UTF-8,
 * nesting deeper than the call may take. */

#include "rails/cast_writers.h"
#include <math.h>
#include <stdlib.h>

#define JSON_COLUMN_DEPTH_MAX 64
#define JSON_COLUMN_KEYS_MAX 256 /* keys held for the duplicate check, over all open objects */

typedef struct reader {
    jt_gen *g;
    const char *p;
    long len, i;
    int depth;
    /* The keys of the open objects, decoded: slices of the text, or of the
     * arena for keys with escapes. */
    struct { const char *p; long len; } keys[JSON_COLUMN_KEYS_MAX];
    int key_count;
    char arena[2048];
    size_t arena_used;
} reader;

static inline void skip_ws(reader *r)
{
    while (r->i < r->len) {
        char c = r->p[r->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
        r->i++;
    }
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = (char)(c | 0x20);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static bool hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_value(p[i]);
        if (d < 0) return false;
        v = (v << 4) | (unsigned)d;
    }
    *out = v;
    return true;
}

static size_t put_utf8(char *dst, unsigned cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xC0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    dst[0] = (char)(0xF0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The string at r->i (its opening quote): its end, and whether it has
 * escapes. */
static bool scan_string(reader *r, long *start, long *end, bool *escaped)
{
    long i = r->i + 1;
    *start = i;
    *escaped = false;
    while (i < r->len) {
        unsigned char c = (unsigned char)r->p[i];
        if (c == '"') {
            *end = i;
            r->i = i + 1;
            return true;
        }
        if (c < 0x20) return false;
        if (c == '\\') {
            *escaped = true;
            i += 2;
        } else {
            i++;
        }
    }
    return false;
}

/* Decodes the escapes of [start, end) into dst (at most end - start bytes:
 * every escape is at least as long as what it stands for). */
static bool unescape(const char *p, long start, long end, char *dst, size_t *out_len)
{
    size_t n = 0;
    for (long i = start; i < end;) {
        if (p[i] != '\\') {
            dst[n++] = p[i++];
            continue;
        }
        if (i + 1 >= end) return false;
        char e = p[i + 1];
        i += 2;
        switch (e) {
            case '"': dst[n++] = '"'; break;
            case '\\': dst[n++] = '\\'; break;
            case '/': dst[n++] = '/'; break;
            case 'b': dst[n++] = '\b'; break;
            case 'f': dst[n++] = '\f'; break;
            case 'n': dst[n++] = '\n'; break;
            case 'r': dst[n++] = '\r'; break;
            case 't': dst[n++] = '\t'; break;
            case 'u': {
                unsigned cp;
                if (i + 4 > end || !hex4(p + i, &cp)) return false;
                i += 4;
                if (cp >= 0xDC00 && cp <= 0xDFFF) return false; /* a lone low surrogate */
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned low;
                    if (i + 6 > end || p[i] != '\\' || p[i + 1] != 'u' || !hex4(p + i + 2, &low) || low < 0xDC00 ||
                        low > 0xDFFF) {
                        return false;
                    }
                    i += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                n += put_utf8(dst + n, cp);
                break;
            }
            default: return false;
        }
    }
    *out_len = n;
    return true;
}

/* A JSON string written with the call's escaping. */
static bool write_string(reader *r, long start, long end, bool escaped)
{
    jt_buffer *b = r->g->buf;
    if (!escaped) {
        jt_escape_string(b, r->p + start, (size_t)(end - start), r->g->escape_mode);
        return true;
    }
    char small[256];
    size_t capa = (size_t)(end - start);
    VALUE holder = 0;
    char *dst = capa <= sizeof(small) ? small : (char *)ALLOCV(holder, capa);
    size_t n;
    bool ok = unescape(r->p, start, end, dst, &n);
    if (ok) jt_escape_string(b, dst, n, r->g->escape_mode);
    if (holder) ALLOCV_END(holder);
    return ok;
}

/* -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
static bool write_number(reader *r)
{
    const char *p = r->p;
    long start = r->i, i = r->i;
    if (i < r->len && p[i] == '-') i++;
    if (i >= r->len) return false;
    if (p[i] == '0') {
        i++;
    } else if (p[i] >= '1' && p[i] <= '9') {
        while (i < r->len && p[i] >= '0' && p[i] <= '9') i++;
    } else {
        return false;
    }
    bool is_float = false;
    if (i < r->len && p[i] == '.') {
        is_float = true;
        long digits_start = ++i;
        while (i < r->len && p[i] >= '0' && p[i] <= '9') i++;
        if (i == digits_start) return false;
    }
    if (i < r->len && (p[i] == 'e' || p[i] == 'E')) {
        is_float = true;
        i++;
        if (i < r->len && (p[i] == '+' || p[i] == '-')) i++;
        long digits_start = i;
        while (i < r->len && p[i] >= '0' && p[i] <= '9') i++;
        if (i == digits_start) return false;
    }
    r->i = i;
    jt_buffer *b = r->g->buf;
    if (!is_float) {
        if (i - start == 2 && p[start] == '-' && p[start + 1] == '0') {
            jt_buffer_push(b, '0');
        } else {
            jt_buffer_append(b, p + start, (size_t)(i - start));
        }
        return true;
    }
    char text[64];
    long n = i - start;
    double d;
    if (n < (long)sizeof(text)) {
        memcpy(text, p + start, (size_t)n);
        text[n] = '\0';
        d = strtod(text, NULL);
    } else {
        VALUE holder = 0;
        char *copy = (char *)ALLOCV(holder, (size_t)n + 1);
        memcpy(copy, p + start, (size_t)n);
        copy[n] = '\0';
        d = strtod(copy, NULL);
        ALLOCV_END(holder);
    }
    if (!isfinite(d)) return false;
    jt_buffer_reserve(b, JT_DOUBLE_MAX_CHARS);
    b->len += (size_t)jt_write_double(d, b->ptr + b->len, jj.float_rules);
    return true;
}

static bool write_value(reader *r);

static bool literal(reader *r, const char *word, size_t n)
{
    if (r->len - r->i < (long)n || memcmp(r->p + r->i, word, n) != 0) return false;
    r->i += (long)n;
    jt_buffer_append(r->g->buf, word, n);
    return true;
}

static bool enter(reader *r)
{
    long max = r->g->cfg->max_nesting;
    r->depth++;
    return r->depth <= JSON_COLUMN_DEPTH_MAX && (!max || r->g->depth + r->depth <= max);
}

/* A container's opening: entered (within the nesting the call may take),
 * its bracket written, and whether it closes at once (*empty, past the
 * close). */
JT_INLINE bool open_container(reader *r, char open, char close, bool *empty)
{
    if (!enter(r)) return false;
    r->i++;
    jt_buffer_push(r->g->buf, open);
    skip_ws(r);
    *empty = r->i < r->len && r->p[r->i] == close;
    if (*empty) r->i++;
    return true;
}

/* What follows a member or an element: the container's close (*done) or a
 * comma, past either; false for anything else. */
JT_INLINE bool after_member(reader *r, char close, bool *done)
{
    skip_ws(r);
    if (r->i >= r->len) return false;
    char c = r->p[r->i++];
    *done = c == close;
    return *done || c == ',';
}

static bool write_object(reader *r)
{
    jt_buffer *b = r->g->buf;
    int keys_base = r->key_count;
    size_t arena_base = r->arena_used;
    bool empty;
    if (!open_container(r, '{', '}', &empty)) return false;
    if (!empty) {
        for (bool first = true;; first = false) {
            skip_ws(r);
            if (r->i >= r->len || r->p[r->i] != '"') return false;
            long start, end;
            bool escaped;
            if (!scan_string(r, &start, &end, &escaped)) return false;
            /* A duplicate key keeps its first position and its last value in
             * the Hash: such objects are left to Ruby. Keys are compared
             * decoded. */
            const char *key = r->p + start;
            size_t key_len = (size_t)(end - start);
            if (escaped) {
                if (key_len > sizeof(r->arena) - r->arena_used) return false;
                char *decoded = r->arena + r->arena_used;
                if (!unescape(r->p, start, end, decoded, &key_len)) return false;
                r->arena_used += key_len;
                key = decoded;
            }
            for (int k = keys_base; k < r->key_count; k++) {
                if ((size_t)r->keys[k].len == key_len && memcmp(r->keys[k].p, key, key_len) == 0) return false;
            }
            if (r->key_count == JSON_COLUMN_KEYS_MAX) return false;
            r->keys[r->key_count].p = key;
            r->keys[r->key_count].len = (long)key_len;
            r->key_count++;
            if (!first) jt_buffer_push(b, ',');
            if (!write_string(r, start, end, escaped)) return false;
            skip_ws(r);
            if (r->i >= r->len || r->p[r->i] != ':') return false;
            r->i++;
            jt_buffer_push(b, ':');
            if (!write_value(r)) return false;
            bool done;
            if (!after_member(r, '}', &done)) return false;
            if (done) break;
        }
    }
    jt_buffer_push(b, '}');
    r->key_count = keys_base;
    r->arena_used = arena_base;
    r->depth--;
    return true;
}

static bool write_array(reader *r)
{
    jt_buffer *b = r->g->buf;
    bool empty;
    if (!open_container(r, '[', ']', &empty)) return false;
    if (!empty) {
        for (bool first = true;; first = false) {
            if (!first) jt_buffer_push(b, ',');
            if (!write_value(r)) return false;
            bool done;
            if (!after_member(r, ']', &done)) return false;
            if (done) break;
        }
    }
    jt_buffer_push(b, ']');
    r->depth--;
    return true;
}

static bool write_value(reader *r)
{
    skip_ws(r);
    if (r->i >= r->len) return false;
    switch (r->p[r->i]) {
        case '{': return write_object(r);
        case '[': return write_array(r);
        case '"': {
            long start, end;
            bool escaped;
            return scan_string(r, &start, &end, &escaped) && write_string(r, start, end, escaped);
        }
        case 't': return literal(r, "true", 4);
        case 'f': return literal(r, "false", 5);
        case 'n': return literal(r, "null", 4);
        default: return write_number(r);
    }
}

/* Hash, Array and Float values encode as ActiveSupport's as_json does. */
static bool containers_stock(jt_gen *g)
{
    if (RB_UNLIKELY(jt_rails_call_of(g)->hash_stock < 0 || jt_rails_call_of(g)->array_stock < 0 || jt_rails_call_of(g)->float_stock < 0)) {
        jt_before_ruby(g);
        if (jt_rails_call_of(g)->hash_stock < 0) jt_rails_call_of(g)->hash_stock = jt_rails_stock(rb_cHash, JT_RAILS_HASH, jt_rails_of(g));
        if (jt_rails_call_of(g)->array_stock < 0) jt_rails_call_of(g)->array_stock = jt_rails_stock(rb_cArray, JT_RAILS_ARRAY, jt_rails_of(g));
        if (jt_rails_call_of(g)->float_stock < 0) jt_rails_call_of(g)->float_stock = jt_rails_stock(rb_cFloat, JT_RAILS_FLOAT, jt_rails_of(g));
    }
    return jt_rails_call_of(g)->hash_stock && jt_rails_call_of(g)->array_stock && jt_rails_call_of(g)->float_stock;
}

bool jt_json_column_write(jt_gen *g, VALUE text)
{
    int enc = ENCODING_GET(text);
    if (enc != jt.utf8_encindex && enc != jt.usascii_encindex) return false;
    int cr = rb_enc_str_coderange(text);
    if (cr != ENC_CODERANGE_7BIT && cr != ENC_CODERANGE_VALID) return false;
    if (!containers_stock(g)) return false;
    /* The reader is large (its key slices); one per call would do, but a
     * JSON column is rare enough that the stack is the simplest owner. */
    reader r = {.g = g, .p = RSTRING_PTR(text), .len = RSTRING_LEN(text), .i = 0, .depth = 0, .key_count = 0,
                .arena_used = 0};
    size_t mark = g->buf->len;
    bool ok = write_value(&r);
    if (ok) {
        skip_ws(&r);
        ok = r.i == r.len;
    }
    if (!ok) g->buf->len = mark;
    RB_GC_GUARD(text);
    return ok;
}
