/* ActiveRecord attributes read from ActiveModel's attribute set (see
 * attribute_set.h). What it stands in for, in ActiveModel/ActiveRecord 7.2:
 *
 *   record.attribute_names  -> @attributes.keys, on a LazyAttributeSet:
 *       (values.keys | types.keys | @attributes.keys)
 *         .keep_if { |name| self[name].initialized? }
 *     where self[name] is @attributes[name], or else an attribute built
 *     from values (initialized) or from the class's defaults;
 *   record.send(name)       -> the generated reader, _read_attribute(name):
 *       @attributes[name]&.value, or else @casted_values[name] (cast once),
 *     and Attribute#value is @value once it has been cast.
 *
 * Building the names costs ActiveRecord one Attribute object per attribute
 * and three Arrays per record; that, not JSON, was most of the time of
 * `records.to_json`. Whatever this file cannot settle from plain Hashes of
 * String keys (attributes built from defaults, a value not cast yet, a class
 * or method that is not the stock one) is left to Ruby, which then runs
 * exactly what ActiveRecord would. */

#include "rails/attribute_set.h"
#include "rails/rails_handles.h"
#include "rails/stock_memo.h"

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    ID ivar_attributes, ivar_values, ivar_types, ivar_additional_types, ivar_casted_values, ivar_value,
        ivar_primary_key, ivar_default_attributes, ivar_column_indexes, ivar_row;
    ID attribute_set_classes, stock_attribute_class_p, record_plan_for, for_types, descriptor;
} h;

enum { PLAN_TYPES, PLAN_READERS, PLAN_STI, PLAN_CASTS, PLAN_ONLY_ORDERED, PLAN_SIZE };

/* Hash lookups below must not run Ruby code (a key's #hash or #eql?):
 * only plain Hashes of plain Strings are read. */
JT_INLINE bool plain_hash(VALUE hash)
{
    return RB_TYPE_P(hash, T_HASH) && RBASIC_CLASS(hash) == rb_cHash;
}

JT_INLINE bool plain_string(VALUE str)
{
    return RB_TYPE_P(str, T_STRING) && RBASIC_CLASS(str) == rb_cString;
}

/* A LazyAttributeSet's @values, the row as the database handed it over:
 * a Hash of names to values (ActiveRecord 7.2, and a record instantiated
 * from a Hash), or from ActiveRecord 8.0 on an ActiveRecord::Result::
 * IndexedRow, the query's Hash of names to column indexes (@column_indexes,
 * shared by its rows) and the row's Array (@row). row is Qnil for a Hash. */
typedef struct raw_values {
    VALUE names, row;
} raw_values;

/* IndexedRow#fetch(name) is `@row[index]` for a truthy index: an Integer
 * indexes as Array#[] does (rb_ary_entry: nil past the end, from the end
 * when negative); any other index is left to Ruby. Checked once per Hash
 * and call: the Result froze it. */
static int integer_index_i(VALUE key, VALUE index, VALUE data)
{
    (void)key;
    if (FIXNUM_P(index)) return ST_CONTINUE;
    *(bool *)data = false;
    return ST_STOP;
}

static bool indexes_checked(jt_attribute_access *a, VALUE names)
{
    if (names == a->checked_indexes) return true;
    if (!OBJ_FROZEN(names)) return false;
    bool integers = true;
    rb_hash_foreach(names, integer_index_i, (VALUE)&integers);
    if (integers) a->checked_indexes = names;
    return integers;
}

static bool raw_values_of(jt_attribute_access *a, VALUE values, raw_values *v)
{
    if (plain_hash(values)) {
        v->names = values;
        v->row = Qnil;
        return true;
    }
    if (NIL_P(a->indexed_row_class) || RB_SPECIAL_CONST_P(values) || RB_BUILTIN_TYPE(values) != T_OBJECT ||
        RBASIC_CLASS(values) != a->indexed_row_class) {
        return false;
    }
    VALUE names = rb_attr_get(values, h.ivar_column_indexes), row = rb_attr_get(values, h.ivar_row);
    if (!plain_hash(names) || !RB_TYPE_P(row, T_ARRAY) || !indexes_checked(a, names)) return false;
    v->names = names;
    v->row = row;
    return true;
}

