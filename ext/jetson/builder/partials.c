/* `json.author post.author, partial: "authors/author", as: :author` in a
 * view: one partial rendered as a key's value, the commonest call of nested
 * views (an author per post, per comment). Jbuilder renders it through
 * ActionView's render helper; Jetson's Ruby side (JbuilderTemplate's
 * _set_inline_partial, PartialRenderer#render) does the same lookups with
 * fewer objects, but still builds an options Hash, a locals Hash and an
 * instrumentation payload per call.
 *
 * Here, the first call with a given partial and `as:` asks the Ruby side
 * for a plan (JbuilderTemplate#_inline_partial_plan): the template, its
 * compiled method and a locals Hash, when the call can run that method as
 * Template#render would and nobody listens to render_partial.action_view
 * (whose payload would then be owed); false otherwise. Later calls set the
 * object into the plan's locals and run the method in a scope of their own.
 * Everything else (nil, a collection, other options, a plan refused) goes
 * to _set_inline_partial as before. */

#include "builder/builder.h"
#include "rails/diagnostics.h"

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    ID inline_partial_plan, single_partial_plan, render_partial_bang, output_buffer, virtual_path, current_template;
    VALUE sym_as, sym_partial, sym_locals, sym_json;
} h;

enum {
    PLAN_TEMPLATE, PLAN_METHOD, PLAN_LOCALS, PLAN_VIEW, PLAN_BUFFER, PLAN_RENDERER, PLAN_BLOCK, PLAN_NATIVE_RUN,
    PLAN_EVENTS, PLAN_SIZE
};

/* ActionView::Base#_run(method, template, locals, buffer, &block) without
 * its Ruby frame, keyword defaults and ensure block: the same three view
 * variables saved, set and put back, the same public call of the template's
 * method. Taken only where PartialRenderer says _run is the one this
 * repeats (its ActionView versions, not redefined). */
struct view_run {
    VALUE view, template, locals, buffer, block;
    ID method;
    VALUE saved_buffer, saved_path, saved_template;
};

static VALUE view_run_call(VALUE data)
{
    struct view_run *r = (struct view_run *)data;
    rb_ivar_set(r->view, h.current_template, r->template);
    rb_ivar_set(r->view, h.output_buffer, r->buffer);
    VALUE args[2] = {r->locals, r->buffer};
    return rb_funcall_with_block(r->view, r->method, 2, args, r->block);
}

static VALUE view_run_restore(VALUE data)
{
    struct view_run *r = (struct view_run *)data;
    rb_ivar_set(r->view, h.output_buffer, r->saved_buffer);
    rb_ivar_set(r->view, h.virtual_path, r->saved_path);
    rb_ivar_set(r->view, h.current_template, r->saved_template);
    return Qnil;
}

VALUE jb_view_run(VALUE view, VALUE method, VALUE template, VALUE locals, VALUE buffer, VALUE block, bool native)
{
    if (!native || !RB_SYMBOL_P(method)) {
        VALUE args[4] = {method, template, locals, buffer};
        return rb_funcall_with_block(view, jb.id__run, 4, args, block);
    }
    struct view_run r = {
        .view = view, .template = template, .locals = locals, .buffer = buffer, .block = block,
        .method = rb_sym2id(method), .saved_buffer = rb_ivar_get(view, h.output_buffer),
        .saved_path = rb_ivar_get(view, h.virtual_path), .saved_template = rb_ivar_get(view, h.current_template),
    };
    VALUE result = rb_ensure(view_run_call, (VALUE)&r, view_run_restore, (VALUE)&r);
    RB_GC_GUARD(r.saved_buffer);
    RB_GC_GUARD(r.saved_path);
    RB_GC_GUARD(r.saved_template);
    return result;
}

/* A collection's elements run one template's method many times: _run's
 * save, set and restore of the view's three variables happen once around
 * the loop instead of once per element (each is a lookup in the view's
 * ivar table, which a view's many variables make a hash). Before each
 * element the two variables _run sets are set again only if something
 * (a nested render puts back what it found, so normally nothing) left them
 * otherwise; @virtual_path is the method's own first assignment, as in
 * _run. */
void jb_view_scope_enter(struct jb_view_scope *scope, VALUE view, VALUE template, VALUE buffer)
{
    scope->view = view;
    scope->template = template;
    scope->buffer = buffer;
    scope->saved_buffer = rb_ivar_get(view, h.output_buffer);
    scope->saved_path = rb_ivar_get(view, h.virtual_path);
    scope->saved_template = rb_ivar_get(view, h.current_template);
    rb_ivar_set(view, h.current_template, template);
    rb_ivar_set(view, h.output_buffer, buffer);
}

