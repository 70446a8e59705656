/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/lib/sort.c: heapsort against qsort, nearest-rank percentiles. */

#include <shimk/compiler.h>
#include <shimk/sort.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* No subtraction: the values span all 64 bits. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/*
 * Sort a copy of in[0..n) with sort_u64, in an exact-size allocation
 * so AddressSanitizer catches a touch outside it, and compare with
 * qsort's answer.
 */
static void check_sort(const uint64_t *in, size_t n, const char *what)
{
    uint64_t *got = malloc((n ? n : 1) * sizeof(*got));
    uint64_t *want = malloc((n ? n : 1) * sizeof(*want));

    assert_non_null(got);
    assert_non_null(want);
    memcpy(got, in, n * sizeof(*in));
    memcpy(want, in, n * sizeof(*in));
    qsort(want, n, sizeof(*want), cmp_u64);
    sort_u64(got, n);
    for ( size_t i = 0; i < n; i++ )
        if ( got[i] != want[i] )
        {
            uint64_t g = got[i], w = want[i];

            free(got);
            free(want);
            fail_msg("%s, n %zu: [%zu] = %#llx, want %#llx", what, n, i,
                     (unsigned long long)g, (unsigned long long)w);
        }
    free(got);
    free(want);
}

/* Values: full range, few distinct, or with UINT64_MAX and 0 mixed in. */
static void fill(uint64_t *a, size_t n, unsigned int kind)
{
    for ( size_t i = 0; i < n; i++ )
    {
        switch ( kind )
        {
        case 0:
            a[i] = rng();
            break;
        case 1:
            a[i] = rng() % 4;
            break;
        case 2:
            a[i] = rng() % 3 == 0 ? UINT64_MAX : rng() % 8 == 0 ? 0 : rng();
            break;
        default:
            a[i] = UINT64_MAX - rng() % 5;
            break;
        }
    }
}

static void random_arrays(void **state)
{
    static const size_t sizes[] = { 0, 1, 2, 3, 17, 1000 };
    static uint64_t a[1000];

    for ( unsigned int i = 0; i < ARRAY_SIZE(sizes); i++ )
        for ( unsigned int kind = 0; kind < 4; kind++ )
            for ( unsigned int round = 0; round < 20; round++ )
            {
                fill(a, sizes[i], kind);
                check_sort(a, sizes[i], "random");
            }
}

/* Every size up to 70, where the heap's shape changes most. */
static void every_small_size(void **state)
{
    uint64_t a[70];

    for ( size_t n = 0; n <= ARRAY_SIZE(a); n++ )
        for ( unsigned int kind = 0; kind < 4; kind++ )
        {
            fill(a, n, kind);
            check_sort(a, n, "small");
        }
}

/* Every ordering of 6 distinct values, then of 6 with repeats. */
static void all_permutations(void **state)
{
    static const uint64_t vals[2][6] = {
        { 1, 2, 3, 4, 5, UINT64_MAX },
        { 0, 0, 7, 7, 7, UINT64_MAX },
    };

    for ( unsigned int v = 0; v < 2; v++ )
    {
        uint64_t p[6];
        unsigned int idx[6] = { 0, 1, 2, 3, 4, 5 };

        /* Heap's algorithm, iteratively. */
        unsigned int cnt[6] = { 0 };
        unsigned int i = 0;

        for ( unsigned int k = 0; k < 6; k++ )
            p[k] = vals[v][idx[k]];
        check_sort(p, 6, "permutation");
        while ( i < 6 )
        {
            if ( cnt[i] < i )
            {
                unsigned int j = i % 2 ? cnt[i] : 0, t = idx[j];

                idx[j] = idx[i];
                idx[i] = t;
                for ( unsigned int k = 0; k < 6; k++ )
                    p[k] = vals[v][idx[k]];
                check_sort(p, 6, "permutation");
                cnt[i]++;
                i = 0;
            }
            else
                cnt[i++] = 0;
        }
    }
}

static void sorted_and_reversed(void **state)
{
    static uint64_t a[1000];
    static const size_t sizes[] = { 2, 3, 17, 1000 };

    for ( unsigned int s = 0; s < ARRAY_SIZE(sizes); s++ )
    {
        size_t n = sizes[s];

        for ( size_t i = 0; i < n; i++ )
            a[i] = i * 3;
        check_sort(a, n, "sorted");
        for ( size_t i = 0; i < n; i++ )
            a[i] = UINT64_MAX - i;
        check_sort(a, n, "reversed");
        for ( size_t i = 0; i < n; i++ )
            a[i] = 42;
        check_sort(a, n, "all equal");
        for ( size_t i = 0; i < n; i++ )
            a[i] = i % 2 ? UINT64_MAX : 0;
        check_sort(a, n, "alternating");
    }
}

