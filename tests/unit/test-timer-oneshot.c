/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/sched/timer-oneshot.c: when an arm writes, and why a wake was late. */

#include <shimk/timer-oneshot.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <cmocka.h>

#define LOST 2000000    /* cycles */
#define SLACK 1000

static struct oneshot armed(uint64_t deadline)
{
    struct oneshot o = { .deadline = deadline, .written_at = deadline - 500,
                         .expires_by = deadline + 10 };

    return o;
}

static void arm_decisions(void **state)
{
    struct oneshot none = { 0 };
    struct oneshot o = armed(10000);

    /* Nothing armed: write. */
    assert_int_equal(oneshot_arm(&none, 5000, 100, LOST),
                     ONESHOT_WRITE);
    /* Armed, not due: only an earlier deadline writes. */
    assert_int_equal(oneshot_arm(&o, 9999, 100, LOST),
                     ONESHOT_WRITE);
    assert_int_equal(oneshot_arm(&o, 10000, 100, LOST),
                     ONESHOT_KEEP);
    assert_int_equal(oneshot_arm(&o, 20000, 100, LOST),
                     ONESHOT_KEEP);
    /* Due, not delivered: never written over, earlier or later. */
    assert_int_equal(oneshot_arm(&o, 20000, 10001, LOST),
                     ONESHOT_KEEP);
    assert_int_equal(o.deadline, 10000);
    /* An earlier request, made late: the due expiry stands for it. */
    assert_int_equal(oneshot_arm(&o, 9000, 10000, LOST),
                     ONESHOT_KEEP);
    assert_int_equal(o.deadline, 9000);
    assert_int_equal(o.expires_by, 10010);
    assert_int_equal(oneshot_arm(&o, 8000, 20000, LOST),
                     ONESHOT_KEEP);
    assert_int_equal(o.deadline, 8000);
    assert_int_equal(o.expires_by, 20000);
    o = armed(10000);
    assert_int_equal(oneshot_arm(&o, 20000, 10000 + LOST - 1, LOST),
                     ONESHOT_KEEP);
    /* Undelivered for the whole bound: lost, write again. */
    assert_int_equal(oneshot_arm(&o, 20000, 10000 + LOST, LOST),
                     ONESHOT_WRITE_LOST);
}

/*
 * Every sequence of arms on a timer that never delivers: once an expiry
 * is due, no arm before the bound writes; the armed deadline only moves
 * earlier while it is not due.
 */
static void due_expiry_survives_any_arm(void **state)
{
    for ( uint64_t now = 0; now < 30000; now += 37 )
        for ( uint64_t d = 1; d < 40000; d += 1013 )
        {
            struct oneshot o = armed(10000);
            enum oneshot_arm a = oneshot_arm(&o, d, now, LOST);

            if ( now >= 10000 )
            {
                assert_int_equal(a, ONESHOT_KEEP);
                /* And it stands for d from now on, if d is earlier. */
                assert_int_equal(o.deadline, d < 10000 ? d : 10000);
            }
            else
                assert_int_equal(a, d < 10000 ? ONESHOT_WRITE
                                              : ONESHOT_KEEP);
        }
}

static enum late_wake classify(uint64_t due, struct oneshot o, bool by_timer,
                               bool counting)
{
    struct late_wake_facts f = { .due = due, .armed = o,
                                 .by_timer = by_timer,
                                 .timer_counting = counting };

    return late_wake_classify(&f, SLACK);
}

static void late_wake_causes(void **state)
{
    static const struct oneshot none;
    struct oneshot o = armed(10000), slow_write = armed(10000);

    slow_write.written_at = 12000;
    slow_write.expires_by = 12500;
    /* Nothing armed, or armed for after the sleeper: shimk's bug. */
    assert_int_equal(classify(10000, none, false, false), LATE_NOT_ARMED);
    assert_int_equal(classify(9999, o, false, true), LATE_NOT_ARMED);
    assert_int_equal(classify(9999, o, true, false), LATE_NOT_ARMED);
    /* Armed for it (or earlier), but the write made it expire late. */
    assert_int_equal(classify(10000, slow_write, true, false),
                     LATE_ARMED_LATE);
    assert_int_equal(classify(11000, slow_write, false, false),
                     LATE_ARMED_LATE);
    /* Within the slack the write is not to blame. */
    slow_write.expires_by = 10000 + SLACK;
    assert_int_equal(classify(10000, slow_write, true, false),
                     LATE_DELIVERED_LATE);
    /* The L0's doing. */
    assert_int_equal(classify(10000, o, true, false), LATE_DELIVERED_LATE);
    assert_int_equal(classify(10000, o, false, true), LATE_CLOCK_BEHIND);
    assert_int_equal(classify(10000, o, false, false), LATE_UNDELIVERED);
    /* An earlier expiry armed counts as armed for a later sleeper. */
    assert_int_equal(classify(20000, o, false, false), LATE_UNDELIVERED);
}

/*
 * An expiry counted lost is the L0's only when the APIC shows it fired
 * and never raised the vector.  The first state is the one a grub-xen
 * run read under Xen 4.17 in QEMU TCG.
 */
static void lost_by_l0_only_when_the_apic_shows_it(void **state)
{
    struct apic_timer_state seen = { .count = 0, .lvtt = 0xfd };
    struct apic_timer_state s;

    assert_true(oneshot_lost_by_l0(&seen, 0xfd));
    /* TSC-deadline mode (LVTT bits 18:17 = 10b): the MSR cleared. */
    s = seen;
    s.lvtt = (2u << 17) | 0xfd;
    assert_true(oneshot_lost_by_l0(&s, 0xfd));
    /* Still counting: nothing has fired yet. */
    s = seen;
    s.count = 1234;
    assert_false(oneshot_lost_by_l0(&s, 0xfd));
    /* Masked, or another vector: shimk's own state, not the L0's loss. */
    s = seen;
    s.lvtt |= LVTT_MASKED;
    assert_false(oneshot_lost_by_l0(&s, 0xfd));
    s = seen;
    s.lvtt = 0xef;
    assert_false(oneshot_lost_by_l0(&s, 0xfd));
    /* Raised and pending, or in service: delivery is shimk's business. */
    s = seen;
    s.irr = true;
    assert_false(oneshot_lost_by_l0(&s, 0xfd));
    s = seen;
    s.isr = true;
    assert_false(oneshot_lost_by_l0(&s, 0xfd));
}

static void names(void **state)
{
    assert_string_equal(late_wake_name(LATE_NOT_ARMED), "nothing-armed");
    assert_string_equal(late_wake_name(LATE_UNDELIVERED), "undelivered");
    assert_string_equal(late_wake_name(NR_LATE_WAKE), "?");
    for ( unsigned int i = 0; i < NR_LATE_WAKE; i++ )
        assert_string_not_equal(late_wake_name(i), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arm_decisions),
        cmocka_unit_test(due_expiry_survives_any_arm),
        cmocka_unit_test(late_wake_causes),
        cmocka_unit_test(lost_by_l0_only_when_the_apic_shows_it),
        cmocka_unit_test(names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
