/* ActiveRecord records, as ActiveModel's as_json serializes them
 * (serializable_hash(options), then as_json over the Hash), written without
 * the Hash, for Rails mode and Oj mode alike: each value goes to the call's
 * jt_record_mode, which writes its as_json the mode's way. A record's
 * kept attributes are all read first, as serializable_hash reads them, by
 * the attribute set reader (attribute_set.c, under the model's plan:
 * lib/jetson/rails/record_plan.rb), then written here: values loaded from
 * the database and not read yet from their raw value (db_cast_write.c).
 * Methods and associations are sent to the record as serializable_hash
 * sends them. */

#include "rails/record.h"

/* Array(list).map(&:to_s) */
static VALUE string_list(VALUE list)
{
    VALUE ary = rb_Array(list);
    VALUE out = rb_ary_new_capa(RARRAY_LEN(ary));
    for (long i = 0; i < RARRAY_LEN(ary); i++) rb_ary_push(out, rb_obj_as_string(RARRAY_AREF(ary, i)));
    return out;
}

static bool names_include(const VALUE *names, long count, VALUE name)
{
    for (long i = 0; i < count; i++) {
        if (jt_same_string(names[i], name)) return true;
    }
    return false;
}

/* The lists are Jetson's own Arrays (string_list), out of Ruby code's reach. */
static bool list_has_string(VALUE list, VALUE str)
{
    return names_include(RARRAY_CONST_PTR(list), RARRAY_LEN(list), str);
}

static VALUE include_pairs(VALUE includes);

static void plan_record(struct jt_record_plan *plan, VALUE options)
{
    plan->options = options;
    plan->decided_count = 0;
    plan->only = plan->except = Qnil;
    plan->methods = plan->includes = plan->extras = rb_ary_new();
    if (NIL_P(options) || RHASH_SIZE(options) == 0) return; /* options.blank? */
    VALUE only = rb_hash_aref(options, jr.sym_only);
    if (RTEST(only)) {
        plan->only = string_list(only);
    } else {
        VALUE except = rb_hash_aref(options, jr.sym_except);
        if (RTEST(except)) plan->except = string_list(except);
    }
    plan->methods = string_list(rb_hash_aref(options, jr.sym_methods));
    VALUE include = rb_hash_aref(options, jr.sym_include);
    plan->includes = RTEST(include) ? include_pairs(include) : rb_ary_new();
    plan->extras = rb_ary_dup(plan->methods);
    for (long i = 0; i < RARRAY_LEN(plan->includes); i++) {
        rb_ary_push(plan->extras, rb_obj_as_string(RARRAY_AREF(RARRAY_AREF(plan->includes, i), 0)));
    }
}

static struct jt_record_plan *record_plan(jt_gen *g, VALUE options)
{
    for (int i = 0; i < jt_rails_call_of(g)->record_plan_count; i++) {
        if (jt_rails_call_of(g)->record_plans[i].options == options) return &jt_rails_call_of(g)->record_plans[i];
    }
    int slot = jt_rails_call_of(g)->record_plan_count < JT_RECORD_PLANS ? jt_rails_call_of(g)->record_plan_count++ : JT_RECORD_PLANS - 1;
    plan_record(&jt_rails_call_of(g)->record_plans[slot], options);
    return &jt_rails_call_of(g)->record_plans[slot];
}

/* Whether serializable_hash keeps this attribute: names & only, or names -
 * except, where single-table inheritance adds its column to except. */
static bool plan_keeps(struct jt_record_plan *plan, VALUE name, VALUE sti_column)
{
    if (NIL_P(plan->only) && !NIL_P(sti_column) && jt_same_string(sti_column, name)) return false;
    if (NIL_P(plan->only) && NIL_P(plan->except)) return true;
    for (int i = 0; i < plan->decided_count; i++) {
        if (plan->decided[i].name == name) return plan->decided[i].keep;
    }
    bool keep = !NIL_P(plan->only) ? list_has_string(plan->only, name) : !list_has_string(plan->except, name);
    /* Kept alive by the plan being on the C stack. */
    if (plan->decided_count < JT_PLAN_DECIDED && RB_TYPE_P(name, T_STRING) && OBJ_FROZEN(name)) {
        plan->decided[plan->decided_count].name = name;
        plan->decided[plan->decided_count].keep = keep;
        plan->decided_count++;
    }
    return keep;
}

/* The attribute only[k] names (its index in names), or -1 when there is
 * none or an earlier name of only is the same (Array#& keeps the first). */
