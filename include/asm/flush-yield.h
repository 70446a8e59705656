/* SPDX-License-Identifier: GPL-2.0-only */
/* A shootdown's wait gives its CPU to a target the L0 holds off (pure). */
#ifndef ASM_FLUSH_YIELD_H
#define ASM_FLUSH_YIELD_H

#include <shimk/cpumask.h>
#include <shimk/types.h>

/*
 * An initiator waiting for acknowledgements burns the physical CPU that
 * an overcommitted L0 may need to run the target it waits for.  Linux
 * yields after its call-function IPIs when a target is preempted
 * (kvm_smp_send_call_func_ipi, KVM_HC_SCHED_YIELD; +17 % in its commit,
 * "KVM: X86: Yield to IPI target if necessary").  shimk asks at each of the wait's
 * clock reads (every SPIN_CLOCK_TURNS turns) and yields to one target
 * the L0 says it holds descheduled, round robin over the pending ones,
 * at most FLUSH_YIELD_MAX times a wait: a yield is an exit, and the
 * wait's own bound (WAIT_BOUND_MS, resends) stays the backstop.
 */
#define FLUSH_YIELD_MAX 64

/*
 * The pending CPU to yield to at this check, or -1: the first CPU at or
 * after *next (wrapping) in pending that descheduled() says the L0 holds
 * off; *next moves past it so the next check starts with the one after.
 * -1 when none is, or when yields (this wait's so far) reached
 * FLUSH_YIELD_MAX.
 */
int flush_yield_pick(const cpumask_t *pending, unsigned int yields,
                     unsigned int *next,
                     bool (*descheduled)(unsigned int cpu));

/*
 * pv-yield= (arch/x86/flush/flush-smp.c): on unless pv-yield=0; set
 * switches it at run time (the ktest's on-against-off blocks).
 */
bool flush_pv_yield_enabled(void);
void flush_pv_yield_set(bool on);

#endif /* ASM_FLUSH_YIELD_H */