/* values.fetch(name) as LazyAttributeSet calls it; Qundef: no such value. */
static VALUE raw_value(const raw_values *v, VALUE name)
{
    VALUE found = rb_hash_lookup2(v->names, name, Qundef);
    if (NIL_P(v->row) || found == Qundef) return found;
    return rb_ary_entry(v->row, FIX2LONG(found));
}

static bool access_usable(jt_attribute_access *a)
{
    if (RB_UNLIKELY(a->usable < 0)) {
        VALUE classes = jt_stock_memo_ask(a->helper, h.attribute_set_classes, Qnil);
        a->usable = RB_TYPE_P(classes, T_ARRAY) && RARRAY_LEN(classes) == 3;
        if (a->usable) {
            a->lazy_set_class = RARRAY_AREF(classes, 0);
            a->uninitialized_class = RARRAY_AREF(classes, 1);
            a->indexed_row_class = RARRAY_AREF(classes, 2);
        }
    }
    return a->usable;
}

/* 1: an attribute that is initialized? and whose value is its @value once
 * cast; 0: an Attribute::Uninitialized; -1: a class Jetson does not read. */
static int attribute_state(jt_attribute_access *a, VALUE attribute)
{
    VALUE klass = CLASS_OF(attribute);
    if (klass == a->uninitialized_class) return 0;
    for (int i = 0; i < a->attribute_class_count; i++) {
        if (a->attribute_classes[i].klass == klass) return a->attribute_classes[i].stock ? 1 : -1;
    }
    bool stock = RTEST(jt_stock_memo_ask(a->helper, h.stock_attribute_class_p, klass));
    if (a->attribute_class_count < JT_ATTRIBUTE_CLASSES) {
        a->attribute_classes[a->attribute_class_count].klass = klass;
        a->attribute_classes[a->attribute_class_count].stock = stock;
        a->attribute_class_count++;
    }
    return stock ? 1 : -1;
}

JT_INLINE bool refuse(jt_attribute_access *a, enum jt_diag_reason why)
{
    a->why = (unsigned char)why;
    a->why_detail = Qnil;
    return false;
}

/* A plan as RecordPlan gives it; Qfalse stays (not an ActiveRecord model:
 * nothing to count), anything else malformed is Qnil. */
static VALUE valid_plan(VALUE plan)
{
    if (plan == Qfalse) return Qfalse;
    if (!RB_TYPE_P(plan, T_ARRAY) || RARRAY_LEN(plan) != PLAN_SIZE || !plain_hash(RARRAY_AREF(plan, PLAN_TYPES)) ||
        !plain_hash(RARRAY_AREF(plan, PLAN_READERS)) || !plain_hash(RARRAY_AREF(plan, PLAN_CASTS))) {
        return Qnil;
    }
    return plan;
}

static void keep_plan(jt_attribute_access *a, VALUE klass, VALUE plan)
{
    if (a->plan_count == JT_ATTRIBUTE_CLASSES) return; /* asked again: correct, only slower */
    /* Kept alive by this struct (on the C stack, or marked by its holder). */
    a->plans[a->plan_count].klass = klass;
    a->plans[a->plan_count].plan = plan;
    a->plans[a->plan_count].replanned = false;
    a->plan_count++;
}

/* The model plan of klass (RecordPlan.answer), asked once per class and
 * call; Qnil: its records are read through Ruby; Qfalse: not a model. */
static VALUE plan_of(jt_attribute_access *a, VALUE klass)
{
    for (int i = 0; i < a->plan_count; i++) {
        if (a->plans[i].klass == klass) return a->plans[i].plan;
    }
    VALUE plan = valid_plan(jt_stock_memo_ask(a->helper, h.record_plan_for, klass));
    keep_plan(a, klass, plan);
    return plan;
}

