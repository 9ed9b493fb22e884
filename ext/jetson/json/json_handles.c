/* The json layer's handles (json/json_handles.h). */

#include "json/json_handles.h"

jt_json_handles jj;

static VALUE frozen_string(const char *s)
{
    VALUE str = rb_str_freeze(rb_utf8_str_new_cstr(s));
    rb_gc_register_mark_object(str);
    return str;
}

/* Jetson::JSON_FLOAT_RULES, "2.15", "2.12", "2.11" or "2.10"; the newest
 * json's where it is not set (the extension loaded on its own). */
static jt_float_rules float_rules(void)
{
    ID name = rb_intern("JSON_FLOAT_RULES");
    if (!rb_const_defined_at(jt.mJetson, name)) return JT_FLOATS_JSON_2_15;
    VALUE rules = rb_const_get_at(jt.mJetson, name);
    StringValue(rules);
    if (rb_str_equal(rules, rb_str_new_cstr("2.15"))) return JT_FLOATS_JSON_2_15;
    if (rb_str_equal(rules, rb_str_new_cstr("2.12"))) return JT_FLOATS_JSON_2_12;
    if (rb_str_equal(rules, rb_str_new_cstr("2.11"))) return JT_FLOATS_JSON_2_11;
    if (rb_str_equal(rules, rb_str_new_cstr("2.10"))) return JT_FLOATS_RUBY;
    rb_raise(rb_eArgError, "Jetson::JSON_FLOAT_RULES: unknown rules %+" PRIsVALUE, rules);
}

void jt_init_json_handles(void)
{
    jj.cState = rb_define_class_under(jt.mJetson, "State", rb_cObject);
    rb_gc_register_mark_object(jj.cState);
    jt_intern_ids("to_json encode depth= on_mixed_keys_hash DEFAULT_SORT_KEYS Fragment State respond_to? "
                "respond_to_missing? owner GeneratorMethods JSON @state",
        (ID *const[]){&jj.id_to_json, &jj.id_encode, &jj.id_depth_set, &jj.id_on_mixed_keys_hash,
            &jj.id_default_sort_keys, &jj.id_json_fragment_class, &jj.id_json_state_class, &jj.id_respond_to,
            &jj.id_respond_to_missing, &jj.id_owner, &jj.id_generator_methods, &jj.id_json_module, &jj.id_state_ivar,
            NULL});
#define SYM(name) jj.sym_##name = ID2SYM(rb_intern(#name))
    SYM(indent); SYM(space); SYM(space_before); SYM(object_nl); SYM(array_nl);
    SYM(allow_nan); SYM(max_nesting); SYM(depth); SYM(ascii_only); SYM(script_safe);
    SYM(escape_slash); SYM(strict); SYM(as_json); SYM(allow_duplicate_key); SYM(rfc8785);
    SYM(sort_keys); SYM(buffer_initial_length);
#undef SYM
    jj.pretty_indent = frozen_string("  ");
    jj.pretty_space = frozen_string(" ");
    jj.pretty_nl = frozen_string("\n");
    jj.json3 = rb_const_defined_at(jt.mJetson, rb_intern("JSON_RULES")) &&
               NUM2INT(rb_const_get_at(jt.mJetson, rb_intern("JSON_RULES"))) >= 3;
    jj.float_rules = float_rules();
}
