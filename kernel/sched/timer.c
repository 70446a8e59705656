/* SPDX-License-Identifier: GPL-2.0-only */
/* The scheduler's timer: one one-shot per CPU, sleeps, halts, the watchdog. */

#include <guest/hypervisor.h>
#include <shimk/errno.h>
#include <shimk/aspace.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/selfcheck.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <shimk/timer-oneshot.h>
#include <asm/apic.h>
#include <asm/flushtlb.h>
#include <asm/guarded.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include "private.h"

/*
 * One local timer per CPU serves every timed event: the earliest
 * sleeper, a halt's end, a user slice's end.  An arm writes the timer
 * only when it brings the expiry forward (kernel/sched/timer-oneshot.c): an
 * expiry that is due but not yet delivered is never written over, since
 * QEMU and Xen deliver it late, from another context, and a write in
 * between cancels it (QEMU's apic_timer_update(), Xen's
 * vlapic_update_timer()).  Under TCG and Xen that delivery can be
 * hundreds of ms late on a loaded host, so a sleeper does not wait on
 * the timer alone:
 * - every interrupt's exit wakes the sleepers that are due, and every
 *   pass through schedule() or the idle loop those overdue by half the
 *   grace;
 * - a CPU passing through schedule() or its timer interrupt looks at the
 *   others: one whose next timed event is TIMER_GRACE_US overdue gets a
 *   RESCHEDULE IPI (a kick), which wakes its due sleepers.  So does an
 *   idle CPU seen with threads queued for as long.  The watchdog is the
 *   bound on the L0's lateness.
 * Every wake later than LATE_SLACK_US is counted by its cause (enum
 * late_wake): nothing armed (a shimk bug), armed too late, the L0's
 * clock behind (the count still running: Xen's default timer mode,
 * delay_for_missed_ticks in public/hvm/params.h, stops a descheduled
 * vCPU's timers), expired but not yet delivered, or delivered late.  An
 * expiry still undelivered TIMER_LOST_MS after it was due is counted
 * lost, and only then is the timer written again.
 */
#define TIMER_GRACE_US 10000
#define LATE_SLACK_US  1000

#define TIMER_LOST_MS  5000
/*
 * Lost expiries reported in full per CPU; tools/bootlib/lost_expiry.py
 * counts on this many L0-fault lines (REPORTED_PER_CPU).
 */
#define LOST_REPORTED  3

/* Note a timer event in the CPU's ring; IRQs off. */
static void tr(struct runqueue *rq, char what, uint64_t deadline)
{
    struct timer_event *e = &rq->trace[rq->trace_n++ % TIMER_TRACE];

    e->what = what;
    e->tsc = rdtsc();
    e->deadline = deadline;
    e->head = rq->sleepers ? rq->sleepers->wake_at : 0;
}

void timer_dump_trace(const struct runqueue *rq)
{
    for ( unsigned int i = 0; i < TIMER_TRACE; i++ )
    {
        const struct timer_event *e =
            &rq->trace[(rq->trace_n + i) % TIMER_TRACE];

        if ( e->what )
            printk(KERN_ERR "shimk:   %c at %lu: deadline %lu, first "
                   "sleeper %lu\n", e->what, (unsigned long)e->tsc,
                   (unsigned long)e->deadline, (unsigned long)e->head);
    }
}

/* Ask for an interrupt at deadline, writing the timer only if needed. */
static void timer_arm(struct runqueue *rq, uint64_t deadline)
{
    tr(rq, 'a', deadline);
    switch ( oneshot_arm(&rq->timer, deadline, rdtsc(),
                         ms_to_cycles(TIMER_LOST_MS)) )
    {
    case ONESHOT_KEEP:
        rq->stats.arms_kept++;
        return;
    case ONESHOT_WRITE_LOST:
        /* The L0 never delivered it: say so, with the CPU's last events. */
        if ( ++rq->stats.lost <= LOST_REPORTED )
        {
            struct apic_timer_state st;
            char apic[96];

            apic_timer_describe(apic, sizeof(apic));
            apic_timer_read_state(&st);
            printk(KERN_ERR "shimk: timer: CPU%u: the expiry for %lu "
                   "(written at %lu) was never delivered; arming again "
                   "(now %lu; %s)\n", smp_processor_id(),
                   (unsigned long)rq->timer.deadline,
                   (unsigned long)rq->timer.written_at,
                   (unsigned long)rdtsc(), apic);
            /*
             * Whose fault, from the APIC itself: one that ran out and
             * never raised the vector lost the interrupt (tools/boot
             * reads this line; docs/fault-attribution.md).  A ktest's
             * dropped expiry was never written, so it proves nothing.
             */
            if ( !rq->debug_drop_timer &&
                 oneshot_lost_by_l0(&st, TIMER_VECTOR) )
                printk(KERN_ERR "shimk: L0 fault: CPU%u: the local APIC "
                       "timer ran out (count 0, LVTT %#x unmasked) and "
                       "never raised vector %#x (IRR and ISR clear): an "
                       "expiry lost by the L0\n", smp_processor_id(),
                       st.lvtt, TIMER_VECTOR);
            timer_dump_trace(rq);
        }
        break;
    case ONESHOT_WRITE:
        break;
    }
    apic_timer_program(deadline, !rq->debug_drop_timer, &rq->timer);
    tr(rq, 'w', deadline);
    rq->stats.arm_writes++;
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
    return !a ? b : !b ? a : MIN(a, b);
}

