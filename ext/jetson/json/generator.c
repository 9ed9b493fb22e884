/* The json walk: the json gem's generator over Ruby values (the dispatch
 * by type, Arrays, Strings, numbers; Hashes and their keys are pairs.c's),
 * calling the call's mode (json/mode.h) where it rules a value. */

#include "json/json_walk.h"
#include "json/strings.h"
#include "json/in_place.h"
#include <math.h>


JT_INLINE void gen_element(jt_gen *g, VALUE obj);

/* The String an element is written as, when it is a plain String or a
 * Symbol written as its name: 0 if not. Allocates nothing, so the GC cannot
 * run: a static Symbol met before the Ractor's name cache is set up (which
 * allocates it) is left to gen_element. */
JT_INLINE VALUE element_name(jt_gen *g, VALUE obj)
{
    if (RB_SPECIAL_CONST_P(obj)) {
        if (!RB_STATIC_SYM_P(obj) || !g->symbols_are_names || !g->symbol_names) return 0;
        return jt_symbol_name(&g->symbol_names, obj);
    }
    VALUE klass = RBASIC_CLASS(obj);
    if (klass == rb_cString) return obj;
    return klass == rb_cSymbol && g->symbols_are_names ? rb_sym2str(obj) : 0;
}

/* After a short Array of numbers, the ones that follow it (the rows of a
 * matrix, a list of coordinates) in a loop of their own, from element i;
 * returns the index of the first element it leaves to the caller. Kept
 * out of the loop below: there, the test cost every Hash element (a
 * collection of records) more than it saved. */
static long write_more_rows(jt_gen *g, VALUE ary, long i, bool floats)
{
    jt_buffer *b = g->buf;
    /* The rows are siblings: one level down for each of them. */
    if (!jt_child_within_nesting(g)) return i;
    for (; i < RARRAY_LEN(ary); i++) {
        const VALUE obj = RARRAY_AREF(ary, i);
        if (RB_SPECIAL_CONST_P(obj) || RBASIC_CLASS(obj) != rb_cArray) break;
        jt_buffer_reserve(b, 1 + JT_TUPLE_ROOM);
        char *p = b->ptr + b->len;
        *p = ',';
        char *end = jt_write_nested_number_tuple(p + 1, obj, floats);
        if (!end) break;
        b->len = (size_t)(end - b->ptr);
    }
    return i;
}

/* Runs of Integers and of short Strings or Symbols (1..32 bytes, nothing to
 * escape) are written in one loop, with the Array's elements and the
 * buffer's end in registers: the loop stops where the buffer may have to
 * grow (which may run the GC, which may move the elements) or, with an io,
 * where a chunk is pending. Every other element takes gen_element. */
