/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel threads: per-CPU FIFO run queues, cooperative switching, HLT idle. */

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

/*
 * Threads never migrate: each belongs to the CPU it was created on, so
 * a run queue is only ever dequeued by its own CPU, with interrupts
 * off.  Other CPUs only enqueue (under the queue's lock) and then send
 * a RESCHEDULE IPI to wake an idle CPU out of HLT.  There is no
 * preemption of kernel threads: they run until they yield, block in
 * thread_join, or exit.
 */

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
    /* The watchdog (see below). */
    volatile uint64_t next_due;     /* earliest wake, halt or slice end */
    uint64_t stalled_since;         /* seen idle with threads queued */
    uint64_t kicked_at;             /* last watchdog IPI to this CPU */
    uint64_t watched_at;            /* this CPU last looked at others */
    bool debug_drop_timer;          /* ktest: as if the L0 never delivered */
    struct sched_timer_stats stats;
} __aligned(64);

/*
 * User threads are preempted: when one runs while others wait, the
 * local APIC timer ends its slice, and the switch happens on its way
 * back to ring 3.  Kernel threads are never preempted.
 */
#define USER_SLICE_US 10000

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

static struct runqueue runqueues[NR_CPUS];
static struct thread boot_thread = { .name = "boot", .state = THREAD_RUNNING };
static unsigned int next_thread_id = 1;

void switch_context(uint64_t *save_rsp, uint64_t next_rsp);

static struct runqueue *this_rq(void)
{
    return &runqueues[smp_processor_id()];
}

struct thread *current_thread(void)
{
    return this_rq()->current;
}

unsigned int sched_queued(unsigned int cpu)
{
    return READ_ONCE(runqueues[cpu].nr_queued);
}

static void enqueue(struct runqueue *rq, struct thread *t)
{
    t->next = NULL;
    if ( rq->tail )
        rq->tail->next = t;
    else
        rq->head = t;
    rq->tail = t;
    rq->nr_queued++;
}

static struct thread *dequeue(struct runqueue *rq)
{
    struct thread *t = rq->head;

    if ( t )
    {
        rq->head = t->next;
        if ( !rq->head )
            rq->tail = NULL;
        rq->nr_queued--;
    }
    return t;
}

/* On the new thread's stack: a dead predecessor's stack can go now. */
static void finish_switch(void)
{
    struct runqueue *rq = this_rq();
    struct thread *prev = rq->prev;

    rq->prev = NULL;
    if ( !prev || prev->state != THREAD_DEAD )
        return;
    guarded_free(prev->stack);
    prev->stack = NULL;
    /* This CPU has loaded another root, or the space is still shared. */
    if ( prev->aspace )
        aspace_put(prev->aspace);
    if ( prev->detached )
        kfree(prev);
    else
        WRITE_ONCE(prev->done, true);
}

/* Note a timer event in the CPU's ring; IRQs off. */
static void tr(struct runqueue *rq, char what, uint64_t deadline)
{
    struct timer_event *e = &rq->trace[rq->trace_n++ % TIMER_TRACE];

    e->what = what;
    e->tsc = rdtsc();
    e->deadline = deadline;
    e->head = rq->sleepers ? rq->sleepers->wake_at : 0;
}

static void dump_trace(const struct runqueue *rq)
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
        if ( ++rq->stats.lost <= 3 )
        {
            char apic[96];

            apic_timer_describe(apic, sizeof(apic));
            printk(KERN_ERR "shimk: timer: CPU%u: the expiry for %lu "
                   "(written at %lu) was never delivered; arming again "
                   "(now %lu; %s)\n", smp_processor_id(),
                   (unsigned long)rq->timer.deadline,
                   (unsigned long)rq->timer.written_at,
                   (unsigned long)rdtsc(), apic);
            dump_trace(rq);
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
static void rearm_timer(struct runqueue *rq)
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
        dump_trace(rq);
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
        enqueue(rq, t);
        spin_unlock(&rq->lock);
        woke = true;
    }
    /* A woken thread ends a user thread's slice at once. */
    if ( woke && rq->current->task )
        rq->need_resched = true;
    return woke;
}