/*
 * Arm the timer for this CPU's next timed event, if it has one.  A halt
 * whose end has passed is not armed again: whatever interrupt came ended
 * the HLT, and arming the spent deadline from the timer's own interrupt
 * fired at once, and again, until the halter ran (263,359 interrupts in
 * one xl tlbbench run).  It stays due for the watchdog until the halter
 * clears it.
 */
void timer_rearm(struct runqueue *rq)
{
    uint64_t now = rdtsc();
    uint64_t halt = rq->halt_until > now ? rq->halt_until : 0;
    uint64_t sleeper = rq->sleepers ? rq->sleepers->wake_at : 0;
    uint64_t next = earliest(earliest(rq->slice_end, halt), sleeper);

    rq->next_due = earliest(next, rq->halt_until);
    if ( next )
        timer_arm(rq, next);
}

/* A sleeper woken LATE_SLACK_US or more after due: count why. */
static void count_late(struct runqueue *rq, uint64_t due, uint64_t now,
                       const struct oneshot *was, bool by_timer,
                       int *counting)
{
    struct sched_timer_stats *st = &rq->stats;
    struct late_wake_facts f = { .due = due, .armed = *was,
                                 .by_timer = by_timer };
    enum late_wake why;
    uint64_t late_us = cycles_to_ns(now - due) / 1000;

    /* The hardware is read once per wake-up pass, and only if late. */
    if ( !by_timer && *counting < 0 )
        *counting = apic_timer_counting();
    f.timer_counting = !by_timer && *counting > 0;
    why = late_wake_classify(&f, us_to_cycles(LATE_SLACK_US));
    st->late[why]++;
    /*
     * A shimk bug: say what was armed, and the CPU's last timer events
     * (s: a sleep queued, h: a halt begun, e: ended, a: an arm asked,
     * w: written, i: a timer interrupt).
     */
    if ( why == LATE_NOT_ARMED && st->late[why] <= 3 )
    {
        printk(KERN_ERR "shimk: timer: CPU%u woke a sleeper %lu us late "
               "(%s) with %s armed (deadline %lu, due %lu, now %lu)\n",
               smp_processor_id(), (unsigned long)late_us,
               by_timer ? "by its interrupt" : "by another path",
               was->deadline ? "a later expiry" : "nothing",
               (unsigned long)was->deadline, (unsigned long)due,
               (unsigned long)now);
        timer_dump_trace(rq);
    }
    if ( late_us > st->worst_late_us )
    {
        st->worst_cpu = smp_processor_id();
        st->worst_late_us = late_us;
        st->worst_why = why;
    }
}

/*
 * Move the sleepers due by now to the run queue, counting late ones
 * against *was, the timer as it stood (before its interrupt, by_timer).
 * IRQs off.
 */
static bool wake_due(struct runqueue *rq, uint64_t now,
                     const struct oneshot *was, bool by_timer)
{
    bool woke = false;
    int counting = -1;

    while ( rq->sleepers && rq->sleepers->wake_at <= now )
    {
        struct thread *t = rq->sleepers;

        if ( now - t->wake_at >= us_to_cycles(LATE_SLACK_US) )
            count_late(rq, t->wake_at, now, was, by_timer, &counting);
        rq->sleepers = t->sleep_next;
        t->state = THREAD_RUNNABLE;
        spin_lock(&rq->lock);
        rq_enqueue(rq, t);
        spin_unlock(&rq->lock);
        woke = true;
    }
    /* A woken thread ends a user thread's slice at once. */
    if ( woke && rq->current->task )
        rq->need_resched = true;
    return woke;
}

