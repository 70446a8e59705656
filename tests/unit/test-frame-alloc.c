/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/mm/frame-alloc.c: which frames the pool hands out, and in what order. */

#include <shimk/errno.h>
#include <shimk/frame.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#define NR_FRAMES 64
#define PG        0x1000ull

static struct frame table[NR_FRAMES];
static struct frame_pool pool;

static struct mmap_entry map[8];
static unsigned int nr_map;
static struct phys_range res[8];
static unsigned int nr_res;
static uint32_t added;          /* what frame_pool_add_ram reported */

static int setup(void **state)
{
    memset(table, 0xa5, sizeof(table));
    frame_pool_init(&pool, table, NR_FRAMES);
    nr_map = nr_res = 0;
    added = 0;
    return 0;
}

static void ram(paddr_t base, uint64_t len)
{
    map[nr_map++] = (struct mmap_entry){ base, len, MMAP_RAM };
}

static void other(paddr_t base, uint64_t len, uint32_t type)
{
    map[nr_map++] = (struct mmap_entry){ base, len, type };
}

static void reserve(paddr_t base, uint64_t len)
{
    res[nr_res++] = (struct phys_range){ base, len };
}

static uint32_t add(void)
{
    uint32_t n = frame_pool_add_ram(&pool, map, nr_map, res, nr_res);

    added += n;
    return n;
}

/*
 * Allocate until the pool is dry and compare with the frames expected
 * free, given as "first-last" pfn ranges terminated by -1.  Checks the
 * order too: with a sorted map, lowest frames come out first.  The
 * counts add_ram returned must agree.
 */
static void expect_free(const int *ranges)
{
    bool want[NR_FRAMES] = { false }, got[NR_FRAMES] = { false };
    uint32_t pfn, n_want = 0, n_got = 0, prev = 0;

    for ( const int *r = ranges; r[0] >= 0; r += 2 )
        for ( int f = r[0]; f <= r[1]; f++ )
        {
            want[f] = true;
            n_want++;
        }
    assert_int_equal(added, n_want);
    assert_int_equal(pool.nr_free, n_want);
    assert_int_equal(pool.nr_usable, n_want);

    while ( frame_pool_alloc(&pool, &pfn) )
    {
        assert_in_range(pfn, 0, NR_FRAMES - 1);
        if ( got[pfn] )
            fail_msg("frame %u handed out twice", pfn);
        if ( !want[pfn] )
            fail_msg("frame %u should not be free", pfn);
        if ( n_got && pfn < prev )
            fail_msg("frame %u came after frame %u", pfn, prev);
        got[pfn] = true;
        prev = pfn;
        n_got++;
    }
    assert_int_equal(n_got, n_want);
    assert_int_equal(pool.nr_free, 0);
}

#define EXPECT_FREE(...)                                                   \
    do                                                                     \
    {                                                                      \
        static const int ranges_[] = { __VA_ARGS__, -1 };                  \
        expect_free(ranges_);                                              \
    } while ( 0 )

static void init_empty(void **state)
{
    uint32_t pfn = 12345;

    assert_int_equal(pool.nr_frames, NR_FRAMES);
    assert_int_equal(pool.nr_free, 0);
    assert_int_equal(pool.nr_usable, 0);
    assert_int_equal(pool.free_head, FRAME_NONE);
    assert_false(frame_pool_alloc(&pool, &pfn));
    assert_int_equal(pfn, 12345);
    /* The table is reset, whatever was in it. */
    for ( unsigned int i = 0; i < NR_FRAMES; i++ )
    {
        assert_int_equal(table[i].flags, 0);
        assert_int_equal(table[i].next, FRAME_NONE);
    }
}

static void aligned_ram(void **state)
{
    ram(PG, 8 * PG);
    assert_int_equal(add(), 8);
    EXPECT_FREE(1, 8);
}

/* Only whole pages inside a range count: round the start up, the end down. */
static void unaligned_ram(void **state)
{
    ram(PG + 0x800, 8 * PG);
    assert_int_equal(add(), 7);
    EXPECT_FREE(2, 8);
}

static void ram_smaller_than_a_page(void **state)
{
    ram(3 * PG + 0x100, 0xe00);
    ram(5 * PG + 0x800, PG);        /* straddles two pages, fills neither */
    assert_int_equal(add(), 0);
    EXPECT_FREE(-1, -1);
}

