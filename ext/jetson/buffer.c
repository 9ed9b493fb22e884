#include "buffer.h"

/* rb_utf8_str_new goes through rb_enc_associate_index, which costs as much as
 * generating a small document; a new String has no coderange to reset, so
 * its encoding bits are set directly. */
static VALUE utf8_str_new(const char *ptr, size_t len)
{
    VALUE str = rb_str_new(ptr, (long)len);
    RB_ENCODING_SET_INLINED(str, jt.utf8_encindex);
    return str;
}

void jt_buffer_flush(jt_buffer *b)
{
    if (b->len == 0) return;
    /* A fresh String per chunk: the io may keep the object it was given. It
     * is counted as sent before the write, which may raise after taking it. */
    VALUE chunk = utf8_str_new(b->ptr, b->len);
    b->len = 0;
    rb_io_write(b->io, chunk);
}

/* Large documents cost memory traffic more than instructions: every page of
 * a fresh buffer is faulted in and cleared by the kernel, and each doubling
 * copies what is written so far. So each Ractor keeps the working buffer of
 * its last large document (JT_SPARE_MIN..JT_SPARE_MAX bytes, at most one)
 * and the next large document is written into it, already grown and warm,
 * from the point where it outgrows 1 MiB; the result is an exact-size copy
 * (jt_buffer_finish). Smaller documents keep building their result in a
 * String of their own: a copy costs them more than it saves. The spare is taken
 * out of Ractor-local storage while in use, so a nested or concurrent
 * generate (a to_json, another thread) gets its own buffer; a generate that
 * raises leaves the spare to the GC, and the next one starts a new spare. */
#define JT_SPARE_MIN (2 * JT_COPY_OUT_SIZE)
#define JT_SPARE_MAX ((size_t)8 * 1024 * 1024)

static VALUE take_spare(void)
{
    VALUE spare = rb_ractor_local_storage_value(jt.spare_buffer_key);
    if (!NIL_P(spare)) rb_ractor_local_storage_value_set(jt.spare_buffer_key, Qnil);
    return spare;
}

/* Frees the heap String's memory, or keeps it as the Ractor's spare. */
static void release_heap(jt_buffer *b)
{
    if (b->recycle && b->capa >= JT_SPARE_MIN && b->capa <= JT_SPARE_MAX &&
        NIL_P(rb_ractor_local_storage_value(jt.spare_buffer_key))) {
        rb_ractor_local_storage_value_set(jt.spare_buffer_key, b->heap);
    } else {
        rb_str_resize(b->heap, 0);
    }
    b->heap = 0;
    b->spare = false;
}

/* Moves the contents into a heap String of at least `capa` bytes. The String is
 * hidden from ObjectSpace until it is handed out as the result. Its length is
 * kept at its capacity, so that rb_str_resize keeps the bytes written. */
static void jt_buffer_spill(jt_buffer *b, size_t capa)
{
    VALUE spare;
    if (b->recycle && !b->spare && capa >= JT_SPARE_MIN && !NIL_P(spare = take_spare())) {
        if ((size_t)RSTRING_LEN(spare) < capa) rb_str_resize(spare, (long)capa);
        memcpy(RSTRING_PTR(spare), b->ptr, b->len);
        if (b->heap) rb_str_resize(b->heap, 0);
        b->heap = spare;
        b->spare = true;
        capa = (size_t)RSTRING_LEN(spare);
    } else if (b->heap) {
        rb_str_resize(b->heap, (long)capa);
    } else {
        VALUE heap = rb_str_buf_new((long)capa);
        rb_obj_hide(heap);
        memcpy(RSTRING_PTR(heap), b->ptr, b->len);
        rb_str_set_len(heap, (long)capa);
        b->heap = heap;
    }
    b->ptr = RSTRING_PTR(b->heap);
    b->capa = capa;
}

JT_NOINLINE void jt_buffer_grow(jt_buffer *b, size_t need)
{
    if (need > (size_t)LONG_MAX - b->len) rb_raise(rb_eNoMemError, "JSON document too large");
    size_t required = b->len + need;
    size_t capa = b->heap ? b->capa : b->spill_capa;
    if (capa < b->capa) capa = b->capa;
    while (capa < required) {
        capa = capa > (size_t)LONG_MAX / 2 ? required : capa * 2;
    }
    jt_buffer_spill(b, capa);
}

void jt_buffer_shrink(jt_buffer *b, size_t capa)
{
    if (b->len == 0 && b->heap && b->capa > capa) jt_buffer_spill(b, capa);
}

JT_NOINLINE void jt_buffer_send_chunk(jt_buffer *b)
{
    jt_buffer_flush(b);
    /* A large value grew the buffer: back to the first size, so that
     * streaming a long document keeps its memory bounded. */
    if (b->capa > 4 * b->spill_capa) jt_buffer_shrink(b, b->spill_capa);
}

VALUE jt_buffer_finish(jt_buffer *b)
{
    if (b->io != Qnil) {
        jt_buffer_flush(b);
        rb_io_flush(b->io); /* as the json gem does: an io must respond to flush too */
        RB_GC_GUARD(b->heap);
        return b->io;
    }
    if (!b->heap) {
        return utf8_str_new(b->ptr, b->len);
    }
    VALUE result;
    if (b->spare || b->len >= JT_COPY_OUT_SIZE) {
        /* A result this large would leave its growth buffer's pages to the
         * GC, and the next call would fault in fresh ones (measured: twice
         * the time of the copy on 5 MB). The copy is exact-size, and the
         * working memory stays warm: kept as the spare or back to malloc. */
        result = utf8_str_new(b->ptr, b->len);
        release_heap(b);
        return result;
    }
    result = b->heap;
    /* Give back a large unused tail; small slack is cheaper to keep. */
    if (b->capa - b->len > 4096 && b->capa - b->len > b->len / 4) {
        rb_str_resize(result, (long)b->len);
    } else {
        rb_str_set_len(result, (long)b->len);
    }
    /* Built as BINARY bytes by us alone: nothing to transcode or re-scan. */
    RB_ENCODING_SET_INLINED(result, jt.utf8_encindex);
    RB_ENC_CODERANGE_CLEAR(result);
    rb_obj_reveal(result, rb_cString);
    b->heap = 0;
    return result;
}

void jt_init_buffer(void)
{
    jt.spare_buffer_key = rb_ractor_local_storage_value_newkey();
}
