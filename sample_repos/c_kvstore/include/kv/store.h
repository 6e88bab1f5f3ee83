/* Public interface of the key-value store. */
#ifndef KV_STORE_H
#define KV_STORE_H

#include <stddef.h>

#define KV_MAX_KEY 64
/* Fails the calling function with -1 when the condition does not hold. */
#define KV_CHECK(cond) do { if (!(cond)) return -1; } while (0)

/* One entry of the open-addressing table. */
struct kv_entry {
    char key[KV_MAX_KEY];
    long value;
    int used;
};

/* A store: a table of entries and its capacity. */
typedef struct {
    struct kv_entry *entries;
    size_t capacity;
    size_t count;
} kv_store;

/* Open a store with room for `capacity` entries. */
kv_store *kv_open(size_t capacity);

/* Insert or replace the value of `key`. */
int kv_put(kv_store *store, const char *key, long value);

/* Read the value of `key` into `out`; -1 when absent. */
int kv_get(const kv_store *store, const char *key, long *out);

/* Free the store and its table. */
void kv_close(kv_store *store);

/* Milliseconds of a monotonic clock (one implementation per platform). */
long kv_now(void);

#endif