/*
 * Wake what is due here; then re-arm, since the head moved (or the
 * timer is gone).  IRQs off.
 */
void timer_catch_up(struct runqueue *rq, enum catch_up_from from)
{
    uint64_t now;

    if ( !rq->sleepers || rq->sleepers->wake_at > (now = rdtsc()) )
        return;
    /*
     * A poll wakes only a sleeper whose timer has clearly failed: one
     * that merely came due would otherwise be woken at once, and a short
     * sleep (the detector's readers pace with 20 us ones) would never
     * halt, spinning on host CPUs that other vCPUs need: under TCG the
     * 1,000,000-flush detector ran 4 times slower so.
     */
    if ( from == FROM_POLL &&
         now - rq->sleepers->wake_at < us_to_cycles(TIMER_GRACE_US / 2) )
        return;
    /*
     * ktest: only the watchdog may end a sleep whose timer was dropped;
     * under Xen an early return from HLT or a stray wake-up would often
     * do it first, and the watchdog would go untested.
     */
    if ( rq->debug_drop_timer && from != FROM_KICK )
        return;
    if ( wake_due(rq, now, &rq->timer, false) && from == FROM_KICK )
        rq->stats.kick_wakes++;
    timer_rearm(rq);
}

/* Has rq sat idle with threads queued for the grace?  Racy; a hint. */
static bool stalled(struct runqueue *rq, uint64_t now, uint64_t grace)
{
    uint64_t since = __atomic_load_n(&rq->stalled_since, __ATOMIC_RELAXED);

    if ( !READ_ONCE(rq->nr_queued) || READ_ONCE(rq->current) != rq->idle )
    {
        if ( since )
            __atomic_store_n(&rq->stalled_since, 0, __ATOMIC_RELAXED);
        return false;
    }
    if ( !since )
    {
        __atomic_compare_exchange_n(&rq->stalled_since, &since, now, false,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        return false;
    }
    return now - since >= grace;
}

/* Kick the CPUs that are overdue or stalled past the grace. */
void timer_watch_others(struct runqueue *self, uint64_t now)
{
    uint64_t grace = us_to_cycles(TIMER_GRACE_US);
    unsigned int cpu;

    if ( now - self->watched_at < grace / 4 )
        return;
    self->watched_at = now;
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        struct runqueue *rq = &runqueues[cpu];
        uint64_t due = READ_ONCE(rq->next_due), kicked;
        bool overdue = due && now >= due + grace;
        bool stall;

        if ( rq == self )
            continue;
        stall = stalled(rq, now, grace);
        if ( !overdue && !stall )
            continue;
        kicked = __atomic_load_n(&rq->kicked_at, __ATOMIC_RELAXED);
        if ( now - kicked < grace ||
             !__atomic_compare_exchange_n(&rq->kicked_at, &kicked, now,
                                          false, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED) )
            continue;
        if ( overdue )
            self->stats.kicks_sent++;
        else
            self->stats.stall_kicks++;
        send_ipi_cpu(cpu, RESCHEDULE_VECTOR);
    }
}

void sched_irq_exit(unsigned int vector)
{
    struct runqueue *rq = this_rq();

    /* Before sched_init() there is nothing to wake. */
    if ( rq->idle )
        timer_catch_up(rq, vector == RESCHEDULE_VECTOR ? FROM_KICK : FROM_IRQ);
    /* A stop and restart the L0 told of: this CPU's resume. */
    hypervisor_restart_check();
}

/*
 * The watchdog runs where a CPU passes through schedule() or its timer
 * interrupt.  When the only timed event left is one CPU's sleeper and the
 * L0 drops that expiry (seen once in a 1,000,000-iteration ring-3 fuzz
 * under Xen: every vCPU halted, QEMU idle, for good), no CPU passes
 * there again.  So an idle CPU keeps a watch tick armed: its interrupt
 * runs the watchdog (and, on this CPU, re-arms an expiry undelivered for
 * TIMER_LOST_MS, so one CPU alone recovers too).  At most 10 interrupts
 * a second per idle CPU; an arm that leaves an earlier expiry writes
 * nothing (kernel/sched/timer-oneshot.c).
 */
#define WATCH_TICK_US (TIMER_GRACE_US * 10)
void timer_watch_tick(struct runqueue *rq)
{
    timer_arm(rq, rdtsc() + us_to_cycles(WATCH_TICK_US));
}

