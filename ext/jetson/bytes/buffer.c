#include "bytes/buffer.h"
#include "bytes/fresh_pages.h"

/* rb_utf8_str_new goes through rb_enc_associate_index, which costs as much as
 * generating a small document; a new String has no coderange to reset, so
 * its encoding bits are set directly. A large copy's String is fresh memory
 * more often than not: its pages come in at once (fresh_pages.c). */
static VALUE utf8_str_new(const char *ptr, size_t len)
{
    VALUE str;
    if (len < JT_FRESH_PAGES_MIN) {
        str = rb_str_new(ptr, (long)len);
    } else {
        str = rb_str_buf_new((long)len);
        jt_fresh_pages_populate(RSTRING_PTR(str), len);
        memcpy(RSTRING_PTR(str), ptr, len);
        rb_str_set_len(str, (long)len);
        RB_ENC_CODERANGE_CLEAR(str);
    }
    RB_ENCODING_SET_INLINED(str, jt.utf8_encindex);
    return str;
}

/* Streaming used to hand each chunk to io.write as a fresh String. Those
 * are garbage once written, but a stream allocates few objects, and Ruby
 * sweeps a collected page only when it needs its slots: the Strings of 1 GB
 * streamed through a Writer stayed allocated long enough to grow the peak
 * RSS by 143 MB. IO#write copies what it is given (into its write buffer or
 * the kernel) and keeps no reference, so a File, socket or pipe whose write
 * is IO#write is lent the buffer's bytes themselves, in a frozen String that
 * does not own them (see jt_buffer_flush). Any other io (a StringIO, a Rack
 * body, ActionController::Live's buffer, which queues the String it is
 * given) may keep the object, so it gets a fresh String each time. */
bool jt_io_copies(VALUE io)
{
    return RB_TYPE_P(io, T_FILE) && rb_method_basic_definition_p(CLASS_OF(io), jt.id_write);
}

/* The fresh chunks (see jt_io_copies) are garbage once the io is done
 * with them, but Ruby frees a dead String's memory only when it sweeps its
 * page, and it sweeps lazily, a few pages whenever it needs slots. A stream
 * allocates one object per chunk, so it needs few slots: 1.5 GB through a
 * Writer into an io whose write is a Ruby method grew the peak RSS by 104 MB
 * (19 collections, the chunks of each waiting for the next one's sweep);
 * Oj::StreamWriter, which allocates a small String per value and so
 * collects hundreds of times, by 3 MB, and by 193 MB in a process holding
 * 2 million objects. Telling the GC about the memory
 * (rb_gc_adjust_memory_usage) only moves the collections earlier and makes
 * them major (oldmalloc): 32 MB and 5x the major collections. What bounds it
 * is a minor collection with an immediate sweep every JT_IO_SWEEP_BYTES of
 * fresh chunks: the peak grows by about that much (8 MB), in either heap.
 * It costs what a sweep of the whole heap costs, every 8 MB: 1.23 s against
 * 1.11 s for the 1.5 GB in a small heap, 2.08 s against 1.73 s beside 2
 * million objects (Oj: 4.1 and 4.5 s); a stream that encodes records
 * produces its 8 MB far more slowly than that. GC.start is asked through
 * Ruby: the C API has no minor collection. */
static void sweep_fresh_chunks(void)
{
    VALUE opts = rb_hash_new();
    rb_hash_aset(opts, ID2SYM(rb_intern("full_mark")), Qfalse);
    rb_hash_aset(opts, ID2SYM(rb_intern("immediate_sweep")), Qtrue);
    rb_funcallv_kw(rb_mGC, jt.id_start, 1, &opts, RB_PASS_KEYWORDS);
}

