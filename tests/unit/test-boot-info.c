/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/boot/memory-map.c: memory map clean-up and the reserved-range table. */

#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/printk.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "printk-capture.h"

#define RAM  MMAP_RAM
#define RES  MMAP_RESERVED
#define ACPI MMAP_ACPI
#define NVS  MMAP_NVS
#define BAD  MMAP_UNUSABLE
#define PMEM 7      /* E820 persistent memory: a type shimk does not know */

static struct mmap_entry map[2 * BOOT_MMAP_MAX];
static unsigned int nr;

static int setup(void **state)
{
    memset(map, 0, sizeof(map));
    nr = 0;
    capture_reset();
    return 0;
}

static void add(paddr_t base, uint64_t len, uint32_t type)
{
    map[nr++] = (struct mmap_entry){ base, len, type };
}

static unsigned int sanitize(void)
{
    return mmap_sanitize(map, &nr);
}

/* The map must now be exactly these entries. */
static void expect_map(const struct mmap_entry *want, unsigned int n)
{
    if ( nr != n )
    {
        for ( unsigned int i = 0; i < nr; i++ )
            print_error("  %#llx+%#llx type %u\n",
                        (unsigned long long)map[i].base,
                        (unsigned long long)map[i].len, map[i].type);
    }
    assert_int_equal(nr, n);
    for ( unsigned int i = 0; i < n; i++ )
    {
        assert_int_equal(map[i].base, want[i].base);
        assert_int_equal(map[i].len, want[i].len);
        assert_int_equal(map[i].type, want[i].type);
    }
}

#define EXPECT(...)                                                        \
    do                                                                     \
    {                                                                      \
        static const struct mmap_entry want_[] = { __VA_ARGS__ };          \
        expect_map(want_, ARRAY_SIZE(want_));                              \
    } while ( 0 )

/* Each overlap counted is one warning line, and nothing else prints. */
static void expect_overlaps(unsigned int overlaps, unsigned int got)
{
    assert_int_equal(got, overlaps);
    assert_int_equal(capture_count("shimk: warning: mmap: "), overlaps);
    assert_int_equal(capture_lines(), overlaps);
}

static void empty_map(void **state)
{
    expect_overlaps(0, sanitize());
    assert_int_equal(nr, 0);
}

static void already_clean(void **state)
{
    add(0, 0x9f000, RAM);
    add(0x9f000, 0x1000, RES);
    add(0x100000, 0x1000000, RAM);
    expect_overlaps(0, sanitize());
    EXPECT({ 0, 0x9f000, RAM }, { 0x9f000, 0x1000, RES },
           { 0x100000, 0x1000000, RAM });
}

static void sorted(void **state)
{
    add(0x100000000ull, 0x1000, RAM);
    add(0x100000, 0x1000, ACPI);
    add(0, 0x1000, RAM);
    add(0xfee00000, 0x1000, RES);
    expect_overlaps(0, sanitize());
    EXPECT({ 0, 0x1000, RAM }, { 0x100000, 0x1000, ACPI },
           { 0xfee00000, 0x1000, RES }, { 0x100000000ull, 0x1000, RAM });
}

static void adjacent_same_type_merged(void **state)
{
    add(0x3000, 0x1000, RAM);
    add(0, 0x1000, RAM);
    add(0x1000, 0x2000, RAM);
    add(0x5000, 0x1000, RAM);    /* a gap before it: stays separate */
    add(0x6000, 0x1000, ACPI);   /* adjacent, other type: separate */
    add(0x7000, 0x1000, ACPI);
    expect_overlaps(0, sanitize());
    EXPECT({ 0, 0x4000, RAM }, { 0x5000, 0x1000, RAM },
           { 0x6000, 0x2000, ACPI });
}

static void same_type_overlap_quiet(void **state)
{
    add(0, 0x2000, RAM);
    add(0x1000, 0x2000, RAM);
    add(0x1000, 0x2000, RAM);    /* listed twice */
    add(0x800, 0x100, RAM);      /* inside */
    expect_overlaps(0, sanitize());
    EXPECT({ 0, 0x3000, RAM });
}

