/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel threads: per-CPU FIFO run queues, cooperative switching, HLT idle. */

#include <shimk/errno.h>
#include <shimk/aspace.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/flushtlb.h>
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
    /* The watchdog (see below). */
    volatile uint64_t next_due;     /* earliest wake, halt or slice end */
    uint64_t stalled_since;         /* seen idle with threads queued */
    uint64_t kicked_at;             /* last watchdog IPI to this CPU */
    uint64_t watched_at;            /* this CPU last looked at others */
    bool debug_drop_timer;          /* ktest: as if the L0 lost them */
    struct sched_timer_stats stats;
} __aligned(64);

/*
 * User threads are preempted: when one runs while others wait, the
 * local APIC timer ends its slice, and the switch happens on its way
 * back to ring 3.  Kernel threads are never preempted.
 */
#define USER_SLICE_US 10000

/*
 * A one-shot timer interrupt can be lost: under Xen in TCG a vCPU's
 * LAPIC timer was seen to fire 50 ms late, and now and then not at all,
 * which left a sleeper asleep for good.  So a sleeper does not depend on
 * its timer alone:
 * - every interrupt's exit wakes the sleepers that are due, and every
 *   pass through schedule() or the idle loop those overdue by half the
 *   grace;
 * - a CPU passing through schedule() or its timer interrupt looks at the
 *   others: one whose next timed event (a wake-up, the end of a halt or
 *   of a user slice) is TIMER_GRACE_US overdue gets a RESCHEDULE IPI (a
 *   kick), which wakes it and re-arms its timer.  So does an idle CPU
 *   seen with threads queued for as long: under Xen in TCG a vCPU was
 *   also seen to stay in HLT after the interrupt that queued them (why,
 *   is not known).
 * The kicked CPU classifies the miss from its own APIC (SDM Vol. 3A,
 * 11.5.4 and 11.8.4): a timer run down to 0 with no interrupt requested
 * in the IRR was lost; one still counting ran slow against the TSC
 * (Xen's default timer mode, delay_for_missed_ticks in
 * public/hvm/params.h, stops a vCPU's virtual timers while the vCPU is
 * descheduled, and a guest cannot change the mode).  An interrupt merely
 * held off by IF=0 is still requested, and is neither.
 */
#define TIMER_GRACE_US 10000

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
    kfree(prev->stack);
    prev->stack = NULL;
    /* This CPU has loaded another root, or the space is still shared. */
    if ( prev->aspace )
        aspace_put(prev->aspace);
    if ( prev->detached )
        kfree(prev);
    else
        WRITE_ONCE(prev->done, true);
}

/*
 * One local timer serves two purposes: the end of a user thread's slice
 * and the earliest sleeper's wake-up.  Program it for the nearer one.
 */
static void rearm_timer(struct runqueue *rq)
{
    uint64_t now = rdtsc(), next = 0;

    if ( rq->slice_end )
        next = rq->slice_end;
    if ( rq->sleepers && (!next || rq->sleepers->wake_at < next) )
        next = rq->sleepers->wake_at;
    rq->next_due = next;
    if ( !next || rq->debug_drop_timer )
        apic_timer_oneshot(0);
    else
        apic_timer_oneshot(next > now ? MAX(cycles_to_ns(next - now) / 1000,
                                            (uint64_t)1)
                                      : 1);
}

