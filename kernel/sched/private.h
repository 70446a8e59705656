/* SPDX-License-Identifier: GPL-2.0-only */
/* The scheduler's own: run queues, and what its three files share. */
#ifndef KERNEL_SCHED_PRIVATE_H
#define KERNEL_SCHED_PRIVATE_H

#include <shimk/sched.h>
#include <shimk/spinlock.h>
#include <shimk/timer-oneshot.h>
#include <asm/smp.h>

struct cpu_regs;

/* One entry of a CPU's ring of recent timer events. */
#define TIMER_TRACE 16
struct timer_event
{
    char what;
    uint64_t tsc, deadline, head;
};

struct runqueue
{
    spinlock_t lock;
    struct thread *head, *tail;
    unsigned int nr_queued;
    struct thread *current;
    struct thread *idle;
    struct thread *prev;        /* the thread just switched away from */
    volatile bool need_resched; /* a user thread's slice is over */
    struct thread *sleepers;    /* by wake time; this CPU only, IRQs off */
    uint64_t slice_end;         /* TSC; 0 when no slice is running */
    uint64_t halt_until;        /* TSC; 0 unless in thread_halt_us() */
    struct oneshot timer;       /* what the local timer has outstanding */
    struct timer_event trace[TIMER_TRACE];  /* the last few, for a bug */
    unsigned int trace_n;
    /* The watchdog (timer.c). */
    volatile uint64_t next_due;     /* earliest wake, halt or slice end */
    uint64_t stalled_since;         /* seen idle with threads queued */
    uint64_t kicked_at;             /* last watchdog IPI to this CPU */
    uint64_t watched_at;            /* this CPU last looked at others */
    bool debug_drop_timer;          /* ktest: as if the L0 never delivered */
    struct sched_timer_stats stats;
} __aligned(64);

/* Every CPU's; sched.c owns them, timer.c and stats.c read them. */
extern struct runqueue runqueues[NR_CPUS];

static inline struct runqueue *this_rq(void)
{
    return &runqueues[smp_processor_id()];
}

/* Who looks for due sleepers: they differ in how late is too late. */
enum catch_up_from
{
    FROM_IRQ,       /* an interrupt's exit: due is enough */
    FROM_KICK,      /* the watchdog's RESCHEDULE IPI: due is enough */
    FROM_POLL,      /* schedule() or the idle loop: only when overdue */
};

/* sched.c: queue a runnable thread (the queue's lock held). */
void rq_enqueue(struct runqueue *rq, struct thread *t);
/* sched.c: switch to the next runnable thread, or stay. */
void schedule(void);

/* timer.c: arm for this CPU's next timed event, if any.  IRQs off. */
void timer_rearm(struct runqueue *rq);
/* timer.c: wake the sleepers due here, then re-arm.  IRQs off. */
void timer_catch_up(struct runqueue *rq, enum catch_up_from from);
/* timer.c: kick the CPUs overdue or stalled past the grace. */
void timer_watch_others(struct runqueue *self, uint64_t now);
/* timer.c: an idle CPU's watch tick, armed before it halts. */
void timer_watch_tick(struct runqueue *rq);
/* timer.c: the CPU's last timer events, for a bug report. */
void timer_dump_trace(const struct runqueue *rq);
/* timer.c: TIMER_VECTOR's handler. */
void sched_timer_interrupt(struct cpu_regs *regs);

#endif /* KERNEL_SCHED_PRIVATE_H */
