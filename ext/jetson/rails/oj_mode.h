#ifndef JETSON_RAILS_OJ_MODE_H
#define JETSON_RAILS_OJ_MODE_H

/* Oj's Rails-mode bytes (oj_mode.c): what Oj::Rails::Encoder writes where
 * Oj.optimize_rails made it ActiveSupport's encoder, written by the json
 * walk, with Oj itself writing the values whose bytes are its own. */

#include "json/generator.h"
#include "rails/settings.h"

/* obj (or what `write` writes, when given) with Oj's Rails-mode bytes under
 * rails (its escape_html and oj_* switches); oj_rails: the Oj::Rails module. */
VALUE jt_generate_oj(VALUE obj, const jt_rails_settings *rails, VALUE oj_rails, jt_write_fn *write);

#endif