/* The plan for the attribute types this record carries, when they are not
 * its model's plan's. ActiveRecord builds a model's types lazily and without
 * a lock: two threads loading its first records at once may each build a
 * Hash, and records then carry one while the class keeps the other; a
 * schema reload leaves the records loaded before with the old one. Either
 * way the record is read under its own types, as its readers read it:
 *   1. the model's plan asked for again (once per class and call), which
 *      RecordPlan makes for the types new records get: after a reload, or
 *      once the race has settled, that is the record's;
 *   2. else a plan for exactly these types (RecordPlan.for_types, kept
 *      there per model), once per types object and call.
 * Qnil when neither can be had (the record is then read through Ruby). */
static VALUE plan_for_types(jt_attribute_access *a, VALUE klass, VALUE types)
{
    for (int i = 0; i < a->plan_count; i++) {
        VALUE plan = a->plans[i].plan;
        if (a->plans[i].klass == klass && RTEST(plan) && RARRAY_AREF(plan, PLAN_TYPES) == types) return plan;
    }
    for (int i = 0; i < a->plan_count; i++) {
        if (a->plans[i].klass != klass || a->plans[i].replanned) continue;
        a->plans[i].replanned = true;
        jt_stock_memo_forget(klass, h.record_plan_for);
        VALUE plan = valid_plan(jt_stock_memo_ask(a->helper, h.record_plan_for, klass));
        a->plans[i].plan = plan;
        if (RTEST(plan) && RARRAY_AREF(plan, PLAN_TYPES) == types) return plan;
        break;
    }
    VALUE plan = valid_plan(rb_funcall(jr.mRecordPlan, h.for_types, 2, klass, types));
    if (!RTEST(plan) || RARRAY_AREF(plan, PLAN_TYPES) != types) return Qnil;
    keep_plan(a, klass, plan);
    return plan;
}

/* The names of types' that values lacks: an attribute the model declares
 * (the attributes API) or a column the query did not select. LazyAttributeSet
 * builds it from the builder's default_attributes (a plain Hash: the
 * declared ones and the primary key), initialized or not; without an entry
 * there it is uninitialized, so not one of attribute_names. */
struct extra_names {
    jt_attribute_access *a;
    VALUE names, defaults; /* names: values' (raw_values) */
    struct jt_attribute_layout *layout;
    bool unreadable;
};

static int extra_name_i(VALUE key, VALUE type, VALUE data)
{
    struct extra_names *x = (struct extra_names *)data;
    if (!plain_string(key)) {
        x->unreadable = true;
        return ST_STOP;
    }
    if (rb_hash_lookup2(x->names, key, Qundef) != Qundef) return ST_CONTINUE;
    VALUE attribute = rb_hash_lookup2(x->defaults, key, Qundef);
    if (attribute == Qundef) return ST_CONTINUE;
    int state = attribute_state(x->a, attribute);
    if (state < 0 || x->layout->count == JT_ATTRIBUTE_NAMES_MAX) {
        x->unreadable = true;
        return ST_STOP;
    }
    /* Its value is the default's (a Proc's, maybe): its reader runs. */
    if (state) x->layout->names[x->layout->count++] = key;
    return ST_CONTINUE;
}

/* The layout of the row (its values' key objects, in order), found among
 * those met in this call or worked out; NULL when Ruby has to answer. */
