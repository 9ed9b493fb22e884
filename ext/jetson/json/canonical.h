#ifndef JETSON_JSON_CANONICAL_H
#define JETSON_JSON_CANONICAL_H

/* rfc8785: true (canonical.c): the JSON Canonicalization Scheme as json
 * 3.1 writes it, a mode of the json walk (json/mode.h) that writes
 * numbers as ECMAScript prints them and objects' keys in UTF-16 order.
 * jt_canonical_validate is declared in json/state.h, which configuring
 * calls it from. */

#include "json/json_walk.h"

extern const jt_mode jt_canonical_mode;

#endif
