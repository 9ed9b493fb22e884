/* Jetson::Builder's DSL: Jbuilder's methods (set!, method_missing, array!,
 * extract!, call, child!, nil!, merge!, attributes!) over the tree of
 * builder/tree.c, following jbuilder 2.15's definitions step by step. They
 * are C methods so that the hot calls (`json.id post.id`, a block per
 * element) cost no splat Array, no Proc and no Hash. The rest of the DSL
 * (construction, key formats, target!) is Ruby, in lib/jetson/builder/builder.rb;
 * the object, its settings and scopes are builder/instance.c. */

#include "builder/builder.h"
#include "rails/generate.h"

jb_handles jb;

/* --- Jbuilder's private helpers ------------------------------------------- */

/* _key: the formatted key; a Symbol's name when there is no format (kept as
 * the Symbol, see JB_KEY_NAME). A String key is held as Hash#[]= would hold
 * it (frozen; an unfrozen one as its interned copy). */
static jb_key resolve_key(jb_builder *b, VALUE key)
{
    if (NIL_P(b->key_formatter) && RB_SYMBOL_P(key)) return (jb_key){ .key = key, .kind = JB_KEY_NAME };
    VALUE str;
    if (NIL_P(b->key_formatter)) {
        str = RB_TYPE_P(key, T_STRING) ? key : rb_funcall(key, jt.id_to_s, 0);
    } else {
        str = rb_funcall(b->key_formatter, jb.id_format, 1, key); /* whatever it returns is the key */
    }
    if (RB_TYPE_P(str, T_STRING) && !OBJ_FROZEN(str)) {
        str = RBASIC_CLASS(str) == rb_cString ? rb_str_to_interned_str(str) : rb_str_new_frozen(str);
    }
    return (jb_key){ .key = str, .kind = JB_KEY_RAW };
}

NORETURN(static void raise_error(jb_builder *b, ID error, VALUE key));
static void raise_error(jb_builder *b, ID error, VALUE key)
{
    VALUE klass = rb_const_get(rb_obj_class(b->self), error);
    rb_exc_raise(rb_funcall(klass, jb.id_build, 1, key));
}

/* _format_keys: only deep_format_keys! changes values, in Ruby. */
VALUE jb_format_keys(jb_builder *b, VALUE value)
{
    if (!b->deep_format_keys || RB_SPECIAL_CONST_P(value)) return value;
    return rb_funcall(b->self, jb.id_format_keys, 1, value);
}

/* _set_value. Returns whether the value was set. */
bool jb_set_value(jb_builder *b, VALUE key, jb_slot value)
{
    jb_slot current = b->current;
    if (jb_is_nil(current)) raise_error(b, jb.id_null_error, key);
    if (jb_is_array(b, current)) raise_error(b, jb.id_array_error, key);
    if ((b->ignore_nil && jb_is_nil(value)) || jb_is_blank(value)) return false;
    if (jb_is_blank(current)) {
        current = jb_node_slot(jb_new_node(b, JB_HASH));
        jb_set_current(b, current);
    } else if (current.node == JB_RAW) {
        /* a cached object that gets a key of its own: its members become
         * entries, so the key replaces one of them or comes after them */
        current = jb_adopt_hash(b, current);
        jb_set_current(b, current);
    }
    if (current.node < 0) {
        /* @attributes is an object of the app's (a Hash given to merge!, what
         * attributes! returned): Jbuilder changes that object itself. */
        rb_funcall(current.value, jb.id_aset, 2, jb_key_object(resolve_key(b, key)), jb_materialize(b, value));
        return true;
    }
    jb_key k = resolve_key(b, key);
    jb_hash_set(b, current.node, k, value);
    RB_GC_GUARD(k.key);
    return true;
}


/* _extract: Hash#fetch or public_send for each name. */
struct extract {
    VALUE self, object;
    int argc;
    const VALUE *argv;
};

