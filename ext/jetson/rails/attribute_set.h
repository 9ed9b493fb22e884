#ifndef JETSON_RAILS_ATTRIBUTE_SET_H
#define JETSON_RAILS_ATTRIBUTE_SET_H

/* Reading an ActiveRecord record's attributes from ActiveModel's attribute
 * set (the LazyAttributeSet a record loaded from the database holds) instead
 * of through attribute_names and one reader call per attribute. Only under
 * the record's model plan (Jetson::Rails::RecordPlan: which readers are
 * ActiveRecord's, for which attribute types) and where every method that
 * would have run is ActiveModel's or ActiveRecord's own; anything else is
 * answered "ask Ruby". Per-call state, on the generator's stack. */

#include "bytes/base.h"
#include "rails/db_cast.h"
#include "rails/diagnostics.h"

#define JT_ATTRIBUTE_NAMES_MAX 64

/* A column's reader, as the model plan gives it (RecordPlan::READER_*):
 * ActiveRecord's generated reader or its primary key's id, public or not. */
#define JT_READER_GENERATED 1
#define JT_READER_PRIMARY_KEY 2
#define JT_READER_KIND 3
#define JT_READER_PUBLIC 4
#define JT_ATTRIBUTE_CLASSES 8
#define JT_ATTRIBUTE_LAYOUTS 32

/* The rows of one query share a layout: their model, its attribute types,
 * the query's extra types and the key objects of their values. Worked out
 * once per call: each column's reader (from the plan) and cast (from its
 * type's descriptor). */
struct jt_attribute_layout {
    VALUE klass, types, additional, plan, defaults;
    size_t types_size, additional_size;
    long value_count; /* values' names, then types' initialized ones up to count */
    long count;
    VALUE names[JT_ATTRIBUTE_NAMES_MAX];
    unsigned char readers[JT_ATTRIBUTE_NAMES_MAX]; /* JT_READER_*, 0: Ruby's */
    VALUE descriptors[JT_ATTRIBUTE_NAMES_MAX];     /* keep each cast's labels alive */
    jt_db_cast casts[JT_ATTRIBUTE_NAMES_MAX];
};

/* A record's attribute names, as attribute_names gives them, with their
 * Attribute objects (Qundef: none yet) and their values as the database
 * handed them over (Qundef: none). */
typedef struct jt_attribute_row {
    VALUE set;
    const struct jt_attribute_layout *layout;
    VALUE casted; /* @casted_values when it holds anything, else Qnil */
    /* From the model's plan, set even where the names are refused: the
     * inheritance column serializable_hash leaves out (a String; Qnil
     * without single-table inheritance; Qundef: the class has no plan to
     * say, and Ruby serializes), and whether only: keeps its own order
     * (ActiveModel 8.0 on) rather than the record's. */
    VALUE sti_column;
    bool only_ordered;
    long count;
    VALUE names[JT_ATTRIBUTE_NAMES_MAX];
    VALUE attributes[JT_ATTRIBUTE_NAMES_MAX];
    VALUE raws[JT_ATTRIBUTE_NAMES_MAX];
    unsigned char columns[JT_ATTRIBUTE_NAMES_MAX]; /* each name's column in the layout */
} jt_attribute_row;

typedef struct jt_attribute_access {
    VALUE helper;       /* Jetson::Rails */
    signed char usable; /* -1: not asked yet; else whether the set's methods are stock */
    VALUE lazy_set_class, uninitialized_class;
    /* ActiveRecord::Result::IndexedRow when its methods are stock (8.0 on),
     * else Qnil; and the last of its name-to-index Hashes found to map every
     * name to an Integer (frozen, so it stays so). */
    VALUE indexed_row_class, checked_indexes;
    /* Attribute classes met: whether their value and initialized? are ActiveModel::Attribute's. */
    struct {
        VALUE klass;
        bool stock;
    } attribute_classes[JT_ATTRIBUTE_CLASSES];
    int attribute_class_count;
    /* Model plans met: the model's (RecordPlan.answer, through the memo),
     * Qnil for a class read through Ruby, then any asked for the attribute
     * types a record carries when they are not that plan's (for_types). */
    struct {
        VALUE klass, plan;
        bool replanned; /* the model's plan asked for again in this call */
    } plans[JT_ATTRIBUTE_CLASSES];
    int plan_count;
    /* Allocated one by one as they are met (GC-marked buffers, freed at the
     * end of the call, or by the GC if it raises); never reused within a
     * call, since a row points at its layout while Ruby code may run. */
    struct jt_attribute_layout *layouts[JT_ATTRIBUTE_LAYOUTS];
    VALUE layout_holders[JT_ATTRIBUTE_LAYOUTS];
    int layout_count;
    jt_db_context db;
    /* This Ractor's counts, and why the last record or value this access
     * refused went through Ruby (a JT_WHY_*; its subject and detail). */
    jt_diagnostics *diag;
    unsigned char why;
    VALUE why_detail;
} jt_attribute_access;

