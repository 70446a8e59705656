/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz kernel/task/run-list.c: every accepted name is one run= may print. */

#include <shimk/run-list.h>

#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *list = malloc(size + 1), name[RUN_NAME_MAX + 1];
    enum run_name_status st;
    size_t pos = 0, last = 0;
    unsigned int n = 0;

    memcpy(list, data, size);
    list[size] = '\0';
    while ( run_list_next(list, &pos, name, &st) )
    {
        PROMISE(pos > last || !list[last], "no progress");
        last = pos;
        PROMISE(++n <= size + 1, "%u names from %zu bytes", n, size);
        if ( st != RUN_NAME_OK )
            continue;
        PROMISE(name[0] && name[0] != '.', "name '%s'", name);
        for ( size_t i = 0; name[i]; i++ )
            PROMISE(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                           "VWXYZ0123456789._-", name[i]),
                    "byte %#x in a name", (unsigned char)name[i]);
    }
    free(list);
    return 0;
}
