#include "json/json_walk.h"
#include "json/writer.h"

/* Jetson::Writer: a document written one piece at a time. Values go through
 * the generator itself (jt_gen_value, jt_gen_object_key), so the bytes are
 * those of Jetson.generate on the equivalent Hashes and Arrays; this file
 * only keeps track of the open containers and writes what sits between
 * their elements. */

enum {
    FRAME_OBJECT = 1,
    FRAME_ARRAY = 2,
    FRAME_NONEMPTY = 4, /* an element or key was written: the next one needs a comma */
};

typedef struct jt_writer {
    jt_config cfg;
    /* buf.io is the io or Qnil. buf.heap is created by initialize and only
     * ever resized afterwards, so that buffer.c, which has no write barrier
     * of its own, never stores a new reference into this object. */
    jt_buffer buf;
    unsigned char *frames; /* open containers, outermost first */
    long frame_count, frame_capa;
    bool initialized;
    /* A write is under way: a to_json or io.write it runs must not re-enter
     * and move the buffer or the frames under it. */
    bool busy;
    /* A write to an io raised after part of it may have reached the io:
     * nothing written afterwards could make a valid document. */
    bool failed;
    bool key_pending; /* push_key wrote a key that has no value yet */
    bool complete;    /* the top-level value is written */
    /* to_s handed out the buffer of a complete document (see writer_to_s):
     * the buffer String is an ordinary String now, counted on its own. */
    bool handed_out;
} jt_writer;

/* Everything is pinned: buffer.c and the generator hold pointers into the
 * buffer String and the layout Strings across allocations, which may run a
 * compacting GC. */
static void writer_mark(void *ptr)
{
    jt_writer *w = ptr;
    rb_gc_mark(w->cfg.indent);
    rb_gc_mark(w->cfg.space);
    rb_gc_mark(w->cfg.space_before);
    rb_gc_mark(w->cfg.object_nl);
    rb_gc_mark(w->cfg.array_nl);
    rb_gc_mark(w->cfg.as_json);
    rb_gc_mark(w->cfg.sort_keys);
    rb_gc_mark(w->buf.io);
    rb_gc_mark(w->buf.heap);
}

static void writer_free(void *ptr)
{
    jt_writer *w = ptr;
    xfree(w->frames);
    xfree(w);
}

static size_t writer_memsize(const void *ptr)
{
    const jt_writer *w = ptr;
    /* The buffer String is hidden and only reachable from here. */
    return sizeof(*w) + (size_t)w->frame_capa + (w->buf.heap && !w->handed_out ? w->buf.capa : 0);
}

