#ifndef JETSON_RAILS_DIAGNOSTICS_H
#define JETSON_RAILS_DIAGNOSTICS_H

/* How much of an app's JSON took the native paths, and why the rest did
 * not: per Ractor (an app's is the main one's), counted where the native
 * side decides, read by Jetson::Rails.diagnostics. A team checks with it
 * that its production processes get the speed; the tests assert on it.
 *
 * What is counted, by kind:
 *   records:  ActiveRecord records written (Rails mode) or extract!ed (the
 *             Builder) from their attribute set, against those read through
 *             their Ruby methods;
 *   values:   the attribute values of those records, taken from the set or
 *             cast natively, against those read through their reader;
 *   partials: Jbuilder partials (and collection elements) run by Jetson,
 *             against those rendered through ActionView's Template#render;
 *   calls:    Rails-mode encodes written natively, against those handed to
 *             another encoder.
 * Each fallback also names its reason and subject (a class, and an
 * attribute or partial where one is concerned). Counting a native item is
 * an addition on a pointer kept per call; reasons are written only on the
 * paths that fall back, which cost far more themselves. */

#include "bytes/base.h"

enum jt_diag_kind { JT_DIAG_RECORDS, JT_DIAG_VALUES, JT_DIAG_PARTIALS, JT_DIAG_CALLS, JT_DIAG_KINDS };

/* Why something went through Ruby (see diagnostics.c for each one's text). */
enum jt_diag_reason {
    JT_WHY_NONE,
    /* records */
    JT_WHY_NO_PLAN,            /* the model has no plan: RecordPlan.why_not says why */
    JT_WHY_ATTRIBUTE_SET,      /* ActiveModel's attribute set methods are not the stock ones */
    JT_WHY_NOT_LOADED,         /* not a LazyAttributeSet: a new record, or one built in Ruby */
    JT_WHY_RAW_VALUES,         /* the row's raw values are neither a Hash nor a stock IndexedRow */
    JT_WHY_TYPES,              /* the record's attribute types are not a plan's */
    JT_WHY_TOO_MANY,           /* more attributes than JT_ATTRIBUTE_NAMES_MAX */
    JT_WHY_ATTRIBUTE_CLASS,    /* an Attribute class whose value or initialized? is not ActiveModel's */
    JT_WHY_LAYOUT,             /* an attribute name or default Jetson cannot read */
    JT_WHY_SERIALIZATION,      /* serializable_hash or what it builds on is the model's own */
    JT_WHY_ROOT,               /* include_root_in_json */
    JT_WHY_NAME_CLASH,         /* methods:/include: named like an attribute */
    JT_WHY_STI,                /* single-table inheritance without a plan */
    JT_WHY_AS_JSON,            /* under Oj's encoder: the model's own as_json, which Oj calls */
    JT_WHY_OJ_OPTIMIZED,       /* under Oj's encoder: Oj::Rails.optimize names the class, Oj writes it */
    /* values */
    JT_WHY_READER,             /* the attribute's reader is not ActiveRecord's */
    JT_WHY_PRIMARY_KEY,        /* id is not the primary key's reader the plan has */
    JT_WHY_CAST,               /* the attribute's type has no native cast */
    JT_WHY_UNCAST,             /* an Attribute built and not cast yet */
    JT_WHY_DEFAULT,            /* no database value: a declared attribute's default */
    JT_WHY_CHANGED,            /* Ruby replaced the record's attribute set meanwhile */
    JT_WHY_PRIVATE,            /* extract! of a private reader (public_send raises) */
    /* partials */
    JT_WHY_LISTENER,           /* something listens to ActionView's render events */
    JT_WHY_STRICT_LOCALS,      /* a partial with strict locals */
    JT_WHY_HANDLER,            /* a partial of another template handler */
    JT_WHY_VIEW,               /* the view class's _run or render path is the app's own */
    JT_WHY_CACHE_MISS,         /* a cached collection's misses, rendered one by one for their texts */
    /* calls */
    JT_WHY_CODER_BLOCK,        /* JSON::Coder's block not found: the Coder encoder writes */
    JT_WHY_REASONS
};

#define JT_DIAG_FALLBACKS 128 /* distinct (kind, reason, subject, detail); past it, counted as dropped */

typedef struct jt_diag_fallback_entry {
    VALUE subject, detail;
    size_t count;
    unsigned char kind, reason;
} jt_diag_fallback_entry;

typedef struct jt_diagnostics {
    size_t native[JT_DIAG_KINDS], ruby[JT_DIAG_KINDS];
    jt_diag_fallback_entry fallbacks[JT_DIAG_FALLBACKS];
    int fallback_count;
    size_t dropped; /* fallbacks counted without a table entry */
} jt_diagnostics;

/* This Ractor's counts (made on first use). */
jt_diagnostics *jt_diagnostics_current(void);

/* n items of kind took the native path. */
JT_INLINE void jt_diag_native(jt_diagnostics *d, enum jt_diag_kind kind, size_t n)
{
    d->native[kind] += n;
}

/* n items of kind went through Ruby for reason; subject: the class (or
 * Qnil), detail: an attribute or partial name (a String), or Qnil. */
void jt_diag_fallback(jt_diagnostics *d, enum jt_diag_kind kind, enum jt_diag_reason reason, VALUE subject,
                      VALUE detail, size_t n);

void jt_init_diagnostics(void);

#endif
