/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/boot/acpi-tables.c: checksums, RSDP and table checks, MADT parsing. */

#include <shimk/acpi.h>
#include <shimk/errno.h>
#include <shimk/printk.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "printk-capture.h"

#define MADT_HDR_LEN  ((unsigned int)sizeof(struct acpi_madt))   /* 44 */
#define LAPIC_DEFAULT 0xfee00000u
#define MIB           (1u << 20)

/* Entry types the parser must step over without reading them as CPUs. */
#define MADT_IOAPIC    1
#define MADT_ISO       2
#define MADT_LAPIC_NMI 4

/* Room for MADT_CPUS_MAX + a few x2APIC entries. */
static uint8_t tbl[MADT_HDR_LEN + (MADT_CPUS_MAX + 16) * 16];
static size_t tbl_len;
static struct madt_info info;

static int setup(void **state)
{
    memset(tbl, 0, sizeof(tbl));
    tbl_len = 0;
    memset(&info, 0x5a, sizeof(info));   /* the parser must clear it */
    capture_reset();
    return 0;
}

static uint8_t sum8(const void *p, size_t len)
{
    const uint8_t *b = p;
    uint8_t s = 0;

    for ( size_t i = 0; i < len; i++ )
        s += b[i];
    return s;
}

/*
 * An exact-size heap copy, so AddressSanitizer catches any read past
 * the bytes the code under test was told it may read.
 */
static void *exact_copy(const void *p, size_t len)
{
    void *c = malloc(len ? len : 1);

    assert_non_null(c);
    memcpy(c, p, len);
    return c;
}

/* --- MADT builder --- */

static void madt_begin(uint32_t lapic_address, uint32_t flags)
{
    struct acpi_madt *m = (struct acpi_madt *)tbl;

    memcpy(m->header.signature, "APIC", 4);
    m->header.revision = 5;
    memcpy(m->header.oem_id, "SHIMKT", 6);
    memcpy(m->header.oem_table_id, "UNITMADT", 8);
    m->lapic_address = lapic_address;
    m->flags = flags;
    tbl_len = MADT_HDR_LEN;
}

static void madt_raw(const void *bytes, size_t n)
{
    assert_true(tbl_len + n <= sizeof(tbl));
    memcpy(tbl + tbl_len, bytes, n);
    tbl_len += n;
}

