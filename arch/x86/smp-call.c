/* SPDX-License-Identifier: GPL-2.0-only */
/* Run a function on a set of CPUs and wait for all of them. */

#include <shimk/panic.h>
#include <shimk/spinlock.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * For rare, whole-machine changes (CR4.PGE on every CPU, benchmark mode
 * switches), so one call at a time is enough: a lock serializes them.
 * Not for interrupt context, and not with interrupts off, since the
 * wait must let other CPUs' IPIs in.
 */
static DEFINE_SPINLOCK(call_lock);
static void (*call_fn)(void *);
static void *call_arg;
static cpumask_t call_pending;

static void call_interrupt(struct cpu_regs *regs)
{
    unsigned int self = smp_processor_id();

    if ( !cpumask_test_cpu(self, &call_pending) )
        return;
    call_fn(call_arg);
    cpumask_clear_cpu(self, &call_pending);
}

void smp_call_init(void)
{
    set_ipi_handler(CALL_VECTOR, call_interrupt);
}

void smp_call_mask(const cpumask_t *mask, void (*fn)(void *), void *arg)
{
    unsigned int self = smp_processor_id(), spins = 0;
    uint64_t start, bound = ms_to_cycles(WAIT_BOUND_MS);
    cpumask_t others;

    ASSERT(local_irq_is_enabled() && !this_cpu()->irq_depth);
    spin_lock(&call_lock);
    call_fn = fn;
    call_arg = arg;
    cpumask_and(&others, mask, &cpu_online_mask);
    cpumask_clear_cpu(self, &others);
    cpumask_copy(&call_pending, &others);
    smp_mb();
    if ( !cpumask_empty(&others) )
        send_ipi_mask(&others, CALL_VECTOR);
    if ( cpumask_test_cpu(self, mask) )
        fn(arg);
    start = rdtsc();
    while ( !cpumask_empty(&call_pending) )
    {
        /* The TSC only now and then: RDTSC may exit (asm/processor.h). */
        if ( !(++spins % SPIN_CLOCK_TURNS) && rdtsc() - start > bound )
            panic("smp_call: CPUs did not run the call within %u ms",
                  WAIT_BOUND_MS);
        cpu_relax();
    }
    spin_unlock(&call_lock);
}
