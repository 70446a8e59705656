/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench statistics (pure; unit-tested). */

#include <shimk/bench-stats.h>
#include <shimk/sort.h>

void lat_summarize(uint64_t *samples, size_t n, struct lat_summary *out)
{
    *out = (struct lat_summary){ .n = n };
    if ( !n )
        return;
    sort_u64(samples, n);
    out->min = samples[0];
    out->p50 = percentile_sorted(samples, n, 50);
    out->p90 = percentile_sorted(samples, n, 90);
    out->p99 = percentile_sorted(samples, n, 99);
    out->max = samples[n - 1];
}

void rep_summarize(const uint64_t *vals, unsigned int n,
                   unsigned int noisy_pct, struct rep_summary *out)
{
    uint64_t v[64];

    *out = (struct rep_summary){ 0 };
    if ( !n )
        return;
    if ( n > 64 )
        n = 64;
    for ( unsigned int i = 0; i < n; i++ )
        v[i] = vals[i];
    sort_u64(v, n);
    out->min = v[0];
    out->max = v[n - 1];
    /* Median; the lower middle for an even count (a measured value). */
    out->med = v[(n - 1) / 2];
    out->noisy = out->med ? (out->max - out->min) * 100 >
                                (uint64_t)noisy_pct * out->med
                          : out->max != 0;
}

static uint64_t next(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

void shuffle_indices(unsigned int *idx, unsigned int n, uint64_t *rng)
{
    for ( unsigned int i = n; i > 1; i-- )
    {
        unsigned int j = (unsigned int)(next(rng) % i), t = idx[i - 1];

        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

uint64_t ratio_milli(uint64_t a, uint64_t b)
{
    if ( !b )
        return 0;
    return (a * 1000 + b / 2) / b;
}

uint64_t paired_ratio_milli(const uint64_t *a, const uint64_t *b,
                            unsigned int n)
{
    uint64_t r[64];
    struct rep_summary sum;

    if ( n > 64 )
        n = 64;
    for ( unsigned int i = 0; i < n; i++ )
        r[i] = ratio_milli(a[i], b[i]);
    rep_summarize(r, n, 10, &sum);
    return sum.med;
}