static long only_index(VALUE only, long k, const VALUE *names, long count)
{
    VALUE name = RARRAY_AREF(only, k);
    for (long j = 0; j < k; j++) {
        if (jt_same_string(RARRAY_AREF(only, j), name)) return -1;
    }
    for (long i = 0; i < count; i++) {
        if (jt_same_string(names[i], name)) return i;
    }
    return -1;
}

/* serializable_add_includes' normalisation: [[association, options], ...]. */
static VALUE include_pairs(VALUE includes)
{
    VALUE pairs = rb_ary_new();
    if (RB_TYPE_P(includes, T_HASH)) return rb_funcall(includes, jr.id_to_a, 0);
    VALUE list = rb_Array(includes);
    for (long i = 0; i < RARRAY_LEN(list); i++) {
        VALUE item = RARRAY_AREF(list, i);
        if (RB_TYPE_P(item, T_HASH)) {
            rb_ary_concat(pairs, rb_funcall(item, jr.id_to_a, 0));
        } else {
            rb_ary_push(pairs, rb_assoc_new(item, rb_hash_new()));
        }
    }
    /* Hash[pairs]: a repeated association keeps its last options. */
    return rb_funcall(rb_funcall(pairs, jt.id_to_h, 0), jr.id_to_a, 0);
}

static void gen_rails_key(jt_gen *g, VALUE key)
{
    jt_gen_string(g, RB_TYPE_P(key, T_STRING) ? key : rb_obj_as_string(key), false);
}

static void gen_rails_records(jt_gen *g, VALUE records, VALUE options);

JT_INLINE void record_separator(jt_gen *g, bool *first)
{
    if (!*first) jt_buffer_push(g->buf, ',');
    *first = false;
}

/* A value of serializable_hash's Hash, as the call's mode writes its as_json. */
JT_INLINE void gen_hash_value(jt_gen *g, VALUE value)
{
    jt_rails_call_of(g)->records->value(g, value);
}

/* "name": value, in the as_json pass. */
static void gen_pair_in_pass(jt_gen *g, bool *first, VALUE name, VALUE value)
{
    record_separator(g, first);
    gen_rails_key(g, name);
    jt_buffer_push(g->buf, ':');
    gen_hash_value(g, value);
}

/* "name": record.send(name) (read_attribute_for_serialization is send, and
 * so is methods:). */
static void gen_sent_pair(jt_gen *g, bool *first, VALUE record, VALUE name)
{
    jt_before_ruby(g);
    gen_pair_in_pass(g, first, name, rb_funcall(record, rb_to_id(name), 0));
}

/* "name": the raw value cast as the reader would (db_cast_write.c); false, with
 * nothing written, when the reader has to run. */
static bool gen_cast_pair(jt_gen *g, bool *first, VALUE name, const jt_db_cast *cast, VALUE raw)
{
    size_t mark = g->buf->len;
    bool was_first = *first;
    record_separator(g, first);
    gen_rails_key(g, name);
    jt_buffer_push(g->buf, ':');
    if (jt_db_cast_write(g, &jt_rails_call_of(g)->attribute_access.db, cast, raw)) return true;
    /* Dropped: keys cached past the mark would point at bytes written over. */
    g->buf->len = mark;
    g->key_epoch++;
    *first = was_first;
    return false;
}

/* The attributes serializable_hash keeps, as indices into row in the
 * order it writes them: only & attribute_names (only's order where the
 * plan says so, each name once: Array#& keeps the first), else
 * attribute_names less except: and the inheritance column. */
static long kept_attributes(struct jt_record_plan *plan, const jt_attribute_row *row, unsigned char *kept)
{
    long n = 0;
    if (!NIL_P(plan->only) && row->only_ordered) {
        for (long k = 0; k < RARRAY_LEN(plan->only); k++) {
            long i = only_index(plan->only, k, row->names, row->count);
            if (i >= 0) kept[n++] = (unsigned char)i;
        }
        return n;
    }
    /* Attribute names are an attribute set's keys: each comes once. */
    for (long i = 0; i < row->count; i++) {
        if (plan_keeps(plan, row->names[i], row->sti_column)) kept[n++] = (unsigned char)i;
    }
    return n;
}

/* The attribute pairs, from what serializable_hash read: a raw value its
 * cast does not take is read again through its reader, counted so. */
