#ifndef JETSON_ATTRIBUTE_SET_H
#define JETSON_ATTRIBUTE_SET_H

#include "jetson.h"

/* Reading an ActiveRecord record's attributes from ActiveModel's attribute
 * set (the LazyAttributeSet a record loaded from the database holds) instead
 * of through attribute_names and one reader call per attribute. Only where
 * every method that would have run is ActiveModel's or ActiveRecord's own
 * (asked of Jetson::Rails once per call, class or name); anything else is
 * answered "ask Ruby". Per-call state, on the generator's stack. */

#define JT_ATTRIBUTE_NAMES_MAX 64
#define JT_ATTRIBUTE_READERS 32
#define JT_ATTRIBUTE_CLASSES 8
#define JT_ATTRIBUTE_LAYOUTS 4

/* A record's attribute names, as attribute_names gives them, and their
 * Attribute objects (Qundef: none yet, the value is cast on first read). */
typedef struct jt_attribute_row {
    VALUE set;
    long count;
    VALUE names[JT_ATTRIBUTE_NAMES_MAX];
    VALUE attributes[JT_ATTRIBUTE_NAMES_MAX];
} jt_attribute_row;

struct jt_attribute_layout {
    VALUE klass, types;
    size_t types_size;
    long count;
    VALUE names[JT_ATTRIBUTE_NAMES_MAX];
};

typedef struct jt_attribute_access {
    VALUE helper;       /* Jetson::Rails */
    signed char usable; /* -1: not asked yet; else whether the set's methods are stock */
    VALUE lazy_set_class, uninitialized_class;
    /* Attribute classes met: whether their value and initialized? are ActiveModel::Attribute's. */
    struct {
        VALUE klass;
        bool stock;
    } attribute_classes[JT_ATTRIBUTE_CLASSES];
    int attribute_class_count;
    /* (record class, attribute name): whether send(name) is ActiveRecord's
     * generated reader of that attribute (or its id); name nil: whether the
     * class's attribute_names is ActiveRecord's. */
    struct {
        VALUE klass, name;
        unsigned char kind;
    } readers[JT_ATTRIBUTE_READERS];
    int reader_count;
    struct jt_attribute_layout layouts[JT_ATTRIBUTE_LAYOUTS]; /* see find_layout */
    int layout_count;
} jt_attribute_access;

JT_INLINE void jt_attribute_access_init(jt_attribute_access *a, VALUE helper)
{
    a->helper = helper;
    a->usable = -1;
    a->attribute_class_count = 0;
    a->reader_count = 0;
    a->layout_count = 0;
}

/* record.attribute_names (ActiveRecord's, over a LazyAttributeSet) into
 * row; false when Ruby has to answer. Runs no Ruby code unless it asks
 * Jetson::Rails about a class met for the first time in this call. The
 * row's VALUEs live on the caller's stack. */
bool jt_attribute_names(jt_attribute_access *a, VALUE record, jt_attribute_row *row);

/* record.send(row->names[i]), when that is ActiveRecord's generated reader
 * and the value was cast already; Qundef: call the reader. fresh: no Ruby
 * code has run since jt_attribute_names filled row. */
VALUE jt_attribute_value(jt_attribute_access *a, VALUE record, const jt_attribute_row *row, long i, bool fresh);

void jt_init_attribute_set(void);

#endif
