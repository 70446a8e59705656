/* SPDX-License-Identifier: GPL-2.0-only */
/* Parse Xen's hvm_start_info into struct boot_info (pure; unit-tested). */

#include <shimk/boot-info.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <xen/xen.h>
#include <xen/arch-x86/hvm/start_info.h>

/*
 * Layout and versions: xen/arch-x86/hvm/start_info.h.  Version 0 ends
 * at rsdp_paddr; version 1 adds the memory map.  Xen 4.17 hands a PVH
 * dom0 version 1 without a map or version 0, so a missing map is left
 * for the caller (XENMEM_memory_map) rather than treated as an error.
 */
#define START_INFO_V0_SIZE offsetof(struct hvm_start_info, memmap_paddr)

/* Generous bounds: a table this big is corruption, not a machine. */
#define MODLIST_MAX 64
#define MEMMAP_MAX  1024

/*
 * The command line at pa: found whole (its NUL within CMDLINE_SRC_MAX
 * bytes, else that much of it), then its options that fit copied.
 */
static int copy_cmdline(struct boot_info *bi, paddr_t pa, phys_map_fn map)
{
    const char *src;
    size_t n = 0;

    for ( ; n < CMDLINE_SRC_MAX; n++ )
    {
        const char *c = map(pa + n, 1);

        if ( !c )
            return -EFAULT;
        if ( *c == '\0' )
            break;
    }
    bi->cmdline_len = n;
    if ( !n )
        return 0;
    src = map(pa, n);
    if ( !src )
        return -EFAULT;
    cmdline_fit(bi->cmdline, sizeof(bi->cmdline), src, n,
                &bi->cmdline_dropped);
    bi->cmdline_truncated = bi->cmdline_dropped != 0 || n == CMDLINE_SRC_MAX;
    return 0;
}

int pvh_parse(struct boot_info *bi, paddr_t start_info_pa, phys_map_fn map)
{
    const struct hvm_start_info *si;
    uint32_t version;

    memset(bi, 0, sizeof(*bi));
    bi->protocol = BOOT_PVH;

    si = map(start_info_pa, START_INFO_V0_SIZE);
    if ( !si )
    {
        pr_err("pvh: start info at %#lx is out of reach\n",
               (unsigned long)start_info_pa);
        return -EFAULT;
    }
    if ( si->magic != XEN_HVM_START_MAGIC_VALUE )
    {
        pr_err("pvh: bad start info magic %#x (want %#x)\n", si->magic,
               XEN_HVM_START_MAGIC_VALUE);
        return -EINVAL;
    }

    version = si->version;
    bi->pvh_version = version;
    bi->pvh_flags = si->flags;
    if ( version >= 1 )
    {
        si = map(start_info_pa, sizeof(*si));
        if ( !si )
        {
            pr_err("pvh: version %u start info is truncated\n", version);
            return -EFAULT;
        }
        if ( version > 1 )
            pr_warn("pvh: start info version %u, parsing it as version 1\n",
                    version);
    }
    boot_info_reserve(bi, start_info_pa,
                      version >= 1 ? sizeof(*si) : START_INFO_V0_SIZE);

    if ( si->cmdline_paddr )
    {
        if ( copy_cmdline(bi, si->cmdline_paddr, map) )
        {
            pr_err("pvh: command line at %#lx is out of reach\n",
                   (unsigned long)si->cmdline_paddr);
            return -EFAULT;
        }
    }

    bi->rsdp_pa = si->rsdp_paddr;

    if ( si->nr_modules )
    {
        const struct hvm_modlist_entry *mods;
        uint32_t n = si->nr_modules;

        if ( n > MODLIST_MAX )
        {
            pr_err("pvh: %u modules is not plausible\n", n);
            return -EINVAL;
        }
        mods = map(si->modlist_paddr, n * sizeof(*mods));
        if ( !mods )
        {
            pr_err("pvh: module list at %#lx is out of reach\n",
                   (unsigned long)si->modlist_paddr);
            return -EFAULT;
        }
        boot_info_reserve(bi, si->modlist_paddr, n * sizeof(*mods));
        for ( uint32_t i = 0; i < n; i++ )
        {
            if ( bi->nr_modules == BOOT_MODULES_MAX )
            {
                pr_warn("pvh: more than %u modules, ignoring the rest\n",
                        BOOT_MODULES_MAX);
                break;
            }
            bi->modules[bi->nr_modules].base = mods[i].paddr;
            bi->modules[bi->nr_modules].size = mods[i].size;
            bi->nr_modules++;
            boot_info_reserve(bi, mods[i].paddr, mods[i].size);
        }
    }

    if ( version >= 1 && si->memmap_entries )
    {
        const struct hvm_memmap_table_entry *e;
        uint32_t n = si->memmap_entries;

        if ( n > MEMMAP_MAX )
        {
            pr_err("pvh: %u memory map entries is not plausible\n", n);
            return -EINVAL;
        }
        e = map(si->memmap_paddr, n * sizeof(*e));
        if ( !e )
        {
            pr_err("pvh: memory map at %#lx is out of reach\n",
                   (unsigned long)si->memmap_paddr);
            return -EFAULT;
        }
        boot_info_reserve(bi, si->memmap_paddr, n * sizeof(*e));
        for ( uint32_t i = 0; i < n; i++ )
        {
            if ( bi->nr_mmap == BOOT_MMAP_MAX )
            {
                pr_warn("pvh: more than %u memory map entries, ignoring the "
                        "rest\n", BOOT_MMAP_MAX);
                break;
            }
            bi->mmap[bi->nr_mmap].base = e[i].addr;
            bi->mmap[bi->nr_mmap].len = e[i].size;
            bi->mmap[bi->nr_mmap].type = e[i].type;
            bi->nr_mmap++;
        }
    }
    return 0;
}
