/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/mm/lazy-unmap.c: which CPUs a map after lazy unmaps must flush. */

#include <asm/flushtlb.h>
#include <shimk/compiler.h>
#include <shimk/lazy-unmap.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* The kernel's tlb_clock_filter(), over a fake clock and fake stamps. */
static uint32_t now, stamps[NR_CPUS];
static unsigned int filter_calls;

static uint32_t stamp_of(unsigned int cpu)
{
    return stamps[cpu];
}

static unsigned int filter(cpumask_t *mask, uint32_t lastuse)
{
    filter_calls++;
    return tlb_filter(mask, stamp_of, now, lastuse);
}

static cpumask_t mask_of(unsigned int bits)
{
    cpumask_t m;

    cpumask_clear(&m);
    for ( unsigned int i = 0; i < 32; i++ )
        if ( bits & (1u << i) )
            cpumask_set_cpu(i, &m);
    return m;
}

static bool mask_is(const cpumask_t *m, unsigned int bits)
{
    cpumask_t want = mask_of(bits);

    return cpumask_equal(m, &want);
}

static void reset(struct lazy_unmaps *l)
{
    memset(l, 0, sizeof(*l));
    memset(stamps, 0, sizeof(stamps));
    now = 10;
    filter_calls = 0;
}

/* No lazy unmap yet: the fast path, without even asking the clock. */
static void fresh_space_needs_no_flush(void **state)
{
    struct lazy_unmaps l;
    cpumask_t space = mask_of(0xf), targets;
    unsigned int gen;

    reset(&l);
    assert_false(lazy_map_targets(&l, &space, filter, &targets, &gen));
    assert_true(cpumask_empty(&targets));
    assert_int_equal(filter_calls, 0);
}

/* An unmap by the only CPU in the space (which flushed va itself). */
static void no_holders_changes_nothing(void **state)
{
    struct lazy_unmaps l;
    cpumask_t none = mask_of(0), space = mask_of(0x1), targets;
    unsigned int gen;

    reset(&l);
    lazy_unmap_note(&l, &none, 7);
    assert_int_equal(l.gen, 0);
    assert_false(lazy_map_targets(&l, &space, filter, &targets, &gen));
}

/* The bug's case: a holder not stamped since the unmap is flushed. */
static void holder_stamped_before_unmap_is_flushed(void **state)
{
    struct lazy_unmaps l;
    cpumask_t holders = mask_of(0x6), space = mask_of(0x7), targets;
    unsigned int gen;

    reset(&l);
    stamps[1] = 5;      /* flushed before the unmap at 7: may hold it */
    stamps[2] = 9;      /* flushed after it: holds nothing */
    lazy_unmap_note(&l, &holders, 7);
    assert_true(lazy_map_targets(&l, &space, filter, &targets, &gen));
    assert_true(mask_is(&targets, 0x2));
    /* CPU2 is dropped at once; CPU1 once it has flushed. */
    assert_true(mask_is(&l.cpus, 0x2));
    lazy_map_flushed(&l, &targets, gen);
    assert_true(cpumask_empty(&l.cpus));
    assert_false(lazy_map_targets(&l, &space, filter, &targets, &gen));
}

/* A CPU that left the space loaded another root: nothing to flush. */
static void holder_that_left_is_dropped(void **state)
{
    struct lazy_unmaps l;
    cpumask_t holders = mask_of(0x6), space = mask_of(0x5), targets;
    unsigned int gen;

    reset(&l);
    stamps[1] = stamps[2] = 3;
    lazy_unmap_note(&l, &holders, 7);
    assert_true(lazy_map_targets(&l, &space, filter, &targets, &gen));
    assert_true(mask_is(&targets, 0x4));
    assert_true(mask_is(&l.cpus, 0x4));
}

/* The clock off (assisted flush): every holder still in the space. */
static void clock_off_flushes_every_holder(void **state)
{
    struct lazy_unmaps l;
    cpumask_t holders = mask_of(0xe), space = mask_of(0xf), targets;
    unsigned int gen;

    reset(&l);
    now = 0;
    stamps[1] = stamps[2] = stamps[3] = 100;
    lazy_unmap_note(&l, &holders, 0);
    assert_true(lazy_map_targets(&l, &space, filter, &targets, &gen));
    assert_true(mask_is(&targets, 0xe));
    lazy_map_flushed(&l, &targets, gen);
    assert_false(lazy_map_targets(&l, &space, filter, &targets, &gen));
}

/* A lazy unmap noted while the flush ran: its holders stay recorded. */
static void unmap_racing_the_flush_keeps_holders(void **state)
{
    struct lazy_unmaps l;
    cpumask_t holders = mask_of(0x2), space = mask_of(0x3), targets;
    unsigned int gen;

    reset(&l);
    stamps[1] = 5;
    lazy_unmap_note(&l, &holders, 7);
    assert_true(lazy_map_targets(&l, &space, filter, &targets, &gen));
    lazy_unmap_note(&l, &holders, 8);
    lazy_map_flushed(&l, &targets, gen);
    assert_true(mask_is(&l.cpus, 0x2));
    assert_true(lazy_map_targets(&l, &space, filter, &targets, &gen));
    assert_int_equal(l.time, 8);
}

/* The latest unmap's time counts for every holder recorded before. */
static void later_unmap_moves_the_time(void **state)
{
    struct lazy_unmaps l;
    cpumask_t one = mask_of(0x2), two = mask_of(0x4), space = mask_of(0x7);
    cpumask_t targets;
    unsigned int gen;

    reset(&l);
    now = 20;
    stamps[1] = 8;      /* after the first unmap, before the second */
    stamps[2] = 3;
    lazy_unmap_note(&l, &one, 7);
    lazy_unmap_note(&l, &two, 12);
    assert_true(lazy_map_targets(&l, &space, filter, &targets, &gen));
    /* Conservative: CPU1 is flushed, though it flushed after its unmap. */
    assert_true(mask_is(&targets, 0x6));
}

/* The clock wrapped since the unmap: the wrap flushed every CPU. */
static void wrap_since_unmap_needs_no_flush(void **state)
{
    struct lazy_unmaps l;
    cpumask_t holders = mask_of(0x2), space = mask_of(0x3), targets;
    unsigned int gen;

    reset(&l);
    now = 3;
    stamps[1] = 0;
    lazy_unmap_note(&l, &holders, 250);
    assert_false(lazy_map_targets(&l, &space, filter, &targets, &gen));
    assert_true(cpumask_empty(&l.cpus));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fresh_space_needs_no_flush),
        cmocka_unit_test(no_holders_changes_nothing),
        cmocka_unit_test(holder_stamped_before_unmap_is_flushed),
        cmocka_unit_test(holder_that_left_is_dropped),
        cmocka_unit_test(clock_off_flushes_every_holder),
        cmocka_unit_test(unmap_racing_the_flush_keeps_holders),
        cmocka_unit_test(later_unmap_moves_the_time),
        cmocka_unit_test(wrap_since_unmap_needs_no_flush),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