static void zero_length_dropped(void **state)
{
    add(0x5000, 0, RES);         /* inside RAM: must not split it */
    add(0, 0x10000, RAM);
    add(0x20000, 0, RAM);
    add(0, 0, ACPI);
    expect_overlaps(0, sanitize());
    EXPECT({ 0, 0x10000, RAM });

    setup(state);
    add(0x1000, 0, RAM);
    expect_overlaps(0, sanitize());
    assert_int_equal(nr, 0);
}

/* Reserved cutting RAM: the warning names the piece and the winner. */
static void overlap_warning_line(void **state)
{
    add(0, 0x10000, RAM);
    add(0x8000, 0x10000, RES);
    expect_overlaps(1, sanitize());
    EXPECT({ 0, 0x8000, RAM }, { 0x8000, 0x10000, RES });
    assert_string_equal(capture_line(0), "shimk: warning: mmap: 0x8000-0xffff "
                        "listed by 2 entries of different types; keeping "
                        "type 2");
}

/* A hole punched in the middle leaves RAM on both sides. */
static void overlap_in_the_middle(void **state)
{
    add(0x100000, 0x100000, RAM);
    add(0x180000, 0x1000, ACPI);
    expect_overlaps(1, sanitize());
    EXPECT({ 0x100000, 0x80000, RAM }, { 0x180000, 0x1000, ACPI },
           { 0x181000, 0x7f000, RAM });
}

/* For every pair, in both orders, the more restrictive type wins. */
static void restrictiveness_order(void **state)
{
    /* Least to most restrictive; unknown types count as reserved. */
    static const uint32_t order[] = { RAM, ACPI, NVS, RES, BAD };

    for ( unsigned int lo = 0; lo < ARRAY_SIZE(order); lo++ )
        for ( unsigned int hi = lo + 1; hi < ARRAY_SIZE(order); hi++ )
        {
            /* The weaker type around, the stronger inside: a hole. */
            setup(state);
            add(0x1000, 0x3000, order[lo]);
            add(0x2000, 0x1000, order[hi]);
            expect_overlaps(1, sanitize());
            assert_int_equal(nr, 3);
            assert_int_equal(map[0].type, order[lo]);
            assert_int_equal(map[1].base, 0x2000);
            assert_int_equal(map[1].len, 0x1000);
            assert_int_equal(map[1].type, order[hi]);
            assert_int_equal(map[2].base, 0x3000);
            assert_int_equal(map[2].type, order[lo]);

            /* The stronger type around: the weaker one vanishes. */
            setup(state);
            add(0x1000, 0x3000, order[hi]);
            add(0x2000, 0x1000, order[lo]);
            expect_overlaps(1, sanitize());
            assert_int_equal(nr, 1);
            assert_int_equal(map[0].base, 0x1000);
            assert_int_equal(map[0].len, 0x3000);
            assert_int_equal(map[0].type, order[hi]);
        }
}

static void unknown_type_ranks_as_reserved(void **state)
{
    add(0, 0x2000, PMEM);
    add(0x1000, 0x2000, NVS);
    expect_overlaps(1, sanitize());
    EXPECT({ 0, 0x2000, PMEM }, { 0x2000, 0x1000, NVS });

    setup(state);
    add(0, 0x2000, PMEM);
    add(0x1000, 0x2000, BAD);
    expect_overlaps(1, sanitize());
    EXPECT({ 0, 0x1000, PMEM }, { 0x1000, 0x2000, BAD });
}

/*
 * A firmware-like table with several overlaps.  Where three entries
 * cover one piece, each disagreeing entry is one overlap and one line.
 */
static void several_overlaps(void **state)
{
    add(0, 0xa0000, RAM);
    add(0x9fc00, 0x400, RES);
    add(0x100000, 0x7f00000, RAM);
    add(0x7fe0000, 0x40000, ACPI);
    add(0x7ff0000, 0x20000, NVS);
    add(0x100000, 0x1000, RAM);
    /* One warning per piece: 0x7ff0000 is RAM, ACPI and NVS at once. */
    expect_overlaps(4, sanitize());
    EXPECT({ 0, 0x9fc00, RAM }, { 0x9fc00, 0x400, RES },
           { 0x100000, 0x7ee0000, RAM }, { 0x7fe0000, 0x10000, ACPI },
           { 0x7ff0000, 0x20000, NVS }, { 0x8010000, 0x10000, ACPI });
}

