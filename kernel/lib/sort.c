/* SPDX-License-Identifier: GPL-2.0-only */
/* Heapsort and nearest-rank percentiles (pure; unit-tested). */

#include <shimk/sort.h>

static void sift_down(uint64_t *a, size_t root, size_t n)
{
    for ( ;; )
    {
        size_t child = 2 * root + 1;
        uint64_t t;

        if ( child >= n )
            return;
        if ( child + 1 < n && a[child + 1] > a[child] )
            child++;
        if ( a[root] >= a[child] )
            return;
        t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

void sort_u64(uint64_t *a, size_t n)
{
    if ( n < 2 )
        return;
    for ( size_t i = n / 2; i-- > 0; )
        sift_down(a, i, n);
    for ( size_t end = n - 1; end > 0; end-- )
    {
        uint64_t t = a[0];

        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

uint64_t percentile_sorted(const uint64_t *a, size_t n, unsigned int p)
{
    size_t rank;

    if ( !n )
        return 0;
    if ( p >= 100 )
        return a[n - 1];
    /* Nearest rank: ceil(p/100 * n), 1-based. */
    rank = ((size_t)p * n + 99) / 100;
    return a[rank ? rank - 1 : 0];
}