void jt_buffer_flush(jt_buffer *b)
{
    if (b->len == 0) return;
    VALUE chunk;
    const size_t len = b->len;
    if (b->io_copies) {
        /* The bytes stay in the buffer: a String that does not own them
         * (freeing it leaves them alone), frozen because IO#write on Ruby
         * 3.3+ otherwise moves a String's memory into a hidden frozen copy
         * and leaves the String sharing it, where a reused String would then
         * refuse a new length. The buffer is not written to again before
         * io.write returns. One small object per chunk. */
        chunk = rb_utf8_str_new_static(b->ptr, (long)len);
        rb_str_freeze(chunk);
    } else {
        /* The io may keep the object it was given (see jt_io_copies). */
        chunk = utf8_str_new(b->ptr, len);
    }
    /* Counted as sent before the write, which may raise after taking it. */
    b->len = 0;
    rb_io_write(b->io, chunk);
    RB_GC_GUARD(chunk);
    if (!b->io_copies && (b->unswept += len) >= JT_IO_SWEEP_BYTES) {
        b->unswept = 0;
        sweep_fresh_chunks();
    }
}

/* Large documents cost memory traffic more than instructions: every page of
 * a fresh buffer is faulted in and cleared by the kernel, each doubling
 * copies what is written so far, and a copy into an exact-size result reads
 * and writes it all once more. Two things avoid most of that once a document
 * outgrows 1 MiB (JT_COPY_OUT_SIZE):
 *
 * - Each Ractor remembers the length of its last such document. Documents
 *   are often generated again at about the same size (an endpoint, a cache
 *   refresh), so the next one moves, past 1 MiB (the scratch's end), into a
 *   String of that length plus a little, is written there, its pages
 *   brought in as it reaches them (sized_step), and handed out as it is
 *   (jt_buffer_finish). It moved at 2 MiB before: glibc gives freed
 *   results' memory back to the kernel (a free that leaves its heap's top
 *   past the trim threshold, or of a chunk it mapped on its own), so
 *   in a loop the doublings' Strings can take fresh pages: 29 to 116 page
 *   faults a call beyond the 1,221 of a 5 MB result in three runs of
 *   bench/large.rb, 16 to 30 moving at 1 MiB in one (issue 55).
 *   Moving as soon as the document left the 32 KiB scratch saved most of
 *   those, but a document under 1 MiB after a large one then went into a
 *   String of the large one's size, a fresh mapping every call (twitter.json:
 *   71-96 faults a call where json took 17). The result's own pages are
 *   every generator's cost: a result is the caller's memory, so no kept
 *   buffer can stand in for them (new_heap and the growths take the
 *   absent ones in one call instead, fresh_pages.c), and copying out of a
 *   kept, resident buffer instead took 5 MB from about 2,000 to 600 calls
 *   a second where nothing faulted (the copy doubles the memory written).
 * - A document larger than that (or the first one) grows as usual; if it
 *   ends between JT_SPARE_MIN and JT_SPARE_MAX bytes it is copied out
 *   exact-size and its buffer is kept as the Ractor's spare, already grown
 *   and warm, for the next document that outgrows what the length covers.
 *   The spare is freed once a document fits the remembered length again.
 *
 * Documents from JT_SIZED_FROM (128 KiB) to 1 MiB after one of that range
 * are written the same way, moving out of the scratch at 128 KiB
 * (scratch_window). The spare is taken out of Ractor-local storage while
 * in use, so a nested or concurrent generate (a to_json, another thread)
 * gets its own buffer; a generate that raises leaves the spare to the GC,
 * and the next one starts a new spare. The remembered length is only a number: nested or concurrent
 * calls can at worst size a buffer wrongly, which growth or a shrink at the
 * end corrects. */
#define JT_SPARE_MIN (2 * JT_COPY_OUT_SIZE)
#define JT_SPARE_MAX ((size_t)8 * 1024 * 1024)