static VALUE extract(VALUE data)
{
    struct extract *x = (struct extract *)data;
    bool hash = jb_hash_p(x->object);
    /* An ActiveRecord record: its attributes from its attribute set. */
    jb_record_row rr;
    bool record = !hash && jb_record_read(jb_get(x->self), x->object, &rr);
    for (int i = 0; i < x->argc; i++) {
        VALUE name = x->argv[i];
        VALUE value;
        jb_slot slot;
        if (record && jb_record_slot(jb_get(x->self), &rr, name, &slot)) {
            jb_set_value(jb_get(x->self), name, slot);
            RB_GC_GUARD(slot.value);
            continue;
        }
        rr.fresh = false; /* Ruby code runs */
        if (hash) {
            value = rb_funcall(x->object, jb.id_fetch, 1, name);
        } else if (RB_SYMBOL_P(name) || RB_TYPE_P(name, T_STRING)) {
            value = rb_funcallv_public(x->object, rb_to_id(name), 0, NULL);
        } else {
            value = rb_funcall(x->object, jb.id_public_send, 1, name); /* its TypeError */
        }
        jb_builder *b = jb_get(x->self);
        jb_set_value(b, name, jb_leaf(jb_format_keys(b, value)));
    }
    return Qnil;
}

/* _merge_block: the block's object merged into the key's current value. */
static jb_slot merge_block(VALUE self, VALUE key, VALUE (*fn)(VALUE), VALUE arg)
{
    jb_builder *b = jb_get(self);
    jb_slot current = jb_blank();
    if (b->current.node == JB_RAW && !jb_is_array(b, b->current)) jb_set_current(b, jb_adopt_hash(b, b->current));
    if (!jb_is_blank(b->current)) {
        jb_slot attributes = b->current;
        if (attributes.node >= 0 && b->nodes[attributes.node].kind == JB_HASH) {
            int32_t i = jb_hash_find(b, attributes.node, resolve_key(b, key));
            if (i >= 0) current = jb_entry_slot(&b->entries[i]);
        } else {
            /* nil, an Array, another object: Ruby's fetch raises as it does for Jbuilder */
            VALUE found = rb_funcall(jb_materialize(b, attributes), jb.id_fetch, 2,
                                     jb_key_object(resolve_key(b, key)), jb.blank);
            if (found != jb.blank) current = jb_leaf(found);
        }
    }
    if (jb_is_nil(current)) raise_error(b, jb.id_null_error, key);
    jb_slot updates = jb_in_scope(self, fn, arg);
    RB_GC_GUARD(current.value);
    return jb_merge_values(jb_get(self), current, updates);
}

/* --- collections ----------------------------------------------------------- */

struct collection {
    VALUE self;
    int32_t node; /* the Array being built */
    int argc;     /* attributes to extract from each element, when there is no block */
    const VALUE *argv;
    bool block;
    struct saved_state saved; /* the state every element starts from and returns to */
};

/* One element of _map_collection: its own scope; elements that set nothing
 * are left out. */
static void map_element(struct collection *c, VALUE element)
{
    jb_builder *b = jb_get(c->self);
    jb_set_current(b, jb_blank());
    if (c->block) {
        rb_yield(element);
    } else {
        struct extract x = { .self = c->self, .object = element, .argc = c->argc, .argv = c->argv };
        extract((VALUE)&x);
    }
    b = jb_get(c->self);
    jb_slot result = b->current;
    jb_restore_state(b, &c->saved);
    if (!jb_is_blank(result)) jb_array_push(b, c->node, result);
    RB_GC_GUARD(result.value);
}

static VALUE map_i(RB_BLOCK_CALL_FUNC_ARGLIST(element, data))
{
    map_element((struct collection *)data, element);
    return Qnil;
}

struct map_call {
    struct collection *c;
    VALUE collection;
};

/* An ActiveRecord relation or association (post.comments) maps by walking
 * its records: when its map, each and records are ActiveRecord's own (asked
 * of Ruby once per class and builder), those records are walked directly,
 * without the relation's map and the Array it builds. Qnil otherwise. */
