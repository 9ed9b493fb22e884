/* Rails mode: the walk of json/generator.c taking ActiveSupport's encoder's
 * decisions (as_json, its two passes over Hash keys, its order of errors),
 * through the hooks generate.c gives the walk. What ActiveSupport does per
 * type is in settings.c; ActiveRecord records and relations are record.c's. */

#include "rails/walk.h"
#include "rails/record.h"
#include "json/strings.h"
#include <math.h>

VALUE jt_rails_call_as_json(jt_gen *g, VALUE obj)
{
    jt_before_ruby(g);
    VALUE options = jt_rails_call_of(g)->as_json_options;
    if (options == Qundef || NIL_P(options)) return rb_funcall(obj, jr.id_as_json, 0);
    if (jt_rails_of(g)->frozen_options) {
        /* 8.0 and later: frozen, and handed on as it is once it is. */
        if (!OBJ_FROZEN(options)) options = rb_obj_freeze(rb_hash_dup(options));
        return rb_funcall(obj, jr.id_as_json, 1, options);
    }
    return rb_funcall(obj, jr.id_as_json, 1, rb_hash_dup(options)); /* each call gets a copy, as in ActiveSupport */
}

/* Errors a walk may keep for later; anything else (Interrupt, a Thread's
 * kill) goes through at once. */
static bool deferrable_error(VALUE error)
{
    return rb_obj_is_kind_of(error, rb_eStandardError) || rb_obj_is_kind_of(error, rb_eSysStackError);
}

struct result_walk {
    jt_gen *g;
    VALUE value;
};

static VALUE walk_result(VALUE data)
{
    struct result_walk *w = (struct result_walk *)data;
    jt_gen_value(w->g, w->value);
    return Qnil;
}

/* An as_json pass meets an as_json result: ActiveSupport walks it only once
 * the whole pass is done (JSONGemEncoder's jsonify, or the Coder), so every
 * as_json(options) call comes before any error met there, and that walk
 * stops at its first error. Walked in one go here, the result's first error
 * is kept in `slot` while the pass goes on, and later results are not
 * walked at all. Under JSONGemEncoder the slot is the pass's own (the json
 * gem's errors come after jsonify's); under the Coder, g->deferred_error
 * (the Coder meets the json gem's errors and its block's in one walk). */
static void walk_result_after_pass(jt_gen *g, VALUE value, VALUE *slot)
{
    if (*slot) return; /* that walk stopped before this */
    jt_rails_call *call = jt_rails_call_of(g);
    VALUE saved_options = call->as_json_options;
    long saved_depth = g->depth;
    call->as_json_options = Qundef;
    struct result_walk w = { .g = g, .value = value };
    int state = 0;
    call->catching++;
    rb_protect(walk_result, (VALUE)&w, &state);
    call->catching--;
    call->as_json_options = saved_options;
    if (!state) return;
    VALUE error = rb_errinfo();
    if (!deferrable_error(error)) rb_jump_tag(state);
    rb_set_errinfo(Qnil);
    jt_before_ruby(g);
    g->depth = saved_depth;
    if (!*slot) *slot = error;
    RB_GC_GUARD(value);
}

/* A pass inside a result's walk (a model's as_json met there) fails: in
 * ActiveSupport its results were never walked, so what the pass kept from
 * them is forgotten before its error reaches walk_result_after_pass. Only
 * under such a walk: elsewhere the error ends the call anyway. */
static void walk_pass_or_forget(jt_gen *g, VALUE value, VALUE deferred, VALUE held)
{
    struct result_walk w = { .g = g, .value = value };
    int state = 0;
    rb_protect(walk_result, (VALUE)&w, &state);
    if (!state) return;
    g->deferred_error = deferred;
    jt_rails_call_of(g)->held_error = held;
    rb_jump_tag(state);
}

/* Walks value in the given pass (see as_json_options), then returns to the
 * current one. */
void jt_rails_gen_in_pass(jt_gen *g, VALUE value, VALUE options)
{
    jt_rails_call *call = jt_rails_call_of(g);
    VALUE saved = call->as_json_options;
    if (saved != Qundef && options == Qundef) {
        /* A dropped value's as_json results: the pass after never sees them. */
        if (RB_UNLIKELY(call->dropping)) return;
        walk_result_after_pass(g, value, jt_rails_of(g)->coder ? &g->deferred_error : &call->held_error);
        return;
    }
    bool new_pass = saved == Qundef && options != Qundef;
    VALUE deferred = g->deferred_error;
    VALUE held = call->held_error;
    if (new_pass) call->held_error = 0;
    call->as_json_options = options;
    if (RB_UNLIKELY(new_pass && call->catching)) {
        walk_pass_or_forget(g, value, deferred, held);
    } else {
        jt_gen_value(g, value);
    }
    call->as_json_options = saved;
    if (!new_pass) return;
    /* A pass inside the walk after one (a model's as_json) is over: that
     * walk now walks its result, and stops at the first error kept. */
    VALUE error = call->held_error;
    call->held_error = held;
    if (error) rb_exc_raise(error);
    if (RB_UNLIKELY(jt_rails_of(g)->coder) && !deferred && g->deferred_error) rb_exc_raise(g->deferred_error);
}

