#ifndef JETSON_BUILDER_BUILDER_H
#define JETSON_BUILDER_BUILDER_H

/* The builder layer, on top of rails/, json/ and bytes/: Jetson::Builder,
 * Jbuilder's DSL on native nodes, with what views add to it (a collection's
 * elements rendered by a compiled partial, cached JSON text pasted in, a
 * key's partial run from its plan) and its reads of ActiveRecord records.
 * jt_init_builder defines it.
 *
 * Jetson::Builder keeps the document Jbuilder would build as a tree of C
 * nodes instead of Ruby Hashes and Arrays: Jbuilder's semantics need the
 * whole tree until target! (a repeated key keeps its first position and its
 * last value, a second block for a key deep-merges, an empty block drops its
 * key), but none of it has to be a Ruby object. Values stay Ruby values and
 * are encoded, with ActiveSupport's rules, only by target!, as Jbuilder's
 * to_json does.
 *
 * builder/tree.c: the tree and Jbuilder's operations on it (set a key, merge
 * two values, turn a subtree into Ruby objects, write it as JSON).
 * builder/dsl.c: the DSL methods. */

#include "bytes/base.h"
#include "rails/attribute_set.h"

struct jt_gen;

void jt_init_builder(void);

/* Where a value lives: a container node of the tree, a Ruby value (a leaf),
 * Jbuilder's BLANK (nothing set yet), or a raw JSON fragment: an object or
 * array Jetson wrote earlier (a cache hit), held as its text, checked by
 * jt_raw_json_fragment_p, and split into members only when Jbuilder's
 * semantics need them (see jb_adopt_hash). */
enum { JB_LEAF = -1, JB_BLANK = -2, JB_RAW = -3 };
/* A cast leaf (builder/records.c): value is a raw database value, and
 * JB_CAST_BASE - node the index of its cast's snapshot in the builder's
 * casts. Like any leaf it is a value, never a container. */
#define JB_CAST_BASE (-4)
#define JB_CAST_MAX (1L << 30)
typedef struct jb_slot {
    VALUE value; /* the leaf's value or the fragment's frozen text; Qnil otherwise */
    int32_t node;
} jb_slot;

enum jb_node_kind { JB_HASH, JB_ARRAY };

/* How a Hash key is held. JB_KEY_NAME: a String key whose text is the name of
 * the Symbol in `key` (set! with a Symbol and no key format, the common case:
 * no String is made, and equal keys are the same Symbol). JB_KEY_RAW: `key`
 * is the key object itself (a formatted String, or whatever merge! brought). */
enum jb_key_kind { JB_KEY_NAME, JB_KEY_RAW };

typedef struct jb_entry {
    VALUE key;     /* Qnil in Arrays */
    VALUE value;   /* the slot's value */
    int32_t node;  /* the slot's node */
    uint32_t link; /* (next entry of the same node + 1) << 1 | key kind: 24 bytes an entry */
} jb_entry;

static inline int32_t jb_next(const jb_entry *e) { return (int32_t)(e->link >> 1) - 1; }
static inline uint8_t jb_kind(const jb_entry *e) { return (uint8_t)(e->link & 1); }

typedef struct jb_node {
    uint8_t kind;
    bool raw_keys;   /* some key is JB_KEY_RAW: lookups compare texts */
    bool other_keys; /* some key is not a plain String (merge! brought a Symbol, an Integer...) */
    int32_t first, last, count;
} jb_node;

/* Nodes and entries live in two arrays owned by the builder and are named by
 * index: the arrays move when they grow, which can happen whenever Ruby code
 * runs (a block adding keys), so no pointer into them is held across a call
 * into Ruby or an allocation. Nothing is freed before the builder. */
typedef struct jb_builder {
    jb_node *nodes;
    jb_entry *entries;
    int32_t node_count, node_capa;
    int32_t entry_count, entry_capa;
    jb_slot current;    /* Jbuilder's @attributes in the current scope */
    VALUE key_formatter; /* Qnil: keys as they are */
    bool ignore_nil, deep_format_keys;
    VALUE self;
    /* The last class of collection asked about (see relation_records):
     * whether its map is ActiveRecord's, so its records can be walked. */
    VALUE records_class;
    bool records_ok;
    bool own_method_missing; /* the builder's class has Jetson::Builder's method_missing */
    /* A JbuilderTemplate (views): set! and array! given partial options
     * render partials (lib/jetson/views/jbuilder_template.rb). */
    bool template;
    /* A view's builder (JbuilderTemplate rendering a template): what the
     * DSL calls return is never read, so array! returns nil. */
    bool in_view;
    /* What the last _capture! block built, kept until it is merged or
     * written as JSON (cache! writes its fragment between the two). */
    jb_slot captured;
    /* builder/records.c: the snapshots of cast leaves' casts (an Array, or
     * Qnil), and the reader of records' attribute sets (or Qnil). */
    VALUE casts, record_reader;
    /* builder/partials.c: plans of single partials rendered under a key, and
     * of partial! calls with a name and locals. */
    VALUE inline_plans, single_plans;
} jb_builder;

