/* Answers about classes that hold until one of the methods they were read
 * from is defined again: whether a class still has ActiveSupport's as_json
 * (Jetson::Rails.stock?), a model's plan (RecordPlan.for), whether
 * ActiveModel's attribute set is the stock one. Ruby answers them (the
 * decisions need source locations and Rails' own classes), and names the
 * methods each answer rests on: [answer, [[klass, :method], ...]].
 *
 * Asking Ruby on every call cost a small encoding more than the encoding
 * (`record.to_json` of one record: about 50 µs of `instance_method`
 * lookups). Ruby's public API has no way to ask "did this method's
 * definition change?" without making an object, so the memo is told
 * instead: Jetson::MethodWatch, prepended to Module by jetson/rails,
 * receives every method_added, method_removed, method_undefined (and their
 * singleton_ forms) of any module or class, and every include, prepend and
 * extend of one, and bumps a process-wide count before passing the call on.
 * An answer is kept with the count at which it was last found to hold; a
 * call that finds the count unchanged takes it with no lookup at all.
 *
 * When the count has moved (some method somewhere was defined), each of the
 * answer's methods is looked up again (`instance_method`) and compared with
 * the UnboundMethod kept for it: the same definitions keep the answer,
 * stamped anew; another one sends the question back to Ruby.
 *
 * A module whose own method_added does not call super would keep
 * definitions from the watch: Ruby (Jetson::Rails.memo_answer) keeps an
 * answer only while every ancestor of the classes it rests on sends its
 * hooks through to the watch, and each change that could hide them (a hook
 * method defined anywhere; any include, prepend or extend) also bumps a
 * second count, after which kept answers go back to Ruby, which checks the
 * hooks again. */

#include "rails/stock_memo.h"
#include <ruby/atomic.h>

#define MEMO_MAX 4096 /* answers kept; past it all are dropped (classes made over and over) */

typedef struct memo_entry {
    VALUE subject;
    ID question;
    VALUE answer;
    /* [klass, :name, UnboundMethod or nil (not defined), ...]: a Ruby Array
     * rather than C memory, so a check that calls Ruby keeps reading it even
     * if another thread replaces the entry meanwhile. */
    VALUE deps;
    rb_atomic_t methods_seen, hooks_seen;
} memo_entry;

typedef struct jt_stock_memo {
    memo_entry *entries;
    long count, capa;
    size_t asks; /* questions sent to Ruby in this Ractor (MethodWatch.asks) */
} jt_stock_memo;

/* The extension's only mutable globals. Method tables are process-wide (a
 * method defined in one Ractor is seen by all), so the counts that say
 * "something may have changed" must be too; every Ractor's memo compares
 * against them. Atomic, since hooks run in any Ractor. A 32-bit count may
 * wrap: a kept answer would be wrongly trusted only if exactly 2^32
 * definitions happened between two of its checks. */
static struct {
    rb_atomic_t methods; /* any method defined, removed or undefined; any include, prepend, extend */
    rb_atomic_t hooks;   /* a hook method defined anywhere; any include, prepend, extend */
} epoch;

static struct {
    ID ask, instance_method;
    VALUE hook_names[6]; /* static Symbols: method_added ... singleton_method_undefined */
    VALUE mWatch;
    rb_ractor_local_key_t key;
} h;

static inline rb_atomic_t epoch_now(rb_atomic_t *count)
{
#ifdef RUBY_ATOMIC_LOAD
    return RUBY_ATOMIC_LOAD(*count);
#else
    /* Ruby 3.1's atomic.h has no load. */
    return RUBY_ATOMIC_FETCH_ADD(*count, 0);
#endif
}

static void memo_mark(void *ptr)
{
    jt_stock_memo *m = ptr;
    for (long i = 0; i < m->count; i++) {
        memo_entry *e = &m->entries[i];
        rb_gc_mark(e->subject);
        rb_gc_mark(e->answer);
        rb_gc_mark(e->deps);
    }
}

static void memo_free(void *ptr)
{
    jt_stock_memo *m = ptr;
    ruby_xfree(m->entries);
    ruby_xfree(m);
}

/* Ractor-local storage is marked through its Ractor, an object without
 * write barriers (marked on every GC), so the memo stores VALUEs plainly. */
static const struct rb_ractor_local_storage_type memo_type = {memo_mark, memo_free};

static jt_stock_memo *memo_of_ractor(void)
{
    jt_stock_memo *m = rb_ractor_local_storage_ptr(h.key);
    if (!m) {
        m = ZALLOC(jt_stock_memo);
        rb_ractor_local_storage_ptr_set(h.key, m);
    }
    return m;
}

static VALUE ask(VALUE helper, ID question, VALUE subject, bool keeping)
{
    VALUE args[3] = {ID2SYM(question), subject, keeping ? Qtrue : Qfalse};
    VALUE reply = rb_funcallv(helper, h.ask, 3, args);
    if (!RB_TYPE_P(reply, T_ARRAY) || RARRAY_LEN(reply) != 2) rb_raise(rb_eTypeError, "Jetson: malformed stock answer");
    return reply;
}

