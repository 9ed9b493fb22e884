#ifndef JETSON_BUFFER_H
#define JETSON_BUFFER_H

#include "jetson.h"

/* Output buffer. Small documents live entirely in caller-provided stack
 * memory and cost one String allocation at the end. Larger ones spill into a
 * hidden Ruby String that becomes the result itself (no final copy), and
 * which the GC reclaims if generation raises half-way (no rb_ensure needed).
 * With an io, full chunks are written out so memory stays bounded. */
typedef struct jt_buffer {
    char *ptr;
    size_t len;
    size_t capa;
    VALUE heap;          /* backing String once spilled, else 0 */
    VALUE io;            /* Qnil unless streaming */
    size_t spill_capa;   /* first heap size (buffer_initial_length) */
} jt_buffer;

#define JT_STACK_BUFFER_SIZE 2048
#define JT_IO_CHUNK_SIZE 16384
#define JT_COPY_OUT_SIZE (1024 * 1024) /* see jt_buffer_finish */

JT_INLINE void jt_buffer_init(jt_buffer *b, char *stack, size_t stack_capa, VALUE io, long initial_length)
{
    b->ptr = stack;
    b->len = 0;
    b->capa = stack_capa;
    b->heap = 0;
    b->io = NIL_P(io) ? Qnil : io;
    b->spill_capa = initial_length > 0 ? (size_t)initial_length : 1024;
}

void jt_buffer_grow(jt_buffer *b, size_t need);
void jt_buffer_append_large(jt_buffer *b, const char *src, size_t n);
VALUE jt_buffer_finish(jt_buffer *b);

JT_INLINE void jt_buffer_reserve(jt_buffer *b, size_t n)
{
    if (RB_UNLIKELY(b->capa - b->len < n)) jt_buffer_grow(b, n);
}

JT_INLINE void jt_buffer_push(jt_buffer *b, char c)
{
    jt_buffer_reserve(b, 1);
    b->ptr[b->len++] = c;
}

/* Caller has reserved room. */
JT_INLINE void jt_buffer_push_unsafe(jt_buffer *b, char c)
{
    b->ptr[b->len++] = c;
}

JT_INLINE void jt_buffer_append(jt_buffer *b, const char *src, size_t n)
{
    if (RB_UNLIKELY(n > JT_IO_CHUNK_SIZE && b->io != Qnil)) {
        jt_buffer_append_large(b, src, n);
        return;
    }
    jt_buffer_reserve(b, n);
    memcpy(b->ptr + b->len, src, n);
    b->len += n;
}

/* Appends a Ruby String's bytes. The pointer is read after reserving:
 * growing our buffer may run the GC, and compaction may move a short
 * (embedded) String's bytes along with the String. */
JT_INLINE void jt_buffer_append_str(jt_buffer *b, VALUE str)
{
    size_t n = (size_t)RSTRING_LEN(str);
    if (RB_UNLIKELY(n > JT_IO_CHUNK_SIZE && b->io != Qnil)) {
        /* not embedded at that size: its bytes do not move with the object */
        jt_buffer_append_large(b, RSTRING_PTR(str), n);
        return;
    }
    jt_buffer_reserve(b, n);
    memcpy(b->ptr + b->len, RSTRING_PTR(str), n);
    b->len += n;
}

#endif