typedef struct jb_key {
    VALUE key;
    uint8_t kind;
} jb_key;

/* Handles the tree code needs from the Ruby side (set up by jt_init_builder). */
typedef struct jb_handles {
    VALUE cBuilder, blank; /* Jetson::Builder, its BLANK */
    VALUE empty_array;     /* frozen [], Jbuilder's EMPTY_ARRAY */
    VALUE sym_as, sym_partial, sym_collection;
    ID id_format, id_empty_p, id_present_p, id_parse_json, id_set_inline_partial, id_render_partial_with_options,
       id_key_p, id_dup, id__run, id_element_error, id_iterate_bang, id_method_name, id_each, id_deep_merge, id_plus, id_aset, id_fetch, id_build, id_map,
       id_count, id_public_send, id_format_keys, id_attributes_bang, id_null_error, id_array_error,
       id_merge_error, id_to_a, id_delete, id_records,
       id_plain_relation_p, id_own_method_missing_p, id_method_missing, id_initialize;
} jb_handles;
extern jb_handles jb;

/* builder/instance.c: the Builder object (checked) behind a VALUE, and its
 * allocation and settings methods, defined on the class by init. */
jb_builder *jb_get(VALUE self);
void jt_init_builder_instance(VALUE builder_class);

/* Ruby's `Hash === v` and `Array === v`. Only Hashes (and subclasses) are
 * T_HASH, and the same for Arrays; testing the type first spares
 * rb_obj_is_kind_of's walk up a long ancestor chain (an ActiveRecord model
 * has dozens of modules) for every object that is not one. */
static inline bool jb_hash_p(VALUE v) { return RB_TYPE_P(v, T_HASH); }
static inline bool jb_array_p(VALUE v) { return RB_TYPE_P(v, T_ARRAY); }

static inline jb_slot jb_entry_slot(const jb_entry *e) { return (jb_slot){ .value = e->value, .node = e->node }; }
static inline jb_slot jb_leaf(VALUE v) { return (jb_slot){ .value = v, .node = JB_LEAF }; }
static inline jb_slot jb_blank(void) { return (jb_slot){ .value = Qnil, .node = JB_BLANK }; }
static inline jb_slot jb_raw(VALUE text) { return (jb_slot){ .value = text, .node = JB_RAW }; }
static inline bool jb_is_blank(jb_slot s) { return s.node == JB_BLANK; }
static inline bool jb_is_cast(jb_slot s) { return s.node <= JB_CAST_BASE; }
/* A raw fragment is always an object or an array (scalars are decoded when a
 * fragment is split), so it is never nil. */
static inline bool jb_is_nil(jb_slot s) { return s.node == JB_LEAF && NIL_P(s.value); }

int32_t jb_new_node(jb_builder *b, enum jb_node_kind kind);
jb_slot jb_node_slot(int32_t node);
bool jb_is_array(jb_builder *b, jb_slot s);
void jb_array_push(jb_builder *b, int32_t node, jb_slot item);
void jb_hash_set(jb_builder *b, int32_t node, jb_key key, jb_slot value);
int32_t jb_hash_find(jb_builder *b, int32_t node, jb_key key);
jb_slot jb_merge_values(jb_builder *b, jb_slot current, jb_slot updates);
jb_slot jb_adopt_array(jb_builder *b, jb_slot s);
jb_slot jb_adopt_hash(jb_builder *b, jb_slot s);
jb_slot jb_fragment_slot(VALUE text);
bool jb_present(jb_builder *b, jb_slot s);
VALUE jb_materialize(jb_builder *b, jb_slot s);
VALUE jb_key_object(jb_key key);
void jb_write(struct jt_gen *g, VALUE self);
void jb_write_captured(struct jt_gen *g, VALUE self);
void jb_trim(jb_builder *b);