VALUE jt_stock_memo_answer_now(VALUE helper, ID question, VALUE subject)
{
    memo_of_ractor()->asks++;
    return RARRAY_AREF(ask(helper, question, subject, false), 0);
}

static memo_entry *find(jt_stock_memo *m, VALUE subject, ID question)
{
    for (long i = m->count - 1; i >= 0; i--) {
        if (m->entries[i].subject == subject && m->entries[i].question == question) return &m->entries[i];
    }
    return NULL;
}

static VALUE instance_method(VALUE pair)
{
    return rb_funcallv(RARRAY_AREF(pair, 0), h.instance_method, 1, RARRAY_CONST_PTR(pair) + 1);
}

/* What klass resolves name to now: an UnboundMethod, nil when it is not
 * defined, Qundef when it cannot be told (instance_method raised). */
static VALUE resolve(VALUE klass, VALUE name)
{
    if (!rb_method_boundp(klass, SYM2ID(name), 0)) return Qnil;
    int state = 0;
    VALUE pair = rb_assoc_new(klass, name);
    VALUE method = rb_protect(instance_method, pair, &state);
    RB_GC_GUARD(pair);
    if (state) {
        rb_set_errinfo(Qnil);
        return Qundef;
    }
    return method;
}

/* UnboundMethod#== is true for the same definition (an alias of it
 * included), which is what the answers rest on. */
static bool same_definition(VALUE kept, VALUE now)
{
    if (now == Qundef) return false;
    if (NIL_P(kept) || NIL_P(now)) return kept == now;
    return RTEST(rb_equal(kept, now));
}

static bool deps_hold(VALUE deps)
{
    for (long i = 0; i + 2 < RARRAY_LEN(deps); i += 3) {
        VALUE now = resolve(RARRAY_AREF(deps, i), RARRAY_AREF(deps, i + 1));
        if (!same_definition(RARRAY_AREF(deps, i + 2), now)) return false;
    }
    return true;
}

/* [klass, :name, UnboundMethod or nil, ...] for Ruby's [[klass, :name], ...],
 * or Qfalse when they are not in that form or not all can be looked up. */
static VALUE resolve_deps(VALUE list)
{
    if (!RB_TYPE_P(list, T_ARRAY)) return Qfalse;
    long n = RARRAY_LEN(list);
    if (n > 4096) return Qfalse; /* not an answer Jetson gives: not kept */
    VALUE deps = rb_ary_new_capa(n * 3);
    for (long d = 0; d < RARRAY_LEN(list); d++) {
        VALUE dep = RARRAY_AREF(list, d);
        if (!RB_TYPE_P(dep, T_ARRAY) || RARRAY_LEN(dep) != 2 || !RB_SYMBOL_P(RARRAY_AREF(dep, 1))) return Qfalse;
        VALUE klass = RARRAY_AREF(dep, 0);
        if (!RB_TYPE_P(klass, T_CLASS) && !RB_TYPE_P(klass, T_MODULE)) return Qfalse;
        VALUE method = resolve(klass, RARRAY_AREF(dep, 1));
        if (method == Qundef) return Qfalse;
        rb_ary_push(deps, klass);
        rb_ary_push(deps, RARRAY_AREF(dep, 1));
        rb_ary_push(deps, method);
    }
    return rb_ary_freeze(deps);
}

static void drop(jt_stock_memo *m, VALUE subject, ID question)
{
    memo_entry *e = find(m, subject, question);
    if (e) e->subject = Qundef; /* never found again; replaced when the memo is cleared */
}

/* Keeps Ruby's answer, read while the counts were methods_seen and
 * hooks_seen, with its methods' current definitions; a question whose
 * methods Ruby did not name (hooks not watched) is not kept. */
static void remember(VALUE subject, ID question, VALUE answer, VALUE list, rb_atomic_t methods_seen,
                     rb_atomic_t hooks_seen)
{
    VALUE deps = resolve_deps(list);
    jt_stock_memo *m = memo_of_ractor(); /* Ruby ran: another thread may have changed the memo */
    /* A definition since the answer was read may be what the UnboundMethods
     * show but not what the answer saw: asked again next time. */
    if (deps == Qfalse || epoch_now(&epoch.methods) != methods_seen) {
        drop(m, subject, question);
        return;
    }
    memo_entry *e = find(m, subject, question);
    if (!e) {
        if (m->count == MEMO_MAX) m->count = 0;
        if (m->count == m->capa) {
            long capa = m->capa ? m->capa * 2 : 32;
            REALLOC_N(m->entries, memo_entry, capa);
            m->capa = capa;
        }
        e = &m->entries[m->count++];
    }
    *e = (memo_entry){.subject = subject, .question = question, .answer = answer, .deps = deps,
                      .methods_seen = methods_seen, .hooks_seen = hooks_seen};
}

/* A singleton class is one object's (an `extend`ed record): kept, its answer
 * would keep the object alive, for an answer no other object shares. */