static VALUE relation_records(jb_builder *b, VALUE collection)
{
    if (RB_SPECIAL_CONST_P(collection) || RB_BUILTIN_TYPE(collection) != T_OBJECT) return Qnil;
    VALUE klass = CLASS_OF(collection);
    if (klass != b->records_class) {
        b->records_ok = RTEST(rb_funcall(jb.cBuilder, jb.id_plain_relation_p, 1, collection));
        b->records_class = klass;
        RB_OBJ_WRITTEN(b->self, Qundef, klass);
    }
    if (!b->records_ok) return Qnil;
    VALUE records = rb_funcall(collection, jb.id_records, 0);
    return RB_TYPE_P(records, T_ARRAY) ? records : Qnil;
}

static VALUE map_collection_body(VALUE data)
{
    struct map_call *m = (struct map_call *)data;
    VALUE collection = m->collection;
    VALUE records = relation_records(jb_get(m->c->self), collection);
    if (!NIL_P(records)) collection = records;
    if (RB_TYPE_P(collection, T_ARRAY) && RBASIC_CLASS(collection) == rb_cArray &&
        rb_method_basic_definition_p(rb_cArray, jb.id_map)) {
        /* Array#map's loop: the length is read again each time */
        for (long i = 0; i < RARRAY_LEN(collection); i++) map_element(m->c, RARRAY_AREF(collection, i));
    } else {
        VALUE mapped = rb_block_call(collection, jb.id_map, 0, NULL, map_i, (VALUE)m->c);
        /* Jbuilder then calls delete(BLANK) on what map returned: an Array
         * here, but a lazy Enumerator has no delete (and never ran the block) */
        if (!RB_TYPE_P(mapped, T_ARRAY)) rb_funcall(mapped, jb.id_delete, 1, jb.blank);
    }
    RB_GC_GUARD(records);
    return Qnil;
}

static VALUE map_collection_ensure(VALUE data)
{
    struct map_call *m = (struct map_call *)data;
    jb_restore_state(jb_get(m->c->self), &m->c->saved);
    return Qnil;
}

/* _map_collection: collection.map, each element in its own scope. One
 * rb_ensure for the whole loop restores the state an exception would leave
 * (every element starts from the same state, so that is the same state
 * Jbuilder's per-element ensure leaves). */
static jb_slot map_collection(VALUE self, VALUE collection, int argc, const VALUE *argv, bool block)
{
    jb_builder *b = jb_get(self);
    struct collection c = { .self = self, .node = jb_new_node(b, JB_ARRAY), .argc = argc, .argv = argv,
                            .block = block, .saved = jb_save_state(b) };
    struct map_call m = { .c = &c, .collection = collection };
    rb_ensure(map_collection_body, (VALUE)&m, map_collection_ensure, (VALUE)&m);
    RB_GC_GUARD(c.saved.current.value);
    RB_GC_GUARD(c.saved.key_formatter);
    RB_GC_GUARD(collection);
    return jb_node_slot(c.node);
}

/* `_scope { _array(collection, attributes, &block) }`, the value of
 * `json.key(collection) { ... }`: in a fresh scope _array merges its Array
 * into BLANK, which gives the Array itself, and the scope restores nothing
 * the elements' own scopes do not (map_collection). So the Array is built
 * directly, without a scope of its own. */
static jb_slot collection_value(VALUE self, VALUE collection, int argc, const VALUE *argv, bool block)
{
    /* Jbuilder's frozen EMPTY_ARRAY: a child! onto it raises FrozenError */
    if (NIL_P(collection)) return jb_leaf(jb.empty_array);
    if (block || argc > 0) return map_collection(self, collection, argc, argv, block);
    jb_builder *b = jb_get(self);
    return jb_leaf(jb_format_keys(b, rb_funcall(collection, jb.id_to_a, 0)));
}

