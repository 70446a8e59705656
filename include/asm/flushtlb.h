/* SPDX-License-Identifier: GPL-2.0-only */
/* TLB flushing: flags, local primitives, the TLB clock, remote shootdown. */
#ifndef ASM_FLUSHTLB_H
#define ASM_FLUSHTLB_H

#include <shimk/cpumask.h>
#include <shimk/types.h>

/*
 * Flag word, as Xen's (asm/flushtlb.h): the low byte is an order plus
 * one, 0 meaning the whole address space; the rest says what to flush.
 */
#define FLUSH_ORDER_MASK 0xffu
#define FLUSH_ORDER(x)   ((x) + 1u)
#define FLUSH_TLB        0x100u     /* non-global entries */
#define FLUSH_TLB_GLOBAL 0x200u     /* global entries too */
#define FLUSH_VA_VALID   0x800u     /* va is mapped (cache flush hint) */
/*
 * The flush is a barrier: every target must take an interrupt, so a
 * CPU inside an IRQs-off region (a lockless page-table walk) holds the
 * initiator off.  An L0 flush would complete behind its back, so this
 * forbids assistance; it does not force IPIs when nothing is remote.
 */
#define FLUSH_NO_ASSIST  0x8000u

/* What an L0 may be asked to do (docs/flush.md, rule 8). */
#define FLUSH_ASSISTABLE (FLUSH_ORDER_MASK | FLUSH_TLB | FLUSH_TLB_GLOBAL | \
                          FLUSH_VA_VALID)

/*
 * Above this many pages a range is flushed whole: one full flush and
 * the refills cost less than this many INVLPGs.  Linux uses 33 (see
 * tlb_single_page_flush_ceiling); orders are powers of two, so 32.
 */
#define FLUSH_INVLPG_CEILING 32u

/* How a local flush is done: the decision of flush_local_kind(). */
enum flush_kind
{
    FLUSH_KIND_NONE,
    FLUSH_KIND_INVLPG,          /* 2^order pages, one INVLPG each */
    FLUSH_KIND_INVPCID_ALL,     /* type 2: everything, globals too */
    FLUSH_KIND_INVPCID_NONGLOBAL, /* type 3: all but globals */
    FLUSH_KIND_PGE_TOGGLE,      /* CR4.PGE off and on: globals too */
    FLUSH_KIND_CR3_RELOAD,      /* non-global entries */
    NR_FLUSH_KINDS,
};

/* --- pure decisions (arch/x86/flush/flush-policy.c; unit-tested) --- */

/* 2^order pages, or -1 for the whole address space. */
int flush_order(unsigned int flags);

/*
 * Pick the local primitive for flags: INVLPG for ranges up to the
 * ceiling; else for globals INVPCID (all contexts) when allowed, else
 * a PGE toggle when PGE is on, else a CR3 reload (no globals exist);
 * for non-global only, INVPCID (type 3) or a CR3 reload.
 */
enum flush_kind flush_local_kind(unsigned int flags, bool use_invpcid,
                                 bool pge_on);

/* May these flags go to the L0's flush hook?  Only pure TLB flushes. */
bool flush_may_assist(unsigned int flags);

const char *flush_kind_name(enum flush_kind k);

/* --- TLB clock arithmetic (arch/x86/flush/tlb-clock.c; unit-tested) --- */

/*
 * Does a CPU whose last full flush was stamped cpu_stamp still need to
 * flush for a frame last used at lastuse, when the clock reads now?
 * Yes when the clock is 0 (off, or a wrap is in progress), or when
 * cpu_stamp <= lastuse <= now.  lastuse > now means the clock wrapped
 * since, and every wrap flushed every CPU (Xen's NEED_FLUSH()).
 */
bool tlb_need_flush(uint32_t now, uint32_t cpu_stamp, uint32_t lastuse);

/* The next clock value: 0 on wrap (the caller then leads the wrap). */
uint32_t tlb_clock_next(uint32_t now, uint32_t mask);

/*
 * Clear from mask every CPU that provably flushed after lastuse, given
 * each CPU's stamp.  With the clock at 0 nothing is cleared.  Returns
 * how many CPUs were cleared.
 */
unsigned int tlb_filter(cpumask_t *mask, uint32_t (*stamp_of)(unsigned int),
                        uint32_t now, uint32_t lastuse);

