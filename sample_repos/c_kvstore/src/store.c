#include <stdlib.h>
#include <string.h>

#include "kv/store.h"
#include "kv/hash.h"
#include "log.h"

static int find_slot(const kv_store *store, const char *key);

#ifdef _WIN32
static void *table_alloc(size_t n)
{
    return calloc(n, sizeof(struct kv_entry));
}
#else
static void *table_alloc(size_t n)
{
    log_msg("allocating %zu entries", n);
    return calloc(n, sizeof(struct kv_entry));
}
#endif

/* Count of the store's entries in use, for the log. */
static size_t helper(const kv_store *store)
{
    return store->count;
}

kv_store *kv_open(size_t capacity)
{
    kv_store *store = malloc(sizeof *store);
    if (store == NULL)
        return NULL;
    store->entries = table_alloc(capacity);
    store->capacity = capacity;
    store->count = 0;
    return store;
}

int kv_put(kv_store *store, const char *key, long value)
{
    KV_CHECK(strlen(key) < KV_MAX_KEY);
    int slot = find_slot(store, key);
    KV_CHECK(slot >= 0);
    if (!store->entries[slot].used)
        store->count++;
    strcpy(store->entries[slot].key, key);
    store->entries[slot].value = value;
    store->entries[slot].used = 1;
    log_msg("put %s (%zu entries)", key, helper(store));
    return 0;
}

int kv_get(const kv_store *store, const char *key, long *out)
{
    int slot = find_slot(store, key);
    if (slot < 0 || !store->entries[slot].used)
        return -1;
    *out = store->entries[slot].value;
    return 0;
}

void kv_close(kv_store *store)
{
    free(store->entries);
    free(store);
}

/* Linear probing from the key's hash to its entry or the first free one. */
static int find_slot(const kv_store *store, const char *key)
{
    size_t start = kv_hash(key, strlen(key)) % store->capacity;
    for (size_t i = 0; i < store->capacity; i++) {
        size_t at = (start + i) % store->capacity;
        if (!store->entries[at].used || strcmp(store->entries[at].key, key) == 0)
            return (int)at;
    }
    return -1;
}
