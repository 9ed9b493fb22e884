/* The native paths' counts (see diagnostics.h), kept per Ractor like the
 * stock memo, and their Ruby side: Jetson::Rails::Diagnostics's raw
 * readings, which lib/jetson/rails/diagnostics.rb turns into what a user
 * reads. */

#include "rails/diagnostics.h"
#include "rails/rails_handles.h"

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    rb_ractor_local_key_t key;
    VALUE kinds[JT_DIAG_KINDS];
    VALUE reasons[JT_WHY_REASONS];
} h;

static const char *const kind_names[JT_DIAG_KINDS] = {"records", "values", "partials", "calls"};

static const char *const reason_names[JT_WHY_REASONS] = {
    [JT_WHY_NONE] = "none",
    [JT_WHY_NO_PLAN] = "no_plan",
    [JT_WHY_ATTRIBUTE_SET] = "attribute_set",
    [JT_WHY_NOT_LOADED] = "not_loaded",
    [JT_WHY_RAW_VALUES] = "raw_values",
    [JT_WHY_TYPES] = "types",
    [JT_WHY_TOO_MANY] = "too_many_attributes",
    [JT_WHY_ATTRIBUTE_CLASS] = "attribute_class",
    [JT_WHY_LAYOUT] = "layout",
    [JT_WHY_SERIALIZATION] = "serialization",
    [JT_WHY_ROOT] = "root",
    [JT_WHY_NAME_CLASH] = "name_clash",
    [JT_WHY_STI] = "sti",
    [JT_WHY_AS_JSON] = "as_json",
    [JT_WHY_OJ_OPTIMIZED] = "oj_optimized",
    [JT_WHY_READER] = "reader",
    [JT_WHY_PRIMARY_KEY] = "primary_key",
    [JT_WHY_CAST] = "cast",
    [JT_WHY_UNCAST] = "uncast",
    [JT_WHY_DEFAULT] = "default",
    [JT_WHY_CHANGED] = "changed",
    [JT_WHY_PRIVATE] = "private_reader",
    [JT_WHY_LISTENER] = "listener",
    [JT_WHY_STRICT_LOCALS] = "strict_locals",
    [JT_WHY_HANDLER] = "handler",
    [JT_WHY_VIEW] = "view",
    [JT_WHY_CACHE_MISS] = "cache_miss",
    [JT_WHY_CODER_BLOCK] = "coder_block",
};

static void diag_mark(void *ptr)
{
    jt_diagnostics *d = ptr;
    for (int i = 0; i < d->fallback_count; i++) {
        rb_gc_mark(d->fallbacks[i].subject);
        rb_gc_mark(d->fallbacks[i].detail);
    }
}

static void diag_free(void *ptr)
{
    ruby_xfree(ptr);
}

/* Marked through its Ractor on every GC, like the stock memo. */
static const struct rb_ractor_local_storage_type diag_type = {diag_mark, diag_free};

jt_diagnostics *jt_diagnostics_current(void)
{
    jt_diagnostics *d = rb_ractor_local_storage_ptr(h.key);
    if (RB_UNLIKELY(!d)) {
        d = ZALLOC(jt_diagnostics);
        rb_ractor_local_storage_ptr_set(h.key, d);
    }
    return d;
}

/* Details are names (an attribute, a partial): compared by content, since
 * each record's row may hold its own String for the same name. */
static bool same_detail(VALUE a, VALUE b)
{
    if (a == b) return true;
    if (!RB_TYPE_P(a, T_STRING) || !RB_TYPE_P(b, T_STRING)) return false;
    return RSTRING_LEN(a) == RSTRING_LEN(b) && memcmp(RSTRING_PTR(a), RSTRING_PTR(b), (size_t)RSTRING_LEN(a)) == 0;
}

