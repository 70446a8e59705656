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
#include "private.h"

/*
 * Threads never migrate: each belongs to the CPU it was created on, so
 * a run queue is only ever dequeued by its own CPU, with interrupts
 * off.  Other CPUs only enqueue (under the queue's lock) and then send
 * a RESCHEDULE IPI to wake an idle CPU out of HLT.  There is no
 * preemption of kernel threads: they run until they yield, block in
 * thread_join, or exit.
 */

/*
 * User threads are preempted: when one runs while others wait, the
 * local APIC timer ends its slice, and the switch happens on its way
 * back to ring 3.  Kernel threads are never preempted.
 */
#define USER_SLICE_US 10000

struct runqueue runqueues[NR_CPUS];
static struct thread boot_thread = { .name = "boot", .state = THREAD_RUNNING };
static unsigned int next_thread_id = 1;

void switch_context(uint64_t *save_rsp, uint64_t next_rsp);

struct thread *current_thread(void)
{
    return this_rq()->current;
}

unsigned int sched_queued(unsigned int cpu)
{
    return READ_ONCE(runqueues[cpu].nr_queued);
}

void rq_enqueue(struct runqueue *rq, struct thread *t)
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
    timer_rearm(rq);
}

void schedule(void)
{
    unsigned long f = local_irq_save();
    struct runqueue *rq = this_rq();
    struct thread *cur = rq->current, *next;

    timer_catch_up(rq, FROM_POLL);
    timer_watch_others(rq, rdtsc());
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
        /* timer_catch_up() woke the thread that was going to sleep. */
        cur->state = THREAD_RUNNING;
        spin_unlock(&rq->lock);
        local_irq_restore(f);
        return;
    }
    if ( cur->state == THREAD_RUNNING && cur != rq->idle )
    {
        cur->state = THREAD_RUNNABLE;
        rq_enqueue(rq, cur);
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
    rq_enqueue(rq, t);
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

/*
 * Wait for t, then free it.  Without steps the bound is the whole wait;
 * with them it is the time *steps stood still, so that only a stop fails.
 */
static int join(struct thread *t, const unsigned int *steps, uint64_t ms)
{
    uint64_t since = rdtsc(), bound = ms_to_cycles(ms);
    unsigned int seen = steps ? READ_ONCE(*steps) : 0;

    while ( !READ_ONCE(t->done) )
    {
        if ( steps && READ_ONCE(*steps) != seen )
        {
            seen = READ_ONCE(*steps);
            since = rdtsc();
        }
        else if ( rdtsc() - since > bound )
        {
            if ( steps )
                pr_err("thread %s (id %u) on CPU%u stopped at step %u: no "
                       "progress in %lu ms\n", t->name, t->id, t->cpu, seen,
                       (unsigned long)ms);
            else
                pr_err("thread %s (id %u) on CPU%u is not done after %lu "
                       "ms\n", t->name, t->id, t->cpu, (unsigned long)ms);
            sched_dump();
            if ( t->cpu != smp_processor_id() )
                smp_say_where(t->cpu, 500, NULL, NULL);
            return -ETIMEDOUT;
        }
        yield();
        cpu_relax();
    }
    kfree(t);
    return 0;
}

int thread_join(struct thread *t, uint64_t timeout_ms)
{
    return join(t, NULL, timeout_ms);
}

int thread_join_progress(struct thread *t, const unsigned int *steps,
                         uint64_t stall_ms)
{
    return join(t, steps, stall_ms);
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
        timer_catch_up(rq, FROM_POLL);
        if ( !READ_ONCE(rq->head) )
        {
            timer_watch_tick(rq);
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

const char *sched_running_on(unsigned int cpu)
{
    const struct thread *t = READ_ONCE(runqueues[cpu].current);

    return t ? t->name : "nothing";
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
    set_vector_handler(TIMER_VECTOR, sched_timer_interrupt);
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
