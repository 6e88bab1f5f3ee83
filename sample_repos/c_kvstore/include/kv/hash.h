#ifndef KV_HASH_H
#define KV_HASH_H

#include <stddef.h>

/* FNV-1a hash of `len` bytes of `data`. */
unsigned long kv_hash(const char *data, size_t len);

#endif