static bool keepable(VALUE subject)
{
    return !(RB_TYPE_P(subject, T_CLASS) && FL_TEST_RAW(subject, FL_SINGLETON));
}

VALUE jt_stock_memo_ask(VALUE helper, ID question, VALUE subject)
{
    if (!keepable(subject)) return jt_stock_memo_answer_now(helper, question, subject);
    jt_stock_memo *m = memo_of_ractor();
    /* Read before anything is looked up: a change after this read moves
     * the count past what gets stamped, so it is seen next time. */
    rb_atomic_t methods_now = epoch_now(&epoch.methods);
    const memo_entry *e = find(m, subject, question);
    if (RB_LIKELY(e && e->methods_seen == methods_now)) return e->answer;
    rb_atomic_t hooks_now = epoch_now(&epoch.hooks);
    if (e && e->hooks_seen == hooks_now) {
        VALUE deps = e->deps, answer = e->answer;
        if (deps_hold(deps)) {
            memo_entry *again = find(memo_of_ractor(), subject, question); /* Ruby ran */
            if (again && again->deps == deps) again->methods_seen = methods_now;
            RB_GC_GUARD(deps);
            return answer;
        }
    }
    memo_of_ractor()->asks++;
    VALUE reply = ask(helper, question, subject, true);
    VALUE answer = RARRAY_AREF(reply, 0);
    remember(subject, question, answer, RARRAY_AREF(reply, 1), methods_now, hooks_now);
    RB_GC_GUARD(reply);
    return answer;
}

void jt_stock_memo_forget(VALUE subject, ID question)
{
    drop(memo_of_ractor(), subject, question);
}

/* Jetson::MethodWatch: Module's hooks, each passed on with super. The
 * singleton_ hooks here only see modules and classes (it sits in Module's
 * ancestors): another object's singleton methods only change its own
 * singleton class, which the memo never keeps (keepable). */

static void bump(bool hooks)
{
    if (hooks) RUBY_ATOMIC_INC(epoch.hooks);
    RUBY_ATOMIC_INC(epoch.methods);
}

static bool hook_name(VALUE name)
{
    for (size_t i = 0; i < sizeof(h.hook_names) / sizeof(h.hook_names[0]); i++) {
        if (h.hook_names[i] == name) return true;
    }
    return false;
}

/* The definition is in place when Ruby calls these: bumped, then passed on. */
static VALUE watch_method_changed(VALUE self, VALUE name)
{
    bump(hook_name(name));
    return rb_call_super(1, &name);
}

static VALUE watch_super(VALUE arg)
{
    return rb_call_super(1, &arg);
}

static VALUE watch_bump_all(VALUE unused)
{
    bump(true);
    return Qnil;
}

/* include, prepend, extend: the ancestry changes inside super, so the count
 * moves after it (also when it raises partway). */
static VALUE watch_ancestry_changed(VALUE self, VALUE target)
{
    return rb_ensure(watch_super, target, watch_bump_all, Qnil);
}

static VALUE watch_extend_object(VALUE self, VALUE target)
{
    if (!RB_TYPE_P(target, T_CLASS) && !RB_TYPE_P(target, T_MODULE)) return rb_call_super(1, &target);
    return rb_ensure(watch_super, target, watch_bump_all, Qnil);
}

/* @api private: the questions this Ractor sent to Ruby (tests, bench). */
static VALUE watch_s_asks(VALUE self)
{
    return SIZET2NUM(memo_of_ractor()->asks);
}

/* @api private: [methods count, hooks count]. */
static VALUE watch_s_epoch(VALUE self)
{
    return rb_assoc_new(UINT2NUM(epoch_now(&epoch.methods)), UINT2NUM(epoch_now(&epoch.hooks)));
}

void jt_init_stock_memo(void)
{
    h.ask = rb_intern("memo_answer");
    h.instance_method = rb_intern("instance_method");
    static const char *const hooks[] = {"method_added", "method_removed", "method_undefined",
                                        "singleton_method_added", "singleton_method_removed",
                                        "singleton_method_undefined"};
    for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) h.hook_names[i] = ID2SYM(rb_intern(hooks[i]));
    h.key = rb_ractor_local_storage_ptr_newkey(&memo_type);

    /* Defined here, prepended to Module by jetson/rails (plain Jetson has no
     * memo and leaves method definitions alone). */
    h.mWatch = rb_define_module_under(jt.mJetson, "MethodWatch");
    rb_gc_register_mark_object(h.mWatch);
    for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
        rb_define_private_method(h.mWatch, hooks[i], watch_method_changed, 1);
    }
    rb_define_private_method(h.mWatch, "append_features", watch_ancestry_changed, 1);
    rb_define_private_method(h.mWatch, "prepend_features", watch_ancestry_changed, 1);
    rb_define_private_method(h.mWatch, "extend_object", watch_extend_object, 1);
    rb_define_singleton_method(h.mWatch, "asks", watch_s_asks, 0);
    rb_define_singleton_method(h.mWatch, "epoch", watch_s_epoch, 0);
}
