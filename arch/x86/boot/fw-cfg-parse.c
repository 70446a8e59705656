/* SPDX-License-Identifier: GPL-2.0-only */
/* QEMU's fw_cfg "etc/e820" file into struct boot_info's memory map (pure). */

#include <shimk/boot-info.h>
#include <shimk/printk.h>
#include <shimk/string.h>

/* QEMU's struct e820_entry (hw/i386/e820_memory_layout.h): packed, LE. */
#define E820_ENTRY_SIZE 20

unsigned int fw_cfg_e820_parse(struct boot_info *bi, const void *blob,
                               size_t len)
{
    const uint8_t *p = blob;
    unsigned int n = 0;

    if ( len % E820_ENTRY_SIZE )
        pr_warn("fw_cfg: etc/e820 has %lu stray bytes\n",
                (unsigned long)(len % E820_ENTRY_SIZE));
    for ( size_t off = 0; off + E820_ENTRY_SIZE <= len; off += E820_ENTRY_SIZE )
    {
        struct mmap_entry *e;

        if ( bi->nr_mmap == BOOT_MMAP_MAX )
        {
            pr_warn("fw_cfg: more than %u memory map entries, ignoring the "
                    "rest\n", BOOT_MMAP_MAX);
            break;
        }
        e = &bi->mmap[bi->nr_mmap++];
        memcpy(&e->base, p + off, 8);
        memcpy(&e->len, p + off + 8, 8);
        memcpy(&e->type, p + off + 16, 4);
        n++;
    }
    return n;
}