static const struct jt_attribute_layout *row_layout(jt_attribute_access *a, VALUE klass, VALUE plan, VALUE types,
                                                    VALUE names, VALUE additional, VALUE set,
                                                    const jt_attribute_row *row)
{
    for (int i = 0; i < a->layout_count; i++) {
        struct jt_attribute_layout *l = a->layouts[i];
        /* default_attributes are the model's, made again with its types.
         * Empty extra types are all alike: each record instantiated from a
         * Hash (Model.instantiate) gets a new one. */
        bool same_additional = l->additional == additional || (l->additional_size == 0 && RHASH_SIZE(additional) == 0);
        if (l->klass == klass && l->types == types && same_additional && l->plan == plan &&
            l->types_size == RHASH_SIZE(types) &&
            l->additional_size == RHASH_SIZE(additional) && l->value_count == row->count &&
            memcmp(l->names, row->names, sizeof(VALUE) * (size_t)row->count) == 0) {
            return l;
        }
    }
    if (a->layout_count == JT_ATTRIBUTE_LAYOUTS) return NULL; /* Ruby reads the rest */
    /* A GC-marked buffer (imemo tmpbuf): the layout holds VALUEs. */
    int slot = a->layout_count;
    a->layout_holders[slot] = 0;
    struct jt_attribute_layout *l = rb_alloc_tmp_buffer(&a->layout_holders[slot], sizeof(struct jt_attribute_layout));
    a->layouts[slot] = l;
    a->layout_count++;
    l->value_count = -1; /* not found by a lookup until complete */
    l->klass = klass;
    l->types = types;
    l->additional = additional;
    l->plan = plan;
    VALUE defaults = rb_attr_get(set, h.ivar_default_attributes);
    l->defaults = defaults;
    l->types_size = RHASH_SIZE(types);
    l->additional_size = RHASH_SIZE(additional);
    memcpy(l->names, row->names, sizeof(VALUE) * (size_t)row->count);
    l->count = row->count;
    if (RHASH_SIZE(types) > 0) {
        if (!plain_hash(defaults)) return NULL;
        struct extra_names x = {.a = a, .names = names, .defaults = defaults, .layout = l, .unreadable = false};
        /* attribute_state may ask Ruby about a class: the guarded walk */
        rb_hash_foreach(types, extra_name_i, (VALUE)&x);
        if (x.unreadable) return NULL;
    }
    VALUE readers = RARRAY_AREF(plan, PLAN_READERS), casts = RARRAY_AREF(plan, PLAN_CASTS);
    for (long i = 0; i < l->count; i++) {
        VALUE name = l->names[i];
        VALUE reader = rb_hash_lookup2(readers, name, Qnil);
        l->readers[i] = FIXNUM_P(reader) ? (unsigned char)(FIX2LONG(reader) & 7) : 0;
        /* LazyAttributeSet's additional_types.fetch(name, types[name]) */
        VALUE descriptor = Qnil;
        VALUE extra_type = RHASH_SIZE(additional) ? rb_hash_lookup2(additional, name, Qundef) : Qundef;
        if (i >= row->count) {
            descriptor = Qnil; /* no raw value */
        } else if (extra_type != Qundef) {
            descriptor = rb_funcall(jr.mRecordPlan, h.descriptor, 1, extra_type);
        } else {
            descriptor = rb_hash_lookup2(casts, name, Qnil);
        }
        l->descriptors[i] = descriptor;
        jt_db_cast_read(descriptor, &l->casts[i]);
    }
    l->value_count = row->count;
    return l;
}

struct row_fill {
    jt_attribute_row *row;
    VALUE values_row; /* raw_values' row */
    long hint;
    bool unreadable;
};

static int value_key_i(VALUE key, VALUE value, VALUE data)
{
    struct row_fill *fill = (struct row_fill *)data;
    jt_attribute_row *row = fill->row;
    if (!plain_string(key) || row->count == JT_ATTRIBUTE_NAMES_MAX) {
        fill->unreadable = true;
        return ST_STOP;
    }
    row->names[row->count] = key;
    row->attributes[row->count] = Qundef;
    row->raws[row->count] = NIL_P(fill->values_row) ? value : rb_ary_entry(fill->values_row, FIX2LONG(value));
    row->columns[row->count] = (unsigned char)row->count;
    row->count++;
    return ST_CONTINUE;
}

/* Which of the row's names this key is: the same object as values' key
 * (what ActiveModel stores), else an equal String; -1 if none. */
static long row_index(const jt_attribute_row *row, VALUE key, long hint)
{
    for (long i = hint; i < row->count; i++) {
        if (row->names[i] == key) return i;
    }
    for (long i = 0; i < hint; i++) {
        if (row->names[i] == key) return i;
    }
    if (!plain_string(key)) return -1;
    for (long i = hint; i < row->count; i++) {
        if (jt_same_string(row->names[i], key)) return i;
    }
    for (long i = 0; i < hint; i++) {
        if (jt_same_string(row->names[i], key)) return i;
    }
    return -1;
}