JT_INLINE void jt_attribute_access_init(jt_attribute_access *a, VALUE helper)
{
    a->helper = helper;
    a->usable = -1;
    a->lazy_set_class = a->uninitialized_class = a->indexed_row_class = a->checked_indexes = Qnil;
    a->attribute_class_count = 0;
    a->plan_count = 0;
    a->layout_count = 0;
    jt_db_context_init(&a->db);
    a->diag = jt_diagnostics_current();
    a->why = JT_WHY_NONE;
    a->why_detail = Qnil;
}

void jt_attribute_access_finish(jt_attribute_access *a);

/* Counts a record (or a value of one) that went through Ruby: for why, or
 * for JT_WHY_NONE under the reason the access gave when it last refused
 * (a->why; none: not a model, nothing counted). May allocate: call where
 * Ruby may run. */
void jt_attribute_fallback(jt_attribute_access *a, enum jt_diag_kind kind, enum jt_diag_reason why, VALUE klass,
                           VALUE detail);

/* record.attribute_names (ActiveRecord's, over a LazyAttributeSet) into
 * row; false when Ruby has to answer (a->why says why). Runs no Ruby code unless it asks
 * Jetson::Rails about a class met for the first time in this call. The
 * row's VALUEs live on the caller's stack. */
bool jt_attribute_names(jt_attribute_access *a, VALUE record, jt_attribute_row *row);

/* Where record.send(row->names[i]) comes from, when it is ActiveRecord's
 * reader: a value cast already (*value), a raw value and its cast (*value,
 * *cast), or the reader itself (a->why says why). fresh: no Ruby code has
 * run since jt_attribute_names filled row. */
enum jt_attribute_source { JT_ATTRIBUTE_READER, JT_ATTRIBUTE_VALUE, JT_ATTRIBUTE_RAW };
enum jt_attribute_source jt_attribute_source(jt_attribute_access *a, VALUE record, const jt_attribute_row *row,
                                             long i, bool fresh, VALUE *value, const jt_db_cast **cast);

/* An attribute as serializable_hash read it: its value, or (cast set) its
 * value as the database handed it over, which the cast writes. */
typedef struct jt_attribute_read {
    VALUE name, value;
    const jt_db_cast *cast;
} jt_attribute_read;

/* serializable_hash's reads of the kept attributes (indices into row, in
 * the order it keeps them) into out, each from the set where
 * jt_attribute_source can say (from_set), else through its reader, and
 * all of them before any value is written: ActiveModel builds the whole
 * Hash before as_json runs over it, so a value's as_json cannot change
 * what a later attribute reads. Counts the values read from the set and
 * those read through their readers; a raw value is counted when written.
 * Returns whether Ruby code ran (a reader). The values live in out, on the
 * caller's stack. */
bool jt_attribute_read_kept(jt_attribute_access *a, VALUE record, const jt_attribute_row *row, bool from_set,
                            const unsigned char *kept, long n, jt_attribute_read *out);

/* record's attribute name as the database handed it over, where
 * read_attribute_before_type_cast(name) would return it and
 * attribute_came_from_user?(name) be false: a stock LazyAttributeSet that
 * has not built name's Attribute (nothing assigned to it, nothing read
 * through it). *casted: the value @casted_values keeps for name (its reader
 * cast it already), else Qundef. Qundef when Ruby has to answer. Runs no
 * Ruby code unless it asks Jetson::Rails about the attribute set's classes
 * for the first time. */
VALUE jt_attribute_raw(jt_attribute_access *a, VALUE record, VALUE name, VALUE *casted);

void jt_init_attribute_set(void);

#endif