static void only_ram_type_used(void **state)
{
    ram(0, 4 * PG);
    other(4 * PG, 4 * PG, MMAP_RESERVED);
    other(8 * PG, 4 * PG, MMAP_ACPI);
    other(12 * PG, 4 * PG, MMAP_NVS);
    other(16 * PG, 4 * PG, MMAP_UNUSABLE);
    ram(20 * PG, 4 * PG);
    other(24 * PG, 4 * PG, 7);
    assert_int_equal(add(), 8);
    EXPECT_FREE(0, 3, 20, 23);
}

static void reserved_cuts_middle(void **state)
{
    ram(0, 32 * PG);
    reserve(5 * PG, 2 * PG);
    assert_int_equal(add(), 30);
    EXPECT_FREE(0, 4, 7, 31);
}

/* A reserved byte range takes every page it touches. */
static void reserved_unaligned(void **state)
{
    ram(0, 32 * PG);
    reserve(5 * PG + 0x800, PG);    /* touches pages 5 and 6 */
    reserve(10 * PG + 0xfff, 1);    /* one byte: page 10 */
    add();
    EXPECT_FREE(0, 4, 7, 9, 11, 31);
}

static void reserved_cuts_top(void **state)
{
    ram(0, 32 * PG);
    reserve(30 * PG, 16 * PG);
    add();
    EXPECT_FREE(0, 29);
}

static void reserved_cuts_bottom(void **state)
{
    ram(4 * PG, 28 * PG);
    reserve(0, 6 * PG);
    add();
    EXPECT_FREE(6, 31);
}

static void reserved_overlapping_each_other(void **state)
{
    ram(0, 32 * PG);
    reserve(6 * PG, 4 * PG);        /* 6-9 */
    reserve(4 * PG, 4 * PG);        /* 4-7, listed after, lower */
    reserve(10 * PG, PG);           /* touching: 10 */
    reserve(20 * PG, 2 * PG);       /* 20-21 */
    reserve(20 * PG, PG);           /* inside the one before */
    reserve(12 * PG, 0);            /* empty: reserves nothing */
    add();
    EXPECT_FREE(0, 3, 11, 19, 22, 31);
}

static void reserved_outside_ram(void **state)
{
    ram(0, 8 * PG);
    ram(16 * PG, 8 * PG);
    reserve(10 * PG, 4 * PG);       /* in the gap */
    reserve(40 * PG, 8 * PG);       /* above all RAM */
    reserve(6 * PG, 12 * PG);       /* spans the gap: 6-17 */
    add();
    EXPECT_FREE(0, 5, 18, 23);
}

static void reserved_covers_everything(void **state)
{
    ram(PG, 16 * PG);
    reserve(0, 64 * PG);
    assert_int_equal(add(), 0);
    EXPECT_FREE(-1, -1);
}

/*
 * A reserved range whose end wraps past 2^64 (a hostile module size)
 * keeps everything above its start: before, its end read as below its
 * start, and the frames in between (the kernel's) were handed out.
 */
static void reserved_wrapping(void **state)
{
    ram(0, 32 * PG);
    reserve(2 * PG, 2 * PG);                    /* the kernel image */
    reserve(8 * PG, UINT64_MAX - 8 * PG + 1 + 4 * PG);  /* ends at 4 */
    reserve(24 * PG, UINT64_MAX);
    add();
    EXPECT_FREE(0, 1, 4, 7);
}

/*
 * Found by make fuzz (corpus mmap/regress-round-up): a range whose end
 * fits but whose rounding up to a page wraps: [1, 2^64 - 4095).
 */
static void reserved_rounding_wraps(void **state)
{
    ram(PG, 3 * PG);
    reserve(1, 0xfffffffffffff000ull);
    assert_int_equal(add(), 0);
    EXPECT_FREE(-1, -1);
}

/*
 * Found by make fuzz (tests/fuzz/corpus/mmap/regress-top-page): RAM in
 * the last page of the address space rounded its start up past 2^64,
 * to frame 0, and the pool took every frame from there.
 */
static void ram_in_the_last_page_adds_nothing(void **state)
{
    ram(0xffffffffffffff0aull, 0xf5);
    ram(0xffffffffffffe000ull, 0x1fff);
    assert_int_equal(add(), 0);
    EXPECT_FREE(-1, -1);
}

/* Several RAM ranges, several cuts: the full picture in one go. */
static void realistic_map(void **state)
{
    ram(0, 0x9fc00);                    /* pages 0-158, cut at 159 */
    other(0x9fc00, 0x400, MMAP_RESERVED);
    ram(0x100000, 0x3f00000);           /* from page 256: past the table */
    reserve(0, PG);                     /* real-mode IVT */
    reserve(0x8000, 0x1234);            /* pages 8-9 */
    reserve(0x30000, 0x2000);           /* 48-49: past the table too */
    add();
    EXPECT_FREE(1, 7, 10, 47, 50, 63);
}

