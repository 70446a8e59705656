/* SPDX-License-Identifier: GPL-2.0-only */
/* The stale-TLB detector: readers on every CPU against remappers that flush. */
#ifndef SHIMK_TLB_DETECT_H
#define SHIMK_TLB_DETECT_H

#include <shimk/cpumask.h>
#include <shimk/types.h>

enum detect_mode
{
    /*
     * Change, flush synchronously, then publish the new generation: a
     * reader that saw the generation must see the new tag.
     */
    DETECT_SYNC,
    /*
     * Remap with no flush and free the old frame deferred: the TLB
     * clock decides, when the frame is reused, which CPUs to flush.
     * A reader must never see another slot's tag through a stale entry.
     */
    DETECT_LAZY,
};

/*
 * What a synchronous run changes besides single 4 KiB remaps (user
 * slots, non-global; kernel slots, global when PGE is on).
 */
#define DETECT_OP_RANGE    0x01u    /* four slots remapped, one ranged flush */
#define DETECT_OP_UNMAP    0x02u    /* unmapped: a read must fault */
#define DETECT_OP_PROTECT  0x04u    /* RW to RO: a write must fault */
#define DETECT_OP_TABLE    0x08u    /* the last page of a table unmapped:
                                       the table freed and reused */
#define DETECT_OP_HUGE     0x10u    /* a 2 MiB mapping remapped */
#define DETECT_OP_LAZY     0x20u    /* unmapped lazily, then mapped anew */
#define DETECT_OPS_ALL     0x3fu
#define NR_DETECT_OPS      7        /* the six, and plain remaps */

/*
 * Where a run's threads go (kernel/tlb-detect/power.c splits the CPUs).
 * Remappers take the lowest CPUs but the caller's (the controller's),
 * readers the others; with "away" the remappers start at the caller's
 * CPU, so that no reader shares a CPU with the controller.
 */
struct detect_place
{
    unsigned int remappers;         /* CPUs remapping */
    bool spin;                      /* readers never halt nor yield, one a
                                       CPU (else tlb-detect-burst= says) */
    bool away;                      /* readers off the caller's CPU */
};

struct detect_config
{
    enum detect_mode mode;
    unsigned int user_slots;        /* pages in the task, non-global */
    unsigned int kernel_slots;      /* pages in a kernel window, global */
    struct detect_place place;
    unsigned int ops;               /* DETECT_OP_* (sync mode only) */
    uint64_t flushes;               /* stop after this many... */
    uint64_t max_ms;                /* ...or after this long without a
                                       checked one (progress stopped) */
    uint64_t most_flushes;          /* ...or this many made, checked or
                                       not (0: no bound): a control's */
    unsigned int full_every;        /* every n-th flush is a full one */
    unsigned int stop_after;        /* end at this many stale reads (0:
                                       never) */
    unsigned int walk_spins;        /* table walks' window; 0: the
                                       tlb-detect-walk-spins= option's */
    /*
     * A control run: this injected bug class (asm/flush-inject.h) only
     * while the readers and remappers run, the class before it after
     * them, with every TLB then flushed; 0 leaves the boot's alone.
     */
    unsigned int inject;
};

/* Stale reads, by what the reader caught. */
enum detect_catch
{
    CATCH_REMAP,                    /* an old or foreign tag, mapped slot */
    CATCH_UNMAP,                    /* a read that should have faulted */
    CATCH_PROTECT,                  /* a write through a stale RW entry */
    CATCH_WALK,                     /* a page-table walk into a freed table */
    CATCH_HUGE,                     /* the 2 MiB slot */
    NR_DETECT_CATCH,
};

struct detect_result
{
    uint64_t flushes;               /* checked by every reader */
    uint64_t unchecked;             /* some reader did not read after it */
    uint64_t reads_user, reads_kernel;
    uint64_t stale_user, stale_kernel;
    uint64_t stale_by[NR_DETECT_CATCH];
    /*
     * Lazy mode: reads of a slot's older generation, each through an
     * entry cached before its remap: allowed until the frame is
     * reused, and what a lazy control's stale read needs to last.
     */
    uint64_t old_reads;
    uint64_t ops[NR_DETECT_OPS];    /* changes made, by DETECT_OP_ bit
                                       number + 1 (0: plain remaps) */
    uint64_t faults;                /* reads that faulted, as they must */
    uint64_t blocked_writes;        /* writes that faulted, as they must */
    uint64_t walks;                 /* IRQs-off walks of the table slots */
    uint64_t ms;
    uint64_t stalled_ms;            /* 0, or how long none was checked */
    unsigned int skipped_ops;       /* DETECT_OP_* not run, and why: */
    const char *skip_why;
    /* Per reader CPU: flushes after which that CPU read the slots. */
    cpumask_t reader_cpus;
    cpumask_t remap_cpus;
    cpumask_t stale_cpus;           /* reader CPUs with a stale read */
    bool spin;                      /* the readers spun */
    uint64_t checked_on[NR_CPUS];
    /* The first stale read, for the report. */
    unsigned int bad_cpu;
    enum detect_catch bad_catch;
    uint64_t bad_slot, bad_gen, want_gen, want_slot;
    bool bad_kernel_mode;
};

struct detect_reader;
struct detect_tag;

/* A tag for slot and generation in frame (include/user/programs.h layout). */
void detect_write_tag(paddr_t frame, uint64_t slot, uint64_t gen);

/*
 * Check one read of a slot against the generation published before it
 * (lazy: only the slot must match); counts reads and stale reads in r.
 */
void detect_check_tag(struct detect_reader *r,
                      const volatile struct detect_tag *tag, uint64_t slot,
                      uint64_t want, bool lazy);

/*
 * Run once; returns 0, or a negative errno if it could not be set up
 * (-EINVAL: the placement does not fit the CPUs online).
 */
int tlb_detect_run(const struct detect_config *cfg, struct detect_result *r);

/* Do the options (tlb-detect-burst= at its top) ask for spinning readers? */
bool detect_readers_spin(void);

/* A line for ktest_note(): ops done, per-CPU checks, stale by kind. */
void detect_format(char *buf, size_t len, const struct detect_result *r);

#endif /* SHIMK_TLB_DETECT_H */
