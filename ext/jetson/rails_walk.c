/* Rails mode: the walk of generator.c taking ActiveSupport's encoder's
 * decisions (as_json, its two passes over Hash keys, ActiveRecord records,
 * its order of errors). What ActiveSupport does per type is in rails.c. */

#include "generator_internal.h"
#include <math.h>

static struct jt_class_profile *rails_profile(jt_gen *g, VALUE obj, struct jt_class_profile *scratch)
{
    struct jt_class_profile *p = jt_profile_of(g, obj, scratch);
    if (!p->rails_known) {
        p->rails_kind = jt_rails_kind_of(p->klass, g->rails);
        p->rails_stock = jt_rails_stock(p->klass, p->rails_kind, g->rails);
        p->rails_record_stock = p->rails_kind == JT_RAILS_MODEL && jt_rails_stock(p->klass, JT_RAILS_RECORD, g->rails);
        p->rails_known = true;
    }
    return p;
}

static VALUE rails_call_as_json(jt_gen *g, VALUE obj)
{
    jt_before_ruby(g);
    VALUE options = g->as_json_options;
    if (options == Qundef || NIL_P(options)) return rb_funcall(obj, jt.id_as_json, 0);
    return rb_funcall(obj, jt.id_as_json, 1, rb_hash_dup(options)); /* each call gets a copy, as in ActiveSupport */
}

/* Walks value in the given pass (see as_json_options), then returns to the
 * current one. */
static void gen_value_in_pass(jt_gen *g, VALUE value, VALUE options)
{
    VALUE saved = g->as_json_options;
    g->as_json_options = options;
    jt_gen_value(g, value);
    g->as_json_options = saved;
}

/* Whether a Hash or an Array still has ActiveSupport's as_json. */
static bool rails_container_stock(jt_gen *g, VALUE obj, enum jt_rails_kind kind)
{
    VALUE klass = CLASS_OF(obj);
    signed char *cached = kind == JT_RAILS_HASH ? &g->rails_hash_stock : &g->rails_array_stock;
    if (klass == (kind == JT_RAILS_HASH ? rb_cHash : rb_cArray)) {
        if (RB_UNLIKELY(*cached < 0)) {
            jt_before_ruby(g);
            *cached = jt_rails_stock(klass, kind, g->rails);
        }
        return *cached;
    }
    jt_before_ruby(g);
    struct jt_class_profile scratch;
    struct jt_class_profile *p = rails_profile(g, obj, &scratch);
    return p->rails_kind == kind && p->rails_stock;
}

/* Rails mode: ActiveSupport calls every as_json before the json gem writes
 * anything, so an error the json gem raises (invalid UTF-8, nesting) loses
 * against an as_json error later in the document. Such errors are kept, the
 * walk goes on, and the first one is raised at the end. */
static void defer_generator_errors(jt_gen *g, VALUE (*fn)(VALUE), VALUE data)
{
    int state = 0;
    rb_protect(fn, data, &state);
    if (!state) return;
    VALUE error = rb_errinfo();
    if (!rb_obj_is_kind_of(error, jt.eGeneratorError)) rb_jump_tag(state);
    rb_set_errinfo(Qnil);
    jt_before_ruby(g);
    if (!g->deferred_error) g->deferred_error = error;
}

struct deferred_write {
    jt_gen *g;
    VALUE value;
};

static VALUE write_converted_string(VALUE data)
{
    struct deferred_write *w = (struct deferred_write *)data;
    jt_gen *g = w->g;
    VALUE str = jt_convert_encoding(g, w->value, false, false);
    if (RB_TYPE_P(str, T_STRING)) {
        jt_write_string_bytes(g, str);
    } else {
        jt_gen_value(g, str);
    }
    return Qnil;
}

void jt_rails_string(jt_gen *g, VALUE str)
{
    struct deferred_write w = { .g = g, .value = str };
    defer_generator_errors(g, write_converted_string, (VALUE)&w);
}

/* Rails mode: ActiveSupport copies a Hash before encoding it, turning keys
 * that are neither Strings nor Symbols into their to_s, so {1 => a, "1" => b}
 * collapses to {"1" => b} (first position, last value). Such keys are rare:
 * the pass below stops at the first one and the Hash is rebuilt that way. */
