#ifndef JETSON_RAILS_WALK_H
#define JETSON_RAILS_WALK_H

/* Rails mode's side of the json walk (walk.c, coder.c): ActiveSupport's
 * as_json passes, its order of errors, Floats, objects and relations, and
 * the table through which the record writer below (rails/record.h) hands
 * records' values back to them; the json walk runs under Rails mode's hooks
 * (rails_mode.c) with a jt_rails_call (rails/rails_call.h) as its state,
 * which the builder's writers read too. */

#include "rails/rails_call.h"

/* walk.c: Rails mode's side of the walk */
void jt_rails_string(jt_gen *g, VALUE str);
void jt_rails_check_duplicate_keys(jt_gen *g, VALUE hash);
void jt_rails_hash_pairs(jt_gen *g, VALUE hash);
bool jt_rails_container_prologue(jt_gen *g, VALUE *container, enum jt_rails_kind kind);
void jt_rails_float(jt_gen *g, VALUE obj);
void jt_rails_object(jt_gen *g, VALUE obj);
VALUE jt_rails_call_as_json(jt_gen *g, VALUE obj);
/* Walks value in the given pass (see as_json_options), then returns to the
 * current one. */
void jt_rails_gen_in_pass(jt_gen *g, VALUE value, VALUE options);
void jt_rails_end_pass(jt_gen *g);
/* A relation written as Relation#as_json writes it: its records. */
bool jt_rails_relation(jt_gen *g, VALUE relation);
/* How Rails mode writes records' values: in the as_json pass. */
extern const jt_record_mode jt_rails_records;

/* coder.c: JSONGemCoderEncoder's side (see there) */
bool jt_rails_coder_native(jt_gen *g, VALUE obj);
bool jt_rails_coder_float(jt_gen *g, VALUE obj);
bool jt_rails_fragment(jt_gen *g, VALUE obj, VALUE klass);

#endif
