/* SPDX-License-Identifier: GPL-2.0-only */
/* The stale-TLB detector's shared state: slots, readers, the run (private). */
#ifndef KERNEL_TLB_DETECT_RUN_H
#define KERNEL_TLB_DETECT_RUN_H

#include <shimk/cpumask.h>
#include <shimk/syscall-abi.h>
#include <shimk/tlb-detect.h>
#include <shimk/types.h>
#include <asm/page.h>
#include <user/programs.h>

/*
 * Layout and sizes: kernel/tlb-detect/detect.c says what each kind is for.
 *
 * Every L0 here runs the vCPUs in QEMU TCG, whose software TLB is
 * direct-mapped per MMU mode: a page goes to the entry its page number
 * modulo the table's size names (accel/tcg/cputlb.c, tlb_index(); at
 * least 64 entries, CPU_TLB_DYN_MIN_BITS), behind an 8-entry victim
 * TLB.  Pages a reader reads every round must not share an entry, or its
 * own reads evict what a missed flush left behind: with the kernel
 * slots on the user slots' entries (both windows 1 GiB aligned) a kernel
 * reader under Xen saw no stale read at all with every remote flush
 * left out, and 27,232 in 4 flushes without the kernel slots.  So each
 * kind has its own entries ("colours"), modulo 64: 0 and 63 the 2 MiB
 * slot's two tags, 1-16 the user slots (up to 1-32 in lazy mode), 17-24
 * the fault slots, 25-26 the table slots, 33-48 the kernel slots, 60 the
 * control page (a ring-3 reader's: the kernel ones read it elsewhere).
 */
#define COLOUR(n)   ((n) * PAGE_SIZE)
#define CONTROL_VA  (USER_ARGS_VA + COLOUR(60))
#define SLOTS_BASE  (USER_HEAP_VA + 0x40000000)
#define SLOT_VA     (SLOTS_BASE + COLOUR(1))
#define FAULT_VA    (SLOTS_BASE + 0x400000 + COLOUR(17)) /* one 2 MiB region */
#define TABLE_VA    (SLOTS_BASE + 0x600000)         /* one region each: */
#define TABLE_SLOT_VA(i) (TABLE_VA + (i) * SUPERPAGE_SIZE + COLOUR(25 + (i)))
#define HUGE_VA     (SLOTS_BASE + 0x1000000)
#define KWINDOW     (IOREMAP_BASE + (256ull << 30) + COLOUR(33))
#define FAULT_SLOTS 8
#define TABLE_SLOTS 2
#define FAULT_ID    0x1000u                         /* tags' slot field */
#define TABLE_ID    0x1100u
#define GROUP       4                               /* pages per range */
#define SCRATCH     8                               /* word a write hits */

/* A slot only the kernel readers read: unmapped or write-protected. */
struct fault_slot
{
    vaddr_t va;
    unsigned int id;
    bool table;                     /* alone in its page table */
    volatile uint64_t gen;          /* published */
    volatile uint64_t wp;           /* odd: published read-only */
    uint64_t visits;
};

struct kreader
{
    struct detect_reader r;
    uint64_t by[NR_DETECT_CATCH];
    uint64_t faults, blocked, walks;
    enum detect_catch first;
};

enum item_kind
{
    ITEM_GROUP,                     /* GROUP user slots */
    ITEM_KSLOT,
    ITEM_FAULT,
    ITEM_HUGE,
};

struct item
{
    enum item_kind kind;
    unsigned int index;
    uint64_t visits;
};

#define MAX_ITEMS (DETECT_SLOTS_MAX / GROUP + DETECT_SLOTS_MAX + \
                   FAULT_SLOTS + TABLE_SLOTS + 1)
#define MAX_READERS (DETECT_READERS_MAX + NR_CPUS)

struct detect_run
{
    const struct detect_config *cfg;
    unsigned int ops;               /* cfg->ops less what cannot run */
    struct task *task;
    struct detect_control *ctl;     /* the user slots' control page */
    struct detect_control kctl;     /* the kernel slots' */
    paddr_t ctl_pa;
    paddr_t huge_pa;
    struct fault_slot fslot[FAULT_SLOTS + TABLE_SLOTS];
    unsigned int nfslots;
    struct item item[MAX_ITEMS];
    unsigned int nitems;
    volatile uint64_t flushes;      /* checked: every reader read after */
    volatile uint64_t unchecked;    /* some reader did not, in time */
    volatile uint64_t ops_done[NR_DETECT_OPS];
    volatile uint64_t checked_on[NR_CPUS];
    volatile bool stop;
    bool spin;                      /* readers never halt nor yield */
    unsigned int burst, pace_us;    /* else: rounds, then a halt */
    uint64_t start;                 /* TSC, CPU0's */
    uint64_t stall;                 /* TSC: the most a run may go with no
                                       checked flush */
    unsigned int nreaders;          /* user readers */
    unsigned int user_cpu[DETECT_READERS_MAX];
    cpumask_t reader_cpus;          /* CPUs with a reader of either kind */
    cpumask_t kreader_cpus;         /* CPUs with a kernel reader */
    volatile unsigned int remappers_running;
    struct kreader kreader[NR_CPUS];
    /*
     * Lazy mode, per remapper CPU: the frame its next remap maps, taken
     * (reused) at once after a remap's free (remap.c), and whose turn.
     */
    paddr_t spare[NR_CPUS];
    unsigned int spare_turn[NR_CPUS];
};

struct remapper_arg
{
    struct detect_run *d;
    unsigned int index;
};

/* Readers' pacing (tlb-detect-burst=, tlb-detect-pace-us=). */
extern unsigned int detect_pace_us, detect_burst;

/*
 * At this burst readers spin alone on their CPU (read.c):
 * the option's top, and what a spinning placement sets.
 */
#define SPIN_BURST 1000000u

/* kernel/tlb-detect/read.c: one kernel reader, on its CPU. */
void detect_kernel_reader(void *arg);

/* kernel/tlb-detect/remap.c: one remapper; the run's end. */
void detect_remapper(void *arg);
void detect_stop_run(struct detect_run *d);
bool detect_run_over(struct detect_run *d);

/* kernel/tlb-detect/detect.c */
paddr_t detect_new_frame(void);
uint64_t detect_total_stale(struct detect_run *d);

#endif /* KERNEL_TLB_DETECT_RUN_H */
