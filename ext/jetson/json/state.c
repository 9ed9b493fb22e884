#include "json/state.h"
#include "bytes/buffer.h"

/* The configuration's Ruby values, the one list the GC's marking and
 * compaction both walk (a value added to jt_config goes here, once). */
#define STATE_VALUES(cfg) \
    { &(cfg)->indent, &(cfg)->space, &(cfg)->space_before, &(cfg)->object_nl, &(cfg)->array_nl, \
      &(cfg)->as_json, &(cfg)->sort_keys }

static void state_mark(void *ptr)
{
    jt_config *cfg = ptr;
    VALUE *values[] = STATE_VALUES(cfg);
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) rb_gc_mark_movable(*values[i]);
}

static void state_compact(void *ptr)
{
    jt_config *cfg = ptr;
    VALUE *values[] = STATE_VALUES(cfg);
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) *values[i] = rb_gc_location(*values[i]);
}

static size_t state_memsize(const void *ptr)
{
    return sizeof(jt_config);
}

static const rb_data_type_t state_type = {
    .wrap_struct_name = "Jetson::State",
    .function = {
        .dmark = state_mark,
        .dfree = RUBY_TYPED_DEFAULT_FREE,
        .dsize = state_memsize,
        .dcompact = state_compact,
    },
    .flags = RUBY_TYPED_WB_PROTECTED | RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_FROZEN_SHAREABLE,
};

static VALUE state_alloc(VALUE klass)
{
    jt_config *cfg;
    VALUE obj = TypedData_Make_Struct(klass, jt_config, &state_type, cfg);
    jt_config_init(cfg);
    return obj;
}

bool jt_is_state(VALUE obj)
{
    return rb_typeddata_is_kind_of(obj, &state_type);
}

jt_config *jt_state_config(VALUE state)
{
    return rb_check_typeddata(state, &state_type);
}

/* Stores a VALUE field, with a write barrier when the config belongs to a
 * State object. */
static void set_field(VALUE owner, VALUE *field, VALUE value)
{
    if (owner) {
        RB_OBJ_WRITE(owner, field, value);
    } else {
        *field = value;
    }
}

static VALUE string_option(VALUE value, bool owned)
{
    if (!RTEST(value)) return 0;
    Check_Type(value, T_STRING);
    if (RSTRING_LEN(value) == 0) return 0;
    /* A State keeps its own frozen copy; a one-off call only borrows it. */
    return owned ? rb_str_new_frozen(value) : value;
}

static long long_option(VALUE value)
{
    return RTEST(value) ? NUM2LONG(value) : 0;
}

static long depth_option(VALUE value)
{
    if (!RTEST(value)) return 0;
    long depth = NUM2LONG(value);
    if (depth < 0) rb_raise(rb_eArgError, "depth must be >= 0 (got %ld)", depth);
    if (depth > INT_MAX) rb_raise(rb_eArgError, "depth is too large (got %ld)", depth);
    return depth;
}

static VALUE sort_keys_option(VALUE value)
{
    if (rb_obj_is_proc(value)) return value;
    if (value == Qtrue) return rb_const_get(jj.cState, jj.id_default_sort_keys);
    if (RTEST(value)) rb_raise(rb_eTypeError, "The `sort_keys` argument must be a boolean or a Proc");
    return Qfalse;
}

static void buffer_initial_length_option(jt_config *cfg, VALUE value)
{
    Check_Type(value, T_FIXNUM);
    long length = FIX2LONG(value);
    if (length > 0) cfg->buffer_initial_length = length;
}

/* json 3 accepts anything with a to_proc that gives a Proc, and says so
 * when it cannot; json 2 wanted an implicit conversion. */
static VALUE as_json_option(VALUE value)
{
    if (!jj.json3) return rb_convert_type(value, T_DATA, "Proc", "to_proc");
    if (rb_obj_is_proc(value)) return value;
    VALUE proc = rb_check_funcall(value, rb_intern("to_proc"), 0, NULL);
    if (proc == Qundef || !rb_obj_is_proc(proc)) rb_raise(rb_eTypeError, "as_json must be a Proc");
    return proc;
}

