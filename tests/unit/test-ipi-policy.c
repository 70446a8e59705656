/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/ipi-policy.c: when ALLBUT may stand in for unicast IPIs. */

#include <shimk/cpumask.h>
#include <asm/smp.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* One call's inputs; the defaults make an eligible 4-CPU case. */
struct ipi_case
{
    cpumask_t mask;
    unsigned int self;
    cpumask_t online;
    unsigned int nr_present;
    bool shorthand_enabled;
    bool bringup;
    bool in_irq;
};

static struct ipi_case c;

static void mask_of(cpumask_t *m, unsigned int lo, unsigned int hi)
{
    cpumask_clear(m);
    for ( unsigned int cpu = lo; cpu <= hi; cpu++ )
        cpumask_set_cpu(cpu, m);
}

/* CPUs 0-3 present and online, CPU 0 sends to 1-3. */
static int setup(void **state)
{
    memset(&c, 0, sizeof(c));
    mask_of(&c.online, 0, 3);
    mask_of(&c.mask, 1, 3);
    c.self = 0;
    c.nr_present = 4;
    c.shorthand_enabled = true;
    return 0;
}

/* The decision, checking it leaves both masks as they were. */
static bool eligible(void)
{
    struct ipi_case before = c;
    bool r = allbut_eligible(&c.mask, c.self, &c.online, c.nr_present,
                             c.shorthand_enabled, c.bringup, c.in_irq);

    assert_true(cpumask_equal(&c.mask, &before.mask));
    assert_true(cpumask_equal(&c.online, &before.online));
    return r;
}

static void all_others(void **state)
{
    assert_true(eligible());
}

/* Self in the mask or not: ALLBUT plus a self IPI covers both. */
static void with_self(void **state)
{
    cpumask_set_cpu(0, &c.mask);
    assert_true(eligible());
}

static void other_self(void **state)
{
    c.self = 2;
    mask_of(&c.mask, 0, 3);
    cpumask_clear_cpu(2, &c.mask);
    assert_true(eligible());
    cpumask_set_cpu(2, &c.mask);
    assert_true(eligible());
    /* The mask of CPU 0's call is not right for CPU 2. */
    mask_of(&c.mask, 1, 3);
    assert_false(eligible());
}

/* Two CPUs is the smallest machine where ALLBUT means anything. */
static void two_cpus(void **state)
{
    mask_of(&c.online, 0, 1);
    c.nr_present = 2;
    cpumask_clear(&c.mask);
    cpumask_set_cpu(1, &c.mask);
    assert_true(eligible());
    cpumask_set_cpu(0, &c.mask);
    assert_true(eligible());

    /* From CPU 1: a mask of itself alone misses CPU 0. */
    c.self = 1;
    cpumask_clear(&c.mask);
    cpumask_set_cpu(1, &c.mask);
    assert_false(eligible());
    cpumask_clear(&c.mask);
    assert_false(eligible());
    cpumask_set_cpu(0, &c.mask);
    assert_true(eligible());
}

static void one_cpu(void **state)
{
    mask_of(&c.online, 0, 0);
    c.nr_present = 1;
    cpumask_clear(&c.mask);
    assert_false(eligible());
    cpumask_set_cpu(0, &c.mask);
    assert_false(eligible());
}

/* The three switches: only enabled, not bringing up, not in IRQ. */
static void flags_truth_table(void **state)
{
    for ( unsigned int bits = 0; bits < 8; bits++ )
    {
        bool want = bits == 1;

        for ( unsigned int self_in = 0; self_in < 2; self_in++ )
        {
            setup(state);
            if ( self_in )
                cpumask_set_cpu(0, &c.mask);
            c.shorthand_enabled = bits & 1;
            c.bringup = bits & 2;
            c.in_irq = bits & 4;
            if ( eligible() != want )
                fail_msg("enabled %d bringup %d irq %d self_in %u: want %d",
                         c.shorthand_enabled, c.bringup, c.in_irq, self_in,
                         want);
        }
    }
}

/* A CPU present but not online: ALLBUT would hit it mid-start. */
static void present_not_online(void **state)
{
    c.nr_present = 5;
    assert_false(eligible());
    cpumask_set_cpu(0, &c.mask);
    assert_false(eligible());

    /* Even when the mask names the missing CPU too. */
    cpumask_set_cpu(4, &c.mask);
    assert_false(eligible());
}

/* More online than present makes no sense: refuse, do not guess. */
static void present_below_online(void **state)
{
    c.nr_present = 3;
    assert_false(eligible());
    c.nr_present = 0;
    assert_false(eligible());
}

static void mask_missing_one(void **state)
{
    for ( unsigned int cpu = 1; cpu <= 3; cpu++ )
    {
        setup(state);
        cpumask_clear_cpu(cpu, &c.mask);
        assert_false(eligible());
        cpumask_set_cpu(0, &c.mask);
        assert_false(eligible());
    }
    cpumask_clear(&c.mask);
    assert_false(eligible());
}

/* A target that is not online: ALLBUT would not reach it. */
static void mask_extra_offline(void **state)
{
    cpumask_set_cpu(4, &c.mask);
    assert_false(eligible());
    cpumask_set_cpu(0, &c.mask);
    assert_false(eligible());

    setup(state);
    cpumask_set_cpu(NR_CPUS - 1, &c.mask);
    assert_false(eligible());
}

/*
 * Only the number of present CPUs is known: a gap in the online
 * numbering is no reason to refuse while the counts agree.
 */
static void sparse_online(void **state)
{
    cpumask_clear(&c.online);
    cpumask_set_cpu(0, &c.online);
    cpumask_set_cpu(1, &c.online);
    cpumask_set_cpu(3, &c.online);
    c.nr_present = 3;
    cpumask_clear(&c.mask);
    cpumask_set_cpu(1, &c.mask);
    cpumask_set_cpu(3, &c.mask);
    assert_true(eligible());
    cpumask_set_cpu(2, &c.mask);
    assert_false(eligible());
}

/* The sender itself not online (it would be mid-bring-up): no. */
static void self_not_online(void **state)
{
    cpumask_clear_cpu(0, &c.online);
    c.nr_present = 3;
    assert_false(eligible());
}

/* Every CPU the kernel can have, the sender the last of them. */
static void all_nr_cpus(void **state)
{
    cpumask_setall(&c.online, NR_CPUS);
    c.nr_present = NR_CPUS;
    c.self = NR_CPUS - 1;
    cpumask_setall(&c.mask, NR_CPUS - 1);
    if ( NR_CPUS < 2 )
    {
        assert_false(eligible());
        return;
    }
    assert_true(eligible());
    cpumask_clear_cpu(0, &c.mask);
    assert_false(eligible());
}

/* The cases name CPUs up to 4 and need a few spare above them. */
static void too_few_cpus(void **state)
{
    skip();
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup(fn, setup)
    const struct CMUnitTest small[] = {
        cmocka_unit_test(too_few_cpus),
    };
    const struct CMUnitTest tests[] = {
        T(all_others),
        T(with_self),
        T(other_self),
        T(two_cpus),
        T(one_cpu),
        T(flags_truth_table),
        T(present_not_online),
        T(present_below_online),
        T(mask_missing_one),
        T(mask_extra_offline),
        T(sparse_online),
        T(self_not_online),
        T(all_nr_cpus),
    };
#undef T

    if ( NR_CPUS < 8 )
        return cmocka_run_group_tests_name("ipi-policy", small, NULL, NULL);
    return cmocka_run_group_tests_name("ipi-policy", tests, NULL, NULL);
}
