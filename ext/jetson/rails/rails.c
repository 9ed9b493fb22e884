/* The Rails layer's Ruby API (rails/rails.h). */

#include "rails/rails.h"
#include "rails/rails_handles.h"
#include "rails/generate.h"
#include "rails/attribute_set.h"
#include "rails/record_cache_keys.h"
#include "rails/stock_memo.h"
#include "rails/diagnostics.h"

/* Jetson.rails_generate(value, options, escape_html, standard_time, precision,
 * classes, active_model[, flags, coder_proc]): the engine of
 * Jetson::RailsEncoder, which reads ActiveSupport's settings on every call
 * and passes them here. options: the encoder's options Hash, or nil; classes
 * is [helper, TimeWithZone, Date, DateTime, BigDecimal] (each may be nil);
 * active_model: ActiveModel::Serializers::JSON once loaded, else nil; flags:
 * JT_RAILS_FLAG_* (what the ActiveSupport version and encoder do); coder_proc:
 * JSONGemCoderEncoder's conversion block, called where that encoder's Coder
 * would call it. */
static VALUE jetson_rails_generate(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 7, 9);
    VALUE options = argv[1];
    if (!NIL_P(options)) Check_Type(options, T_HASH);
    jt_rails_settings settings;
    jt_rails_settings_from_args(&settings, argv + 2);
    VALUE coder_proc = argc > 7 ? jt_rails_settings_apply_encoder(&settings, argv[7], argc > 8 ? argv[8] : Qnil) : Qfalse;
    settings.options = NIL_P(options) || RHASH_SIZE(options) == 0 ? Qundef : options;
    VALUE result = jt_generate_rails_coder(argv[0], &settings, coder_proc);
    jt_diag_native(jt_diagnostics_current(), JT_DIAG_CALLS, 1);
    RB_GC_GUARD(options);
    RB_GC_GUARD(coder_proc);
    return result;
}

void jt_init_rails(void)
{
    jt_init_rails_handles();
    jt_init_diagnostics();
    jt_init_attribute_set();
    jt_init_db_cast();
    jt_init_stock_memo();
    jt_init_record_cache_keys();
    rb_define_singleton_method(jt.mJetson, "rails_generate", jetson_rails_generate, -1);
}
