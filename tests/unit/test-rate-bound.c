/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/rate-bound.c: a rate from a bracket, and when two rates agree. */

#include <asm/rate-bound.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <cmocka.h>

/* 10 ms of the PIT against a 2.1 GHz TSC, bracketed by 100 us reads. */
static void a_bracket_gives_its_midpoint_and_half_width(void **state)
{
    uint64_t khz;
    uint32_t ppm;

    (void)state;
    assert_true(rate_from_bracket(20900000, 21100000, 10000000, &khz, &ppm));
    assert_int_equal(khz, 2100000);
    assert_int_equal(ppm, 4762); /* 100000 / 21000000, rounded up */
    /* An exact count: no width. */
    assert_true(rate_from_bracket(21000000, 21000000, 10000000, &khz, &ppm));
    assert_int_equal(ppm, 0);
}

static void nothing_to_measure_is_refused(void **state)
{
    uint64_t khz = 7;
    uint32_t ppm = 7;

    (void)state;
    assert_false(rate_from_bracket(10, 5, 10000000, &khz, &ppm));
    assert_false(rate_from_bracket(0, 0, 10000000, &khz, &ppm));
    assert_false(rate_from_bracket(100, 200, 0, &khz, &ppm));
    /* A bracket wider than its midpoint is no better than 100 %. */
    assert_true(rate_from_bracket(0, 1000000, 1000000, &khz, &ppm));
    assert_int_equal(ppm, 1000000);
}

/* Xen's 100 MHz APIC timer measured twice, as at boot and at a resume. */
static void overlapping_bounds_agree(void **state)
{
    (void)state;
    assert_true(rate_bounds_agree(100002, 1600, 100003, 1500));
    assert_true(rate_bounds_agree(100000, 0, 100000, 0));
    /* Just meeting: 100000 +/- 1 % reaches 101000, as 102000 -1 % does. */
    assert_true(rate_bounds_agree(100000, 10000, 102000, 9804));
    assert_false(rate_bounds_agree(100000, 10000, 102100, 9804));
    /* A stated rate within the other's bound. */
    assert_true(rate_bounds_agree(2100000, 0, 2110000, 5000));
}

static void disjoint_bounds_are_two_rates(void **state)
{
    (void)state;
    /* QEMU's 1 GHz after Xen's 100 MHz. */
    assert_false(rate_bounds_agree(100002, 1600, 1000000, 2000));
    /* 0.5 % apart, each known to 0.2 %. */
    assert_false(rate_bounds_agree(2100000, 2000, 2110500, 2000));
    /* Stated rates: any whole kHz apart beyond rounding. */
    assert_false(rate_bounds_agree(2100000, 0, 2100002, 0));
    assert_true(rate_bounds_agree(2100000, 0, 2100001, 0));
    /* A bound of 100 % agrees with anything below twice its rate. */
    assert_true(rate_bounds_agree(1000, 1000000, 1, 0));
    assert_false(rate_bounds_agree(1000, 1000000, 3000, 0));
}

/* The PIT at a resume under nested KVM: 2.1 GHz in use, +/- 0.8 %. */
#define IN_USE 2097138u, 7800u

static void one_agreeing_sample_keeps_the_rate(void **state)
{
    struct rate_sample s[] = { { 2098020, 7847 } };
    unsigned int pick = 99;

    (void)state;
    assert_int_equal(rate_recheck_verdict(IN_USE, s, 1, 3, &pick),
                     RATE_KEPT);
    assert_int_equal(pick, 99);
}

/* The round that was 34 % off in CI, then two that agree with the rate. */
static void a_lone_outlier_is_not_a_new_rate(void **state)
{
    struct rate_sample s[] = { { 2814251, 6000 }, { 2100158, 7806 } };
    unsigned int pick = 99;

    (void)state;
    assert_int_equal(rate_recheck_verdict(IN_USE, s, 1, 3, &pick),
                     RATE_MEASURE_MORE);
    assert_int_equal(rate_recheck_verdict(IN_USE, s, 2, 3, &pick),
                     RATE_KEPT);
}

/* A rate 3/2 of the true one in use: two samples agree on the truth. */
static void two_agreeing_samples_change_it(void **state)
{
    struct rate_sample s[] = { { 2814251, 6000 },
                               { 2098020, 7847 },
                               { 2090121, 7815 } };
    unsigned int pick = 99;

    (void)state;
    assert_int_equal(rate_recheck_verdict(3145707, 0, s, 2, 3, &pick),
                     RATE_MEASURE_MORE);
    assert_int_equal(rate_recheck_verdict(3145707, 0, s, 3, 3, &pick),
                     RATE_CHANGED);
    /* The tighter of the two that agree. */
    assert_int_equal(pick, 2);
    /* Agreeing at once: the first of them, its bound the tighter. */
    s[0] = (struct rate_sample){ 2099000, 5000 };
    assert_int_equal(rate_recheck_verdict(3145707, 0, s, 2, 3, &pick),
                     RATE_CHANGED);
    assert_int_equal(pick, 0);
}

static void samples_that_never_agree_are_unsettled(void **state)
{
    struct rate_sample s[] = { { 2814251, 1000 },
                               { 938605, 2354 },
                               { 1500000, 1000 } };
    unsigned int pick = 99;

    (void)state;
    assert_int_equal(rate_recheck_verdict(IN_USE, s, 3, 3, &pick),
                     RATE_UNSETTLED);
    assert_int_equal(rate_recheck_verdict(IN_USE, s, 0, 3, &pick),
                     RATE_MEASURE_MORE);
    assert_int_equal(pick, 99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bracket_gives_its_midpoint_and_half_width),
        cmocka_unit_test(nothing_to_measure_is_refused),
        cmocka_unit_test(overlapping_bounds_agree),
        cmocka_unit_test(disjoint_bounds_are_two_rates),
        cmocka_unit_test(one_agreeing_sample_keeps_the_rate),
        cmocka_unit_test(a_lone_outlier_is_not_a_new_rate),
        cmocka_unit_test(two_agreeing_samples_change_it),
        cmocka_unit_test(samples_that_never_agree_are_unsettled),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