static int hash_pair_rails_i(VALUE key, VALUE value, VALUE data)
{
    struct hash_iter *it = (struct hash_iter *)data;
    int key_type = rb_type(key);
    if (RB_UNLIKELY(key_type != T_STRING && key_type != T_SYMBOL) ||
        /* as_json turns Symbols into Strings too: "a" and :a collapse */
        RB_UNLIKELY(!it->first && key_type != it->first_key_type && jt_in_as_json_pass(it->g))) {
        it->rekey = true;
        return ST_STOP;
    }
    return jt_hash_pair_compact_i(key, value, data);
}

/* The json gem's duplicate-key check on a Hash of String and Symbol keys,
 * with its defaults, since ActiveSupport passes no option: a warning under
 * json 2, an error under json 3. */
static void check_mixed_keys(jt_gen *g, VALUE hash)
{
    if (jt.json3) return; /* checked where the json gem meets it: jt_rails_check_duplicate_keys */
    jt_before_ruby(g);
    rb_funcall(jt.mJetson, jt.id_on_mixed_keys_hash, 2, hash, Qfalse);
}

/* json 3: keys that collide after conversion are an error, which comes
 * after every as_json call (as ActiveSupport's JSON.generate meets it), so it
 * is deferred like the json gem's other errors; its message shows the Hash
 * as ActiveSupport hands it over, built in Ruby only when there is one. */
void jt_rails_check_duplicate_keys(jt_gen *g, VALUE hash)
{
    if (g->deferred_error) return;
    jt_before_ruby(g);
    VALUE error = rb_funcall(jt.mJetson, rb_intern("rails_duplicate_key_error"), 1, hash);
    if (!NIL_P(error)) g->deferred_error = error;
}

struct rekey {
    VALUE pairs;
    bool symbols_too; /* the as_json pass: every key becomes its to_s */
};

/* Collects [key as ActiveSupport keeps it, value] pairs in order. */
static int rekey_i(VALUE key, VALUE value, VALUE data)
{
    struct rekey *r = (struct rekey *)data;
    int key_type = rb_type(key);
    if (key_type != T_STRING && (key_type != T_SYMBOL || r->symbols_too)) key = rb_funcall(key, jt.id_to_s, 0);
    rb_ary_push(r->pairs, rb_assoc_new(key, value));
    return ST_CONTINUE;
}

/* ActiveSupport runs as_json on a value even when a later pair replaces it:
 * such values are encoded for their as_json calls and errors, then dropped
 * (with any writing error, which the json gem would never meet). */
static void encode_and_drop(jt_gen *g, VALUE value)
{
    size_t mark = g->buf->len;
    VALUE deferred = g->deferred_error;
    jt_gen_value(g, value);
    jt_before_ruby(g);
    g->buf->len = mark;
    g->deferred_error = deferred;
}

void jt_rails_hash_pairs(jt_gen *g, VALUE hash)
{
    size_t start = g->buf->len;
    VALUE deferred_before = g->deferred_error;
    struct hash_iter it = { .g = g, .hash = hash, .first = true };
    rb_hash_foreach(hash, hash_pair_rails_i, (VALUE)&it);
    if (RB_LIKELY(!it.rekey)) {
        if (RB_UNLIKELY(it.mixed_keys_seen) && !it.mixed_after_error) check_mixed_keys(g, hash);
        return;
    }

    jt_before_ruby(g); /* to_s is Ruby code; and the pairs written are dropped */
    g->buf->len = start;
    g->deferred_error = deferred_before; /* with any error they deferred */
    VALUE pairs = rb_ary_new_capa((long)RHASH_SIZE(hash));
    struct rekey r = { .pairs = pairs, .symbols_too = jt_in_as_json_pass(g) };
    rb_hash_foreach(hash, rekey_i, (VALUE)&r);
    VALUE copy = rb_hash_new();
    for (long i = 0; i < RARRAY_LEN(pairs); i++) {
        VALUE pair = RARRAY_AREF(pairs, i);
        rb_hash_aset(copy, RARRAY_AREF(pair, 0), RARRAY_AREF(pair, 1));
    }
    for (long i = 0; i < RARRAY_LEN(pairs); i++) {
        VALUE pair = RARRAY_AREF(pairs, i);
        VALUE value = RARRAY_AREF(pair, 1);
        if (rb_hash_lookup2(copy, RARRAY_AREF(pair, 0), Qundef) != value) encode_and_drop(g, value);
    }
    struct hash_iter again = { .g = g, .hash = copy, .first = true };
    rb_hash_foreach(copy, jt_hash_pair_compact_i, (VALUE)&again);
    if (again.mixed_keys_seen && !again.mixed_after_error) check_mixed_keys(g, copy);
    RB_GC_GUARD(copy);
    RB_GC_GUARD(pairs);
}

