/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz kernel/task/cpio.c: every entry lies inside the archive, the walk ends. */

#include <shimk/cpio.h>

#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact copy: ASan sees any read past the archive. */
    uint8_t *a = malloc(size ? size : 1);
    struct cpio_entry e;
    size_t pos = 0, last = 0;
    unsigned int n = 0;

    memcpy(a, data, size);
    while ( cpio_next(a, size, &pos, &e) == CPIO_OK )
    {
        const uint8_t *name = (const uint8_t *)e.name;
        const uint8_t *d = e.data;

        PROMISE(name >= a && name < a + size, "name outside");
        PROMISE(d >= a && d <= a + size && e.size <= (size_t)(a + size - d),
                "data outside");
        PROMISE(pos > last, "the walk did not move");
        last = pos;
        PROMISE(++n <= size / 110 + 1, "%u entries from %zu bytes", n, size);
    }
    cpio_find(a, size, "hello", &e);
    free(a);
    return 0;
}
