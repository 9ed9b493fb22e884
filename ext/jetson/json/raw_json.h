#ifndef JETSON_JSON_RAW_JSON_H
#define JETSON_JSON_RAW_JSON_H

/* Raw JSON fragments: JSON text written earlier by Jetson (a cached partial
 * or `cache!` block) that a builder pastes into its document without decoding
 * it. A cache store may hand back anything under a key, so a fragment is
 * checked once before it is used (jt_raw_json_fragment_p); after that the
 * builder only splits it into its top-level members when Jbuilder's semantics
 * need them (a key set on a cached object, two objects merged), and decodes
 * only keys and scalar members. Nothing here calls Ruby except to make the
 * resulting objects, and nothing reads outside [p, p + len). */

#include "bytes/base.h"

/* Whether str is a UTF-8 (or US-ASCII) String holding exactly one JSON object
 * or array, without whitespace before or after it. */
bool jt_raw_json_fragment_p(VALUE str);

/* Whether the container text p[0, len) (a valid fragment) has no members. */
bool jt_raw_json_empty_p(const char *p, long len);

/* Walks the top-level members of a valid fragment by offsets, so the text may
 * be re-read (RSTRING_PTR) between steps. For an array key_len is -1. */
typedef struct jt_raw_iter {
    long pos, len;
    bool object;
} jt_raw_iter;

void jt_raw_iter_init(jt_raw_iter *it, const char *p, long len);
bool jt_raw_iter_next(jt_raw_iter *it, const char *p, long *key_off, long *key_len, long *val_off,
                      long *val_len);

/* A JSON string's contents (between the quotes, escapes included) as a new
 * UTF-8 String. */
VALUE jt_raw_json_string(const char *p, long len);

/* A scalar member (string, number, true, false, null) as a Ruby value. */
VALUE jt_raw_json_scalar(const char *p, long len);

#endif
