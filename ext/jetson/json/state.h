#ifndef JETSON_JSON_STATE_H
#define JETSON_JSON_STATE_H

/* The json gem's generation options (jt_config) and Jetson::State
 * (state.c): the defaults, an options Hash read without allocating, State's
 * accessors. */

#include "json/json_handles.h"

enum jt_duplicate_key { JT_DUP_WARN = 0, JT_DUP_IGNORE, JT_DUP_RAISE };

/* Generation options, with the json gem's names and defaults. The layout
 * strings are 0 when empty so the hot path tests one word. */
typedef struct jt_config {
    VALUE indent, space, space_before, object_nl, array_nl;
    VALUE as_json;   /* Proc or Qfalse */
    VALUE sort_keys; /* Proc or Qfalse */
    long max_nesting;
    long depth;
    long buffer_initial_length;
    enum jt_duplicate_key on_duplicate_key;
    bool allow_nan, ascii_only, script_safe, strict;
    bool rfc8785; /* canonical JSON (canonical.c) */
} jt_config;

/* The json gem's defaults. Inline: every Jetson.generate call starts here. */
JT_INLINE void jt_config_init(jt_config *cfg)
{
    *cfg = (jt_config){
        .indent = 0, .space = 0, .space_before = 0, .object_nl = 0, .array_nl = 0, /* none */
        .as_json = Qfalse,
        .sort_keys = Qfalse,
        .max_nesting = 100,
        .buffer_initial_length = 1024,
        /* json 3 raises on keys that collide after conversion; json 2 warned. */
        .on_duplicate_key = jj.json3 ? JT_DUP_RAISE : JT_DUP_WARN,
    };
}
/* Applies an options Hash. `owner` is the State object holding cfg (for write
 * barriers) or 0 for a configuration that lives on the C stack. */
void jt_config_apply(jt_config *cfg, VALUE owner, VALUE opts);
/* ArgumentError for options json 3.1 does not allow with rfc8785 (canonical.c). */
void jt_canonical_validate(const jt_config *cfg);
/* Applies json-style options given as a Hash, a Jetson::State or (when the
 * json gem is loaded) a JSON::State; raises TypeError for anything else. */
void jt_config_from_opts(jt_config *cfg, VALUE opts);

jt_config *jt_state_config(VALUE state);
/* Jetson::State and its methods (state.c). */
void jt_init_state(void);
VALUE jt_state_new_from_config(const jt_config *cfg, long depth);
bool jt_is_state(VALUE obj);
VALUE jt_json_gem_constant(ID name);

#endif
