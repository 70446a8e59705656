/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU mask operations (pure; unit-tested). */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <shimk/bitops.h>
#include <shimk/cpumask.h>
#include <shimk/printk.h>
#include <shimk/string.h>

/*
 * Bits at or above NR_CPUS in the last word are never set by these
 * functions, so whole-word comparisons stay exact.
 */

void cpumask_clear(cpumask_t *m)
{
    memset(m, 0, sizeof(*m));
}

void cpumask_setall(cpumask_t *m, unsigned int nr)
{
    cpumask_clear(m);
    if ( nr > NR_CPUS )
        nr = NR_CPUS;
    for ( unsigned int i = 0; i < nr / 64; i++ )
        m->bits[i] = ~0ull;
    if ( nr % 64 )
        m->bits[nr / 64] = (1ull << (nr % 64)) - 1;
}

void cpumask_copy(cpumask_t *dst, const cpumask_t *src)
{
    *dst = *src;
}

void cpumask_and(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
    for ( unsigned int i = 0; i < CPUMASK_WORDS; i++ )
        dst->bits[i] = a->bits[i] & b->bits[i];
}

void cpumask_or(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
    for ( unsigned int i = 0; i < CPUMASK_WORDS; i++ )
        dst->bits[i] = a->bits[i] | b->bits[i];
}

void cpumask_andnot(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b)
{
    for ( unsigned int i = 0; i < CPUMASK_WORDS; i++ )
        dst->bits[i] = a->bits[i] & ~b->bits[i];
}

bool cpumask_equal(const cpumask_t *a, const cpumask_t *b)
{
    for ( unsigned int i = 0; i < CPUMASK_WORDS; i++ )
        if ( a->bits[i] != b->bits[i] )
            return false;
    return true;
}

bool cpumask_empty(const cpumask_t *m)
{
    for ( unsigned int i = 0; i < CPUMASK_WORDS; i++ )
        if ( m->bits[i] )
            return false;
    return true;
}

bool cpumask_subset(const cpumask_t *a, const cpumask_t *b)
{
    for ( unsigned int i = 0; i < CPUMASK_WORDS; i++ )
        if ( a->bits[i] & ~b->bits[i] )
            return false;
    return true;
}

bool cpumask_intersects(const cpumask_t *a, const cpumask_t *b)
{
    for ( unsigned int i = 0; i < CPUMASK_WORDS; i++ )
        if ( a->bits[i] & b->bits[i] )
            return true;
    return false;
}

unsigned int cpumask_weight(const cpumask_t *m)
{
    unsigned int n = 0;

    for ( unsigned int i = 0; i < CPUMASK_WORDS; i++ )
        n += hweight64(m->bits[i]);
    return n;
}

unsigned int cpumask_next(const cpumask_t *m, unsigned int from)
{
    while ( from < NR_CPUS )
    {
        uint64_t w = m->bits[from / 64] >> (from % 64);

        if ( w )
        {
            from += __builtin_ctzll(w);
            return from < NR_CPUS ? from : NR_CPUS;
        }
        from = (from / 64 + 1) * 64;
    }
    return NR_CPUS;
}

char *cpumask_format(char *buf, size_t size, const cpumask_t *m)
{
    size_t n = 0;
    unsigned int cpu = cpumask_first(m);

    if ( size )
        buf[0] = '\0';
    while ( cpu < NR_CPUS && n < size )
    {
        unsigned int end = cpu;

        while ( end + 1 < NR_CPUS && cpumask_test_cpu(end + 1, m) )
            end++;
        if ( end == cpu )
            n += ksnprintf(buf + n, size - n, "%s%u", n ? "," : "", cpu);
        else
            n += ksnprintf(buf + n, size - n, "%s%u-%u", n ? "," : "", cpu,
                           end);
        cpu = cpumask_next(m, end + 1);
    }
    return buf;
}