static int attribute_key_i(VALUE key, VALUE attribute, VALUE data)
{
    struct row_fill *fill = (struct row_fill *)data;
    long i = row_index(fill->row, key, fill->hint);
    /* A name of types' or @attributes' alone: see jt_attribute_names. */
    if (i < 0 || !RTEST(attribute)) {
        fill->unreadable = true;
        return ST_STOP;
    }
    fill->row->attributes[i] = attribute;
    fill->hint = i + 1;
    return ST_CONTINUE;
}

/* The record's LazyAttributeSet, if it is one Jetson can read. */
static VALUE readable_set(jt_attribute_access *a, VALUE record)
{
    VALUE set = rb_attr_get(record, h.ivar_attributes);
    return CLASS_OF(set) == a->lazy_set_class ? set : Qundef;
}

bool jt_attribute_names(jt_attribute_access *a, VALUE record, jt_attribute_row *row)
{
    row->sti_column = Qundef;
    row->only_ordered = false;
    if (!access_usable(a)) return refuse(a, JT_WHY_ATTRIBUTE_SET);
    VALUE klass = CLASS_OF(record);
    VALUE plan = plan_of(a, klass);
    if (!RTEST(plan)) return refuse(a, NIL_P(plan) ? JT_WHY_NO_PLAN : JT_WHY_NONE);
    VALUE sti = RARRAY_AREF(plan, PLAN_STI);
    row->sti_column = plain_string(sti) ? sti : Qnil;
    row->only_ordered = RARRAY_AREF(plan, PLAN_ONLY_ORDERED) == Qtrue;
    VALUE set = readable_set(a, record);
    if (set == Qundef) return refuse(a, JT_WHY_NOT_LOADED);
    VALUE values = rb_attr_get(set, h.ivar_values);
    VALUE types = rb_attr_get(set, h.ivar_types);
    VALUE attributes = rb_attr_get(set, h.ivar_attributes);
    VALUE additional = rb_attr_get(set, h.ivar_additional_types);
    VALUE casted = rb_attr_get(set, h.ivar_casted_values);
    raw_values raw;
    if (!raw_values_of(a, values, &raw) || !plain_hash(types) || !plain_hash(attributes) ||
        !plain_hash(additional) || !plain_hash(casted)) {
        return refuse(a, JT_WHY_RAW_VALUES);
    }
    if (types != RARRAY_AREF(plan, PLAN_TYPES)) {
        plan = plan_for_types(a, klass, types);
        if (NIL_P(plan)) return refuse(a, JT_WHY_TYPES);
    }

    /* (values.keys | types.keys | @attributes.keys): values' keys, then
     * types' initialized ones (see row_layout), when @attributes' are among
     * them. */
    row->set = set;
    row->count = 0;
    row->casted = RHASH_SIZE(casted) ? casted : Qnil;
    struct row_fill fill = {.row = row, .values_row = raw.row, .hint = 0, .unreadable = false};
    rb_hash_foreach(raw.names, value_key_i, (VALUE)&fill);
    if (fill.unreadable) return refuse(a, row->count == JT_ATTRIBUTE_NAMES_MAX ? JT_WHY_TOO_MANY : JT_WHY_LAYOUT);
    a->why = JT_WHY_LAYOUT;
    row->layout = row_layout(a, klass, plan, types, raw.names, additional, set, row);
    if (!row->layout) return false;
    a->why = JT_WHY_NONE;
    for (long i = row->count; i < row->layout->count; i++) {
        row->names[i] = row->layout->names[i];
        row->attributes[i] = Qundef;
        row->raws[i] = Qundef;
        row->columns[i] = (unsigned char)i;
    }
    row->count = row->layout->count;
    if (RHASH_SIZE(attributes) == 0) return true;
    rb_hash_foreach(attributes, attribute_key_i, (VALUE)&fill);
    if (fill.unreadable) return refuse(a, JT_WHY_LAYOUT);

    /* keep_if initialized?: a name without an attribute object is built
     * from values (initialized). */
    long kept = 0;
    for (long i = 0; i < row->count; i++) {
        int state = row->attributes[i] == Qundef ? 1 : attribute_state(a, row->attributes[i]);
        if (state < 0) return refuse(a, JT_WHY_ATTRIBUTE_CLASS);
        if (state) {
            row->names[kept] = row->names[i];
            row->attributes[kept] = row->attributes[i];
            row->raws[kept] = row->raws[i];
            row->columns[kept] = row->columns[i];
            kept++;
        }
    }
    row->count = kept;
    RB_GC_GUARD(values);
    RB_GC_GUARD(raw.names);
    RB_GC_GUARD(raw.row);
    RB_GC_GUARD(types);
    RB_GC_GUARD(attributes);
    RB_GC_GUARD(additional);
    return true;
}

