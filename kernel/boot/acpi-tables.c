/* SPDX-License-Identifier: GPL-2.0-only */
/* ACPI table validation and MADT parsing (pure; unit-tested). */

#include <shimk/acpi.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>

/* No real MADT, RSDT or XSDT comes near this; bigger is corruption. */
#define ACPI_TABLE_MAX (1u << 20)

bool acpi_checksum_ok(const void *p, size_t len)
{
    const uint8_t *b = p;
    uint8_t sum = 0;

    for ( size_t i = 0; i < len; i++ )
        sum += b[i];
    return sum == 0;
}

int acpi_rsdp_check(const struct acpi_rsdp *rsdp, size_t avail)
{
    if ( avail < 20 || memcmp(rsdp->signature, "RSD PTR ", 8) ||
         !acpi_checksum_ok(rsdp, 20) )
        return -EINVAL;
    if ( rsdp->revision < 2 )
        return 0;
    if ( avail < sizeof(*rsdp) || rsdp->length < sizeof(*rsdp) ||
         !acpi_checksum_ok(rsdp, sizeof(*rsdp)) )
        return -EINVAL;
    return 0;
}

int acpi_table_check(const struct acpi_header *h, size_t avail,
                     const char *sig)
{
    if ( avail < sizeof(*h) )
        return -EINVAL;
    if ( sig && memcmp(h->signature, sig, 4) )
        return -EINVAL;
    if ( h->length < sizeof(*h) || h->length > ACPI_TABLE_MAX )
        return -EINVAL;
    if ( h->length > avail )
        return -E2BIG;
    return acpi_checksum_ok(h, h->length) ? 0 : -EINVAL;
}

static void add_cpu(struct madt_info *out, uint32_t apic_id, uint32_t uid,
                    uint32_t flags)
{
    struct madt_cpu *c;

    /* Firmware may list a CPU both ways; the first entry stands. */
    for ( unsigned int i = 0; i < out->nr_cpus; i++ )
        if ( out->cpus[i].apic_id == apic_id )
            return;
    if ( out->nr_cpus == MADT_CPUS_MAX )
    {
        out->nr_skipped++;
        return;
    }
    c = &out->cpus[out->nr_cpus++];
    c->apic_id = apic_id;
    c->acpi_uid = uid;
    c->enabled = flags & MADT_CPU_ENABLED;
    c->online_capable = !c->enabled && (flags & MADT_CPU_ONLINE_CAPABLE);
}

int madt_parse(const struct acpi_madt *madt, struct madt_info *out)
{
    const uint8_t *base = (const uint8_t *)madt;
    uint32_t len = madt->header.length, off = sizeof(*madt);

    memset(out, 0, sizeof(*out));
    if ( len < sizeof(*madt) )
    {
        pr_err("acpi: MADT of %u bytes is shorter than its header\n", len);
        return -EINVAL;
    }
    out->lapic_address = madt->lapic_address;

    while ( off < len )
    {
        uint8_t type, elen;

        if ( len - off < 2 )
        {
            pr_err("acpi: MADT entry header at offset %u is truncated\n", off);
            return -EINVAL;
        }
        type = base[off];
        elen = base[off + 1];
        if ( elen < 2 || elen > len - off )
        {
            pr_err("acpi: MADT entry type %u at offset %u has length %u "
                   "(table ends at %u)\n", type, off, elen, len);
            return -EINVAL;
        }

        switch ( type )
        {
        case MADT_LAPIC:
            /* uid(1) apic_id(1) flags(4): 5.2.12.2 */
            if ( elen < 8 )
                goto short_entry;
            {
                uint32_t flags;

                memcpy(&flags, base + off + 4, 4);
                add_cpu(out, base[off + 3], base[off + 2], flags);
            }
            break;
        case MADT_X2APIC:
            /* reserved(2) x2apic_id(4) flags(4) uid(4): 5.2.12.12 */
            if ( elen < 16 )
                goto short_entry;
            {
                uint32_t id, flags, uid;

                memcpy(&id, base + off + 4, 4);
                memcpy(&flags, base + off + 8, 4);
                memcpy(&uid, base + off + 12, 4);
                add_cpu(out, id, uid, flags);
            }
            break;
        case MADT_LAPIC_OVERRIDE:
            /* reserved(2) address(8): 5.2.12.8 */
            if ( elen < 12 )
                goto short_entry;
            memcpy(&out->lapic_address, base + off + 4, 8);
            break;
        default:
            break;
        }
        off += elen;
        continue;

    short_entry:
        pr_err("acpi: MADT entry type %u at offset %u is too short (%u "
               "bytes)\n", type, off, elen);
        return -EINVAL;
    }
    return 0;
}
