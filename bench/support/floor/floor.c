/*
 * JetsonBench::FloorWriter: the floor of bench/generate.rb, built only for
 * the benchmark (bench/support/floor.rb compiles it into tmp/).
 *
 * What does a call to a generator cost when the generator does no work at
 * all? The floor answers that for every case of bench/generate.rb: its
 * generate(doc, opts) is a C method of arity -1, as Jetson.generate is,
 * so Ruby dispatches it and hands it the arguments the same way; it checks
 * their number, ignores them, and returns a fresh UTF-8 String holding the
 * case's expected output, made with one allocation and one copy of the
 * bytes. Any generator must at least be called and return such a String,
 * so no generator can go below it: on the small documents it is the cost of
 * the call itself, on the large ones that of allocating the output and
 * copying its bytes (memcpy).
 *
 * Its walk(doc, opts) is the second floor, the walk floor: the same call,
 * which first visits every value of doc as any generator on Ruby's public
 * C API must (see floor_writer_walk), and writes nothing. write_walk(doc,
 * opts), the write floor, also writes every String's bytes into the result
 * (see floor_writer_write_walk).
 *
 * C99 and Ruby's public C API only.
 */
#include <ruby.h>
#include <ruby/encoding.h>
#include "page_cost.h"
#include <limits.h>
#include <string.h>

typedef struct {
    VALUE expected; /* a frozen copy of the expected output, or Qnil */
} floor_writer;

/* rb_gc_mark, not rb_gc_mark_movable: the String stays where it is, so the
 * pointer generate reads from it cannot go stale if the allocation of the
 * result runs a compacting collection. */
static void floor_writer_mark(void *ptr)
{
    floor_writer *fw = ptr;
    rb_gc_mark(fw->expected);
}

static size_t floor_writer_memsize(const void *ptr)
{
    (void)ptr;
    return sizeof(floor_writer);
}

