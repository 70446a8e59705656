/* SPDX-License-Identifier: GPL-2.0-only */
/* QEMU's fw_cfg: what the PVH start info said, when QEMU overwrote it. */

#include <shimk/acpi.h>
#include <shimk/boot-info.h>
#include <shimk/cmdline.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <asm/io.h>
#include <asm/page.h>

/*
 * QEMU's docs/specs/fw_cfg.rst: a 16-bit selector written to port
 * 0x510, then the item's bytes read one by one from port 0x511.  Items
 * are little-endian, except the file directory's fields (big-endian).
 */
#define FW_CFG_PORT_SEL     0x510
#define FW_CFG_PORT_DATA    0x511
#define FW_CFG_SIGNATURE    0x00
#define FW_CFG_INITRD_ADDR  0x0a
#define FW_CFG_INITRD_SIZE  0x0b
#define FW_CFG_CMDLINE_SIZE 0x14
#define FW_CFG_CMDLINE_DATA 0x15
#define FW_CFG_FILE_DIR     0x19
#define FW_CFG_NAME_LEN     56
/* A directory this long is not QEMU's. */
#define FW_CFG_FILES_MAX    256

static void fw_cfg_read(uint16_t sel, void *buf, size_t len)
{
    uint8_t *b = buf;

    outw(FW_CFG_PORT_SEL, sel);
    for ( size_t i = 0; i < len; i++ )
        b[i] = inb(FW_CFG_PORT_DATA);
}

/* Read on from where the last read of the same item stopped. */
static void fw_cfg_read_more(void *buf, size_t len)
{
    uint8_t *b = buf;

    for ( size_t i = 0; i < len; i++ )
        b[i] = inb(FW_CFG_PORT_DATA);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

bool fw_cfg_present(void)
{
    char sig[4];

    fw_cfg_read(FW_CFG_SIGNATURE, sig, sizeof(sig));
    return !memcmp(sig, "QEMU", 4);
}

/* The selector and size of the file called name; false if absent. */
static bool fw_cfg_file(const char *name, uint16_t *sel, uint32_t *size)
{
    uint8_t count[4];
    uint32_t n;

    fw_cfg_read(FW_CFG_FILE_DIR, count, sizeof(count));
    n = be32(count);
    if ( n > FW_CFG_FILES_MAX )
        n = FW_CFG_FILES_MAX;
    for ( uint32_t i = 0; i < n; i++ )
    {
        uint8_t f[8 + FW_CFG_NAME_LEN];

        fw_cfg_read_more(f, sizeof(f));
        f[sizeof(f) - 1] = '\0';
        if ( !strcmp((const char *)f + 8, name) )
        {
            *size = be32(f);
            *sel = (uint16_t)(f[4] << 8 | f[5]);
            return true;
        }
    }
    return false;
}

/*
 * The RSDP where SeaBIOS puts it, as the option ROM would have found it
 * (ACPI 6.5, 5.2.5.1: 16-byte aligned in 0xe0000-0xfffff).  The boot
 * page tables map the first 4 GiB, so phys_to_virt() reaches it.
 */
static paddr_t find_rsdp(void)
{
    for ( paddr_t pa = 0xe0000; pa < 0x100000; pa += 16 )
        if ( !acpi_rsdp_check(phys_to_virt(pa), 0x100000 - pa) )
            return pa;
    return 0;
}

int fw_cfg_boot_info(struct boot_info *bi)
{
    static char line[CMDLINE_SRC_MAX];
    static uint8_t e820[BOOT_MMAP_MAX * 20];
    uint32_t len, size;
    uint16_t sel;

    memset(bi, 0, sizeof(*bi));
    bi->protocol = BOOT_PVH;

    fw_cfg_read(FW_CFG_CMDLINE_SIZE, &len, sizeof(len));
    if ( len > sizeof(line) )
        len = sizeof(line);
    fw_cfg_read(FW_CFG_CMDLINE_DATA, line, len);
    bi->cmdline_len = strnlen(line, len);
    cmdline_fit(bi->cmdline, sizeof(bi->cmdline), line, bi->cmdline_len,
                &bi->cmdline_dropped);
    bi->cmdline_truncated = bi->cmdline_dropped != 0;

    if ( !fw_cfg_file("etc/e820", &sel, &size) )
    {
        pr_err("fw_cfg: no etc/e820 file\n");
        return -1;
    }
    if ( size > sizeof(e820) )
        size = sizeof(e820);
    fw_cfg_read(sel, e820, size);
    fw_cfg_e820_parse(bi, e820, size);
    bi->rsdp_pa = find_rsdp();

    /*
     * QEMU's PVH option ROM copies the initrd to FW_CFG_INITRD_ADDR
     * after the command line (pc-bios/optionrom/pvh_main.c), so it is
     * there even when the line overran the ROM's start info.  Module 0,
     * as the start info would have said; kernel/task/initrd.c still checks
     * that it lies in RAM and starts with a newc header.
     */
    {
        uint32_t addr = 0, isize = 0;

        fw_cfg_read(FW_CFG_INITRD_ADDR, &addr, sizeof(addr));
        if ( addr )
            fw_cfg_read(FW_CFG_INITRD_SIZE, &isize, sizeof(isize));
        if ( addr && isize )
        {
            bi->modules[0] = (struct boot_module){ .base = addr,
                                                   .size = isize };
            bi->nr_modules = 1;
        }
    }
    return 0;
}