VALUE jb_view_scope_call(struct jb_view_scope *scope, ID method, VALUE locals)
{
    VALUE view = scope->view;
    if (rb_ivar_get(view, h.current_template) != scope->template) rb_ivar_set(view, h.current_template, scope->template);
    if (rb_ivar_get(view, h.output_buffer) != scope->buffer) rb_ivar_set(view, h.output_buffer, scope->buffer);
    VALUE args[2] = {locals, scope->buffer};
    return rb_funcall_with_block(view, method, 2, args, Qnil); /* public_send, as _run */
}

void jb_view_scope_leave(struct jb_view_scope *scope)
{
    rb_ivar_set(scope->view, h.output_buffer, scope->saved_buffer);
    rb_ivar_set(scope->view, h.virtual_path, scope->saved_path);
    rb_ivar_set(scope->view, h.current_template, scope->saved_template);
}

/* The plan for (partial, as), from the builder's list, asked for once. */
static VALUE plan_for(VALUE self, jb_builder *b, VALUE partial, VALUE as)
{
    if (NIL_P(b->inline_plans)) RB_OBJ_WRITE(self, &b->inline_plans, rb_ary_new());
    VALUE plans = b->inline_plans;
    for (long i = 0; i < RARRAY_LEN(plans); i++) {
        VALUE entry = RARRAY_AREF(plans, i);
        if (RARRAY_AREF(entry, 1) == as && rb_str_equal(RARRAY_AREF(entry, 0), partial) == Qtrue) return entry;
    }
    VALUE plan = rb_funcall(self, h.inline_partial_plan, 2, partial, as);
    if (!(RB_TYPE_P(plan, T_ARRAY) && RARRAY_LEN(plan) == PLAN_SIZE)) plan = Qfalse;
    /* [partial, as, plan, running]: a partial that renders itself (the
     * plan's locals in use) goes the Ruby way. */
    VALUE entry = rb_ary_new_from_args(4, rb_str_new_frozen(partial), as, plan, Qfalse);
    rb_ary_push(plans, entry);
    return entry;
}

struct inline_call {
    VALUE plan, entry, locals;
};

static VALUE run_done(VALUE data)
{
    rb_ary_store(((struct inline_call *)data)->entry, 3, Qfalse);
    return Qnil;
}


static VALUE run_method(VALUE data)
{
    VALUE plan = ((struct inline_call *)data)->plan;
    /* view._run(method, template, locals, buffer, &layout_block) */
    return jb_view_run(RARRAY_AREF(plan, PLAN_VIEW), RARRAY_AREF(plan, PLAN_METHOD), RARRAY_AREF(plan, PLAN_TEMPLATE),
                       ((struct inline_call *)data)->locals, RARRAY_AREF(plan, PLAN_BUFFER), RARRAY_AREF(plan, PLAN_BLOCK),
                       RTEST(RARRAY_AREF(plan, PLAN_NATIVE_RUN)));
}

/* The method inside Template#render's !render_template event, when owed. */
static VALUE run_partial(VALUE data)
{
    return jb_template_event(RARRAY_AREF(((struct inline_call *)data)->plan, PLAN_EVENTS), run_method, data);
}

/* Template#render's rescue: a StandardError becomes ActionView's
 * Template::Error naming the partial (PartialRenderer#element_error). */
static VALUE run_rescued(VALUE data)
{
    VALUE plan = ((struct inline_call *)data)->plan;
    int state = 0;
    rb_protect(run_partial, data, &state);
    if (state) {
        VALUE error = rb_errinfo();
        if (!RB_TYPE_P(error, T_OBJECT) || !RTEST(rb_obj_is_kind_of(error, rb_eStandardError))) rb_jump_tag(state);
        rb_funcall(RARRAY_AREF(plan, PLAN_RENDERER), jb.id_element_error, 2, RARRAY_AREF(plan, PLAN_TEMPLATE), error);
        rb_jump_tag(state); /* element_error raises; not reached */
    }
    return Qnil;
}

/* The partial inside PartialRenderer's render_partial event, when owed. */
static VALUE run_in_scope(VALUE data)
{
    struct inline_call *call = (struct inline_call *)data;
    return jb_partial_event(RARRAY_AREF(call->plan, PLAN_EVENTS), RARRAY_AREF(call->plan, PLAN_VIEW), call->locals,
                            run_rescued, data);
}

static VALUE run_guarded(VALUE data)
{
    rb_ary_store(((struct inline_call *)data)->entry, 3, Qtrue);
    return rb_ensure(run_in_scope, data, run_done, data);
}