static void gen_elements_compact(jt_gen *g, VALUE ary)
{
    jt_buffer *b = g->buf;
    /* ',' and the longest Integer; room: that, or ',' and a quoted 32-byte
     * name, or ',' and the longest Float (JT_DOUBLE_MAX_CHARS) */
    const long integer_room = JT_LONG_MAX_CHARS + 1;
    const size_t room = integer_room > 35 ? (size_t)integer_room : 35;
    const int mode = g->escape_mode;
    /* Flonums (most Floats) in place, as the json gem writes them,
     * unless the call's mode writes Floats (jt_mode.float_). */
    const bool floats = g->json_floats;
    const size_t array_start = b->len;
    long i = 0;
    /* The length is re-read after every element the loop leaves to
     * gen_element: a to_json may shrink or grow the Array. */
    while (i < RARRAY_LEN(ary)) {
        const VALUE *elements = JT_ARRAY_ELEMENTS(ary);
        const long n = RARRAY_LEN(ary);
        char *const start = b->ptr;
        size_t stop = b->capa >= room ? b->capa - room + 1 : 0;
        if (stop > b->flush_at) stop = b->flush_at;
        char *p = start + b->len;
        char *const limit = start + stop;
        for (; i < n && p < limit; i++) {
            VALUE obj = elements[i];
            *p = ',';
            if (RB_FIXNUM_P(obj)) {
                p = jt_write_long_at(p + (i > 0), FIX2LONG(obj));
                /* A run of Integers: nothing but the separator and the
                 * digits per element, in batches of as many as surely fit
                 * (no room test, no first-element test, no dispatch). */
                long fit;
                while (i + 1 < n && (fit = (limit - p) / integer_room) > 0) {
                    const long batch_end = n - (i + 1) < fit ? n : i + 1 + fit;
                    while (i + 1 < batch_end && RB_FIXNUM_P(obj = elements[i + 1])) {
                        *p = ',';
                        p = jt_write_long_at(p + 1, FIX2LONG(obj));
                        i++;
                    }
                    if (i + 1 < batch_end) break; /* not an Integer */
                }
                continue;
            }
            if (RB_FLONUM_P(obj) && floats) {
                const double value = RFLOAT_VALUE(obj);
                if (RB_UNLIKELY(!isfinite(value))) break; /* allow_nan, as_json, errors */
                p += i > 0;
                p += jt_write_double(value, p, jj.float_rules);
                continue;
            }
            VALUE name = element_name(g, obj);
            char *end = name ? jt_write_plain_name(NULL, p, name, mode, i > 0, 0) : NULL;
            if (!end) break;
            p = end;
        }
        if (i >= n) {
            b->len = (size_t)(p - start);
            break;
        }
        /* Read before pushing: growing the buffer may run the GC, which may
         * move the elements (transient heap). */
        VALUE obj = elements[i];
        if (RB_LIKELY(p < limit)) {
            /* The loop stopped at an element it does not write (a Hash, an
             * Array, a long String): its ',' is already in place, in room
             * made, and no chunk is due out (limit is below flush_at), so
             * the element goes straight to its writer. */
            b->len = (size_t)(p + (i > 0) - start);
            if (!RB_SPECIAL_CONST_P(obj) && RBASIC_CLASS(obj) == rb_cHash) {
                jt_gen_hash(g, obj);
                i++;
                continue;
            }
        } else {
            b->len = (size_t)(p - start);
            if (i >= 16 && NIL_P(b->io)) {
                /* Out of room part-way through a long Array: room for the
                 * rest at its elements' average length so far, in one step,
                 * rather than the doublings that copy everything written
                 * each time. */
                const size_t average = (b->len - array_start) / (size_t)i + 1;
                const size_t rest = (size_t)(n - i);
                if (rest <= SIZE_MAX / 2 / average) jt_buffer_expect(b, rest * average + rest * average / 16 + room);
            }
            if (i > 0) jt_buffer_push(b, ',');
        }
        /* Out of the loop above, which stays as small as its runs need. */
        if (!RB_SPECIAL_CONST_P(obj) && RBASIC_CLASS(obj) == rb_cArray && g->plain_arrays) {
            jt_buffer_reserve(b, JT_TUPLE_ROOM);
            char *end = jt_write_number_tuple(g, b->ptr + b->len, obj, floats);
            if (end) {
                b->len = (size_t)(end - b->ptr);
                i = write_more_rows(g, ary, i + 1, floats);
                continue;
            }
        }
        gen_element(g, obj);
        i++;
    }
}

/* An Array with layout options or under a mode (see jt_gen_array). */
JT_NOINLINE static void gen_array_general(jt_gen *g, VALUE ary)
{
    const jt_config *cfg = g->cfg;
    if (RB_UNLIKELY(g->mode && g->mode->container) && !g->mode->container(g, &ary, false)) return;
    long depth = jt_enter_container(g);
    if (RARRAY_LEN(ary) == 0) {
        jt_buffer_append(g->buf, "[]", 2);
        --g->depth;
        return;
    }

    jt_buffer_push(g->buf, '[');
    /* The compact loop writes Integers itself: not where the mode does. */
    if (RB_LIKELY(!cfg->array_nl && !cfg->indent && g->json_integers)) {
        gen_elements_compact(g, ary);
    } else {
        /* The length is re-read every time: a to_json may shrink the Array. */
        for (long i = 0; i < RARRAY_LEN(ary); i++) {
            if (i > 0) jt_buffer_push(g->buf, ',');
            jt_write_line(g, false, depth);
            gen_element(g, RARRAY_AREF(ary, i));
        }
    }
    g->depth = --depth;
    if (RB_UNLIKELY(cfg->array_nl)) jt_write_line(g, false, depth);
    jt_buffer_push(g->buf, ']');
}

/* Every Array comes here. The plain path (no layout, no mode) is all this
 * function holds, the rest out of line, so that it saves few registers
 * and keeps a small frame: small documents are mostly a few such calls. */
void jt_gen_array(jt_gen *g, VALUE ary)
{
    if (RB_UNLIKELY(!g->plain_arrays)) {
        gen_array_general(g, ary);
        return;
    }
    jt_open_container(g, '[');
    if (RARRAY_LEN(ary) != 0) gen_elements_compact(g, ary); /* else "[]" */
    jt_close_container(g, ']');
}

/* --- scalars ------------------------------------------------------------- */

