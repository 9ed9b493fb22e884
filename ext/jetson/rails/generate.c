/* The Rails encoders' entry (rails/generate.h): a call runs under the mode
 * of the app's encoder, chosen here once per call, as json/call.c chooses
 * canonical JSON: Rails mode for ActiveSupport's encoders (rails_mode.c),
 * Oj mode for Oj's Rails encoder (oj_mode.c). */

#include "rails/generate.h"
#include "rails/rails_mode.h"
#include "rails/oj_mode.h"
#include "json/json_walk.h"

static VALUE generate(VALUE obj, const jt_rails_settings *rails, VALUE coder_proc, jt_write_fn *write)
{
    /* Under Oj's encoder coder_proc is Oj::Rails (jt_rails_settings_apply_encoder). */
    if (rails->oj) return jt_generate_oj(obj, rails, coder_proc, write);
    return jt_generate_as_rails(obj, rails, coder_proc, write);
}

VALUE jt_generate_rails(VALUE obj, const jt_rails_settings *rails)
{
    return generate(obj, rails, Qfalse, NULL);
}

VALUE jt_generate_rails_coder(VALUE obj, const jt_rails_settings *rails, VALUE coder_proc)
{
    return generate(obj, rails, coder_proc, NULL);
}

VALUE jt_generate_rails_with(jt_write_fn *write, VALUE data, const jt_rails_settings *rails, VALUE coder_proc)
{
    return generate(data, rails, coder_proc, write);
}

bool jt_rails_mode_p(const jt_gen *g)
{
    return g->mode == &jt_rails_mode;
}
