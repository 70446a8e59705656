/* SPDX-License-Identifier: GPL-2.0-only */
/* TLBB block and cell lines, one writer for shimk and the Linux peer. */
#ifndef SHIMK_TLBB_LINE_H
#define SHIMK_TLBB_LINE_H

#include <shimk/bench-stats.h>
#include <shimk/types.h>

/*
 * One cell as the lines show it (docs/tlbbench.md, "The lines").  Each
 * guest fills it from its own records; the fields only one of them has
 * are optional, and absent from the line when NULL or false.
 */
struct tlbb_cell
{
    const char *prefix;         /* "TLBB v=1 ... tsc_khz=N", no space after */
    const char *wl, *mode;
    bool throughput;            /* ops/s cells (churn); else latency */
    unsigned int n, reps;       /* n: remap targets, or churn threads */
    bool whole_space;           /* pages=full; else pages=1 */
    unsigned int idle;          /* blocks that did no work */
    const struct lat_summary *rep_lat;  /* per block; n: flushes or ops */
    const uint64_t *rep_fps;    /* per block: flushes/s, or ops/s */
    const uint64_t *rep_share;  /* shimk's flush share per block, or NULL */
    const uint64_t *rep_ipis;   /* the peer's IPIs per block, or NULL */
    uint64_t ipis, checked, stale;
    bool has_hc;                /* shimk's hypercalls and clock skips */
    uint64_t hc, clk_skip;
    uint64_t tsc_khz;           /* for the _ns fields */
};

/* Repeats whose range exceeds this % of their median are "noisy". */
#define TLBB_NOISY_PCT 10

/* Block rep of c, as one line without its newline; ksnprintf's return. */
int tlbb_block_line(char *buf, size_t size, const struct tlbb_cell *c,
                    unsigned int rep);

/*
 * The cell: medians over its blocks of each block's percentile (p99 of
 * a block is its worst 1 %, nearest rank), the range of p50, and noisy.
 */
int tlbb_cell_line(char *buf, size_t size, const struct tlbb_cell *c);

#endif /* SHIMK_TLBB_LINE_H */
