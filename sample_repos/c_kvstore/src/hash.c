#include "kv/hash.h"

static unsigned long mix(unsigned long h, unsigned char byte)
{
    return (h ^ byte) * 16777619UL;
}

unsigned long kv_hash(const char *data, size_t len)
{
    unsigned long h = 2166136261UL;
    for (size_t i = 0; i < len; i++)
        h = mix(h, (unsigned char)data[i]);
    return h;
}
