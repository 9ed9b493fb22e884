/* The native side of JbuilderTemplate (lib/jetson/views/jbuilder_template.rb):
 * what partials, collections and fragment caching need from the builder
 * beyond Jbuilder's DSL.
 *
 * - Partials write into the same native document: a collection of partials is
 *   an Array node that each element's scope is pushed onto (no Hash per
 *   element, no RenderedTemplate), merged into the document at the end as
 *   Jbuilder merges its Array of bodies.
 * - Fragment caching stores JSON text: a cache! block or a collection element
 *   is captured, written as JSON for the cache store, and the text read back
 *   on a hit is pasted as a raw fragment (see raw_json.h), not decoded.
 *
 * These are private methods (underscored), called by the Ruby side. */

#include "builder/builder.h"
#include "rails/generate.h"
#include "json/raw_json.h"

/* The Array node a collection is built in, from the Integer the Ruby side was
 * given by _collection_begin. */
static int32_t collection_node(jb_builder *b, VALUE node)
{
    long i = FIXNUM_P(node) ? FIX2LONG(node) : -1;
    if (i < 0 || i >= b->node_count || b->nodes[i].kind != JB_ARRAY) {
        rb_raise(rb_eArgError, "Jetson: not a collection of this builder");
    }
    return (int32_t)i;
}

static void set_captured(jb_builder *b, jb_slot s)
{
    b->captured = s;
    RB_OBJ_WRITTEN(b->self, Qundef, s.value);
}

/* The captured slot as JSON text with ActiveSupport's settings (given as
 * _encode takes them); "" for BLANK (a block that set nothing), which a
 * cache hit then merges as nothing, as Jbuilder merges its cached BLANK. */
static VALUE captured_json(VALUE self, int argc, VALUE *argv)
{
    rb_check_arity(argc, 7, 7);
    jb_builder *b = jb_get(self);
    if (jb_is_blank(b->captured)) return rb_obj_freeze(rb_utf8_str_new("", 0));
    jt_rails_settings settings;
    jt_rails_settings_from_args(&settings, argv);
    VALUE coder_proc = jt_rails_settings_apply_encoder(&settings, argv[5], argv[6]);
    VALUE json = jt_generate_rails_with(jb_write_captured, self, &settings, coder_proc);
    RB_GC_GUARD(self);
    return rb_obj_freeze(json);
}

/* _template!: this builder is a JbuilderTemplate's. */
static VALUE builder_template_bang(VALUE self)
{
    jb_get(self)->template = true;
    return self;
}

/* _in_view!: this builder renders a view (its context is ActionView's). */
static VALUE builder_in_view_bang(VALUE self)
{
    jb_get(self)->in_view = true;
    return self;
}

/* _set_value(key, value): Jbuilder's _set_value with a Ruby value. */
static VALUE builder_set_value(VALUE self, VALUE key, VALUE value)
{
    jb_set_value(jb_get(self), key, jb_leaf(value));
    return Qnil;
}

/* _scoped_set!(key) { }: `_set_value key, _scope { yield }`: a partial
 * rendered under a key. */
static VALUE builder_scoped_set(VALUE self, VALUE key)
{
    jb_slot value = jb_in_scope(self, jb_yield_self, self);
    jb_set_value(jb_get(self), key, value);
    RB_GC_GUARD(value.value);
    return Qnil;
}

/* _present?: `@attributes.present?` (cache_root! refuses to start after
 * something was written). */
static VALUE builder_present_p(VALUE self)
{
    jb_builder *b = jb_get(self);
    return jb_present(b, b->current) ? Qtrue : Qfalse;
}

/* _capture! { }: runs the block in a scope of its own (cache!'s
 * `_scope { yield self }`) and keeps what it built for _captured_json and
 * _merge_captured!. Returns whether it built anything. */
static VALUE builder_capture_bang(VALUE self)
{
    jb_slot result = jb_in_scope(self, jb_yield_self, self);
    set_captured(jb_get(self), result);
    RB_GC_GUARD(result.value);
    return jb_is_blank(result) ? Qfalse : Qtrue;
}

/* _captured_json(escape_html, standard_time, precision, classes, active_model, flags, coder_proc) */
static VALUE builder_captured_json(int argc, VALUE *argv, VALUE self)
{
    return captured_json(self, argc, argv);
}

/* _captured_value: the captured object as Jbuilder would hold it, for an app
 * whose JSON encoder is neither ActiveSupport's nor Jetson's. */
static VALUE builder_captured_value(VALUE self)
{
    jb_builder *b = jb_get(self);
    return jb_materialize(b, b->captured);
}

