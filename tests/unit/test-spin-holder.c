/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/spin-holder.c: a lock wait is extended only on the L0's evidence. */

#include <shimk/spin-holder.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define MS 1000000ULL

static struct spin_holder_sample base(void)
{
    return (struct spin_holder_sample){
        .holder_then = 2, .holder_now = 2,
        .stolen_then = 100 * MS, .stolen_now = 100 * MS,
        .descheduled_now = false, .waited_ns = 5000 * MS,
    };
}

/* A holder that ran the whole bound and kept the lock: shimk's. */
static void ran_and_held(void **state)
{
    struct spin_holder_sample s = base();

    assert_false(spin_holder_extend(&s, 0));
}

/* Descheduled now: the L0's (the console_lock case at 4 on 2). */
static void descheduled_now(void **state)
{
    struct spin_holder_sample s = base();

    s.descheduled_now = true;
    assert_true(spin_holder_extend(&s, 0));
}

/* Half the bound stolen is enough; less is not. */
static void stolen_half(void **state)
{
    struct spin_holder_sample s = base();

    s.stolen_now = s.stolen_then + 2500 * MS;
    assert_true(spin_holder_extend(&s, 0));
    s.stolen_now = s.stolen_then + 2499 * MS;
    assert_false(spin_holder_extend(&s, 0));
}

/* Another holder, no holder, no account, a counter gone back: no. */
static void no_evidence(void **state)
{
    struct spin_holder_sample s = base();

    s.descheduled_now = true;
    s.holder_now = 3;
    assert_false(spin_holder_extend(&s, 0));
    s = base();
    s.holder_then = s.holder_now = -1;
    s.descheduled_now = true;
    assert_false(spin_holder_extend(&s, 0));
    s = base();
    s.stolen_then = ~0ULL;
    s.stolen_now = 9000 * MS;
    assert_false(spin_holder_extend(&s, 0));
    s = base();
    s.stolen_now = s.stolen_then - 1;
    assert_false(spin_holder_extend(&s, 0));
}

/* A minute at most, whatever the L0 says. */
static void bounded(void **state)
{
    struct spin_holder_sample s = base();

    s.descheduled_now = true;
    assert_true(spin_holder_extend(&s, SPIN_HOLDER_EXTENSIONS - 1));
    assert_false(spin_holder_extend(&s, SPIN_HOLDER_EXTENSIONS));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ran_and_held),
        cmocka_unit_test(descheduled_now),
        cmocka_unit_test(stolen_half),
        cmocka_unit_test(no_evidence),
        cmocka_unit_test(bounded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
