/* SPDX-License-Identifier: GPL-2.0-only */
/* A CPU's one-shot timer: when an arm must write it, why a wake was late. */
#ifndef SHIMK_TIMER_ONESHOT_H
#define SHIMK_TIMER_ONESHOT_H

#include <shimk/types.h>

/*
 * The expiry a CPU's timer has outstanding, all in TSC cycles.  Kept by
 * kernel/sched/sched.c, one per CPU; this file is pure so that the host unit
 * tests compile it.
 */
struct oneshot
{
    uint64_t deadline;      /* what it was armed for; 0: nothing armed */
    uint64_t written_at;    /* the arm's register write had completed */
    uint64_t expires_by;    /* the latest the hardware can expire, by it */
};

enum oneshot_arm
{
    ONESHOT_KEEP,       /* leave the timer alone */
    ONESHOT_WRITE,      /* program it for the new deadline */
    ONESHOT_WRITE_LOST, /* the same, giving up on an expiry never delivered */
};

/*
 * Should a request to be woken at deadline (now being the TSC) write the
 * timer whose state is *o?  Only when nothing is armed, or when deadline
 * comes before what is armed: an earlier expiry already armed fires
 * first, and its interrupt arms the next.  An expiry that is due but not
 * yet delivered is never written over: QEMU and Xen deliver it late,
 * from another context, and a write cancels it (QEMU's
 * apic_timer_update(), Xen's vlapic_update_timer()).  It is kept, and
 * stands for the new deadline too when that is earlier (a request made
 * after its deadline passed, *o then saying so).  Only once it is
 * lost_after overdue is it taken as lost and the timer written again.
 * The caller writes *o on a WRITE.
 */
enum oneshot_arm oneshot_arm(struct oneshot *o, uint64_t deadline,
                             uint64_t now, uint64_t lost_after);

/* Why a sleeper was woken late: what was armed, and what came of it. */
enum late_wake
{
    LATE_NOT_ARMED,     /* nothing armed for it: a shimk bug */
    LATE_ARMED_LATE,    /* the arm's write itself came too late */
    LATE_CLOCK_BEHIND,  /* still counting: the L0's clock ran behind */
    LATE_UNDELIVERED,   /* expired, not yet delivered by the L0 */
    LATE_DELIVERED_LATE, /* its interrupt came, late */
    NR_LATE_WAKE
};

/* The facts at a late wake: now - due exceeded the lateness slack. */
struct late_wake_facts
{
    uint64_t due;           /* the sleeper's wake time */
    struct oneshot armed;   /* at the wake (by_timer: before the irq) */
    bool by_timer;          /* woken by the timer's own interrupt */
    bool timer_counting;    /* the hardware has not expired yet */
};

/*
 * In this order: an expiry armed for after due (or none) is the
 * kernel's fault; one whose write completed so late that it expired
 * past due + slack is the arm's; otherwise the L0 was late, delivering
 * it (by_timer), with its clock (still counting), or not yet at all.
 */
enum late_wake late_wake_classify(const struct late_wake_facts *f,
                                  uint64_t slack);

/* Short names for the counts: "nothing-armed", "armed-late", ... */
const char *late_wake_name(enum late_wake why);

/*
 * The local APIC's timer as read when an expiry was counted lost: its
 * count (TMCCT, or IA32_TSC_DEADLINE in that mode), its LVT entry, and
 * whether its vector is requested (IRR) or in service (ISR).
 */
struct apic_timer_state
{
    uint64_t count;
    uint32_t lvtt;
    bool irr, isr;
};

#define LVTT_MASKED      (1u << 16)
#define LVTT_VECTOR_MASK 0xffu

/*
 * Does the state prove that the L0 lost the expiry?  The timer ran out
 * (a one-shot's current count stops at 0, a TSC deadline is cleared when
 * it fires: SDM Vol. 3A, "APIC Timer"), its LVT entry is unmasked and
 * names vector, and the vector was neither raised (IRR) nor is in
 * service (ISR).  An APIC in that state has fired and must have raised
 * the vector; only an emulation that dropped the interrupt leaves it so.
 * The caller has armed this expiry for real (not a ktest's dropped one)
 * and taken no interrupt for it.
 */
bool oneshot_lost_by_l0(const struct apic_timer_state *s,
                        unsigned int vector);

#endif /* SHIMK_TIMER_ONESHOT_H */