/* builder/instance.c's scopes, for the DSL and the template side
 * (builder/fragments.c, partials.c). A scope saves what Jbuilder's _scope
 * restores: @attributes and the key format settings (not ignore_nil!). */
struct saved_state {
    jb_slot current;
    VALUE key_formatter;
    bool deep_format_keys;
};
struct saved_state jb_save_state(const jb_builder *b);
void jb_restore_state(jb_builder *b, const struct saved_state *saved);
void jb_set_current(jb_builder *b, jb_slot s);
jb_slot jb_in_scope(VALUE self, VALUE (*fn)(VALUE), VALUE arg);
VALUE jb_yield_self(VALUE self);
/* builder/dsl.c's value handling, for the template side. */
bool jb_set_value(jb_builder *b, VALUE key, jb_slot value);
VALUE jb_format_keys(jb_builder *b, VALUE value);
void jb_merge_into_current(VALUE self, jb_slot updates);
void jt_init_builder_fragments(void);

/* builder/records.c: extract! on ActiveRecord records. A record's row, read
 * once per extract! (fresh: no Ruby code has run since). */
typedef struct jb_record_row {
    VALUE reader, record;
    bool fresh;
    bool zone_read; /* zone is Time.zone, read since Ruby code last ran */
    VALUE zone;
    jt_attribute_row row;
} jb_record_row;
bool jb_record_read(jb_builder *b, VALUE object, jb_record_row *rr);
/* The slot extract! sets for `name` (a value, or a cast leaf); false when
 * public_send has to run. */
bool jb_record_slot(jb_builder *b, jb_record_row *rr, VALUE name, jb_slot *slot);
/* A cast leaf's value as the reader would have given it, and its JSON. */
VALUE jb_cast_value(jb_builder *b, jb_slot s);
void jb_write_cast(struct jt_gen *g, jb_builder *b, jb_slot s);
void jt_init_builder_records(void);

/* builder/partials.c: `json.key object, partial: "p", as: :x` run natively
 * (true, *result set), or false for JbuilderTemplate#_set_inline_partial. */
bool jb_inline_partial(VALUE self, VALUE key, VALUE object, VALUE options, VALUE *result);
void jt_init_builder_partials(void);
/* view._run(method, template, locals, buffer, &block), or natively what it
 * does when native is true and method a Symbol (builder/partials.c). */
VALUE jb_view_run(VALUE view, VALUE method, VALUE template, VALUE locals, VALUE buffer, VALUE block, bool native);
/* The same _run for many calls of one template's method (a collection's
 * elements): the view's variables saved and set once by enter, put back by
 * leave, which the caller runs in an ensure. Only where jb_view_run would
 * run natively. */
struct jb_view_scope {
    VALUE view, template, buffer;
    VALUE saved_buffer, saved_path, saved_template;
};
void jb_view_scope_enter(struct jb_view_scope *scope, VALUE view, VALUE template, VALUE buffer);
VALUE jb_view_scope_call(struct jb_view_scope *scope, ID method, VALUE locals);
void jb_view_scope_leave(struct jb_view_scope *scope);
/* builder/view_events.c: fn(arg) inside the events ActionView owes
 * listeners for a native run (events: PartialRenderer#view_events's Array,
 * or nil when nobody listens). jb_template_event: !render_template around one
 * run of a template's method; jb_partial_event: render_partial around a
 * single partial, whose payload carries its locals. */
VALUE jb_template_event(VALUE events, VALUE (*fn)(VALUE), VALUE arg);
VALUE jb_partial_event(VALUE events, VALUE view, VALUE locals, VALUE (*fn)(VALUE), VALUE arg);
void jt_init_builder_view_events(void);
/* builder/ruby_half.c: the Ruby half (lib/jetson/builder/builder.rb,
 * through the entry point jetson/builder) required where only "jetson" was,
 * before a Builder is made, a class method called or a constant named; it
 * raises Jetson::MissingDependencyError where ActiveSupport is missing. */
void jb_need_ruby_half(void);
void jt_init_builder_ruby_half(void);
/* _is_collection?: responds to map and count, and is not a Struct. */
bool jb_collection_p(jb_builder *b, VALUE object);
/* True when object is an ActiveRecord record known not to respond to map
 * (builder/records.c); false when Ruby has to be asked. */
bool jb_record_not_collection(jb_builder *b, VALUE object);

#endif
