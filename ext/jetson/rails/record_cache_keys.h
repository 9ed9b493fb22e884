#ifndef JETSON_RAILS_RECORD_CACHE_KEYS_H
#define JETSON_RAILS_RECORD_CACHE_KEYS_H

/* Jetson::Rails::RecordCacheKeys' native half (record_cache_keys.c). */
void jt_init_record_cache_keys(void);

#endif