/* Mid-size documents, past the stack buffer's 2 KiB and up to 1 MiB, are
 * written into a buffer each Ractor keeps between calls, its scratch, and
 * handed out as an exact-size copy (from 128 KiB, after a document of that
 * range, they move into a sized String instead: scratch_window). Built in
 * a String of their own, grown by doublings, they cost a malloc and a
 * realloc or two per call and kept slack, and under jemalloc (which many
 * Rails deployments preload) each call's result came on fresh pages:
 * documents of 4 and 8 KB took 1.40x and 1.49x JSON::Coder's time with
 * twice its page faults; with the scratch, 0.82x and 0.79x with its
 * faults (bench/allocator.rb, AMD EPYC, Ruby 3.4 + YJIT). The copy is what
 * json's and a bare copy's results cost.
 * The scratch stopped at 32 KiB until the fresh pages of the doublings past
 * it were measured (issue 55): each document past 32 KiB took a new 32 KiB
 * scratch, then 64, 128, 256 KiB... by realloc, every step copying what was
 * written and most on fresh pages, then its exact-size copy. Kept up to
 * 1 MiB, the scratch is resident and grown once, and a call allocates its
 * result alone. Jetson's speed over json's in the same process (CPU time,
 * five processes of each build in turn, AMD EPYC, Ruby 3.4 + YJIT, a loaded
 * machine): citm_catalog.json (500 KB) 1.16x before, 1.53x after;
 * twitter.json (467 KB) 1.67x, 1.73x; activitypub.json (53 KB) 0.99x,
 * 1.07x; ohai.json (20 KB) and a 100 KB document the same. A document that
 * outgrows the scratch moves into a heap of its own, and the scratch goes
 * back to its slot; so a recycling buffer holds the scratch exactly while
 * its heap is no larger than JT_SCRATCH_MAX (a first heap past that size
 * never was one). Like the spare, the scratch is taken out of Ractor-local
 * storage while in use: a nested or concurrent generate builds in a buffer
 * of its own, kept as the scratch if the slot is empty at its end; a
 * generate that raises leaves its scratch to the GC. */
#define JT_SCRATCH_MAX JT_COPY_OUT_SIZE

/* From this length on, a document whose last large predecessor was longer
 * leaves the scratch for a String sized from it (see scratch_window). */
#define JT_SIZED_FROM JT_FRESH_PAGES_MIN

static bool holds_scratch(const jt_buffer *b)
{
    return b->recycle && b->heap && !b->sized && b->capa <= JT_SCRATCH_MAX;
}

/* How much of a sized String a document may write before its next step
 * (see jt_buffer_grow): what it needs, at least twice what it has written,
 * at most the String. The String is sized from the last large document,
 * and a smaller one would otherwise have had pages brought in (fresh_pages.c)
 * that it never writes: the steps bring them in as it reaches them, no more
 * than twice what it writes. */
static size_t sized_step(const jt_buffer *b, size_t required, size_t whole)
{
    size_t step = b->len > whole / 2 ? whole : 2 * b->len;
    if (step < 2 * JT_SIZED_FROM) step = 2 * JT_SIZED_FROM;
    if (step < required) step = required;
    return step < whole ? step : whole;
}

/* Lets a document in a sized String write up to `required` bytes by taking
 * the String's next step, if the String is that large. */
static bool extend_sized(jt_buffer *b, size_t required)
{
    if (!b->sized) return false;
    const size_t whole = (size_t)RSTRING_LEN(b->heap);
    if (required > whole) return false;
    const size_t step = sized_step(b, required, whole);
    /* A step never shrinks what the document may write. */
    JT_ASSERT(step >= b->capa && step >= required);
    jt_fresh_pages_populate(b->ptr + b->capa, step - b->capa);
    b->capa = step;
    return true;
}

/* The Ractor's kept buffer under `key` (its spare or its scratch), taken out
 * of its slot, or Qnil. */
static VALUE take_kept(rb_ractor_local_key_t key)
{
    VALUE kept = rb_ractor_local_storage_value(key);
    if (!NIL_P(kept)) rb_ractor_local_storage_value_set(key, Qnil);
    return kept;
}

/* Frees the heap String's memory, or keeps it as the Ractor's scratch or
 * spare when it is one and that slot is empty. */