/* RAM above the table is outside the pool's reach. */
static void ram_beyond_table(void **state)
{
    ram(60 * PG, 16 * PG);
    ram(100 * PG, 4 * PG);
    assert_int_equal(add(), 4);
    EXPECT_FREE(60, 63);
}

static void listed_twice_added_once(void **state)
{
    ram(0, 8 * PG);
    ram(0, 8 * PG);
    ram(4 * PG, 8 * PG);
    assert_int_equal(add(), 12);
    /* Adding the same map again finds nothing new. */
    assert_int_equal(add(), 0);
    EXPECT_FREE(0, 11);
}

static void lowest_first(void **state)
{
    uint32_t pfn;

    ram(8 * PG, 8 * PG);
    ram(32 * PG, 8 * PG);
    reserve(10 * PG, PG);
    add();
    for ( uint32_t want = 8; want < 16; want++ )
    {
        if ( want == 10 )
            continue;
        assert_true(frame_pool_alloc(&pool, &pfn));
        assert_int_equal(pfn, want);
    }
    assert_true(frame_pool_alloc(&pool, &pfn));
    assert_int_equal(pfn, 32);
}

static void exhaustion(void **state)
{
    uint32_t pfn;

    ram(0, 3 * PG);
    add();
    for ( unsigned int i = 0; i < 3; i++ )
        assert_true(frame_pool_alloc(&pool, &pfn));
    pfn = 777;
    assert_false(frame_pool_alloc(&pool, &pfn));
    assert_int_equal(pfn, 777);
    assert_false(frame_pool_alloc(&pool, &pfn));
    assert_int_equal(pool.nr_free, 0);
    assert_int_equal(pool.nr_usable, 3);
}

static void free_then_realloc(void **state)
{
    uint32_t pfn, a, b;

    ram(0, 4 * PG);
    add();
    assert_true(frame_pool_alloc(&pool, &a));
    assert_true(frame_pool_alloc(&pool, &b));
    assert_int_equal(pool.nr_free, 2);

    assert_int_equal(frame_pool_free(&pool, a), 0);
    assert_int_equal(pool.nr_free, 3);
    /* A freed frame is the next one out. */
    assert_true(frame_pool_alloc(&pool, &pfn));
    assert_int_equal(pfn, a);

    /* Free both, last first; the pool is as it was. */
    assert_int_equal(frame_pool_free(&pool, b), 0);
    assert_int_equal(frame_pool_free(&pool, a), 0);
    EXPECT_FREE(0, 3);
}

static void free_rejects_bad_frames(void **state)
{
    uint32_t pfn;

    ram(4 * PG, 4 * PG);
    reserve(6 * PG, PG);
    add();
    assert_true(frame_pool_alloc(&pool, &pfn));
    assert_int_equal(pfn, 4);

    assert_int_equal(frame_pool_free(&pool, 4), 0);
    /* Double free. */
    assert_int_equal(frame_pool_free(&pool, 4), -EINVAL);
    /* Free, never allocated. */
    assert_int_equal(frame_pool_free(&pool, 5), -EINVAL);
    /* Reserved, and not RAM at all: never usable. */
    assert_int_equal(frame_pool_free(&pool, 6), -EINVAL);
    assert_int_equal(frame_pool_free(&pool, 0), -EINVAL);
    /* Beyond the table. */
    assert_int_equal(frame_pool_free(&pool, NR_FRAMES), -EINVAL);
    assert_int_equal(frame_pool_free(&pool, FRAME_NONE), -EINVAL);

    /* None of that changed what the pool holds. */
    EXPECT_FREE(4, 5, 7, 7);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup(fn, setup)
    const struct CMUnitTest tests[] = {
        T(init_empty),
        T(aligned_ram),
        T(unaligned_ram),
        T(ram_smaller_than_a_page),
        T(only_ram_type_used),
        T(reserved_cuts_middle),
        T(reserved_unaligned),
        T(reserved_cuts_top),
        T(reserved_cuts_bottom),
        T(reserved_overlapping_each_other),
        T(reserved_outside_ram),
        T(reserved_covers_everything),
        T(reserved_wrapping),
        T(reserved_rounding_wraps),
        T(ram_in_the_last_page_adds_nothing),
        T(realistic_map),
        T(ram_beyond_table),
        T(listed_twice_added_once),
        T(lowest_first),
        T(exhaustion),
        T(free_then_realloc),
        T(free_rejects_bad_frames),
    };
#undef T

    return cmocka_run_group_tests_name("frame-alloc", tests, NULL, NULL);
}
