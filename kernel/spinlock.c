/* SPDX-License-Identifier: GPL-2.0-only */
/* Ticket spinlocks with a bounded, reported wait. */

#include <guest/hypervisor-ops.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/spin-holder.h>
#include <shimk/spinlock.h>
#include <shimk/time.h>
#include <asm/percpu.h>
#include <asm/processor.h>

/* Waits that outlasted a bound while the L0 held the CPU they waited for. */
static uint64_t l0_held_waits;

/*
 * Which lock and ticket each CPU waits for: a ticket lock hands itself
 * to the next ticket by number, so a lock can be "free" (owner -1) yet
 * taken by a waiter whose turn came while the L0 was not running it.
 * Seen at 4 vCPUs on 2 under nested KVM: two CPUs panicked on 'aspace'
 * "held by CPU-1".  The waiter whose ticket is being served is the one
 * the others wait for.
 */
struct waiting
{
    spinlock_t *lock;
    uint16_t ticket;
};
static struct waiting waiting[NR_CPUS];

/* The CPU the lock's waiters wait for: its owner, or the next in line. */
static int blocker(spinlock_t *l, bool *turn_came)
{
    int owner = READ_ONCE(l->owner);
    uint16_t head = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE);

    *turn_came = false;
    if ( owner >= 0 )
        return owner;
    for ( unsigned int cpu = 0; cpu < NR_CPUS; cpu++ )
        if ( READ_ONCE(waiting[cpu].lock) == l &&
             READ_ONCE(waiting[cpu].ticket) == head )
        {
            *turn_came = true;
            return (int)cpu;
        }
    return -1;
}

/* What the waiter knows of the CPU it waits for, at a bound's start. */
struct holder_watch
{
    uint64_t start;
    int holder;
    uint64_t stolen;
    unsigned int extensions;
};

static void watch(spinlock_t *l, struct holder_watch *w)
{
    bool now, turn;

    w->start = rdtsc();
    w->holder = blocker(l, &turn);
    w->stolen = w->holder >= 0 ? hypervisor_stolen_ns(w->holder, &now)
                               : ~0ULL;
}

/*
 * A bound ran out.  The L0's evidence that it kept the CPU waited for
 * off its CPU extends the wait; without it, or after a minute of it,
 * the wait is over and the panic gives what was seen.
 */
static void bound_out(spinlock_t *l, struct holder_watch *w)
{
    struct spin_holder_sample s = {
        .holder_then = w->holder,
        .stolen_then = w->stolen,
        .waited_ns = cycles_to_ns(rdtsc() - w->start),
    };
    bool turn_came;

    s.holder_now = blocker(l, &turn_came);
    s.stolen_now = s.holder_now >= 0
                   ? hypervisor_stolen_ns(s.holder_now, &s.descheduled_now)
                   : ~0ULL;
    if ( spin_holder_extend(&s, w->extensions) )
    {
        /*
         * Counted, not printed: the lock waited for may be the
         * console's.  spin_print() reports the count at the end.
         */
        if ( !w->extensions++ )
            __atomic_fetch_add(&l0_held_waits, 1, __ATOMIC_RELAXED);
        w->holder = s.holder_now;
        w->stolen = s.stolen_now;
        w->start = rdtsc();
        return;
    }
    panic("spinlock '%s' not acquired after %lu ms: %s CPU%d%s (L0: %s, "
          "%lu ms stolen from it in the last bound)",
          l->name ? l->name : "?",
          (unsigned long)(s.waited_ns / 1000000 +
                          (uint64_t)w->extensions * WAIT_BOUND_MS),
          turn_came ? "its turn came to" : "held by", s.holder_now,
          turn_came ? ", which has not taken it" : "",
          s.stolen_now == ~0ULL ? "no account"
          : s.descheduled_now   ? "descheduled now"
                                : "running",
          (unsigned long)(s.stolen_now == ~0ULL || s.stolen_then == ~0ULL ||
                                  s.stolen_now < s.stolen_then
                              ? 0
                              : (s.stolen_now - s.stolen_then) / 1000000));
}

/* Per CPU: flush_area_mask() checks that its caller holds none. */
static void held(const spinlock_t *l)
{
    struct cpu_info *ci = this_cpu();

    ci->locks_held++;
    ci->last_lock = l->name;
}

void spin_lock(spinlock_t *l)
{
    uint16_t ticket = __atomic_fetch_add(&l->tail, 1, __ATOMIC_ACQUIRE);
    unsigned int self = smp_processor_id(), spins = 0;
    struct holder_watch w = { 0 };
    struct waiting outer;
    uint64_t bound = 0;

    if ( unlikely(READ_ONCE(l->owner) == (int16_t)self &&
                  READ_ONCE(l->head) != ticket) )
        panic("spinlock '%s' taken twice on CPU%u", l->name ? l->name : "?",
              self);

    /* An interrupt may wait for another lock inside this wait. */
    outer = waiting[self];
    WRITE_ONCE(waiting[self].ticket, ticket);
    WRITE_ONCE(waiting[self].lock, l);
    while ( __atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != ticket )
    {
        cpu_relax();
        /* Read the TSC rarely: under a hypervisor RDTSC may exit. */
        if ( ++spins % 1024 )
            continue;
        if ( !w.start )
        {
            watch(l, &w);
            bound = ms_to_cycles(WAIT_BOUND_MS);
        }
        else if ( rdtsc() - w.start > bound )
            bound_out(l, &w);
    }
    l->owner = (int16_t)self;
    WRITE_ONCE(waiting[self].lock, outer.lock);
    WRITE_ONCE(waiting[self].ticket, outer.ticket);
    held(l);
}

void spin_unlock(spinlock_t *l)
{
    this_cpu()->locks_held--;
    l->owner = -1;
    __atomic_store_n(&l->head, (uint16_t)(l->head + 1), __ATOMIC_RELEASE);
}

unsigned long spin_lock_irqsave(spinlock_t *l)
{
    unsigned long f = local_irq_save();

    spin_lock(l);
    return f;
}

void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
    spin_unlock(l);
    local_irq_restore(flags);
}

void spin_print(void)
{
    uint64_t n = __atomic_load_n(&l0_held_waits, __ATOMIC_RELAXED);

    if ( n )
        pr_warn("spin: %lu lock waits outlasted %u ms while the L0 kept "
                "descheduled the CPU they waited for, and went on\n",
                (unsigned long)n, WAIT_BOUND_MS);
}
