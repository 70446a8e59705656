/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/lib/cpumask.c and <shimk/cpumask.h>: bits, set algebra, formatting. */

#include <shimk/cpumask.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* Small configurations: a CPU number that exists (folded at compile time). */
#define CLAMP(cpu) ((cpu) >= 0 && (cpu) < NR_CPUS ? (cpu) : NR_CPUS - 1)

/* The CPUs at the edges of a word and of the mask. */
static const unsigned int edges[] = {
    0, CLAMP(1), CLAMP(63), CLAMP(64), NR_CPUS - 1,
};

/* Cases written with fixed CPU numbers need a kernel configured that big. */
#define NEED_CPUS(n)                                                      \
    do                                                                    \
    {                                                                     \
        if ( NR_CPUS < (n) )                                              \
            skip();                                                       \
    } while ( 0 )

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A mask with each CPU below NR_CPUS set with chance 1/2^sparse. */
static void random_mask(cpumask_t *m, unsigned int sparse)
{
    cpumask_clear(m);
    for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
        if ( !(rng() & ((1u << sparse) - 1)) )
            cpumask_set_cpu(cpu, m);
}

/* Bits at or above NR_CPUS in the last word: none may ever be set. */
static void assert_no_stray_bits(const cpumask_t *m)
{
    if ( NR_CPUS % 64 )
        assert_int_equal(m->bits[CPUMASK_WORDS - 1] >> (NR_CPUS % 64), 0);
}

/* Reference bit count, one CPU at a time. */
static unsigned int count_bits(const cpumask_t *m)
{
    unsigned int n = 0;

    for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
        n += cpumask_test_cpu(cpu, m);
    return n;
}

static void set_clear_test(void **state)
{
    for ( unsigned int i = 0; i < ARRAY_SIZE(edges); i++ )
    {
        unsigned int cpu = edges[i];
        cpumask_t m;

        cpumask_clear(&m);
        cpumask_set_cpu(cpu, &m);
        for ( unsigned int other = 0; other < NR_CPUS; other++ )
            assert_int_equal(cpumask_test_cpu(other, &m), other == cpu);
        assert_int_equal(m.bits[cpu / 64], 1ull << (cpu % 64));
        assert_int_equal(cpumask_weight(&m), 1);

        /* Setting twice changes nothing. */
        cpumask_set_cpu(cpu, &m);
        assert_int_equal(cpumask_weight(&m), 1);

        cpumask_clear_cpu(cpu, &m);
        assert_false(cpumask_test_cpu(cpu, &m));
        assert_true(cpumask_empty(&m));
        /* Clearing a clear bit changes nothing. */
        cpumask_clear_cpu(cpu, &m);
        assert_true(cpumask_empty(&m));

        /* Clearing one CPU leaves the others. */
        cpumask_setall(&m, NR_CPUS);
        cpumask_clear_cpu(cpu, &m);
        assert_false(cpumask_test_cpu(cpu, &m));
        assert_int_equal(cpumask_weight(&m), NR_CPUS - 1);
    }
}

static void test_and_clear(void **state)
{
    for ( unsigned int i = 0; i < ARRAY_SIZE(edges); i++ )
    {
        unsigned int cpu = edges[i];
        cpumask_t m;

        NEED_CPUS(2);
        cpumask_setall(&m, NR_CPUS);
        assert_true(cpumask_test_and_clear_cpu(cpu, &m));
        assert_false(cpumask_test_cpu(cpu, &m));
        assert_int_equal(cpumask_weight(&m), NR_CPUS - 1);
        assert_false(cpumask_test_and_clear_cpu(cpu, &m));
        assert_int_equal(cpumask_weight(&m), NR_CPUS - 1);

        /* A neighbour set, this CPU clear: false, neighbour untouched. */
        cpumask_clear(&m);
        cpumask_set_cpu(cpu ? cpu - 1 : cpu + 1, &m);
        assert_false(cpumask_test_and_clear_cpu(cpu, &m));
        assert_int_equal(cpumask_weight(&m), 1);
    }
}