/* An entry whose end passes 2^64 stops at the top of the space. */
static void wrapping_entry_clamped(void **state)
{
    add(0xfffffffffff00000ull, 0x200000, RES);
    add(0, 0x1000, RAM);
    expect_overlaps(0, sanitize());
    EXPECT({ 0, 0x1000, RAM },
           { 0xfffffffffff00000ull, 0xfffff, RES });

    setup(state);
    add(0x1000, UINT64_MAX, RAM);
    expect_overlaps(0, sanitize());
    EXPECT({ 0x1000, UINT64_MAX - 0x1000, RAM });
}

/* More than the table holds: the input is read up to BOOT_MMAP_MAX. */
static void input_bounded(void **state)
{
    for ( unsigned int i = 0; i < BOOT_MMAP_MAX + 10; i++ )
        add(i * 0x2000ull, 0x1000, RAM);
    expect_overlaps(0, sanitize());
    assert_int_equal(nr, BOOT_MMAP_MAX);
    assert_int_equal(map[BOOT_MMAP_MAX - 1].base,
                     (BOOT_MMAP_MAX - 1) * 0x2000ull);
}

/* Overlaps can make more pieces than fit; the rest is cut with a warning. */
static void output_bounded(void **state)
{
    add(0, 0x100000, RAM);
    for ( unsigned int i = 0; i < BOOT_MMAP_MAX - 1; i++ )
        add(0x1000 + i * 0x2000ull, 0x1000, RES);
    assert_int_equal(sanitize(), BOOT_MMAP_MAX - 1);
    assert_int_equal(nr, BOOT_MMAP_MAX);
    assert_true(capture_has("shimk: warning: mmap: 255 entries after "
                            "clean-up, keeping the first 128"));
    for ( unsigned int i = 0; i < nr; i++ )
    {
        assert_int_equal(map[i].base, i * 0x1000ull);
        assert_int_equal(map[i].len, 0x1000);
        assert_int_equal(map[i].type, i % 2 ? RES : RAM);
    }
}

/* Sanitizing twice changes nothing the second time. */
static void idempotent(void **state)
{
    struct mmap_entry first[2 * BOOT_MMAP_MAX];
    unsigned int first_nr;

    add(0x7fe0000, 0x40000, ACPI);
    add(0, 0xa0000, RAM);
    add(0x100000, 0x7f00000, RAM);
    add(0x9fc00, 0x400, RES);
    sanitize();
    memcpy(first, map, sizeof(map));
    first_nr = nr;
    capture_reset();
    expect_overlaps(0, sanitize());
    expect_map(first, first_nr);
}

static void reserve_records(void **state)
{
    struct boot_info *bi = test_calloc(1, sizeof(*bi));

    assert_int_equal(boot_info_reserve(bi, 0x100000, 0x2000), 0);
    assert_int_equal(boot_info_reserve(bi, 0x7000, 1), 0);
    assert_int_equal(bi->nr_reserved, 2);
    assert_int_equal(bi->reserved[0].base, 0x100000);
    assert_int_equal(bi->reserved[0].len, 0x2000);
    assert_int_equal(bi->reserved[1].base, 0x7000);
    assert_int_equal(bi->reserved[1].len, 1);

    /* Nothing to keep out: accepted, not recorded. */
    assert_int_equal(boot_info_reserve(bi, 0x9000, 0), 0);
    assert_int_equal(bi->nr_reserved, 2);
    test_free(bi);
}

/* A range past the top of the address space is clamped, never wrapped. */
static void reserve_wrapping_is_clamped(void **state)
{
    struct boot_info *bi = test_calloc(1, sizeof(*bi));

    assert_int_equal(boot_info_reserve(bi, 0x1000000, UINT64_MAX - 0x100),
                     0);
    assert_int_equal(bi->reserved[0].base, 0x1000000);
    assert_int_equal(bi->reserved[0].len, 0ull - 0x1000000);
    assert_true(bi->reserved[0].base + bi->reserved[0].len - 1 >=
                bi->reserved[0].base);
    assert_int_equal(boot_info_reserve(bi, 0, UINT64_MAX), 0);
    assert_int_equal(bi->reserved[1].len, UINT64_MAX);
    /* Exactly to the top is no wrap. */
    assert_int_equal(boot_info_reserve(bi, 0xfffffffffffff000ull, 0x1000), 0);
    assert_int_equal(bi->reserved[2].len, 0x1000);
    test_free(bi);
}

