/* SPDX-License-Identifier: GPL-2.0-only */
/* From the RSDP through the XSDT or RSDT to one checked table (pure). */

#include <shimk/acpi.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>

/* Whether [pa, pa + len) lies below 2^phys_bits, without wrapping. */
static bool reachable(const struct acpi_walk *w, uint64_t pa, uint64_t len)
{
    uint64_t limit = w->phys_bits >= 64 ? UINT64_MAX
                                        : (1ull << w->phys_bits);

    return pa < limit && len <= limit - pa;
}

static const void *map(struct acpi_walk *w, uint64_t pa, size_t len)
{
    w->maps++;
    return w->map(pa, len);
}

/*
 * A whole table, mapped after its header said how long it is; NULL
 * (with a warning naming what) when it lies beyond the physical
 * address width.  A header whose length is implausible is returned as
 * it is: acpi_table_check() reports that.
 */
static const struct acpi_header *map_table(struct acpi_walk *w, uint64_t pa,
                                           const char *what)
{
    const struct acpi_header *h;

    if ( !reachable(w, pa, sizeof(*h)) )
    {
        pr_warn("acpi: %s at %#lx is beyond the %u-bit physical address "
                "width; not mapped\n", what, (unsigned long)pa,
                w->phys_bits);
        return NULL;
    }
    h = map(w, pa, sizeof(*h));
    if ( !h || h->length < sizeof(*h) || h->length > ACPI_TABLE_MAX )
        return h;
    if ( !reachable(w, pa, h->length) )
    {
        pr_warn("acpi: %s at %#lx of %u bytes ends beyond the %u-bit "
                "physical address width; not mapped\n", what,
                (unsigned long)pa, h->length, w->phys_bits);
        return NULL;
    }
    return map(w, pa, h->length);
}

/* Look up sig in an RSDT (4-byte entries) or XSDT (8-byte entries). */
static const struct acpi_header *find_in(struct acpi_walk *w,
                                         const struct acpi_header *sdt,
                                         unsigned int entry_size,
                                         const char *sig)
{
    unsigned int n = (sdt->length - sizeof(*sdt)) / entry_size;
    const uint8_t *entries = (const uint8_t *)(sdt + 1);

    if ( n > ACPI_SDT_ENTRIES_MAX )
    {
        pr_warn("acpi: %.4s lists %u tables, more than any firmware has; "
                "reading the first %u\n", sdt->signature, n,
                ACPI_SDT_ENTRIES_MAX);
        n = ACPI_SDT_ENTRIES_MAX;
    }
    for ( unsigned int i = 0; i < n; i++ )
    {
        uint64_t pa = 0;
        const struct acpi_header *h;

        memcpy(&pa, entries + i * entry_size, entry_size);
        if ( !pa )
            continue;
        h = map_table(w, pa, "a table the root lists");
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
 * (fixed upstream after 4.17; docs/design.md#boot-quirks).  The entries
 * are still usable, because every table they point to is checked on its
 * own.
 */
static bool xsdt_entries_plausible(const struct acpi_header *h)
{
    return h && h->length >= sizeof(*h) && h->length <= 4096 &&
           (h->length - sizeof(*h)) % 8 == 0;
}

const struct acpi_header *acpi_find_table(struct acpi_walk *w,
                                          const struct acpi_rsdp *rsdp,
                                          const char *sig)
{
    const struct acpi_header *xsdt = NULL, *rsdt, *found = NULL;
    bool xsdt_ok = false;

    if ( rsdp->revision >= 2 && rsdp->xsdt_address )
    {
        xsdt = map_table(w, rsdp->xsdt_address, "the XSDT");
        xsdt_ok = xsdt && !acpi_table_check(xsdt, xsdt->length, "XSDT");
        if ( xsdt_ok )
            found = find_in(w, xsdt, 8, sig);
        else
            pr_warn("acpi: XSDT at %#lx is invalid (signature "
                    "%02x%02x%02x%02x); trying the RSDT\n",
                    (unsigned long)rsdp->xsdt_address,
                    xsdt ? (uint8_t)xsdt->signature[0] : 0,
                    xsdt ? (uint8_t)xsdt->signature[1] : 0,
                    xsdt ? (uint8_t)xsdt->signature[2] : 0,
                    xsdt ? (uint8_t)xsdt->signature[3] : 0);
    }
    if ( !found && rsdp->rsdt_address )
    {
        rsdt = map_table(w, rsdp->rsdt_address, "the RSDT");
        if ( rsdt && !acpi_table_check(rsdt, rsdt->length, "RSDT") )
            found = find_in(w, rsdt, 4, sig);
        else
            pr_warn("acpi: RSDT at %#x is invalid\n", rsdp->rsdt_address);
    }
    if ( !found && xsdt && !xsdt_ok && xsdt_entries_plausible(xsdt) )
    {
        pr_warn("acpi: no usable RSDT; reading the invalid XSDT's %u "
                "entries, checking each table (Xen 4.17 PVH dom0)\n",
                (xsdt->length - (unsigned int)sizeof(*xsdt)) / 8);
        found = find_in(w, xsdt, 8, sig);
    }
    return found;
}
