/* Raw JSON fragments: checking them, walking their top-level members, and
 * decoding the few parts (keys, scalar members) the builder needs as Ruby
 * values. See raw_json.h. */

#include "json/raw_json.h"
#include <stdlib.h>

static inline bool is_ws(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline long skip_ws(const uint8_t *p, long i, long len)
{
    while (i < len && is_ws(p[i])) i++;
    return i;
}

static inline bool is_hex(uint8_t c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* End of the string starting at p[i] == '"' (one past its closing quote), or
 * -1. Control characters must be escaped; the escapes are JSON's. UTF-8
 * validity is the String's coderange, checked once by the caller. */
static long scan_string(const uint8_t *p, long i, long len)
{
    i++;
    while (i < len) {
        uint8_t c = p[i];
        if (c == '"') return i + 1;
        if (c < 0x20) return -1;
        if (c != '\\') {
            i++;
            continue;
        }
        if (i + 1 >= len) return -1;
        switch (p[i + 1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            i += 2;
            break;
        case 'u':
            if (i + 5 >= len || !is_hex(p[i + 2]) || !is_hex(p[i + 3]) || !is_hex(p[i + 4]) || !is_hex(p[i + 5])) {
                return -1;
            }
            i += 6;
            break;
        default:
            return -1;
        }
    }
    return -1;
}

static long scan_digits(const uint8_t *p, long i, long len)
{
    long start = i;
    while (i < len && p[i] >= '0' && p[i] <= '9') i++;
    return i > start ? i : -1;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static long scan_number(const uint8_t *p, long i, long len)
{
    if (i < len && p[i] == '-') i++;
    if (i >= len) return -1;
    if (p[i] == '0') {
        i++;
    } else if ((i = scan_digits(p, i, len)) < 0) {
        return -1;
    }
    if (i < len && p[i] == '.' && (i = scan_digits(p, i + 1, len)) < 0) return -1;
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < len && (p[i] == '+' || p[i] == '-')) i++;
        if ((i = scan_digits(p, i, len)) < 0) return -1;
    }
    return i;
}

static long scan_literal(const uint8_t *p, long i, long len, const char *word, long n)
{
    return len - i >= n && memcmp(p + i, word, (size_t)n) == 0 ? i + n : -1;
}

/* End of the scalar at p[i], or -1. */
static long scan_scalar(const uint8_t *p, long i, long len)
{
    switch (p[i]) {
    case '"': return scan_string(p, i, len);
    case 't': return scan_literal(p, i, len, "true", 4);
    case 'f': return scan_literal(p, i, len, "false", 5);
    case 'n': return scan_literal(p, i, len, "null", 4);
    default: return (p[i] == '-' || (p[i] >= '0' && p[i] <= '9')) ? scan_number(p, i, len) : -1;
    }
}

/* Whether p[0, len) is one JSON value. The open containers are a stack of
 * bits (1: object), grown with malloc for deep documents; no Ruby call is
 * made, so nothing can jump out while it is allocated. */
static bool valid_value(const uint8_t *p, long len)
{
    uint64_t inline_stack[8];
    uint64_t *stack = inline_stack;
    long capa = (long)(sizeof(inline_stack) * 8), depth = 0, i = 0;
    bool ok = false;

#define TOP_IS_OBJECT() ((stack[(depth - 1) >> 6] >> ((depth - 1) & 63)) & 1)
    for (;;) {
        /* a value is expected at p[i] */
        i = skip_ws(p, i, len);
        if (i >= len) goto done;
        if (p[i] == '{' || p[i] == '[') {
            bool object = p[i] == '{';
            if (depth == capa) {
                long words = capa / 32; /* twice the bits */
                uint64_t *grown = malloc((size_t)words * sizeof(uint64_t));
                if (!grown) goto done;
                memcpy(grown, stack, (size_t)(capa / 64) * sizeof(uint64_t));
                if (stack != inline_stack) free(stack);
                stack = grown;
                capa = words * 64;
            }
            uint64_t bit = (uint64_t)1 << (depth & 63);
            stack[depth >> 6] = object ? stack[depth >> 6] | bit : stack[depth >> 6] & ~bit;
            depth++;
            i = skip_ws(p, i + 1, len);
            if (i >= len) goto done;
            if (p[i] == (object ? '}' : ']')) {
                depth--;
                i++;
            } else if (object) {
                if (p[i] != '"' || (i = scan_string(p, i, len)) < 0) goto done;
                i = skip_ws(p, i, len);
                if (i >= len || p[i] != ':') goto done;
                i++;
                continue;
            } else {
                continue;
            }
        } else if ((i = scan_scalar(p, i, len)) < 0) {
            goto done;
        }
        /* after a value: close containers, or go on to the next member */
        for (;;) {
            i = skip_ws(p, i, len);
            if (depth == 0) {
                ok = i == len;
                goto done;
            }
            if (i >= len) goto done;
            bool object = TOP_IS_OBJECT();
            if (p[i] == (object ? '}' : ']')) {
                depth--;
                i++;
                continue;
            }
            if (p[i] != ',') goto done;
            i = skip_ws(p, i + 1, len);
            if (object) {
                if (i >= len || p[i] != '"' || (i = scan_string(p, i, len)) < 0) goto done;
                i = skip_ws(p, i, len);
                if (i >= len || p[i] != ':') goto done;
                i++;
            }
            break;
        }
    }
#undef TOP_IS_OBJECT
done:
    if (stack != inline_stack) free(stack);
    return ok;
}

bool jt_raw_json_fragment_p(VALUE str)
{
    if (!RB_TYPE_P(str, T_STRING)) return false;
    int enc = ENCODING_GET(str);
    if (enc != jt.utf8_encindex && enc != jt.usascii_encindex) return false;
    if (rb_enc_str_coderange(str) == ENC_CODERANGE_BROKEN) return false;
    const uint8_t *p = (const uint8_t *)RSTRING_PTR(str);
    long len = RSTRING_LEN(str);
    if (len < 2 || (p[0] != '{' && p[0] != '[') || (p[len - 1] != '}' && p[len - 1] != ']')) return false;
    bool ok = valid_value(p, len);
    RB_GC_GUARD(str);
    return ok;
}

bool jt_raw_json_empty_p(const char *p, long len)
{
    return skip_ws((const uint8_t *)p, 1, len) == len - 1;
}

/* End of the (valid) value at p[i]. */
static long skip_value(const uint8_t *p, long i, long len)
{
    if (p[i] != '{' && p[i] != '[') return scan_scalar(p, i, len);
    long depth = 0;
    while (i < len) {
        uint8_t c = p[i];
        if (c == '"') {
            i = scan_string(p, i, len);
            if (i < 0) return -1;
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
        i++;
    }
    return -1;
}

void jt_raw_iter_init(jt_raw_iter *it, const char *p, long len)
{
    it->object = p[0] == '{';
    it->len = len;
    it->pos = skip_ws((const uint8_t *)p, 1, len);
    if (it->pos < len && (p[it->pos] == '}' || p[it->pos] == ']')) it->pos = len; /* empty */
}

bool jt_raw_iter_next(jt_raw_iter *it, const char *s, long *key_off, long *key_len, long *val_off, long *val_len)
{
    const uint8_t *p = (const uint8_t *)s;
    long i = it->pos, len = it->len;
    if (i >= len) return false;
    *key_len = -1;
    if (it->object) {
        long end = scan_string(p, i, len);
        if (end < 0) rb_raise(rb_eArgError, "Jetson: malformed JSON fragment");
        *key_off = i + 1;
        *key_len = end - i - 2;
        i = skip_ws(p, end, len);
        if (i >= len || p[i] != ':') rb_raise(rb_eArgError, "Jetson: malformed JSON fragment");
        i = skip_ws(p, i + 1, len);
    }
    long end = i < len ? skip_value(p, i, len) : -1;
    if (end < 0) rb_raise(rb_eArgError, "Jetson: malformed JSON fragment");
    *val_off = i;
    *val_len = end - i;
    i = skip_ws(p, end, len);
    if (i < len && p[i] == ',') {
        it->pos = skip_ws(p, i + 1, len);
    } else {
        it->pos = len;
    }
    return true;
}

static int hex_value(uint8_t c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static unsigned read_u16(const uint8_t *p)
{
    return (unsigned)(hex_value(p[0]) << 12 | hex_value(p[1]) << 8 | hex_value(p[2]) << 4 | hex_value(p[3]));
}

static long put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

VALUE jt_raw_json_string(const char *s, long len)
{
    const uint8_t *p = (const uint8_t *)s;
    if (!memchr(p, '\\', (size_t)len)) return rb_utf8_str_new(s, len);
    /* Every escape is at least as long as what it decodes to. */
    VALUE out = rb_str_buf_new(len);
    char *o = RSTRING_PTR(out);
    long n = 0;
    for (long i = 0; i < len;) {
        if (p[i] != '\\' || i + 1 >= len) {
            o[n++] = (char)p[i++];
            continue;
        }
        uint8_t e = p[i + 1];
        i += 2;
        switch (e) {
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case 'u': {
            if (i + 4 > len) break;
            unsigned cp = read_u16(p + i);
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= len && p[i] == '\\' && p[i + 1] == 'u') {
                unsigned low = read_u16(p + i + 2);
                if (low >= 0xDC00 && low < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    i += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* a lone surrogate */
            n += put_utf8(o + n, cp);
            break;
        }
        default: o[n++] = (char)e; break; /* " \ / */
        }
    }
    rb_str_set_len(out, n);
    rb_enc_associate_index(out, jt.utf8_encindex);
    return out;
}

VALUE jt_raw_json_scalar(const char *p, long len)
{
    switch (p[0]) {
    case '"': return jt_raw_json_string(p + 1, len - 2);
    case 't': return Qtrue;
    case 'f': return Qfalse;
    case 'n': return Qnil;
    default: break;
    }
    bool integer = !memchr(p, '.', (size_t)len) && !memchr(p, 'e', (size_t)len) && !memchr(p, 'E', (size_t)len);
    VALUE tmp;
    char *buf = ALLOCV_N(char, tmp, len + 1); /* freed by the GC if a conversion raises */
    memcpy(buf, p, (size_t)len);
    buf[len] = '\0';
    VALUE v = integer ? rb_cstr2inum(buf, 10) : DBL2NUM(rb_cstr_to_dbl(buf, 0));
    ALLOCV_END(tmp);
    return v;
}