/* Move the sleepers due by now to the run queue; IRQs off. */
static bool wake_due(struct runqueue *rq, uint64_t now)
{
    bool woke = false;

    while ( rq->sleepers && rq->sleepers->wake_at <= now )
    {
        struct thread *t = rq->sleepers;

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

/*
 * A sleeper is due and the timer did not wake it: when it is overdue
 * past the grace, say why from the APIC's own state.  IRQs off.
 */
static void classify_miss(struct runqueue *rq, uint64_t now)
{
    struct sched_timer_stats *st = &rq->stats;
    uint64_t late = now - rq->sleepers->wake_at;

    /* Half the grace: the kicker's TSC and this one may differ a bit. */
    if ( late < us_to_cycles(TIMER_GRACE_US / 2) ||
         apic_vector_requested(TIMER_VECTOR) )
        return;
    if ( apic_timer_remaining() )
        st->slow++;
    else
        st->lost++;
    if ( cycles_to_ns(late) / 1000 > st->worst_late_us )
    {
        st->worst_cpu = smp_processor_id();
        st->worst_late_us = cycles_to_ns(late) / 1000;
    }
    rq->debug_drop_timer = false;
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
    classify_miss(rq, now);
    wake_due(rq, now);
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

    if ( next->stack )
    {
        /* Syscalls and interrupts from ring 3 land on this stack. */
        ci->kernel_stack_top = (uint64_t)next->stack + THREAD_STACK_SIZE;
        ci->tss.rsp[0] = ci->kernel_stack_top;
    }
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
    t->stack = kmalloc(THREAD_STACK_SIZE);
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

    apic_eoi();
    rq->stats.timer_irqs++;
    wake_due(rq, now);
    if ( rq->slice_end && rq->slice_end <= now )
    {
        rq->slice_end = 0;
        rq->need_resched = true;
    }
    rearm_timer(rq);
    watch_others(rq, now);
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
    uint64_t until = rdtsc() + us_to_cycles(us);

    /* The scheduler's own next event stays armed when it comes first. */
    if ( (!rq->slice_end || rq->slice_end > until) &&
         (!rq->sleepers || rq->sleepers->wake_at > until) )
        apic_timer_oneshot(MAX(us, (uint64_t)1));
    /* The watchdog covers a halt as it does a sleep: its end is due. */
    if ( !rq->next_due || until < rq->next_due )
        rq->next_due = until;
    /*
     * With interrupts off: an IPI sent after *done was set is pending by
     * now, and ends the HLT at once; so a waker that sets *done and
     * then sends any IPI never depends on the timer.
     */
    if ( !READ_ONCE(rq->head) && !rq->need_resched && !(done && *done) )
        safe_halt();
    /* Any interrupt ended the halt: put the scheduler's timer back. */
    local_irq_disable();
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

void sched_timer_stats(struct sched_timer_stats *sum)
{
    unsigned int cpu;

    memset(sum, 0, sizeof(*sum));
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        const struct sched_timer_stats *st = &runqueues[cpu].stats;

        sum->timer_irqs += READ_ONCE(st->timer_irqs);
        sum->kicks_sent += READ_ONCE(st->kicks_sent);
        sum->stall_kicks += READ_ONCE(st->stall_kicks);
        sum->lost += READ_ONCE(st->lost);
        sum->slow += READ_ONCE(st->slow);
        if ( READ_ONCE(st->worst_late_us) > sum->worst_late_us )
        {
            sum->worst_cpu = st->worst_cpu;
            sum->worst_late_us = st->worst_late_us;
        }
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
        char when[48];

        if ( !due )
            ksnprintf(when, sizeof(when), "no timed event");
        else
            ksnprintf(when, sizeof(when), "%s %lu us",
                      due > now ? "next event in" : "an event overdue by",
                      (unsigned long)(cycles_to_ns(due > now ? due - now
                                                             : now - due) /
                                      1000));
        printk(KERN_ERR "shimk: CPU%u runs %s, %u queued, %s; timers lost "
               "%lu, slow %lu\n", cpu, sched_running_on(cpu),
               sched_queued(cpu), when, (unsigned long)rq->stats.lost,
               (unsigned long)rq->stats.slow);
    }
}

void sched_debug_drop_timer(unsigned int cpu, bool drop)
{
    WRITE_ONCE(runqueues[cpu].debug_drop_timer, drop);
}

uint64_t sched_timer_irqs(unsigned int cpu)
{
    return READ_ONCE(runqueues[cpu].stats.timer_irqs);
}