/* An Attribute's @value once cast (Attribute#value without its block), or
 * Qundef when it still has to be cast. */
static VALUE attribute_value(jt_attribute_access *a, VALUE attribute)
{
    if (attribute_state(a, attribute) != 1) return Qundef;
    VALUE value = rb_attr_get(attribute, h.ivar_value);
    return !NIL_P(value) || rb_ivar_defined(attribute, h.ivar_value) ? value : Qundef;
}

static enum jt_attribute_source reader_because(jt_attribute_access *a, enum jt_diag_reason why, VALUE name)
{
    a->why = (unsigned char)why;
    a->why_detail = name;
    return JT_ATTRIBUTE_READER;
}

enum jt_attribute_source jt_attribute_source(jt_attribute_access *a, VALUE record, const jt_attribute_row *row,
                                             long i, bool fresh, VALUE *value, const jt_db_cast **cast)
{
    const struct jt_attribute_layout *l = row->layout;
    int column = row->columns[i];
    int kind = l->readers[column] & JT_READER_KIND;
    VALUE name = row->names[i];
    if (!kind) return reader_because(a, JT_WHY_READER, name);
    if (kind == JT_READER_PRIMARY_KEY) {
        /* id reads @primary_key, the class's primary key when the record was built. */
        VALUE key = rb_attr_get(record, h.ivar_primary_key);
        if (key != name && (!plain_string(key) || !jt_same_string(key, name))) {
            return reader_because(a, JT_WHY_PRIMARY_KEY, name);
        }
    }
    VALUE attribute = row->attributes[i], casted = row->casted, raw = row->raws[i];
    if (!fresh) {
        /* Ruby code ran since the row was read (an earlier reader, an
         * as_json): look again, in the same set. */
        VALUE set = readable_set(a, record);
        if (set != row->set) return reader_because(a, JT_WHY_CHANGED, name);
        VALUE attributes = rb_attr_get(set, h.ivar_attributes);
        VALUE values = rb_attr_get(set, h.ivar_values);
        casted = rb_attr_get(set, h.ivar_casted_values);
        raw_values rv;
        if (!plain_hash(attributes) || !raw_values_of(a, values, &rv) || !plain_hash(casted)) {
            return reader_because(a, JT_WHY_CHANGED, name);
        }
        attribute = rb_hash_lookup2(attributes, name, Qundef);
        if (attribute != Qundef && !RTEST(attribute)) return reader_because(a, JT_WHY_CHANGED, name);
        raw = raw_value(&rv, name);
        RB_GC_GUARD(values);
    }
    /* LazyAttributeSet#fetch_value: the attribute, else the value cast
     * earlier, else the raw value cast now. */
    if (attribute != Qundef) {
        *value = attribute_value(a, attribute);
        return *value == Qundef ? reader_because(a, JT_WHY_UNCAST, name) : JT_ATTRIBUTE_VALUE;
    }
    if (!NIL_P(casted) && RHASH_SIZE(casted)) {
        *value = rb_hash_lookup2(casted, name, Qundef);
        if (*value != Qundef) return JT_ATTRIBUTE_VALUE;
    }
    if (raw == Qundef) return reader_because(a, JT_WHY_DEFAULT, name);
    if (l->casts[column].kind == JT_CAST_NONE) return reader_because(a, JT_WHY_CAST, name);
    *value = raw;
    *cast = &l->casts[column];
    return JT_ATTRIBUTE_RAW;
}

