/* The extension's entry: each layer defines its part of Jetson, from the
 * bottom up (docs/architecture.md). */

#include "bytes/base.h"
#include "bytes/buffer.h"
#include "bytes/symbol_names.h"
#include "json/json.h"
#include "rails/rails.h"
#include "builder/builder.h"

JT_EXPORT void Init_jetson(void)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    rb_ext_ractor_safe(true);
#endif
    jt_init_base();
    jt_init_symbol_names();
    jt_init_buffer();
    jt_init_json();
    jt_init_rails();
    jt_init_builder();
}