static void release_heap(jt_buffer *b)
{
    rb_ractor_local_key_t key = NULL;
    if (holds_scratch(b)) {
        key = jt.scratch_buffer_key;
    } else if (b->recycle && b->capa >= JT_SPARE_MIN && b->capa <= JT_SPARE_MAX) {
        key = jt.spare_buffer_key;
    }
    if (key && NIL_P(rb_ractor_local_storage_value(key))) {
        rb_ractor_local_storage_value_set(key, b->heap);
    } else {
        rb_str_resize(b->heap, 0);
    }
    b->heap = 0;
    b->spare = false;
}

/* The length of the Ractor's last document of JT_SIZED_FROM or more, or 0;
 * lengths above JT_SIZED_MAX are not remembered (the next large document
 * would reserve that much address space before it knows its size). */
#define JT_SIZED_MAX ((size_t)64 * 1024 * 1024)

static size_t large_size_hint(void)
{
    VALUE hint = rb_ractor_local_storage_value(jt.large_size_key);
    return RB_FIXNUM_P(hint) ? (size_t)FIX2LONG(hint) : 0;
}

/* Whether a document writing up to `required` bytes goes on in a sized
 * String: it is past JT_SIZED_FROM, and the last large document (`hint`,
 * large_size_hint), at least as long, says it will probably end near that
 * one's length. Within the scratch's range only a hint from that range
 * counts: a mid-size document
 * after one of megabytes would otherwise take a String of megabytes (a
 * fresh mapping, twitter.json 71-96 faults a call where json took 17). */
static bool hint_covers(size_t hint, size_t required)
{
    return required > JT_SIZED_FROM && hint >= required &&
           (required > JT_SCRATCH_MAX || hint <= JT_SCRATCH_MAX);
}

/* How much of a scratch of `scratch_len` bytes a document needing
 * `required` may write: all of it, unless the last large document was a
 * mid-size one (JT_SIZED_FROM to JT_SCRATCH_MAX). Then the document stops
 * at JT_SIZED_FROM and, if the hint covers it, copies what it wrote into a
 * sized String and ends in it: the String is the result. Written in the
 * scratch to its end, twitter.json (467 KB) was copied out whole: 469,000
 * of the call's 3.07 million instructions (callgrind), and a second pass
 * over the result's memory. A shorter document never reaches the window's
 * end; a longer one than the hint goes on in the scratch (jt_buffer_grow). */
static size_t scratch_window(size_t scratch_len, size_t required)
{
    if (scratch_len <= JT_SIZED_FROM || required > JT_SIZED_FROM) return scratch_len;
    /* Would the hint cover a document just past the window? */
    return hint_covers(large_size_hint(), JT_SIZED_FROM + 1) ? JT_SIZED_FROM : scratch_len;
}

static void remember_large_size(size_t len)
{
    if (len <= JT_SIZED_MAX) rb_ractor_local_storage_value_set(jt.large_size_key, LONG2FIX((long)len));
}

/* A hidden String of capa bytes to write into, with the first `expected`
 * bytes' pages in memory (fresh_pages.c). It stays hidden from ObjectSpace
 * until it is handed out as the result. Its length is kept at its capacity,
 * so that rb_str_resize keeps the bytes written. */
static VALUE new_heap(size_t capa, size_t expected)
{
    VALUE heap = rb_str_buf_new((long)capa);
    jt_fresh_pages_populate(RSTRING_PTR(heap), expected < capa ? expected : capa);
    rb_obj_hide(heap);
    rb_str_set_len(heap, (long)capa);
    return heap;
}

/* How much of a grown buffer of `capa` holding `len` bytes is populated: a
 * document that outgrew its buffer ends, on average, half-way into the
 * doubled one, and the pages past where it ends would be taken for
 * nothing (the rest fault in if they are written). */
static size_t expected_length(size_t len, size_t capa)
{
    return len + (capa - len) / 2;
}

/* Copies what is written into `heap`, which becomes the buffer; the previous
 * heap goes back to the scratch's slot if it is the scratch and the slot is
 * empty, else its memory goes back at once. */
