/* ActionView's render events around a partial that runs natively. With
 * something listening (Rails' log subscriber at debug level, an APM agent
 * such as New Relic's, which subscribes to /render_.+\.action_view$/), a
 * partial still owes the events ActionView would emit for it:
 *   render_partial.action_view  around a single partial (PartialRenderer's
 *                               render_partial_template), its payload's
 *                               cache_hit set once the partial has run;
 *   !render_template.action_view around each run of a template's method
 *                               (Template#render), collection elements
 *                               included.
 * They are emitted here through ActiveSupport::Notifications.instrument, as
 * ActionView emits them, so the partial's method keeps its native call and
 * only the listeners' own work is added.
 *
 * The Ruby side (PartialRenderer#view_events) says which events are owed,
 * once per template and render, as a frozen Array: [ActiveSupport::Notifications,
 * the partial event's name or nil, its payload's constant part, the
 * template event's name or nil, its payload, the template's virtual path];
 * nil when nobody listens. Each event gets a payload Hash of its own, as
 * listeners may keep or add to it. */

#include "builder/builder.h"

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    ID instrument, view_renderer, cache_hits, aref;
    VALUE sym_locals, sym_cache_hit;
} h;

enum { EV_NOTIFICATIONS, EV_PARTIAL, EV_PARTIAL_PAYLOAD, EV_TEMPLATE, EV_TEMPLATE_PAYLOAD, EV_VIRTUAL_PATH, EV_SIZE };

struct run {
    VALUE (*fn)(VALUE);
    VALUE arg;
};

static VALUE run_block(RB_BLOCK_CALL_FUNC_ARGLIST(yielded, data))
{
    (void)yielded;
    struct run *r = (struct run *)data;
    return r->fn(r->arg);
}

/* ActiveSupport::Notifications.instrument(name, payload) { fn(arg) } */
static VALUE instrument(VALUE notifications, VALUE name, VALUE payload, VALUE (*fn)(VALUE), VALUE arg)
{
    struct run r = {.fn = fn, .arg = arg};
    VALUE args[2] = {name, payload};
    return rb_block_call(notifications, h.instrument, 2, args, run_block, (VALUE)&r);
}

static bool owed(VALUE events, long name)
{
    return RB_TYPE_P(events, T_ARRAY) && RARRAY_LEN(events) == EV_SIZE && !NIL_P(RARRAY_AREF(events, name));
}

VALUE jb_template_event(VALUE events, VALUE (*fn)(VALUE), VALUE arg)
{
    if (!owed(events, EV_TEMPLATE)) return fn(arg);
    VALUE payload = rb_hash_dup(RARRAY_AREF(events, EV_TEMPLATE_PAYLOAD));
    return instrument(RARRAY_AREF(events, EV_NOTIFICATIONS), RARRAY_AREF(events, EV_TEMPLATE), payload, fn, arg);
}

struct partial_run {
    VALUE events, view, payload;
    VALUE (*fn)(VALUE);
    VALUE arg;
};

/* The partial, then its payload's cache_hit (the view renderer's record of
 * fragment cache hits for the template), as render_partial_template does. */
static VALUE partial_body(VALUE data)
{
    struct partial_run *p = (struct partial_run *)data;
    VALUE result = p->fn(p->arg);
    VALUE hits = rb_funcall(rb_funcall(p->view, h.view_renderer, 0), h.cache_hits, 0);
    VALUE hit = rb_funcall(hits, h.aref, 1, RARRAY_AREF(p->events, EV_VIRTUAL_PATH));
    rb_hash_aset(p->payload, h.sym_cache_hit, hit);
    return result;
}

VALUE jb_partial_event(VALUE events, VALUE view, VALUE locals, VALUE (*fn)(VALUE), VALUE arg)
{
    if (!owed(events, EV_PARTIAL)) return fn(arg);
    struct partial_run p = {
        .events = events, .view = view, .payload = rb_hash_dup(RARRAY_AREF(events, EV_PARTIAL_PAYLOAD)),
        .fn = fn, .arg = arg,
    };
    rb_hash_aset(p.payload, h.sym_locals, locals);
    VALUE result = instrument(RARRAY_AREF(events, EV_NOTIFICATIONS), RARRAY_AREF(events, EV_PARTIAL), p.payload,
                              partial_body, (VALUE)&p);
    RB_GC_GUARD(p.payload);
    return result;
}

void jt_init_builder_view_events(void)
{
    jt_intern_ids("instrument view_renderer cache_hits []",
        (ID *const[]){&h.instrument, &h.view_renderer, &h.cache_hits, &h.aref, NULL});
    h.sym_locals = ID2SYM(rb_intern("locals"));
    h.sym_cache_hit = ID2SYM(rb_intern("cache_hit"));
}
