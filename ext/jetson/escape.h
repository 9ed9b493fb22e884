#ifndef JETSON_ESCAPE_H
#define JETSON_ESCAPE_H

#include "buffer.h"

/* Which characters a JSON string must escape; the bits combine. */
enum {
    JT_ESCAPE_BASIC = 1,       /* '"', '\\' and control characters: always */
    JT_ESCAPE_SCRIPT_SAFE = 2, /* also '/', U+2028 and U+2029 */
    JT_ESCAPE_ASCII_ONLY = 4,  /* also every non-ASCII character, as \uXXXX */
};

/* Writes `src` (valid UTF-8) as a quoted JSON string. */
void jt_escape_string(jt_buffer *b, const char *src, size_t len, int mode);

#endif
