#ifndef JETSON_RAILS_STOCK_MEMO_H
#define JETSON_RAILS_STOCK_MEMO_H

/* The answers about classes Rails mode keeps per Ractor (stock_memo.c):
 * asked of Ruby once, kept until a method they rest on is defined again
 * (Jetson::MethodWatch). */

#include "bytes/base.h"

/* helper.memo_answer(question, subject) -> [answer, [[klass, :method], ...]],
 * asked again only once one of those methods resolves to another definition
 * than when it was answered (see stock_memo.c). Per Ractor. */
VALUE jt_stock_memo_ask(VALUE helper, ID question, VALUE subject);

/* The same, asked of Ruby now and not kept. */
VALUE jt_stock_memo_answer_now(VALUE helper, ID question, VALUE subject);

/* Drops a kept answer (a model's plan whose attribute types were reloaded). */
void jt_stock_memo_forget(VALUE subject, ID question);

void jt_init_stock_memo(void);

#endif