static void move_into(jt_buffer *b, VALUE heap)
{
    JT_ASSERT(b->len <= (size_t)RSTRING_LEN(heap));
    memcpy(RSTRING_PTR(heap), b->ptr, b->len);
    if (b->heap) {
        if (holds_scratch(b) && NIL_P(rb_ractor_local_storage_value(jt.scratch_buffer_key))) {
            rb_ractor_local_storage_value_set(jt.scratch_buffer_key, b->heap);
        } else {
            rb_str_resize(b->heap, 0);
        }
    }
    b->heap = heap;
}

/* Moves the contents into a heap String of at least `capa` bytes; `required`
 * (at most capa) is what the write at hand needs, which a sized String may
 * hold without reaching capa: a document outgrowing a 1 MiB scratch asks
 * for 2 MiB, and the last length (1.5 MiB, say) covers what it needs. */
static void jt_buffer_spill(jt_buffer *b, size_t capa, size_t required)
{
    VALUE spare;
    size_t hint;
    if (!b->heap && b->recycle && capa <= JT_SCRATCH_MAX) {
        VALUE scratch = take_kept(jt.scratch_buffer_key);
        if (NIL_P(scratch)) {
            scratch = new_heap(capa, capa);
        } else if ((size_t)RSTRING_LEN(scratch) < capa) {
            rb_str_resize(scratch, (long)capa);
        }
        move_into(b, scratch);
        capa = scratch_window((size_t)RSTRING_LEN(scratch), required);
    } else if (b->recycle && !b->spare && !b->sized &&
               hint_covers(hint = large_size_hint(), required)) {
        /* A little over the last size, for a document that grew a bit;
         * written in steps (sized_step). */
        const size_t whole = hint + hint / 32;
        capa = sized_step(b, required, whole);
        move_into(b, new_heap(whole, capa));
        b->sized = true;
        /* While documents come at sizes the hint covers, a spare is not
         * used: its memory goes back. */
        if (!NIL_P(spare = take_kept(jt.spare_buffer_key))) rb_str_resize(spare, 0);
    } else if (b->recycle && !b->spare && capa >= JT_SPARE_MIN && !NIL_P(spare = take_kept(jt.spare_buffer_key))) {
        if ((size_t)RSTRING_LEN(spare) < capa) {
            rb_str_resize(spare, (long)capa);
            jt_fresh_pages_populate(RSTRING_PTR(spare), expected_length(b->len, capa));
        }
        move_into(b, spare);
        b->spare = true;
        b->sized = false;
        capa = (size_t)RSTRING_LEN(spare);
    } else if (holds_scratch(b) && capa > JT_SCRATCH_MAX) {
        /* Outgrown: the scratch stays the Ractor's (move_into). */
        move_into(b, new_heap(capa, expected_length(b->len, capa)));
    } else if (b->heap) {
        rb_str_resize(b->heap, (long)capa);
        jt_fresh_pages_populate(RSTRING_PTR(b->heap), expected_length(b->len, capa));
    } else {
        move_into(b, new_heap(capa, expected_length(b->len, capa)));
    }
    b->ptr = RSTRING_PTR(b->heap);
    b->capa = capa;
    /* Every branch leaves room for the write at hand, within the String. */
    JT_ASSERT(capa >= required && capa <= (size_t)RSTRING_LEN(b->heap));
    b->moves++;
}

/* The size of the first heap buffer: buffer_initial_length, a hint that
 * past JT_INITIAL_HEAP_MAX would reserve memory no document asked for (2**40
 * is a NoMemoryError where json writes the document). */
static size_t first_heap_capa(const jt_buffer *b)
{
    return b->spill_capa < JT_INITIAL_HEAP_MAX ? b->spill_capa : JT_INITIAL_HEAP_MAX;
}

