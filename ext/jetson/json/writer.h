#ifndef JETSON_JSON_WRITER_H
#define JETSON_JSON_WRITER_H

/* Jetson::Writer: a document written piece by piece into a String or an
 * io, with Jetson.generate's bytes (writer.c). */

#include "bytes/base.h"

void jt_init_writer(void);

#endif
