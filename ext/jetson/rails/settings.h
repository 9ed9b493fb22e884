#ifndef JETSON_RAILS_SETTINGS_H
#define JETSON_RAILS_SETTINGS_H

/* ActiveSupport's rules per class for a Rails-mode call (settings.c): the
 * call's settings, which classes have native encodings and whether they
 * are still ActiveSupport's (stock checks), their time and date texts. */

#include "bytes/times.h"

/* ActiveSupport's JSON settings and classes for one Rails-mode call. The
 * settings are read by the caller on every call (apps change them at run
 * time); the VALUEs are kept alive by the caller's frame. */
typedef struct jt_rails_settings {
    VALUE helper;         /* Jetson::Rails: answers stock?(klass, kind) */
    VALUE time_with_zone; /* ActiveSupport::TimeWithZone, or Qnil */
    VALUE date, datetime; /* ::Date and ::DateTime, or Qnil */
    VALUE big_decimal;    /* ::BigDecimal, or Qnil */
    VALUE active_model;   /* ActiveModel::Serializers::JSON, or Qnil */
    /* The options of a top-level as_json call (to_json(options) and render
     * json: pass some), or Qundef for none. */
    VALUE options;
    int time_precision;   /* 0-9, or -1: times are formatted by Ruby */
    bool standard_time;   /* use_standard_json_time_format */
    bool escape_html;     /* escape_html_entities_in_json, or the call's escape_html_entities: */
    /* What differs between ActiveSupport's versions and encoders (see
     * JT_RAILS_FLAG_* and Jetson::Rails::EncodingRules, which probes them): */
    bool escape_js;         /* U+2028 and U+2029 escaped (escape_js_separators_in_json) */
    bool coder;             /* JSONGemCoderEncoder: the json gem's Coder walks after as_json(options) */
    bool fragments;         /* JSONGemEncoder 8.1: a JSON::Fragment is pasted, not as_json'd */
    bool unlimited_nesting; /* JSONGemEncoder 8.0: generate(..., max_nesting: false) */
    bool frozen_options;      /* as_json gets options frozen (8.0+), the same Hash once it is */
    /* Oj's Rails encoder (Oj.optimize_rails) is the app's: its bytes, written
     * by rails/oj_mode.c, with Oj::Rails.optimize's switches for Hashes,
     * Arrays, Floats, Times and TimeWithZones (what Jetson::Rails::OjRules
     * probed). */
    bool oj, oj_hashes, oj_arrays, oj_floats, oj_times, oj_zoned_times;
} jt_rails_settings;

/* Jetson.rails_generate's flags argument (lib/jetson/rails/encoding_rules.rb). */
enum {
    JT_RAILS_FLAG_ESCAPE_JS = 1,
    JT_RAILS_FLAG_CODER = 2,
    JT_RAILS_FLAG_FRAGMENTS = 4,
    JT_RAILS_FLAG_UNLIMITED_NESTING = 8,
    JT_RAILS_FLAG_FROZEN_OPTIONS = 16,
    JT_RAILS_FLAG_OJ = 32,
    JT_RAILS_FLAG_OJ_HASHES = 64,
    JT_RAILS_FLAG_OJ_ARRAYS = 128,
    JT_RAILS_FLAG_OJ_FLOATS = 256,
    JT_RAILS_FLAG_OJ_TIMES = 512,
    JT_RAILS_FLAG_OJ_ZONED_TIMES = 1024,
};

/* What ActiveSupport's as_json does for a class, where Jetson knows it. */
enum jt_rails_kind {
    JT_RAILS_OBJECT = 0,     /* its as_json, then the result encoded again */
    JT_RAILS_TIME,           /* Time and subclasses */
    JT_RAILS_TIME_WITH_ZONE, /* ActiveSupport::TimeWithZone */
    JT_RAILS_DATE,           /* Date (not DateTime) */
    JT_RAILS_NUMERIC,        /* other Numerics: as_json's result is not encoded again */
    JT_RAILS_MODEL,          /* ActiveModel::Serializers::JSON: serializable_hash(options) */
    JT_RAILS_RELATION,       /* ActiveRecord::Relation (and association proxies): its records */
    /* Only asked through jt_rails_stock: */
    JT_RAILS_FLOAT,
    JT_RAILS_HASH,
    JT_RAILS_ARRAY,
    JT_RAILS_RECORD,  /* an ActiveRecord class whose serialization methods are Rails' own */
    JT_RAILS_DECIMAL, /* BigDecimal: as_json is to_s, ActiveSupport's "F" format */
};

enum jt_rails_kind jt_rails_kind_of(VALUE klass, const jt_rails_settings *s);

/* Whether klass still has the as_json (and the methods it relies on) that
 * ActiveSupport defines for its kind, so Jetson may write its value itself.
 * Asked once per class per call. */
bool jt_rails_stock(VALUE klass, enum jt_rails_kind kind, const jt_rails_settings *s);

/* The JSON string text of a value of a stock class (the time or date
 * formats of ActiveSupport), or 0 when Ruby has to produce it. */
size_t jt_rails_native_text(VALUE obj, enum jt_rails_kind kind, const jt_rails_settings *s,
                            char out[JT_TIME_TEXT_MAX]);

/* Settings from the Ruby arguments [escape_html, standard_time, precision,
 * classes (helper, TimeWithZone, Date, DateTime, BigDecimal), active_model] (see Jetson.rails_generate); options: Qundef. The
 * VALUEs stay alive through the caller's argv. */
void jt_rails_settings_from_args(jt_rails_settings *settings, const VALUE *args);

/* The flags above (an Integer) over the defaults from_args sets, which are
 * ActiveSupport 7.2's JSONGemEncoder (separators escaped, nothing else), and
 * under JT_RAILS_FLAG_CODER the Coder encoder's block (a Proc, else a
 * TypeError), under JT_RAILS_FLAG_OJ the Oj::Rails module (a Module, else a
 * TypeError). Returns what the generators take as coder_proc: that block or
 * module, or Qfalse. For Jetson.rails_generate and the Builder's writers alike. */
VALUE jt_rails_settings_apply_encoder(jt_rails_settings *settings, VALUE flags, VALUE coder_proc);

#endif
