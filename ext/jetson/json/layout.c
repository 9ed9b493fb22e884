/* Pretty output's prebuilt pieces (layout.h). */

#include "json/layout.h"

static size_t string_length(VALUE str)
{
    return str ? (size_t)RSTRING_LEN(str) : 0;
}

static void append(char *dst, size_t *len, VALUE str)
{
    const size_t n = string_length(str);
    if (n) memcpy(dst + *len, RSTRING_PTR(str), n);
    *len += n;
}

/* nl, then the indent as many times as fit. Without an indent the line is
 * nl alone at every depth. */
static void prepare_line(jt_layout_line *line, VALUE nl, VALUE indent)
{
    line->built = false;
    const size_t nl_len = string_length(nl), indent_len = string_length(indent);
    if (nl_len == 0 || nl_len > JT_LAYOUT_NL_MAX) return;
    size_t len = 0;
    append(line->bytes, &len, nl);
    long depth = 0;
    if (indent_len == 0) {
        depth = LONG_MAX;
    } else {
        while ((size_t)(depth + 1) * indent_len <= JT_LAYOUT_INDENTS) {
            append(line->bytes, &len, indent);
            depth++;
        }
    }
    memset(line->bytes + len, 0, sizeof(line->bytes) - len);
    line->built = true;
    line->nl_len = nl_len;
    line->indent_len = indent_len;
    line->depth = depth;
}

void jt_layout_prepare(jt_layout *layout, const jt_config *cfg)
{
    prepare_line(&layout->object, cfg->object_nl, cfg->indent);
    prepare_line(&layout->array, cfg->array_nl, cfg->indent);
    layout->colon_len = 0;
    if (string_length(cfg->space_before) + 1 + string_length(cfg->space) <= JT_LAYOUT_COLON_MAX) {
        size_t len = 0;
        append(layout->colon, &len, cfg->space_before);
        layout->colon[len++] = ':';
        append(layout->colon, &len, cfg->space);
        memset(layout->colon + len, 0, sizeof(layout->colon) - len);
        layout->colon_len = len;
    }
}

void jt_layout_write_indent(jt_buffer *b, VALUE indent, long depth)
{
    if (!indent || depth <= 0) return;
    const size_t n = (size_t)RSTRING_LEN(indent);
    if (n == 0) return;
    if ((size_t)depth > ((size_t)LONG_MAX - JT_IO_CHUNK_SIZE) / n) rb_raise(rb_eNoMemError, "JSON document too large");
    jt_buffer_reserve(b, n * (size_t)depth);
    /* Read after growing: growth may run the GC, which may move an embedded String. */
    const char *p = RSTRING_PTR(indent);
    char *dst = b->ptr + b->len;
    for (long i = 0; i < depth; i++, dst += n) memcpy(dst, p, n);
    b->len += n * (size_t)depth;
    RB_GC_GUARD(indent);
}
