/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel threads: one run queue per CPU, cooperative, idle with HLT. */
#ifndef SHIMK_SCHED_H
#define SHIMK_SCHED_H

#include <shimk/compiler.h>
#include <shimk/timer-oneshot.h>
#include <shimk/types.h>

struct aspace;

enum thread_state
{
    THREAD_RUNNABLE,
    THREAD_RUNNING,
    THREAD_SLEEPING,
    THREAD_DEAD,
};

struct thread
{
    uint64_t rsp;               /* saved by switch_context: offset 0 */
    struct thread *next;        /* run queue link */
    enum thread_state state;
    unsigned int cpu;
    unsigned int id;
    char name[24];
    void (*fn)(void *arg);
    void *arg;
    void *stack;
    bool detached;              /* freed on exit; nobody joins */
    volatile bool done;
    uint64_t wake_at;           /* TSC, while sleeping */
    struct thread *sleep_next;
    struct aspace *aspace;      /* user address space, or NULL */
    void *task;                 /* user task state (kernel/task/task.c) */
};

#define THREAD_STACK_SIZE 16384

/* Boot CPU: make the running boot code thread 0 and create its idle. */
void sched_init(void);

/* An AP, once set up: go online and become this CPU's idle thread. */
__noreturn void sched_start_ap(void);

/*
 * A thread running fn(arg) on cpu, runnable at once.  Joinable unless
 * detached (then it frees itself on exit).
 */
struct thread *thread_create(const char *name, void (*fn)(void *),
                             void *arg, unsigned int cpu, bool detached);

/* A detached thread, not yet runnable: set it up, then thread_start(). */
struct thread *thread_alloc_detached(const char *name, void (*fn)(void *),
                                     void *arg, unsigned int cpu);
void thread_start(struct thread *t);

/* Has this CPU's user thread used up its slice (or been asked to yield)? */
bool sched_need_resched(void);

/* Wait up to timeout_ms for t to finish, then free it; -ETIMEDOUT. */
int thread_join(struct thread *t, uint64_t timeout_ms);

/*
 * Wait for t to finish for as long as *steps (which t advances) keeps
 * moving, then free it; -ETIMEDOUT once it stood still for stall_ms: a
 * slow host makes the wait long, only a stop fails it.
 */
int thread_join_progress(struct thread *t, const unsigned int *steps,
                         uint64_t stall_ms);

/* Let other runnable threads on this CPU run. */
void yield(void);

/*
 * Block for at least us microseconds; the CPU halts if nothing else
 * runs (under a hypervisor that frees the physical CPU, which busy
 * waiting would not).  The local APIC timer wakes the thread, or, when
 * the L0 delivers its interrupt late, any earlier interrupt or the
 * watchdog's kick.
 */
void thread_sleep_us(uint64_t us);

/*
 * Halt this CPU for at most us microseconds, or until any interrupt,
 * without switching away: the thread's address space stays loaded, so
 * the CPU stays in its mask and remains a flush target.  A halted vCPU
 * leaves its physical CPU to others, which a spinning one does not.
 * No halt at all once *done (may be NULL) is set: a waker sets it, then
 * sends an IPI, and cannot be missed.  The timer is only a backstop
 * (under TCG and Xen its interrupt can come hundreds of ms late); a halt
 * that overruns by the watchdog's grace is kicked too.
 */
void thread_halt_us(uint64_t us, const volatile bool *done);

__noreturn void thread_exit(void);

struct thread *current_thread(void);

/*
 * The local timer's account (kernel/sched/sched.c): interrupts, arms, and
 * every wake LATE_SLACK_US (1 ms) or more after due, by its cause.
 */
struct sched_timer_stats
{
    uint64_t timer_irqs;        /* timer interrupts taken */
    uint64_t last_timer_irq;    /* TSC of the last one (per CPU only) */
    uint64_t arm_writes;        /* arms that wrote the timer */
    uint64_t arms_kept;         /* arms that left an earlier expiry */
    uint64_t kicks_sent;        /* watchdog IPIs to overdue CPUs */
    uint64_t stall_kicks;       /* to CPUs idle with threads queued */
    uint64_t kick_wakes;        /* kicks that woke sleepers */
    uint64_t late[NR_LATE_WAKE];    /* late wakes by cause */
    uint64_t lost;              /* undelivered 5 s after due: re-armed */
    unsigned int worst_cpu;
    uint64_t worst_late_us;     /* 0: none late yet */
    enum late_wake worst_why;
};

/* Summed over the online CPUs; worst_* is the latest wake so far. */
void sched_timer_stats(struct sched_timer_stats *sum);

/* One CPU's. */
void sched_cpu_timer_stats(unsigned int cpu, struct sched_timer_stats *st);

/* *d = b - a for the counts; worst_* as in b. */
void sched_timer_delta(struct sched_timer_stats *d,
                       const struct sched_timer_stats *a,
                       const struct sched_timer_stats *b);

/* "late wakes: nothing-armed N ...; watchdog kicks N ..." */
void sched_timer_format(char *buf, size_t size,
                        const struct sched_timer_stats *st);

/* The whole boot's account as "shimk: timer: ...", at exit. */
void sched_timer_print(void);

/* Timer interrupts cpu has taken, and the TSC of its last one. */
uint64_t sched_timer_irqs(unsigned int cpu);
uint64_t sched_last_timer_irq(unsigned int cpu);

/*
 * ktest: arm this CPU's timer for deadline the way the scheduler does
 * (an earlier or a due expiry is kept).
 */
void sched_timer_arm_here(uint64_t deadline);

/* Write this CPU's armed expiry again, its timer having been set up anew. */
void sched_timer_rewrite_here(void);

/* ktest: has this CPU's timer no expiry outstanding? */
bool sched_timer_idle_here(void);

/* Every interrupt's exit: wake the sleepers due here (IRQs off). */
void sched_irq_exit(unsigned int vector);

/* Print each CPU's scheduler state, for a panic about a stuck wait. */
void sched_dump(void);

/*
 * ktest: while drop is set, this CPU's arms are kept in the books but
 * not programmed, as if the L0 never delivered them, and only a
 * RESCHEDULE IPI (a watchdog kick) wakes its due sleepers.  Clearing it
 * forgets the expiry that never was, and arms the timer for real.
 */
void sched_debug_drop_timer(bool drop);

/* The name of the thread cpu runs now (for diagnostics; racy). */
const char *sched_running_on(unsigned int cpu);

/* Threads runnable on cpu, the running one excluded. */
unsigned int sched_queued(unsigned int cpu);

#endif /* SHIMK_SCHED_H */