static void gen_attribute_pairs(jt_gen *g, bool *first, VALUE record, VALUE klass, const jt_attribute_read *reads,
                                long n)
{
    jt_attribute_access *a = &jt_rails_call_of(g)->attribute_access;
    for (long k = 0; k < n; k++) {
        const jt_attribute_read *r = &reads[k];
        if (!r->cast) {
            gen_pair_in_pass(g, first, r->name, r->value);
        } else if (gen_cast_pair(g, first, r->name, r->cast, r->value)) {
            jt_diag_native(a->diag, JT_DIAG_VALUES, 1);
        } else {
            jt_before_ruby(g);
            jt_attribute_fallback(a, JT_DIAG_VALUES, JT_WHY_CAST, klass, r->name);
            gen_sent_pair(g, first, record, r->name);
        }
    }
}

/* ActiveRecord's serializable_hash(options), written as the call's mode
 * writes its as_json: the attributes (only:/except:), then methods:, then
 * include: (records serialized the same way). The attributes are all read
 * and the methods sent first, then written (see jt_attribute_read_kept).
 * For records whose serialization methods are Rails' own (checked per class
 * and call); false, counted, with nothing written, when a name would be
 * written twice or there are more attributes than Jetson keeps on its stack
 * (Ruby then builds the Hash). */
static bool record_write(jt_gen *g, VALUE record, VALUE klass, VALUE options)
{
    jt_before_ruby(g);
    jt_db_context_ready(g, &jt_rails_call_of(g)->attribute_access.db); /* read here, where Ruby may run */
    jt_attribute_access *a = &jt_rails_call_of(g)->attribute_access;
    struct jt_record_plan *plan = record_plan(g, options);
    /* attribute_names_for_serialization: from the attribute set, else asked. */
    jt_attribute_row row;
    bool from_set = jt_attribute_names(a, record, &row);
    if (row.sti_column == Qundef) { /* no plan to say whether single-table inheritance drops a column */
        jt_attribute_fallback(a, JT_DIAG_RECORDS, JT_WHY_NONE, klass, Qnil);
        return false;
    }
    VALUE list = Qnil;
    if (!from_set) {
        /* Written here still, each attribute through its reader. */
        jt_attribute_fallback(a, JT_DIAG_RECORDS, JT_WHY_NONE, klass, Qnil);
        list = rb_funcall(record, jr.id_attribute_names_for_serialization, 0);
        Check_Type(list, T_ARRAY);
        /* Copied: read below while Ruby code runs. */
        if (RARRAY_LEN(list) > JT_ATTRIBUTE_NAMES_MAX) return false;
        row.count = RARRAY_LEN(list);
        for (long i = 0; i < row.count; i++) row.names[i] = RARRAY_AREF(list, i);
    }
    /* A method or association named like a kept attribute (or like each
     * other) replaces its value in place: left to Ruby. */
    for (long i = 0; i < RARRAY_LEN(plan->extras); i++) {
        VALUE extra = RARRAY_AREF(plan->extras, i);
        bool clash = names_include(row.names, row.count, extra) && plan_keeps(plan, extra, row.sti_column);
        for (long j = 0; j < i && !clash; j++) clash = jt_same_string(RARRAY_AREF(plan->extras, j), extra);
        if (clash) {
            if (from_set) jt_attribute_fallback(a, JT_DIAG_RECORDS, JT_WHY_NAME_CLASH, klass, extra);
            return false;
        }
    }
    if (from_set) jt_diag_native(a->diag, JT_DIAG_RECORDS, 1);

    unsigned char kept[JT_ATTRIBUTE_NAMES_MAX];
    long n = kept_attributes(plan, &row, kept);
    jt_attribute_read reads[JT_ATTRIBUTE_NAMES_MAX];
    if (jt_attribute_read_kept(a, record, &row, from_set, kept, n, reads)) jt_before_ruby(g);
    /* methods:, sent after the attributes are read and before any value is
     * written, as serializable_hash sends them. */
    VALUE sent = Qnil;
    if (RARRAY_LEN(plan->methods) > 0) {
        jt_before_ruby(g);
        sent = rb_ary_new_capa(RARRAY_LEN(plan->methods));
        for (long i = 0; i < RARRAY_LEN(plan->methods); i++) {
            rb_ary_push(sent, rb_funcall(record, rb_to_id(RARRAY_AREF(plan->methods, i)), 0));
        }
    }

    jt_enter_container(g);
    jt_buffer_push(g->buf, '{');
    bool first = true;
    gen_attribute_pairs(g, &first, record, klass, reads, n);
    for (long i = 0; !NIL_P(sent) && i < RARRAY_LEN(sent); i++) {
        gen_pair_in_pass(g, &first, RARRAY_AREF(plan->methods, i), RARRAY_AREF(sent, i));
    }
    for (long i = 0; i < RARRAY_LEN(plan->includes); i++) {
        VALUE pair = RARRAY_AREF(plan->includes, i);
        VALUE association = RARRAY_AREF(pair, 0);
        jt_before_ruby(g);
        VALUE records = rb_funcall(record, rb_to_id(association), 0);
        if (!RTEST(records)) continue;
        record_separator(g, &first);
        gen_rails_key(g, association);
        jt_buffer_push(g->buf, ':');
        gen_rails_records(g, records, RARRAY_AREF(pair, 1));
    }
    g->depth--;
    jt_buffer_push(g->buf, '}');
    RB_GC_GUARD(list);
    RB_GC_GUARD(sent);
    return true;
}

