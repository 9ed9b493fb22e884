#ifndef JETSON_RAILS_RAILS_MODE_H
#define JETSON_RAILS_RAILS_MODE_H

/* Rails mode (rails_mode.c): what ActiveSupport::JSON.encode writes with
 * the app's stock encoder (its as_json pass, the json gem, then its
 * escaping), in one pass of the json walk under Rails mode's hooks. */

#include "json/generator.h"
#include "json/mode.h"
#include "rails/settings.h"

/* obj (or what `write` writes, when given) under rails; coder_proc:
 * JSONGemCoderEncoder's conversion Proc, or Qfalse. */
/* Rails mode's hooks (a call under them has a jt_rails_call as its state). */
extern const jt_mode jt_rails_mode;

VALUE jt_generate_as_rails(VALUE obj, const jt_rails_settings *rails, VALUE coder_proc, jt_write_fn *write);

#endif