/* In place: the right answer lands in the caller's own array. */
static void in_place(void **state)
{
    uint64_t a[] = { 9, UINT64_MAX, 0, 3, 3, 1 };
    static const uint64_t want[] = { 0, 1, 3, 3, 9, UINT64_MAX };
    uint64_t one = 77;

    sort_u64(a, ARRAY_SIZE(a));
    assert_memory_equal(a, want, sizeof(want));
    sort_u64(&one, 1);
    assert_int_equal(one, 77);
    /* Nothing to sort: the pointer is not even looked at. */
    sort_u64(NULL, 0);
}

static void seq(uint64_t *a, size_t n)
{
    for ( size_t i = 0; i < n; i++ )
        a[i] = i + 1;
}

/* percentile_sorted on an exact-size copy: no read past the end. */
static uint64_t pct(const uint64_t *a, size_t n, unsigned int p)
{
    uint64_t *copy = malloc((n ? n : 1) * sizeof(*copy));
    uint64_t r;

    assert_non_null(copy);
    memcpy(copy, a, n * sizeof(*a));
    r = percentile_sorted(copy, n, p);
    free(copy);
    return r;
}

static void percentile_1_to_100(void **state)
{
    uint64_t a[100];

    seq(a, 100);
    assert_int_equal(pct(a, 100, 0), 1);
    assert_int_equal(pct(a, 100, 1), 1);
    assert_int_equal(pct(a, 100, 50), 50);
    assert_int_equal(pct(a, 100, 90), 90);
    assert_int_equal(pct(a, 100, 99), 99);
    assert_int_equal(pct(a, 100, 100), 100);
    /* With n = 100 the p-th percentile is the value p. */
    for ( unsigned int p = 1; p <= 100; p++ )
        assert_int_equal(pct(a, 100, p), p);
}

static void percentile_1_to_1000(void **state)
{
    uint64_t a[1000];

    seq(a, 1000);
    assert_int_equal(pct(a, 1000, 0), 1);
    assert_int_equal(pct(a, 1000, 50), 500);
    assert_int_equal(pct(a, 1000, 90), 900);
    assert_int_equal(pct(a, 1000, 99), 990);
    assert_int_equal(pct(a, 1000, 100), 1000);
}

/* Nearest rank rounds the rank up: ceil(p * n / 100). */
static void percentile_rounding(void **state)
{
    /* The worked example for nearest rank on Wikipedia's Percentile. */
    static const uint64_t w[] = { 15, 20, 35, 40, 50 };
    static const uint64_t three[] = { 5, 7, 9 };
    uint64_t ten[10];

    assert_int_equal(pct(w, 5, 5), 15);
    assert_int_equal(pct(w, 5, 30), 20);
    assert_int_equal(pct(w, 5, 40), 20);
    assert_int_equal(pct(w, 5, 50), 35);
    assert_int_equal(pct(w, 5, 100), 50);

    assert_int_equal(pct(three, 3, 33), 5);     /* rank 0.99 -> 1 */
    assert_int_equal(pct(three, 3, 34), 7);     /* rank 1.02 -> 2 */
    assert_int_equal(pct(three, 3, 66), 7);     /* rank 1.98 -> 2 */
    assert_int_equal(pct(three, 3, 67), 9);     /* rank 2.01 -> 3 */

    for ( size_t i = 0; i < 10; i++ )
        ten[i] = 10 * (i + 1);
    assert_int_equal(pct(ten, 10, 1), 10);
    assert_int_equal(pct(ten, 10, 10), 10);
    assert_int_equal(pct(ten, 10, 11), 20);
    assert_int_equal(pct(ten, 10, 25), 30);
    assert_int_equal(pct(ten, 10, 90), 90);
    assert_int_equal(pct(ten, 10, 91), 100);
}

static void percentile_edges(void **state)
{
    static const uint64_t one[] = { 12345 };
    static const uint64_t big[] = { 0, 1, UINT64_MAX };

    for ( unsigned int p = 0; p <= 100; p++ )
        assert_int_equal(pct(one, 1, p), 12345);
    /* Nothing measured: 0, and the array is not read. */
    assert_int_equal(pct(one, 0, 50), 0);
    assert_int_equal(percentile_sorted(NULL, 0, 0), 0);
    assert_int_equal(percentile_sorted(NULL, 0, 100), 0);
    /* Past 100: the largest. */
    assert_int_equal(pct(big, 3, 101), UINT64_MAX);
    assert_int_equal(pct(big, 3, ~0u), UINT64_MAX);
    assert_int_equal(pct(big, 3, 100), UINT64_MAX);
    assert_int_equal(pct(big, 3, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_arrays),
        cmocka_unit_test(every_small_size),
        cmocka_unit_test(all_permutations),
        cmocka_unit_test(sorted_and_reversed),
        cmocka_unit_test(in_place),
        cmocka_unit_test(percentile_1_to_100),
        cmocka_unit_test(percentile_1_to_1000),
        cmocka_unit_test(percentile_rounding),
        cmocka_unit_test(percentile_edges),
    };

    return cmocka_run_group_tests_name("sort", tests, NULL, NULL);
}
