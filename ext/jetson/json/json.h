#ifndef JETSON_JSON_JSON_H
#define JETSON_JSON_JSON_H

/* The json layer: the json gem's generator (the walk over Ruby values,
 * State and its options, the fallback to to_json, Fragment), canonical JSON
 * (rfc8785), Jetson::Writer and the checks of raw JSON text. It builds on
 * bytes/ only; a mode above it (Rails mode) writes the values it rules
 * through the hooks json/mode.h declares, never the other way round.
 *
 * This header: the layer's Ruby API (Jetson.generate, pretty_generate,
 * State#generate and State.generate, Coder#dump, Writer), defined by
 * jt_init_json. */

#include "bytes/base.h"

void jt_init_json(void);

#endif
