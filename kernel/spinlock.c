/* SPDX-License-Identifier: GPL-2.0-only */
/* Ticket spinlocks with a bounded, reported wait. */

#include <shimk/panic.h>
#include <shimk/spinlock.h>
#include <shimk/time.h>
#include <asm/percpu.h>
#include <asm/processor.h>

static __noreturn void spin_timeout(spinlock_t *l, uint64_t cycles)
{
    panic("spinlock '%s' not acquired after %lu ms: held by CPU%d",
          l->name ? l->name : "?",
          (unsigned long)(cycles / tsc_khz_or_guess()),
          (int)READ_ONCE(l->owner));
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
    uint64_t start = 0, bound = 0;
    unsigned int spins = 0;

    if ( unlikely(READ_ONCE(l->owner) == (int16_t)smp_processor_id() &&
                  READ_ONCE(l->head) != ticket) )
        panic("spinlock '%s' taken twice on CPU%u", l->name ? l->name : "?",
              smp_processor_id());

    while ( __atomic_load_n(&l->head, __ATOMIC_ACQUIRE) != ticket )
    {
        cpu_relax();
        /* Read the TSC rarely: under a hypervisor RDTSC may exit. */
        if ( ++spins % 1024 )
            continue;
        if ( !start )
        {
            start = rdtsc();
            bound = ms_to_cycles(WAIT_BOUND_MS);
        }
        else if ( rdtsc() - start > bound )
            spin_timeout(l, rdtsc() - start);
    }
    l->owner = (int16_t)smp_processor_id();
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