/* _array: the collection's Array merged into @attributes. */
static void array(VALUE self, VALUE collection, int argc, const VALUE *argv, bool block)
{
    jb_slot list = collection_value(self, collection, argc, argv, block);
    jb_builder *b = jb_get(self);
    jb_set_current(b, jb_merge_values(b, b->current, list));
    RB_GC_GUARD(list.value);
}

/* _is_collection? */
bool jb_collection_p(jb_builder *b, VALUE object)
{
    if (jb_record_not_collection(b, object)) return false;
    return rb_respond_to(object, jb.id_map) && rb_respond_to(object, jb.id_count) &&
           !(RB_TYPE_P(object, T_STRUCT) && RTEST(rb_obj_is_kind_of(object, rb_cStruct)));
}

/* JbuilderTemplate's _partial_options?: a Hash with both :as and :partial. */
static bool partial_options_p(VALUE options)
{
    if (!RB_TYPE_P(options, T_HASH)) return false;
    if (RBASIC_CLASS(options) == rb_cHash) {
        return rb_hash_lookup2(options, jb.sym_as, Qundef) != Qundef &&
               rb_hash_lookup2(options, jb.sym_partial, Qundef) != Qundef;
    }
    return RTEST(rb_funcall(options, jb.id_key_p, 1, jb.sym_as)) &&
           RTEST(rb_funcall(options, jb.id_key_p, 1, jb.sym_partial));
}

/* _set(key, value = BLANK, attributes) */
static VALUE set(VALUE self, VALUE key, VALUE value, int argc, const VALUE *argv)
{
    jb_slot result;
    jb_builder *b = jb_get(self);
    if (b->template && argc >= 1 && partial_options_p(argv[0])) {
        /* `json.author post.author, partial: "authors/author", as: :author` */
        VALUE done;
        if (argc == 1 && jb_inline_partial(self, key, value, argv[0], &done)) return done;
        /* `json.comments post.comments, partial: "comments/comment", as: :comment` */
        VALUE options = rb_funcall(argv[0], jb.id_dup, 0);
        return rb_funcall(self, jb.id_set_inline_partial, 3, key, value, options);
    }
    if (rb_block_given_p()) {
        if (value == jb.blank) {
            result = merge_block(self, key, jb_yield_self, self);
        } else {
            result = collection_value(self, value, 0, NULL, true);
        }
    } else if (argc == 0) {
        if (value == jb.blank) {
            result = jb_blank(); /* json.class: nothing is set (the checks still run) */
        } else if (RB_TYPE_P(value, T_DATA) && RTEST(rb_obj_is_kind_of(value, jb.cBuilder))) {
            value = rb_funcall(value, jb.id_attributes_bang, 0);
            result = jb_leaf(jb_format_keys(b, value));
        } else {
            result = jb_leaf(jb_format_keys(b, value));
        }
    } else if (jb_collection_p(b, value)) {
        result = collection_value(self, value, argc, argv, false);
    } else {
        struct extract x = { .self = self, .object = value, .argc = argc, .argv = argv };
        result = merge_block(self, key, extract, (VALUE)&x);
    }
    bool stored = jb_set_value(jb_get(self), key, result);
    RB_GC_GUARD(result.value);
    /* Jbuilder returns what it stored (`hash[key] = value`). A plain value is
     * returned as such; a block's object would have to be built as Ruby
     * objects for it, so block forms return nil. */
    return stored && result.node == JB_LEAF ? result.value : Qnil;
}

/* --- the DSL ------------------------------------------------------------------ */

/* set!(key, value = BLANK, *attributes, &block); method_missing is the same
 * with the method name as the key. Returns nil, as Jbuilder's does in
 * practice (templates do not use the value). */
static VALUE builder_set_bang(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, UNLIMITED_ARGUMENTS);
    return set(self, argv[0], argc > 1 ? argv[1] : jb.blank, argc > 2 ? argc - 2 : 0, argv + 2);
}

