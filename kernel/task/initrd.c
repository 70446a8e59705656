/* SPDX-License-Identifier: GPL-2.0-only */
/* The initrd: which boot module holds the newc archive of programs. */

#include <shimk/boot-info.h>
#include <shimk/exec.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <asm/page.h>

static const void *initrd_data;
static size_t initrd_len;

/*
 * Only RAM is direct mapped (arch/x86/mm/mm.c), and boot information may
 * be wrong on purpose: a module is read only when the memory map says
 * all of it is RAM.
 */
static bool in_ram(paddr_t base, uint64_t size)
{
    for ( unsigned int i = 0; i < boot_info.nr_mmap; i++ )
    {
        const struct mmap_entry *e = &boot_info.mmap[i];

        if ( e->type == MMAP_RAM && base >= e->base &&
             base - e->base <= e->len && size <= e->len - (base - e->base) )
            return true;
    }
    return false;
}

/* Walk the whole archive once, so a damaged one is reported at boot. */
static void describe(void)
{
    struct cpio_entry e;
    enum cpio_status s;
    unsigned int files = 0;
    size_t pos = 0;

    while ( (s = cpio_next(initrd_data, initrd_len, &pos, &e)) == CPIO_OK )
        files++;
    if ( s == CPIO_END )
        pr_info("initrd: %u entries\n", files);
    else
        pr_warn("initrd: %s after %u entries (at byte %lu); programs "
                "after that point cannot be found\n", cpio_status_name(s),
                files, (unsigned long)pos);
}

void initrd_init(void)
{
    for ( unsigned int i = 0; i < boot_info.nr_modules; i++ )
    {
        const struct boot_module *m = &boot_info.modules[i];
        const char *p;

        if ( !m->size || !in_ram(m->base, m->size) )
        {
            pr_warn("boot: module %u (%#lx, %lu bytes) is not in RAM; "
                    "ignored\n", i, (unsigned long)m->base,
                    (unsigned long)m->size);
            continue;
        }
        p = phys_to_virt(m->base);
        if ( m->size < 6 || (memcmp(p, "070701", 6) &&
                             memcmp(p, "070702", 6)) )
        {
            pr_info("boot: module %u (%lu bytes) is not a newc cpio "
                    "archive; ignored\n", i, (unsigned long)m->size);
            continue;
        }
        if ( initrd_data )
        {
            pr_warn("boot: module %u is a second archive; only the "
                    "first (%lu bytes at %#lx) is used\n", i,
                    (unsigned long)initrd_len,
                    (unsigned long)virt_to_phys(initrd_data));
            continue;
        }
        initrd_data = p;
        initrd_len = m->size;
        pr_info("initrd: module %u, %lu bytes at %#lx\n", i,
                (unsigned long)m->size, (unsigned long)m->base);
        describe();
    }
}

bool initrd_present(void)
{
    return initrd_data != NULL;
}

enum cpio_status initrd_find(const char *name, struct cpio_entry *e)
{
    return cpio_find(initrd_data, initrd_len, name, e);
}
