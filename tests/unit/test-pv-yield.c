/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/pv-yield.c: which target a wait yields to, and when Hyper-V hears. */

#include <guest/pv-yield.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static bool held[NR_CPUS];

static bool not_running(unsigned int cpu)
{
    return held[cpu];
}

static int setup(void **state)
{
    for ( unsigned int i = 0; i < NR_CPUS; i++ )
        held[i] = false;
    return 0;
}

/* Every target running: no yield. */
static void none_held(void **state)
{
    cpumask_t m;

    cpumask_setall(&m, 8);
    assert_int_equal(pv_yield_pick(&m, not_running), -1);
}

/* The first held target in the pending mask, not the first held CPU. */
static void first_pending_held(void **state)
{
    cpumask_t m;

    cpumask_clear(&m);
    held[1] = held[5] = held[6] = true;
    cpumask_set_cpu(3, &m);
    cpumask_set_cpu(5, &m);
    cpumask_set_cpu(6, &m);
    assert_int_equal(pv_yield_pick(&m, not_running), 5);
    cpumask_clear_cpu(5, &m);           /* acknowledged meanwhile */
    assert_int_equal(pv_yield_pick(&m, not_running), 6);
}

/* An empty mask (every target acknowledged) never yields. */
static void empty_mask(void **state)
{
    cpumask_t m;

    cpumask_clear(&m);
    held[0] = true;
    assert_int_equal(pv_yield_pick(&m, not_running), -1);
}

/* The highest CPU number is reached. */
static void last_cpu(void **state)
{
    cpumask_t m;

    cpumask_clear(&m);
    cpumask_set_cpu(NR_CPUS - 1, &m);
    held[NR_CPUS - 1] = true;
    assert_int_equal(pv_yield_pick(&m, not_running), NR_CPUS - 1);
}

/* 0xffffffff: the L0 asks never to be told. */
static void long_spin_never(void **state)
{
    for ( uint64_t s = PV_YIELD_SPINS; s < 1ull << 20; s += PV_YIELD_SPINS )
        assert_false(pv_long_spin_due(s, PV_LONG_SPIN_NEVER));
    assert_false(pv_long_spin_due(1ull << 40, PV_LONG_SPIN_NEVER));
}

/* Once per threshold, at each multiple, asked every PV_YIELD_SPINS. */
static void long_spin_each_multiple(void **state)
{
    unsigned int due = 0;
    uint64_t first = 0;

    for ( uint64_t s = PV_YIELD_SPINS; s <= 4095 * 3 + PV_YIELD_SPINS;
          s += PV_YIELD_SPINS )
        if ( pv_long_spin_due(s, 4095) )
        {
            if ( !due )
                first = s;
            due++;
        }
    assert_int_equal(due, 3);
    assert_true(first >= 4095 && first < 4095 + PV_YIELD_SPINS);
}

/* Below the check period: at most one per check, none before one. */
static void long_spin_small_threshold(void **state)
{
    assert_false(pv_long_spin_due(PV_YIELD_SPINS - 1, 0));
    assert_true(pv_long_spin_due(PV_YIELD_SPINS, 0));
    assert_true(pv_long_spin_due(2 * PV_YIELD_SPINS, 1));
    assert_true(pv_long_spin_due(3 * PV_YIELD_SPINS, 10));
}

/* Before the threshold, nothing; QEMU's hv-spinlocks minimum is 0xfff. */
static void long_spin_not_before(void **state)
{
    for ( uint64_t s = PV_YIELD_SPINS; s < 0xfff; s += PV_YIELD_SPINS )
        assert_false(pv_long_spin_due(s, 0xfff));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(none_held, setup),
        cmocka_unit_test_setup(first_pending_held, setup),
        cmocka_unit_test_setup(empty_mask, setup),
        cmocka_unit_test_setup(last_cpu, setup),
        cmocka_unit_test(long_spin_never),
        cmocka_unit_test(long_spin_each_multiple),
        cmocka_unit_test(long_spin_small_threshold),
        cmocka_unit_test(long_spin_not_before),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
