#ifndef JETSON_GENERATOR_H
#define JETSON_GENERATOR_H

#include "json/state.h"
#include "rails/rails.h"

/* Generates `obj` with `cfg`. Returns a new String, or `io` after streaming
 * into it when io is not nil. */
VALUE jt_generate(VALUE obj, const jt_config *cfg, VALUE io);

/* What ActiveSupport::JSON.encode(obj) returns with the stock encoder (its
 * as_json pass, the json gem, then its escaping), in one pass. */
VALUE jt_generate_rails(VALUE obj, const jt_rails_settings *rails);
/* The same with JSONGemCoderEncoder's conversion Proc (Qfalse for the other
 * encoders): the json gem's strict walk, with it as as_json, where that
 * encoder's Coder walks. */
VALUE jt_generate_rails_coder(VALUE obj, const jt_rails_settings *rails, VALUE coder_proc);

/* The same, for a document that is not a Ruby value (Jetson::Builder's
 * tree): `write` writes it into the prepared context, calling jt_gen_value
 * for the Ruby values in it. */
struct jt_gen;
typedef void jt_write_fn(struct jt_gen *g, VALUE data);
VALUE jt_generate_rails_with(jt_write_fn *write, VALUE data, const jt_rails_settings *rails, VALUE coder_proc);

#endif
