/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/xen/flush-late.c: a late flusher is the L0's only on evidence. */

#include <guest/xen-flush-late.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define MS 1000000ULL

static struct spin_holder_sample base(void)
{
    return (struct spin_holder_sample){
        .holder_then = 1, .holder_now = 1,
        .stolen_then = 40 * MS, .stolen_now = 40 * MS,
        .descheduled_now = false, .waited_ns = 5000 * MS,
    };
}

/* The holder ran the whole bound and never called: shimk's. */
static void ran_outside_call(void **state)
{
    struct spin_holder_sample s = base();

    assert_int_equal(xen_flush_late_cause(&s, false), XEN_FLUSH_LATE_SHIMK);
}

/* Inside the hypercall now: Xen's, whatever the runstate says. */
static void inside_call(void **state)
{
    struct spin_holder_sample s = base();

    assert_int_equal(xen_flush_late_cause(&s, true), XEN_FLUSH_LATE_IN_CALL);
    s.stolen_then = s.stolen_now = ~0ULL;
    assert_int_equal(xen_flush_late_cause(&s, true), XEN_FLUSH_LATE_IN_CALL);
}

/* Runnable now, or half the wait stolen: Xen held the vCPU off. */
static void held_off(void **state)
{
    struct spin_holder_sample s = base();

    s.descheduled_now = true;
    assert_int_equal(xen_flush_late_cause(&s, false),
                     XEN_FLUSH_LATE_HELD_OFF);
    s = base();
    s.stolen_now = s.stolen_then + 2500 * MS;
    assert_int_equal(xen_flush_late_cause(&s, false),
                     XEN_FLUSH_LATE_HELD_OFF);
    s.stolen_now--;
    assert_int_equal(xen_flush_late_cause(&s, false), XEN_FLUSH_LATE_SHIMK);
}

/* No runstate area (stolen ~0): no evidence outside the call. */
static void no_account(void **state)
{
    struct spin_holder_sample s = base();

    s.stolen_then = s.stolen_now = ~0ULL;
    assert_int_equal(xen_flush_late_cause(&s, false), XEN_FLUSH_LATE_SHIMK);
}

/* The role is free now: the waiter takes it, nothing is late. */
static void role_free(void **state)
{
    struct spin_holder_sample s = base();

    s.holder_now = -1;
    assert_int_equal(xen_flush_late_cause(&s, true), XEN_FLUSH_LATE_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ran_outside_call),
        cmocka_unit_test(inside_call),
        cmocka_unit_test(held_off),
        cmocka_unit_test(no_account),
        cmocka_unit_test(role_free),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
