/* SPDX-License-Identifier: GPL-2.0-only */
/* What the boot loader told us, in one shape for every protocol. */
#ifndef SHIMK_BOOT_INFO_H
#define SHIMK_BOOT_INFO_H

#include <shimk/cmdline.h>
#include <shimk/types.h>

#define BOOT_MMAP_MAX     128
#define BOOT_MODULES_MAX  8
#define BOOT_RESERVED_MAX 16
/* How far a PVH command line is read for its NUL (loader memory). */
#define CMDLINE_SRC_MAX   65536

enum boot_protocol
{
    BOOT_UNKNOWN,
    BOOT_PVH,   /* XEN_ELFNOTE_PHYS32_ENTRY: QEMU -kernel, Xen PVH */
    BOOT_MB2,   /* multiboot2: GRUB2 */
};

/* E820 numbering, which PVH and multiboot2 both use. */
enum mmap_type
{
    MMAP_RAM      = 1,
    MMAP_RESERVED = 2,
    MMAP_ACPI     = 3,
    MMAP_NVS      = 4,
    MMAP_UNUSABLE = 5,
};

struct mmap_entry
{
    paddr_t base;
    uint64_t len;
    uint32_t type;
};

struct phys_range
{
    paddr_t base;
    uint64_t len;
};

struct boot_module
{
    paddr_t base;
    uint64_t size;
};

struct boot_info
{
    enum boot_protocol protocol;
    uint32_t pvh_version;           /* PVH start info version */
    uint32_t pvh_flags;             /* SIF_*: privileged, initial domain */
    bool mmap_from_hypervisor;      /* filled by XENMEM_memory_map */

    /*
     * The options of the loader's line that fit (cmdline_fit()): one
     * longer than what is left is dropped, and counted.
     */
    char cmdline[CMDLINE_MAX + 1];
    bool cmdline_truncated;         /* some option was dropped */
    unsigned int cmdline_dropped;   /* how many */
    size_t cmdline_len;             /* the loader's line, in bytes */

    struct mmap_entry mmap[BOOT_MMAP_MAX];
    unsigned int nr_mmap;

    /* PVH gives the RSDP's address; multiboot2 gives a copy of it. */
    paddr_t rsdp_pa;
    uint8_t rsdp_copy[36];
    unsigned int rsdp_copy_len;

    struct boot_module modules[BOOT_MODULES_MAX];
    unsigned int nr_modules;

    /* Loader data the frame allocator must not hand out. */
    struct phys_range reserved[BOOT_RESERVED_MAX];
    unsigned int nr_reserved;

    char loader[32];                /* multiboot2 boot loader name */
};

/*
 * Read-only access to physical memory during boot: returns a pointer
 * to len bytes at pa, or NULL when the range cannot be reached.  The
 * parsers never touch memory any other way, so the host unit tests
 * give them fake memory and malformed inputs.
 */
typedef const void *(*phys_map_fn)(paddr_t pa, size_t len);

#define MB2_BOOTLOADER_MAGIC 0x36d76289u

/*
 * Both parsers fill bi from scratch and return 0, or a negative errno
 * after printing what was wrong.  A missing memory map is not an error
 * here (Xen's PVH v0 has none); the caller decides what to do.
 */
int pvh_parse(struct boot_info *bi, paddr_t start_info_pa, phys_map_fn map);

/*
 * QEMU's fw_cfg "etc/e820" file (len bytes: packed 20-byte entries of
 * address, length and E820 type) into bi's memory map; returns the
 * entries taken.  Pure (arch/x86/boot/fw-cfg-parse.c).
 */
unsigned int fw_cfg_e820_parse(struct boot_info *bi, const void *blob,
                               size_t len);
int mb2_parse(struct boot_info *bi, paddr_t mbi_pa, phys_map_fn map);

/*
 * Sort the memory map, merge neighbours of one type, and resolve
 * overlaps in favour of the more restrictive type (anything beats RAM)
 * with a warning.  Drops empty entries.  Returns the number of
 * overlaps found.
 */
unsigned int mmap_sanitize(struct mmap_entry *map, unsigned int *nr);

/*
 * Drop the RAM of a sanitized map at and above limit (the direct map's
 * end, or the CPU's physical address width): nothing there can be
 * mapped or indexed.  Returns the bytes dropped.
 */
uint64_t mmap_clip_ram(struct mmap_entry *map, unsigned int *nr,
                       uint64_t limit);

/* Add a reserved range; returns -ENOSPC when the table is full. */
int boot_info_reserve(struct boot_info *bi, paddr_t base, uint64_t len);

const char *boot_protocol_name(enum boot_protocol p);

/* --- kernel side (arch/x86/boot/boot-info.c, fw-cfg.c) --- */

/* Whether QEMU's fw_cfg device answers (its "QEMU" signature). */
bool fw_cfg_present(void);

/*
 * Fill bi from QEMU's fw_cfg alone: the command line (every option
 * that fits), the memory map and the initrd as module 0.  No RSDP
 * address (the BIOS areas are scanned).  0, or -1 after saying what was missing.
 */
int fw_cfg_boot_info(struct boot_info *bi);

extern struct boot_info boot_info;

/*
 * Parse the loader's data (protocol and address from the entry code),
 * fetch the memory map from Xen if the loader gave none, and sanitize
 * it.  Panics, saying why, when no usable information is left.
 */
void boot_info_init(uint32_t protocol, uint32_t data_pa, uint32_t magic);
void boot_info_print(void);

#endif /* SHIMK_BOOT_INFO_H */