/* _merge_captured!: `merge! value` of the captured block (a cache miss). */
static VALUE builder_merge_captured(VALUE self)
{
    jb_builder *b = jb_get(self);
    jb_slot captured = b->captured;
    set_captured(b, jb_blank());
    jb_merge_into_current(self, captured);
    RB_GC_GUARD(captured.value);
    return Qnil;
}

/* _merge_json!(text): `merge! value` of a cached fragment (a hit), pasted as
 * text. "" is a cached BLANK. The caller has checked the text with
 * Jetson::Builder.json_fragment?. */
static VALUE builder_merge_json(VALUE self, VALUE text)
{
    StringValue(text);
    if (RSTRING_LEN(text) == 0) return Qnil;
    jb_merge_into_current(self, jb_fragment_slot(text));
    return Qnil;
}

/* _collection_begin: a new Array node for a collection of partials. */
static VALUE builder_collection_begin(VALUE self)
{
    return INT2FIX(jb_new_node(jb_get(self), JB_ARRAY));
}

struct element {
    VALUE self;
    VALUE content; /* what the block returned */
};

static VALUE element_body(VALUE data)
{
    struct element *e = (struct element *)data;
    e->content = rb_yield(e->self);
    return Qnil;
}

/* _collection_element(node) { template.render(...) }: one element of a
 * collection of partials, in a scope of its own (Jbuilder's ScopedIterator).
 * Its body is what the template returned if anything (a partial of another
 * handler), else what the scope built (BLANK included, written as {}), as
 * Jbuilder's `content || json.attributes!`. */
static VALUE builder_collection_element(VALUE self, VALUE node)
{
    int32_t n = collection_node(jb_get(self), node);
    struct element e = { .self = self, .content = Qnil };
    jb_slot result = jb_in_scope(self, element_body, (VALUE)&e);
    if (!NIL_P(e.content)) result = jb_leaf(e.content);
    jb_array_push(jb_get(self), n, result);
    RB_GC_GUARD(result.value);
    RB_GC_GUARD(e.content);
    return Qnil;
}

/* _render_elements(node, objects, view, template, locals, variables,
 * iteration, buffer, renderer, native_run, events): a collection of .jbuilder partials, each
 * object an element in a scope of its own, rendered by calling the
 * partial's compiled method as Template#render does (`view._run(method,
 * template, locals, buffer)`), with ActionView's collection locals: the
 * object as `as`, its index as `as_counter`, the PartialIteration as
 * `as_iteration` (iterated after each element). The Ruby side
 * (Jetson::Rails::PartialRenderer) decides when this applies. As in
 * Template#render, a StandardError raised by the partial's method goes to
 * renderer.element_error(template, error) (ActionView::Template::Error);
 * anything raised by the collection itself (its each) is left as it is, for
 * the view around it to wrap. Each run emits the !render_template event
 * when events say it is owed (builder/view_events.c). One rb_ensure for the whole loop puts the
 * builder's state back if anything raises. */
struct elements {
    VALUE self, objects, view, method, template, locals, buffer, iteration, renderer, events;
    VALUE as, counter, iteration_name;
    int32_t node;
    long index;
    bool plain_locals, native_run, in_scope;
    struct saved_state saved;
    struct jb_view_scope scope;
};

static void set_local(struct elements *e, VALUE name, VALUE value)
{
    if (e->plain_locals) {
        rb_hash_aset(e->locals, name, value);
    } else {
        rb_funcall(e->locals, jb.id_aset, 2, name, value); /* a Hash subclass's own []= */
    }
}

static VALUE run_method(VALUE data)
{
    struct elements *e = (struct elements *)data;
    if (e->in_scope) return jb_view_scope_call(&e->scope, rb_sym2id(e->method), e->locals);
    return jb_view_run(e->view, e->method, e->template, e->locals, e->buffer, Qnil, e->native_run);
}

/* The method inside Template#render's !render_template event, when owed. */
static VALUE run_partial(VALUE data)
{
    return jb_template_event(((struct elements *)data)->events, run_method, data);
}

