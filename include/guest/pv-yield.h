/* SPDX-License-Identifier: GPL-2.0-only */
/* When a shootdown's wait gives its CPU to the L0 (pure; unit-tested). */
#ifndef GUEST_PV_YIELD_H
#define GUEST_PV_YIELD_H

#include <shimk/cpumask.h>
#include <shimk/types.h>

/*
 * A shootdown that waits for a target the L0 has descheduled waits
 * until the L0 runs that target again: under overcommit, a host time
 * slice.  Linux's guests cut the wait by giving their own CPU to the L0
 * (docs/flush.md, "Yielding to a descheduled target"):
 * KVM_HC_SCHED_YIELD to the preempted target (Linux's
 * kvm_smp_send_call_func_ipi), SCHEDOP_yield while a target's runstate
 * says runnable (xen_smp_send_call_function_ipi), and
 * HvCallNotifyLongSpinWait, which KVM turns into a directed yield.
 *
 * The initiator asks its backend every PV_YIELD_SPINS turns of its
 * wait: often enough to yield within a few microseconds of a target
 * being preempted, rarely enough that reading the targets' shared
 * state (no exit) costs nothing beside the wait.
 */
#define PV_YIELD_SPINS 64

/* Hyper-V's "never notify" spin count (TLFS, CPUID 0x40000004 EBX). */
#define PV_LONG_SPIN_NEVER 0xffffffffu

/*
 * The first CPU in pending that not_running() says the L0 holds
 * descheduled, or -1: the target a directed yield should go to.
 */
int pv_yield_pick(const cpumask_t *pending,
                  bool (*not_running)(unsigned int cpu));

/*
 * Hyper-V: is a long-spin notification due after spins turns of one
 * wait (asked every PV_YIELD_SPINS turns)?  The L0 recommends one
 * after threshold turns (TLFS: CPUID 0x40000004 EBX, the spin-wait
 * retry count), so one is due each time the count crosses a multiple
 * of it, and never for PV_LONG_SPIN_NEVER.  A threshold below
 * PV_YIELD_SPINS counts as PV_YIELD_SPINS: at most one per check.
 */
bool pv_long_spin_due(uint64_t spins, uint32_t threshold);

#endif /* GUEST_PV_YIELD_H */
