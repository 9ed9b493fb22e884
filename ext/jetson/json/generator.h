#ifndef JETSON_JSON_GENERATOR_H
#define JETSON_JSON_GENERATOR_H

/* The json gem's generator: a Ruby value (or a document written by a
 * jt_write_fn) as JSON text, under a configuration (json/state.h), with
 * or without a mode (json/mode.h). */

#include "json/state.h"

struct jt_gen;
struct jt_mode;

/* Generates `obj` with `cfg`. Returns a new String, or `io` after streaming
 * into it when io is not nil. */
VALUE jt_generate(VALUE obj, const jt_config *cfg, VALUE io);

/* Writes a document that is not a Ruby value (Jetson::Builder's tree) into
 * the prepared walk, calling jt_gen_value for the Ruby values in it. */
typedef void jt_write_fn(struct jt_gen *g, VALUE data);

/* jt_generate under a mode: its hooks write the values it rules, with
 * `state` as the walk's mode_state and escape_mode's escaping (JT_ESCAPE_*;
 * negative: the configuration's). `write`, when given, writes `obj`. */
VALUE jt_generate_mode(VALUE obj, const jt_config *cfg, VALUE io, const struct jt_mode *mode, void *state,
                       int escape_mode, jt_write_fn *write);

#endif