struct apply_arg {
    jt_config *cfg;
    VALUE owner;
    VALUE unknown; /* json 3: the keys that are no option, in order (an Array made on the first), or 0 */
};

/* json 3 names every unknown key, once all the known ones are applied. */
NORETURN(static void raise_unknown_options(VALUE unknown));
static void raise_unknown_options(VALUE unknown)
{
    if (RARRAY_LEN(unknown) == 1) rb_raise(rb_eArgError, "unknown keyword: %"PRIsVALUE, RARRAY_AREF(unknown, 0));
    rb_raise(rb_eArgError, "unknown keywords: %"PRIsVALUE, rb_ary_join(unknown, rb_str_new_cstr(", ")));
}

static int apply_option_i(VALUE key, VALUE value, VALUE data)
{
    struct apply_arg *arg = (struct apply_arg *)data;
    jt_config *cfg = arg->cfg;
    VALUE owner = arg->owner;
    bool owned = owner != 0;

    if (key == jj.sym_indent) set_field(owner, &cfg->indent, string_option(value, owned));
    else if (key == jj.sym_space) set_field(owner, &cfg->space, string_option(value, owned));
    else if (key == jj.sym_space_before) set_field(owner, &cfg->space_before, string_option(value, owned));
    else if (key == jj.sym_object_nl) set_field(owner, &cfg->object_nl, string_option(value, owned));
    else if (key == jj.sym_array_nl) set_field(owner, &cfg->array_nl, string_option(value, owned));
    else if (key == jj.sym_max_nesting) cfg->max_nesting = long_option(value);
    else if (key == jj.sym_depth) cfg->depth = depth_option(value);
    else if (key == jj.sym_allow_nan) cfg->allow_nan = RTEST(value);
    else if (key == jj.sym_ascii_only) cfg->ascii_only = RTEST(value);
    else if (key == jj.sym_script_safe || (key == jj.sym_escape_slash && !jj.json3)) cfg->script_safe = RTEST(value);
    else if (key == jj.sym_strict) cfg->strict = RTEST(value);
    else if (key == jj.sym_buffer_initial_length) buffer_initial_length_option(cfg, value);
    else if (key == jj.sym_allow_duplicate_key) cfg->on_duplicate_key = RTEST(value) ? JT_DUP_IGNORE : JT_DUP_RAISE;
    else if (key == jj.sym_rfc8785) cfg->rfc8785 = RTEST(value);
    else if (key == jj.sym_as_json) {
        VALUE proc = RTEST(value) ? as_json_option(value) : Qfalse;
        set_field(owner, &cfg->as_json, proc);
    } else if (key == jj.sym_sort_keys) {
        set_field(owner, &cfg->sort_keys, sort_keys_option(value));
    } else if (jj.json3) {
        /* json 3 raises for a misspelled option; json 2 ignored it. */
        if (!arg->unknown) arg->unknown = rb_ary_new();
        rb_ary_push(arg->unknown, key);
    }
    return ST_CONTINUE;
}

void jt_config_apply(jt_config *cfg, VALUE owner, VALUE opts)
{
    if (!RTEST(opts)) return;
    Check_Type(opts, T_HASH);
    if (RHASH_SIZE(opts) == 0) return;
    struct apply_arg arg = { cfg, owner, 0 };
    rb_hash_foreach(opts, apply_option_i, (VALUE)&arg);
    if (RB_UNLIKELY(arg.unknown)) raise_unknown_options(arg.unknown);
    jt_canonical_validate(cfg);
}

/* JSON::<name> when the json gem is loaded and defines it; Qnil otherwise.
 * Looked up on each use: the json gem may be loaded after Jetson. */
VALUE jt_json_gem_constant(ID name)
{
    if (!rb_const_defined(rb_cObject, jj.id_json_module)) return Qnil;
    VALUE mJSON = rb_const_get(rb_cObject, jj.id_json_module);
    /* _at: a top-level constant of the same name is not the json gem's. */
    if (!RB_TYPE_P(mJSON, T_MODULE) || !rb_const_defined_at(mJSON, name)) return Qnil;
    return rb_const_get_at(mJSON, name);
}

