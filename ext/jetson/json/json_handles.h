#ifndef JETSON_JSON_HANDLES_H
#define JETSON_JSON_HANDLES_H

/* The json layer's handles: Jetson::State, the json gem's line (json 2 or
 * 3), the method IDs of its rules and the names of its options. Written once
 * by Init_jetson (jt_init_json_handles), only read afterwards. */

#include "bytes/base.h"
#include "bytes/numbers.h"

typedef struct jt_json_handles {
    VALUE cState;
    ID id_to_json, id_encode, id_depth_set, id_on_mixed_keys_hash, id_default_sort_keys, id_json_fragment_class,
        id_json_state_class, id_respond_to, id_respond_to_missing, id_owner, id_generator_methods, id_json_module,
        id_state_ivar;
    VALUE sym_indent, sym_space, sym_space_before, sym_object_nl, sym_array_nl, sym_allow_nan, sym_max_nesting,
        sym_depth, sym_ascii_only, sym_script_safe, sym_escape_slash, sym_strict, sym_as_json,
        sym_allow_duplicate_key, sym_rfc8785, sym_sort_keys, sym_buffer_initial_length;
    VALUE pretty_indent, pretty_space, pretty_nl; /* frozen, registered GC roots */
    /* The json gem's major version whose rules apply (Jetson::JSON_RULES):
     * json 3 raises where json 2 warned or ignored. */
    bool json3;
    /* How Floats come out: the json release whose float rules apply
     * (Jetson::JSON_FLOAT_RULES). */
    jt_float_rules float_rules;
} jt_json_handles;

extern jt_json_handles jj;

void jt_init_json_handles(void);

#endif
