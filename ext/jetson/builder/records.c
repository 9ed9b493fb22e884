/* What the builder reads of ActiveRecord records: extract!'s attributes
 * (`json.extract! post, :id, :created_at`, `json.(post, ...)`, `array!` and
 * `json.key` with attribute names) taken from the record's attribute set as
 * Rails mode takes them (attribute_set.c), instead of one public_send and
 * one cast per attribute.
 *
 * A value cast already is the leaf itself. A value loaded from the database
 * and not read yet becomes a cast leaf: its raw value, and a snapshot of what
 * its cast depends on at this moment (its type's descriptor, Time.zone,
 * ActiveRecord.default_timezone, BigDecimal's rounding), written natively by
 * target! (db_cast.c), or cast in Ruby under that snapshot where Jbuilder's
 * semantics need the value itself (attributes!, a merge, a value db_cast.c
 * refuses). The record is not changed: a later read casts as it always does.
 * JSON columns are left to the reader: their value is a Hash or an Array,
 * which Jbuilder's merges look into. */

#include "builder/builder.h"
#include "rails/generate.h"
#include "rails/walk.h"
#include "rails/stock_memo.h"

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    ID materialize, zone, sharing, collection_probe;
} h;

/* The per-builder state of attribute_set.c: like a generator call's, it
 * trusts what it settled about a class (plans, layouts) for its lifetime,
 * which is one render. A hidden object of its own, not write-barrier
 * protected, so that the many VALUEs attribute_set.c stores are marked
 * without announcing each. */
#define READER_PROBES 8

typedef struct record_reader {
    jt_attribute_access access;
    bool usable; /* ActiveRecord is loaded and the reader may read */
    /* Classes' collection probes (jb_record_not_collection), settled once
     * per render like the plans: asking the memo again revalidates method
     * entries, and a method a class lacks (map) is looked up through every
     * ancestor each time. */
    struct {
        VALUE klass, names;
    } probes[READER_PROBES];
    int probe_count;
} record_reader;

static void reader_mark(void *ptr)
{
    record_reader *r = ptr;
    jt_attribute_access *a = &r->access;
    rb_gc_mark(a->helper);
    rb_gc_mark(a->lazy_set_class);
    rb_gc_mark(a->uninitialized_class);
    rb_gc_mark(a->indexed_row_class);
    rb_gc_mark(a->checked_indexes);
    for (int i = 0; i < a->attribute_class_count; i++) rb_gc_mark(a->attribute_classes[i].klass);
    for (int i = 0; i < a->plan_count; i++) {
        rb_gc_mark(a->plans[i].klass);
        rb_gc_mark(a->plans[i].plan);
    }
    /* Each buffer marks its layout's VALUEs. */
    for (int i = 0; i < a->layout_count; i++) rb_gc_mark(a->layout_holders[i]);
    rb_gc_mark(a->db.zone);
    rb_gc_mark(a->db.zone_table);
    rb_gc_mark(a->db.table_zone);
    rb_gc_mark(a->db.relation_class);
    rb_gc_mark(a->db.proxy_class);
    rb_gc_mark(a->why_detail);
    for (int i = 0; i < r->probe_count; i++) {
        rb_gc_mark(r->probes[i].klass);
        rb_gc_mark(r->probes[i].names);
    }
}

static void reader_free(void *ptr)
{
    record_reader *r = ptr;
    /* The layouts' buffer is a GC object of its own: it goes with the reader. */
    ruby_xfree(r);
}