static void render_element(struct elements *e, VALUE object)
{
    set_local(e, e->as, object);
    set_local(e, e->counter, LONG2FIX(e->index));
    set_local(e, e->iteration_name, e->iteration);
    jb_set_current(jb_get(e->self), jb_blank());
    int state = 0;
    rb_protect(run_partial, (VALUE)e, &state);
    if (state) {
        VALUE error = rb_errinfo();
        /* Template#render's `rescue => e`: StandardErrors only; the rest
         * (and throw, break) go on as they came. */
        if (!RB_TYPE_P(error, T_OBJECT) || !RTEST(rb_obj_is_kind_of(error, rb_eStandardError))) rb_jump_tag(state);
        rb_funcall(e->renderer, jb.id_element_error, 2, e->template, error);
        rb_jump_tag(state); /* element_error raises; not reached */
    }
    jb_builder *b = jb_get(e->self);
    jb_slot result = b->current;
    jb_restore_state(b, &e->saved);
    jb_array_push(b, e->node, result);
    RB_GC_GUARD(result.value);
    rb_funcall(e->iteration, jb.id_iterate_bang, 0);
    e->index++;
}

static VALUE render_element_i(RB_BLOCK_CALL_FUNC_ARGLIST(object, data))
{
    render_element((struct elements *)data, object);
    return Qnil;
}

static VALUE elements_body(VALUE data)
{
    struct elements *e = (struct elements *)data;
    VALUE objects = e->objects;
    if (e->native_run && RB_SYMBOL_P(e->method)) {
        jb_view_scope_enter(&e->scope, e->view, e->template, e->buffer);
        e->in_scope = true;
    }
    if (RB_TYPE_P(objects, T_ARRAY) && RBASIC_CLASS(objects) == rb_cArray &&
        rb_method_basic_definition_p(rb_cArray, jb.id_each)) {
        /* Array#each's loop: the length is read again each time */
        for (long i = 0; i < RARRAY_LEN(objects); i++) render_element(e, RARRAY_AREF(objects, i));
    } else {
        rb_block_call(objects, jb.id_each, 0, NULL, render_element_i, data);
    }
    RB_GC_GUARD(objects);
    return Qnil;
}

static VALUE elements_ensure(VALUE data)
{
    struct elements *e = (struct elements *)data;
    if (e->in_scope) jb_view_scope_leave(&e->scope);
    jb_restore_state(jb_get(e->self), &e->saved);
    return Qnil;
}

static VALUE builder_render_elements(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 11, 11);
    VALUE objects = argv[1], template = argv[3], locals = argv[4], variables = argv[5];
    jb_builder *b = jb_get(self);
    Check_Type(locals, T_HASH);
    Check_Type(variables, T_ARRAY);
    if (RARRAY_LEN(variables) < 3) rb_raise(rb_eArgError, "Jetson: expected [as, counter, iteration]");
    struct elements e = {
        .self = self, .objects = objects, .view = argv[2], .template = template, .locals = locals, .iteration = argv[6],
        .buffer = argv[7], .renderer = argv[8], .as = RARRAY_AREF(variables, 0), .counter = RARRAY_AREF(variables, 1),
        .iteration_name = RARRAY_AREF(variables, 2), .node = collection_node(b, argv[0]),
        .plain_locals = RBASIC_CLASS(locals) == rb_cHash, .native_run = RTEST(argv[9]), .events = argv[10],
        .saved = jb_save_state(b),
    };
    e.method = rb_funcall(template, jb.id_method_name, 0);
    if (e.native_run) e.method = rb_str_intern(StringValue(e.method));
    rb_ensure(elements_body, (VALUE)&e, elements_ensure, (VALUE)&e);
    RB_GC_GUARD(objects);
    RB_GC_GUARD(e.saved.current.value);
    RB_GC_GUARD(e.saved.key_formatter);
    RB_GC_GUARD(e.method);
    RB_GC_GUARD(e.scope.saved_buffer);
    RB_GC_GUARD(e.scope.saved_path);
    RB_GC_GUARD(e.scope.saved_template);
    return Qnil;
}

/* _element_json(node, *settings): the last element of a collection as JSON
 * text, for the collection cache. */
static VALUE builder_element_json(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 8, 8);
    jb_builder *b = jb_get(self);
    int32_t n = collection_node(b, argv[0]);
    int32_t last = b->nodes[n].last;
    if (last < 0) rb_raise(rb_eArgError, "Jetson: the collection has no element");
    set_captured(b, jb_entry_slot(&b->entries[last]));
    VALUE json = captured_json(self, argc - 1, argv + 1);
    set_captured(jb_get(self), jb_blank());
    return json;
}

/* _element_value(node): the last element as Jbuilder would hold it, for an
 * app whose JSON encoder is its own. */
static VALUE builder_element_value(VALUE self, VALUE node)
{
    jb_builder *b = jb_get(self);
    int32_t n = collection_node(b, node);
    int32_t last = b->nodes[n].last;
    if (last < 0) rb_raise(rb_eArgError, "Jetson: the collection has no element");
    return jb_materialize(b, jb_entry_slot(&b->entries[last]));
}