/* RAM at or above the limit is dropped; other types are kept. */
static void clip_ram_above_limit(void **state)
{
    struct mmap_entry m[] = {
        { 0x0, 0x9f000, MMAP_RAM },
        { 0x100000, 0x7ff00000, MMAP_RAM },         /* crosses 1 GiB */
        { 0xfee00000, 0x1000, MMAP_RESERVED },      /* above, kept */
        { 0x100000000, 0x100000000, MMAP_RAM },     /* wholly above */
    };
    unsigned int nr = 4;

    assert_int_equal(mmap_clip_ram(m, &nr, 0x40000000),
                     0x7ff00000 - (0x40000000 - 0x100000) + 0x100000000);
    assert_int_equal(nr, 3);
    assert_int_equal(m[1].base, 0x100000);
    assert_int_equal(m[1].len, 0x40000000 - 0x100000);
    assert_int_equal(m[2].type, MMAP_RESERVED);
    nr = 3;
    assert_int_equal(mmap_clip_ram(m, &nr, UINT64_MAX), 0);
    assert_int_equal(nr, 3);
}

/* QEMU's etc/e820: packed 20-byte entries, stray bytes ignored. */
static void fw_cfg_e820_entries(void **state)
{
    struct boot_info *bi = test_calloc(1, sizeof(*bi));
    uint8_t blob[2 * 20 + 7] = { 0 };
    uint64_t base = 0x100000, len = 0x7f00000;
    uint32_t type = MMAP_RAM;

    memcpy(blob + 20, &base, 8);
    memcpy(blob + 28, &len, 8);
    memcpy(blob + 36, &type, 4);
    assert_int_equal(fw_cfg_e820_parse(bi, blob, sizeof(blob)), 2);
    assert_int_equal(bi->nr_mmap, 2);
    assert_int_equal(bi->mmap[1].base, 0x100000);
    assert_int_equal(bi->mmap[1].len, 0x7f00000);
    assert_int_equal(bi->mmap[1].type, MMAP_RAM);
    /* A full map takes no more. */
    bi->nr_mmap = BOOT_MMAP_MAX;
    assert_int_equal(fw_cfg_e820_parse(bi, blob, sizeof(blob)), 0);
    test_free(bi);
}

static void reserve_full(void **state)
{
    struct boot_info *bi = test_calloc(1, sizeof(*bi));

    for ( unsigned int i = 0; i < BOOT_RESERVED_MAX; i++ )
        assert_int_equal(boot_info_reserve(bi, i * 0x1000ull, 0x1000), 0);
    assert_int_equal(boot_info_reserve(bi, 0x100000, 0x1000), -ENOSPC);
    assert_int_equal(bi->nr_reserved, BOOT_RESERVED_MAX);
    assert_int_equal(bi->reserved[BOOT_RESERVED_MAX - 1].base,
                     (BOOT_RESERVED_MAX - 1) * 0x1000ull);
    /* A full table still takes an empty range. */
    assert_int_equal(boot_info_reserve(bi, 0x100000, 0), 0);
    test_free(bi);
}

static void protocol_names(void **state)
{
    assert_string_equal(boot_protocol_name(BOOT_PVH), "pvh");
    assert_string_equal(boot_protocol_name(BOOT_MB2), "mb2");
    assert_string_equal(boot_protocol_name(BOOT_UNKNOWN), "unknown");
    assert_string_equal(boot_protocol_name((enum boot_protocol)42),
                        "unknown");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup(fn, setup)
    const struct CMUnitTest tests[] = {
        T(empty_map),
        T(already_clean),
        T(sorted),
        T(adjacent_same_type_merged),
        T(same_type_overlap_quiet),
        T(zero_length_dropped),
        T(overlap_warning_line),
        T(overlap_in_the_middle),
        T(restrictiveness_order),
        T(unknown_type_ranks_as_reserved),
        T(several_overlaps),
        T(wrapping_entry_clamped),
        T(input_bounded),
        T(output_bounded),
        T(idempotent),
        T(reserve_records),
        T(reserve_wrapping_is_clamped),
        T(clip_ram_above_limit),
        T(fw_cfg_e820_entries),
        T(reserve_full),
        T(protocol_names),
    };
#undef T

    return cmocka_run_group_tests_name("boot-info", tests, NULL, NULL);
}