/* Rails mode, as_json pass: Hash#as_json's only: and except: options. */
static VALUE rails_subset(jt_gen *g, VALUE hash)
{
    VALUE options = g->as_json_options;
    if (NIL_P(options)) return hash;
    if (!RTEST(rb_hash_lookup(options, jt.sym_only)) && !RTEST(rb_hash_lookup(options, jt.sym_except))) return hash;
    jt_before_ruby(g);
    return rb_funcall(g->rails->helper, jt.id_subset, 2, hash, options);
}

/* Writes `value` as the json gem would, for what ActiveSupport hands it
 * unencoded: the as_json results of Numerics other than Integer and Float. */
static void gen_json_gem_value(jt_gen *g, VALUE value)
{
    const jt_rails_settings *rails = g->rails;
    g->rails = NULL;
    g->symbols_are_names = false;
    jt_gen_value(g, value);
    g->rails = rails;
    g->symbols_are_names = true;
}

/* Float#as_json: the Float when finite, else nil. */
void jt_rails_float(jt_gen *g, VALUE obj)
{
    if (RB_UNLIKELY(g->rails_float_stock < 0)) {
        jt_before_ruby(g);
        g->rails_float_stock = jt_rails_stock(rb_cFloat, JT_RAILS_FLOAT, g->rails);
    }
    double value = RFLOAT_VALUE(obj);
    if (RB_UNLIKELY(!g->rails_float_stock)) {
        VALUE replacement = rails_call_as_json(g, obj);
        if (jt_in_as_json_pass(g)) {
            gen_value_in_pass(g, replacement, Qundef);
        } else {
            gen_json_gem_value(g, replacement);
        }
    } else if (isnan(value) || isinf(value)) {
        jt_buffer_append(g->buf, "null", 4);
    } else {
        jt_buffer_reserve(g->buf, JT_DOUBLE_MAX_CHARS);
        g->buf->len += (size_t)jt_write_double(value, g->buf->ptr + g->buf->len);
    }
}

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
    VALUE only = rb_hash_aref(options, jt.sym_only);
    if (RTEST(only)) {
        plan->only = string_list(only);
    } else {
        VALUE except = rb_hash_aref(options, jt.sym_except);
        if (RTEST(except)) plan->except = string_list(except);
    }
    plan->methods = string_list(rb_hash_aref(options, jt.sym_methods));
    VALUE include = rb_hash_aref(options, jt.sym_include);
    plan->includes = RTEST(include) ? include_pairs(include) : rb_ary_new();
    plan->extras = rb_ary_dup(plan->methods);
    for (long i = 0; i < RARRAY_LEN(plan->includes); i++) {
        rb_ary_push(plan->extras, rb_obj_as_string(RARRAY_AREF(RARRAY_AREF(plan->includes, i), 0)));
    }
}

static struct jt_record_plan *record_plan(jt_gen *g, VALUE options)
{
    for (int i = 0; i < g->record_plan_count; i++) {
        if (g->record_plans[i].options == options) return &g->record_plans[i];
    }
    int slot = g->record_plan_count < JT_RECORD_PLANS ? g->record_plan_count++ : JT_RECORD_PLANS - 1;
    plan_record(&g->record_plans[slot], options);
    return &g->record_plans[slot];
}

