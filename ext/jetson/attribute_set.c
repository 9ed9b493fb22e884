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

#include "attribute_set.h"

/* Written once by Init_jetson, only read afterwards (see jt_handles). */
static struct {
    ID ivar_attributes, ivar_values, ivar_types, ivar_casted_values, ivar_value, ivar_primary_key;
    ID attribute_set_classes, stock_attribute_class_p, attribute_reader, native_attribute_names_p;
    VALUE sym_generated, sym_primary_key;
} h;

enum reader_kind { READER_RUBY = 0, READER_GENERATED, READER_PRIMARY_KEY };

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

static bool access_usable(jt_attribute_access *a)
{
    if (RB_UNLIKELY(a->usable < 0)) {
        VALUE classes = rb_funcall(a->helper, h.attribute_set_classes, 0);
        a->usable = RB_TYPE_P(classes, T_ARRAY) && RARRAY_LEN(classes) == 2;
        if (a->usable) {
            a->lazy_set_class = RARRAY_AREF(classes, 0);
            a->uninitialized_class = RARRAY_AREF(classes, 1);
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
    bool stock = RTEST(rb_funcall(a->helper, h.stock_attribute_class_p, 1, klass));
    if (a->attribute_class_count < JT_ATTRIBUTE_CLASSES) {
        a->attribute_classes[a->attribute_class_count].klass = klass;
        a->attribute_classes[a->attribute_class_count].stock = stock;
        a->attribute_class_count++;
    }
    return stock ? 1 : -1;
}

/* What Jetson::Rails says of klass and name (name nil: of klass's
 * attribute_names), asked once per call. */
static enum reader_kind reader_kind(jt_attribute_access *a, VALUE klass, VALUE name)
{
    for (int i = 0; i < a->reader_count; i++) {
        if (a->readers[i].klass != klass) continue;
        VALUE known = a->readers[i].name;
        if (known == name || (!NIL_P(known) && !NIL_P(name) && jt_same_string(known, name))) {
            return (enum reader_kind)a->readers[i].kind;
        }
    }
    enum reader_kind kind;
    if (NIL_P(name)) {
        kind = RTEST(rb_funcall(a->helper, h.native_attribute_names_p, 1, klass)) ? READER_GENERATED : READER_RUBY;
    } else {
        VALUE answer = rb_funcall(a->helper, h.attribute_reader, 2, klass, name);
        kind = answer == h.sym_generated ? READER_GENERATED : answer == h.sym_primary_key ? READER_PRIMARY_KEY : READER_RUBY;
    }
    if (a->reader_count < JT_ATTRIBUTE_READERS) {
        a->readers[a->reader_count].klass = klass;
        /* Kept alive by this struct being on the C stack; a copy if the
         * caller could still change it. */
        a->readers[a->reader_count].name = NIL_P(name) || OBJ_FROZEN(name) ? name : rb_str_new_frozen(name);
        a->readers[a->reader_count].kind = (unsigned char)kind;
        a->reader_count++;
    }
    return kind;
}

/* A class's attribute layout met in this call: the key objects of its rows'
 * values (rows of one query share them) and its types, all of whose keys are
 * among them. A record with the same key objects needs no check of types. */
static struct jt_attribute_layout *find_layout(jt_attribute_access *a, VALUE klass, VALUE types,
                                               const jt_attribute_row *row)
{
    for (int i = 0; i < a->layout_count; i++) {
        struct jt_attribute_layout *l = &a->layouts[i];
        if (l->klass == klass && l->types == types && l->types_size == RHASH_SIZE(types) && l->count == row->count &&
            memcmp(l->names, row->names, sizeof(VALUE) * (size_t)row->count) == 0) {
            return l;
        }
    }
    return NULL;
}

struct types_check {
    VALUE values;
    bool within;
};

static int type_in_values_i(VALUE key, VALUE value, VALUE data)
{
    struct types_check *check = (struct types_check *)data;
    if (!plain_string(key) || rb_hash_lookup2(check->values, key, Qundef) == Qundef) {
        check->within = false;
        return ST_STOP;
    }
    return ST_CONTINUE;
}

/* Whether every key of types is one of values' (so the union of their keys
 * is values' keys); remembered for the next record of this layout. */
static bool types_within_values(jt_attribute_access *a, VALUE klass, VALUE types, VALUE values,
                                const jt_attribute_row *row)
{
    if (find_layout(a, klass, types, row)) return true;
    struct types_check check = {.values = values, .within = true};
    rb_hash_foreach(types, type_in_values_i, (VALUE)&check);
    if (!check.within) return false;
    struct jt_attribute_layout *l = &a->layouts[a->layout_count < JT_ATTRIBUTE_LAYOUTS ? a->layout_count++ : 0];
    l->klass = klass;
    l->types = types;
    l->types_size = RHASH_SIZE(types);
    l->count = row->count;
    memcpy(l->names, row->names, sizeof(VALUE) * (size_t)row->count);
    return true;
}

struct row_fill {
    jt_attribute_row *row;
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
    if (!access_usable(a)) return false;
    VALUE klass = CLASS_OF(record);
    if (reader_kind(a, klass, Qnil) == READER_RUBY) return false;
    VALUE set = readable_set(a, record);
    if (set == Qundef) return false;
    VALUE values = rb_attr_get(set, h.ivar_values);
    VALUE types = rb_attr_get(set, h.ivar_types);
    VALUE attributes = rb_attr_get(set, h.ivar_attributes);
    if (!plain_hash(values) || !plain_hash(types) || !plain_hash(attributes)) return false;

    /* (values.keys | types.keys | @attributes.keys): values' keys, when
     * types' and @attributes' are among them. Otherwise a name would be
     * initialized or not by the class's default attribute: left to Ruby. */
    row->set = set;
    row->count = 0;
    struct row_fill fill = {.row = row, .hint = 0, .unreadable = false};
    rb_hash_foreach(values, value_key_i, (VALUE)&fill);
    if (fill.unreadable || !types_within_values(a, klass, types, values, row)) return false;
    if (RHASH_SIZE(attributes) == 0) return true;
    rb_hash_foreach(attributes, attribute_key_i, (VALUE)&fill);
    if (fill.unreadable) return false;

    /* keep_if initialized?: a name without an attribute object is built
     * from values (initialized). */
    long kept = 0;
    for (long i = 0; i < row->count; i++) {
        int state = row->attributes[i] == Qundef ? 1 : attribute_state(a, row->attributes[i]);
        if (state < 0) return false;
        if (state) {
            row->names[kept] = row->names[i];
            row->attributes[kept] = row->attributes[i];
            kept++;
        }
    }
    row->count = kept;
    RB_GC_GUARD(values);
    RB_GC_GUARD(types);
    RB_GC_GUARD(attributes);
    return true;
}

/* LazyAttributeSet#fetch_value without its blocks: the attribute's @value
 * once cast, else the value cast earlier into @casted_values. */
static VALUE cast_value(jt_attribute_access *a, VALUE set, VALUE attribute, VALUE name)
{
    if (attribute != Qundef) {
        if (attribute_state(a, attribute) != 1) return Qundef;
        VALUE value = rb_attr_get(attribute, h.ivar_value);
        return !NIL_P(value) || rb_ivar_defined(attribute, h.ivar_value) ? value : Qundef;
    }
    VALUE casted = rb_attr_get(set, h.ivar_casted_values);
    return plain_hash(casted) ? rb_hash_lookup2(casted, name, Qundef) : Qundef;
}

VALUE jt_attribute_value(jt_attribute_access *a, VALUE record, const jt_attribute_row *row, long i, bool fresh)
{
    VALUE name = row->names[i];
    enum reader_kind kind = reader_kind(a, CLASS_OF(record), name);
    if (kind == READER_RUBY) return Qundef;
    if (kind == READER_PRIMARY_KEY) {
        /* id reads @primary_key, the class's primary key when the record was built. */
        VALUE key = rb_attr_get(record, h.ivar_primary_key);
        if (key != name && (!plain_string(key) || !jt_same_string(key, name))) return Qundef;
    }
    if (fresh) return cast_value(a, row->set, row->attributes[i], name);
    /* Ruby code ran since the row was read (an earlier reader, an as_json):
     * look again. */
    VALUE set = readable_set(a, record);
    if (set == Qundef) return Qundef;
    VALUE attributes = rb_attr_get(set, h.ivar_attributes);
    if (!plain_hash(attributes)) return Qundef;
    VALUE attribute = rb_hash_lookup2(attributes, name, Qundef);
    if (attribute != Qundef && !RTEST(attribute)) return Qundef;
    return cast_value(a, set, attribute, name);
}

void jt_init_attribute_set(void)
{
    h.ivar_attributes = rb_intern("@attributes");
    h.ivar_values = rb_intern("@values");
    h.ivar_types = rb_intern("@types");
    h.ivar_casted_values = rb_intern("@casted_values");
    h.ivar_value = rb_intern("@value");
    h.ivar_primary_key = rb_intern("@primary_key");
    h.attribute_set_classes = rb_intern("attribute_set_classes");
    h.stock_attribute_class_p = rb_intern("stock_attribute_class?");
    h.attribute_reader = rb_intern("attribute_reader");
    h.native_attribute_names_p = rb_intern("native_attribute_names?");
    h.sym_generated = ID2SYM(rb_intern("generated"));
    h.sym_primary_key = ID2SYM(rb_intern("primary_key"));
}
