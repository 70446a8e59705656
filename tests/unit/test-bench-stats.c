/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/tlbbench/bench-stats.c: percentiles, repeat medians, noise flag, shuffle. */

#include <shimk/bench-stats.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* 1..100 in reverse: nearest-rank percentiles are the ranks themselves. */
static void summary_of_a_known_set(void **state)
{
    uint64_t s[100];
    struct lat_summary l;

    for ( unsigned int i = 0; i < 100; i++ )
        s[i] = 100 - i;
    lat_summarize(s, 100, &l);
    assert_int_equal(l.n, 100);
    assert_int_equal(l.min, 1);
    assert_int_equal(l.p50, 50);
    assert_int_equal(l.p90, 90);
    assert_int_equal(l.p99, 99);
    assert_int_equal(l.max, 100);
    /* Sorted in place: the caller may reuse the array. */
    for ( unsigned int i = 1; i < 100; i++ )
        assert_true(s[i - 1] <= s[i]);
}

static void summary_of_nothing_and_one(void **state)
{
    uint64_t one = 7;
    struct lat_summary l = { .p50 = 99 };

    lat_summarize(NULL, 0, &l);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.p50, 0);
    assert_int_equal(l.max, 0);
    lat_summarize(&one, 1, &l);
    assert_int_equal(l.min, 7);
    assert_int_equal(l.p50, 7);
    assert_int_equal(l.p99, 7);
    assert_int_equal(l.max, 7);
}

/* The median is a measured value (lower middle), not an average. */
static void repeat_median_and_range(void **state)
{
    static const uint64_t odd[] = { 30, 10, 20 };
    static const uint64_t even[] = { 40, 10, 30, 20 };
    struct rep_summary r;

    rep_summarize(odd, 3, 200, &r);
    assert_int_equal(r.med, 20);
    assert_int_equal(r.min, 10);
    assert_int_equal(r.max, 30);
    assert_false(r.noisy);

    rep_summarize(even, 4, 200, &r);
    assert_int_equal(r.med, 20);
    assert_int_equal(r.max, 40);
}

/* Noisy exactly when the range exceeds the given share of the median. */
static void noise_flag_threshold(void **state)
{
    static const uint64_t tight[] = { 100, 110, 105 };  /* range 10 */
    static const uint64_t wide[] = { 100, 111, 105 };   /* range 11 */
    static const uint64_t zeros[] = { 0, 0, 0 };
    static const uint64_t zero_med[] = { 0, 0, 5 };
    struct rep_summary r;

    rep_summarize(tight, 3, 10, &r);    /* 10 of 105: not over 10% */
    assert_false(r.noisy);
    rep_summarize(wide, 3, 10, &r);     /* 11 of 105: over 10% */
    assert_true(r.noisy);
    rep_summarize(zeros, 3, 10, &r);
    assert_false(r.noisy);
    rep_summarize(zero_med, 3, 10, &r);
    assert_true(r.noisy);
    rep_summarize(zeros, 0, 10, &r);
    assert_int_equal(r.med, 0);
    assert_false(r.noisy);
}

/* Inputs beyond 64 repeats are cut, never read past the local copy. */
static void repeat_count_is_capped(void **state)
{
    uint64_t v[80];
    struct rep_summary r;

    for ( unsigned int i = 0; i < 80; i++ )
        v[i] = i < 64 ? 1 : 1000;
    rep_summarize(v, 80, 10, &r);
    assert_int_equal(r.max, 1);
}

/* A permutation, deterministic for a seed, and different across seeds. */
static void shuffle_is_a_permutation(void **state)
{
    unsigned int a[32], b[32], seen[32];
    uint64_t s1 = 42, s2 = 42, s3 = 43;
    bool moved = false;

    for ( unsigned int i = 0; i < 32; i++ )
        a[i] = b[i] = i;
    shuffle_indices(a, 32, &s1);
    shuffle_indices(b, 32, &s2);
    assert_memory_equal(a, b, sizeof(a));

    memset(seen, 0, sizeof(seen));
    for ( unsigned int i = 0; i < 32; i++ )
    {
        assert_true(a[i] < 32);
        seen[a[i]]++;
        moved |= a[i] != i;
    }
    for ( unsigned int i = 0; i < 32; i++ )
        assert_int_equal(seen[i], 1);
    assert_true(moved);

    for ( unsigned int i = 0; i < 32; i++ )
        b[i] = i;
    shuffle_indices(b, 32, &s3);
    assert_memory_not_equal(a, b, sizeof(a));

    /* A zero state is replaced, not left stuck at zero. */
    s1 = 0;
    shuffle_indices(b, 32, &s1);
    assert_true(s1 != 0);
    shuffle_indices(b, 1, &s1);
    shuffle_indices(b, 0, &s1);
}

static void ratios(void **state)
{
    assert_int_equal(ratio_milli(1, 1), 1000);
    assert_int_equal(ratio_milli(1, 3), 333);
    assert_int_equal(ratio_milli(2, 3), 667);   /* rounded */
    assert_int_equal(ratio_milli(5, 0), 0);
    assert_int_equal(ratio_milli(0, 5), 0);
}

static void paired_ratios(void **state)
{
    /* The host slowed down in round 2: both settings, not one. */
    const uint64_t a[] = { 1000, 500, 1100, 980, 1020 };
    const uint64_t b[] = { 1100, 560, 1190, 1060, 1150 };
    const uint64_t one[] = { 700 }, zero[] = { 0 };

    /* Round ratios 909, 893, 924, 925, 887: median 909. */
    assert_int_equal(paired_ratio_milli(a, b, 5), 909);
    assert_int_equal(paired_ratio_milli(b, b, 5), 1000);
    assert_int_equal(paired_ratio_milli(one, one, 1), 1000);
    /* A zero divisor counts as a zero ratio, never a division. */
    assert_int_equal(paired_ratio_milli(one, zero, 1), 0);
    assert_int_equal(paired_ratio_milli(a, b, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_of_a_known_set),
        cmocka_unit_test(summary_of_nothing_and_one),
        cmocka_unit_test(repeat_median_and_range),
        cmocka_unit_test(noise_flag_threshold),
        cmocka_unit_test(repeat_count_is_capped),
        cmocka_unit_test(shuffle_is_a_permutation),
        cmocka_unit_test(ratios),
        cmocka_unit_test(paired_ratios),
    };

    return cmocka_run_group_tests_name("bench-stats", tests, NULL, NULL);
}
