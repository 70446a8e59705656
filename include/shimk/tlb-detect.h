/* SPDX-License-Identifier: GPL-2.0-only */
/* The stale-TLB detector: readers on every CPU against remappers that flush. */
#ifndef SHIMK_TLB_DETECT_H
#define SHIMK_TLB_DETECT_H

#include <shimk/types.h>

enum detect_mode
{
    /*
     * Remap, flush synchronously, then publish the new generation: a
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

struct detect_config
{
    enum detect_mode mode;
    unsigned int user_slots;        /* pages in the task, non-global */
    unsigned int kernel_slots;      /* pages in a kernel window, global */
    unsigned int remappers;         /* CPUs remapping, from CPU1 up */
    uint64_t flushes;               /* stop after this many... */
    uint64_t max_ms;                /* ...or after this long without a
                                       checked one (progress stopped) */
    unsigned int full_every;        /* every n-th flush is a full one */
};

struct detect_result
{
    uint64_t flushes;               /* checked: a read round followed */
    uint64_t unchecked;             /* flushes no read round followed */
    uint64_t reads_user, reads_kernel;
    uint64_t stale_user, stale_kernel;
    uint64_t ms;
    uint64_t stalled_ms;            /* 0, or how long none was checked */
    /* The first stale read, for the report. */
    unsigned int bad_cpu;
    uint64_t bad_slot, bad_gen, want_gen, want_slot;
    bool bad_kernel_mode;
};

struct detect_reader;
struct detect_tag;

/* A tag for slot and generation in frame (user/programs.h layout). */
void detect_write_tag(paddr_t frame, uint64_t slot, uint64_t gen);

/*
 * Check one read of a slot against the generation published before it
 * (lazy: only the slot must match); counts reads and stale reads in r.
 */
void detect_check_tag(struct detect_reader *r,
                      const volatile struct detect_tag *tag, uint64_t slot,
                      uint64_t want, bool lazy);

/* Run once; returns 0, or a negative errno if it could not be set up. */
int tlb_detect_run(const struct detect_config *cfg, struct detect_result *r);

#endif /* SHIMK_TLB_DETECT_H */
