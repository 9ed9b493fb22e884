/* The Jetson::Builder object itself: its memory (the node and entry
 * tables of builder/tree.c) and what the GC must see in it, allocation, the
 * settings Jbuilder keeps per instance (key format, ignore_nil,
 * deep_format_keys), and scopes: the state a block or a partial runs in
 * and gets back when it ends, also when it raises. The DSL's methods are
 * in builder/dsl.c. */

#include "builder/builder.h"

static void builder_mark(void *ptr)
{
    jb_builder *b = ptr;
    for (int32_t i = 0; i < b->entry_count; i++) {
        rb_gc_mark(b->entries[i].key);
        rb_gc_mark(b->entries[i].value);
    }
    rb_gc_mark(b->current.value);
    rb_gc_mark(b->captured.value);
    rb_gc_mark(b->key_formatter);
    rb_gc_mark(b->records_class);
    rb_gc_mark(b->casts);
    rb_gc_mark(b->record_reader);
    rb_gc_mark(b->inline_plans);
    rb_gc_mark(b->single_plans);
}

static void builder_free(void *ptr)
{
    jb_builder *b = ptr;
    ruby_xfree(b->nodes);
    ruby_xfree(b->entries);
    ruby_xfree(b);
}

static size_t builder_memsize(const void *ptr)
{
    const jb_builder *b = ptr;
    return sizeof(*b) + (size_t)b->node_capa * sizeof(jb_node) + (size_t)b->entry_capa * sizeof(jb_entry);
}

static const rb_data_type_t builder_type = {
    .wrap_struct_name = "Jetson::Builder",
    .function = { .dmark = builder_mark, .dfree = builder_free, .dsize = builder_memsize },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_WB_PROTECTED,
};

jb_builder *jb_get(VALUE self)
{
    return rb_check_typeddata(self, &builder_type);
}

static VALUE builder_alloc(VALUE klass)
{
    jb_need_ruby_half();
    jb_builder *b;
    VALUE self = TypedData_Make_Struct(klass, jb_builder, &builder_type, b);
    b->self = self;
    b->key_formatter = Qnil;
    b->records_class = Qnil;
    b->casts = Qnil;
    b->record_reader = Qnil;
    b->inline_plans = Qnil;
    b->single_plans = Qnil;
    /* Key methods stand for method_missing only where method_missing is
     * Jetson::Builder's (a subclass may have its own: see builder_key_method). */
    b->own_method_missing = klass == jb.cBuilder || RTEST(rb_funcall(jb.cBuilder, jb.id_own_method_missing_p, 1, klass));
    b->captured = jb_blank();
    /* jbuilder 2.15 starts from {} */
    b->current = jb_node_slot(jb_new_node(b, JB_HASH));
    return self;
}

void jb_set_current(jb_builder *b, jb_slot s)
{
    b->current = s;
    RB_OBJ_WRITTEN(b->self, Qundef, s.value);
}

static void set_key_formatter(jb_builder *b, VALUE formatter)
{
    b->key_formatter = formatter;
    RB_OBJ_WRITTEN(b->self, Qundef, formatter);
}

static VALUE builder_set_key_formatter(VALUE self, VALUE formatter)
{
    set_key_formatter(jb_get(self), formatter);
    return formatter;
}

static VALUE builder_set_ignore_nil(VALUE self, VALUE value)
{
    jb_get(self)->ignore_nil = RTEST(value);
    return value;
}

static VALUE builder_set_deep_format_keys(VALUE self, VALUE value)
{
    jb_get(self)->deep_format_keys = RTEST(value);
    return value;
}

static VALUE builder_setup(VALUE self, VALUE key_formatter, VALUE ignore_nil, VALUE deep_format_keys)
{
    builder_set_key_formatter(self, key_formatter);
    builder_set_ignore_nil(self, ignore_nil);
    builder_set_deep_format_keys(self, deep_format_keys);
    return self;
}

/* What a scope restores when it ends (Jbuilder's _scope): @attributes and
 * the key format settings. ignore_nil! is not restored, as in Jbuilder. */
struct saved_state jb_save_state(const jb_builder *b)
{
    return (struct saved_state){ .current = b->current, .key_formatter = b->key_formatter,
                                 .deep_format_keys = b->deep_format_keys };
}

void jb_restore_state(jb_builder *b, const struct saved_state *saved)
{
    jb_set_current(b, saved->current);
    set_key_formatter(b, saved->key_formatter);
    b->deep_format_keys = saved->deep_format_keys;
}

/* _scope: runs fn with @attributes BLANK and returns what it left there;
 * the state is restored even when fn raises. */
struct scope {
    VALUE self;
    VALUE (*fn)(VALUE);
    VALUE arg;
    struct saved_state saved;
    jb_slot result;
};

static VALUE scope_body(VALUE data)
{
    struct scope *s = (struct scope *)data;
    jb_builder *b = jb_get(s->self);
    jb_set_current(b, jb_blank());
    s->fn(s->arg);
    s->result = jb_get(s->self)->current;
    return Qnil;
}

static VALUE scope_ensure(VALUE data)
{
    struct scope *s = (struct scope *)data;
    jb_restore_state(jb_get(s->self), &s->saved);
    return Qnil;
}

jb_slot jb_in_scope(VALUE self, VALUE (*fn)(VALUE), VALUE arg)
{
    jb_builder *b = jb_get(self);
    struct scope s = { .self = self, .fn = fn, .arg = arg, .saved = jb_save_state(b), .result = jb_blank() };
    rb_ensure(scope_body, (VALUE)&s, scope_ensure, (VALUE)&s);
    RB_GC_GUARD(s.saved.current.value);
    RB_GC_GUARD(s.saved.key_formatter);
    return s.result;
}

VALUE jb_yield_self(VALUE self)
{
    return rb_yield(self);
}

void jt_init_builder_instance(VALUE c)
{
    rb_define_alloc_func(c, builder_alloc);
    rb_define_private_method(c, "_setup", builder_setup, 3);
    rb_define_private_method(c, "_key_formatter=", builder_set_key_formatter, 1);
    rb_define_private_method(c, "_ignore_nil=", builder_set_ignore_nil, 1);
    rb_define_private_method(c, "_deep_format_keys=", builder_set_deep_format_keys, 1);
}