/* The call's as_json(options) pass is over (JSONGemEncoder): what its
 * results' walk met first, which comes before the json gem's errors. */
void jt_rails_end_pass(jt_gen *g)
{
    VALUE error = jt_rails_call_of(g)->held_error;
    if (error) rb_exc_raise(error);
}

/* Whether a Hash or an Array still has ActiveSupport's as_json. */
static bool rails_container_stock(jt_gen *g, VALUE obj, enum jt_rails_kind kind)
{
    VALUE klass = CLASS_OF(obj);
    signed char *cached = kind == JT_RAILS_HASH ? &jt_rails_call_of(g)->hash_stock : &jt_rails_call_of(g)->array_stock;
    if (klass == (kind == JT_RAILS_HASH ? rb_cHash : rb_cArray)) {
        if (RB_UNLIKELY(*cached < 0)) {
            jt_before_ruby(g);
            *cached = jt_rails_stock(klass, kind, jt_rails_of(g));
        }
        return *cached;
    }
    jt_before_ruby(g);
    struct jt_rails_profile scratch;
    struct jt_rails_profile *p = jt_rails_profile(g, obj, &scratch);
    return p->kind == kind && p->stock;
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
    /* Under the Coder, the json gem's errors come from its block too (a
     * JSON::Fragment of JSON.generate), and any error of the Coder's walk
     * waits for the pass to end (see walk_result_after_pass). */
    bool keep = jt_rails_of(g)->coder ? deferrable_error(error) : RTEST(rb_obj_is_kind_of(error, jt.eGeneratorError));
    if (!keep) rb_jump_tag(state);
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
        /* The Coder's block gave it (a JSON::Fragment): the Coder writes it. */
        VALUE saved = jt_rails_call_of(g)->as_json_options;
        if (jt_rails_of(g)->coder) jt_rails_call_of(g)->as_json_options = Qundef;
        jt_gen_value(g, str);
        jt_rails_call_of(g)->as_json_options = saved;
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
 * the pass below stops at the first one, having written the pairs before it
 * (the prefix), and jt_rails_hash_pairs finishes the Hash that way. */
struct rails_hash_iter {
    struct hash_iter it; /* first: the json walk's callbacks take this struct as theirs */
    long written;        /* pairs written before the stop */
};

static int hash_pair_rails_i(VALUE key, VALUE value, VALUE data)
{
    struct rails_hash_iter *r = (struct rails_hash_iter *)data;
    struct hash_iter *it = &r->it;
    int key_type = rb_type(key);
    if (RB_UNLIKELY(key_type != T_STRING && key_type != T_SYMBOL) ||
        /* as_json turns Symbols into Strings too: "a" and :a collapse */
        RB_UNLIKELY(!it->first && key_type != it->first_key_type && jt_in_as_json_pass(it->g))) {
        it->rekey = true;
        return ST_STOP;
    }
    r->written++;
    return jt_hash_pair_compact_i(key, value, (VALUE)it);
}

/* The json gem's duplicate-key check on a Hash of String and Symbol keys,
 * with its defaults, since ActiveSupport passes no option: a warning under
 * json 2, an error under json 3. */
static void check_mixed_keys(jt_gen *g, VALUE hash)
{
    if (jj.json3) return; /* checked where the json gem meets it: jt_rails_check_duplicate_keys */
    jt_before_ruby(g);
    rb_funcall(jt.mJetson, jj.id_on_mixed_keys_hash, 2, hash, Qfalse);
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

struct drop {
    struct result_walk walk;
    bool dropping; /* the flag outside this value */
};

/* An error raised in the walk may be kept by a walk around this one
 * (walk_result_after_pass), which goes on: the flag is back by then. */
static VALUE end_drop(VALUE data)
{
    struct drop *d = (struct drop *)data;
    jt_rails_call_of(d->walk.g)->dropping = d->dropping;
    return Qnil;
}

/* ActiveSupport runs as_json on a value even when a later pair replaces it:
 * such values are encoded for their as_json calls and errors, then dropped
 * (with any writing error, which the json gem would never meet). In the
 * as_json pass that is Hash#as_json's one call per value: what a custom
 * as_json returns would be walked only in the pass after, which the dropped
 * value never reaches (its errors and as_json calls do not happen). */
static void encode_and_drop(jt_gen *g, VALUE value)
{
    size_t mark = g->buf->len;
    VALUE deferred = g->deferred_error;
    struct drop d = { .walk = { .g = g, .value = value }, .dropping = jt_rails_call_of(g)->dropping };
    jt_rails_call_of(g)->dropping = jt_in_as_json_pass(g);
    rb_ensure(walk_result, (VALUE)&d.walk, end_drop, (VALUE)&d);
    jt_before_ruby(g);
    g->buf->len = mark;
    g->deferred_error = deferred;
}

/* The copy's pairs from the index `from` on (the prefix is written). */
struct copy_rest {
    struct hash_iter *it;
    long from, at;
};

static int copy_rest_i(VALUE key, VALUE value, VALUE data)
{
    struct copy_rest *c = (struct copy_rest *)data;
    if (c->at++ < c->from) return ST_CONTINUE;
    return jt_hash_pair_compact_i(key, value, (VALUE)c->it);
}

void jt_rails_hash_pairs(jt_gen *g, VALUE hash)
{
    size_t start = g->buf->len;
    VALUE deferred_before = g->deferred_error;
    VALUE held_before = jt_rails_call_of(g)->held_error;
    struct rails_hash_iter walk = { .it = { .g = g, .hash = hash, .first = true } };
    struct hash_iter *it = &walk.it;
    rb_hash_foreach(hash, hash_pair_rails_i, (VALUE)&walk);
    if (RB_LIKELY(!it->rekey)) {
        if (RB_UNLIKELY(it->mixed_keys_seen) && !it->mixed_after_error) check_mixed_keys(g, hash);
        return;
    }

    jt_before_ruby(g); /* to_s is Ruby code */
    VALUE pairs = rb_ary_new_capa((long)RHASH_SIZE(hash));
    struct rekey r = { .pairs = pairs, .symbols_too = jt_in_as_json_pass(g) };
    rb_hash_foreach(hash, rekey_i, (VALUE)&r);
    /* ActiveSupport's copy, and the index of the pair each key keeps. */
    VALUE copy = rb_hash_new(), last = rb_hash_new();
    long n = RARRAY_LEN(pairs);
    for (long i = 0; i < n; i++) {
        VALUE pair = RARRAY_AREF(pairs, i);
        rb_hash_aset(copy, RARRAY_AREF(pair, 0), RARRAY_AREF(pair, 1));
        rb_hash_aset(last, RARRAY_AREF(pair, 0), LONG2FIX(i));
    }
    /* The prefix stays written unless a later key replaces one of its
     * values; then, the rare case of a Hash holding one key twice ("a" and
     * :a, 1 and "1"), the pairs are walked again from the start, and the
     * prefix's as_json calls happen twice. What the first walk met is
     * forgotten: in the as_json pass, a replaced value's result is never
     * walked (see encode_and_drop). */
    long from = walk.written;
    for (long i = 0; i < walk.written; i++) {
        if (rb_hash_lookup2(last, RARRAY_AREF(RARRAY_AREF(pairs, i), 0), Qundef) != LONG2FIX(i)) {
            from = 0;
            break;
        }
    }
    if (from == 0) {
        g->buf->len = start;
        g->deferred_error = deferred_before; /* with any error they deferred */
        jt_rails_call_of(g)->held_error = held_before;
        *it = (struct hash_iter){ .g = g, .first = true };
    }
    it->hash = copy;
    it->rekey = false;
    for (long i = from; i < n; i++) {
        VALUE pair = RARRAY_AREF(pairs, i);
        if (rb_hash_lookup2(last, RARRAY_AREF(pair, 0), Qundef) != LONG2FIX(i)) encode_and_drop(g, RARRAY_AREF(pair, 1));
    }
    struct copy_rest rest = { .it = it, .from = from };
    rb_hash_foreach(copy, copy_rest_i, (VALUE)&rest);
    if (it->mixed_keys_seen && !it->mixed_after_error) check_mixed_keys(g, copy);
    RB_GC_GUARD(copy);
    RB_GC_GUARD(last);
    RB_GC_GUARD(pairs);
}

/* Rails mode, as_json pass: Hash#as_json's only: and except: options. */
static VALUE rails_subset(jt_gen *g, VALUE hash)
{
    VALUE options = jt_rails_call_of(g)->as_json_options;
    if (NIL_P(options)) return hash;
    if (!RTEST(rb_hash_lookup(options, jr.sym_only)) && !RTEST(rb_hash_lookup(options, jr.sym_except))) return hash;
    jt_before_ruby(g);
    return rb_funcall(jt_rails_of(g)->helper, jr.id_subset, 2, hash, options);
}

/* Writes `value` as the json gem would, for what ActiveSupport hands it
 * unencoded: the as_json results of Numerics other than Integer and Float. */
static void gen_json_gem_value(jt_gen *g, VALUE value)
{
    jt_gen_value_unmoded(g, value);
}

/* Float#as_json: the Float when finite, else nil. */
void jt_rails_float(jt_gen *g, VALUE obj)
{
    if (RB_UNLIKELY(jt_rails_call_of(g)->float_stock < 0)) {
        jt_before_ruby(g);
        jt_rails_call_of(g)->float_stock = jt_rails_stock(rb_cFloat, JT_RAILS_FLOAT, jt_rails_of(g));
    }
    double value = RFLOAT_VALUE(obj);
    if (RB_UNLIKELY(!jt_rails_call_of(g)->float_stock)) {
        VALUE replacement = jt_rails_call_as_json(g, obj);
        if (jt_in_as_json_pass(g)) {
            jt_rails_gen_in_pass(g, replacement, Qundef);
        } else {
            gen_json_gem_value(g, replacement);
        }
    } else if (isnan(value) || isinf(value)) {
        jt_buffer_append(g->buf, "null", 4);
    } else {
        jt_buffer_reserve(g->buf, JT_DOUBLE_MAX_CHARS);
        g->buf->len += (size_t)jt_write_double(value, g->buf->ptr + g->buf->len, jj.float_rules);
    }
}

/* Relation#as_json is records.as_json(options): the records, loaded once
 * (and left loaded, as ActiveRecord leaves them), walked as that Array in
 * the same pass; after the as_json pass (a relation some as_json returned),
 * as_json without options. */
bool jt_rails_relation(jt_gen *g, VALUE relation)
{
    jt_before_ruby(g);
    VALUE records = rb_funcall(relation, jr.id_records, 0);
    Check_Type(records, T_ARRAY);
    jt_rails_gen_in_pass(g, records, jt_in_as_json_pass(g) ? jt_rails_call_of(g)->as_json_options : Qnil);
    RB_GC_GUARD(records);
    return true;
}

/* A record's values: in the as_json pass (Hash#as_json hands them none of
 * the call's options). */
static void record_value(jt_gen *g, VALUE value)
{
    jt_rails_gen_in_pass(g, value, Qnil);
}

const jt_record_mode jt_rails_records = {
    .value = record_value,
    .float_ = jt_rails_float,
    .json_columns = true,
};

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
    struct jt_rails_profile scratch;
    struct jt_rails_profile *p = jt_rails_profile(g, obj, &scratch);
    if (p->stock) {
        char text[JT_TIME_TEXT_MAX];
        size_t n = jt_rails_native_text(obj, p->kind, jt_rails_of(g), text);
        if (n) {
            jt_write_plain_text(g, text, n);
            return;
        }
    }
    if (p->kind == JT_RAILS_MODEL && p->stock && jt_record_model(g, obj, p)) return;
    if (p->kind == JT_RAILS_RELATION && p->stock && jt_rails_relation(g, obj)) return;
    VALUE value = jt_rails_call_as_json(g, obj);
    if (p->kind == JT_RAILS_NUMERIC && !jt_in_as_json_pass(g)) {
        gen_json_gem_value(g, value);
        return;
    }
    /* An as_json that returns itself, or a new object of the same kind,
     * recurses without nesting: ActiveSupport ends in SystemStackError too. */
    if (ruby_stack_check()) rb_raise(rb_eSysStackError, "stack level too deep");
    jt_rails_gen_in_pass(g, value, Qundef);
    RB_GC_GUARD(value);
}

/* The as_json pass meets a Hash or an Array: its as_json, unless still
 * ActiveSupport's, replaces it (false: written); Hash#as_json's only: and
 * except: pick the pairs. */
bool jt_rails_container_prologue(jt_gen *g, VALUE *container, enum jt_rails_kind kind)
{
    if (!jt_in_as_json_pass(g)) return true;
    if (!rails_container_stock(g, *container, kind)) {
        jt_rails_gen_in_pass(g, jt_rails_call_as_json(g, *container), Qundef);
        return false;
    }
    if (kind == JT_RAILS_HASH) {
        *container = rails_subset(g, *container);
        Check_Type(*container, T_HASH);
    }
    return true;
}