/* A record of klass left to Ruby, counted for why. */
static void serialized_in_ruby(jt_gen *g, VALUE klass, enum jt_diag_reason why)
{
    jt_before_ruby(g);
    jt_attribute_fallback(&jt_rails_call_of(g)->attribute_access, JT_DIAG_RECORDS, why, klass, Qnil);
}

/* Whether as_json wraps the record's Hash in a root key (options' root:,
 * else the class's include_root_in_json). */
static bool wants_root(VALUE record, struct jt_rails_profile *p, VALUE options)
{
    VALUE root = NIL_P(options) ? Qundef : rb_hash_lookup2(options, jr.sym_root, Qundef);
    if (root == Qundef) {
        if (p->root < 0) p->root = RTEST(rb_funcall(record, jr.id_include_root_in_json, 0));
        root = p->root ? Qtrue : Qfalse;
    }
    return RTEST(root);
}

enum jt_record_outcome jt_record_serialize(jt_gen *g, VALUE record, struct jt_rails_profile *p, VALUE options)
{
    VALUE klass = rb_obj_class(record);
    enum jt_diag_reason why = wants_root(record, p, options) ? JT_WHY_ROOT
                              : p->record_stock                  ? JT_WHY_NONE
                                                                 : JT_WHY_SERIALIZATION;
    if (why == JT_WHY_NONE) return record_write(g, record, klass, options) ? JT_RECORD_WRITTEN : JT_RECORD_IN_RUBY;
    serialized_in_ruby(g, klass, why);
    return why == JT_WHY_ROOT ? JT_RECORD_ROOT : JT_RECORD_IN_RUBY;
}

/* One included record: serializable_hash(options), natively when its class
 * allows (see gen_rails_record). */
static void gen_rails_included(jt_gen *g, VALUE record, VALUE options)
{
    jt_before_ruby(g);
    struct jt_rails_profile scratch;
    struct jt_rails_profile *p = jt_rails_profile(g, record, &scratch);
    VALUE klass = rb_obj_class(record);
    if (p->record_stock && (NIL_P(options) || RB_TYPE_P(options, T_HASH)) && record_write(g, record, klass, options)) {
        return;
    }
    if (!p->record_stock) serialized_in_ruby(g, klass, JT_WHY_SERIALIZATION);
    gen_hash_value(g, rb_funcall(record, jr.id_serializable_hash, 1, options));
}

void jt_rails_write_list(jt_gen *g, VALUE list, void (*write)(jt_gen *g, VALUE element, VALUE arg), VALUE arg)
{
    jt_enter_container(g);
    jt_buffer_push(g->buf, '[');
    for (long i = 0; i < RARRAY_LEN(list); i++) {
        if (i > 0) jt_buffer_push(g->buf, ',');
        write(g, RARRAY_AREF(list, i), arg);
    }
    g->depth--;
    jt_buffer_push(g->buf, ']');
    RB_GC_GUARD(list);
}

/* An include: association's value: a collection (to_ary) or one record. */
static void gen_rails_records(jt_gen *g, VALUE records, VALUE options)
{
    if (!rb_respond_to(records, jr.id_to_ary)) {
        gen_rails_included(g, records, options);
        return;
    }
    VALUE list = rb_funcall(records, jr.id_to_ary, 0);
    Check_Type(list, T_ARRAY);
    jt_rails_write_list(g, list, gen_rails_included, options);
}

bool jt_record_model(jt_gen *g, VALUE model, struct jt_rails_profile *p)
{
    VALUE options = jt_rails_call_of(g)->as_json_options;
    if (options == Qundef) options = Qnil;
    switch (jt_record_serialize(g, model, p, options)) {
        case JT_RECORD_WRITTEN: return true;
        case JT_RECORD_ROOT: return false;
        case JT_RECORD_IN_RUBY: break;
    }
    VALUE hash = rb_funcall(model, jr.id_serializable_hash, 1, NIL_P(options) ? Qnil : rb_hash_dup(options));
    gen_hash_value(g, hash);
    RB_GC_GUARD(hash);
    return true;
}
