/* SPDX-License-Identifier: GPL-2.0-only */
/* Turn whatever the boot loader passed into the one struct boot_info. */

#include <guest/hypervisor.h>
#include <guest/xen.h>
#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <asm/cpufeature.h>
#include <asm/page.h>

struct boot_info boot_info;

/* While the boot page tables are live, the first 4 GiB are direct mapped. */
static const void *boot_phys_map(paddr_t pa, size_t len)
{
    if ( !len || pa + len < pa || pa + len > BOOT_MAP_LIMIT )
        return NULL;
    return phys_to_virt(pa);
}

void boot_info_init(uint32_t protocol, uint32_t data_pa, uint32_t magic)
{
    struct boot_info *bi = &boot_info;
    unsigned int overlaps;
    uint64_t limit, dropped;
    int rc;

    switch ( protocol )
    {
    case BOOT_PVH:
        rc = pvh_parse(bi, data_pa, boot_phys_map);
        break;
    case BOOT_MB2:
        rc = mb2_parse(bi, data_pa, boot_phys_map);
        break;
    default:
        panic("entered at the multiboot2 entry with magic %#x, not %#x: "
              "unknown boot loader", magic, MB2_BOOTLOADER_MAGIC);
    }
    if ( rc )
        panic("%s boot information at %#x is invalid: %s",
              boot_protocol_name(protocol), data_pa, errno_name(rc));

    if ( hypervisor_type() == HV_XEN && IS_ENABLED(CONFIG_GUEST_XEN) )
        xen_console_reserve(bi);

    if ( !bi->nr_mmap )
    {
        if ( hypervisor_type() != HV_XEN )
            panic("the boot loader passed no memory map");
        /* Xen's PVH dom0 start info has none (DESIGN.md section 8). */
        rc = xen_fetch_memory_map(bi);
        if ( rc )
            panic("no memory map: XENMEM_memory_map failed with %s",
                  errno_name(rc));
    }

    overlaps = mmap_sanitize(bi->mmap, &bi->nr_mmap);
    if ( overlaps )
        pr_warn("mmap: %u overlapping ranges resolved\n", overlaps);
    /*
     * RAM the direct map cannot hold, or that lies beyond what this CPU
     * can address, is a loader's mistake (or a lie): left out, never a
     * reason to panic later.
     */
    limit = MIN((uint64_t)DIRECTMAP_SIZE, 1ull << MIN(boot_cpu.phys_bits,
                                                      63u));
    dropped = mmap_clip_ram(bi->mmap, &bi->nr_mmap, limit);
    if ( dropped )
        pr_warn("mmap: %#lx bytes of RAM at or above %#lx ignored (beyond "
                "the direct map or the CPU's physical address width)\n",
                (unsigned long)dropped, (unsigned long)limit);
    if ( !bi->nr_mmap )
        panic("the memory map is empty");
    if ( bi->cmdline_truncated )
    {
        size_t len = strlen(bi->cmdline);

        /*
         * An option cut in two by the limit is dropped whole.  The byte
         * after the cut is gone, so an option ending exactly there is
         * dropped too: it might have gone on.
         */
        while ( len && !strchr(" \t\n\r", bi->cmdline[len - 1]) )
            bi->cmdline[--len] = '\0';
        pr_warn("cmdline: *: longer than %u bytes (ignored from byte %u on)\n",
                CMDLINE_MAX, CMDLINE_MAX);
    }
}

void boot_info_print(void)
{
    const struct boot_info *bi = &boot_info;

    char proto[32];

    if ( bi->protocol == BOOT_PVH )
        ksnprintf(proto, sizeof(proto), "pvh start info v%u",
                  bi->pvh_version);
    else
        ksnprintf(proto, sizeof(proto), "multiboot2 from '%s'", bi->loader);
    pr_info("boot: %s, %u memory map entries%s, %u modules\n", proto,
            bi->nr_mmap, bi->mmap_from_hypervisor ? " (from Xen)" : "",
            bi->nr_modules);
    for ( unsigned int i = 0; i < bi->nr_mmap; i++ )
        pr_debug("  mmap %016lx-%016lx type %u\n",
                 (unsigned long)bi->mmap[i].base,
                 (unsigned long)(bi->mmap[i].base + bi->mmap[i].len - 1),
                 bi->mmap[i].type);
}
