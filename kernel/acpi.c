/* SPDX-License-Identifier: GPL-2.0-only */
/* Find the MADT through the RSDP and the XSDT or RSDT. */

#include <shimk/acpi.h>
#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <asm/page.h>
#include <asm/paging.h>

/* A whole table, mapped after its header said how long it is. */
static const struct acpi_header *map_table(paddr_t pa)
{
    const struct acpi_header *h = ioremap_ro(pa, sizeof(*h));

    if ( !h || h->length < sizeof(*h) || h->length > (1u << 20) )
        return h;   /* acpi_table_check() reports what is wrong */
    return ioremap_ro(pa, h->length);
}

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
    if ( boot_info.rsdp_pa )
    {
        r = ioremap_ro(boot_info.rsdp_pa, sizeof(*r));
        if ( r && !acpi_rsdp_check(r, sizeof(*r)) )
            return r;
        pr_warn("acpi: no valid RSDP at %#lx from the boot loader\n",
                (unsigned long)boot_info.rsdp_pa);
    }
    return scan_bios_areas();
}

/* Look up sig in an RSDT (4-byte entries) or XSDT (8-byte entries). */
static const struct acpi_header *find_in(const struct acpi_header *sdt,
                                         unsigned int entry_size,
                                         const char *sig)
{
    unsigned int n = (sdt->length - sizeof(*sdt)) / entry_size;
    const uint8_t *entries = (const uint8_t *)(sdt + 1);

    for ( unsigned int i = 0; i < n; i++ )
    {
        uint64_t pa = 0;
        const struct acpi_header *h;

        memcpy(&pa, entries + i * entry_size, entry_size);
        if ( !pa )
            continue;
        h = map_table(pa);
        if ( !h || memcmp(h->signature, sig, 4) )
            continue;
        if ( acpi_table_check(h, h->length, sig) )
        {
            pr_warn("acpi: %.4s at %#lx fails its checksum or length\n", sig,
                    (unsigned long)pa);
            continue;
        }
        return h;
    }
    return NULL;
}

/*
 * Xen 4.17 builds a PVH dom0's XSDT with a garbage header (its bytes
 * come from the real-mode IVT) but valid entries, and gives no RSDT
 * (fixed upstream after 4.17; DESIGN.md section 8).  The entries are
 * still usable, because every table they point to is checked on its own.
 */
static bool xsdt_entries_plausible(const struct acpi_header *h)
{
    return h && h->length >= sizeof(*h) && h->length <= 4096 &&
           (h->length - sizeof(*h)) % 8 == 0;
}

int acpi_find_madt(struct madt_info *out)
{
    const struct acpi_rsdp *rsdp = find_rsdp();
    const struct acpi_header *xsdt = NULL, *rsdt, *madt = NULL;
    bool xsdt_ok = false;
    int rc;

    if ( !rsdp )
    {
        pr_warn("acpi: no RSDP found; running on the boot CPU only\n");
        return -ENOENT;
    }

    if ( rsdp->revision >= 2 && rsdp->xsdt_address )
    {
        xsdt = map_table(rsdp->xsdt_address);
        xsdt_ok = xsdt && !acpi_table_check(xsdt, xsdt->length, "XSDT");
        if ( xsdt_ok )
            madt = find_in(xsdt, 8, "APIC");
        else
            pr_warn("acpi: XSDT at %#lx is invalid (signature "
                    "%02x%02x%02x%02x); trying the RSDT\n",
                    (unsigned long)rsdp->xsdt_address,
                    xsdt ? (uint8_t)xsdt->signature[0] : 0,
                    xsdt ? (uint8_t)xsdt->signature[1] : 0,
                    xsdt ? (uint8_t)xsdt->signature[2] : 0,
                    xsdt ? (uint8_t)xsdt->signature[3] : 0);
    }
    if ( !madt && rsdp->rsdt_address )
    {
        rsdt = map_table(rsdp->rsdt_address);
        if ( rsdt && !acpi_table_check(rsdt, rsdt->length, "RSDT") )
            madt = find_in(rsdt, 4, "APIC");
        else
            pr_warn("acpi: RSDT at %#x is invalid\n", rsdp->rsdt_address);
    }
    if ( !madt && xsdt && !xsdt_ok && xsdt_entries_plausible(xsdt) )
    {
        pr_warn("acpi: no usable RSDT; reading the invalid XSDT's %u "
                "entries, checking each table (Xen 4.17 PVH dom0)\n",
                (xsdt->length - (unsigned int)sizeof(*xsdt)) / 8);
        madt = find_in(xsdt, 8, "APIC");
    }
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