static void setall(void **state)
{
    static const unsigned int nrs[] = {
        0, 1, 2, 63, 64, 65, NR_CPUS - 1, NR_CPUS, NR_CPUS + 5,
        NR_CPUS + 64, ~0u,
    };

    for ( unsigned int i = 0; i < ARRAY_SIZE(nrs); i++ )
    {
        unsigned int nr = nrs[i] < NR_CPUS ? nrs[i] : NR_CPUS;
        cpumask_t m, want;

        memset(&want, 0, sizeof(want));
        for ( unsigned int cpu = 0; cpu < nr; cpu++ )
            want.bits[cpu / 64] |= 1ull << (cpu % 64);

        /* Whatever was there before goes. */
        memset(&m, 0xff, sizeof(m));
        cpumask_setall(&m, nrs[i]);
        if ( memcmp(&m, &want, sizeof(m)) )
            fail_msg("setall(%u): bits[0] %#llx, want %#llx", nrs[i],
                     (unsigned long long)m.bits[0],
                     (unsigned long long)want.bits[0]);
        assert_int_equal(cpumask_weight(&m), nr);
        assert_no_stray_bits(&m);
    }
}

static void setall_last_word(void **state)
{
    cpumask_t m;

    cpumask_setall(&m, NR_CPUS + 5);
    assert_true(cpumask_test_cpu(NR_CPUS - 1, &m));
    assert_int_equal(cpumask_weight(&m), NR_CPUS);
    assert_no_stray_bits(&m);

    NEED_CPUS(64);

    cpumask_setall(&m, 63);
    assert_int_equal(m.bits[0], ~0ull >> 1);
    assert_false(cpumask_test_cpu(63, &m));
    assert_true(cpumask_test_cpu(62, &m));

    cpumask_setall(&m, 64);
    assert_int_equal(m.bits[0], ~0ull);
    if ( CPUMASK_WORDS > 1 )
        assert_int_equal(m.bits[1], 0);
}

static void algebra_random(void **state)
{
    for ( unsigned int round = 0; round < 200; round++ )
    {
        cpumask_t a, b, r, alias;

        random_mask(&a, 1 + round % 3);
        random_mask(&b, 1 + (round / 3) % 3);

        cpumask_and(&r, &a, &b);
        for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
            assert_int_equal(cpumask_test_cpu(cpu, &r),
                             cpumask_test_cpu(cpu, &a) &&
                             cpumask_test_cpu(cpu, &b));
        cpumask_or(&r, &a, &b);
        for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
            assert_int_equal(cpumask_test_cpu(cpu, &r),
                             cpumask_test_cpu(cpu, &a) ||
                             cpumask_test_cpu(cpu, &b));
        cpumask_andnot(&r, &a, &b);
        for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
            assert_int_equal(cpumask_test_cpu(cpu, &r),
                             cpumask_test_cpu(cpu, &a) &&
                             !cpumask_test_cpu(cpu, &b));
        assert_no_stray_bits(&r);

        /* dst may be an operand, as in cpumask_and(&m, &m, &online). */
        cpumask_and(&r, &a, &b);
        cpumask_copy(&alias, &a);
        cpumask_and(&alias, &alias, &b);
        assert_true(cpumask_equal(&alias, &r));
        cpumask_andnot(&r, &a, &b);
        cpumask_copy(&alias, &a);
        cpumask_andnot(&alias, &alias, &b);
        assert_true(cpumask_equal(&alias, &r));
        cpumask_or(&r, &a, &b);
        cpumask_copy(&alias, &b);
        cpumask_or(&alias, &a, &alias);
        assert_true(cpumask_equal(&alias, &r));

        /* The predicates agree with the bits. */
        cpumask_and(&r, &a, &b);
        assert_int_equal(cpumask_intersects(&a, &b), !cpumask_empty(&r));
        cpumask_andnot(&r, &a, &b);
        assert_int_equal(cpumask_subset(&a, &b), cpumask_empty(&r));
        assert_int_equal(cpumask_empty(&a), count_bits(&a) == 0);
        assert_int_equal(cpumask_weight(&a), count_bits(&a));
        assert_int_equal(cpumask_weight(&b), count_bits(&b));
    }
}

static void copy_equal(void **state)
{
    cpumask_t a, b;

    random_mask(&a, 1);
    memset(&b, 0x5a, sizeof(b));
    cpumask_copy(&b, &a);
    assert_int_equal(memcmp(&a, &b, sizeof(a)), 0);
    assert_true(cpumask_equal(&a, &b));

    /* A difference in any one CPU, the last one included, counts. */
    for ( unsigned int i = 0; i < ARRAY_SIZE(edges); i++ )
    {
        cpumask_copy(&b, &a);
        if ( cpumask_test_cpu(edges[i], &b) )
            cpumask_clear_cpu(edges[i], &b);
        else
            cpumask_set_cpu(edges[i], &b);
        assert_false(cpumask_equal(&a, &b));
        assert_false(cpumask_equal(&b, &a));
    }

    cpumask_clear(&a);
    cpumask_clear(&b);
    assert_true(cpumask_equal(&a, &b));
}

