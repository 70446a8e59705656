/* SPDX-License-Identifier: GPL-2.0-only */
/* In-place sorting and percentiles for measurements (pure; unit-tested). */
#ifndef SHIMK_SORT_H
#define SHIMK_SORT_H

#include <shimk/types.h>

/* Heapsort: O(n log n), no recursion, no allocation. */
void sort_u64(uint64_t *a, size_t n);

/* The p-th percentile (0-100) of a sorted array, nearest rank. */
uint64_t percentile_sorted(const uint64_t *a, size_t n, unsigned int p);

#endif /* SHIMK_SORT_H */