static const rb_data_type_t reader_type = {
    .wrap_struct_name = "Jetson::Builder record reader",
    .function = { .dmark = reader_mark, .dfree = reader_free, .dsize = NULL },
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

/* Builders made inside another's block (`Jbuilder.new { |json| json.post
 * post.to_builder }`, each to_builder a Jbuilder.new of its own) share the
 * outermost one's reader: what it settled holds for that block, and a
 * reader per inner builder would settle the same again for every element. */
static record_reader *reader_of(jb_builder *b)
{
    if (NIL_P(b->record_reader)) {
        VALUE outer = rb_thread_local_aref(rb_thread_current(), h.sharing);
        if (!NIL_P(outer) && outer != b->self && RB_TYPE_P(outer, T_DATA)) {
            jb_builder *o = jb_get(outer);
            reader_of(o);
            RB_OBJ_WRITE(b->self, &b->record_reader, o->record_reader);
            return RTYPEDDATA_DATA(b->record_reader);
        }
        record_reader *r;
        VALUE obj = TypedData_Make_Struct(0, record_reader, &reader_type, r);
        jt_attribute_access_init(&r->access, jr.mRails);
        r->usable = true;
        RB_OBJ_WRITE(b->self, &b->record_reader, obj);
    }
    return RTYPEDDATA_DATA(b->record_reader);
}

bool jb_record_read(jb_builder *b, VALUE object, jb_record_row *rr)
{
    if (RB_SPECIAL_CONST_P(object) || RB_BUILTIN_TYPE(object) != T_OBJECT) return false;
    record_reader *r = reader_of(b);
    if (!r->usable) return false;
    rr->reader = b->record_reader;
    rr->record = object;
    rr->fresh = true;
    rr->zone_read = false;
    if (!jt_attribute_names(&r->access, object, &rr->row)) {
        jt_attribute_fallback(&r->access, JT_DIAG_RECORDS, JT_WHY_NONE, rb_obj_class(object), Qnil);
        return false;
    }
    if (!jt_db_context_load(&r->access.db)) r->usable = false;
    if (r->usable) jt_diag_native(r->access.diag, JT_DIAG_RECORDS, 1);
    return r->usable;
}

/* A snapshot's index in the builder's list: [descriptor, Time.zone (nil for
 * a cast that does not read it), default timezone is UTC, BigDecimal rounds
 * half up], the same object for every leaf of the same cast and moment. */
static long snapshot_index(jb_builder *b, VALUE descriptor, const jt_db_cast *cast, const jt_db_context *c)
{
    VALUE zone = cast->zone_aware ? c->zone : Qnil;
    if (NIL_P(b->casts)) RB_OBJ_WRITE(b->self, &b->casts, rb_ary_new());
    long n = RARRAY_LEN(b->casts);
    for (long i = 0; i < n; i++) {
        VALUE s = RARRAY_AREF(b->casts, i);
        if (RARRAY_AREF(s, 0) == descriptor && RARRAY_AREF(s, 1) == zone && RTEST(RARRAY_AREF(s, 2)) == c->default_utc &&
            RTEST(RARRAY_AREF(s, 3)) == c->decimal_half_up) {
            return i;
        }
    }
    VALUE s = rb_ary_new_from_args(4, descriptor, zone, c->default_utc ? Qtrue : Qfalse, c->decimal_half_up ? Qtrue : Qfalse);
    rb_ary_push(b->casts, rb_obj_freeze(s));
    return n;
}

/* Whether the cast of a raw value that is not nil surely is not nil either
 * (ignore_nil! drops nil values, so it has to be known now). */
static bool surely_present(const jt_db_cast *cast, VALUE raw)
{
    switch ((enum jt_cast_kind)cast->kind) {
        case JT_CAST_STRING: return RB_TYPE_P(raw, T_STRING);
        case JT_CAST_INTEGER:
        case JT_CAST_FLOAT: return RB_INTEGER_TYPE_P(raw) || RB_FLOAT_TYPE_P(raw);
        case JT_CAST_DECIMAL: return RB_INTEGER_TYPE_P(raw) || RB_TYPE_P(raw, T_DATA);
        case JT_CAST_BOOLEAN: return raw == Qtrue || raw == Qfalse || RB_INTEGER_TYPE_P(raw);
        case JT_CAST_DATE:
        case JT_CAST_DATETIME:
        case JT_CAST_TIME:
        case JT_CAST_TIMESTAMPTZ: return RB_TYPE_P(raw, T_DATA); /* a Time or a Date */
        default: return false;
    }
}

/* An attribute of a record read natively whose value its reader gives. */
static bool value_in_ruby(record_reader *r, jb_record_row *rr, enum jt_diag_reason why, VALUE name)
{
    jt_attribute_fallback(&r->access, JT_DIAG_VALUES, why, rb_obj_class(rr->record), name);
    return false;
}

bool jb_record_slot(jb_builder *b, jb_record_row *rr, VALUE name, jb_slot *slot)
{
    VALUE text = RB_SYMBOL_P(name) ? rb_sym2str(name) : name;
    if (!RB_TYPE_P(text, T_STRING)) return false;
    const jt_attribute_row *row = &rr->row;
    long i = 0;
    while (i < row->count && !jt_same_string(row->names[i], text)) i++;
    if (i == row->count) return false;
    record_reader *r = RTYPEDDATA_DATA(rr->reader);
    /* public_send: the reader must be public (else it raises, as in Jbuilder). */
    if (!(row->layout->readers[row->columns[i]] & JT_READER_PUBLIC)) {
        int kind = row->layout->readers[row->columns[i]] & JT_READER_KIND;
        return value_in_ruby(r, rr, kind ? JT_WHY_PRIVATE : JT_WHY_READER, row->names[i]);
    }
    VALUE value = Qundef;
    const jt_db_cast *cast = NULL;
    switch (jt_attribute_source(&r->access, rr->record, row, i, rr->fresh, &value, &cast)) {
        case JT_ATTRIBUTE_VALUE:
            jt_diag_native(r->access.diag, JT_DIAG_VALUES, 1);
            *slot = jb_leaf(jb_format_keys(b, value));
            return true;
        case JT_ATTRIBUTE_RAW:
            break;
        default:
            return value_in_ruby(r, rr, JT_WHY_NONE, row->names[i]);
    }
    if (NIL_P(value)) { /* every cast of nil is nil */
        jt_diag_native(r->access.diag, JT_DIAG_VALUES, 1);
        *slot = jb_leaf(Qnil);
        return true;
    }
    /* Its reader casts it (a JSON column's Hash is what merges look into). */
    if (cast->kind == JT_CAST_JSON || (b->ignore_nil && !surely_present(cast, value))) {
        return value_in_ruby(r, rr, JT_WHY_CAST, row->names[i]);
    }
    jt_db_context *c = &r->access.db;
    /* Time.zone now, as the reader would read it now: once per extract!
     * while no Ruby code runs (a reader in between might set it). */
    if (cast->zone_aware) {
        if (!rr->zone_read || !rr->fresh) {
            rr->zone = rb_funcall(rb_cTime, h.zone, 0);
            rr->zone_read = rr->fresh;
        }
        c->zone = rr->zone;
    }
    long index = snapshot_index(b, row->layout->descriptors[row->columns[i]], cast, c);
    if (index > JB_CAST_MAX) return value_in_ruby(r, rr, JT_WHY_CAST, row->names[i]);
    /* A cast leaf: written natively by target!, or cast by DbCast under its snapshot. */
    jt_diag_native(r->access.diag, JT_DIAG_VALUES, 1);
    *slot = (jb_slot){ .value = value, .node = JB_CAST_BASE - (int32_t)index };
    return true;
}

/* A cast leaf's snapshot. */
static VALUE snapshot_of(jb_builder *b, jb_slot s)
{
    return RARRAY_AREF(b->casts, JB_CAST_BASE - s.node);
}

VALUE jb_cast_value(jb_builder *b, jb_slot s)
{
    return rb_funcall(jr.mDbCast, h.materialize, 2, snapshot_of(b, s), s.value);
}

void jb_write_cast(struct jt_gen *g, jb_builder *b, jb_slot s)
{
    VALUE snapshot = snapshot_of(b, s);
    jt_db_cast cast;
    /* The native casts write ActiveSupport's texts; under another mode (Oj's
     * encoder) the value is written as Ruby casts it. */
    jt_db_context *c = jt_rails_mode_p(g) ? &jt_rails_call_of(g)->attribute_access.db : NULL;
    if (c && jt_db_cast_read(RARRAY_AREF(snapshot, 0), &cast) && jt_db_context_ready(g, c)) {
        /* The moment of the extract!, in the call's context (its stock checks and caches). */
        VALUE zone = c->zone;
        bool default_utc = c->default_utc, half_up = c->decimal_half_up;
        c->zone = RARRAY_AREF(snapshot, 1);
        c->default_utc = RTEST(RARRAY_AREF(snapshot, 2));
        c->decimal_half_up = RTEST(RARRAY_AREF(snapshot, 3));
        bool written = jt_db_cast_write(g, c, &cast, s.value);
        c->zone = zone;
        c->default_utc = default_utc;
        c->decimal_half_up = half_up;
        if (written) return;
    }
    jt_before_ruby(g);
    VALUE value = jb_cast_value(b, s);
    jt_gen_value(g, value);
    RB_GC_GUARD(value);
    RB_GC_GUARD(snapshot);
}

/* _is_collection?'s respond_to?(:map) for a record: ActiveRecord answers it
 * by a method lookup, then its attribute method patterns, then whether the
 * record has an attribute the patterns name (about 0.8 us and a String a
 * call, once per partial rendered under a key). RecordPlan.collection_probe
 * settles per class what does not depend on the record (stock respond_to?
 * chain, no map method, the names the patterns give "map"); the record's
 * own attribute names are then looked at here. */
bool jb_record_not_collection(jb_builder *b, VALUE object)
{
    if (RB_SPECIAL_CONST_P(object) || RB_BUILTIN_TYPE(object) != T_OBJECT) return false;
    record_reader *r = reader_of(b);
    if (!r->usable) return false;
    VALUE klass = rb_obj_class(object), names = Qundef;
    for (int i = 0; i < r->probe_count; i++) {
        if (r->probes[i].klass == klass) names = r->probes[i].names;
    }
    if (names == Qundef) {
        names = jt_stock_memo_ask(jr.mRails, h.collection_probe, klass);
        if (r->probe_count < READER_PROBES) {
            r->probes[r->probe_count].klass = klass;
            r->probes[r->probe_count].names = names;
            r->probe_count++;
        }
    }
    if (!RB_TYPE_P(names, T_ARRAY)) return false;
    long n = RARRAY_LEN(names);
    if (n == 0) return true;
    jt_attribute_row row;
    if (!jt_attribute_names(&r->access, object, &row)) return false;
    for (long i = 0; i < n; i++) {
        VALUE name = RARRAY_AREF(names, i);
        for (long j = 0; j < row.count; j++) {
            if (jt_same_string(row.names[j], name)) return false;
        }
    }
    RB_GC_GUARD(names);
    return true;
}

static VALUE share_end(VALUE self)
{
    rb_thread_local_aset(rb_thread_current(), h.sharing, Qnil);
    return Qnil;
}

/* _share_records { ... }: the block of the outermost builder of this fiber
 * (see reader_of). */
static VALUE builder_share_records(VALUE self)
{
    VALUE thread = rb_thread_current();
    if (!NIL_P(rb_thread_local_aref(thread, h.sharing))) return rb_yield(self);
    rb_thread_local_aset(thread, h.sharing, self);
    return rb_ensure(jb_yield_self, self, share_end, self);
}

void jt_init_builder_records(void)
{
    h.sharing = rb_intern("__jetson_builder_records");
    rb_define_private_method(jb.cBuilder, "_share_records", builder_share_records, 0);
    h.materialize = rb_intern("materialize");
    h.zone = rb_intern("zone");
    h.collection_probe = rb_intern("collection_probe");
}
