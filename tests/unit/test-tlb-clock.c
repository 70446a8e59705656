/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/flush/tlb-clock.c: NEED_FLUSH, the tick across a wrap, the filter. */

#include <asm/flushtlb.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <cmocka.h>

/*
 * The truth table of tlb_need_flush(now, cpu_stamp, lastuse):
 * a CPU stamped after the frame's last use flushed since (no flush);
 * a last use newer than the clock means the clock wrapped since, and
 * every wrap flushed every CPU (no flush); the clock at 0 (off, or a
 * wrap under way) always says flush.
 */
static void need_flush_truth_table(void **state)
{
    static const struct
    {
        uint32_t now, stamp, lastuse;
        bool need;
    } rows[] = {
        { 10, 5, 7, true },     /* flushed before last use */
        { 10, 7, 7, true },     /* stamp == lastuse: not provably after */
        { 10, 8, 7, false },    /* flushed after last use */
        { 10, 10, 10, true },   /* used at the very tick it flushed */
        { 10, 0, 7, true },     /* stamp reset by a wrap, used since */
        { 10, 5, 11, false },   /* lastuse beyond now: wrapped since */
        { 10, 12, 11, false },
        { 0, 8, 7, true },      /* clock off or wrapping */
        { 0, 0, 0, true },
        { 1, 0, 0, true },      /* just after a wrap, frame used at 0 */
        { 1, 1, 0, false },
        { 0xffffffff, 0xfffffffe, 0xfffffffe, true },
        { 0xffffffff, 0xffffffff, 0xfffffffe, false },
    };

    for ( unsigned int i = 0; i < ARRAY_SIZE(rows); i++ )
        if ( tlb_need_flush(rows[i].now, rows[i].stamp, rows[i].lastuse) !=
             rows[i].need )
            fail_msg("row %u: now %u stamp %u lastuse %u: want %d", i,
                     rows[i].now, rows[i].stamp, rows[i].lastuse,
                     rows[i].need);
}

static void tick_and_wrap(void **state)
{
    assert_int_equal(tlb_clock_next(1, 0xffffffffu), 2);
    assert_int_equal(tlb_clock_next(0xfffffffeu, 0xffffffffu), 0xffffffffu);
    /* The tick that produces 0 is the one that leads the wrap. */
    assert_int_equal(tlb_clock_next(0xffffffffu, 0xffffffffu), 0);
    /* A narrowed clock (tlb-clock-bits=8) wraps at 256. */
    assert_int_equal(tlb_clock_next(254, 0xff), 255);
    assert_int_equal(tlb_clock_next(255, 0xff), 0);
    assert_int_equal(tlb_clock_next(15, 0xf), 0);
}

/*
 * A whole period of a narrow clock: a frame freed at every tick is
 * checked against CPUs stamped at every tick; the answer must match
 * "did the CPU flush strictly after the last use", and the wrap must
 * make every stale question moot.
 */
static void narrow_clock_period(void **state)
{
    const uint32_t mask = 0xf;

    for ( uint32_t now = 1; now <= mask; now++ )
        for ( uint32_t lastuse = 1; lastuse <= now; lastuse++ )
            for ( uint32_t stamp = 0; stamp <= now; stamp++ )
                assert_int_equal(tlb_need_flush(now, stamp, lastuse),
                                 !(stamp > lastuse));
}

static uint32_t stamps[NR_CPUS];

static uint32_t stamp_of(unsigned int cpu)
{
    return stamps[cpu];
}

static void filter_clears_flushed_cpus(void **state)
{
    cpumask_t m;

    cpumask_setall(&m, 4);
    stamps[0] = 3;      /* flushed before the last use: keep */
    stamps[1] = 9;      /* after: clear */
    stamps[2] = 5;      /* equal: keep */
    stamps[3] = 0;      /* reset by a wrap, used since: keep */
    assert_int_equal(tlb_filter(&m, stamp_of, 10, 5), 1);
    assert_true(cpumask_test_cpu(0, &m));
    assert_false(cpumask_test_cpu(1, &m));
    assert_true(cpumask_test_cpu(2, &m));
    assert_true(cpumask_test_cpu(3, &m));
}

/* Clock at 0 (off for assisted flush, or wrapping): filter nothing. */
static void filter_is_a_noop_with_the_clock_off(void **state)
{
    cpumask_t m, orig;

    cpumask_setall(&m, 4);
    cpumask_copy(&orig, &m);
    for ( unsigned int i = 0; i < 4; i++ )
        stamps[i] = 100;
    assert_int_equal(tlb_filter(&m, stamp_of, 0, 5), 0);
    assert_true(cpumask_equal(&m, &orig));
}

/* CPUs outside the mask are never looked at or added. */
static void filter_only_narrows(void **state)
{
    cpumask_t m;

    cpumask_clear(&m);
    cpumask_set_cpu(2, &m);
    stamps[0] = stamps[1] = stamps[3] = 0;
    stamps[2] = 50;
    assert_int_equal(tlb_filter(&m, stamp_of, 60, 40), 1);
    assert_true(cpumask_empty(&m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(need_flush_truth_table),
        cmocka_unit_test(tick_and_wrap),
        cmocka_unit_test(narrow_clock_period),
        cmocka_unit_test(filter_clears_flushed_cpus),
        cmocka_unit_test(filter_is_a_noop_with_the_clock_off),
        cmocka_unit_test(filter_only_narrows),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