static void empty_subset_intersects(void **state)
{
    cpumask_t none, all, a, b;

    NEED_CPUS(2);
    memset(&none, 0xff, sizeof(none));
    cpumask_clear(&none);
    cpumask_setall(&all, NR_CPUS);
    assert_true(cpumask_empty(&none));
    assert_false(cpumask_empty(&all));

    for ( unsigned int i = 0; i < ARRAY_SIZE(edges); i++ )
    {
        cpumask_clear(&a);
        cpumask_set_cpu(edges[i], &a);
        assert_false(cpumask_empty(&a));
        assert_true(cpumask_subset(&a, &all));
        assert_false(cpumask_subset(&all, &a));
        assert_true(cpumask_intersects(&a, &all));
        assert_false(cpumask_intersects(&a, &none));
    }

    /* The empty mask is a subset of everything and meets nothing. */
    assert_true(cpumask_subset(&none, &none));
    assert_true(cpumask_subset(&none, &all));
    assert_false(cpumask_intersects(&none, &none));
    assert_false(cpumask_intersects(&all, &none));
    assert_true(cpumask_subset(&all, &all));
    assert_true(cpumask_intersects(&all, &all));

    /* {0, 63} and {1, 63}: meet at 63, neither inside the other. */
    cpumask_clear(&a);
    cpumask_clear(&b);
    cpumask_set_cpu(0, &a);
    cpumask_set_cpu(NR_CPUS - 1, &a);
    cpumask_set_cpu(1, &b);
    cpumask_set_cpu(NR_CPUS - 1, &b);
    assert_true(cpumask_intersects(&a, &b));
    assert_false(cpumask_subset(&a, &b));
    assert_false(cpumask_subset(&b, &a));
    cpumask_clear_cpu(NR_CPUS - 1, &b);
    assert_false(cpumask_intersects(&a, &b));
    cpumask_set_cpu(0, &b);
    cpumask_set_cpu(NR_CPUS - 1, &b);
    assert_true(cpumask_subset(&a, &b));
    assert_false(cpumask_subset(&b, &a));
}

static void weight(void **state)
{
    cpumask_t m;

    cpumask_clear(&m);
    assert_int_equal(cpumask_weight(&m), 0);
    cpumask_setall(&m, NR_CPUS);
    assert_int_equal(cpumask_weight(&m), NR_CPUS);

    /* Every other CPU, then every word's alternating patterns. */
    cpumask_clear(&m);
    for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu += 2 )
        cpumask_set_cpu(cpu, &m);
    assert_int_equal(cpumask_weight(&m), (NR_CPUS + 1) / 2);

    for ( unsigned int round = 0; round < 1000; round++ )
    {
        unsigned int want = 0;

        cpumask_clear(&m);
        for ( unsigned int w = 0; w < CPUMASK_WORDS; w++ )
        {
            uint64_t v = rng();

            if ( round % 4 == 1 )
                v &= rng();
            else if ( round % 4 == 2 )
                v |= rng();
            if ( w == CPUMASK_WORDS - 1 && NR_CPUS % 64 )
                v &= (1ull << (NR_CPUS % 64)) - 1;
            m.bits[w] = v;
            want += __builtin_popcountll(v);
        }
        assert_int_equal(cpumask_weight(&m), want);
    }
}

