/* Oj's Rails mode (Oj.optimize_rails) as a mode of the json walk: the bytes
 * Oj::Rails::Encoder writes, for apps that made Oj ActiveSupport's encoder.
 *
 * The walk writes natively what Oj writes with fixed rules: nil, booleans,
 * Integers, Symbols, Strings that are ASCII or valid UTF-8 (Oj's RailsXEsc
 * escaping under escape_html_entities_in_json: '<', '>', '&', U+2028 and
 * U+2029; only '"', '\\' and control characters otherwise), Floats (see
 * oj_values.c), and Hashes and Arrays that Oj::Rails.optimize walks itself:
 * their pairs as they are, a Symbol key and its String spelling both
 * written, no as_json.
 *
 * Times and TimeWithZones that Oj optimizes are written natively too
 * (oj_values.c), and so are ActiveRecord records and relations
 * (oj_record.c): Oj asks their as_json, which ActiveModel answers with
 * serializable_hash(options).as_json, a Hash of JSON-ready values that Oj
 * then walks; Jetson writes that Hash from the record's attribute set
 * (record.c), each value as its as_json makes it and Oj writes it.
 *
 * Everything else is Oj's to write, so Oj writes it: the value goes to
 * Oj::Rails.encode(value, options), the call ActiveSupport's encoder makes
 * (options: the encoder's, an empty Hash for none; none inside an as_json
 * result), and its text is pasted in place. That covers objects with
 * as_json (BigDecimals, Oj's other optimized classes, a model's own
 * as_json), subclasses of String, Hash and Array, Strings in other
 * encodings, and Hashes, Arrays and Times that Oj hands to as_json
 * (optimize off). Inside Oj's own walk such a value is written with the
 * same options and no indentation (Jetson::Rails::OjRules checks Oj's
 * defaults), so the pasted text is the text Oj writes there. */

#include "rails/oj_mode.h"
#include "rails/oj_call.h"

/* Oj's walk raises past this depth (its MAX_DEPTH). */
#define OJ_MAX_DEPTH 1000

/* Oj's text for value, pasted where the walk stands. The options where it
 * stands (the encoder's, none of them Oj's own: OjEncoder) are what Oj hands
 * every as_json; a copy, as Oj's encoder copies them, for as_json may write
 * into what it is given. */
static void paste_oj_text(jt_gen *g, VALUE value)
{
    jt_before_ruby(g);
    VALUE given = jt_rails_call_of(g)->as_json_options;
    jt_oj_call *call = jt_oj_call_of(g);
    VALUE oj_rails = call->oj_rails, text;
    if (given == Qundef) {
        text = rb_funcall(oj_rails, jj.id_encode, 1, value);
    } else if (call->key_filter) {
        if (!call->filter_encoder) {
            VALUE encoder_class = rb_const_get(oj_rails, rb_intern("Encoder"));
            call->filter_encoder = rb_funcall(encoder_class, rb_intern("new"), 1, given);
        }
        text = rb_funcall(call->filter_encoder, jj.id_encode, 1, value); /* hands as_json a copy */
    } else {
        text = rb_funcall(oj_rails, jj.id_encode, 2, value, NIL_P(given) ? rb_hash_new() : rb_hash_dup(given));
    }
    StringValue(text);
    jt_buffer_append_str(g->buf, text);
    RB_GC_GUARD(text);
    RB_GC_GUARD(value);
}

/* Neither ASCII nor valid UTF-8: Oj converts or raises, its own way. */
static bool oj_string(jt_gen *g, VALUE str)
{
    paste_oj_text(g, str);
    return true;
}

/* A Hash or Array Oj::Rails.optimize does not walk: Oj asks its as_json.
 * A Hash under the call's only: or except: (Oj's key filter): Oj writes it
 * with them, as it writes it where the walk stands. */
