/* SPDX-License-Identifier: GPL-2.0-only */
/* Parse multiboot2 boot information into struct boot_info (pure; unit-tested). */

#include <shimk/boot-info.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>

/*
 * Multiboot2 specification 1.0 (GNU GRUB), section 3.6: a header
 * (total_size, reserved) followed by 8-byte aligned tags, each
 * (type, size), ending with a type 0 tag of size 8.  Nothing here is
 * trusted: every size is checked against the block before use.
 */
#define MB2_TAG_END          0
#define MB2_TAG_CMDLINE      1
#define MB2_TAG_LOADER_NAME  2
#define MB2_TAG_MODULE       3
#define MB2_TAG_BASIC_MEMINFO 4
#define MB2_TAG_MMAP         6
#define MB2_TAG_ACPI_OLD     14
#define MB2_TAG_ACPI_NEW     15

/* A boot information block bigger than this is corruption. */
#define MB2_INFO_MAX (1u << 20)

struct mb2_info_header
{
    uint32_t total_size;
    uint32_t reserved;
};

struct mb2_tag
{
    uint32_t type;
    uint32_t size;
};

struct mb2_mmap_entry
{
    uint64_t base;
    uint64_t len;
    uint32_t type;
    uint32_t reserved;
};

/* Copy a string field of len bytes; it must be NUL-terminated within. */
static int copy_tag_string(char *dst, size_t size, const char *src,
                           size_t len, const char *what)
{
    size_t n = strnlen(src, len);

    if ( n == len )
    {
        pr_err("mb2: %s is not NUL-terminated inside its tag\n", what);
        return -EINVAL;
    }
    if ( n >= size )
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    return 0;
}

static int parse_mmap(struct boot_info *bi, const uint8_t *tag, uint32_t size)
{
    uint32_t entry_size, entry_version;
    const uint8_t *p, *end = tag + size;

    if ( size < 16 )
    {
        pr_err("mb2: memory map tag of %u bytes is truncated\n", size);
        return -EINVAL;
    }
    memcpy(&entry_size, tag + 8, 4);
    memcpy(&entry_version, tag + 12, 4);
    if ( entry_size < sizeof(struct mb2_mmap_entry) || entry_size % 8 )
    {
        pr_err("mb2: memory map entry size %u is invalid\n", entry_size);
        return -EINVAL;
    }
    if ( (size - 16) % entry_size )
        pr_warn("mb2: memory map tag has %u stray bytes\n",
                (size - 16) % entry_size);

    for ( p = tag + 16; p + entry_size <= end; p += entry_size )
    {
        struct mb2_mmap_entry e;

        memcpy(&e, p, sizeof(e));
        if ( bi->nr_mmap == BOOT_MMAP_MAX )
        {
            pr_warn("mb2: more than %u memory map entries, ignoring the "
                    "rest\n", BOOT_MMAP_MAX);
            break;
        }
        bi->mmap[bi->nr_mmap].base = e.base;
        bi->mmap[bi->nr_mmap].len = e.len;
        bi->mmap[bi->nr_mmap].type = e.type;
        bi->nr_mmap++;
    }
    return 0;
}