/* `json.id post.id`: a key method. Names met by method_missing become real
 * methods of Jetson::Builder (this function under many names), so later
 * calls skip Ruby's method_missing dispatch, which is slow and which YJIT
 * does not compile. Only plain names are defined, never one Ruby may look up
 * on its own with respond-to semantics (to_ary, to_str, to_hash... are
 * asked of any object, and must stay undefined as on Jbuilder), nor one the
 * class already has in any visibility (initialize...). */
static VALUE builder_key_method(int argc, VALUE *argv, VALUE self)
{
    VALUE key = ID2SYM(rb_frame_this_func());
    if (RB_UNLIKELY(!jb_get(self)->own_method_missing)) {
        /* A subclass with a method_missing of its own gets the call it
         * would get without this method. */
        VALUE *args = ALLOCA_N(VALUE, argc + 1);
        args[0] = key;
        MEMCPY(args + 1, argv, VALUE, argc);
        return rb_funcall_passing_block(self, jb.id_method_missing, argc + 1, args);
    }
    if (argc == 1 && !rb_block_given_p()) {
        /* The common `json.id post.id` inside an object: what set and
         * set_value would decide, without their general checks. */
        jb_builder *b = jb_get(self);
        VALUE value = argv[0];
        if (b->current.node >= 0 && b->nodes[b->current.node].kind == JB_HASH && NIL_P(b->key_formatter) &&
            !b->deep_format_keys && !(b->ignore_nil && NIL_P(value)) && value != jb.blank &&
            !RB_TYPE_P(value, T_DATA)) {
            jb_hash_set(b, b->current.node, (jb_key){ .key = key, .kind = JB_KEY_NAME }, jb_leaf(value));
            return value;
        }
    }
    return set(self, key, argc > 0 ? argv[0] : jb.blank, argc > 1 ? argc - 1 : 0, argv + 1);
}

static bool key_method_name(VALUE name)
{
    if (!RB_STATIC_SYM_P(name)) return false; /* a dynamic Symbol would be pinned forever */
    ID id = SYM2ID(name);
    if (!rb_is_local_id(id)) return false;
    VALUE str = rb_sym2str(name);
    const char *p = RSTRING_PTR(str);
    long n = RSTRING_LEN(str);
    if (n >= 3 && memcmp(p, "to_", 3) == 0) return false;
    if (n >= 1 && p[0] == '_') return false; /* _dump, _load, Jetson's own _helpers */
    static const char *const reserved[] = { "hash", "inspect", "initialize", "initialize_copy", "initialize_dup",
                                            "initialize_clone", "marshal_dump", "marshal_load", "coerce",
                                            "respond_to", "method_missing", "each", "call" };
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        if ((size_t)n == strlen(reserved[i]) && memcmp(p, reserved[i], (size_t)n) == 0) return false;
    }
    return !rb_method_boundp(jb.cBuilder, id, 0);
}

static VALUE builder_method_missing(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, UNLIMITED_ARGUMENTS);
    if (jb_get(self)->own_method_missing && key_method_name(argv[0])) {
        rb_define_method_id(jb.cBuilder, SYM2ID(argv[0]), builder_key_method, -1);
    }
    return builder_set_bang(argc, argv, self);
}

/* array!(collection = [], *attributes, &block) */
static VALUE builder_array_bang(int argc, VALUE *argv, VALUE self)
{
    VALUE collection = argc > 0 ? argv[0] : jb.empty_array;
    if (argc >= 2 && jb_get(self)->template && partial_options_p(argv[1])) {
        /* `json.array! @posts, partial: "posts/post", as: :post` */
        VALUE options = rb_funcall(argv[1], jb.id_dup, 0);
        rb_funcall(options, jb.id_aset, 2, jb.sym_collection, collection);
        return rb_funcall(self, jb.id_render_partial_with_options, 1, options);
    }
    array(self, collection, argc > 1 ? argc - 1 : 0, argv + 1, rb_block_given_p());
    /* Jbuilder returns its Array (`json.array!(posts) { ... }.to_json`);
     * a copy here, so that the document stays native. */
    jb_builder *b = jb_get(self);
    return b->in_view ? Qnil : jb_materialize(b, b->current);
}