/* Who looks for due sleepers: they differ in how late is too late. */
enum catch_up_from
{
    FROM_IRQ,       /* an interrupt's exit: due is enough */
    FROM_KICK,      /* the watchdog's RESCHEDULE IPI: due is enough */
    FROM_POLL,      /* schedule() or the idle loop: only when overdue */
};

/*
 * Wake what is due here; then re-arm, since the head moved (or the
 * timer is gone).  IRQs off.
 */
static void catch_up(struct runqueue *rq, enum catch_up_from from)
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
    rearm_timer(rq);
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
static void watch_others(struct runqueue *self, uint64_t now)
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
        catch_up(rq, vector == RESCHEDULE_VECTOR ? FROM_KICK : FROM_IRQ);
}

/* What the CPU needs for next: its stacks, its address space, a slice. */
static void switch_arch(struct runqueue *rq, struct thread *next)
{
    struct cpu_info *ci = this_cpu();

    /*
     * Syscalls and interrupts from ring 3 land on this stack.  The boot
     * thread has none of its own: it runs on the CPU's, and RSP0 must
     * never keep naming a stack that an exited thread gave back (the
     * self-check, shimk/selfcheck.h, holds it to a live one).
     */
    ci->kernel_stack_top = next->stack ?
                           (uint64_t)next->stack + THREAD_STACK_SIZE :
                           (uint64_t)ci->stack_base + KERNEL_STACK_SIZE;
    ci->tss.rsp[0] = ci->kernel_stack_top;
    aspace_switch(next->aspace);
    rq->need_resched = false;
    rq->slice_end = next->task && rq->nr_queued ?
                    rdtsc() + us_to_cycles(USER_SLICE_US) : 0;
    rearm_timer(rq);
}

static void schedule(void)
{
    unsigned long f = local_irq_save();
    struct runqueue *rq = this_rq();
    struct thread *cur = rq->current, *next;

    catch_up(rq, FROM_POLL);
    watch_others(rq, rdtsc());
    spin_lock(&rq->lock);
    next = dequeue(rq);
    if ( !next )
    {
        if ( cur->state == THREAD_RUNNING )
        {
            spin_unlock(&rq->lock);
            local_irq_restore(f);
            return;
        }
        next = rq->idle;
    }
    else if ( next == cur )
    {
        /* catch_up() woke the thread that was going to sleep. */
        cur->state = THREAD_RUNNING;
        spin_unlock(&rq->lock);
        local_irq_restore(f);
        return;
    }
    if ( cur->state == THREAD_RUNNING && cur != rq->idle )
    {
        cur->state = THREAD_RUNNABLE;
        enqueue(rq, cur);
    }
    spin_unlock(&rq->lock);

    next->state = THREAD_RUNNING;
    rq->current = next;
    rq->prev = cur;
    switch_arch(rq, next);
    switch_context(&cur->rsp, next->rsp);
    finish_switch();
    local_irq_restore(f);
}

void yield(void)
{
    schedule();
}

void thread_exit(void)
{
    local_irq_disable();
    current_thread()->state = THREAD_DEAD;
    schedule();
    panic("a dead thread was scheduled again");
}

static __noreturn void thread_entry(void)
{
    struct thread *t;

    finish_switch();
    local_irq_enable();
    t = current_thread();
    t->fn(t->arg);
    thread_exit();
}

/* The frame switch_context pops: six registers, then thread_entry. */
static void prepare_stack(struct thread *t)
{
    uint64_t *sp = (uint64_t *)((char *)t->stack + THREAD_STACK_SIZE);

    *--sp = 0;                          /* thread_entry's return address */
    *--sp = (uint64_t)thread_entry;
    for ( unsigned int i = 0; i < 6; i++ )
        *--sp = 0;                      /* rbp rbx r12 r13 r14 r15 */
    t->rsp = (uint64_t)sp;
}