static void next_first(void **state)
{
    cpumask_t m;

    cpumask_clear(&m);
    assert_int_equal(cpumask_first(&m), NR_CPUS);
    assert_int_equal(cpumask_next(&m, 0), NR_CPUS);
    assert_int_equal(cpumask_next(&m, NR_CPUS - 1), NR_CPUS);

    NEED_CPUS(8);
    cpumask_set_cpu(NR_CPUS - 1, &m);
    assert_int_equal(cpumask_first(&m), NR_CPUS - 1);
    assert_int_equal(cpumask_next(&m, 1), NR_CPUS - 1);
    assert_int_equal(cpumask_next(&m, NR_CPUS - 1), NR_CPUS - 1);
    /* From past the end: nothing, and no read beyond the mask. */
    assert_int_equal(cpumask_next(&m, NR_CPUS), NR_CPUS);
    assert_int_equal(cpumask_next(&m, NR_CPUS + 1), NR_CPUS);
    assert_int_equal(cpumask_next(&m, 1000000), NR_CPUS);
    assert_int_equal(cpumask_next(&m, ~0u), NR_CPUS);

    cpumask_set_cpu(0, &m);
    cpumask_set_cpu(5, &m);
    assert_int_equal(cpumask_first(&m), 0);
    assert_int_equal(cpumask_next(&m, 0), 0);   /* from itself */
    assert_int_equal(cpumask_next(&m, 1), 5);
    assert_int_equal(cpumask_next(&m, 5), 5);
    assert_int_equal(cpumask_next(&m, 6), NR_CPUS - 1);

    /* A stray bit above NR_CPUS in the last word is still no CPU. */
    if ( NR_CPUS % 64 )
    {
        cpumask_clear(&m);
        m.bits[CPUMASK_WORDS - 1] = 1ull << 63;
        assert_int_equal(cpumask_next(&m, NR_CPUS - 1), NR_CPUS);
        assert_int_equal(cpumask_first(&m), NR_CPUS);
    }

    /* Across a word boundary, where there is one. */
    if ( NR_CPUS > 64 )
    {
        cpumask_clear(&m);
        cpumask_set_cpu(64, &m);
        assert_int_equal(cpumask_first(&m), 64);
        assert_int_equal(cpumask_next(&m, 63), 64);
        assert_int_equal(cpumask_next(&m, 65), NR_CPUS);
    }
}

static void next_random(void **state)
{
    for ( unsigned int round = 0; round < 100; round++ )
    {
        cpumask_t m;

        random_mask(&m, round % 5);
        for ( unsigned int from = 0; from <= NR_CPUS; from++ )
        {
            unsigned int want = from;

            while ( want < NR_CPUS && !cpumask_test_cpu(want, &m) )
                want++;
            assert_int_equal(cpumask_next(&m, from), want);
        }
    }
}

/* Run for_each_cpu over m, recording the CPUs it visits. */
static unsigned int visit(const cpumask_t *m, unsigned int *seen)
{
    unsigned int cpu, n = 0;

    for_each_cpu(cpu, m)
    {
        assert_true(n < NR_CPUS);
        seen[n++] = cpu;
    }
    assert_int_equal(cpu, NR_CPUS);
    return n;
}

static void for_each(void **state)
{
    unsigned int seen[NR_CPUS];
    cpumask_t m;
    unsigned int n;

    NEED_CPUS(8);
    cpumask_clear(&m);
    assert_int_equal(visit(&m, seen), 0);

    cpumask_set_cpu(NR_CPUS - 1, &m);
    cpumask_set_cpu(0, &m);
    cpumask_set_cpu(5, &m);
    cpumask_set_cpu(6, &m);
    n = visit(&m, seen);
    assert_int_equal(n, 4);
    assert_int_equal(seen[0], 0);
    assert_int_equal(seen[1], 5);
    assert_int_equal(seen[2], 6);
    assert_int_equal(seen[3], NR_CPUS - 1);

    cpumask_setall(&m, NR_CPUS);
    assert_int_equal(visit(&m, seen), NR_CPUS);
    for ( unsigned int i = 0; i < NR_CPUS; i++ )
        assert_int_equal(seen[i], i);

    for ( unsigned int round = 0; round < 50; round++ )
    {
        unsigned int j = 0;

        random_mask(&m, round % 4);
        n = visit(&m, seen);
        assert_int_equal(n, cpumask_weight(&m));
        for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
            if ( cpumask_test_cpu(cpu, &m) )
                assert_int_equal(seen[j++], cpu);
        assert_int_equal(j, n);
    }
}

static const char *format(const cpumask_t *m)
{
    static char buf[8 * NR_CPUS];

    memset(buf, 'x', sizeof(buf));
    return cpumask_format(buf, sizeof(buf), m);
}

