/* Answers about classes that hold until one of the methods they were read
 * from is defined again: whether a class still has ActiveSupport's as_json
 * (Jetson::Rails.stock?), a model's plan (RecordPlan.for), whether
 * ActiveModel's attribute set is the stock one. Ruby answers them (the
 * decisions need source locations and Rails' own classes), and names the
 * methods each answer rests on: [answer, [[klass, :method], ...]].
 *
 * Asking Ruby on every call cost a small encoding more than the encoding
 * (`record.to_json` of one record: about 50 µs of `instance_method`
 * lookups). So each Ractor keeps the answers with the method entries their
 * methods resolved to, and a later call checks that each still resolves to
 * the same entry: a method cache lookup, no allocation. A method defined
 * again (in the class, an ancestor, a module prepended or included since)
 * resolves to a new entry, and the question goes back to Ruby. The entries
 * are marked without being allowed to move, so an entry's address can never
 * be reused by another while its answer is kept.
 *
 * rb_method_entry is not in Ruby's public headers; where the build does not
 * find it (HAVE_RB_METHOD_ENTRY), every question goes to Ruby, as before. */

#include "stock_memo.h"

#ifdef HAVE_RB_METHOD_ENTRY
/* vm_method.c; exported for the JIT. */
const void *rb_method_entry(VALUE klass, ID id);
#endif

#define MEMO_MAX 4096 /* answers kept; past it all are dropped (classes made over and over) */

typedef struct memo_dep {
    VALUE klass;
    ID id;
    VALUE entry; /* the rb_method_entry_t, as the GC object it is; 0 when undefined */
} memo_dep;

typedef struct memo_entry {
    VALUE subject;
    ID question;
    VALUE answer;
    long ndeps;
    memo_dep *deps;
} memo_entry;

typedef struct jt_stock_memo {
    memo_entry *entries;
    long count, capa;
} jt_stock_memo;

static struct {
    ID ask;
    rb_ractor_local_key_t key;
} h;

static void memo_mark(void *ptr)
{
    jt_stock_memo *m = ptr;
    for (long i = 0; i < m->count; i++) {
        memo_entry *e = &m->entries[i];
        rb_gc_mark(e->subject);
        rb_gc_mark(e->answer);
        for (long d = 0; d < e->ndeps; d++) {
            rb_gc_mark(e->deps[d].klass);
            if (e->deps[d].entry) rb_gc_mark(e->deps[d].entry);
        }
    }
}

static void memo_clear(jt_stock_memo *m)
{
    for (long i = 0; i < m->count; i++) ruby_xfree(m->entries[i].deps);
    m->count = 0;
}

static void memo_free(void *ptr)
{
    jt_stock_memo *m = ptr;
    memo_clear(m);
    ruby_xfree(m->entries);
    ruby_xfree(m);
}

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

static VALUE resolve(VALUE klass, ID id)
{
#ifdef HAVE_RB_METHOD_ENTRY
    return (VALUE)rb_method_entry(klass, id);
#else
    (void)klass;
    (void)id;
    return 0;
#endif
}

static VALUE ask(VALUE helper, ID question, VALUE subject)
{
    VALUE reply = rb_funcall(helper, h.ask, 2, ID2SYM(question), subject);
    if (!RB_TYPE_P(reply, T_ARRAY) || RARRAY_LEN(reply) != 2) rb_raise(rb_eTypeError, "Jetson: malformed stock answer");
    return reply;
}

VALUE jt_stock_memo_answer_now(VALUE helper, ID question, VALUE subject)
{
    return RARRAY_AREF(ask(helper, question, subject), 0);
}

static bool still_holds(const memo_entry *e)
{
    for (long d = 0; d < e->ndeps; d++) {
        if (resolve(e->deps[d].klass, e->deps[d].id) != e->deps[d].entry) return false;
    }
    return true;
}

static memo_entry *find(jt_stock_memo *m, VALUE subject, ID question)
{
    for (long i = m->count - 1; i >= 0; i--) {
        if (m->entries[i].subject == subject && m->entries[i].question == question) return &m->entries[i];
    }
    return NULL;
}

/* Keeps answer with its dependencies (an Array of [klass, Symbol]); false
 * when they are not in that form (the answer is then not kept). */
static bool remember(jt_stock_memo *m, VALUE subject, ID question, VALUE answer, VALUE deps)
{
    if (!RB_TYPE_P(deps, T_ARRAY)) return false;
    long n = RARRAY_LEN(deps);
    if (n > 4096) return false; /* not an answer Jetson gives: not kept */
    for (long d = 0; d < n; d++) {
        VALUE dep = RARRAY_AREF(deps, d);
        if (!RB_TYPE_P(dep, T_ARRAY) || RARRAY_LEN(dep) != 2 || !RB_SYMBOL_P(RARRAY_AREF(dep, 1)) ||
            (!RB_TYPE_P(RARRAY_AREF(dep, 0), T_CLASS) && !RB_TYPE_P(RARRAY_AREF(dep, 0), T_MODULE))) {
            return false;
        }
    }
    memo_dep *list = n > 0 ? ALLOC_N(memo_dep, (size_t)n) : NULL;
    for (long d = 0; d < n; d++) {
        VALUE dep = RARRAY_AREF(deps, d);
        list[d].klass = RARRAY_AREF(dep, 0);
        list[d].id = SYM2ID(RARRAY_AREF(dep, 1));
        list[d].entry = resolve(list[d].klass, list[d].id);
    }
    memo_entry *e = find(m, subject, question);
    if (e) {
        ruby_xfree(e->deps);
    } else {
        if (m->count == MEMO_MAX) memo_clear(m);
        if (m->count == m->capa) {
            long capa = m->capa ? m->capa * 2 : 32;
            REALLOC_N(m->entries, memo_entry, capa);
            m->capa = capa;
        }
        e = &m->entries[m->count++];
    }
    *e = (memo_entry){.subject = subject, .question = question, .answer = answer, .ndeps = n, .deps = list};
    return true;
}

/* A singleton class is one object's (an `extend`ed record): kept, its answer
 * would keep the object alive, for an answer no other object shares. */
static bool keepable(VALUE subject)
{
    return !(RB_TYPE_P(subject, T_CLASS) && FL_TEST_RAW(subject, FL_SINGLETON));
}

VALUE jt_stock_memo_ask(VALUE helper, ID question, VALUE subject)
{
#ifdef HAVE_RB_METHOD_ENTRY
    if (!keepable(subject)) return jt_stock_memo_answer_now(helper, question, subject);
    jt_stock_memo *m = memo_of_ractor();
    const memo_entry *e = find(m, subject, question);
    if (e && still_holds(e)) return e->answer;
#endif
    VALUE reply = ask(helper, question, subject);
    VALUE answer = RARRAY_AREF(reply, 0);
#ifdef HAVE_RB_METHOD_ENTRY
    /* Ruby ran: another thread may have changed the memo (looked up again). */
    remember(memo_of_ractor(), subject, question, answer, RARRAY_AREF(reply, 1));
#endif
    RB_GC_GUARD(reply);
    return answer;
}

void jt_stock_memo_forget(VALUE subject, ID question)
{
#ifdef HAVE_RB_METHOD_ENTRY
    jt_stock_memo *m = memo_of_ractor();
    memo_entry *e = find(m, subject, question);
    if (e) e->subject = Qundef; /* never found again; replaced when the memo is cleared */
#else
    (void)subject;
    (void)question;
#endif
}

void jt_init_stock_memo(void)
{
    h.ask = rb_intern("memo_answer");
    h.key = rb_ractor_local_storage_ptr_newkey(&memo_type);
}