JT_NOINLINE void jt_buffer_grow(jt_buffer *b, size_t need)
{
    if (need > (size_t)LONG_MAX - b->len) rb_raise(rb_eNoMemError, "JSON document too large");
    size_t required = b->len + need;
    if (extend_sized(b, required)) return;
    /* The end of the scratch's window, and no sized String to go on in:
     * the rest of the scratch. */
    if (holds_scratch(b) && required <= (size_t)RSTRING_LEN(b->heap) &&
        !hint_covers(large_size_hint(), required)) {
        b->capa = (size_t)RSTRING_LEN(b->heap);
        return;
    }
    size_t capa = b->heap ? b->capa : first_heap_capa(b);
    if (capa < b->capa) capa = b->capa;
    while (capa < required) {
        capa = capa > (size_t)LONG_MAX / 2 ? required : capa * 2;
    }
    /* The scratch grows to JT_SCRATCH_MAX itself while the write fits there:
     * from a size an estimate gave it (600 KiB, say), a doubling would pass
     * the limit and move out, and documents between the two sizes would
     * never be written in it. */
    if (capa > JT_SCRATCH_MAX && required <= JT_SCRATCH_MAX && holds_scratch(b)) capa = JT_SCRATCH_MAX;
    jt_buffer_spill(b, capa, required);
}

void jt_buffer_expect(jt_buffer *b, size_t more)
{
    /* Past JT_INITIAL_HEAP_MAX, an estimate is left to the doublings. */
    if (b->io != Qnil || b->len > JT_INITIAL_HEAP_MAX || more > JT_INITIAL_HEAP_MAX - b->len) return;
    size_t capa = b->len + more;
    if (!b->heap && capa < first_heap_capa(b)) capa = first_heap_capa(b);
    if (capa > b->capa && !extend_sized(b, capa)) jt_buffer_spill(b, capa, capa);
}

void jt_buffer_shrink(jt_buffer *b, size_t capa)
{
    if (b->len == 0 && b->heap && b->capa > capa) jt_buffer_spill(b, capa, capa);
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
    if (b->recycle && b->len >= JT_SIZED_FROM) remember_large_size(b->len);
    /* An unused tail past 4 KiB and 1/16 of the length is not kept: what
     * the result holds counts toward the GC's malloc limit (twitter.json
     * kept 57 KB, 12%, and collected 15 times per 1,000 calls where json,
     * with exact-size results, collects 13). */
    /* A sized String's whole length, not the step its document reached. */
    const size_t capacity = b->sized ? (size_t)RSTRING_LEN(b->heap) : b->capa;
    JT_ASSERT(b->len <= capacity && capacity <= (size_t)RSTRING_LEN(b->heap));
    const size_t unused = capacity - b->len;
    const bool slack = unused > 4096 && unused > b->len / 16;
    /* Copied out exact-size, with the working memory freed at once or kept:
     * - A result this large that had to grow would leave its growth
     *   buffer's pages to the GC, and the next call would fault in fresh
     *   ones (measured: twice the time of the copy on 5 MB); the working
     *   memory stays warm, kept as the spare or back to malloc. A sized
     *   buffer (see above) is the result.
     * - A buffer of JT_MMAP_SIZE or more with slack, below 1 MiB, is freed
     *   at its full size, as json's buffer is: glibc maps fresh memory for
     *   any request larger than the largest mapping freed so far, so such a
     *   buffer shrunk in place, freed later by the GC at the shrunk size,
     *   left the next call's growth to the same power of two a fresh mapping
     *   each time (measured on twitter.json in a long loop: 97 page faults
     *   per call, collections 8 times longer, 0.85x json). Past 1 MiB the
     *   result is sized from the last one, and copying the slack case out
     *   cost canada.json 10% (1.49x json against 1.66x): it shrinks in
     *   place. */
    if (holds_scratch(b) || b->spare || (b->len >= JT_COPY_OUT_SIZE && !b->sized) ||
        (slack && capacity >= JT_MMAP_SIZE && b->len < JT_COPY_OUT_SIZE)) {
        VALUE result = utf8_str_new(b->ptr, b->len);
        release_heap(b);
        return result;
    }
    VALUE result = b->heap;
    if (slack) {
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
    jt.scratch_buffer_key = rb_ractor_local_storage_value_newkey();
    jt.large_size_key = rb_ractor_local_storage_value_newkey();
}