int mb2_parse(struct boot_info *bi, paddr_t mbi_pa, phys_map_fn map)
{
    const struct mb2_info_header *hdr;
    const uint8_t *base;
    uint32_t total, off;
    bool seen_mmap = false, seen_end = false;
    uint32_t mem_upper_kb = 0;
    bool seen_meminfo = false;

    memset(bi, 0, sizeof(*bi));
    bi->protocol = BOOT_MB2;

    if ( mbi_pa & 7 )
    {
        pr_err("mb2: boot information at %#lx is not 8-byte aligned\n",
               (unsigned long)mbi_pa);
        return -EINVAL;
    }
    hdr = map(mbi_pa, sizeof(*hdr));
    if ( !hdr )
    {
        pr_err("mb2: boot information at %#lx is out of reach\n",
               (unsigned long)mbi_pa);
        return -EFAULT;
    }
    total = hdr->total_size;
    if ( total < sizeof(*hdr) + sizeof(struct mb2_tag) || total > MB2_INFO_MAX )
    {
        pr_err("mb2: boot information size %u is invalid\n", total);
        return -EINVAL;
    }
    base = map(mbi_pa, total);
    if ( !base )
    {
        pr_err("mb2: boot information (%u bytes) is out of reach\n", total);
        return -EFAULT;
    }
    boot_info_reserve(bi, mbi_pa, total);

    for ( off = sizeof(*hdr); off < total; off = ROUNDUP(off + 0u, 8u) )
    {
        struct mb2_tag tag;
        const uint8_t *t = base + off;
        int rc = 0;

        if ( total - off < sizeof(tag) )
        {
            pr_err("mb2: tag header at offset %u is truncated\n", off);
            return -EINVAL;
        }
        memcpy(&tag, t, sizeof(tag));
        if ( tag.size < sizeof(tag) )
        {
            pr_err("mb2: tag type %u at offset %u has size %u, overlapping "
                   "the next tag\n", tag.type, off, tag.size);
            return -EINVAL;
        }
        if ( tag.size > total - off )
        {
            pr_err("mb2: tag type %u at offset %u (size %u) runs past the "
                   "end (%u)\n", tag.type, off, tag.size, total);
            return -EINVAL;
        }

        switch ( tag.type )
        {
        case MB2_TAG_END:
            if ( tag.size != sizeof(tag) )
            {
                pr_err("mb2: end tag has size %u\n", tag.size);
                return -EINVAL;
            }
            seen_end = true;
            break;
        case MB2_TAG_CMDLINE:
        {
            const char *src = (const char *)t + 8;
            size_t n = strnlen(src, tag.size - 8);

            if ( n == tag.size - 8 )
            {
                pr_err("mb2: command line is not NUL-terminated inside its "
                       "tag\n");
                return -EINVAL;
            }
            bi->cmdline_len = n;
            cmdline_fit(bi->cmdline, sizeof(bi->cmdline), src, n,
                        &bi->cmdline_dropped);
            bi->cmdline_truncated = bi->cmdline_dropped != 0;
            break;
        }
        case MB2_TAG_LOADER_NAME:
            rc = copy_tag_string(bi->loader, sizeof(bi->loader),
                                 (const char *)t + 8, tag.size - 8,
                                 "boot loader name");
            break;
        case MB2_TAG_MODULE:
        {
            uint32_t start, end;

            if ( tag.size < 17 )
            {
                pr_err("mb2: module tag of %u bytes is truncated\n", tag.size);
                return -EINVAL;
            }
            memcpy(&start, t + 8, 4);
            memcpy(&end, t + 12, 4);
            if ( end < start )
            {
                pr_err("mb2: module ends (%#x) before it starts (%#x)\n", end,
                       start);
                return -EINVAL;
            }
            if ( bi->nr_modules < BOOT_MODULES_MAX )
            {
                bi->modules[bi->nr_modules].base = start;
                bi->modules[bi->nr_modules].size = end - start;
                bi->nr_modules++;
                boot_info_reserve(bi, start, end - start);
            }
            else
                pr_warn("mb2: more than %u modules, ignoring one\n",
                        BOOT_MODULES_MAX);
            break;
        }
        case MB2_TAG_BASIC_MEMINFO:
            if ( tag.size < 16 )
            {
                pr_err("mb2: basic meminfo tag of %u bytes is truncated\n",
                       tag.size);
                return -EINVAL;
            }
            memcpy(&mem_upper_kb, t + 12, 4);
            seen_meminfo = true;
            break;
        case MB2_TAG_MMAP:
            if ( seen_mmap )
            {
                pr_warn("mb2: second memory map tag ignored\n");
                break;
            }
            seen_mmap = true;
            rc = parse_mmap(bi, t, tag.size);
            break;
        case MB2_TAG_ACPI_OLD:
        case MB2_TAG_ACPI_NEW:
        {
            uint32_t len = tag.size - 8;

            /* Prefer the ACPI 2.0+ RSDP (with the XSDT) if both come. */
            if ( bi->rsdp_copy_len && tag.type == MB2_TAG_ACPI_OLD )
                break;
            if ( len < 20 )
            {
                pr_err("mb2: ACPI RSDP tag of %u bytes is truncated\n",
                       tag.size);
                return -EINVAL;
            }
            if ( len > sizeof(bi->rsdp_copy) )
                len = sizeof(bi->rsdp_copy);
            memcpy(bi->rsdp_copy, t + 8, len);
            bi->rsdp_copy_len = len;
            break;
        }
        default:
            /* Framebuffer, EFI, APM, ...: nothing shimk uses. */
            break;
        }
        if ( rc )
            return rc;
        if ( seen_end )
            break;
        off += tag.size;
    }

    if ( !seen_end )
    {
        pr_err("mb2: no end tag within %u bytes\n", total);
        return -EINVAL;
    }

    /* Without a map, basic meminfo still says where RAM is. */
    if ( !seen_mmap && seen_meminfo )
    {
        pr_warn("mb2: no memory map tag; using basic meminfo (%u KiB upper)\n",
                mem_upper_kb);
        bi->mmap[0] = (struct mmap_entry){ 0, 640 * 1024, MMAP_RAM };
        bi->mmap[1] = (struct mmap_entry){ 1 << 20,
                                           (uint64_t)mem_upper_kb * 1024,
                                           MMAP_RAM };
        bi->nr_mmap = 2;
    }
    return 0;
}