void sched_timer_interrupt(struct cpu_regs *regs)
{
    struct runqueue *rq = this_rq();
    uint64_t now = rdtsc();
    struct oneshot was = rq->timer;

    apic_eoi();
    /* Delivered: nothing is outstanding until the next arm. */
    rq->timer.deadline = 0;
    tr(rq, 'i', was.deadline);
    rq->stats.timer_irqs++;
    rq->stats.last_timer_irq = now;
    /*
     * It ends a halt, whose deadline is "at most": re-armed, an L0 whose
     * timer runs a little ahead of the TSC fired again and again until
     * the deadline passed (1.7 interrupts per 100 us halt under Xen on a
     * loaded host).
     */
    rq->halt_until = 0;
    wake_due(rq, now, &was, true);
    if ( rq->slice_end && rq->slice_end <= now )
    {
        rq->slice_end = 0;
        rq->need_resched = true;
    }
    timer_rearm(rq);
    timer_watch_others(rq, now);
    /* The watch tick: this CPU's tables against their boot copies. */
    selfcheck_tick();
    /* A stop and restart the L0 told of: this CPU's resume. */
    hypervisor_restart_check();
}

void thread_sleep_us(uint64_t us)
{
    unsigned long f = local_irq_save();
    struct runqueue *rq = this_rq();
    struct thread *cur = rq->current, **pp;

    if ( cur == rq->idle )
        panic("the idle thread cannot sleep");
    cur->wake_at = rdtsc() + us_to_cycles(us);
    for ( pp = &rq->sleepers; *pp && (*pp)->wake_at <= cur->wake_at;
          pp = &(*pp)->sleep_next )
        ;
    cur->sleep_next = *pp;
    *pp = cur;
    cur->state = THREAD_SLEEPING;
    tr(rq, 's', cur->wake_at);
    timer_rearm(rq);
    schedule();
    local_irq_restore(f);
}

void thread_halt_us(uint64_t us, const volatile bool *done)
{
    unsigned long f = local_irq_save();
    struct runqueue *rq = this_rq();
    uint64_t until = rdtsc() + us_to_cycles(MAX(us, (uint64_t)1));

    /* A timed event like the others, watched by the watchdog too. */
    rq->halt_until = until;
    tr(rq, 'h', until);
    timer_rearm(rq);
    /*
     * With interrupts off: an IPI sent after *done was set is pending by
     * now, and ends the HLT at once; so a waker that sets *done and
     * then sends any IPI never depends on the timer.
     */
    if ( !READ_ONCE(rq->head) && !rq->need_resched && !(done && *done) )
        safe_halt();
    /* Any interrupt ended the halt. */
    local_irq_disable();
    rq->halt_until = 0;
    tr(rq, 'e', 0);
    timer_rearm(rq);
    local_irq_restore(f);
}

void sched_debug_drop_timer(bool drop)
{
    unsigned long f = local_irq_save();
    struct runqueue *rq = this_rq();

    rq->debug_drop_timer = drop;
    if ( !drop )
    {
        /* Forget the expiry that was never programmed, and arm for real. */
        rq->timer.deadline = 0;
        timer_rearm(rq);
    }
    local_irq_restore(f);
}

uint64_t sched_timer_irqs(unsigned int cpu)
{
    return READ_ONCE(runqueues[cpu].stats.timer_irqs);
}

uint64_t sched_last_timer_irq(unsigned int cpu)
{
    return READ_ONCE(runqueues[cpu].stats.last_timer_irq);
}

bool sched_timer_idle_here(void)
{
    return !READ_ONCE(this_rq()->timer.deadline);
}

void sched_timer_arm_here(uint64_t deadline)
{
    unsigned long f = local_irq_save();

    timer_arm(this_rq(), deadline);
    local_irq_restore(f);
}

/*
 * After something else used this CPU's timer (a rate measured again at
 * a resume): its mode is set up anew and nothing is counting, so what
 * was armed is written again.  A deadline already past fires at once,
 * so an expiry due meanwhile is late, never lost.
 */
void sched_timer_rewrite_here(void)
{
    struct runqueue *rq = this_rq();
    unsigned long f = local_irq_save();

    if ( rq->timer.deadline )
    {
        tr(rq, 'r', rq->timer.deadline);
        apic_timer_program(rq->timer.deadline, !rq->debug_drop_timer,
                           &rq->timer);
        rq->stats.arm_writes++;
    }
    local_irq_restore(f);
}
