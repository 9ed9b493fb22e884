#ifndef JETSON_GENERATOR_H
#define JETSON_GENERATOR_H

#include "state.h"

/* Generates `obj` with `cfg`. Returns a new String, or `io` after streaming
 * into it when io is not nil. */
VALUE jt_generate(VALUE obj, const jt_config *cfg, VALUE io);

#endif
