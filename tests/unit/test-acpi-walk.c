/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/boot/acpi-walk.c: RSDP to table, with hostile roots and addresses. */

#include <shimk/acpi.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake-phys.h"
#include "printk-capture.h"

/* Fake memory: tables at fixed spots above FAKE_PHYS_BASE. */
#define MEM      (2u << 20)
#define XSDT_PA  (FAKE_PHYS_BASE + 0x1000)
#define RSDT_PA  (FAKE_PHYS_BASE + 0x2000)
#define MADT_PA  (FAKE_PHYS_BASE + 0x3000)
#define FACP_PA  (FAKE_PHYS_BASE + 0x4000)
#define BIG_PA   (FAKE_PHYS_BASE + 0x10000)
#define HDR      ((unsigned int)sizeof(struct acpi_header))

static struct acpi_rsdp rsdp;
static struct acpi_walk walk;

static int setup(void **state)
{
    fake_phys_init(MEM);
    capture_reset();
    memset(&rsdp, 0, sizeof(rsdp));
    memcpy(rsdp.signature, "RSD PTR ", 8);
    rsdp.revision = 2;
    walk = (struct acpi_walk){ .map = fake_phys_map, .phys_bits = 40 };
    return 0;
}

static int teardown(void **state)
{
    fake_phys_fini();
    return 0;
}

static void fix_checksum(struct acpi_header *h)
{
    uint8_t s = 0;

    h->checksum = 0;
    for ( uint32_t i = 0; i < h->length; i++ )
        s += ((const uint8_t *)h)[i];
    h->checksum = (uint8_t)-s;
}

/* A table of len bytes at pa with a correct checksum. */
static struct acpi_header *table(paddr_t pa, const char *sig, uint32_t len)
{
    struct acpi_header *h = fake_phys_ptr(pa);

    memset(h, 0, len);
    memcpy(h->signature, sig, 4);
    h->length = len;
    h->revision = 1;
    fix_checksum(h);
    return h;
}

/* A root table (RSDT: 4-byte, XSDT: 8-byte entries) listing pas. */
static void root(paddr_t at, const char *sig, unsigned int esize,
                 const uint64_t *pas, unsigned int n)
{
    struct acpi_header *h = table(at, sig, HDR + n * esize);

    for ( unsigned int i = 0; i < n; i++ )
        memcpy((uint8_t *)h + HDR + i * esize, &pas[i], esize);
    fix_checksum(h);
}

static void madt(void)
{
    table(MADT_PA, "APIC", sizeof(struct acpi_madt));
    table(FACP_PA, "FACP", HDR + 8);
}

static void through_xsdt_then_rsdt(void **state)
{
    const uint64_t pas[] = { FACP_PA, MADT_PA };
    struct acpi_header *x;

    madt();
    root(XSDT_PA, "XSDT", 8, pas, 2);
    rsdp.xsdt_address = XSDT_PA;
    assert_non_null(acpi_find_table(&walk, &rsdp, "APIC"));

    /* A bad XSDT checksum: the RSDT is next. */
    x = fake_phys_ptr(XSDT_PA);
    x->checksum ^= 1;
    root(RSDT_PA, "RSDT", 4, pas, 2);
    rsdp.rsdt_address = RSDT_PA;
    assert_non_null(acpi_find_table(&walk, &rsdp, "APIC"));
    assert_true(capture_has("XSDT at 0x101000 is invalid"));
    assert_false(capture_has("reading the invalid XSDT"));
}

/* Xen 4.17's PVH dom0: an XSDT with a garbage header, valid entries. */
static void corrupt_xsdt_entries_still_read(void **state)
{
    const uint64_t pas[] = { MADT_PA };
    struct acpi_header *x;

    madt();
    root(XSDT_PA, "XSDT", 8, pas, 1);
    x = fake_phys_ptr(XSDT_PA);
    memcpy(x->signature, "\x53\xff\x00\xf0", 4);
    rsdp.xsdt_address = XSDT_PA;
    assert_non_null(acpi_find_table(&walk, &rsdp, "APIC"));
    assert_true(capture_has("reading the invalid XSDT's 1 entries"));
}

/* Nothing beyond MAXPHYADDR is ever mapped: not the root, not an entry. */
static void beyond_phys_bits_never_mapped(void **state)
{
    const uint64_t far_entry[] = { 1ull << 40, 0xfffffffffffff000ull,
                                   MADT_PA };
    const uint64_t pas[] = { MADT_PA };
    unsigned int before;

    madt();
    rsdp.xsdt_address = 1ull << 40;         /* just past 40 bits */
    root(RSDT_PA, "RSDT", 4, pas, 1);
    rsdp.rsdt_address = RSDT_PA;
    before = fake_phys_map_calls();
    assert_non_null(acpi_find_table(&walk, &rsdp, "APIC"));
    assert_true(capture_has("the XSDT at 0x10000000000 is beyond the 40-bit "
                            "physical address width"));
    /* The RSDT header, the RSDT, the MADT header, the MADT. */
    assert_int_equal(fake_phys_map_calls() - before, 4);

    capture_reset();
    root(XSDT_PA, "XSDT", 8, far_entry, 3);
    rsdp.xsdt_address = XSDT_PA;
    assert_non_null(acpi_find_table(&walk, &rsdp, "APIC"));
    assert_int_equal(capture_count("beyond the 40-bit physical address "
                                   "width"), 2);
    /* A table whose header fits but whose length crosses the limit. */
    capture_reset();
    walk.phys_bits = 21;                    /* 2 MiB: MADT_PA is below */
    table(MADT_PA, "APIC", 0x100000);
    rsdp.xsdt_address = 0;
    assert_null(acpi_find_table(&walk, &rsdp, "APIC"));
    assert_true(capture_has("ends beyond the 21-bit physical address width"));
}

/*
 * A 1 MiB RSDT lists 262,135 tables; the walk once mapped each of them
 * (160,000+ ioremaps).  Now it reads the first ACPI_SDT_ENTRIES_MAX.
 */
static void huge_root_is_bounded(void **state)
{
    uint32_t n = (ACPI_TABLE_MAX - HDR) / 4;
    struct acpi_header *h = table(BIG_PA, "RSDT", HDR + n * 4);

    for ( uint32_t i = 0; i < n; i++ )
    {
        uint32_t pa = FACP_PA;

        memcpy((uint8_t *)h + HDR + i * 4, &pa, 4);
    }
    fix_checksum(h);
    madt();
    rsdp.rsdt_address = BIG_PA;
    walk.maps = 0;
    assert_null(acpi_find_table(&walk, &rsdp, "APIC"));
    assert_true(walk.maps <= 2 + 2 * ACPI_SDT_ENTRIES_MAX);
    assert_true(capture_has("RSDT lists 262135 tables, more than any "
                            "firmware has; reading the first 128"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(through_xsdt_then_rsdt, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(corrupt_xsdt_entries_still_read,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(beyond_phys_bits_never_mapped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(huge_root_is_bounded, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
