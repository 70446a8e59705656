/* SPDX-License-Identifier: GPL-2.0-only */
/* Fake physical memory behind a phys_map_fn, for the boot-info parsers. */

#include <shimk/types.h>

#include <stdlib.h>
#include <string.h>

#include "fake-phys.h"

static unsigned char *mem;
static size_t mem_size;
static unsigned int map_calls;

/* Every copy handed out, freed together at the end of a test. */
static void **copies;
static size_t nr_copies, copies_size;

void fake_phys_init(size_t size)
{
    fake_phys_fini();
    mem = calloc(1, size);
    if ( !mem )
        abort();
    mem_size = size;
}

void fake_phys_fini(void)
{
    for ( size_t i = 0; i < nr_copies; i++ )
        free(copies[i]);
    free(copies);
    copies = NULL;
    nr_copies = copies_size = 0;
    free(mem);
    mem = NULL;
    mem_size = 0;
    map_calls = 0;
}

void *fake_phys_ptr(paddr_t pa)
{
    if ( pa < FAKE_PHYS_BASE || pa - FAKE_PHYS_BASE >= mem_size )
        abort();
    return mem + (pa - FAKE_PHYS_BASE);
}

const void *fake_phys_map(paddr_t pa, size_t len)
{
    void *copy;

    map_calls++;
    /* The kernel's boot_phys_map refuses empty and wrapping ranges too. */
    if ( !len || pa + len < pa || pa < FAKE_PHYS_BASE ||
         pa - FAKE_PHYS_BASE > mem_size ||
         len > mem_size - (pa - FAKE_PHYS_BASE) )
        return NULL;

    copy = malloc(len);
    if ( !copy )
        abort();
    memcpy(copy, mem + (pa - FAKE_PHYS_BASE), len);
    if ( nr_copies == copies_size )
    {
        copies_size = copies_size ? 2 * copies_size : 64;
        copies = realloc(copies, copies_size * sizeof(*copies));
        if ( !copies )
            abort();
    }
    copies[nr_copies++] = copy;
    return copy;
}

unsigned int fake_phys_map_calls(void)
{
    return map_calls;
}
