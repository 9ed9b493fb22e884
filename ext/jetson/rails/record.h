#ifndef JETSON_RAILS_RECORD_H
#define JETSON_RAILS_RECORD_H

/* ActiveRecord records written as ActiveModel's as_json makes them
 * (serializable_hash(options), then as_json over the Hash), without the
 * Hash (record.c): the writer both Rails mode and Oj mode use, each
 * writing the Hash's values through its jt_record_mode. */

#include "rails/rails_call.h"

/* What became of a record handed to the writer. */
enum jt_record_outcome {
    JT_RECORD_WRITTEN, /* serializable_hash(options), written natively */
    JT_RECORD_ROOT,    /* as_json wraps it in a root key: Ruby writes it */
    JT_RECORD_IN_RUBY  /* Ruby builds serializable_hash: the model's own, or one the writer refused */
};
/* A record whose as_json is ActiveModel's, as that as_json(options) makes
 * it: serializable_hash(options) written natively where its serialization
 * methods are ActiveRecord's (the profile's record_stock) and the writer
 * takes it; else nothing is written, and the record is counted in the
 * diagnostics with the reason. options: a Hash or Qnil. */
enum jt_record_outcome jt_record_serialize(jt_gen *g, VALUE record, struct jt_rails_profile *p, VALUE options);
/* ActiveModel's as_json with the options where the walk stands (the call's
 * as_json_options): the Hash written natively, or built by the model's own
 * serializable_hash and handed to the mode; false, with nothing written,
 * under a root key (Ruby writes it). */
bool jt_record_model(jt_gen *g, VALUE model, struct jt_rails_profile *p);

/* A JSON array of list's elements (an Array), each written by write(g,
 * element, arg). Ruby code may run between elements: the length is read
 * again each time. */
void jt_rails_write_list(jt_gen *g, VALUE list, void (*write)(jt_gen *g, VALUE element, VALUE arg), VALUE arg);


#endif
