#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "kv/store.h"

void log_msg(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "[%ld] ", kv_now());
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
}
