/* The Rails layer's handles (rails/rails_handles.h). */

#include "rails/rails_handles.h"

jt_rails_handles jr;

void jt_init_rails_handles(void)
{
    jr.mRails = rb_define_module_under(jt.mJetson, "Rails");
    jr.mRecordPlan = rb_define_module_under(jr.mRails, "RecordPlan");
    jr.mDbCast = rb_define_module_under(jr.mRails, "DbCast");
    /* Pinned: GC compaction must not move what these handles point to. */
    rb_gc_register_mark_object(jr.mRails);
    rb_gc_register_mark_object(jr.mRecordPlan);
    rb_gc_register_mark_object(jr.mDbCast);
    jt_intern_ids("as_json subset serializable_hash include_root_in_json attribute_names_for_serialization to_ary "
                "to_a records jd utc utc_offset",
        (ID *const[]){&jr.id_as_json, &jr.id_subset, &jr.id_serializable_hash, &jr.id_include_root_in_json,
            &jr.id_attribute_names_for_serialization, &jr.id_to_ary, &jr.id_to_a, &jr.id_records, &jr.id_jd,
            &jr.id_utc, &jr.id_utc_offset, NULL});
#define SYM(name) jr.sym_##name = ID2SYM(rb_intern(#name))
    SYM(time); SYM(time_with_zone); SYM(date); SYM(float); SYM(model); SYM(hash); SYM(array);
    SYM(only); SYM(except); SYM(root); SYM(record); SYM(methods); SYM(include); SYM(relation); SYM(decimal);
#undef SYM
}