static struct thread *thread_alloc(const char *name, void (*fn)(void *),
                                   void *arg, unsigned int cpu)
{
    if ( cpu >= NR_CPUS || !cpumask_test_cpu(cpu, &cpu_online_mask) )
        panic("thread %s: CPU%u is not online", name, cpu);

    struct thread *t = kzalloc(sizeof(*t));

    ksnprintf(t->name, sizeof(t->name), "%s", name);
    t->fn = fn;
    t->arg = arg;
    t->cpu = cpu;
    t->id = __atomic_fetch_add(&next_thread_id, 1, __ATOMIC_RELAXED);
    t->stack = guarded_alloc(THREAD_STACK_SIZE, GUARDED_THREAD, cpu, t->name,
                             t->id);
    prepare_stack(t);
    return t;
}

struct thread *thread_alloc_detached(const char *name, void (*fn)(void *),
                                     void *arg, unsigned int cpu)
{
    struct thread *t = thread_alloc(name, fn, arg, cpu);

    t->detached = true;
    return t;
}

void thread_start(struct thread *t)
{
    struct runqueue *rq = &runqueues[t->cpu];
    unsigned long f;

    t->state = THREAD_RUNNABLE;
    f = spin_lock_irqsave(&rq->lock);
    enqueue(rq, t);
    spin_unlock_irqrestore(&rq->lock, f);
    /* Wake an idle CPU, or end a user thread's unbounded slice there. */
    if ( t->cpu != smp_processor_id() )
        send_ipi_cpu(t->cpu, RESCHEDULE_VECTOR);
    else if ( current_thread()->task )
        rq->need_resched = true;
}

struct thread *thread_create(const char *name, void (*fn)(void *),
                             void *arg, unsigned int cpu, bool detached)
{
    struct thread *t = thread_alloc(name, fn, arg, cpu);

    t->detached = detached;
    thread_start(t);
    return t;
}

bool sched_need_resched(void)
{
    return this_rq()->need_resched;
}

int thread_join(struct thread *t, uint64_t timeout_ms)
{
    uint64_t start = rdtsc(), bound = ms_to_cycles(timeout_ms);

    while ( !READ_ONCE(t->done) )
    {
        if ( rdtsc() - start > bound )
        {
            pr_err("thread %s (id %u) on CPU%u is not done after %lu ms\n",
                   t->name, t->id, t->cpu, (unsigned long)timeout_ms);
            sched_dump();
            return -ETIMEDOUT;
        }
        yield();
        cpu_relax();
    }
    kfree(t);
    return 0;
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

static void watch_tick(struct runqueue *rq)
{
    timer_arm(rq, rdtsc() + us_to_cycles(WATCH_TICK_US));
}

static __noreturn void idle_loop(void *unused)
{
    struct runqueue *rq = this_rq();

    for ( ;; )
    {
        /*
         * Check and halt with interrupts off: STI's one-instruction
         * shadow makes "sti; hlt" atomic, so a wake-up IPI that lands
         * after the check still ends the HLT.
         */
        local_irq_disable();
        catch_up(rq, FROM_POLL);
        if ( !READ_ONCE(rq->head) )
        {
            watch_tick(rq);
            safe_halt();
            continue;
        }
        local_irq_enable();
        schedule();
        tlb_clock_maybe_wrap();
    }
}

static void reschedule_interrupt(struct cpu_regs *regs)
{
    /*
     * The idle loop looks at its queue after HLT by itself; a user
     * thread running here must make way for the newcomer.
     */
    if ( this_rq()->current->task )
        this_rq()->need_resched = true;
}

static void timer_interrupt(struct cpu_regs *regs)
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
    rearm_timer(rq);
    watch_others(rq, now);
    /* The watch tick: this CPU's tables against their boot copies. */
    selfcheck_tick();
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
    rearm_timer(rq);
    schedule();
    local_irq_restore(f);
}

