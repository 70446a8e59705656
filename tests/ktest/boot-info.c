/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: the boot information as the kernel sees it. */

#include <shimk/boot-info.h>
#include <shimk/image.h>
#include <shimk/ktest.h>
#include <shimk/string.h>

KTEST(boot_info, protocol_known)
{
    KT_ASSERT(t, boot_info.protocol == BOOT_PVH ||
                 boot_info.protocol == BOOT_MB2);
    if ( boot_info.protocol == BOOT_MB2 )
        KT_ASSERTF(t, boot_info.loader[0], "multiboot2 without a loader name");
}

KTEST(boot_info, memory_map_sane)
{
    const struct boot_info *bi = &boot_info;
    paddr_t img_lo = (paddr_t)__image_start_phys;
    paddr_t img_hi = (paddr_t)__image_end_phys;
    bool image_in_ram = false;
    uint64_t ram = 0;

    KT_ASSERT(t, bi->nr_mmap > 0);
    for ( unsigned int i = 0; i < bi->nr_mmap; i++ )
    {
        const struct mmap_entry *e = &bi->mmap[i];

        KT_ASSERTF(t, e->len > 0, "entry %u is empty", i);
        if ( i )
            KT_ASSERTF(t, bi->mmap[i - 1].base + bi->mmap[i - 1].len <=
                              e->base,
                       "entries %u and %u overlap or are unsorted", i - 1, i);
        if ( e->type == MMAP_RAM )
        {
            ram += e->len;
            image_in_ram |= e->base <= img_lo && img_hi <= e->base + e->len;
        }
    }
    KT_ASSERTF(t, image_in_ram, "kernel image %#lx-%#lx not inside RAM",
               (unsigned long)img_lo, (unsigned long)img_hi);
    KT_ASSERTF(t, ram >= (16ull << 20), "only %lu KiB of RAM",
               (unsigned long)(ram >> 10));
}

KTEST(boot_info, acpi_rsdp_found)
{
    /* Every environment shimk boots in offers ACPI (docs/design.md). */
    KT_ASSERTF(t, boot_info.rsdp_pa || boot_info.rsdp_copy_len >= 20,
               "no RSDP from the boot loader");
    if ( boot_info.rsdp_copy_len )
        KT_ASSERT(t, !memcmp(boot_info.rsdp_copy, "RSD PTR ", 8));
}

KTEST(boot_info, cmdline_holds_ktest)
{
    /* We run because the command line said ktest=...: it must be there. */
    KT_ASSERTF(t, strstr(boot_info.cmdline, "ktest="),
               "command line '%s' has no ktest=", boot_info.cmdline);
}