static bool oj_container(jt_gen *g, VALUE *container, bool hash)
{
    const jt_rails_settings *rails = jt_rails_of(g);
    bool filtered = hash && jt_oj_call_of(g)->key_filter && jt_rails_call_of(g)->as_json_options != Qundef;
    if (!filtered && (hash ? rails->oj_hashes : rails->oj_arrays)) return true;
    paste_oj_text(g, *container);
    return false;
}

/* Oj writes every pair: {id: 1, "id" => 2} keeps both. */
static bool oj_mixed_keys(jt_gen *g, VALUE hash)
{
    (void)g;
    (void)hash;
    return true;
}

static bool oj_too_deep(jt_gen *g, long depth)
{
    (void)depth;
    --g->depth;
    rb_raise(rb_eNoMemError, "Too deeply nested.\n");
    return false;
}

/* Oj writes a Bignum's digits with rb_big2str, whatever Integer#to_s is. */
static void oj_integer(jt_gen *g, VALUE obj)
{
    if (RB_FIXNUM_P(obj)) {
        jt_buffer_reserve(g->buf, JT_LONG_MAX_CHARS);
        g->buf->len += (size_t)jt_write_long(FIX2LONG(obj), g->buf->ptr + g->buf->len);
        return;
    }
    jt_before_ruby(g);
    VALUE digits = rb_big2str(obj, 10);
    jt_buffer_append_str(g->buf, digits);
    RB_GC_GUARD(digits);
}

static bool oj_object(jt_gen *g, VALUE obj, bool as_json_called)
{
    (void)as_json_called;
    char text[JT_TIME_TEXT_MAX];
    jt_before_ruby(g); /* TimeWithZone's offset and utc? are Ruby calls */
    size_t n = RB_SPECIAL_CONST_P(obj) ? 0 : jt_oj_time_text(jt_rails_of(g), obj, RBASIC_CLASS(obj), text);
    if (n) {
        jt_write_plain_text(g, text, n);
        return true;
    }
    if (!RB_SPECIAL_CONST_P(obj) && RB_BUILTIN_TYPE(obj) == T_OBJECT && jt_oj_record(g, obj)) return true;
    paste_oj_text(g, obj);
    return true;
}

static void oj_finish(jt_gen *g)
{
    jt_attribute_access_finish(&jt_rails_call_of(g)->attribute_access);
}

static const jt_mode oj_mode = {
    .string = oj_string,
    .container = oj_container,
    .mixed_keys = oj_mixed_keys,
    .too_deep = oj_too_deep,
    .integer = oj_integer,
    .float_ = jt_oj_float,
    .object = oj_object,
    .finish = oj_finish,
    .symbols_as_names = true, /* oj_dump_sym: the name */
};

VALUE jt_generate_oj(VALUE obj, const jt_rails_settings *rails, VALUE oj_rails, jt_write_fn *write)
{
    jt_config cfg;
    jt_config_init(&cfg);
    cfg.max_nesting = OJ_MAX_DEPTH + 1;
    jt_oj_call call;
    jt_rails_call_start(&call.records, rails, &jt_oj_records);
    call.oj_rails = oj_rails;
    /* Oj's encoder hands as_json an empty Hash where it was given none. */
    VALUE options = call.records.as_json_options;
    if (options == Qundef) call.records.as_json_options = Qnil;
    call.filter_encoder = 0;
    call.key_filter = options != Qundef && (rb_hash_lookup2(options, jr.sym_only, Qundef) != Qundef ||
                                            rb_hash_lookup2(options, jr.sym_except, Qundef) != Qundef);
    int escape_mode = JT_ESCAPE_BASIC | (rails->escape_html ? JT_ESCAPE_JS_SEPARATORS | JT_ESCAPE_HTML : 0);
    VALUE result = jt_generate_mode(obj, &cfg, Qnil, &oj_mode, &call, escape_mode, write);
    RB_GC_GUARD(oj_rails);
    return result;
}