/* extract!(object, *attributes) */
static VALUE builder_extract_bang(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, UNLIMITED_ARGUMENTS);
    struct extract x = { .self = self, .object = argv[0], .argc = argc - 1, .argv = argv + 1 };
    extract((VALUE)&x);
    return Qnil;
}

/* call(object, *attributes, &block): json.(object, :a, :b) */
static VALUE builder_call(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, UNLIMITED_ARGUMENTS);
    if (rb_block_given_p()) {
        array(self, argv[0], 0, NULL, true);
    } else {
        builder_extract_bang(argc, argv, self);
    }
    return Qnil;
}

/* child!: the current node becomes an Array (keys set before are dropped)
 * and gets the block's object, even an empty one. */
static VALUE builder_child_bang(VALUE self)
{
    jb_builder *b = jb_get(self);
    jb_slot current = b->current;
    if (current.node == JB_RAW && jb_is_array(b, current)) current = jb_adopt_array(b, current); /* a cached Array */
    if (current.node < 0 || b->nodes[current.node].kind != JB_ARRAY) {
        if (current.node == JB_LEAF && jb_array_p(current.value)) {
            /* an Array of the app's (array! without a block keeps it): Jbuilder pushes onto it */
            jb_slot item = jb_in_scope(self, jb_yield_self, self);
            rb_ary_push(current.value, jb_materialize(jb_get(self), item));
            return Qnil;
        }
        current = jb_node_slot(jb_new_node(b, JB_ARRAY));
    }
    jb_set_current(b, current);
    jb_slot item = jb_in_scope(self, jb_yield_self, self);
    jb_array_push(jb_get(self), current.node, item);
    RB_GC_GUARD(item.value);
    return Qnil;
}

static VALUE builder_nil_bang(VALUE self)
{
    jb_set_current(jb_get(self), jb_leaf(Qnil));
    return Qnil;
}

/* attributes!: Jbuilder hands out its live Hash (or Array), which later
 * calls go on changing and which an app may put back into the document. So
 * the Ruby object built here becomes the document from now on (later calls
 * take Ruby's slower paths on it). */
static VALUE builder_attributes_bang(VALUE self)
{
    jb_builder *b = jb_get(self);
    VALUE tree = jb_materialize(b, b->current);
    if (b->current.node >= 0 || b->current.node == JB_RAW) jb_set_current(b, jb_leaf(tree));
    return tree;
}

/* merge!(hash_or_array_or_builder) */
static VALUE builder_merge_bang(VALUE self, VALUE object)
{
    if (RB_TYPE_P(object, T_DATA) && RTEST(rb_obj_is_kind_of(object, jb.cBuilder))) object = rb_funcall(object, jb.id_attributes_bang, 0);
    jb_builder *b = jb_get(self);
    object = jb_format_keys(b, object);
    jb_set_current(b, jb_merge_values(b, b->current, jb_leaf(object)));
    RB_GC_GUARD(object);
    return Qnil;
}

/* merge! of something the tree holds natively (a captured block, a
 * collection built from partials, a cached fragment): Jbuilder formats the
 * keys of what it merges again under deep_format_keys!, which Ruby does on
 * the Ruby objects. */
void jb_merge_into_current(VALUE self, jb_slot updates)
{
    if (jb_is_blank(updates)) return;
    jb_builder *b = jb_get(self);
    if (b->deep_format_keys) {
        VALUE object = jb_format_keys(b, jb_materialize(b, updates));
        updates = jb_leaf(object);
        b = jb_get(self);
    }
    jb_set_current(b, jb_merge_values(b, b->current, updates));
    RB_GC_GUARD(updates.value);
}

