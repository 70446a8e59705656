/* SPDX-License-Identifier: GPL-2.0-only */
/* Find the RSDP, then the MADT through acpi-walk.c, with real mappings. */

#include <shimk/acpi.h>
#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <asm/cpufeature.h>
#include <asm/page.h>
#include <asm/paging.h>

/* ACPI 6.5, 5.2.5.1: the EBDA's first KiB, then 0xe0000-0xfffff. */
static const struct acpi_rsdp *scan_bios_areas(void)
{
    uint16_t ebda_seg = *(const uint16_t *)phys_to_virt(0x40e);
    const struct
    {
        paddr_t base, len;
    } areas[] = {
        { (paddr_t)ebda_seg << 4, 1024 },
        { 0xe0000, 0x20000 },
    };

    for ( unsigned int a = 0; a < ARRAY_SIZE(areas); a++ )
    {
        if ( !areas[a].base || areas[a].base + areas[a].len > 0x100000 )
            continue;
        for ( paddr_t pa = areas[a].base; pa < areas[a].base + areas[a].len;
              pa += 16 )
        {
            const struct acpi_rsdp *r = phys_to_virt(pa);

            if ( !acpi_rsdp_check(r, areas[a].base + areas[a].len - pa) )
                return r;
        }
    }
    return NULL;
}

static const struct acpi_rsdp *find_rsdp(void)
{
    const struct acpi_rsdp *r;

    if ( boot_info.rsdp_copy_len )
    {
        r = (const struct acpi_rsdp *)boot_info.rsdp_copy;
        if ( !acpi_rsdp_check(r, boot_info.rsdp_copy_len) )
            return r;
        pr_warn("acpi: the boot loader's RSDP copy is invalid\n");
    }
    if ( boot_info.rsdp_pa && boot_cpu.phys_bits < 64 &&
         boot_info.rsdp_pa >= (1ull << boot_cpu.phys_bits) - sizeof(*r) )
        pr_warn("acpi: the boot loader's RSDP address %#lx is beyond the "
                "%u-bit physical address width; not mapped\n",
                (unsigned long)boot_info.rsdp_pa, boot_cpu.phys_bits);
    else if ( boot_info.rsdp_pa )
    {
        r = ioremap_ro(boot_info.rsdp_pa, sizeof(*r));
        if ( r && !acpi_rsdp_check(r, sizeof(*r)) )
            return r;
        pr_warn("acpi: no valid RSDP at %#lx from the boot loader\n",
                (unsigned long)boot_info.rsdp_pa);
    }
    return scan_bios_areas();
}

int acpi_find_madt(struct madt_info *out)
{
    const struct acpi_rsdp *rsdp = find_rsdp();
    struct acpi_walk w = { .map = ioremap_ro,
                           .phys_bits = boot_cpu.phys_bits };
    const struct acpi_header *madt;
    int rc;

    if ( !rsdp )
    {
        pr_warn("acpi: no RSDP found; running on the boot CPU only\n");
        return -ENOENT;
    }
    madt = acpi_find_table(&w, rsdp, "APIC");
    if ( !madt )
    {
        pr_warn("acpi: no valid MADT; running on the boot CPU only\n");
        return -ENOENT;
    }

    rc = madt_parse((const struct acpi_madt *)madt, out);
    if ( rc )
    {
        pr_warn("acpi: MADT unusable (%s); running on the boot CPU only\n",
                errno_name(rc));
        return rc;
    }
    if ( out->nr_skipped )
        pr_warn("acpi: %u CPUs beyond the first %u ignored\n",
                out->nr_skipped, MADT_CPUS_MAX);
    return 0;
}