JT_INLINE void gen_fixnum(jt_gen *g, VALUE obj)
{
    if (RB_UNLIKELY(!g->json_integers)) {
        g->mode->integer(g, obj);
        return;
    }
    jt_buffer_reserve(g->buf, JT_LONG_MAX_CHARS);
    g->buf->len += (size_t)jt_write_long(FIX2LONG(obj), g->buf->ptr + g->buf->len);
}

static void gen_bignum(jt_gen *g, VALUE obj)
{
    if (RB_UNLIKELY(!g->json_integers)) {
        g->mode->integer(g, obj);
        return;
    }
    jt_before_ruby(g); /* it allocates: the GC may run (see key_cache.h) */
    /* The json gem writes a Bignum's to_s, converted with StringValue: an
     * Integer#to_s redefined by the app is called (and what it returns must
     * be a String, or TypeError), as there. */
    VALUE digits = rb_method_basic_definition_p(rb_cInteger, jt.id_to_s) ? rb_big2str(obj, 10)
                                                                          : rb_funcall(obj, jt.id_to_s, 0);
    StringValue(digits);
    jt_buffer_append_str(g->buf, digits);
    RB_GC_GUARD(digits);
}

static void gen_float(jt_gen *g, VALUE obj)
{
    if (RB_UNLIKELY(!g->json_floats) && g->mode->float_(g, obj)) return;
    double value = RFLOAT_VALUE(obj);
    if (RB_UNLIKELY(isnan(value) || isinf(value))) {
        jt_before_ruby(g); /* Float#to_s may be redefined */
        if (!g->cfg->allow_nan) {
            if (g->cfg->strict && RTEST(g->cfg->as_json)) {
                VALUE replacement = jt_call_as_json(g, obj, Qfalse);
                if (replacement != obj) {
                    jt_enter_container(g);
                    jt_gen_value(g, replacement);
                    g->depth--;
                    return;
                }
            }
            jt_raise_generator_error(obj, "%"PRIsVALUE" not allowed in JSON", rb_funcall(obj, jt.id_to_s, 0));
        }
        jt_buffer_append_str(g->buf, rb_funcall(obj, jt.id_to_s, 0));
        return;
    }
    jt_buffer_reserve(g->buf, JT_DOUBLE_MAX_CHARS);
    g->buf->len += (size_t)jt_write_double(value, g->buf->ptr + g->buf->len, jj.float_rules);
}


VALUE jt_json_fragment_class(void)
{
    return jt_json_gem_constant(jj.id_json_fragment_class);
}

/* JSON::Fragment when the json gem is loaded: pasted like our own. */
static bool is_json_gem_fragment(VALUE klass)
{
    return jt_json_fragment_class() == klass;
}

static void gen_fragment(jt_gen *g, VALUE obj)
{
    VALUE json = rb_struct_aref(obj, INT2FIX(0));
    Check_Type(json, T_STRING);
    jt_buffer_append_str(g->buf, json);
    RB_GC_GUARD(json);
}

/* Symbols have no singleton classes, so whether a Symbol's JSON is simply its
 * name is the same for every Symbol of the call; it is settled once. */
static bool symbols_use_generic_to_json(jt_gen *g, VALUE sym)
{
    if (g->symbol_to_json == JT_SYMBOL_UNKNOWN) {
        jt_before_ruby(g);
        /* Both the json gem's to_json ("#{self}") and the to_s fallback end
         * in Symbol#to_s, which is the name itself unless redefined. */
        bool generic = rb_method_basic_definition_p(rb_cSymbol, jt.id_to_s) &&
                       (!rb_respond_to(sym, jj.id_to_json) || jt_to_json_is_generic(sym));
        g->symbol_to_json = generic ? JT_SYMBOL_GENERIC : JT_SYMBOL_CUSTOM;
    }
    return g->symbol_to_json == JT_SYMBOL_GENERIC;
}

/* Any value; as_json_called: strict mode's as_json returned it (it gets
 * one say per value, as in the json gem). */
