/* Rails mode under ActiveSupport 8.1's JSONGemCoderEncoder, and what 8.1's
 * encoders share: JSON::Fragment pasted with ActiveSupport's escaping.
 *
 * That encoder calls `value.as_json(options)` (when there are options), then
 * hands the result to a JSON::Coder: the json gem's strict walk, whose
 * conversion block turns other keys into Strings and calls as_json on other
 * values. Jetson runs the as_json(options) pass as it does for
 * JSONGemEncoder (rails/walk.c) and, where the Coder walks, the json gem's
 * strict walk of generator.c with that very block as cfg->as_json
 * (jt_coder_walk). This file holds the seams between the two: the values
 * Jetson writes without calling the block (ActiveSupport's own as_json for
 * times, dates and records). Where the Coder walks the result of a pass,
 * and the order of errors there, is walk.c's (walk_result_after_pass). */

#include "rails/walk.h"
#include "rails/record.h"
#include <math.h>

/* The Coder's walk meets an object: what ActiveSupport's as_json gives for
 * it, written without calling the block, where Jetson knows it (a stock
 * Time, TimeWithZone or Date; an ActiveModel or ActiveRecord object; a
 * relation). false: the block converts it (generator.c). */
bool jt_rails_coder_native(jt_gen *g, VALUE obj)
{
    switch (rb_type(obj)) {
        /* Subclasses of the json types: the block calls their as_json. */
        case T_HASH: case T_ARRAY: case T_STRING: case T_STRUCT: return false;
        default: break;
    }
    jt_before_ruby(g); /* the stock checks are Ruby code */
    struct jt_rails_profile scratch;
    struct jt_rails_profile *p = jt_rails_profile(g, obj, &scratch);
    if (!p->stock) return false;
    char text[JT_TIME_TEXT_MAX];
    size_t n = jt_rails_native_text(obj, p->kind, jt_rails_of(g), text);
    if (n) {
        jt_write_plain_text(g, text, n);
        return true;
    }
    /* A model's as_json is a Hash and a relation's an Array: the block
     * returns them as they are. */
    if (p->kind == JT_RAILS_MODEL && jt_record_model(g, obj, p)) return true;
    if (p->kind == JT_RAILS_RELATION && jt_rails_relation(g, obj)) return true;
    return false;
}

/* The Coder meets NaN or an Infinity: its block gives Float#as_json's nil,
 * one level deeper (the json gem counts the replacement's level). true:
 * written; false: a finite Float, or a Float#as_json of the app's, for the
 * json gem's walk (generator.c). */
bool jt_rails_coder_float(jt_gen *g, VALUE obj)
{
    double value = RFLOAT_VALUE(obj);
    if (!isnan(value) && !isinf(value)) return false;
    if (RB_UNLIKELY(jt_rails_call_of(g)->float_stock < 0)) {
        jt_before_ruby(g);
        jt_rails_call_of(g)->float_stock = jt_rails_stock(rb_cFloat, JT_RAILS_FLOAT, jt_rails_of(g));
    }
    if (!jt_rails_call_of(g)->float_stock) return false;
    jt_enter_container(g);
    jt_buffer_append(g->buf, "null", 4);
    g->depth--;
    return true;
}

/* Appends JSON text as ActiveSupport's escaping leaves it: its gsub runs
 * over the whole document, a fragment's bytes included. */
static void paste_escaped(jt_gen *g, VALUE text)
{
    Check_Type(text, T_STRING);
    const bool html = (g->escape_mode & JT_ESCAPE_HTML) != 0;
    const bool js = (g->escape_mode & JT_ESCAPE_JS_SEPARATORS) != 0;
    if (!html && !js) {
        jt_buffer_append_str(g->buf, text);
        return;
    }
    size_t len = (size_t)RSTRING_LEN(text);
    /* Room for the worst case first: reserving may run the GC, which may
     * move the String's bytes. */
    jt_buffer_reserve(g->buf, len * 6);
    const unsigned char *p = (const unsigned char *)RSTRING_PTR(text);
    const unsigned char *end = p + len;
    char *dst = g->buf->ptr + g->buf->len;
    while (p < end) {
        unsigned char c = *p;
        const char *escape = NULL;
        size_t consumed = 1;
        if (html && (c == '<' || c == '>' || c == '&')) {
            escape = c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026";
        } else if (js && c == 0xE2 && end - p >= 3 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            escape = p[2] == 0xA8 ? "\\u2028" : "\\u2029";
            consumed = 3;
        }
        if (escape) {
            memcpy(dst, escape, 6);
            dst += 6;
        } else {
            *dst++ = (char)c;
        }
        p += consumed;
    }
    g->buf->len = (size_t)(dst - g->buf->ptr);
    RB_GC_GUARD(text);
}

/* A Struct met outside an as_json(options) pass: true when it is a
 * JSON::Fragment that this encoder pastes (the Coder: that class only, as
 * the json gem checks it; JSONGemEncoder 8.1: `JSON::Fragment === value`),
 * false when it goes through as_json like any Struct. */
bool jt_rails_fragment(jt_gen *g, VALUE obj, VALUE klass)
{
    if (jt_in_as_json_pass(g) || (!jt_rails_of(g)->coder && !jt_rails_of(g)->fragments)) return false;
    jt_before_ruby(g); /* a constant lookup may autoload */
    VALUE fragment = jt_json_gem_constant(jj.id_json_fragment_class);
    if (NIL_P(fragment)) return false;
    if (jt_rails_of(g)->coder ? klass != fragment : !RTEST(rb_obj_is_kind_of(obj, fragment))) return false;
    paste_escaped(g, rb_struct_aref(obj, INT2FIX(0)));
    return true;
}
