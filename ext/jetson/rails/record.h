#ifndef JETSON_RAILS_RECORD_H
#define JETSON_RAILS_RECORD_H

/* ActiveRecord records written as ActiveModel's as_json makes them
 * (serializable_hash(options), then as_json over the Hash), without the
 * Hash (record.c): the writer both Rails mode and Oj mode use, each
 * writing the Hash's values through its jt_record_mode. */

#include "rails/rails_call.h"

/* Whether as_json wraps the record's Hash in a root key (options' root:,
 * else the class's include_root_in_json): such records are left to Ruby,
 * and counted so. options: a Hash or Qnil. */
bool jt_record_wants_root(jt_gen *g, VALUE model, struct jt_rails_profile *p, VALUE options);
/* A record whose serialization is the app's own (not ActiveRecord's),
 * counted as serialized in Ruby. */
void jt_record_in_ruby(jt_gen *g, VALUE record);
/* serializable_hash(options) written natively for a record whose
 * serialization methods are ActiveRecord's (profile's record_stock); false,
 * with nothing written, where Ruby has to build the Hash. */
bool jt_record_write(jt_gen *g, VALUE record, VALUE options);
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
