/* SPDX-License-Identifier: GPL-2.0-only */
/* ACPI: RSDP, RSDT/XSDT and MADT parsing (pure parts unit-tested). */
#ifndef SHIMK_ACPI_H
#define SHIMK_ACPI_H

#include <shimk/compiler.h>
#include <shimk/types.h>

/* ACPI 6.5, 5.2.5.3: Root System Description Pointer. */
struct acpi_rsdp
{
    char signature[8];          /* "RSD PTR " */
    uint8_t checksum;           /* first 20 bytes */
    char oem_id[6];
    uint8_t revision;           /* 0: ACPI 1.0; 2: 2.0+ */
    uint32_t rsdt_address;
    uint32_t length;            /* revision >= 2 from here */
    uint64_t xsdt_address;
    uint8_t extended_checksum;  /* all 36 bytes */
    uint8_t reserved[3];
} __packed;

/* ACPI 6.5, 5.2.6: the header every system description table starts with. */
struct acpi_header
{
    char signature[4];
    uint32_t length;
    uint8_t revision;
    uint8_t checksum;
    char oem_id[6];
    char oem_table_id[8];
    uint32_t oem_revision;
    uint32_t creator_id;
    uint32_t creator_revision;
} __packed;

/* ACPI 6.5, 5.2.12: MADT, then its variable interrupt controller entries. */
struct acpi_madt
{
    struct acpi_header header;
    uint32_t lapic_address;
    uint32_t flags;
} __packed;

#define MADT_LAPIC          0
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC         9

#define MADT_CPU_ENABLED        (1u << 0)
#define MADT_CPU_ONLINE_CAPABLE (1u << 1)

#define MADT_CPUS_MAX 1024

struct madt_cpu
{
    uint32_t apic_id;
    uint32_t acpi_uid;
    bool enabled;           /* usable now */
    bool online_capable;    /* may be enabled later: not started */
};

struct madt_info
{
    uint64_t lapic_address;
    unsigned int nr_cpus;
    struct madt_cpu cpus[MADT_CPUS_MAX];
    unsigned int nr_skipped;    /* entries beyond MADT_CPUS_MAX */
};

/* Sum of len bytes is 0 mod 256. */
bool acpi_checksum_ok(const void *p, size_t len);

/*
 * Validate an RSDP: signature, the 20-byte checksum, and for revision
 * 2+ the length and extended checksum.  Returns 0 or -EINVAL.
 */
int acpi_rsdp_check(const struct acpi_rsdp *rsdp, size_t avail);

/*
 * Validate a table of avail readable bytes: the header fits, length is
 * plausible and within avail, the checksum holds and, if sig is not
 * NULL, the signature matches.  Returns 0, -EINVAL or -E2BIG (the
 * table is longer than avail: map more and retry).
 */
int acpi_table_check(const struct acpi_header *h, size_t avail,
                     const char *sig);

/*
 * Parse a checked MADT into out: CPUs from local APIC and local x2APIC
 * entries, the local APIC address (with any override).  Malformed
 * entries (length 0, or past the table's end) stop the walk with
 * -EINVAL after printing where.
 */
int madt_parse(const struct acpi_madt *madt, struct madt_info *out);

/*
 * The walk from the RSDP to one table (kernel/boot/acpi-walk.c, pure): the
 * XSDT, else the RSDT, else the entries of an XSDT whose header is
 * corrupt (Xen 4.17's PVH dom0).  Firmware tables are input like any
 * other: an address beyond the CPU's physical address width is never
 * mapped, a root table lists at most ACPI_SDT_ENTRIES_MAX tables, and
 * every table found is checked before it is returned.
 */
#define ACPI_SDT_ENTRIES_MAX 128
#define ACPI_TABLE_MAX       (1u << 20)

struct acpi_walk
{
    /* Read-only mapping of len bytes at pa, or NULL (phys_map_fn). */
    const void *(*map)(paddr_t pa, size_t len);
    unsigned int phys_bits;     /* MAXPHYADDR */
    unsigned int maps;          /* out: map calls the walk made */
};

/* The checked table with signature sig, or NULL after saying why. */
const struct acpi_header *acpi_find_table(struct acpi_walk *w,
                                          const struct acpi_rsdp *rsdp,
                                          const char *sig);

/* --- kernel side (kernel/boot/acpi.c) --- */

/*
 * Find the MADT (boot info's RSDP, else the BIOS areas; XSDT, else the
 * RSDT) and parse it.  Returns 0, or a negative errno after printing a
 * warning: the caller then runs on the boot CPU alone.
 */
int acpi_find_madt(struct madt_info *out);

#endif /* SHIMK_ACPI_H */