JT_INLINE void gen_value(jt_gen *g, VALUE obj, bool as_json_called)
{
again:
    if (obj == Qnil) { jt_buffer_append(g->buf, "null", 4); return; }
    if (obj == Qfalse) { jt_buffer_append(g->buf, "false", 5); return; }
    if (obj == Qtrue) { jt_buffer_append(g->buf, "true", 4); return; }
    if (RB_FIXNUM_P(obj)) { gen_fixnum(g, obj); return; }
    if (RB_FLONUM_P(obj)) { gen_float(g, obj); return; }

    if (RB_SPECIAL_CONST_P(obj)) {
        if (RB_STATIC_SYM_P(obj)) goto symbol;
        goto general;
    }

    {
        VALUE klass = RBASIC_CLASS(obj);
        switch (RB_BUILTIN_TYPE(obj)) {
            case T_STRING:
                if (klass != rb_cString) goto general;
            string:
                if (RB_LIKELY(jt_string_is_json_ready(obj))) {
                    jt_write_ready_string(g, obj);
                    return;
                }
                if (g->mode && g->mode->string && g->mode->string(g, obj)) return;
                if (as_json_called) jt_raise_generator_error(obj, "source sequence is illegal/malformed utf-8");
                obj = jt_convert_encoding(g, obj, false, false);
                as_json_called = true;
                goto again;
            case T_HASH:
                if (klass != rb_cHash) goto general;
                jt_gen_hash(g, obj);
                return;
            case T_ARRAY:
                if (klass != rb_cArray) goto general;
                jt_gen_array(g, obj);
                return;
            case T_FLOAT:
                if (klass != rb_cFloat) goto general;
                gen_float(g, obj);
                return;
            case T_BIGNUM:
                gen_bignum(g, obj);
                return;
            case T_SYMBOL:
                goto symbol;
            case T_STRUCT:
                /* A mode that writes objects decides about Fragments too. */
                if (g->mode && g->mode->object) goto general;
                jt_before_ruby(g); /* a constant lookup may autoload */
                if (klass == jt.cFragment || is_json_gem_fragment(klass)) {
                    gen_fragment(g, obj);
                    return;
                }
                goto general;
            default:
                goto general;
        }
    }

symbol:
    if (g->cfg->strict || g->mode_symbols) {
        /* Its name as a String, as_json_called kept: a name that is not
         * UTF-8 goes to as_json once, whatever it returns. */
        g->symbols_are_names = true;
        obj = jt_symbol_name(&g->symbol_names, obj);
        goto string;
    } else if (symbols_use_generic_to_json(g, obj)) {
        g->symbols_are_names = true;
        jt_gen_string(g, jt_symbol_name(&g->symbol_names, obj), false);
    } else {
        jt_gen_fallback(g, obj);
    }
    return;

general:
    if (g->mode && g->mode->object && g->mode->object(g, obj, as_json_called)) return;
    if (g->cfg->strict) {
        if (RTEST(g->cfg->as_json) && !as_json_called) {
            obj = jt_call_as_json(g, obj, Qfalse);
            as_json_called = true;
            goto again;
        }
        jt_raise_generator_error(obj, "%"PRIsVALUE" not allowed in JSON", CLASS_OF(obj));
    }
    jt_gen_fallback(g, obj);
}

void jt_gen_value(jt_gen *g, VALUE obj)
{
    gen_value(g, obj, false);
}

void jt_gen_converted_value(jt_gen *g, VALUE obj)
{
    gen_value(g, obj, true);
}

/* A Symbol once the call has settled that Symbols are written as their names. */
JT_INLINE void gen_symbol_name(jt_gen *g, VALUE sym)
{
    VALUE name = jt_symbol_name(&g->symbol_names, sym);
    if (RB_LIKELY(RB_ENC_CODERANGE(name) == RUBY_ENC_CODERANGE_7BIT)) {
        jt_write_ready_string(g, name);
    } else {
        jt_gen_string(g, name, false);
    }
}

/* Container elements: the commonest scalars without the full dispatcher's
 * call overhead. Out of line, so that its callers stay small. */
int jt_gen_element_value(jt_gen *g, VALUE obj)
{
    if (RB_SPECIAL_CONST_P(obj)) {
        if (RB_FIXNUM_P(obj)) {
            gen_fixnum(g, obj);
        } else if (obj == Qnil) {
            jt_buffer_append(g->buf, "null", 4);
        } else if (RB_STATIC_SYM_P(obj) && g->symbols_are_names) {
            gen_symbol_name(g, obj);
        } else {
            jt_gen_value(g, obj);
        }
        return ST_CONTINUE;
    }
    VALUE klass = RBASIC_CLASS(obj);
    if (klass == rb_cString && RB_ENC_CODERANGE(obj) == RUBY_ENC_CODERANGE_7BIT) {
        jt_write_ready_string(g, obj);
    } else if (klass == rb_cHash) {
        jt_gen_hash(g, obj);
    } else if (klass == rb_cArray) {
        jt_gen_array(g, obj);
    } else if (RB_BUILTIN_TYPE(obj) == T_SYMBOL && g->symbols_are_names) {
        gen_symbol_name(g, obj);
    } else {
        jt_gen_value(g, obj);
    }
    return ST_CONTINUE;
}

JT_INLINE void gen_element(jt_gen *g, VALUE obj)
{
    jt_buffer_safe_point(g->buf);
    jt_gen_element_value(g, obj);
}