const char *sched_running_on(unsigned int cpu)
{
    const struct thread *t = READ_ONCE(runqueues[cpu].current);

    return t ? t->name : "nothing";
}

void thread_halt_us(uint64_t us, const volatile bool *done)
{
    unsigned long f = local_irq_save();
    struct runqueue *rq = this_rq();
    uint64_t until = rdtsc() + us_to_cycles(MAX(us, (uint64_t)1));

    /* A timed event like the others, watched by the watchdog too. */
    rq->halt_until = until;
    tr(rq, 'h', until);
    rearm_timer(rq);
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
    rearm_timer(rq);
    local_irq_restore(f);
}

void sched_init(void)
{
    struct runqueue *rq = &runqueues[0];

    for ( unsigned int i = 0; i < NR_CPUS; i++ )
        runqueues[i].lock = (spinlock_t)SPINLOCK_INIT("runqueue");
    rq->current = &boot_thread;
    rq->idle = thread_alloc("idle0", (void (*)(void *))idle_loop, NULL, 0);
    rq->idle->state = THREAD_RUNNABLE;
    set_ipi_handler(RESCHEDULE_VECTOR, reschedule_interrupt);
    set_vector_handler(TIMER_VECTOR, timer_interrupt);
}

void sched_start_ap(void)
{
    struct cpu_info *ci = this_cpu();
    struct runqueue *rq = &runqueues[ci->cpu];
    struct thread *idle = kzalloc(sizeof(*idle));

    /* This context, on the AP's boot stack, is its idle thread. */
    ksnprintf(idle->name, sizeof(idle->name), "idle%u", ci->cpu);
    idle->cpu = ci->cpu;
    idle->state = THREAD_RUNNING;
    idle->stack = ci->stack_base;
    rq->idle = idle;
    rq->current = idle;

    cpumask_set_cpu(ci->cpu, &cpu_online_mask);
    __atomic_fetch_add(&nr_cpus_online, 1, __ATOMIC_SEQ_CST);
    idle_loop(NULL);
}

static void add_stats(struct sched_timer_stats *sum,
                      const struct sched_timer_stats *st)
{
    sum->timer_irqs += READ_ONCE(st->timer_irqs);
    sum->arm_writes += READ_ONCE(st->arm_writes);
    sum->arms_kept += READ_ONCE(st->arms_kept);
    sum->kicks_sent += READ_ONCE(st->kicks_sent);
    sum->stall_kicks += READ_ONCE(st->stall_kicks);
    sum->kick_wakes += READ_ONCE(st->kick_wakes);
    sum->lost += READ_ONCE(st->lost);
    for ( unsigned int i = 0; i < NR_LATE_WAKE; i++ )
        sum->late[i] += READ_ONCE(st->late[i]);
    if ( READ_ONCE(st->worst_late_us) > sum->worst_late_us )
    {
        sum->worst_cpu = st->worst_cpu;
        sum->worst_late_us = st->worst_late_us;
        sum->worst_why = st->worst_why;
    }
}

void sched_timer_stats(struct sched_timer_stats *sum)
{
    unsigned int cpu;

    memset(sum, 0, sizeof(*sum));
    for_each_cpu ( cpu, &cpu_online_mask )
        add_stats(sum, &runqueues[cpu].stats);
}

void sched_cpu_timer_stats(unsigned int cpu, struct sched_timer_stats *st)
{
    memset(st, 0, sizeof(*st));
    add_stats(st, &runqueues[cpu].stats);
}

void sched_timer_delta(struct sched_timer_stats *d,
                       const struct sched_timer_stats *a,
                       const struct sched_timer_stats *b)
{
    *d = *b;
    d->timer_irqs -= a->timer_irqs;
    d->arm_writes -= a->arm_writes;
    d->arms_kept -= a->arms_kept;
    d->kicks_sent -= a->kicks_sent;
    d->stall_kicks -= a->stall_kicks;
    d->kick_wakes -= a->kick_wakes;
    d->lost -= a->lost;
    for ( unsigned int i = 0; i < NR_LATE_WAKE; i++ )
        d->late[i] -= a->late[i];
}