static const rb_data_type_t floor_writer_type = {
    "JetsonBench::FloorWriter",
    {floor_writer_mark, RUBY_TYPED_DEFAULT_FREE, floor_writer_memsize, NULL, {NULL}},
    NULL,
    NULL,
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

static VALUE floor_writer_alloc(VALUE klass)
{
    floor_writer *fw;
    VALUE self = TypedData_Make_Struct(klass, floor_writer, &floor_writer_type, fw);
    fw->expected = Qnil;
    return self;
}

static floor_writer *floor_writer_get(VALUE self)
{
    floor_writer *fw;
    TypedData_Get_Struct(self, floor_writer, &floor_writer_type, fw);
    return fw;
}

/* FloorWriter.new(expected): keeps a frozen copy of expected. */
static VALUE floor_writer_initialize(VALUE self, VALUE expected)
{
    floor_writer *fw = floor_writer_get(self);
    StringValue(expected);
    RB_OBJ_WRITE(self, &fw->expected, rb_str_new_frozen(expected));
    return self;
}

/* The expected output FloorWriter.new was given. */
static VALUE expected_of(VALUE self)
{
    VALUE expected = floor_writer_get(self)->expected;
    if (NIL_P(expected)) {
        rb_raise(rb_eRuntimeError, "JetsonBench::FloorWriter not initialized");
    }
    return expected;
}

/* What the floor and the walk floor end with: a new UTF-8 String with the
 * expected bytes, one allocation and one copy. */
static VALUE fresh_expected(VALUE self)
{
    VALUE expected = expected_of(self);
    return rb_utf8_str_new(RSTRING_PTR(expected), RSTRING_LEN(expected));
}

/* generate(doc, opts = nil): a new UTF-8 String with the expected bytes. */
static VALUE floor_writer_generate(int argc, VALUE *argv, VALUE self)
{
    (void)argv;
    rb_check_arity(argc, 1, 2);
    return fresh_expected(self);
}

/* The walk floor: what a generator pays through Ruby's public C API to
 * visit every value of the document before it writes a byte. Arrays by
 * their element pointer, Hashes with rb_hash_foreach (the API's only
 * ordered walk, with its guard), each value's type read and a String's
 * length and coderange (a generator needs them to choose how to write it);
 * scalars are taken in the loops, without a call. It writes nothing, looks
 * up no Symbol's name and checks no byte for escaping. A generator can
 * visit some values for a few instructions less than this plain recursion
 * (Jetson writes a short Array of numbers without a call of its own), but
 * cannot avoid the call, the result String and rb_hash_foreach, which are
 * most of it on Hashes. The visit's sum is read back so that the compiler
 * cannot drop it. */
#define WALK_MAX_DEPTH 10000

struct walk {
    long sum;
    int depth;
    /* The write floor's (see floor_writer_write_walk): where every String's
     * bytes go, or NULL for the walk floor. */
    char *out;
    size_t out_len, out_capa;
};

static void walk_value(struct walk *w, VALUE value);

static inline void walk_scalar_or_value(struct walk *w, VALUE value)
{
    if (RB_SPECIAL_CONST_P(value)) {
        w->sum += (long)(value & 7); /* Integer, Float, Symbol, nil, true, false */
    } else {
        walk_value(w, value);
    }
}

static int walk_pair_i(VALUE key, VALUE value, VALUE data)
{
    struct walk *w = (struct walk *)data;
    walk_scalar_or_value(w, key);
    walk_scalar_or_value(w, value);
    return ST_CONTINUE;
}

static void walk_value(struct walk *w, VALUE value)
{
    switch (RB_BUILTIN_TYPE(value)) {
    case T_STRING:
        w->sum += RSTRING_LEN(value) + (long)RB_ENC_CODERANGE(value);
        if (w->out) {
            const size_t n = (size_t)RSTRING_LEN(value);
            if (n > w->out_capa - w->out_len) rb_raise(rb_eArgError, "the write floor's Strings outgrow the output");
            memcpy(w->out + w->out_len, RSTRING_PTR(value), n);
            w->out_len += n;
        }
        return;
    case T_ARRAY: {
        if (++w->depth > WALK_MAX_DEPTH) rb_raise(rb_eArgError, "the walk floor nests at most %d deep", WALK_MAX_DEPTH);
        const long n = RARRAY_LEN(value);
        const VALUE *elements = RARRAY_CONST_PTR(value);
        for (long i = 0; i < n; i++) walk_scalar_or_value(w, elements[i]);
        RB_GC_GUARD(value);
        --w->depth;
        return;
    }
    case T_HASH:
        if (++w->depth > WALK_MAX_DEPTH) rb_raise(rb_eArgError, "the walk floor nests at most %d deep", WALK_MAX_DEPTH);
        rb_hash_foreach(value, walk_pair_i, (VALUE)w);
        --w->depth;
        return;
    default: /* a heap Float, a Bignum, another object: its type is known */
        w->sum += 1;
        return;
    }
}

/* walk(doc, opts = nil): visits every value of doc (see above), then
 * returns a new UTF-8 String with the expected bytes, as generate does. */
static VALUE floor_writer_walk(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    struct walk w = {0, 0, NULL, 0, 0};
    walk_scalar_or_value(&w, argv[0]);
    VALUE result = fresh_expected(self);
    /* Read back, so that the visit is not optimized away. */
    if (w.sum == LONG_MIN) rb_raise(rb_eRuntimeError, "unreachable");
    return result;
}

/* write_walk(doc, opts = nil): the third floor, the write floor. The walk
 * floor's visit, writing every String's bytes (values and keys, as they
 * are: nothing checked or escaped) straight into the result, a String of
 * the expected length, and the rest of that length with one memset: the
 * output written once, in place, and every String read, which a generator
 * cannot avoid and the walk floor leaves out. On large documents of many
 * Strings (twitter.json) that reading and writing is most of a call. Its
 * bytes are not the expected output (the benchmark does not compare a
 * floor's). */
static VALUE floor_writer_write_walk(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    const long len = RSTRING_LEN(expected_of(self));
    VALUE result = rb_str_buf_new(len);
    struct walk w = {0, 0, RSTRING_PTR(result), 0, (size_t)len};
    walk_scalar_or_value(&w, argv[0]);
    memset(w.out + w.out_len, ' ', w.out_capa - w.out_len);
    rb_str_set_len(result, len);
    rb_enc_associate_index(result, rb_utf8_encindex());
    if (w.sum == LONG_MIN) rb_raise(rb_eRuntimeError, "unreachable");
    RB_GC_GUARD(result);
    return result;
}

void Init_jetson_bench_floor(void)
{
    VALUE mJetsonBench = rb_define_module("JetsonBench");
    VALUE cFloorWriter = rb_define_class_under(mJetsonBench, "FloorWriter", rb_cObject);

    rb_define_alloc_func(cFloorWriter, floor_writer_alloc);
    rb_define_method(cFloorWriter, "initialize", floor_writer_initialize, 1);
    rb_define_method(cFloorWriter, "generate", floor_writer_generate, -1);
    rb_define_method(cFloorWriter, "walk", floor_writer_walk, -1);
    rb_define_method(cFloorWriter, "write_walk", floor_writer_write_walk, -1);
    jetson_bench_init_page_cost(mJetsonBench);
}
