#ifndef JETSON_JSON_LAYOUT_H
#define JETSON_JSON_LAYOUT_H

/* Pretty output's fixed pieces, built once per call on its C stack
 * (layout.c): a line break followed by the indent of each depth up to a
 * limit, for objects and for arrays, and what goes between a key and its
 * value (space_before, ':', space). Each is then written as one short
 * inline copy: as two or three appends of the configuration's Strings,
 * every pair of a pretty document paid a libc memcpy call per piece.
 *
 * The pieces are a snapshot of the options when the call starts. The
 * State a to_json is handed is not the call's (fallback.c), so options it
 * sets do not reach the rest of the call, as they did not before the
 * pieces were prebuilt (the json gem's walk does follow them). A piece too
 * long to prebuild is written from the options' Strings. */

#include "json/state.h"
#include "bytes/buffer.h"

/* The deepest indent prebuilt (indent bytes), and the padding that lets a
 * copy move whole 16-byte blocks. */
#define JT_LAYOUT_INDENTS 256
#define JT_LAYOUT_PAD 16
#define JT_LAYOUT_NL_MAX 16
#define JT_LAYOUT_COLON_MAX 16

typedef struct jt_layout_line {
    bool built;
    size_t nl_len, indent_len;
    long depth; /* the deepest indent it holds */
    char bytes[JT_LAYOUT_NL_MAX + JT_LAYOUT_INDENTS + JT_LAYOUT_PAD];
} jt_layout_line;

typedef struct jt_layout {
    jt_layout_line object, array;
    size_t colon_len; /* 0: not built */
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

/* The line break and the indent for depth, if line holds them; false if
 * the caller must write them itself. */
JT_INLINE bool jt_layout_write_line(jt_buffer *b, const jt_layout_line *line, long depth)
{
    if (!line->built || (unsigned long)depth > (unsigned long)line->depth) return false;
    const size_t n = line->nl_len + (size_t)depth * line->indent_len;
    jt_buffer_reserve(b, n + JT_LAYOUT_PAD);
    jt_layout_copy(b->ptr + b->len, line->bytes, n);
    b->len += n;
    return true;
}

/* space_before, ':' and space, if built. */
JT_INLINE bool jt_layout_write_colon(jt_buffer *b, const jt_layout *layout)
{
    if (!layout->colon_len) return false;
    jt_buffer_reserve(b, JT_LAYOUT_COLON_MAX + JT_LAYOUT_PAD);
    jt_layout_copy(b->ptr + b->len, layout->colon, layout->colon_len);
    b->len += layout->colon_len;
    return true;
}

/* What is written where no piece was built: an option's String (a line
 * break, a space), when set, and the indent depth times (NoMemError past
 * what a buffer can hold). The generator's walk and the Writer use both. */
JT_INLINE void jt_layout_write_str(jt_buffer *b, VALUE str)
{
    if (RB_UNLIKELY(str)) jt_buffer_append_str(b, str);
}

void jt_layout_write_indent(jt_buffer *b, VALUE indent, long depth);

#endif
