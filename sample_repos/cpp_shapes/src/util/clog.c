#include <stdio.h>

#include "util/clog.h"

void clog_line(const char *text)
{
    fputs(text, stderr);
    fputc('\n', stderr);
}
