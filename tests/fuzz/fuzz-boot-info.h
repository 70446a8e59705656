/* SPDX-License-Identifier: GPL-2.0-only */
/* The promises a parsed struct boot_info keeps, whatever the loader gave. */
#ifndef FUZZ_BOOT_INFO_H
#define FUZZ_BOOT_INFO_H

#include <shimk/boot-info.h>

#include <string.h>

#include "fuzz.h"

static inline void check_boot_info(const struct boot_info *bi)
{
    PROMISE(memchr(bi->cmdline, 0, sizeof(bi->cmdline)) != NULL,
            "command line not terminated");
    PROMISE(bi->nr_mmap <= BOOT_MMAP_MAX, "%u map entries", bi->nr_mmap);
    PROMISE(bi->nr_modules <= BOOT_MODULES_MAX, "%u modules",
            bi->nr_modules);
    PROMISE(bi->nr_reserved <= BOOT_RESERVED_MAX, "%u reserved",
            bi->nr_reserved);
    PROMISE(bi->rsdp_copy_len <= sizeof(bi->rsdp_copy), "rsdp copy %u",
            bi->rsdp_copy_len);
    PROMISE(memchr(bi->loader, 0, sizeof(bi->loader)) != NULL,
            "loader name not terminated");
    /* A reserved range never wraps: the frame pool relies on it. */
    for ( unsigned int i = 0; i < bi->nr_reserved; i++ )
        PROMISE(bi->reserved[i].len &&
                bi->reserved[i].base + (bi->reserved[i].len - 1) >=
                    bi->reserved[i].base,
                "reserved range %#llx+%#llx wraps",
                (unsigned long long)bi->reserved[i].base,
                (unsigned long long)bi->reserved[i].len);
}

#endif /* FUZZ_BOOT_INFO_H */
