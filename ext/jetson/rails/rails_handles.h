#ifndef JETSON_RAILS_HANDLES_H
#define JETSON_RAILS_HANDLES_H

/* The Rails layer's handles: the method IDs of ActiveSupport's and
 * ActiveModel's encoding and the names of serializable_hash's options and
 * of the kinds Jetson::Rails.stock? answers for. Written once by
 * Init_jetson (jt_init_rails_handles), only read afterwards. */

#include "json/json_handles.h"

typedef struct jt_rails_handles {
    /* Jetson::Rails (whose methods answer the native side's questions:
     * stock?, memo_answer...), and its RecordPlan and DbCast. */
    VALUE mRails, mRecordPlan, mDbCast;
    ID id_as_json, id_subset, id_serializable_hash, id_include_root_in_json, id_attribute_names_for_serialization,
        id_to_ary, id_to_a, id_records, id_jd, id_utc, id_utc_offset;
    VALUE sym_time, sym_time_with_zone, sym_date, sym_float, sym_model, sym_hash, sym_array, sym_only, sym_except,
        sym_root, sym_record, sym_methods, sym_include, sym_relation, sym_decimal;
} jt_rails_handles;

extern jt_rails_handles jr;

void jt_init_rails_handles(void);

#endif
