#ifndef JETSON_JSON_LAYOUT_H
#define JETSON_JSON_LAYOUT_H

/* Pretty output's fixed pieces, built once per call on its C stack
 * (layout.c): a line break followed by the indent of each depth up to a
 * limit, for objects and for arrays, and what goes between a key and its
 * value (space_before, ':', space). Each is then written as one short
 * inline copy: as two or three appends of the configuration's Strings,
 * every pair of a pretty document paid a libc memcpy call per piece.
 *
 * Each piece remembers the Strings it was built from, and is used only
 * while the configuration still holds those (a to_json may set a State's
 * options in the middle of a call): otherwise the caller writes the
 * Strings themselves. */

#include "json/state.h"
#include "bytes/buffer.h"

/* The deepest indent prebuilt (indent bytes), and the padding that lets a
 * copy move whole 16-byte blocks. */
#define JT_LAYOUT_INDENTS 256
#define JT_LAYOUT_PAD 16
#define JT_LAYOUT_NL_MAX 16
#define JT_LAYOUT_COLON_MAX 16

typedef struct jt_layout_line {
    VALUE nl, indent; /* what it was built from; nl 0: not built */
    size_t nl_len, indent_len;
    long depth; /* the deepest indent it holds */
    char bytes[JT_LAYOUT_NL_MAX + JT_LAYOUT_INDENTS + JT_LAYOUT_PAD];
} jt_layout_line;

typedef struct jt_layout {
    jt_layout_line object, array;
    VALUE space_before, space; /* what colon was built from */
    size_t colon_len;          /* 0: not built */
    char colon[JT_LAYOUT_COLON_MAX + JT_LAYOUT_PAD];
} jt_layout;

/* Builds what cfg's options allow; pieces whose Strings are too long stay
 * unbuilt. */
void jt_layout_prepare(jt_layout *layout, const jt_config *cfg);

/* n bytes from src (readable up to the next 16-byte block) to dst (room
 * for n + JT_LAYOUT_PAD). */
JT_INLINE void jt_layout_copy(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += JT_LAYOUT_PAD) memcpy(dst + i, src + i, JT_LAYOUT_PAD);
}

/* The line break nl and the indent for depth, if line holds them for this
 * configuration; false if the caller must write them itself. */
JT_INLINE bool jt_layout_write_line(jt_buffer *b, const jt_layout_line *line, VALUE nl, VALUE indent, long depth)
{
    if (!line->nl || line->nl != nl || line->indent != indent || depth < 0 || depth > line->depth) return false;
    const size_t n = line->nl_len + (size_t)depth * line->indent_len;
    jt_buffer_reserve(b, n + JT_LAYOUT_PAD);
    jt_layout_copy(b->ptr + b->len, line->bytes, n);
    b->len += n;
    return true;
}

/* space_before, ':' and space, if built for this configuration. */
JT_INLINE bool jt_layout_write_colon(jt_buffer *b, const jt_layout *layout, const jt_config *cfg)
{
    if (!layout->colon_len || layout->space != cfg->space || layout->space_before != cfg->space_before) return false;
    jt_buffer_reserve(b, JT_LAYOUT_COLON_MAX + JT_LAYOUT_PAD);
    jt_layout_copy(b->ptr + b->len, layout->colon, layout->colon_len);
    b->len += layout->colon_len;
    return true;
}

#endif
