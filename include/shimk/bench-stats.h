/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench statistics: block summaries, repeat summaries, order (pure). */
#ifndef SHIMK_BENCH_STATS_H
#define SHIMK_BENCH_STATS_H

#include <shimk/types.h>

struct lat_summary
{
    uint64_t n, min, p50, p90, p99, max;
};

/* Sort samples in place and summarize them (nearest-rank percentiles). */
void lat_summarize(uint64_t *samples, size_t n, struct lat_summary *out);

struct rep_summary
{
    uint64_t med, min, max;
    bool noisy;     /* (max - min) > noisy_pct % of the median */
};

/* The median of n repeat values, their range, and whether it is wide. */
void rep_summarize(const uint64_t *vals, unsigned int n,
                   unsigned int noisy_pct, struct rep_summary *out);

/* Fisher-Yates shuffle of idx[0..n) with a xorshift64 state. */
void shuffle_indices(unsigned int *idx, unsigned int n, uint64_t *rng);

/* Ratio a/b in thousandths (1000 = equal); 0 when b is 0. */
uint64_t ratio_milli(uint64_t a, uint64_t b);

/*
 * Two settings measured once each in every one of n rounds: the median
 * over the rounds of a[i]/b[i], in thousandths.  A slow change of the
 * host's load moves both blocks of a round, and cancels in their ratio.
 */
uint64_t paired_ratio_milli(const uint64_t *a, const uint64_t *b,
                            unsigned int n);

#endif /* SHIMK_BENCH_STATS_H */