/* _collection_fill(node, rendered, elements): a cached collection put
 * together in order. Each element is an Integer, the position of an element
 * rendered on the node `rendered` (a miss), or a String, a cached element's
 * text (a hit; the caller has checked it with Jetson::Builder.json_fragment?),
 * "" for an element that built nothing (the gem caches Jbuilder::Blank).
 * An item that appears twice in the collection is the same element twice,
 * as in the jbuilder gem. */
static VALUE builder_collection_fill(VALUE self, VALUE node, VALUE rendered, VALUE elements)
{
    jb_builder *b = jb_get(self);
    int32_t n = collection_node(b, node);
    Check_Type(elements, T_ARRAY);
    long count = 0;
    int32_t source = -1;
    if (!NIL_P(rendered)) {
        source = collection_node(b, rendered);
        count = b->nodes[source].count;
    }
    /* the rendered elements' entry numbers, by position (entries are not
     * moved by growth: they are named by index) */
    VALUE tmp;
    int32_t *entries = ALLOCV_N(int32_t, tmp, count > 0 ? count : 1);
    long i = 0;
    for (int32_t e = count > 0 ? b->nodes[source].first : -1; e >= 0 && i < count; e = jb_next(&b->entries[e])) {
        entries[i++] = e;
    }
    for (long k = 0; k < RARRAY_LEN(elements); k++) {
        VALUE element = RARRAY_AREF(elements, k);
        jb_slot slot;
        if (FIXNUM_P(element)) {
            long position = FIX2LONG(element);
            if (position < 0 || position >= i) rb_raise(rb_eArgError, "Jetson: no rendered element %ld", position);
            slot = jb_entry_slot(&jb_get(self)->entries[entries[position]]);
        } else if (RSTRING_LEN(element) == 0) {
            slot = jb_blank(); /* an element that built nothing, cached as "" */
        } else {
            slot = jb_fragment_slot(element);
        }
        jb_array_push(jb_get(self), n, slot);
        RB_GC_GUARD(slot.value);
    }
    ALLOCV_END(tmp);
    RB_GC_GUARD(elements);
    return Qnil;
}

/* _collection_merge!(node): the finished collection merged into the
 * document (Jbuilder's `json.merge!(bodies)`). */
static VALUE builder_collection_merge(VALUE self, VALUE node)
{
    int32_t n = collection_node(jb_get(self), node);
    jb_merge_into_current(self, jb_node_slot(n));
    return Qnil;
}

/* Jetson::Builder.json_fragment?(text): whether a String read back from a
 * cache is a JSON object or array Jetson can paste (anything else there is
 * treated as a miss). */
static VALUE builder_s_json_fragment_p(VALUE klass, VALUE text)
{
    return jt_raw_json_fragment_p(text) ? Qtrue : Qfalse;
}

void jt_init_builder_fragments(void)
{
    VALUE c = jb.cBuilder;
    rb_define_const(c, "EMPTY_ARRAY", jb.empty_array);
    rb_define_singleton_method(c, "json_fragment?", builder_s_json_fragment_p, 1);
    rb_define_private_method(c, "_template!", builder_template_bang, 0);
    rb_define_private_method(c, "_in_view!", builder_in_view_bang, 0);
    rb_define_private_method(c, "_set_value", builder_set_value, 2);
    rb_define_private_method(c, "_scoped_set!", builder_scoped_set, 1);
    rb_define_private_method(c, "_present?", builder_present_p, 0);
    rb_define_private_method(c, "_capture!", builder_capture_bang, 0);
    rb_define_private_method(c, "_captured_json", builder_captured_json, -1);
    rb_define_private_method(c, "_captured_value", builder_captured_value, 0);
    rb_define_private_method(c, "_merge_captured!", builder_merge_captured, 0);
    rb_define_private_method(c, "_merge_json!", builder_merge_json, 1);
    rb_define_private_method(c, "_collection_begin", builder_collection_begin, 0);
    rb_define_private_method(c, "_collection_element", builder_collection_element, 1);
    rb_define_private_method(c, "_render_elements", builder_render_elements, -1);
    rb_define_private_method(c, "_element_json", builder_element_json, -1);
    rb_define_private_method(c, "_element_value", builder_element_value, 1);
    rb_define_private_method(c, "_collection_fill", builder_collection_fill, 3);
    rb_define_private_method(c, "_collection_merge!", builder_collection_merge, 1);
}
