/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/boot/mb2-parse.c on well-formed and malformed multiboot2 info. */

#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/printk.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fake-phys.h"
#include "printk-capture.h"

/* Multiboot2 specification 1.0, section 3.6: the tags GRUB passes. */
#define TAG_END         0
#define TAG_CMDLINE     1
#define TAG_LOADER_NAME 2
#define TAG_MODULE      3
#define TAG_MEMINFO     4
#define TAG_BOOTDEV     5
#define TAG_MMAP        6
#define TAG_FRAMEBUFFER 8
#define TAG_ACPI_OLD    14
#define TAG_ACPI_NEW    15

#define MEM_SIZE 0x10000
#define MBI_PA   (FAKE_PHYS_BASE + 0x1000)

static struct boot_info bi;
static uint8_t *mbi;            /* host view of the block being built */
static uint32_t mbi_len;        /* bytes written so far, header included */

static int setup(void **state)
{
    fake_phys_init(MEM_SIZE);
    capture_reset();
    /* Garbage first: the parser must fill bi from scratch. */
    memset(&bi, 0xa5, sizeof(bi));
    mbi = fake_phys_ptr(MBI_PA);
    mbi_len = 8;
    return 0;
}

static int teardown(void **state)
{
    fake_phys_fini();
    return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* Append a tag with room for size bytes; return it for the payload. */
static uint8_t *tag(uint32_t type, uint32_t size)
{
    uint8_t *t = mbi + mbi_len;

    assert_true(MBI_PA - FAKE_PHYS_BASE + mbi_len + size + 8 <= MEM_SIZE);
    put32(t, type);
    put32(t + 4, size);
    mbi_len += ROUNDUP(size, 8u);
    return t;
}

static void tag_string(uint32_t type, const char *s)
{
    uint8_t *t = tag(type, 8 + strlen(s) + 1);

    memcpy(t + 8, s, strlen(s) + 1);
}

static void tag_module(uint32_t start, uint32_t end, const char *s)
{
    uint8_t *t = tag(TAG_MODULE, 16 + strlen(s) + 1);

    put32(t + 8, start);
    put32(t + 12, end);
    memcpy(t + 16, s, strlen(s) + 1);
}

static void tag_meminfo(uint32_t lower_kb, uint32_t upper_kb)
{
    uint8_t *t = tag(TAG_MEMINFO, 16);

    put32(t + 8, lower_kb);
    put32(t + 12, upper_kb);
}

struct e820
{
    uint64_t base, len;
    uint32_t type;
};

/* A memory map tag with entries of entry_size bytes (24 or more). */
static void tag_mmap(const struct e820 *e, unsigned int n,
                     uint32_t entry_size)
{
    uint8_t *t = tag(TAG_MMAP, 16 + n * entry_size);

    put32(t + 8, entry_size);
    put32(t + 12, 0);
    for ( unsigned int i = 0; i < n; i++ )
    {
        uint8_t *p = t + 16 + i * entry_size;

        put64(p, e[i].base);
        put64(p + 8, e[i].len);
        put32(p + 16, e[i].type);
        put32(p + 20, 0);
        /* Whatever a newer entry format adds must be skipped. */
        memset(p + 24, 0xee, entry_size - 24);
    }
}

/* An RSDP copy of len bytes, each byte fill. */
static void tag_acpi(uint32_t type, uint32_t len, uint8_t fill)
{
    uint8_t *t = tag(type, 8 + len);

    memset(t + 8, fill, len);
}

/* Close the block: end tag, then total_size. */
static void finish(void)
{
    tag(TAG_END, 8);
    put32(mbi, mbi_len);
    put32(mbi + 4, 0);
}

static int parse(void)
{
    return mb2_parse(&bi, MBI_PA, fake_phys_map);
}

/* A parse that must fail with rc and say why on one error line. */
static void expect_error(int rc, const char *why)
{
    int got = parse();

    if ( got != rc || !capture_has(why) )
        capture_dump();
    assert_int_equal(got, rc);
    assert_int_equal(bi.protocol, BOOT_MB2);
    assert_int_equal(capture_level_count(LOGLEVEL_ERR), 1);
    assert_true(capture_has(why));
}

static void expect_ok(void)
{
    int rc = parse();

    if ( rc )
        capture_dump();
    assert_int_equal(rc, 0);
}

static const struct e820 ram_map[] = {
    { 0, 0x9fc00, MMAP_RAM },
    { 0x9fc00, 0x400, MMAP_RESERVED },
    { 0xf0000, 0x10000, MMAP_RESERVED },
    { 0x100000, 0x7ee0000, MMAP_RAM },
    { 0x7fe0000, 0x20000, MMAP_ACPI },
    { 0xfffc0000, 0x40000, MMAP_RESERVED },
    { 0x100000000ull, 0x40000000ull, MMAP_RAM },
};

static void assert_mmap(const struct e820 *e, unsigned int n)
{
    assert_int_equal(bi.nr_mmap, n);
    for ( unsigned int i = 0; i < n; i++ )
    {
        assert_int_equal(bi.mmap[i].base, e[i].base);
        assert_int_equal(bi.mmap[i].len, e[i].len);
        assert_int_equal(bi.mmap[i].type, e[i].type);
    }
}

/* --- well-formed input --------------------------------------------------- */

/* What GRUB 2 passes for "multiboot2 shimk.elf ..." plus two modules. */
static void full_info(void **state)
{
    uint8_t *t;

    tag_string(TAG_CMDLINE, "console=com1 ktest=all");
    tag_string(TAG_LOADER_NAME, "GRUB 2.06-13+deb12u1");
    tag_module(0x200000, 0x234567, "initrd");
    tag_module(0x300000, 0x301000, "");
    tag_meminfo(639, 130048);
    t = tag(TAG_BOOTDEV, 20);
    memset(t + 8, 0xff, 12);
    tag_mmap(ram_map, ARRAY_SIZE(ram_map), 24);
    /* An odd-sized tag nobody reads: the next one is 8-byte aligned. */
    t = tag(TAG_FRAMEBUFFER, 21);
    memset(t + 8, 0x77, 13);
    tag_acpi(TAG_ACPI_OLD, 20, 0x11);
    tag_acpi(TAG_ACPI_NEW, 36, 0x22);
    finish();

    expect_ok();
    assert_string_equal(capture_text(), "");
    assert_int_equal(bi.protocol, BOOT_MB2);
    assert_string_equal(bi.cmdline, "console=com1 ktest=all");
    assert_false(bi.cmdline_truncated);
    assert_string_equal(bi.loader, "GRUB 2.06-13+deb12u1");

    assert_int_equal(bi.nr_modules, 2);
    assert_int_equal(bi.modules[0].base, 0x200000);
    assert_int_equal(bi.modules[0].size, 0x34567);
    assert_int_equal(bi.modules[1].base, 0x300000);
    assert_int_equal(bi.modules[1].size, 0x1000);

    assert_mmap(ram_map, ARRAY_SIZE(ram_map));

    assert_int_equal(bi.rsdp_copy_len, 36);
    for ( unsigned int i = 0; i < 36; i++ )
        assert_int_equal(bi.rsdp_copy[i], 0x22);
    assert_int_equal(bi.rsdp_pa, 0);

    /* The block itself and both modules stay out of the frame pool. */
    assert_int_equal(bi.nr_reserved, 3);
    assert_int_equal(bi.reserved[0].base, MBI_PA);
    assert_int_equal(bi.reserved[0].len, mbi_len);
    assert_int_equal(bi.reserved[1].base, 0x200000);
    assert_int_equal(bi.reserved[1].len, 0x34567);
    assert_int_equal(bi.reserved[2].base, 0x300000);
    assert_int_equal(bi.reserved[2].len, 0x1000);

    assert_int_equal(bi.pvh_version, 0);
    assert_false(bi.mmap_from_hypervisor);
}

/* The smallest valid block: header and end tag; no map is not an error. */
static void minimal_info(void **state)
{
    finish();
    assert_int_equal(mbi_len, 16);
    expect_ok();
    assert_string_equal(capture_text(), "");
    assert_int_equal(bi.nr_mmap, 0);
    assert_int_equal(bi.nr_modules, 0);
    assert_string_equal(bi.cmdline, "");
    assert_string_equal(bi.loader, "");
    assert_int_equal(bi.rsdp_copy_len, 0);
    assert_int_equal(bi.nr_reserved, 1);
    assert_int_equal(bi.reserved[0].len, 16);
}

/* The spec lets entries grow; entry_size is the stride. */
static void mmap_wider_entries(void **state)
{
    tag_mmap(ram_map, ARRAY_SIZE(ram_map), 40);
    finish();
    expect_ok();
    assert_mmap(ram_map, ARRAY_SIZE(ram_map));
}

static void mmap_stray_bytes(void **state)
{
    uint8_t *t;

    tag_mmap(ram_map, 3, 24);
    /* Grow the tag by 8 bytes that do not make a whole entry. */
    t = mbi + 8;
    put32(t + 4, 16 + 3 * 24 + 8);
    mbi_len += 8;
    finish();
    expect_ok();
    assert_mmap(ram_map, 3);
    assert_true(capture_has("shimk: warning: mb2: memory map tag has 8 "
                            "stray bytes"));
}

static void mmap_too_many_entries(void **state)
{
    struct e820 e[BOOT_MMAP_MAX + 2];

    for ( unsigned int i = 0; i < ARRAY_SIZE(e); i++ )
        e[i] = (struct e820){ i * 0x2000ull, 0x1000, MMAP_RAM };
    tag_mmap(e, ARRAY_SIZE(e), 24);
    finish();
    expect_ok();
    assert_mmap(e, BOOT_MMAP_MAX);
    assert_int_equal(capture_count("more than 128 memory map entries"), 1);
}

static void second_mmap_ignored(void **state)
{
    static const struct e820 other[] = { { 0, 0x1000, MMAP_RESERVED } };

    tag_mmap(ram_map, ARRAY_SIZE(ram_map), 24);
    tag_mmap(other, 1, 24);
    finish();
    expect_ok();
    assert_mmap(ram_map, ARRAY_SIZE(ram_map));
    assert_true(capture_has("shimk: warning: mb2: second memory map tag "
                            "ignored"));
}

/* Without a memory map, basic meminfo describes low and upper RAM. */
static void meminfo_fallback(void **state)
{
    static const struct e820 want[] = {
        { 0, 640 * 1024, MMAP_RAM },
        { 0x100000, 130048ull * 1024, MMAP_RAM },
    };

    tag_meminfo(639, 130048);
    finish();
    expect_ok();
    assert_mmap(want, 2);
    assert_true(capture_has("shimk: warning: mb2: no memory map tag; using "
                            "basic meminfo (130048 KiB upper)"));
}

/* Large mem_upper must not overflow 32 bits on the way to bytes. */
static void meminfo_fallback_4g(void **state)
{
    tag_meminfo(639, 0xfffffc00);
    finish();
    expect_ok();
    assert_int_equal(bi.mmap[1].len, 0xfffffc00ull * 1024);
}

static void meminfo_ignored_with_mmap(void **state)
{
    tag_meminfo(639, 1);
    tag_mmap(ram_map, ARRAY_SIZE(ram_map), 24);
    finish();
    expect_ok();
    assert_mmap(ram_map, ARRAY_SIZE(ram_map));
    assert_string_equal(capture_text(), "");
}

static void acpi_new_preferred(void **state)
{
    /* New first, old after: the old one must not replace it. */
    tag_acpi(TAG_ACPI_NEW, 36, 0x22);
    tag_acpi(TAG_ACPI_OLD, 20, 0x11);
    finish();
    expect_ok();
    assert_int_equal(bi.rsdp_copy_len, 36);
    assert_int_equal(bi.rsdp_copy[0], 0x22);
    assert_int_equal(bi.rsdp_copy[35], 0x22);
}

static void acpi_old_only(void **state)
{
    tag_acpi(TAG_ACPI_OLD, 20, 0x11);
    finish();
    expect_ok();
    assert_int_equal(bi.rsdp_copy_len, 20);
    assert_int_equal(bi.rsdp_copy[19], 0x11);
    assert_int_equal(bi.rsdp_copy[20], 0);
}

/* A longer RSDP copy is cut to the 36 bytes of ACPI 2.0's structure. */
static void acpi_copy_bounded(void **state)
{
    tag_acpi(TAG_ACPI_NEW, 64, 0x33);
    finish();
    expect_ok();
    assert_int_equal(bi.rsdp_copy_len, sizeof(bi.rsdp_copy));
    assert_int_equal(bi.rsdp_copy[35], 0x33);
}

static void acpi_truncated(void **state)
{
    tag_acpi(TAG_ACPI_OLD, 19, 0x11);
    finish();
    expect_error(-EINVAL, "mb2: ACPI RSDP tag of 27 bytes is truncated");
}

/*
 * An option that does not fit is dropped whole, and counted; the ones
 * after it that fit still count (issue 15: a 6,000-byte option before
 * ktest=all).
 */
static void cmdline_too_long(void **state)
{
    char line[6000 + 64];

    strcpy(line, "nr-cpus=2 ");
    memset(line + 10, 'c', 6000);
    strcpy(line + 6010, " ktest=all \"quoted value\"");
    tag_string(TAG_CMDLINE, line);
    finish();
    expect_ok();
    assert_true(bi.cmdline_truncated);
    assert_int_equal(bi.cmdline_dropped, 1);
    assert_int_equal(bi.cmdline_len, strlen(line));
    assert_string_equal(bi.cmdline, "nr-cpus=2 ktest=all \"quoted value\"");
}

static void cmdline_exactly_limit(void **state)
{
    char line[CMDLINE_MAX + 1];

    memset(line, 'c', CMDLINE_MAX);
    line[CMDLINE_MAX] = '\0';
    tag_string(TAG_CMDLINE, line);
    finish();
    expect_ok();
    assert_false(bi.cmdline_truncated);
    assert_string_equal(bi.cmdline, line);
}

/* The name field is small; a long name is cut quietly, terminated. */
static void loader_name_cut(void **state)
{
    static const char name[] = "A Boot Loader With A Very Long Name 1.0";

    tag_string(TAG_LOADER_NAME, name);
    finish();
    expect_ok();
    assert_int_equal(strlen(bi.loader), sizeof(bi.loader) - 1);
    assert_memory_equal(bi.loader, name, sizeof(bi.loader) - 1);
}

static void too_many_modules(void **state)
{
    for ( unsigned int i = 0; i < BOOT_MODULES_MAX + 1; i++ )
        tag_module(0x400000 + i * 0x10000, 0x400000 + i * 0x10000 + 0x100,
                   "m");
    finish();
    expect_ok();
    assert_int_equal(bi.nr_modules, BOOT_MODULES_MAX);
    assert_int_equal(bi.modules[7].base, 0x470000);
    assert_true(capture_has("shimk: warning: mb2: more than 8 modules, "
                            "ignoring one"));
    /* The block and the modules kept. */
    assert_int_equal(bi.nr_reserved, 1 + BOOT_MODULES_MAX);
}

/* A module of zero bytes is kept, with nothing to reserve. */
static void empty_module(void **state)
{
    tag_module(0x200000, 0x200000, "empty");
    finish();
    expect_ok();
    assert_int_equal(bi.nr_modules, 1);
    assert_int_equal(bi.modules[0].size, 0);
    assert_int_equal(bi.nr_reserved, 1);
}

/* Tags after the end tag, still inside total_size, are never read. */
static void data_after_end_tag(void **state)
{
    tag(TAG_END, 8);
    tag_string(TAG_CMDLINE, "after the end");
    put32(mbi, mbi_len);
    expect_ok();
    assert_string_equal(bi.cmdline, "");
}

/* --- malformed input ----------------------------------------------------- */

static void misaligned_address(void **state)
{
    finish();
    assert_int_equal(mb2_parse(&bi, MBI_PA + 4, fake_phys_map), -EINVAL);
    assert_true(capture_has("is not 8-byte aligned"));
    /* It gave up before touching memory. */
    assert_int_equal(fake_phys_map_calls(), 0);
}

static void unreachable(void **state)
{
    assert_int_equal(mb2_parse(&bi, 0x8000, fake_phys_map), -EFAULT);
    assert_true(capture_has("mb2: boot information at 0x8000 is out of "
                            "reach"));

    /* The header is readable but the block runs off the end. */
    capture_reset();
    put32(mbi, MEM_SIZE);
    expect_error(-EFAULT, "mb2: boot information (65536 bytes) is out of "
                          "reach");
}

static void total_size_too_small(void **state)
{
    static const uint32_t sizes[] = { 0, 8, 15 };

    for ( unsigned int i = 0; i < ARRAY_SIZE(sizes); i++ )
    {
        char why[64];

        capture_reset();
        put32(mbi, sizes[i]);
        snprintf(why, sizeof(why), "mb2: boot information size %u is "
                 "invalid", sizes[i]);
        expect_error(-EINVAL, why);
    }
}

static void total_size_too_big(void **state)
{
    finish();
    put32(mbi, (1u << 20) + 8);
    expect_error(-EINVAL, "mb2: boot information size 1048584 is invalid");
    /* Rejected before trying to map a megabyte. */
    assert_int_equal(fake_phys_map_calls(), 1);
}

/* Size 0 would loop for ever at one offset; anything below 8 overlaps. */
static void tag_size_below_8(void **state)
{
    static const uint32_t sizes[] = { 0, 4, 7 };

    for ( unsigned int i = 0; i < ARRAY_SIZE(sizes); i++ )
    {
        uint8_t *t;

        setup(state);
        tag_string(TAG_CMDLINE, "x");
        t = tag(TAG_FRAMEBUFFER, 8);
        finish();
        put32(t + 4, sizes[i]);
        expect_error(-EINVAL, "overlapping the next tag");
    }
}

static void tag_runs_past_total(void **state)
{
    uint8_t *t;

    t = tag(TAG_FRAMEBUFFER, 16);
    finish();
    put32(t + 4, 25);
    expect_error(-EINVAL, "mb2: tag type 8 at offset 8 (size 25) runs past "
                          "the end (32)");
}

/* total_size stops short of the end tag. */
static void missing_end_tag(void **state)
{
    tag_string(TAG_CMDLINE, "abc");
    finish();
    put32(mbi, mbi_len - 8);
    expect_error(-EINVAL, "mb2: no end tag within 24 bytes");
}

/* total_size ends inside the next tag's header. */
static void truncated_tag_header(void **state)
{
    tag_string(TAG_CMDLINE, "abc");
    finish();
    put32(mbi, mbi_len - 4);
    expect_error(-EINVAL, "mb2: tag header at offset 24 is truncated");
}

static void end_tag_wrong_size(void **state)
{
    tag(TAG_END, 16);
    put32(mbi, mbi_len);
    expect_error(-EINVAL, "mb2: end tag has size 16");
}

static void mmap_bad_entry_size(void **state)
{
    /* 0 would divide by zero; the rest are short or misaligned. */
    static const uint32_t sizes[] = { 0, 8, 16, 20, 23, 28, 36 };

    for ( unsigned int i = 0; i < ARRAY_SIZE(sizes); i++ )
    {
        char why[64];
        uint8_t *t;

        setup(state);
        t = tag(TAG_MMAP, 16 + 2 * 40);
        put32(t + 8, sizes[i]);
        finish();
        snprintf(why, sizeof(why), "mb2: memory map entry size %u is "
                 "invalid", sizes[i]);
        expect_error(-EINVAL, why);
    }
}

static void mmap_tag_truncated(void **state)
{
    tag(TAG_MMAP, 12);
    finish();
    expect_error(-EINVAL, "mb2: memory map tag of 12 bytes is truncated");
}

static void cmdline_not_terminated(void **state)
{
    uint8_t *t = tag(TAG_CMDLINE, 8 + 5);

    memcpy(t + 8, "abcde", 5);
    finish();
    expect_error(-EINVAL, "mb2: command line is not NUL-terminated inside "
                          "its tag");
}

static void cmdline_tag_empty(void **state)
{
    tag(TAG_CMDLINE, 8);
    finish();
    expect_error(-EINVAL, "mb2: command line is not NUL-terminated");
}

static void loader_name_not_terminated(void **state)
{
    uint8_t *t = tag(TAG_LOADER_NAME, 8 + 4);

    memcpy(t + 8, "GRUB", 4);
    finish();
    expect_error(-EINVAL, "mb2: boot loader name is not NUL-terminated");
}

static void module_end_before_start(void **state)
{
    tag_module(0x300000, 0x2fffff, "backwards");
    finish();
    expect_error(-EINVAL, "mb2: module ends (0x2fffff) before it starts "
                          "(0x300000)");
}

static void module_tag_truncated(void **state)
{
    uint8_t *t = tag(TAG_MODULE, 16);

    put32(t + 8, 0x200000);
    put32(t + 12, 0x201000);
    finish();
    expect_error(-EINVAL, "mb2: module tag of 16 bytes is truncated");
}

static void meminfo_truncated(void **state)
{
    tag(TAG_MEMINFO, 12);
    finish();
    expect_error(-EINVAL, "mb2: basic meminfo tag of 12 bytes is truncated");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(full_info),
        T(minimal_info),
        T(mmap_wider_entries),
        T(mmap_stray_bytes),
        T(mmap_too_many_entries),
        T(second_mmap_ignored),
        T(meminfo_fallback),
        T(meminfo_fallback_4g),
        T(meminfo_ignored_with_mmap),
        T(acpi_new_preferred),
        T(acpi_old_only),
        T(acpi_copy_bounded),
        T(acpi_truncated),
        T(cmdline_too_long),
        T(cmdline_exactly_limit),
        T(loader_name_cut),
        T(too_many_modules),
        T(empty_module),
        T(data_after_end_tag),
        T(misaligned_address),
        T(unreachable),
        T(total_size_too_small),
        T(total_size_too_big),
        T(tag_size_below_8),
        T(tag_runs_past_total),
        T(missing_end_tag),
        T(truncated_tag_header),
        T(end_tag_wrong_size),
        T(mmap_bad_entry_size),
        T(mmap_tag_truncated),
        T(cmdline_not_terminated),
        T(cmdline_tag_empty),
        T(loader_name_not_terminated),
        T(module_end_before_start),
        T(module_tag_truncated),
        T(meminfo_truncated),
    };
#undef T

    return cmocka_run_group_tests_name("mb2-parse", tests, NULL, NULL);
}