bool jb_inline_partial(VALUE self, VALUE key, VALUE object, VALUE options, VALUE *result)
{
    if (NIL_P(object) || !RB_TYPE_P(options, T_HASH) || RBASIC_CLASS(options) != rb_cHash || RHASH_SIZE(options) != 2) {
        return false;
    }
    VALUE partial = rb_hash_lookup2(options, h.sym_partial, Qundef);
    VALUE as = rb_hash_lookup2(options, h.sym_as, Qundef);
    if (!RB_TYPE_P(partial, T_STRING) || !RB_SYMBOL_P(as)) return false;
    jb_builder *b = jb_get(self);
    VALUE entry = plan_for(self, b, partial, as);
    VALUE plan = RARRAY_AREF(entry, 2);
    if (!RTEST(plan) || RTEST(RARRAY_AREF(entry, 3))) return false;
    /* _set_inline_partial's _collection? (respond_to? :map and :count). */
    if (jb_collection_p(b, object)) return false;
    VALUE locals = RARRAY_AREF(plan, PLAN_LOCALS);
    rb_hash_aset(locals, as, object);
    struct inline_call call = {.plan = plan, .entry = entry, .locals = locals};
    jb_slot value = jb_in_scope(self, run_guarded, (VALUE)&call);
    jb_set_value(jb_get(self), key, value);
    jt_diag_native(jt_diagnostics_current(), JT_DIAG_PARTIALS, 1);
    RB_GC_GUARD(value.value);
    RB_GC_GUARD(plan);
    RB_GC_GUARD(entry);
    *result = Qnil;
    return true;
}

/* --- json.partial! "authors/author", author: post.author ------------------
 *
 * One partial with locals, where the view is (inside a block, per element of
 * a loop): JbuilderTemplate#partial!'s commonest forms, which the Ruby side
 * would take through an options Hash, its locals Hash, a lookup and an
 * instrumentation block per call. Here a plan is asked once per partial
 * name and list of local names (JbuilderTemplate#_single_partial_plan) and
 * each call makes the locals Hash the method reads (the caller's locals and
 * `json`) and runs the template's method. A fresh Hash per call, unlike the
 * inline plans' one: a partial may render itself, and may keep
 * local_assigns. Forms:
 *   partial!("name")                       no locals
 *   partial!("name", k: v, ...)            locals (the plan refuses option names)
 *   partial!("name", locals: {k: v})       explicit locals
 *   partial!(partial: "name", locals: {k: v})
 * Anything else, and a plan refused, goes to JbuilderTemplate#_render_partial!. */

/* Plans kept per builder, at most: a view that renders one partial with
 * ever new local names is unusual, and past this it goes the Ruby way. */
#define SINGLE_PLANS_MAX 32

static bool plain_hash_p(VALUE v)
{
    return RB_TYPE_P(v, T_HASH) && RBASIC_CLASS(v) == rb_cHash;
}

/* Whether locals' keys are Symbols in the order of keys (an Array). */
struct locals_walk {
    VALUE keys;
    long index;
    bool same;
};

static int locals_walk_i(VALUE key, VALUE value, VALUE data)
{
    struct locals_walk *w = (struct locals_walk *)data;
    if (!RB_SYMBOL_P(key) || w->index >= RARRAY_LEN(w->keys) || RARRAY_AREF(w->keys, w->index) != key) {
        w->same = false;
        return ST_STOP;
    }
    (void)value;
    w->index++;
    return ST_CONTINUE;
}

/* A call's locals: a Hash, or nil for `partial!("name")`, which has none. */
static long locals_size(VALUE locals)
{
    return NIL_P(locals) ? 0 : (long)RHASH_SIZE(locals);
}

static bool same_keys(VALUE locals, VALUE keys)
{
    if (locals_size(locals) != RARRAY_LEN(keys)) return false;
    if (NIL_P(locals)) return true;
    struct locals_walk w = {.keys = keys, .index = 0, .same = true};
    rb_hash_foreach(locals, locals_walk_i, (VALUE)&w);
    return w.same;
}

static int copy_pair_i(VALUE key, VALUE value, VALUE into)
{
    rb_hash_aset(into, key, value);
    return ST_CONTINUE;
}

static int symbol_key_i(VALUE key, VALUE value, VALUE keys)
{
    (void)value;
    if (!RB_SYMBOL_P(key)) return ST_STOP;
    rb_ary_push(keys, key);
    return ST_CONTINUE;
}

/* The plan for (partial, locals' names, explicit), asked for once; Qfalse
 * when refused or when the builder has too many. */