void sched_timer_format(char *buf, size_t size,
                        const struct sched_timer_stats *st)
{
    size_t n = ksnprintf(buf, size, "late wakes:");

    for ( unsigned int i = 0; i < NR_LATE_WAKE && n < size; i++ )
        n += ksnprintf(buf + n, size - n, " %s %lu", late_wake_name(i),
                       (unsigned long)st->late[i]);
    if ( n < size )
        n += ksnprintf(buf + n, size - n, ", lost %lu; watchdog kicks %lu "
                       "(+%lu to idle CPUs with threads queued), %lu woke "
                       "sleepers; %lu timer interrupts, %lu arms written, "
                       "%lu kept", (unsigned long)st->lost,
                       (unsigned long)st->kicks_sent,
                       (unsigned long)st->stall_kicks,
                       (unsigned long)st->kick_wakes,
                       (unsigned long)st->timer_irqs,
                       (unsigned long)st->arm_writes,
                       (unsigned long)st->arms_kept);
    if ( st->worst_late_us && n < size )
        ksnprintf(buf + n, size - n, "; latest CPU%u %lu us (%s)",
                  st->worst_cpu, (unsigned long)st->worst_late_us,
                  late_wake_name(st->worst_why));
}

void sched_timer_print(void)
{
    struct sched_timer_stats st;
    char buf[400];

    sched_timer_stats(&st);
    sched_timer_format(buf, sizeof(buf), &st);
    printk("shimk: timer: %s; %lu interrupts came at a halt's HLT before "
           "it ran\n", buf, (unsigned long)READ_ONCE(safe_halt_races));
    if ( st.late[LATE_NOT_ARMED] )
        pr_warn("timer: %lu wakes found nothing armed for them: a shimk "
                "bug\n", (unsigned long)st.late[LATE_NOT_ARMED]);
    if ( READ_ONCE(masked_irqs.count) )
        pr_warn("L0 fault: %lu external interrupts were delivered with "
                "interrupts off (%lu of them a second delivery at the "
                "vector's own entry, dropped), the first vector %u on CPU%u "
                "at %#lx\n", (unsigned long)masked_irqs.count,
                (unsigned long)masked_irqs.duplicates, masked_irqs.vector,
                masked_irqs.cpu, (unsigned long)masked_irqs.rip);
    for ( unsigned int i = 0;
          i < MIN(READ_ONCE(masked_irqs.recorded), MASKED_IRQ_RECORDS); i++ )
    {
        const struct masked_irq_record *r = &masked_irqs.records[i];

        pr_warn("L0 fault: vector %u with interrupts off on CPU%u at "
                "%04x:%016lx\n", r->vector, r->cpu, r->cs,
                (unsigned long)r->rip);
    }
}

void sched_dump(void)
{
    uint64_t now = rdtsc();
    unsigned int cpu;

    for_each_cpu ( cpu, &cpu_online_mask )
    {
        const struct runqueue *rq = &runqueues[cpu];
        uint64_t due = READ_ONCE(rq->next_due);
        struct sched_timer_stats st;
        char when[48], counts[400];

        if ( !due )
            ksnprintf(when, sizeof(when), "no timed event");
        else
            ksnprintf(when, sizeof(when), "%s %lu us",
                      due > now ? "next event in" : "an event overdue by",
                      (unsigned long)(cycles_to_ns(due > now ? due - now
                                                             : now - due) /
                                      1000));
        sched_cpu_timer_stats(cpu, &st);
        sched_timer_format(counts, sizeof(counts), &st);
        printk(KERN_ERR "shimk: CPU%u runs %s, %u queued, %s; %s; its last "
               "timer events (s sleep, h halt, e halt end, a arm asked, w "
               "written, i interrupt), now %lu:\n", cpu, sched_running_on(cpu),
               sched_queued(cpu), when, counts, (unsigned long)now);
        dump_trace(rq);
    }
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
        rearm_timer(rq);
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