/* Append a zeroed entry with its type and length set; fill the rest. */
static uint8_t *madt_entry(uint8_t type, uint8_t len)
{
    uint8_t *e = tbl + tbl_len;

    assert_true(len >= 2 && tbl_len + len <= sizeof(tbl));
    memset(e, 0, len);
    e[0] = type;
    e[1] = len;
    tbl_len += len;
    return e;
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void add_lapic(uint8_t uid, uint8_t apic_id, uint32_t flags)
{
    uint8_t *e = madt_entry(MADT_LAPIC, 8);

    e[2] = uid;
    e[3] = apic_id;
    put32(e + 4, flags);
}

static void add_x2apic(uint32_t x2apic_id, uint32_t flags, uint32_t uid)
{
    uint8_t *e = madt_entry(MADT_X2APIC, 16);

    e[2] = 0xee;    /* reserved: must not leak into the id */
    e[3] = 0xee;
    put32(e + 4, x2apic_id);
    put32(e + 8, flags);
    put32(e + 12, uid);
}

static void add_override(uint64_t address)
{
    uint8_t *e = madt_entry(MADT_LAPIC_OVERRIDE, 12);

    memcpy(e + 4, &address, 8);
}

static void add_ioapic(uint8_t id, uint32_t address, uint32_t gsi_base)
{
    uint8_t *e = madt_entry(MADT_IOAPIC, 12);

    e[2] = id;
    put32(e + 4, address);
    put32(e + 8, gsi_base);
}

static void add_iso(uint8_t source, uint32_t gsi, uint16_t flags)
{
    uint8_t *e = madt_entry(MADT_ISO, 10);

    e[2] = 0;   /* ISA */
    e[3] = source;
    put32(e + 4, gsi);
    memcpy(e + 8, &flags, 2);
}

static void add_lapic_nmi(uint8_t uid, uint16_t flags, uint8_t lint)
{
    uint8_t *e = madt_entry(MADT_LAPIC_NMI, 6);

    e[2] = uid;
    memcpy(e + 3, &flags, 2);
    e[5] = lint;
}

/* Header length = the bytes appended (or a given value), fix the sum. */
static void madt_finish_len(uint32_t length)
{
    struct acpi_madt *m = (struct acpi_madt *)tbl;

    m->header.length = length;
    m->header.checksum = 0;
    m->header.checksum = -sum8(tbl, tbl_len);
}

static void madt_finish(void)
{
    madt_finish_len(tbl_len);
}

/* Parse the built table from a copy holding exactly its bytes. */
static int parse(void)
{
    void *copy = exact_copy(tbl, tbl_len);
    int rc = madt_parse(copy, &info);

    free(copy);
    return rc;
}

/* A well-formed table: it passes the generic check and parses quietly. */
static void parse_ok(void)
{
    void *copy = exact_copy(tbl, tbl_len);

    assert_int_equal(acpi_table_check(copy, tbl_len, "APIC"), 0);
    free(copy);
    if ( parse() != 0 )
    {
        capture_dump();
        fail_msg("madt_parse failed on a well-formed table");
    }
    assert_int_equal(capture_lines(), 0);
    assert_int_equal(info.nr_skipped, 0);
}

/* A malformed table: -EINVAL and exactly one error line saying why. */
static void parse_bad(const char *why)
{
    int rc = parse();

    if ( rc != -EINVAL || capture_count(why) != 1 )
    {
        capture_dump();
        fail_msg("rc %d, want %d; want one line with \"%s\"", rc, -EINVAL,
                 why);
    }
    assert_int_equal(capture_lines(), 1);
    assert_int_equal(capture_level_count(LOGLEVEL_ERR), 1);
    assert_non_null(strstr(capture_line(0), "acpi: MADT"));
}

static void expect_cpu(unsigned int i, uint32_t apic_id, uint32_t uid,
                       bool enabled, bool online_capable)
{
    const struct madt_cpu *c = &info.cpus[i];

    assert_true(i < info.nr_cpus);
    if ( c->apic_id != apic_id || c->acpi_uid != uid ||
         c->enabled != enabled || c->online_capable != online_capable )
        fail_msg("cpu[%u]: apic %#x uid %u en %d oc %d; want apic %#x "
                 "uid %u en %d oc %d", i, c->apic_id, c->acpi_uid,
                 c->enabled, c->online_capable, apic_id, uid, enabled,
                 online_capable);
}

/* --- acpi_checksum_ok --- */

static void checksum(void **state)
{
    uint8_t b[300];

    memset(b, 0x33, sizeof(b));
    assert_true(acpi_checksum_ok(b, 0));
    b[0] = 0;
    assert_true(acpi_checksum_ok(b, 1));
    b[0] = 1;
    assert_false(acpi_checksum_ok(b, 1));
    b[1] = 0xff;
    assert_true(acpi_checksum_ok(b, 2));
    /* Only len bytes count. */
    b[2] = 7;
    assert_true(acpi_checksum_ok(b, 2));
    assert_false(acpi_checksum_ok(b, 3));

    /* The sum wraps at 256: 256 ones sum to 0, 255 do not. */
    memset(b, 1, sizeof(b));
    assert_true(acpi_checksum_ok(b, 256));
    assert_false(acpi_checksum_ok(b, 255));
    assert_false(acpi_checksum_ok(b, 257));
}

/* --- acpi_rsdp_check --- */

static struct acpi_rsdp make_rsdp(uint8_t revision)
{
    struct acpi_rsdp r;

    memset(&r, 0, sizeof(r));
    memcpy(r.signature, "RSD PTR ", 8);
    memcpy(r.oem_id, "BOCHS ", 6);
    r.revision = revision;
    r.rsdt_address = 0x7fe1234;
    if ( revision >= 2 )
    {
        r.length = sizeof(r);
        r.xsdt_address = 0x7fe5678;
    }
    return r;
}

/* The 20-byte checksum first: the extended one covers it. */
static void rsdp_fix(struct acpi_rsdp *r)
{
    r->checksum = 0;
    r->checksum = -sum8(r, 20);
    r->extended_checksum = 0;
    r->extended_checksum = -sum8(r, sizeof(*r));
}

static int rsdp_check(const struct acpi_rsdp *r, size_t avail)
{
    void *copy = exact_copy(r, avail);
    int rc = acpi_rsdp_check(copy, avail);

    free(copy);
    return rc;
}

static void rsdp_v1(void **state)
{
    struct acpi_rsdp r = make_rsdp(0);

    rsdp_fix(&r);
    /* ACPI 1.0 ends at byte 20: nothing after it may be read. */
    assert_int_equal(rsdp_check(&r, 20), 0);
    assert_int_equal(rsdp_check(&r, sizeof(r)), 0);
    assert_int_equal(rsdp_check(&r, 19), -EINVAL);

    /* Garbage after byte 20 does not matter to a revision 0 RSDP. */
    r.length = 3;
    r.extended_checksum ^= 0x55;
    assert_int_equal(rsdp_check(&r, sizeof(r)), 0);

    r = make_rsdp(0);
    r.signature[7] = '\0';
    rsdp_fix(&r);
    assert_int_equal(rsdp_check(&r, 20), -EINVAL);

    r = make_rsdp(0);
    memcpy(r.signature, "rsd ptr ", 8);
    rsdp_fix(&r);
    assert_int_equal(rsdp_check(&r, 20), -EINVAL);

    r = make_rsdp(0);
    rsdp_fix(&r);
    r.checksum++;
    assert_int_equal(rsdp_check(&r, 20), -EINVAL);

    /* A change anywhere in the first 20 bytes breaks it. */
    r = make_rsdp(0);
    rsdp_fix(&r);
    r.rsdt_address ^= 0x100;
    assert_int_equal(rsdp_check(&r, 20), -EINVAL);
}

static void rsdp_v2(void **state)
{
    struct acpi_rsdp r;

    for ( uint8_t rev = 2; rev <= 3; rev++ )
    {
        r = make_rsdp(rev);
        rsdp_fix(&r);
        assert_int_equal(rsdp_check(&r, sizeof(r)), 0);
        /* The extended part must be readable. */
        assert_int_equal(rsdp_check(&r, 20), -EINVAL);
        assert_int_equal(rsdp_check(&r, sizeof(r) - 1), -EINVAL);

        /* Extended checksum wrong, the 20-byte one still right. */
        r = make_rsdp(rev);
        rsdp_fix(&r);
        r.extended_checksum++;
        assert_true(acpi_checksum_ok(&r, 20));
        assert_int_equal(rsdp_check(&r, sizeof(r)), -EINVAL);

        /* A change in the extended part only. */
        r = make_rsdp(rev);
        rsdp_fix(&r);
        r.xsdt_address ^= 0x1000;
        assert_int_equal(rsdp_check(&r, sizeof(r)), -EINVAL);

        /* Extended checksum right, the 20-byte one wrong. */
        r = make_rsdp(rev);
        rsdp_fix(&r);
        r.checksum++;
        r.extended_checksum--;
        assert_true(acpi_checksum_ok(&r, sizeof(r)));
        assert_int_equal(rsdp_check(&r, sizeof(r)), -EINVAL);

        /* Length below 36, both checksums right. */
        r = make_rsdp(rev);
        r.length = 20;
        rsdp_fix(&r);
        assert_int_equal(rsdp_check(&r, sizeof(r)), -EINVAL);
        r.length = sizeof(r) - 1;
        rsdp_fix(&r);
        assert_int_equal(rsdp_check(&r, sizeof(r)), -EINVAL);
        r.length = 0;
        rsdp_fix(&r);
        assert_int_equal(rsdp_check(&r, sizeof(r)), -EINVAL);
    }

    /* Revision 1 is not 2: ACPI 1.0 rules. */
    r = make_rsdp(1);
    rsdp_fix(&r);
    assert_int_equal(rsdp_check(&r, 20), 0);
}

/* --- acpi_table_check --- */

/* A table of len bytes (len >= 36) with a correct checksum. */
static uint8_t *make_table(const char *sig, uint32_t len)
{
    uint8_t *t = calloc(1, len);
    struct acpi_header *h = (struct acpi_header *)t;

    assert_non_null(t);
    memcpy(h->signature, sig, 4);
    h->length = len;
    h->revision = 1;
    for ( uint32_t i = sizeof(*h); i < len; i++ )
        t[i] = (uint8_t)(i * 7);
    h->checksum = -sum8(t, len);
    return t;
}

static int table_check(const void *t, size_t avail, const char *sig)
{
    void *copy = exact_copy(t, avail);
    int rc = acpi_table_check(copy, avail, sig);

    free(copy);
    return rc;
}

static void table_valid(void **state)
{
    uint8_t *t = make_table("APIC", 100);
    uint8_t big[150];

    assert_int_equal(table_check(t, 100, "APIC"), 0);
    assert_int_equal(table_check(t, 100, NULL), 0);
    /* More readable than the table needs is fine. */
    memset(big, 0xaa, sizeof(big));
    memcpy(big, t, 100);
    assert_int_equal(table_check(big, sizeof(big), "APIC"), 0);
    free(t);
    t = make_table("XSDT", 36);    /* a bare header is a valid table */
    assert_int_equal(table_check(t, 36, "XSDT"), 0);
    free(t);
}

static void table_signature(void **state)
{
    uint8_t *t = make_table("APIC", 64);

    assert_int_equal(table_check(t, 64, "FACP"), -EINVAL);
    assert_int_equal(table_check(t, 64, "APIc"), -EINVAL);
    assert_int_equal(table_check(t, 64, "APIC"), 0);
    /* A wrong table is wrong however much more there is to map. */
    assert_int_equal(table_check(t, 40, "RSDT"), -EINVAL);
    free(t);
}

static void table_header_does_not_fit(void **state)
{
    uint8_t *t = make_table("APIC", 64);

    assert_int_equal(table_check(t, sizeof(struct acpi_header) - 1, NULL),
                     -EINVAL);
    assert_int_equal(table_check(t, 4, "APIC"), -EINVAL);
    assert_int_equal(table_check(t, 0, NULL), -EINVAL);
    free(t);
}

static void table_length(void **state)
{
    uint8_t *t = make_table("APIC", 64);
    struct acpi_header *h = (struct acpi_header *)t;

    /* Shorter than its own header. */
    h->length = sizeof(*h) - 1;
    h->checksum = 0;
    h->checksum = -sum8(t, sizeof(*h) - 1);
    assert_int_equal(table_check(t, 64, NULL), -EINVAL);
    h->length = 0;
    h->checksum = 0;
    assert_int_equal(table_check(t, 64, NULL), -EINVAL);
    free(t);

    /* Exactly 1 MiB is the limit and still fine; one byte more is not. */
    t = make_table("SSDT", MIB);
    assert_int_equal(table_check(t, MIB, "SSDT"), 0);
    free(t);
    t = make_table("SSDT", MIB + 1);
    assert_int_equal(table_check(t, MIB + 1, "SSDT"), -EINVAL);
    /* Absurd, not "map more": checked before the length against avail. */
    assert_int_equal(table_check(t, 64, "SSDT"), -EINVAL);
    h = (struct acpi_header *)t;
    h->length = 0xffffffffu;
    assert_int_equal(table_check(t, 64, "SSDT"), -EINVAL);
    free(t);
}

static void table_longer_than_avail(void **state)
{
    uint8_t *t = make_table("APIC", 200);

    assert_int_equal(table_check(t, 199, "APIC"), -E2BIG);
    assert_int_equal(table_check(t, 36, "APIC"), -E2BIG);
    /* The checksum cannot be known yet: still "map more". */
    t[150] ^= 1;
    assert_int_equal(table_check(t, 100, NULL), -E2BIG);
    assert_int_equal(table_check(t, 200, NULL), -EINVAL);
    free(t);
}

static void table_bad_checksum(void **state)
{
    uint8_t *t = make_table("APIC", 80);
    struct acpi_header *h = (struct acpi_header *)t;

    t[79] ^= 0x80;
    assert_int_equal(table_check(t, 80, "APIC"), -EINVAL);
    t[79] ^= 0x80;
    h->checksum++;
    assert_int_equal(table_check(t, 80, "APIC"), -EINVAL);
    h->checksum--;
    assert_int_equal(table_check(t, 80, "APIC"), 0);
    free(t);
}

/* --- madt_parse: well-formed tables --- */

/* QEMU q35 with -smp 4: I/O APIC, interrupt source overrides, LAPIC NMI. */
static void madt_qemu_4cpus(void **state)
{
    static const uint8_t irqs[] = { 5, 9, 10, 11 };

    madt_begin(LAPIC_DEFAULT, 1);
    for ( unsigned int i = 0; i < 4; i++ )
        add_lapic(i, i, MADT_CPU_ENABLED);
    add_ioapic(4, 0xfec00000, 0);
    add_iso(0, 2, 0);
    for ( unsigned int i = 0; i < ARRAY_SIZE(irqs); i++ )
        add_iso(irqs[i], irqs[i], 0xd);
    add_lapic_nmi(0xff, 0, 1);
    madt_finish();
    parse_ok();

    assert_int_equal(info.nr_cpus, 4);
    for ( unsigned int i = 0; i < 4; i++ )
        expect_cpu(i, i, i, true, false);
    assert_int_equal(info.lapic_address, LAPIC_DEFAULT);
}

/* Xen's PVH dom0 MADT: vCPU n has APIC id 2n; I/O APICs come first. */
static void madt_xen_pvh_dom0(void **state)
{
    madt_begin(LAPIC_DEFAULT, 0);
    add_ioapic(0, 0xfec00000, 0);
    add_ioapic(1, 0xfec01000, 24);
    add_iso(0, 2, 0);
    add_iso(9, 9, 0xf);
    for ( unsigned int i = 0; i < 4; i++ )
        add_lapic(i, 2 * i, MADT_CPU_ENABLED);
    madt_finish();
    parse_ok();

    assert_int_equal(info.nr_cpus, 4);
    for ( unsigned int i = 0; i < 4; i++ )
        expect_cpu(i, 2 * i, i, true, false);
    assert_int_equal(info.lapic_address, LAPIC_DEFAULT);
}

static void madt_no_entries(void **state)
{
    madt_begin(0xfee01000, 0);
    madt_finish();
    parse_ok();

    assert_int_equal(info.nr_cpus, 0);
    assert_int_equal(info.lapic_address, 0xfee01000);
}

/* Listed but disabled: reported, neither usable nor hot-pluggable. */
static void madt_disabled_cpu(void **state)
{
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    add_lapic(1, 1, 0);
    add_lapic(2, 2, MADT_CPU_ENABLED);
    add_lapic(3, 0xff, 0);    /* a placeholder some firmware lists */
    madt_finish();
    parse_ok();

    assert_int_equal(info.nr_cpus, 4);
    expect_cpu(0, 0, 0, true, false);
    expect_cpu(1, 1, 1, false, false);
    expect_cpu(2, 2, 2, true, false);
    expect_cpu(3, 0xff, 3, false, false);
}

static void madt_online_capable(void **state)
{
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    add_lapic(1, 1, MADT_CPU_ONLINE_CAPABLE);
    add_x2apic(0x300, MADT_CPU_ONLINE_CAPABLE, 2);
    /* Enabled already: online-capable says nothing more (5.2.12.2). */
    add_lapic(3, 3, MADT_CPU_ENABLED | MADT_CPU_ONLINE_CAPABLE);
    /* Reserved flag bits are ignored. */
    add_lapic(4, 4, 0xfffffffcu);
    add_lapic(5, 5, 0xfffffffcu | MADT_CPU_ONLINE_CAPABLE);
    madt_finish();
    parse_ok();

    assert_int_equal(info.nr_cpus, 6);
    expect_cpu(0, 0, 0, true, false);
    expect_cpu(1, 1, 1, false, true);
    expect_cpu(2, 0x300, 2, false, true);
    expect_cpu(3, 3, 3, true, false);
    expect_cpu(4, 4, 4, false, false);
    expect_cpu(5, 5, 5, false, true);
}

static void madt_x2apic(void **state)
{
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    add_x2apic(0x100, MADT_CPU_ENABLED, 256);
    add_x2apic(0x12345678, MADT_CPU_ENABLED, 0xdeadbeef);
    add_x2apic(0xfffffffe, 0, 70000);
    add_x2apic(1000, MADT_CPU_ENABLED, 1);
    madt_finish();
    parse_ok();

    assert_int_equal(info.nr_cpus, 5);
    expect_cpu(0, 0, 0, true, false);
    expect_cpu(1, 0x100, 256, true, false);
    expect_cpu(2, 0x12345678, 0xdeadbeef, true, false);
    expect_cpu(3, 0xfffffffe, 70000, false, false);
    expect_cpu(4, 1000, 1, true, false);
}

/* One CPU listed as local APIC and as x2APIC: once, the first entry's. */
static void madt_duplicate_ids(void **state)
{
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    add_lapic(1, 5, MADT_CPU_ENABLED);
    add_x2apic(5, MADT_CPU_ENABLED, 99);
    add_x2apic(7, MADT_CPU_ENABLED, 3);
    add_lapic(4, 7, MADT_CPU_ENABLED);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    add_lapic(9, 9, MADT_CPU_ENABLED);
    madt_finish();
    parse_ok();

    assert_int_equal(info.nr_cpus, 4);
    expect_cpu(0, 0, 0, true, false);
    expect_cpu(1, 5, 1, true, false);
    expect_cpu(2, 7, 3, true, false);
    expect_cpu(3, 9, 9, true, false);
}

static void madt_lapic_override(void **state)
{
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    add_override(0x123456789abcd000ull);
    add_lapic(1, 1, MADT_CPU_ENABLED);
    madt_finish();
    parse_ok();

    /* All 64 bits, not the 32-bit header field. */
    assert_int_equal(info.lapic_address, 0x123456789abcd000ull);
    assert_int_equal(info.nr_cpus, 2);

    /* The override wins wherever it sits. */
    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    add_override(0xfed00000);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    madt_finish();
    parse_ok();
    assert_int_equal(info.lapic_address, 0xfed00000);
    assert_int_equal(info.nr_cpus, 1);
}

/* Longer entries than this revision knows, unknown types, the minimum. */
static void madt_longer_and_unknown_entries(void **state)
{
    uint8_t *e;

    madt_begin(LAPIC_DEFAULT, 1);
    e = madt_entry(MADT_LAPIC, 12);
    e[2] = 0;
    e[3] = 3;
    put32(e + 4, MADT_CPU_ENABLED);
    put32(e + 8, 0xffffffffu);
    e = madt_entry(0x7f, 2);
    e = madt_entry(0x80, 255);
    memset(e + 2, 0xff, 253);
    e = madt_entry(MADT_X2APIC, 20);
    put32(e + 4, 0x400);
    put32(e + 8, MADT_CPU_ENABLED);
    put32(e + 12, 8);
    madt_finish();
    parse_ok();

    assert_int_equal(info.nr_cpus, 2);
    expect_cpu(0, 3, 0, true, false);
    expect_cpu(1, 0x400, 8, true, false);
}

static void madt_too_many_cpus(void **state)
{
    const unsigned int extra = 5;

    madt_begin(LAPIC_DEFAULT, 1);
    for ( unsigned int i = 0; i < MADT_CPUS_MAX + extra; i++ )
        add_x2apic(0x1000 + i, MADT_CPU_ENABLED, i);
    /* Already recorded: neither a new CPU nor a skipped one. */
    add_x2apic(0x1000, MADT_CPU_ENABLED, 0);
    madt_finish();

    assert_int_equal(parse(), 0);
    assert_int_equal(capture_lines(), 0);
    assert_int_equal(info.nr_cpus, MADT_CPUS_MAX);
    assert_int_equal(info.nr_skipped, extra);
    expect_cpu(0, 0x1000, 0, true, false);
    expect_cpu(MADT_CPUS_MAX - 1, 0x1000 + MADT_CPUS_MAX - 1,
               MADT_CPUS_MAX - 1, true, false);

    /* Exactly MADT_CPUS_MAX: nothing skipped. */
    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    for ( unsigned int i = 0; i < MADT_CPUS_MAX; i++ )
        add_x2apic(i, MADT_CPU_ENABLED, i);
    madt_finish();
    parse_ok();
    assert_int_equal(info.nr_cpus, MADT_CPUS_MAX);
}

/* --- madt_parse: malformed tables --- */

static void madt_entry_length_0(void **state)
{
    static const uint8_t bad[8] = { MADT_LAPIC, 0, 1, 1, 1, 0, 0, 0 };

    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    madt_raw(bad, sizeof(bad));
    add_lapic(2, 2, MADT_CPU_ENABLED);
    madt_finish();
    parse_bad("MADT entry type 0 at offset 52 has length 0 "
              "(table ends at 68)");
}

static void madt_entry_length_1(void **state)
{
    static const uint8_t bad[4] = { MADT_IOAPIC, 1, 0, 0 };

    madt_begin(LAPIC_DEFAULT, 1);
    madt_raw(bad, sizeof(bad));
    madt_finish();
    parse_bad("MADT entry type 1 at offset 44 has length 1 "
              "(table ends at 48)");
}

static void madt_entry_past_end(void **state)
{
    uint8_t *e;

    /* An x2APIC entry of 16 bytes with only 10 left in the table. */
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    e = madt_entry(MADT_X2APIC, 10);
    e[1] = 16;
    madt_finish();
    parse_bad("MADT entry type 9 at offset 52 has length 16 "
              "(table ends at 62)");

    /* One byte too long, an unknown type: still past the end. */
    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    e = madt_entry(0x42, 6);
    e[1] = 7;
    madt_finish();
    parse_bad("MADT entry type 66 at offset 44 has length 7 "
              "(table ends at 50)");

    /*
     * The header's length ends the table, not the bytes after it:
     * the last entry is whole in memory but not within the length.
     */
    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    add_lapic(1, 1, MADT_CPU_ENABLED);
    madt_finish_len(tbl_len - 1);
    parse_bad("MADT entry type 0 at offset 52 has length 8 "
              "(table ends at 59)");
}

static void madt_truncated_entry_header(void **state)
{
    static const uint8_t type_only = MADT_LAPIC;

    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    madt_raw(&type_only, 1);
    madt_finish();
    parse_bad("MADT entry header at offset 52 is truncated");
}

static void madt_short_lapic(void **state)
{
    uint8_t *e;

    /* Last in the table, so reading its flags anyway would overrun. */
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    e = madt_entry(MADT_LAPIC, 7);
    e[2] = 1;
    e[3] = 1;
    madt_finish();
    parse_bad("MADT entry type 0 at offset 52 is too short (7 bytes)");

    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    madt_entry(MADT_LAPIC, 2);
    madt_finish();
    parse_bad("MADT entry type 0 at offset 44 is too short (2 bytes)");
}

static void madt_short_x2apic(void **state)
{
    uint8_t *e;

    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    e = madt_entry(MADT_X2APIC, 12);
    put32(e + 4, 0x100);
    put32(e + 8, MADT_CPU_ENABLED);
    madt_finish();
    parse_bad("MADT entry type 9 at offset 52 is too short (12 bytes)");

    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    madt_entry(MADT_X2APIC, 15);
    madt_finish();
    parse_bad("MADT entry type 9 at offset 44 is too short (15 bytes)");
}

static void madt_short_override(void **state)
{
    uint8_t *e;

    madt_begin(LAPIC_DEFAULT, 1);
    e = madt_entry(MADT_LAPIC_OVERRIDE, 8);
    put32(e + 4, 0xfed00000);
    madt_finish();
    parse_bad("MADT entry type 5 at offset 44 is too short (8 bytes)");

    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    madt_entry(MADT_LAPIC_OVERRIDE, 11);
    madt_finish();
    parse_bad("MADT entry type 5 at offset 44 is too short (11 bytes)");
}

/* Shorter than the MADT's own fixed part: the copy holds only that. */
static void madt_shorter_than_header(void **state)
{
    madt_begin(LAPIC_DEFAULT, 1);
    tbl_len = sizeof(struct acpi_header);
    madt_finish();
    parse_bad("MADT of 36 bytes is shorter than its header");

    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    tbl_len = MADT_HDR_LEN - 1;
    madt_finish();
    parse_bad("MADT of 43 bytes is shorter than its header");

    /* The length field lies low while entries follow in memory. */
    setup(state);
    madt_begin(LAPIC_DEFAULT, 1);
    add_lapic(0, 0, MADT_CPU_ENABLED);
    madt_finish_len(0);
    parse_bad("MADT of 0 bytes is shorter than its header");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup(fn, setup)
    const struct CMUnitTest tests[] = {
        T(checksum),
        T(rsdp_v1),
        T(rsdp_v2),
        T(table_valid),
        T(table_signature),
        T(table_header_does_not_fit),
        T(table_length),
        T(table_longer_than_avail),
        T(table_bad_checksum),
        T(madt_qemu_4cpus),
        T(madt_xen_pvh_dom0),
        T(madt_no_entries),
        T(madt_disabled_cpu),
        T(madt_online_capable),
        T(madt_x2apic),
        T(madt_duplicate_ids),
        T(madt_lapic_override),
        T(madt_longer_and_unknown_entries),
        T(madt_too_many_cpus),
        T(madt_entry_length_0),
        T(madt_entry_length_1),
        T(madt_entry_past_end),
        T(madt_truncated_entry_header),
        T(madt_short_lapic),
        T(madt_short_x2apic),
        T(madt_short_override),
        T(madt_shorter_than_header),
    };
#undef T

    return cmocka_run_group_tests_name("acpi-tables", tests, NULL, NULL);
}
