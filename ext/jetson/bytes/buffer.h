#ifndef JETSON_BYTES_BUFFER_H
#define JETSON_BYTES_BUFFER_H

/* Output buffer. Small documents live entirely in caller-provided stack
 * memory and cost one String allocation at the end; mid-size ones (to 1
 * MiB) in the Ractor's scratch, copied out exact-size at the end. Larger
 * ones, and from 128 KiB those after a document of about their size, move
 * into a hidden Ruby String that becomes the result itself (no final
 * copy). Either is a Ruby String, which the GC reclaims if generation
 * raises half-way (no rb_ensure needed). See buffer.c.
 *
 * With an io, the bytes go out a chunk at a time, but only at safe points
 * (jt_buffer_safe_point), never from inside an append: io.write is Ruby code,
 * which may change or free the String whose bytes are being copied or
 * escaped. Memory stays bounded by a chunk plus the largest single value. */

#include "bytes/base.h"
typedef struct jt_buffer {
    char *ptr;
    size_t len;
    size_t capa;
    VALUE heap;          /* backing String once spilled, else 0 */
    VALUE io;            /* Qnil unless streaming */
    bool io_copies;      /* streaming into an IO whose write copies and keeps
                          * nothing (see jt_buffer_flush) */
    size_t spill_capa;   /* first heap size (buffer_initial_length) */
    size_t flush_at;     /* with an io: the length that sends a chunk; else SIZE_MAX */
    size_t unswept;      /* bytes handed out in fresh chunks since the last sweep (see jt_buffer_flush) */
    bool recycle;        /* a large heap may come from, and go back to, the Ractor's spare */
    bool spare;          /* heap is the Ractor's spare (see buffer.c) */
    bool sized;          /* heap was sized from the Ractor's last large document (see buffer.c) */
    /* Times the buffer moved into a new or resized heap: each may have run
     * the GC (see the generator's short-key cache). */
    uint32_t moves;
} jt_buffer;

#define JT_STACK_BUFFER_SIZE 2048
#define JT_IO_CHUNK_SIZE 16384
/* A chunk is sent once this much is pending, at the next safe point: values
 * up to the rest of a chunk then fit without growing the buffer. */
#define JT_IO_FLUSH_AT (JT_IO_CHUNK_SIZE / 4 * 3)
/* Fresh chunks handed to an io between two sweeps (see jt_buffer_flush). */
#define JT_IO_SWEEP_BYTES ((size_t)8 * 1024 * 1024)
#define JT_COPY_OUT_SIZE (1024 * 1024) /* see jt_buffer_finish */
/* glibc's default M_MMAP_THRESHOLD: a request this large may be a mapping
 * of its own (see jt_buffer_finish). */
#define JT_MMAP_SIZE (128 * 1024)
/* The largest first heap buffer_initial_length can ask for (see jt_buffer_grow). */
#define JT_INITIAL_HEAP_MAX ((size_t)64 * 1024 * 1024)

/* Whether `io` copies what it is given and keeps no reference (IO#write
 * itself on a File, socket or pipe): its chunks can be lent from the buffer. */
bool jt_io_copies(VALUE io);
JT_INLINE void jt_buffer_init(jt_buffer *b, char *stack, size_t stack_capa, VALUE io, long initial_length)
{
    b->ptr = stack;
    b->len = 0;
    b->capa = stack_capa;
    b->heap = 0;
    b->io = NIL_P(io) ? Qnil : io;
    b->io_copies = false;
    b->spill_capa = initial_length > 0 ? (size_t)initial_length : 1024;
    b->flush_at = SIZE_MAX;
    b->unswept = 0;
    b->recycle = NIL_P(io);
    b->spare = false;
    b->sized = false;
    b->moves = 0;
    if (!NIL_P(io)) {
        b->spill_capa = JT_IO_CHUNK_SIZE;
        b->flush_at = JT_IO_FLUSH_AT;
        b->io_copies = jt_io_copies(io);
    }
}

void jt_buffer_grow(jt_buffer *b, size_t need);
/* Room for `more` bytes the document is expected to need, in one step
 * rather than doublings; a no-op when streaming or when it fits. */
void jt_buffer_expect(jt_buffer *b, size_t more);
void jt_buffer_send_chunk(jt_buffer *b);
/* Streaming: writes the pending bytes to the io (Ruby code) as a new String. */
void jt_buffer_flush(jt_buffer *b);
/* An emptied heap buffer larger than capa goes back to capa bytes. */
void jt_buffer_shrink(jt_buffer *b, size_t capa);
VALUE jt_buffer_finish(jt_buffer *b);
void jt_init_buffer(void);

/* Streaming: called where the writer holds no pointer into a Ruby object or
 * into the buffer (between values); sends the pending bytes once they fill a
 * chunk. Runs Ruby code (io.write) then. */
JT_INLINE void jt_buffer_safe_point(jt_buffer *b)
{
    if (RB_UNLIKELY(b->len >= b->flush_at)) jt_buffer_send_chunk(b);
}

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
    JT_ASSERT(b->len < b->capa);
    b->ptr[b->len++] = c;
}

JT_INLINE void jt_buffer_append(jt_buffer *b, const char *src, size_t n)
{
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
    jt_buffer_reserve(b, n);
    memcpy(b->ptr + b->len, RSTRING_PTR(str), n);
    b->len += n;
}

#endif