bool jt_attribute_read_kept(jt_attribute_access *a, VALUE record, const jt_attribute_row *row, bool from_set,
                            const unsigned char *kept, long n, jt_attribute_read *out)
{
    bool ran_ruby = false;
    for (long k = 0; k < n; k++) {
        long i = kept[k];
        VALUE name = row->names[i];
        out[k].name = name;
        out[k].cast = NULL;
        if (from_set) {
            VALUE value = Qundef;
            const jt_db_cast *cast = NULL;
            /* Fresh until a reader ran: nothing else here runs the app's code. */
            enum jt_attribute_source source = jt_attribute_source(a, record, row, i, !ran_ruby, &value, &cast);
            if (source != JT_ATTRIBUTE_READER) {
                out[k].value = value;
                out[k].cast = cast;
                if (!cast) jt_diag_native(a->diag, JT_DIAG_VALUES, 1); /* a raw value: counted when written */
                continue;
            }
            jt_attribute_fallback(a, JT_DIAG_VALUES, JT_WHY_NONE, rb_obj_class(record), name);
        }
        /* read_attribute_for_serialization is send. */
        out[k].value = rb_funcall(record, rb_to_id(name), 0);
        ran_ruby = true;
    }
    return ran_ruby;
}

VALUE jt_attribute_raw(jt_attribute_access *a, VALUE record, VALUE name, VALUE *casted)
{
    *casted = Qundef;
    if (!plain_string(name) || !access_usable(a)) return Qundef;
    VALUE set = readable_set(a, record);
    if (set == Qundef) return Qundef;
    VALUE attributes = rb_attr_get(set, h.ivar_attributes);
    VALUE values = rb_attr_get(set, h.ivar_values);
    VALUE cast = rb_attr_get(set, h.ivar_casted_values);
    raw_values rv;
    if (!plain_hash(attributes) || !raw_values_of(a, values, &rv) || !plain_hash(cast)) return Qundef;
    /* Built: assigned (FromUser), or read before type cast; Ruby knows which. */
    if (RHASH_SIZE(attributes) && rb_hash_lookup2(attributes, name, Qundef) != Qundef) return Qundef;
    VALUE raw = raw_value(&rv, name);
    RB_GC_GUARD(values);
    if (raw != Qundef && RHASH_SIZE(cast)) *casted = rb_hash_lookup2(cast, name, Qundef);
    RB_GC_GUARD(set);
    return raw;
}

void jt_attribute_fallback(jt_attribute_access *a, enum jt_diag_kind kind, enum jt_diag_reason why, VALUE klass,
                           VALUE detail)
{
    if (why == JT_WHY_NONE) {
        why = (enum jt_diag_reason)a->why;
        if (NIL_P(detail)) detail = a->why_detail;
    }
    a->why = JT_WHY_NONE;
    a->why_detail = Qnil;
    if (why != JT_WHY_NONE) jt_diag_fallback(a->diag, kind, why, klass, detail, 1);
}

void jt_attribute_access_finish(jt_attribute_access *a)
{
    for (int i = 0; i < a->layout_count; i++) rb_free_tmp_buffer(&a->layout_holders[i]);
    a->layout_count = 0;
}

void jt_init_attribute_set(void)
{
    jt_intern_ids("@attributes @values @types @additional_types @casted_values @value @primary_key "
                "@default_attributes @column_indexes @row attribute_set_classes stock_attribute_class? plan "
                "descriptor for_types",
        (ID *const[]){&h.ivar_attributes, &h.ivar_values, &h.ivar_types, &h.ivar_additional_types,
            &h.ivar_casted_values, &h.ivar_value, &h.ivar_primary_key, &h.ivar_default_attributes,
            &h.ivar_column_indexes, &h.ivar_row, &h.attribute_set_classes, &h.stock_attribute_class_p,
            &h.record_plan_for, &h.descriptor, &h.for_types, NULL});
}