static VALUE single_plan_for(VALUE self, jb_builder *b, VALUE partial, VALUE locals, bool explicit)
{
    if (NIL_P(b->single_plans)) RB_OBJ_WRITE(self, &b->single_plans, rb_ary_new());
    VALUE plans = b->single_plans;
    VALUE flag = explicit ? Qtrue : Qfalse;
    long count = RARRAY_LEN(plans);
    for (long i = 0; i < count; i++) {
        VALUE entry = RARRAY_AREF(plans, i);
        if (RARRAY_AREF(entry, 2) == flag && same_keys(locals, RARRAY_AREF(entry, 1)) &&
            rb_str_equal(RARRAY_AREF(entry, 0), partial) == Qtrue) {
            return RARRAY_AREF(entry, 3);
        }
    }
    if (count >= SINGLE_PLANS_MAX) return Qfalse;
    VALUE keys = rb_ary_new_capa(locals_size(locals));
    if (!NIL_P(locals)) rb_hash_foreach(locals, symbol_key_i, keys);
    if (RARRAY_LEN(keys) != locals_size(locals)) return Qfalse; /* a key that is not a Symbol */
    rb_obj_freeze(keys);
    VALUE name = rb_str_new_frozen(partial);
    VALUE plan = rb_funcall(self, h.single_partial_plan, 3, name, keys, flag);
    if (!(RB_TYPE_P(plan, T_ARRAY) && RARRAY_LEN(plan) == PLAN_SIZE)) plan = Qfalse;
    /* [partial, local names, explicit, plan] */
    rb_ary_push(plans, rb_ary_new_from_args(4, name, keys, flag, plan));
    return plan;
}

/* The partial's name and the Hash its locals come from (nil: none), for
 * the forms above; false for any other call. */
static bool single_partial_args(int argc, const VALUE *argv, VALUE *partial, VALUE *locals, bool *explicit)
{
    *explicit = false;
    if (argc == 1 && RB_TYPE_P(argv[0], T_STRING)) {
        *partial = argv[0];
        *locals = Qnil;
        return true;
    }
    if (argc == 2 && RB_TYPE_P(argv[0], T_STRING) && plain_hash_p(argv[1])) {
        *partial = argv[0];
        *locals = argv[1];
        if (RHASH_SIZE(argv[1]) == 1) {
            VALUE given = rb_hash_lookup2(argv[1], h.sym_locals, Qundef);
            if (given != Qundef) {
                if (!plain_hash_p(given)) return false;
                *locals = given;
                *explicit = true;
            }
        }
        return true;
    }
    if (argc == 1 && plain_hash_p(argv[0]) && RHASH_SIZE(argv[0]) == 2) {
        *partial = rb_hash_lookup2(argv[0], h.sym_partial, Qundef);
        *locals = rb_hash_lookup2(argv[0], h.sym_locals, Qundef);
        *explicit = true;
        return RB_TYPE_P(*partial, T_STRING) && plain_hash_p(*locals);
    }
    return false;
}

/* partial!(*args): natively when the call has one of the forms above and
 * its plan allows, otherwise JbuilderTemplate#_render_partial!. */
static VALUE template_partial_bang(int argc, VALUE *argv, VALUE self)
{
    VALUE partial, given;
    bool explicit;
    jb_builder *b = jb_get(self);
    if (b->template && single_partial_args(argc, argv, &partial, &given, &explicit)) {
        VALUE plan = single_plan_for(self, b, partial, given, explicit);
        if (RTEST(plan)) {
            /* The locals the method reads: the caller's, then json (kept
             * where the caller put a json of its own, as Hash#[]= does). */
            VALUE locals = rb_hash_new();
            if (!NIL_P(given)) rb_hash_foreach(given, copy_pair_i, locals);
            rb_hash_aset(locals, h.sym_json, self);
            struct inline_call call = {.plan = plan, .entry = Qnil, .locals = locals};
            run_in_scope((VALUE)&call);
            jt_diag_native(jt_diagnostics_current(), JT_DIAG_PARTIALS, 1);
            RB_GC_GUARD(plan);
            RB_GC_GUARD(locals);
            return Qnil;
        }
    }
    return rb_funcallv_kw(self, h.render_partial_bang, argc, argv, RB_PASS_CALLED_KEYWORDS);
}

void jt_init_builder_partials(void)
{
    jt_intern_ids("_inline_partial_plan _single_partial_plan _render_partial! @output_buffer @virtual_path "
                  "@current_template",
        (ID *const[]){&h.inline_partial_plan, &h.single_partial_plan, &h.render_partial_bang, &h.output_buffer,
            &h.virtual_path, &h.current_template, NULL});
    h.sym_as = ID2SYM(rb_intern("as"));
    h.sym_partial = ID2SYM(rb_intern("partial"));
    h.sym_locals = ID2SYM(rb_intern("locals"));
    h.sym_json = ID2SYM(rb_intern("json"));
    /* Included by JbuilderTemplate (lib/jetson/views/jbuilder_template.rb). */
    VALUE calls = rb_define_module_under(jb.cBuilder, "TemplatePartials");
    rb_define_method(calls, "partial!", template_partial_bang, -1);
}
