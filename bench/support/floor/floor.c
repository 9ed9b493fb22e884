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
 * C99 and Ruby's public C API only.
 */
#include <ruby.h>

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

/* generate(doc, opts = nil): a new UTF-8 String with the expected bytes. */
static VALUE floor_writer_generate(int argc, VALUE *argv, VALUE self)
{
    floor_writer *fw = floor_writer_get(self);
    VALUE expected = fw->expected;

    (void)argv;
    rb_check_arity(argc, 1, 2);
    if (NIL_P(expected)) {
        rb_raise(rb_eRuntimeError, "JetsonBench::FloorWriter not initialized");
    }
    return rb_utf8_str_new(RSTRING_PTR(expected), RSTRING_LEN(expected));
}

void Init_jetson_bench_floor(void)
{
    VALUE mJetsonBench = rb_define_module("JetsonBench");
    VALUE cFloorWriter = rb_define_class_under(mJetsonBench, "FloorWriter", rb_cObject);

    rb_define_alloc_func(cFloorWriter, floor_writer_alloc);
    rb_define_method(cFloorWriter, "initialize", floor_writer_initialize, 1);
    rb_define_method(cFloorWriter, "generate", floor_writer_generate, -1);
}
