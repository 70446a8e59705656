/* SPDX-License-Identifier: GPL-2.0-only */
/* Turn whatever the boot loader passed into the one struct boot_info. */

#include <guest/hypervisor-ops.h>
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
    /*
     * QEMU's PVH option ROM copies the whole command line into a buffer
     * of 4096 bytes that sits just before its start info: a longer line
     * overwrites the start info (pc-bios/optionrom/pvh_main.c).  QEMU's
     * fw_cfg still has everything that start info would have said.
     */
    if ( rc && protocol == BOOT_PVH && !hypervisor_ops.own_start_info &&
         fw_cfg_present() )
    {
        pr_warn("pvh: the start info at %#x is not valid; under QEMU a "
                "command line over 4095 bytes overwrites it (the PVH option "
                "ROM's buffer): reading the command line, memory map and "
                "initrd from QEMU's fw_cfg instead\n", data_pa);
        rc = fw_cfg_boot_info(bi) ? -EINVAL : 0;
    }
    if ( rc )
        panic("%s boot information at %#x is invalid: %s",
              boot_protocol_name(protocol), data_pa, errno_name(rc));

    if ( hypervisor_ops.boot_info_fixup )
        hypervisor_ops.boot_info_fixup(bi);
    if ( !bi->nr_mmap )
        panic("the boot loader passed no memory map");

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
        pr_warn("cmdline: *: %lu bytes, longer than %u: %u options that did "
                "not fit were dropped, the others kept\n",
                (unsigned long)bi->cmdline_len, CMDLINE_MAX,
                bi->cmdline_dropped);
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
            bi->nr_mmap, bi->mmap_from_hypervisor ? " (from the L0)" : "",
            bi->nr_modules);
    for ( unsigned int i = 0; i < bi->nr_mmap; i++ )
        pr_debug("  mmap %016lx-%016lx type %u\n",
                 (unsigned long)bi->mmap[i].base,
                 (unsigned long)(bi->mmap[i].base + bi->mmap[i].len - 1),
                 bi->mmap[i].type);
}