static const rb_data_type_t writer_type = {
    .wrap_struct_name = "Jetson::Writer",
    .function = {
        .dmark = writer_mark,
        .dfree = writer_free,
        .dsize = writer_memsize,
    },
    .flags = RUBY_TYPED_WB_PROTECTED | RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE writer_alloc(VALUE klass)
{
    jt_writer *w;
    /* Zeroed: every VALUE field reads as Qfalse until initialize. */
    return TypedData_Make_Struct(klass, jt_writer, &writer_type, w);
}

NORETURN(static void writer_error(const char *fmt, ...)) JT_PRINTF(1, 2);

/* Looked up when raised: it is defined in Ruby, and a handle kept in a
 * static would be mutable global state. */
static void writer_error(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    VALUE message = rb_vsprintf(fmt, args);
    va_end(args);
    VALUE klass = rb_const_get(jt.mJetson, rb_intern("WriterError"));
    rb_exc_raise(rb_exc_new_str(klass, message));
}

static jt_writer *get_writer(VALUE self)
{
    jt_writer *w = rb_check_typeddata(self, &writer_type);
    if (!w->initialized) rb_raise(rb_eTypeError, "uninitialized Jetson::Writer");
    if (w->busy) {
        writer_error("the writer is in the middle of a write (called from a to_json, to_s or io.write it ran)");
    }
    if (w->failed) {
        writer_error("an earlier write raised after part of it may have reached the io; the output is incomplete");
    }
    return w;
}

static jt_writer *get_writer_for_write(VALUE self)
{
    jt_writer *w = get_writer(self);
    rb_check_frozen(self);
    return w;
}

JT_INLINE long writer_depth(const jt_writer *w)
{
    return w->cfg.depth + w->frame_count;
}

JT_INLINE unsigned char *innermost_frame(jt_writer *w)
{
    return w->frame_count ? &w->frames[w->frame_count - 1] : NULL;
}

/* --- initialization ---------------------------------------------------- */

/* The first buffer size: the buffer_initial_length hint, but since the
 * writer allocates it up front, within bounds. With an io, one chunk. */
static size_t initial_capacity(const jt_writer *w, VALUE io)
{
    if (!NIL_P(io)) return JT_IO_CHUNK_SIZE;
    long hint = w->cfg.buffer_initial_length;
    if (hint < 128) return 128;
    if (hint > JT_COPY_OUT_SIZE) return JT_COPY_OUT_SIZE;
    return (size_t)hint;
}

/* Writer.new(io = nil, **generate_options) */
static VALUE writer_initialize(int argc, VALUE *argv, VALUE self)
{
    jt_writer *w = rb_check_typeddata(self, &writer_type);
    if (w->initialized) rb_raise(rb_eTypeError, "Jetson::Writer is already initialized");
    VALUE io, opts;
    rb_scan_args(argc, argv, "01:", &io, &opts);
    if (!NIL_P(io) && !rb_respond_to(io, jt.id_write)) {
        rb_raise(rb_eTypeError, "io must respond to write (got %"PRIsVALUE")", rb_obj_class(io));
    }

    jt_config_init(&w->cfg);
    jt_config_apply(&w->cfg, self, opts);
    if (RTEST(w->cfg.sort_keys)) {
        /* A key is written as soon as it is pushed: a streaming writer
         * cannot reorder what is already out. */
        rb_raise(rb_eArgError, "sort_keys is not supported by Jetson::Writer (keys are written in the order they are pushed)");
    }
    if (w->cfg.rfc8785) { /* the same: canonical JSON orders every object's keys */
        rb_raise(rb_eArgError, "rfc8785 is not supported by Jetson::Writer (keys are written in the order they are pushed)");
    }

    size_t capa = initial_capacity(w, io);
    VALUE heap = rb_str_buf_new((long)capa);
    rb_obj_hide(heap);
    /* buffer.c keeps the String's length at its capacity (see jt_buffer_spill). */
    rb_str_set_len(heap, (long)capa);
    RB_OBJ_WRITE(self, &w->buf.heap, heap);
    RB_OBJ_WRITE(self, &w->buf.io, NIL_P(io) ? Qnil : io);
    w->buf.io_copies = !NIL_P(io) && jt_io_copies(io);
    w->buf.ptr = RSTRING_PTR(heap);
    w->buf.len = 0;
    w->buf.capa = capa;
    w->buf.spill_capa = capa;
    w->buf.flush_at = NIL_P(io) ? SIZE_MAX : JT_IO_FLUSH_AT;
    w->buf.recycle = false; /* the heap is the writer's own for its lifetime */
    w->buf.spare = false;
    w->buf.sized = false;
    w->buf.unswept = 0;

    w->frame_capa = 16;
    w->frames = ALLOC_N(unsigned char, w->frame_capa);
    w->frame_count = 0;
    w->initialized = true;
    return self;
}

static VALUE writer_init_copy(VALUE copy, VALUE orig)
{
    rb_raise(rb_eTypeError, "a Jetson::Writer cannot be copied");
}

/* --- writing ----------------------------------------------------------- */

/* A generator context for one call. A fresh one every time: its caches
 * (classes, Symbols, the key cache) are only sound while no Ruby code runs,
 * and Ruby code runs between two calls on a writer. */
static void gen_init(jt_gen *g, jt_writer *w, struct jt_key_entry *key_storage)
{
    const jt_config *cfg = &w->cfg;
    *g = (jt_gen){
        .buf = &w->buf,
        .cfg = cfg,
        .depth = writer_depth(w),
        .escape_mode = JT_ESCAPE_BASIC | (cfg->script_safe ? JT_ESCAPE_SCRIPT_SAFE : 0) |
                       (cfg->ascii_only ? JT_ESCAPE_ASCII_ONLY : 0),
        .mode = NULL, /* rfc8785 is refused: no mode */
        .mode_state = NULL,
        .deferred_error = 0,
        .vstate = Qfalse,
        .profile_count = 0,
        .key_cache = NULL,
        .key_cache_storage = key_storage,
        .short_keys = NULL,
        .short_key_storage = NULL, /* ops are short: no short-key cache */
        .key_epoch = 1,
        .symbol_names = NULL,
        .symbol_to_json = JT_SYMBOL_UNKNOWN,
        .symbols_are_names = false,
        /* No prebuilt layout: the generator writes the options' Strings. */
        .layout = NULL,
    };
    jt_gen_settle_paths(g);
}

/* What comes between the previous element and this one: the comma, the
 * layout, and in an object the key and its colon (unless push_key wrote
 * them), as the generator writes them for Hash pairs and Array elements. */
static void write_prefix(jt_writer *w, jt_gen *g, VALUE key)
{
    unsigned char *frame = innermost_frame(w);
    if (!frame) return;
    const jt_config *cfg = &w->cfg;
    jt_buffer *b = &w->buf;
    long depth = writer_depth(w);
    if (*frame & FRAME_ARRAY) {
        if (*frame & FRAME_NONEMPTY) jt_buffer_push(b, ',');
        jt_layout_write_str(b, cfg->array_nl);
        jt_layout_write_indent(b, cfg->indent, depth);
        return;
    }
    if (key == Qundef) return;
    if (*frame & FRAME_NONEMPTY) jt_buffer_push(b, ',');
    jt_layout_write_str(b, cfg->object_nl);
    jt_layout_write_indent(b, cfg->indent, depth);
    jt_gen_object_key(g, key);
    jt_layout_write_str(b, cfg->space_before);
    jt_buffer_push(b, ':');
    jt_layout_write_str(b, cfg->space);
}

/* Hands the pending bytes to the io, then io.flush when it has one. */
static void flush_to_io(jt_writer *w)
{
    jt_buffer_flush(&w->buf);
    if (rb_respond_to(w->buf.io, rb_intern("flush"))) rb_funcall(w->buf.io, rb_intern("flush"), 0);
}

/* A long string or deep indent may have grown the buffer past a chunk; with
 * an io it goes back to one chunk between calls, so a writer's memory stays
 * bounded however large the document. */
static void trim_io_buffer(jt_writer *w)
{
    jt_buffer *b = &w->buf;
    if (b->capa <= JT_IO_CHUNK_SIZE) return;
    jt_buffer_flush(b);
    jt_buffer_shrink(b, JT_IO_CHUNK_SIZE);
}

enum writer_op_kind { OP_KEY, OP_VALUE, OP_JSON, OP_OBJECT, OP_ARRAY, OP_POP, OP_FLUSH };

struct writer_op {
    jt_writer *w;
    enum writer_op_kind kind;
    VALUE key;   /* Qundef when none was given */
    VALUE value;
};

/* Writes everything first and updates the writer's state last, so that a
 * write that raises leaves the state as it was. */
static VALUE run_op(VALUE arg)
{
    struct writer_op *op = (struct writer_op *)arg;
    jt_writer *w = op->w;
    jt_buffer *b = &w->buf;
    struct jt_key_entry key_storage[JT_KEY_CACHE]; /* zeroed by the generator if used */
    jt_gen g;
    gen_init(&g, w, key_storage);
    unsigned char *frame = innermost_frame(w);
    /* Nothing of this op is written yet: a full chunk may go out. */
    jt_buffer_safe_point(b);

    switch (op->kind) {
        case OP_KEY:
            write_prefix(w, &g, op->key);
            *frame |= FRAME_NONEMPTY;
            w->key_pending = true;
            break;
        case OP_VALUE:
        case OP_JSON:
            write_prefix(w, &g, op->key);
            if (op->kind == OP_VALUE) {
                jt_gen_value(&g, op->value);
            } else {
                jt_buffer_append_str(b, op->value);
            }
            if (frame) {
                *frame |= FRAME_NONEMPTY;
            } else {
                w->complete = true;
            }
            w->key_pending = false;
            break;
        case OP_OBJECT:
        case OP_ARRAY:
            write_prefix(w, &g, op->key);
            jt_buffer_push(b, op->kind == OP_OBJECT ? '{' : '[');
            if (frame) *frame |= FRAME_NONEMPTY;
            w->key_pending = false;
            /* Room was made before the op (see ensure_frame_room). */
            w->frames[w->frame_count++] = op->kind == OP_OBJECT ? FRAME_OBJECT : FRAME_ARRAY;
            break;
        case OP_POP: {
            bool object = *frame & FRAME_OBJECT;
            if (*frame & FRAME_NONEMPTY) {
                /* As the generator: the closing line is indented only when
                 * there is a newline before it. */
                VALUE nl = object ? w->cfg.object_nl : w->cfg.array_nl;
                if (nl) {
                    jt_layout_write_str(b, nl);
                    jt_layout_write_indent(b, w->cfg.indent, writer_depth(w) - 1);
                }
            }
            jt_buffer_push(b, object ? '}' : ']');
            if (--w->frame_count == 0) w->complete = true;
            break;
        }
        case OP_FLUSH:
            flush_to_io(w);
            break;
    }

    if (!NIL_P(b->io)) {
        /* Nothing can follow a complete document: its last bytes go out now. */
        if (w->complete && op->kind != OP_FLUSH) flush_to_io(w);
        trim_io_buffer(w);
    }
    RB_GC_GUARD(g.vstate);
    return Qnil;
}

static void perform(VALUE self, jt_writer *w, enum writer_op_kind kind, VALUE key, VALUE value)
{
    struct writer_op op = { .w = w, .kind = kind, .key = key, .value = value };
    size_t saved_len = w->buf.len;
    int state = 0;
    w->busy = true;
    rb_protect(run_op, (VALUE)&op, &state);
    w->busy = false;
    if (state) {
        if (NIL_P(w->buf.io)) {
            /* In memory nothing has left the buffer: the call is undone. */
            w->buf.len = saved_len;
        } else {
            w->failed = true;
        }
        rb_jump_tag(state);
    }
    RB_GC_GUARD(self);
    RB_GC_GUARD(key);
    RB_GC_GUARD(value);
}

/* --- placement rules --------------------------------------------------- */

/* nil stands for "no key" in the optional arguments. */
static VALUE optional_key(int argc, VALUE *argv, int index)
{
    return argc > index && !NIL_P(argv[index]) ? argv[index] : Qundef;
}

/* Whether a value or container may go here, given the key passed with it. */
static void check_place(jt_writer *w, VALUE key, const char *method)
{
    bool has_key = key != Qundef;
    unsigned char *frame = innermost_frame(w);
    if (!frame) {
        if (w->complete) {
            writer_error("%s after the top-level value is complete (a JSON document holds a single value)", method);
        }
        if (has_key) writer_error("%s with a key at the top level (keys belong inside an object)", method);
    } else if (*frame & FRAME_ARRAY) {
        if (has_key) writer_error("%s with a key inside an array", method);
    } else if (has_key) {
        if (w->key_pending) writer_error("%s with a key while the key given to push_key has no value yet", method);
    } else if (!w->key_pending) {
        writer_error("%s inside an object without a key (pass one, or call push_key first)", method);
    }
}

static void ensure_frame_room(jt_writer *w)
{
    if (w->frame_count < w->frame_capa) return;
    if (w->frame_capa > LONG_MAX / 2) rb_raise(rb_eNoMemError, "JSON document too deep");
    long capa = w->frame_capa * 2;
    REALLOC_N(w->frames, unsigned char, capa);
    w->frame_capa = capa;
}

/* --- Ruby methods ------------------------------------------------------ */

static VALUE writer_pop(VALUE self);

static VALUE push_container(int argc, VALUE *argv, VALUE self, enum writer_op_kind kind)
{
    const char *method = kind == OP_OBJECT ? "push_object" : "push_array";
    rb_check_arity(argc, 0, 1);
    jt_writer *w = get_writer_for_write(self);
    VALUE key = optional_key(argc, argv, 0);
    check_place(w, key, method);
    long depth = writer_depth(w);
    /* As the generator counts nesting, before anything is written. */
    if (w->cfg.max_nesting && depth + 1 > w->cfg.max_nesting) rb_exc_raise(jt_nesting_error(depth + 1));
    ensure_frame_room(w);
    perform(self, w, kind, key, Qnil);

    if (rb_block_given_p()) {
        long level = w->frame_count;
        rb_yield(self);
        w = get_writer(self);
        if (w->frame_count < level) {
            writer_error("the block given to %s closed its container (the block must not pop it)", method);
        }
        if (w->frame_count > level) {
            writer_error("the block given to %s left %ld container(s) open inside it", method, w->frame_count - level);
        }
        writer_pop(self);
    }
    return self;
}

/* push_object(key = nil) { |writer| ... } */
static VALUE writer_push_object(int argc, VALUE *argv, VALUE self)
{
    return push_container(argc, argv, self, OP_OBJECT);
}

/* push_array(key = nil) { |writer| ... } */
static VALUE writer_push_array(int argc, VALUE *argv, VALUE self)
{
    return push_container(argc, argv, self, OP_ARRAY);
}

/* push_key(key) */
static VALUE writer_push_key(VALUE self, VALUE key)
{
    jt_writer *w = get_writer_for_write(self);
    if (NIL_P(key)) rb_raise(rb_eTypeError, "a key cannot be nil");
    unsigned char *frame = innermost_frame(w);
    if (!frame || !(*frame & FRAME_OBJECT)) {
        writer_error("push_key outside an object (%s)", frame ? "inside an array" : "at the top level");
    }
    if (w->key_pending) writer_error("push_key twice: the previous key has no value yet");
    perform(self, w, OP_KEY, key, Qnil);
    return self;
}

/* push_value(value, key = nil) */
static VALUE writer_push_value(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    jt_writer *w = get_writer_for_write(self);
    VALUE key = optional_key(argc, argv, 1);
    check_place(w, key, "push_value");
    perform(self, w, OP_VALUE, key, argv[0]);
    return self;
}

/* push_json(raw_json, key = nil) */
static VALUE writer_push_json(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    jt_writer *w = get_writer_for_write(self);
    Check_Type(argv[0], T_STRING);
    VALUE key = optional_key(argc, argv, 1);
    check_place(w, key, "push_json");
    /* A frozen copy (shared, not copied, in most cases): an io.write run
     * half-way must not be able to change the bytes under us. */
    VALUE json = rb_str_new_frozen(argv[0]);
    perform(self, w, OP_JSON, key, json);
    return self;
}

/* pop: closes the innermost container. */
static VALUE writer_pop(VALUE self)
{
    jt_writer *w = get_writer_for_write(self);
    if (w->frame_count == 0) {
        writer_error("pop with no open container%s", w->complete ? " (the document is complete)" : "");
    }
    if (w->key_pending) writer_error("pop while the key given to push_key has no value");
    perform(self, w, OP_POP, Qundef, Qnil);
    return self;
}

/* pop_all: closes every open container. */
static VALUE writer_pop_all(VALUE self)
{
    jt_writer *w = get_writer_for_write(self);
    if (w->frame_count > 0 && w->key_pending) writer_error("pop_all while the key given to push_key has no value");
    while (w->frame_count > 0) perform(self, w, OP_POP, Qundef, Qnil);
    return self;
}

/* to_s: the JSON written so far. A writer with an io has handed its output
 * to the io and keeps only a chunk of it, so it raises instead. */
static VALUE writer_to_s(VALUE self)
{
    jt_writer *w = get_writer(self);
    if (!NIL_P(w->buf.io)) {
        writer_error("to_s is not available when writing to an io (the output goes to the io; see flush)");
    }
    if (w->complete) {
        /* Nothing can be written any more: the buffer becomes the result
         * (trimmed, and shared copy-on-write by every to_s) instead of being
         * copied. */
        if (!w->handed_out) {
            VALUE heap = w->buf.heap;
            rb_str_resize(heap, (long)w->buf.len);
            rb_enc_associate_index(heap, jt.utf8_encindex);
            rb_obj_reveal(heap, rb_cString);
            w->buf.ptr = RSTRING_PTR(heap);
            w->buf.capa = w->buf.len;
            w->handed_out = true;
        }
        return rb_str_dup(w->buf.heap);
    }
    VALUE str = rb_utf8_str_new(w->buf.ptr, (long)w->buf.len);
    RB_GC_GUARD(self);
    return str;
}

/* flush: hands the pending bytes to the io (and calls io.flush if it has
 * one). Nothing to do in memory. */
static VALUE writer_flush(VALUE self)
{
    jt_writer *w = get_writer(self);
    if (!NIL_P(w->buf.io)) perform(self, w, OP_FLUSH, Qundef, Qnil);
    return self;
}

void jt_init_writer(void)
{
    VALUE c = rb_define_class_under(jt.mJetson, "Writer", rb_cObject);
    rb_define_alloc_func(c, writer_alloc);
    rb_define_method(c, "initialize", writer_initialize, -1);
    rb_define_method(c, "initialize_copy", writer_init_copy, 1);
    rb_define_method(c, "push_object", writer_push_object, -1);
    rb_define_method(c, "push_array", writer_push_array, -1);
    rb_define_method(c, "push_key", writer_push_key, 1);
    rb_define_method(c, "push_value", writer_push_value, -1);
    rb_define_method(c, "push_json", writer_push_json, -1);
    rb_define_method(c, "pop", writer_pop, 0);
    rb_define_method(c, "pop_all", writer_pop_all, 0);
    rb_define_method(c, "to_s", writer_to_s, 0);
    rb_define_method(c, "flush", writer_flush, 0);
}