/* --- the kernel's flushing (arch/x86/flush/flushtlb.c, arch/x86/flush/flush-smp.c) --- */

/*
 * Flush this CPU's TLB as flags say (va: start of the range).  Returns
 * the flags still needing remote action.  Any context, IRQs any state.
 */
unsigned int flush_area_local(const void *va, unsigned int flags);

/*
 * Flush every CPU in mask: this CPU first (never via the L0), then the
 * others through the L0 hook when assisted flush is on and flags
 * allow, else by IPI shootdown; returns once all are done.  With
 * remote targets, interrupts must be enabled (the wait services other
 * CPUs' flush IPIs).
 */
void flush_area_mask(const cpumask_t *mask, const void *va,
                     unsigned int flags);

static inline void flush_tlb_mask(const cpumask_t *mask)
{
    flush_area_mask(mask, NULL, FLUSH_TLB);
}

/* Load a new CR3, ticking the TLB clock (a CR3 write flushes non-globals). */
void switch_cr3(paddr_t root);

/* --- the TLB clock (arch/x86/flush/flushtlb.c) --- */

extern bool tlb_clock_enabled;
extern uint32_t tlbflush_clock;
extern uint32_t tlb_clock_mask;

/* 0 when the clock is off: "always flush". */
static inline uint32_t tlbflush_current_time(void)
{
    return tlb_clock_enabled ? __atomic_load_n(&tlbflush_clock,
                                               __ATOMIC_ACQUIRE) : 0;
}

/* Turn the clock off for good (assisted flush, decided at boot). */
void tlb_clock_disable(void);

/* If this CPU wrapped the clock, lead the global flush (IRQs on). */
void tlb_clock_maybe_wrap(void);

/* Remote targets in mask that still need a flush for lastuse. */
unsigned int tlb_clock_filter(cpumask_t *mask, uint32_t lastuse);

/* --- policy switches, boot-time and (for tests and tlbbench) runtime --- */

extern bool use_invpcid;

/* The boot policy: global-pages=, invpcid=, the clock width. */
void flush_init(void);

/* Set or clear CR4.PGE on every online CPU; IRQs on, process context. */
void tlb_set_global_pages(bool on);

/* Per-CPU counters (asm/percpu.h holds one per CPU). */
struct flush_counters
{
    uint64_t local[NR_FLUSH_KINDS];     /* local flushes by primitive */
    uint64_t remote_requests;           /* flush_area_mask with targets */
    uint64_t ipi_targets;               /* CPUs sent a flush IPI */
    uint64_t ipis_received;             /* flush IPIs taken */
    uint64_t assisted_ok, assisted_failed;
    uint64_t assisted_partial;          /* L0 did some, IPIs the rest */
    uint64_t assisted_l0_late;          /* L0 kept it past the bound */
    uint64_t assisted_shared;           /* ok, served by another CPU's call */
    uint64_t pv_flagged;                /* KVM: preempted vCPUs flagged */
    uint64_t no_assist_forced;          /* could have gone to L0, did not */
    uint64_t no_assist_ipis;            /* CPUs those sent IPIs to */
    uint64_t adapt_ipi;                 /* could have gone to L0; IPIs
                                           were the run-time choice */
    uint64_t adapt_ipi_targets;         /* CPUs those sent IPIs to */
    uint64_t clock_skips;               /* CPUs the clock filtered out */
    uint64_t clock_wraps;               /* wraps this CPU led */
    uint64_t stale_reads;               /* seen by the stale-TLB detector */
    uint64_t wait_cycles;               /* initiator waiting for acks */
    uint64_t flush_cycles;              /* in flush_area_mask, remote part */
    uint64_t handler_cycles;            /* in the flush IPI handler */
    uint64_t skipped_remote;            /* tlb-inject: remote flushes not
                                           (or not wholly) sent */
    uint64_t ack_resends;               /* flush IPIs sent again to a
                                           target silent past the bound */
    uint64_t yields;                    /* waits' yields to a target the
                                           L0 held off (pv-yield) */
    uint64_t yield_failed;              /* the L0 refused the yield */
};

/* Sum of every online CPU's counters. */
void flush_counters_total(struct flush_counters *sum);

/* Two "tlb:" log lines with the totals. */
void flush_counters_print(void);

#endif /* ASM_FLUSHTLB_H */