static void format_ranges(void **state)
{
    char want[32];
    cpumask_t m;

    NEED_CPUS(16);
    cpumask_clear(&m);
    assert_string_equal(format(&m), "");

    cpumask_set_cpu(0, &m);
    cpumask_set_cpu(1, &m);
    cpumask_set_cpu(2, &m);
    cpumask_set_cpu(3, &m);
    cpumask_set_cpu(6, &m);
    assert_string_equal(format(&m), "0-3,6");

    cpumask_clear(&m);
    cpumask_set_cpu(5, &m);
    assert_string_equal(format(&m), "5");
    cpumask_set_cpu(0, &m);
    cpumask_set_cpu(2, &m);
    assert_string_equal(format(&m), "0,2,5");

    /* Two neighbours make a range. */
    cpumask_clear(&m);
    cpumask_set_cpu(1, &m);
    cpumask_set_cpu(2, &m);
    assert_string_equal(format(&m), "1-2");

    cpumask_clear(&m);
    cpumask_set_cpu(NR_CPUS - 1, &m);
    snprintf(want, sizeof(want), "%u", NR_CPUS - 1);
    assert_string_equal(format(&m), want);

    cpumask_set_cpu(CLAMP(NR_CPUS - 2), &m);
    cpumask_set_cpu(0, &m);
    snprintf(want, sizeof(want), "0,%u-%u", NR_CPUS - 2, NR_CPUS - 1);
    assert_string_equal(format(&m), want);

    cpumask_setall(&m, NR_CPUS);
    snprintf(want, sizeof(want), "0-%u", NR_CPUS - 1);
    assert_string_equal(format(&m), want);

    /* Every other CPU: the longest kind of output. */
    cpumask_clear(&m);
    for ( unsigned int cpu = 0; cpu < 12; cpu += 2 )
        cpumask_set_cpu(cpu, &m);
    assert_string_equal(format(&m), "0,2,4,6,8,10");
}

/*
 * Every buffer size, each an exact heap allocation (AddressSanitizer
 * sees one byte too many): a nul-terminated prefix of the full text.
 */
static void format_small_buffers(void **state)
{
    char full[64];
    cpumask_t m;
    size_t len;

    NEED_CPUS(16);
    cpumask_clear(&m);
    cpumask_set_cpu(0, &m);
    cpumask_set_cpu(1, &m);
    cpumask_set_cpu(2, &m);
    cpumask_set_cpu(3, &m);
    cpumask_set_cpu(6, &m);
    cpumask_set_cpu(10, &m);
    cpumask_set_cpu(11, &m);
    cpumask_set_cpu(NR_CPUS - 1, &m);
    snprintf(full, sizeof(full), "0-3,6,10-11,%u", NR_CPUS - 1);
    assert_string_equal(format(&m), full);
    len = strlen(full);

    for ( size_t size = 0; size <= len + 2; size++ )
    {
        char guard[80];
        char *buf, *ret;

        /* In a larger array, to see the bytes after it untouched. */
        memset(guard, '#', sizeof(guard));
        ret = cpumask_format(guard, size, &m);
        assert_ptr_equal(ret, guard);
        for ( size_t i = size; i < sizeof(guard); i++ )
            if ( guard[i] != '#' )
                fail_msg("size %zu: byte %zu written", size, i);
        if ( size )
        {
            size_t n = size - 1 < len ? size - 1 : len;

            assert_int_equal(strlen(guard), n);
            assert_memory_equal(guard, full, n);
        }

        buf = malloc(size ? size : 1);
        assert_non_null(buf);
        memset(buf, '#', size);
        if ( size )
            cpumask_format(buf, size, &m);
        else
            cpumask_format(buf + 1, 0, &m);    /* one past: no byte */
        free(buf);
    }

    /* An empty mask in a one-byte buffer. */
    cpumask_clear(&m);
    {
        char one = 'x';

        cpumask_format(&one, 1, &m);
        assert_int_equal(one, '\0');
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_clear_test),
        cmocka_unit_test(test_and_clear),
        cmocka_unit_test(setall),
        cmocka_unit_test(setall_last_word),
        cmocka_unit_test(algebra_random),
        cmocka_unit_test(copy_equal),
        cmocka_unit_test(empty_subset_intersects),
        cmocka_unit_test(weight),
        cmocka_unit_test(next_first),
        cmocka_unit_test(next_random),
        cmocka_unit_test(for_each),
        cmocka_unit_test(format_ranges),
        cmocka_unit_test(format_small_buffers),
    };

    return cmocka_run_group_tests_name("cpumask", tests, NULL, NULL);
}