/* Whether serializable_hash keeps this attribute: names & only, or names - except. */
static bool plan_keeps(struct jt_record_plan *plan, VALUE name)
{
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

/* serializable_add_includes' normalisation: [[association, options], ...]. */
static VALUE include_pairs(VALUE includes)
{
    VALUE pairs = rb_ary_new();
    if (RB_TYPE_P(includes, T_HASH)) return rb_funcall(includes, jt.id_to_a, 0);
    VALUE list = rb_Array(includes);
    for (long i = 0; i < RARRAY_LEN(list); i++) {
        VALUE item = RARRAY_AREF(list, i);
        if (RB_TYPE_P(item, T_HASH)) {
            rb_ary_concat(pairs, rb_funcall(item, jt.id_to_a, 0));
        } else {
            rb_ary_push(pairs, rb_assoc_new(item, rb_hash_new()));
        }
    }
    /* Hash[pairs]: a repeated association keeps its last options. */
    return rb_funcall(rb_funcall(pairs, jt.id_to_h, 0), jt.id_to_a, 0);
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

/* "name": value, in the as_json pass. */
static void gen_pair_in_pass(jt_gen *g, bool *first, VALUE name, VALUE value)
{
    record_separator(g, first);
    gen_rails_key(g, name);
    jt_buffer_push(g->buf, ':');
    gen_value_in_pass(g, value, Qnil);
}

/* "name": record.send(name) (read_attribute_for_serialization is send, and
 * so is methods:). */
static void gen_sent_pair(jt_gen *g, bool *first, VALUE record, VALUE name)
{
    jt_before_ruby(g);
    gen_pair_in_pass(g, first, name, rb_funcall(record, rb_to_id(name), 0));
}

/* ActiveRecord's serializable_hash(options), written as the as_json pass
 * writes its result: the attributes (only:/except:), then methods:, then
 * include: (records serialized the same way). For records whose
 * serialization methods are Rails' own (checked per class and call); false,
 * with nothing written, when a name would be written twice or there are more
 * attributes than Jetson keeps on its stack (Ruby then builds the Hash). */
static bool gen_rails_record(jt_gen *g, VALUE record, VALUE options)
{
    jt_before_ruby(g);
    struct jt_record_plan *plan = record_plan(g, options);
    /* attribute_names_for_serialization: from the attribute set, else asked. */
    jt_attribute_row row;
    bool from_set = jt_attribute_names(g->attribute_access, record, &row);
    VALUE list = Qnil;
    if (!from_set) {
        list = rb_funcall(record, jt.id_attribute_names_for_serialization, 0);
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
        for (long j = 0; j < i; j++) {
            if (jt_same_string(RARRAY_AREF(plan->extras, j), extra)) return false;
        }
        if (names_include(row.names, row.count, extra) && plan_keeps(plan, extra)) return false;
    }

    jt_enter_container(g);
    jt_buffer_push(g->buf, '{');
    bool first = true;
    uint32_t epoch = g->key_epoch;
    /* Attribute names are an attribute set's keys: each comes once. */
    for (long i = 0; i < row.count; i++) {
        VALUE name = row.names[i];
        if (!plan_keeps(plan, name)) continue;
        VALUE value = from_set ? jt_attribute_value(g->attribute_access, record, &row, i, g->key_epoch == epoch) : Qundef;
        if (value == Qundef) {
            gen_sent_pair(g, &first, record, name);
        } else {
            gen_pair_in_pass(g, &first, name, value);
        }
    }
    for (long i = 0; i < RARRAY_LEN(plan->methods); i++) {
        gen_sent_pair(g, &first, record, RARRAY_AREF(plan->methods, i));
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
    return true;
}

/* One included record: serializable_hash(options), natively when its class
 * allows (see gen_rails_record). */
static void gen_rails_included(jt_gen *g, VALUE record, VALUE options)
{
    jt_before_ruby(g);
    struct jt_class_profile scratch;
    struct jt_class_profile *p = rails_profile(g, record, &scratch);
    if (p->rails_record_stock && (NIL_P(options) || RB_TYPE_P(options, T_HASH)) && gen_rails_record(g, record, options)) {
        return;
    }
    gen_value_in_pass(g, rb_funcall(record, jt.id_serializable_hash, 1, options), Qnil);
}

/* An include: association's value: a collection (to_ary) or one record. */
static void gen_rails_records(jt_gen *g, VALUE records, VALUE options)
{
    if (!rb_respond_to(records, jt.id_to_ary)) {
        gen_rails_included(g, records, options);
        return;
    }
    VALUE list = rb_funcall(records, jt.id_to_ary, 0);
    Check_Type(list, T_ARRAY);
    jt_enter_container(g);
    jt_buffer_push(g->buf, '[');
    for (long i = 0; i < RARRAY_LEN(list); i++) {
        if (i > 0) jt_buffer_push(g->buf, ',');
        gen_rails_included(g, RARRAY_AREF(list, i), options);
    }
    g->depth--;
    jt_buffer_push(g->buf, ']');
    RB_GC_GUARD(list);
}

/* ActiveModel's as_json: serializable_hash(options).as_json, wrapped in a
 * root key when asked (left to Ruby). The Hash comes from the model's own
 * serializable_hash, or is written natively for ActiveRecord records; Jetson
 * does the as_json pass over it. */
static bool gen_rails_model(jt_gen *g, VALUE model, const struct jt_class_profile *p)
{
    VALUE options = g->as_json_options;
    if (options == Qundef) options = Qnil;
    VALUE root = NIL_P(options) ? Qundef : rb_hash_lookup2(options, jt.sym_root, Qundef);
    if (root == Qundef) root = rb_funcall(model, jt.id_include_root_in_json, 0);
    if (RTEST(root)) return false;
    if (p->rails_record_stock && gen_rails_record(g, model, options)) return true;
    VALUE hash = rb_funcall(model, jt.id_serializable_hash, 1, NIL_P(options) ? Qnil : rb_hash_dup(options));
    gen_value_in_pass(g, hash, Qnil);
    RB_GC_GUARD(hash);
    return true;
}

/* Rails mode: what ActiveSupport's encoder does with everything but nil,
 * booleans, Integers, Floats, Symbols and plain Strings, Hashes and Arrays. */
void jt_rails_object(jt_gen *g, VALUE obj)
{
    switch (rb_type(obj)) {
        /* Subclasses are copied into plain ones, their as_json unused. */
        case T_HASH: jt_gen_hash(g, obj); return;
        case T_ARRAY: jt_gen_array(g, obj); return;
        case T_STRING: jt_gen_string(g, obj, false); return;
        default: break;
    }
    jt_before_ruby(g); /* as_json and the stock checks are Ruby code */
    struct jt_class_profile scratch;
    struct jt_class_profile *p = rails_profile(g, obj, &scratch);
    if (p->rails_stock) {
        char text[JT_TIME_TEXT_MAX];
        size_t n = jt_rails_native_text(obj, p->rails_kind, g->rails, text);
        if (n) {
            jt_write_plain_text(g, text, n);
            return;
        }
    }
    if (p->rails_kind == JT_RAILS_MODEL && p->rails_stock && gen_rails_model(g, obj, p)) return;
    VALUE value = rails_call_as_json(g, obj);
    if (p->rails_kind == JT_RAILS_NUMERIC && !jt_in_as_json_pass(g)) {
        gen_json_gem_value(g, value);
        return;
    }
    /* An as_json that returns itself, or a new object of the same kind,
     * recurses without nesting: ActiveSupport ends in SystemStackError too. */
    if (ruby_stack_check()) rb_raise(rb_eSysStackError, "stack level too deep");
    gen_value_in_pass(g, value, Qundef);
    RB_GC_GUARD(value);
}

/* The as_json pass meets a Hash or an Array: its as_json, unless still
 * ActiveSupport's, replaces it (false: written); Hash#as_json's only: and
 * except: pick the pairs. */
bool jt_rails_container_prologue(jt_gen *g, VALUE *container, enum jt_rails_kind kind)
{
    if (!jt_in_as_json_pass(g)) return true;
    if (!rails_container_stock(g, *container, kind)) {
        gen_value_in_pass(g, rails_call_as_json(g, *container), Qundef);
        return false;
    }
    if (kind == JT_RAILS_HASH) {
        *container = rails_subset(g, *container);
        Check_Type(*container, T_HASH);
    }
    return true;
}
