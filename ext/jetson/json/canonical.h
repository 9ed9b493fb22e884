#ifndef JETSON_CANONICAL_H
#define JETSON_CANONICAL_H

#include "json/generator_internal.h"

/* rfc8785: true (canonical.c). */
void jt_canonical_hash(jt_gen *g, VALUE hash);
void jt_canonical_integer(jt_gen *g, VALUE obj);
void jt_canonical_double(jt_gen *g, double value);
/* jt_canonical_validate: declared in state.h, which configuring calls it from */

#endif
