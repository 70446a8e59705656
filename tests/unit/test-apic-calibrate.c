/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/apic-calibrate.c: bracketed rates, their bounds, the best round. */

#include <asm/apic-calibrate.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <cmocka.h>

#define TSC_KHZ 2596142ull      /* a Xen guest's TSC, from its CPUID leaf */

/*
 * A count falling at khz, read at TSC t (bracket [t - pre, t + post]):
 * what a perfect timer would show.
 */
static struct apic_count_read at(uint64_t t, uint64_t khz, uint64_t pre,
                                 uint64_t post)
{
    struct apic_count_read r = {
        .tsc_before = t - pre,
        .count = (uint32_t)(0xffffffffull - t * khz / TSC_KHZ),
        .tsc_after = t + post,
    };

    return r;
}

/* Xen's 100 MHz and QEMU's 1 GHz, read with tight brackets over 10 ms. */
static void exact_rates(void **state)
{
    static const uint64_t rates[] = { 100000, 1000000 };

    for ( unsigned int i = 0; i < 2; i++ )
    {
        struct apic_count_read a = at(1000, rates[i], 50, 50);
        struct apic_count_read b = at(1000 + 10 * TSC_KHZ, rates[i], 50, 50);
        struct apic_calibration c;

        assert_true(apic_calib_round(&a, &b, TSC_KHZ, &c));
        assert_in_range(c.khz, rates[i] - 1, rates[i] + 1);
        /* 100 cycles of bracket in 26 M: about 4 ppm. */
        assert_in_range(c.err_ppm, 1, 5);
    }
}

/*
 * The old calibration's defect: a stall after the start read (the TSC
 * taken late) biased the rate up.  Here a 5 ms stall sits inside the end
 * read's bracket: the rate stays near the truth and the bound says how
 * far it may be off, instead of a rate 50 % high.
 */
static void stall_inside_a_bracket_widens_the_bound(void **state)
{
    uint64_t t1 = 1000 + 10 * TSC_KHZ, stall = 5 * TSC_KHZ;
    struct apic_count_read a = at(1000, 100000, 50, 50);
    struct apic_count_read b = at(t1, 100000, 50, stall);
    struct apic_calibration c;

    assert_true(apic_calib_round(&a, &b, TSC_KHZ, &c));
    /* Taken at the bracket's middle: within the bound of the truth. */
    assert_true(c.khz * 1000000 / 100000 >= 1000000 - c.err_ppm - 1);
    assert_true(c.khz * 1000000 / 100000 <= 1000000 + c.err_ppm + 1);
    assert_in_range(c.err_ppm, 180000, 260000);
}

/* A stall between the reads changes nothing: both clocks ran on. */
static void stall_between_reads_is_harmless(void **state)
{
    struct apic_count_read a = at(1000, 100000, 40, 40);
    struct apic_count_read b = at(1000 + 60 * TSC_KHZ, 100000, 40, 40);
    struct apic_calibration c;

    assert_true(apic_calib_round(&a, &b, TSC_KHZ, &c));
    assert_in_range(c.khz, 99999, 100001);
}

static void impossible_reads_are_refused(void **state)
{
    struct apic_count_read a = at(1000, 100000, 50, 50);
    struct apic_count_read b = at(1000 + 10 * TSC_KHZ, 100000, 50, 50);
    struct apic_count_read c;
    struct apic_calibration out;

    /* Count rose, or did not move. */
    assert_false(apic_calib_round(&b, &a, TSC_KHZ, &out));
    assert_false(apic_calib_round(&a, &a, TSC_KHZ, &out));
    /* Ran out: the ticks after 0 are unknown. */
    c = b;
    c.count = 0;
    assert_false(apic_calib_round(&a, &c, TSC_KHZ, &out));
    /* Overlapping brackets, a bracket that goes back, no TSC rate. */
    c = b;
    c.tsc_before = a.tsc_after - 1;
    assert_false(apic_calib_round(&a, &c, TSC_KHZ, &out));
    c = b;
    c.tsc_after = c.tsc_before - 1;
    assert_false(apic_calib_round(&a, &c, TSC_KHZ, &out));
    assert_false(apic_calib_round(&a, &b, 0, &out));
}

/* Brackets far wider than the interval: a bound near 100 %, no wrap. */
static void huge_brackets_give_a_near_total_bound(void **state)
{
    struct apic_count_read a = at(10 * TSC_KHZ, 100000, 10 * TSC_KHZ, 0);
    struct apic_count_read b = at(11 * TSC_KHZ, 100000, 0, 30 * TSC_KHZ);
    struct apic_calibration c;

    assert_true(apic_calib_round(&a, &b, TSC_KHZ, &c));
    assert_in_range(c.err_ppm, 900000, 1000000);
}

static void best_is_the_narrowest_valid_round(void **state)
{
    struct apic_calibration r[4] = {
        { 130773, 300000 }, { 100005, 80 }, { 100050, 40 }, { 1, 1 },
    };
    bool ok[4] = { true, true, true, false };

    assert_int_equal(apic_calib_best(r, ok, 4), 2);
    ok[2] = false;
    assert_int_equal(apic_calib_best(r, ok, 4), 1);
    ok[0] = ok[1] = false;
    assert_int_equal(apic_calib_best(r, ok, 4), -1);
    assert_int_equal(apic_calib_best(r, ok, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_rates),
        cmocka_unit_test(stall_inside_a_bracket_widens_the_bound),
        cmocka_unit_test(stall_between_reads_is_harmless),
        cmocka_unit_test(impossible_reads_are_refused),
        cmocka_unit_test(huge_brackets_give_a_near_total_bound),
        cmocka_unit_test(best_is_the_narrowest_valid_round),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
