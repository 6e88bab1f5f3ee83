#include <stdio.h>
#include <stdlib.h>

#include "kv/store.h"
#include "../log.h"

#define DEFAULT_CAPACITY 128

/* Print how to call the program. */
static int helper(const char *program)
{
    fprintf(stderr, "usage: %s KEY VALUE\n", program);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return helper(argv[0]);
    kv_store *store = kv_open(DEFAULT_CAPACITY);
    long value = 0;
    kv_put(store, argv[1], strtol(argv[2], NULL, 10));
    if (kv_get(store, argv[1], &value) == 0)
        log_msg("%s = %ld", argv[1], value);
    kv_close(store);
    return 0;
}
