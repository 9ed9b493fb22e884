#ifndef JETSON_RAILS_RAILS_H
#define JETSON_RAILS_RAILS_H

/* The Rails layer: ActiveSupport's encoding rules and walk (settings.c,
 * walk.c, coder.c), ActiveRecord records and relations (record.c, the
 * attribute sets of attribute_set.c, the database casts of db_cast*.c and
 * json_column.c, cache keys), the answers it keeps about classes
 * (stock_memo.c) and its diagnostics. It builds on json/ and bytes/, and
 * fills json/mode.h's hooks for the values ActiveSupport rules.
 *
 * This header: the layer's Ruby API (Jetson.rails_generate, the memo's
 * Jetson::MethodWatch, Jetson::Rails::Diagnostics, record cache keys),
 * defined by jt_init_rails. */

#include "bytes/base.h"

void jt_init_rails(void);

#endif