void jt_config_from_opts(jt_config *cfg, VALUE opts)
{
    if (NIL_P(opts) || opts == Qfalse) return;
    if (RB_TYPE_P(opts, T_HASH)) {
        jt_config_apply(cfg, 0, opts);
    } else if (jt_is_state(opts)) {
        *cfg = *jt_state_config(opts);
    } else {
        VALUE json_state = jt_json_gem_constant(jj.id_json_state_class);
        if (!NIL_P(json_state) && RTEST(rb_obj_is_kind_of(opts, json_state))) {
            /* Someone's to_json handed us the json gem's State: honour its options. */
            VALUE hash = rb_funcall(opts, jt.id_to_h, 0);
            jt_config_apply(cfg, 0, hash);
            RB_GC_GUARD(hash);
        } else {
            Check_Type(opts, T_HASH);
        }
    }
}

VALUE jt_state_new_from_config(const jt_config *src, long depth)
{
    VALUE obj = state_alloc(jj.cState);
    jt_config *cfg = jt_state_config(obj);
    *cfg = *src;
    cfg->depth = depth;
    /* Borrowed layout strings become the State's own frozen copies. */
    VALUE *strings[] = { &cfg->indent, &cfg->space, &cfg->space_before, &cfg->object_nl, &cfg->array_nl };
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        if (*strings[i]) RB_OBJ_WRITE(obj, strings[i], rb_str_new_frozen(*strings[i]));
    }
    RB_OBJ_WRITTEN(obj, Qundef, cfg->as_json);
    RB_OBJ_WRITTEN(obj, Qundef, cfg->sort_keys);
    return obj;
}

/* --- Ruby methods ---------------------------------------------------- */

#define GET_CONFIG(self) jt_config *cfg = jt_state_config(self)

static VALUE layout_string(VALUE value)
{
    return value ? value : rb_str_freeze(rb_utf8_str_new("", 0));
}

static VALUE state_configure(VALUE self, VALUE opts)
{
    rb_check_frozen(self);
    GET_CONFIG(self);
    jt_config_apply(cfg, self, opts);
    return self;
}

static VALUE state_init_copy(VALUE copy, VALUE orig)
{
    if (copy == orig) return copy;
    rb_obj_init_copy(copy, orig);
    jt_config *dst = jt_state_config(copy);
    *dst = *jt_state_config(orig);
    RB_OBJ_WRITTEN(copy, Qundef, dst->indent);
    RB_OBJ_WRITTEN(copy, Qundef, dst->space);
    RB_OBJ_WRITTEN(copy, Qundef, dst->space_before);
    RB_OBJ_WRITTEN(copy, Qundef, dst->object_nl);
    RB_OBJ_WRITTEN(copy, Qundef, dst->array_nl);
    RB_OBJ_WRITTEN(copy, Qundef, dst->as_json);
    RB_OBJ_WRITTEN(copy, Qundef, dst->sort_keys);
    return copy;
}

/* An option's reader and writer: `get` is what the reader returns, `set`
 * what the writer does with `value` (both see the State's cfg). */
#define ACCESSOR(name, get, set)                                         \
    static VALUE state_##name(VALUE self)                                \
    {                                                                    \
        GET_CONFIG(self);                                                \
        return (get);                                                    \
    }                                                                    \
    static VALUE state_set_##name(VALUE self, VALUE value)               \
    {                                                                    \
        rb_check_frozen(self);                                           \
        GET_CONFIG(self);                                                \
        set;                                                             \
        return Qnil;                                                     \
    }

/* The layout Strings: "" when unset. */
#define STRING_ACCESSOR(name) \
    ACCESSOR(name, layout_string(cfg->name), RB_OBJ_WRITE(self, &cfg->name, string_option(value, true)))
STRING_ACCESSOR(indent)
STRING_ACCESSOR(space)
STRING_ACCESSOR(space_before)
STRING_ACCESSOR(object_nl)
STRING_ACCESSOR(array_nl)

#define FLAG_ACCESSOR(name) ACCESSOR(name, cfg->name ? Qtrue : Qfalse, cfg->name = RTEST(value))
FLAG_ACCESSOR(allow_nan)
FLAG_ACCESSOR(ascii_only)
FLAG_ACCESSOR(script_safe)
FLAG_ACCESSOR(strict)
FLAG_ACCESSOR(rfc8785)

