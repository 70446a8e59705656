/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench inside: profiles, modes, cells and the workload interface. */
#ifndef SHIMK_TLBBENCH_WORKLOAD_H
#define SHIMK_TLBBENCH_WORKLOAD_H

#include <shimk/bench-stats.h>
#include <shimk/compiler.h>
#include <shimk/types.h>
#include <asm/flushtlb.h>

/* What bench=quick and bench=full run (docs/tlbbench.md "What runs"). */
struct profile
{
    const char *name;
    unsigned int reps, flushes, churn_rounds, reuse_frames, calib_iters;
    bool full_size, all_counts;
    unsigned int churn_reps;            /* both reps: at most MAX_REPS */
};

/* A way of flushing, switched at run time between blocks. */
struct mode
{
    const char *name;
    int8_t shorthand, assist, pge;      /* -1: as booted */
    int8_t invpcid;                     /* -1: as booted */
    int8_t ipi_event;                   /* -1: as booted; 0: APIC */
};

struct cell;

/*
 * One workload, one file (docs/tlbbench.md "Adding a workload").  Every
 * hook may be NULL.  The run calls first() of every workload, then
 * plan() of every workload, then runs the planned blocks in one
 * shuffled order, then prints every cell and one TLBB-SUM line to which
 * each summary() adds its keys.
 */
struct workload
{
    const char *name;                   /* wl= on its lines */
    /*
     * Once, before any timed block, while the TLB clock is still as
     * booted (turning the assisted flush on turns it off for good).
     * Prints its own lines; adds what it saw to tlbb.stale and
     * tlbb.idle.
     */
    void (*first)(const struct profile *pf);
    /* Add this workload's cells with tlbb_new_cell(). */
    void (*plan)(const struct profile *pf);
    /* Run block rep of cell c: fill c->rep_lat[rep] and c->rep_fps[rep]. */
    void (*block)(struct cell *c, const struct profile *pf, unsigned int rep);
    /* Append this workload's same-run ratios to the TLBB-SUM line. */
    void (*summary)(char *line, size_t size, size_t *len);
    /*
     * Cells report throughput (ops_per_s, flush_share_milli), not flush
     * latency, and run in rounds: a round runs one block of each of
     * this workload's cells back to back in an order of its own, so
     * that the settings it compares meet the same host.
     */
    bool throughput;
};

#define MAX_REPS 8

struct cell
{
    const struct workload *wl;
    unsigned int mode, n, pages;        /* pages 0: whole space */
    struct lat_summary rep_lat[MAX_REPS];
    uint64_t rep_fps[MAX_REPS], rep_share[MAX_REPS];
    uint64_t ipis, hc, clk_skip, stale;
    uint64_t checked;                   /* reads whose tag was checked */
    unsigned int reps;
    unsigned int idle;                  /* blocks that did no work */
};

#define MAX_CELLS 64
#define MAX_MODES 12
#define NO_MODE (~0u)

/* One run's state, shared by the workloads. */
struct tlbb_run
{
    struct mode modes[MAX_MODES];
    unsigned int nr_modes;
    /* The modes every environment has, and those it may (NO_MODE). */
    unsigned int m_unicast, m_allbut, m_assist, m_pge_on, m_pge_off;
    unsigned int m_invpcid_on, m_invpcid_off, m_measured;
    unsigned int m_event;               /* IPIs by the L0's events (Xen) */
    /* The boot's own settings, put back after every block. */
    bool boot_shorthand, boot_assist, boot_pge, boot_invpcid;
    bool boot_ipi_event;
    bool boot_adapt;            /* flush-adapt live: boot-policy adapts */
    struct cell *cells;
    unsigned int nr_cells;
    /* What the first() workloads saw: stale reads, and no work done. */
    uint64_t stale;
    unsigned int idle;
    char hv_name[16];
};

extern struct tlbb_run tlbb;

extern const struct workload wl_calib, wl_reuse, wl_remap, wl_global,
    wl_churn;

/* Modes (run.c). */
unsigned int tlbb_add_mode(const char *name, int sh, int assist, int pge);
void tlbb_apply(const struct mode *m);
void tlbb_restore(void);

/* Cells (run.c). */
struct cell *tlbb_new_cell(const struct workload *wl, unsigned int mode,
                           unsigned int n, unsigned int pages);
const struct cell *tlbb_find(const struct workload *wl, unsigned int mode,
                             unsigned int n, unsigned int pages);
/* The median over a cell's blocks of their p50, p99, throughput. */
uint64_t tlbb_med_p50(const struct cell *c);
uint64_t tlbb_med_fps(const struct cell *c);
/* Add the flush counters' change over a block to the cell's totals. */
void tlbb_count_flushes(struct cell *c, const struct flush_counters *c0,
                        const struct flush_counters *c1);

/* Output (output.c). */
void tlbb_prefix(char *buf, size_t size);
void tlbb_milli(char *buf, size_t size, uint64_t m);
void tlbb_print_blocks(const struct cell *c);
void tlbb_print_cell(const struct cell *c);
__printf(4, 5) void tlbb_sum_add(char *line, size_t size, size_t *len,
                                const char *fmt, ...);
void tlbb_summary(const struct workload *const *wls, unsigned int nr);

#endif /* SHIMK_TLBBENCH_WORKLOAD_H */
