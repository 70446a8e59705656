/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/flush/flush-yield-rule.c: whom a waiting initiator yields to. */

#include <asm/flush-yield.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static cpumask_t held;          /* what the fake L0 says it holds off */
static unsigned int asked;      /* descheduled() calls */

static bool descheduled(unsigned int cpu)
{
    asked++;
    return cpumask_test_cpu(cpu, &held);
}

static void setup_masks(cpumask_t *pending, const unsigned int *p,
                        unsigned int np, const unsigned int *h,
                        unsigned int nh)
{
    cpumask_clear(pending);
    cpumask_clear(&held);
    asked = 0;
    for ( unsigned int i = 0; i < np; i++ )
        cpumask_set_cpu(p[i], pending);
    for ( unsigned int i = 0; i < nh; i++ )
        cpumask_set_cpu(h[i], &held);
}

/* Every target running: no yield, and only pending CPUs are asked. */
static void all_running(void **state)
{
    cpumask_t pending;
    unsigned int next = 0;
    const unsigned int p[] = { 1, 2, 3 };

    setup_masks(&pending, p, 3, NULL, 0);
    assert_int_equal(flush_yield_pick(&pending, 0, &next, descheduled), -1);
    assert_int_equal(asked, 3);
}

/* A held-off CPU that is not pending (it acknowledged) is no reason. */
static void held_but_done(void **state)
{
    cpumask_t pending;
    unsigned int next = 0;
    const unsigned int p[] = { 1 }, h[] = { 2 };

    setup_masks(&pending, p, 1, h, 1);
    assert_int_equal(flush_yield_pick(&pending, 0, &next, descheduled), -1);
}

/* Two held off: round robin, so neither starves the other of yields. */
static void round_robin(void **state)
{
    cpumask_t pending;
    unsigned int next = 0;
    const unsigned int p[] = { 1, 2, 3 }, h[] = { 1, 3 };

    setup_masks(&pending, p, 3, h, 2);
    assert_int_equal(flush_yield_pick(&pending, 0, &next, descheduled), 1);
    assert_int_equal(flush_yield_pick(&pending, 1, &next, descheduled), 3);
    assert_int_equal(flush_yield_pick(&pending, 2, &next, descheduled), 1);
}

/* The search wraps past the last CPU. */
static void wraps(void **state)
{
    cpumask_t pending;
    unsigned int next = NR_CPUS - 1;
    const unsigned int p[] = { 0 }, h[] = { 0 };

    setup_masks(&pending, p, 1, h, 1);
    assert_int_equal(flush_yield_pick(&pending, 0, &next, descheduled), 0);
    assert_int_equal(next, 1);
}

/* Bounded: after FLUSH_YIELD_MAX yields the wait only spins. */
static void bounded(void **state)
{
    cpumask_t pending;
    unsigned int next = 0;
    const unsigned int p[] = { 1 }, h[] = { 1 };

    setup_masks(&pending, p, 1, h, 1);
    assert_int_equal(flush_yield_pick(&pending, FLUSH_YIELD_MAX - 1, &next,
                                      descheduled), 1);
    asked = 0;
    assert_int_equal(flush_yield_pick(&pending, FLUSH_YIELD_MAX, &next,
                                      descheduled), -1);
    assert_int_equal(asked, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_running),
        cmocka_unit_test(held_but_done),
        cmocka_unit_test(round_robin),
        cmocka_unit_test(wraps),
        cmocka_unit_test(bounded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