/* _key(key), for the Ruby side's _format_keys. */
static VALUE builder_key(VALUE self, VALUE key)
{
    return jb_key_object(resolve_key(jb_get(self), key));
}

/* _encode(escape_html, standard_time, precision, classes, active_model, flags, coder_proc):
 * the document with ActiveSupport's encoding (see Jetson.rails_generate). */
static VALUE builder_encode(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 7, 7);
    jt_rails_settings settings;
    jt_rails_settings_from_args(&settings, argv);
    VALUE coder_proc = jt_rails_settings_apply_encoder(&settings, argv[5], argv[6]);
    VALUE result = jt_generate_rails_with(jb_write, self, &settings, coder_proc);
    jb_trim(jb_get(self));
    RB_GC_GUARD(self);
    return result;
}

void jt_init_builder(void)
{
    jb.cBuilder = rb_define_class_under(jt.mJetson, "Builder", rb_cBasicObject);
    rb_gc_register_mark_object(jb.cBuilder);
    VALUE blank_class = rb_define_class_under(jb.cBuilder, "Blank", rb_cObject);
    jb.blank = rb_obj_freeze(rb_obj_alloc(blank_class));
    rb_define_const(jb.cBuilder, "BLANK", jb.blank);
    rb_gc_register_mark_object(jb.blank);

    jb.empty_array = rb_obj_freeze(rb_ary_new());
    rb_gc_register_mark_object(jb.empty_array);
    jt_intern_ids("format empty? present? _parse_json _set_inline_partial _render_partial_with_options key? dup _run "
                "element_error iterate! method_name each",
        (ID *const[]){&jb.id_format, &jb.id_empty_p, &jb.id_present_p, &jb.id_parse_json, &jb.id_set_inline_partial,
            &jb.id_render_partial_with_options, &jb.id_key_p, &jb.id_dup, &jb.id__run, &jb.id_element_error,
            &jb.id_iterate_bang, &jb.id_method_name, &jb.id_each, NULL});
    jb.sym_as = ID2SYM(rb_intern("as"));
    jb.sym_partial = ID2SYM(rb_intern("partial"));
    jb.sym_collection = ID2SYM(rb_intern("collection"));
    jt_intern_ids("deep_merge + []= fetch build map count public_send _format_keys attributes! NullError ArrayError "
                "MergeError to_a delete records plain_relation? own_method_missing? method_missing initialize",
        (ID *const[]){&jb.id_deep_merge, &jb.id_plus, &jb.id_aset, &jb.id_fetch, &jb.id_build, &jb.id_map,
            &jb.id_count, &jb.id_public_send, &jb.id_format_keys, &jb.id_attributes_bang, &jb.id_null_error,
            &jb.id_array_error, &jb.id_merge_error, &jb.id_to_a, &jb.id_delete, &jb.id_records,
            &jb.id_plain_relation_p, &jb.id_own_method_missing_p, &jb.id_method_missing, &jb.id_initialize, NULL});

    VALUE c = jb.cBuilder;
    jt_init_builder_instance(c);
    rb_define_method(c, "set!", builder_set_bang, -1);
    rb_define_private_method(c, "method_missing", builder_method_missing, -1);
    rb_define_method(c, "array!", builder_array_bang, -1);
    rb_define_method(c, "extract!", builder_extract_bang, -1);
    rb_define_method(c, "call", builder_call, -1);
    rb_define_method(c, "child!", builder_child_bang, 0);
    rb_define_method(c, "nil!", builder_nil_bang, 0);
    rb_define_method(c, "null!", builder_nil_bang, 0);
    rb_define_method(c, "attributes!", builder_attributes_bang, 0);
    rb_define_method(c, "merge!", builder_merge_bang, 1);
    rb_define_private_method(c, "_key", builder_key, 1);
    rb_define_private_method(c, "_encode", builder_encode, -1);
    jt_init_builder_fragments();
    jt_init_builder_records();
    jt_init_builder_partials();
    jt_init_builder_view_events();
    jt_init_builder_ruby_half();
}
