#include <windows.h>

#include "kv/store.h"

long kv_now(void)
{
    return (long)GetTickCount64();
}
