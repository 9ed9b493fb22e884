#ifndef JETSON_JSON_MODE_H
#define JETSON_JSON_MODE_H

/* The seam between the json walk and a mode that writes some values its own
 * way: Rails mode (rails/generate.c: ActiveSupport's as_json and its rules)
 * above this layer, canonical JSON (canonical.c) beside the walk. The json
 * layer declares the hooks; a mode fills a table of them once, and a call
 * runs under one table (jt_gen.mode) or none. Where the walk meets a value a
 * mode may rule, it calls the hook if the table has one, and writes the
 * value its own way otherwise: the walk never tests which mode it runs
 * under, and a mode never sees the walk's other callers.
 *
 * A hook that returns bool says whether it wrote the value (false: the
 * walk writes it as the json gem would). Each runs with the walk's state
 * (json/json_walk.h); a mode's own per-call state is jt_gen.mode_state. */

#include "bytes/base.h"

struct jt_gen;

typedef struct jt_mode {
    /* A String, value or key, whose bytes are neither ASCII nor valid UTF-8. */
    bool (*string)(struct jt_gen *g, VALUE str);
    /* A Hash or an Array before anything of it is written: the mode may
     * replace it (*container: its as_json, only:'s subset); false when the
     * mode wrote it (or what replaced it) itself. */
    bool (*container)(struct jt_gen *g, VALUE *container, bool hash);
    /* A Hash's pairs, between its braces. */
    bool (*pairs)(struct jt_gen *g, VALUE hash);
    /* A Hash whose keys mix Strings and Symbols (the json gem's duplicate-key
     * rule): true when the mode applies its own. */
    bool (*mixed_keys)(struct jt_gen *g, VALUE hash);
    /* A container past max_nesting: true when the walk goes on (the mode
     * keeps the error for later: jt_gen.deferred_error). */
    bool (*too_deep)(struct jt_gen *g, long depth);
    /* Integers, Fixnum and Bignum: written by the mode when set. */
    void (*integer)(struct jt_gen *g, VALUE obj);
    /* A Float, before the json gem's own rules (NaN, Infinity). */
    bool (*float_)(struct jt_gen *g, VALUE obj);
    /* An object the walk has no encoding of: anything but nil, booleans,
     * Integers, Floats, Symbols and plain Strings, Hashes and Arrays
     * (Structs included). false: the json gem's rules (strict mode's
     * as_json, to_json). as_json_called: strict mode's as_json has had its
     * say on this value. */
    bool (*object)(struct jt_gen *g, VALUE obj, bool as_json_called);
    /* The walk is over, before a kept error is raised. */
    void (*finish)(struct jt_gen *g);
    /* Symbols are written as their names, whatever their to_json. */
    bool symbols_as_names;
} jt_mode;

#endif