/* Integers: max_nesting (0: no limit), depth, buffer_initial_length. */
ACCESSOR(max_nesting, LONG2FIX(cfg->max_nesting), cfg->max_nesting = long_option(value))
ACCESSOR(depth, LONG2FIX(cfg->depth), cfg->depth = depth_option(value))
ACCESSOR(buffer_initial_length, LONG2FIX(cfg->buffer_initial_length), buffer_initial_length_option(cfg, value))

/* Procs (or false). */
ACCESSOR(as_json, cfg->as_json, RB_OBJ_WRITE(self, &cfg->as_json, as_json_option(value)))
ACCESSOR(sort_keys, cfg->sort_keys, RB_OBJ_WRITE(self, &cfg->sort_keys, sort_keys_option(value)))

static VALUE state_check_circular(VALUE self)
{
    GET_CONFIG(self);
    return cfg->max_nesting ? Qtrue : Qfalse;
}

static VALUE state_allow_duplicate_key(VALUE self)
{
    GET_CONFIG(self);
    switch (cfg->on_duplicate_key) {
        case JT_DUP_IGNORE: return Qtrue;
        case JT_DUP_RAISE: return Qfalse;
        default: return Qnil;
    }
}

void jt_init_state(void)
{
    VALUE c = jj.cState;
    rb_define_alloc_func(c, state_alloc);
    rb_define_private_method(c, "_configure", state_configure, 1);
    rb_define_method(c, "initialize_copy", state_init_copy, 1);
    rb_define_method(c, "indent", state_indent, 0);
    rb_define_method(c, "indent=", state_set_indent, 1);
    rb_define_method(c, "space", state_space, 0);
    rb_define_method(c, "space=", state_set_space, 1);
    rb_define_method(c, "space_before", state_space_before, 0);
    rb_define_method(c, "space_before=", state_set_space_before, 1);
    rb_define_method(c, "object_nl", state_object_nl, 0);
    rb_define_method(c, "object_nl=", state_set_object_nl, 1);
    rb_define_method(c, "array_nl", state_array_nl, 0);
    rb_define_method(c, "array_nl=", state_set_array_nl, 1);
    rb_define_method(c, "allow_nan?", state_allow_nan, 0);
    rb_define_method(c, "allow_nan=", state_set_allow_nan, 1);
    rb_define_method(c, "ascii_only?", state_ascii_only, 0);
    rb_define_method(c, "ascii_only=", state_set_ascii_only, 1);
    rb_define_method(c, "script_safe", state_script_safe, 0);
    rb_define_method(c, "script_safe?", state_script_safe, 0);
    rb_define_method(c, "script_safe=", state_set_script_safe, 1);
    if (!jj.json3) { /* removed in json 3 */
        rb_define_alias(c, "escape_slash", "script_safe");
        rb_define_alias(c, "escape_slash?", "script_safe?");
        rb_define_alias(c, "escape_slash=", "script_safe=");
    }
    rb_define_method(c, "strict", state_strict, 0);
    rb_define_method(c, "strict?", state_strict, 0);
    rb_define_method(c, "strict=", state_set_strict, 1);
    rb_define_method(c, "max_nesting", state_max_nesting, 0);
    rb_define_method(c, "max_nesting=", state_set_max_nesting, 1);
    rb_define_method(c, "check_circular?", state_check_circular, 0);
    rb_define_method(c, "depth", state_depth, 0);
    rb_define_method(c, "depth=", state_set_depth, 1);
    rb_define_method(c, "buffer_initial_length", state_buffer_initial_length, 0);
    rb_define_method(c, "buffer_initial_length=", state_set_buffer_initial_length, 1);
    rb_define_method(c, "as_json", state_as_json, 0);
    rb_define_method(c, "as_json=", state_set_as_json, 1);
    rb_define_method(c, "sort_keys", state_sort_keys, 0);
    rb_define_method(c, "sort_keys=", state_set_sort_keys, 1);
    rb_define_method(c, "rfc8785?", state_rfc8785, 0);
    rb_define_method(c, "rfc8785=", state_set_rfc8785, 1);
    rb_define_private_method(c, "allow_duplicate_key?", state_allow_duplicate_key, 0);
}
