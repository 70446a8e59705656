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

#endif /* SHIMK_TIMER_ONESHOT_H */