void jt_diag_fallback(jt_diagnostics *d, enum jt_diag_kind kind, enum jt_diag_reason reason, VALUE subject,
                      VALUE detail, size_t n)
{
    d->ruby[kind] += n;
    for (int i = 0; i < d->fallback_count; i++) {
        jt_diag_fallback_entry *e = &d->fallbacks[i];
        if (e->kind == kind && e->reason == reason && e->subject == subject && same_detail(e->detail, detail)) {
            e->count += n;
            return;
        }
    }
    if (d->fallback_count == JT_DIAG_FALLBACKS) {
        d->dropped += n;
        return;
    }
    /* Kept as a frozen copy: the caller's String may be changed later. */
    if (RB_TYPE_P(detail, T_STRING) && !OBJ_FROZEN(detail)) detail = rb_str_new_frozen(detail);
    d->fallbacks[d->fallback_count++] = (jt_diag_fallback_entry){
        .subject = subject, .detail = detail, .count = n, .kind = (unsigned char)kind, .reason = (unsigned char)reason};
}

static int symbol_index(VALUE sym, const VALUE *table, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        if (table[i] == sym) return i;
    }
    rb_raise(rb_eArgError, "unknown diagnostics %s: %" PRIsVALUE, what, rb_inspect(sym));
}

/* Diagnostics.readings -> [native Hash, ruby Hash, [[kind, reason, subject,
 * detail, count], ...], dropped]: this Ractor's counts as they are now. */
static VALUE diag_s_readings(VALUE self)
{
    jt_diagnostics *d = jt_diagnostics_current();
    VALUE native = rb_hash_new(), ruby = rb_hash_new();
    for (int k = 0; k < JT_DIAG_KINDS; k++) {
        rb_hash_aset(native, h.kinds[k], SIZET2NUM(d->native[k]));
        rb_hash_aset(ruby, h.kinds[k], SIZET2NUM(d->ruby[k]));
    }
    VALUE fallbacks = rb_ary_new_capa(d->fallback_count);
    for (int i = 0; i < d->fallback_count; i++) {
        const jt_diag_fallback_entry *e = &d->fallbacks[i];
        rb_ary_push(fallbacks, rb_ary_new_from_args(5, h.kinds[e->kind], h.reasons[e->reason], e->subject, e->detail,
                                                    SIZET2NUM(e->count)));
    }
    return rb_ary_new_from_args(4, native, ruby, fallbacks, SIZET2NUM(d->dropped));
}

/* Diagnostics.reset!: every count back to 0 (this Ractor's). */
static VALUE diag_s_reset(VALUE self)
{
    jt_diagnostics *d = jt_diagnostics_current();
    memset(d, 0, sizeof(*d));
    return Qnil;
}

/* Diagnostics.native(kind, n): from the Ruby side's decisions (partials). */
static VALUE diag_s_native(VALUE self, VALUE kind, VALUE n)
{
    int k = symbol_index(kind, h.kinds, JT_DIAG_KINDS, "kind");
    jt_diag_native(jt_diagnostics_current(), (enum jt_diag_kind)k, NUM2SIZET(n));
    return Qnil;
}

/* Diagnostics.fallback(kind, reason, subject, detail, n). */
static VALUE diag_s_fallback(VALUE self, VALUE kind, VALUE reason, VALUE subject, VALUE detail, VALUE n)
{
    int k = symbol_index(kind, h.kinds, JT_DIAG_KINDS, "kind");
    int r = symbol_index(reason, h.reasons, JT_WHY_REASONS, "reason");
    if (!NIL_P(detail)) StringValue(detail);
    jt_diag_fallback(jt_diagnostics_current(), (enum jt_diag_kind)k, (enum jt_diag_reason)r, subject, detail,
                     NUM2SIZET(n));
    return Qnil;
}

void jt_init_diagnostics(void)
{
    h.key = rb_ractor_local_storage_ptr_newkey(&diag_type);
    for (int k = 0; k < JT_DIAG_KINDS; k++) h.kinds[k] = ID2SYM(rb_intern(kind_names[k]));
    for (int r = 0; r < JT_WHY_REASONS; r++) h.reasons[r] = ID2SYM(rb_intern(reason_names[r]));
    VALUE mDiagnostics = rb_define_module_under(jr.mRails, "Diagnostics");
    rb_define_singleton_method(mDiagnostics, "readings", diag_s_readings, 0);
    rb_define_singleton_method(mDiagnostics, "reset!", diag_s_reset, 0);
    rb_define_singleton_method(mDiagnostics, "native", diag_s_native, 2);
    rb_define_singleton_method(mDiagnostics, "fallback", diag_s_fallback, 5);
}
