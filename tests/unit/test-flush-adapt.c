/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/flush/flush-adapt-rule.c: buckets, trials and switches. */

#include <asm/flush-adapt.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static void buckets(void **state)
{
    static const unsigned int want[] = { 0, 0, 1, 1, 2, 2, 2, 2, 3, 3 };

    for ( unsigned int t = 0; t < 10; t++ )
        assert_int_equal(adapt_bucket_of(t), want[t]);
    assert_int_equal(adapt_bucket_of(255), 3);
    for ( unsigned int b = 0; b < ADAPT_BUCKETS; b++ )
        assert_int_equal(adapt_bucket_of(adapt_bucket_first(b)), b);
    assert_string_equal(adapt_bucket_name(0), "1");
    assert_string_equal(adapt_bucket_name(2), "4-7");
    assert_string_equal(adapt_bucket_name(3), "8+");
    assert_string_equal(adapt_bucket_name(4), "?");
}

/* The cheaper timed path; a path never timed is never the choice. */
static void seeded(void **state)
{
    struct adapt_bucket b;

    adapt_seed(&b, 30000, 20000);
    assert_int_equal(b.choice, ADAPT_L0);
    adapt_seed(&b, 20000, 30000);
    assert_int_equal(b.choice, ADAPT_IPI);
    adapt_seed(&b, 20000, 20000);
    assert_int_equal(b.choice, ADAPT_L0);
    adapt_seed(&b, 20000, 0);
    assert_int_equal(b.choice, ADAPT_IPI);
    adapt_seed(&b, 0, 20000);
    assert_int_equal(b.choice, ADAPT_L0);
    adapt_seed(&b, 0, 0);
    assert_int_equal(b.choice, ADAPT_IPI);
    assert_int_equal(b.switches, 0);
}

/*
 * Xen in TCG at 8 vCPUs, 7 targets (docs/tlbbench.md): IPIs about 90k
 * cycles, the L0 flush 480k.  With IPIs chosen, the first trial of the
 * L0 comes once IPIs have spent 32 times the L0's 480k.
 */
static void trials_are_paid_for(void **state)
{
    struct adapt_bucket b;
    unsigned int flushes = 0;

    adapt_seed(&b, 90000, 480000);
    while ( !adapt_take_trial(&b) )
    {
        assert_false(adapt_record(&b, ADAPT_IPI, 90000));
        flushes++;
        assert_true(flushes < 1000);
    }
    /* 32 * 480000 / 90000 = 170.7: the 171st pays for it. */
    assert_int_equal(flushes, 171);
    assert_int_equal(b.credit, 0);
    /* A path never measured is tried at once. */
    adapt_seed(&b, 90000, 0);
    assert_true(adapt_take_trial(&b));
}

/*
 * The boot chose the L0 at 7 targets (it was cheaper then); under load
 * it grows to 480k while IPIs stay at 90k: the bucket switches once it
 * has 16 L0 flushes and 3 IPI trials, and not before.
 */
static void switches_on_evidence(void **state)
{
    struct adapt_bucket b;
    unsigned int l0 = 0, trials = 0;

    adapt_seed(&b, 90000, 60000);
    assert_int_equal(b.choice, ADAPT_L0);
    for ( ;; )
    {
        if ( adapt_take_trial(&b) )
        {
            trials++;
            if ( adapt_record(&b, ADAPT_IPI, 90000) )
                break;
            continue;
        }
        l0++;
        assert_false(adapt_record(&b, ADAPT_L0, 480000));
        assert_true(l0 < 10000);
    }
    assert_int_equal(b.choice, ADAPT_IPI);
    assert_int_equal(b.switches, 1);
    assert_true(l0 >= ADAPT_MIN_CHOSEN);
    assert_int_equal(trials, ADAPT_MIN_OTHER);
    /* Fresh evidence needed before the next switch. */
    assert_int_equal(b.cost[ADAPT_L0].samples, 0);
    assert_int_equal(b.cost[ADAPT_IPI].samples, 0);
}

/* Within an eighth is not a reason to switch; beyond it is. */
static void margin(void **state)
{
    struct adapt_bucket b;

    adapt_seed(&b, 0, 0);
    b.choice = ADAPT_L0;
    for ( unsigned int i = 0; i < ADAPT_MIN_CHOSEN; i++ )
        adapt_record(&b, ADAPT_L0, 8000);
    for ( unsigned int i = 0; i < ADAPT_MIN_OTHER; i++ )
        assert_false(adapt_record(&b, ADAPT_IPI, 7000));
    assert_int_equal(b.choice, ADAPT_L0);
    assert_true(adapt_record(&b, ADAPT_IPI, 6000));
    assert_int_equal(b.choice, ADAPT_IPI);
}

/* One preempted target's flush moves the average by at most its clip. */
static void outliers_clipped(void **state)
{
    struct adapt_bucket b;

    adapt_seed(&b, 0, 0);
    adapt_record(&b, ADAPT_IPI, 10000);
    assert_int_equal(b.cost[ADAPT_IPI].avg, 10000);
    adapt_record(&b, ADAPT_IPI, 10000000);
    assert_int_equal(b.cost[ADAPT_IPI].avg,
                     10000 - 10000 / 8 + 10000 * ADAPT_CLIP / 8);
    assert_false(adapt_record(&b, NR_ADAPT_PATHS, 1));
}

/* Alternating costs do not make it flap: each switch needs new samples. */
static void no_flapping(void **state)
{
    struct adapt_bucket b;
    unsigned int switches = 0;

    adapt_seed(&b, 10000, 10000);
    for ( unsigned int i = 0; i < 2000; i++ )
    {
        enum adapt_path p = adapt_take_trial(&b) ? !b.choice : b.choice;

        /* The chosen path always looks a little dearer than the other. */
        switches += adapt_record(&b, p, p == b.choice ? 10500 : 10000);
    }
    assert_int_equal(switches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buckets),
        cmocka_unit_test(seeded),
        cmocka_unit_test(trials_are_paid_for),
        cmocka_unit_test(switches_on_evidence),
        cmocka_unit_test(margin),
        cmocka_unit_test(outliers_clipped),
        cmocka_unit_test(no_flapping),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
