/* The Rails layer's handles (rails/handles.h). */

#include "rails/handles.h"

jt_rails_handles jr;

void jt_init_rails_handles(void)
{
    jr.id_as_json = rb_intern("as_json");
    jr.id_subset = rb_intern("subset");
    jr.id_serializable_hash = rb_intern("serializable_hash");
    jr.id_include_root_in_json = rb_intern("include_root_in_json");
    jr.id_attribute_names_for_serialization = rb_intern("attribute_names_for_serialization");
    jr.id_to_ary = rb_intern("to_ary");
    jr.id_to_a = rb_intern("to_a");
    jr.id_records = rb_intern("records");
    jr.id_jd = rb_intern("jd");
    jr.id_utc = rb_intern("utc");
    jr.id_utc_offset = rb_intern("utc_offset");
#define SYM(name) jr.sym_##name = ID2SYM(rb_intern(#name))
    SYM(time); SYM(time_with_zone); SYM(date); SYM(float); SYM(model); SYM(hash); SYM(array);
    SYM(only); SYM(except); SYM(root); SYM(record); SYM(methods); SYM(include); SYM(relation); SYM(decimal);
#undef SYM
}
