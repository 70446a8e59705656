/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz the ACPI walk and the MADT parser: the input is physical memory. */

#include <shimk/acpi.h>

#include <string.h>

#include "fuzz.h"
#include "fake-phys.h"
#include "printk-capture.h"

/*
 * The input is laid at FAKE_PHYS_BASE; its first 36 bytes are the
 * RSDP, with a correct checksum forced half the time so the walk goes
 * on.  Addresses in the tables reach the rest of the input, or
 * anywhere: those beyond the 36-bit width must never be mapped.
 */
#define MEM       0x40000
#define PHYS_BITS 36

static struct madt_info info;
static unsigned int maps_beyond;

static const void *map(paddr_t pa, size_t len)
{
    if ( pa >= (1ull << PHYS_BITS) || len > (1ull << PHYS_BITS) - pa )
        maps_beyond++;
    return fake_phys_map(pa, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct acpi_walk w = { .map = map, .phys_bits = PHYS_BITS };
    struct acpi_rsdp rsdp;
    const struct acpi_header *h;

    if ( size < sizeof(rsdp) )
        return 0;
    memcpy(&rsdp, data, sizeof(rsdp));
    fake_phys_init(MEM);
    memcpy(fake_phys_ptr(FAKE_PHYS_BASE), data + sizeof(rsdp),
           size - sizeof(rsdp) < MEM ? size - sizeof(rsdp) : MEM);
    capture_reset();
    maps_beyond = 0;
    acpi_rsdp_check(&rsdp, sizeof(rsdp));
    h = acpi_find_table(&w, &rsdp, "APIC");
    PROMISE(!maps_beyond, "%u mappings beyond MAXPHYADDR", maps_beyond);
    /* Two per table header, at most the root's entries, three roots. */
    PROMISE(w.maps <= 6 + 2 * 2 * ACPI_SDT_ENTRIES_MAX, "%u mappings",
            w.maps);
    if ( h )
    {
        PROMISE(!acpi_table_check(h, h->length, "APIC"),
                "an unchecked table returned");
        if ( madt_parse((const struct acpi_madt *)h, &info) == 0 )
            PROMISE(info.nr_cpus <= MADT_CPUS_MAX, "%u CPUs", info.nr_cpus);
    }
    fake_phys_fini();
    return 0;
}
