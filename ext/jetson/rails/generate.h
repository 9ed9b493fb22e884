#ifndef JETSON_RAILS_GENERATE_H
#define JETSON_RAILS_GENERATE_H

/* The Rails encoders' entry (generate.c): what ActiveSupport::JSON.encode
 * writes with the app's encoder, in one pass of the json walk under the
 * mode of that encoder: Rails mode for ActiveSupport's (its as_json pass,
 * the json gem, then its escaping; rails/rails_mode.h), Oj mode for Oj's
 * Rails encoder (rails/oj_mode.h). */

#include "json/generator.h"
#include "rails/settings.h"

VALUE jt_generate_rails(VALUE obj, const jt_rails_settings *rails);
/* The same with JSONGemCoderEncoder's conversion Proc (Qfalse for the other
 * encoders): the json gem's strict walk, with it as as_json, where that
 * encoder's Coder walks. */
VALUE jt_generate_rails_coder(VALUE obj, const jt_rails_settings *rails, VALUE coder_proc);
/* The same, for a document that is not a Ruby value (Jetson::Builder's
 * tree): `write` writes it into the prepared walk. */
VALUE jt_generate_rails_with(jt_write_fn *write, VALUE data, const jt_rails_settings *rails, VALUE coder_proc);

/* Whether the walk runs under Rails mode (rails_mode.c), with a
 * jt_rails_call as its state (not Oj mode, which the same entries may run). */
bool jt_rails_mode_p(const struct jt_gen *g);

#endif
