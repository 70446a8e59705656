/* SPDX-License-Identifier: GPL-2.0-only */
/* assisted-flush-fault=: errors injected into the L0 flush hook on purpose. */
#ifndef GUEST_FLUSH_FAULT_H
#define GUEST_FLUSH_FAULT_H

#include <shimk/compiler.h>
#include <shimk/types.h>

/*
 * A debug switch proving that every flush the L0 refuses falls back to
 * IPIs.  hypervisor_flush_tlb() asks before each call of the hook: a
 * non-zero answer is returned in the hook's place, and the hook is not
 * called.
 */

/* Set once the boot decision kept the hook and a mode was given. */
extern bool flush_fault_armed;

/* Errors injected so far (every CPU). */
extern uint64_t assist_faults_injected;

/*
 * Boot CPU, after the assisted-flush decision: read the option and arm
 * it when the hook stays on (assist_on); warns about a bad mode.
 */
void flush_fault_setup(bool assist_on);

/* The injected -errno for this call, or 0 to call the hook. */
int flush_fault_next(void);

static inline int flush_fault_inject(void)
{
    return unlikely(flush_fault_armed) ? flush_fault_next() : 0;
}

/* Is a mode armed (from the command line or flush_fault_force())? */
bool assist_fault_mode_set(void);

/*
 * For ktests: from now on every hook call fails with rc (a -errno), or
 * none does (0), whatever the command line said.  Returns the mode in
 * force before, to be given back.
 */
int flush_fault_force(int rc);

/*
 * For ktests of the run-time choice (asm/flush-adapt.h): every hook call
 * first spins this many cycles (0: none), making the L0's flush dearer
 * than it is.  hypervisor_flush_tlb() spins; the hook then runs.
 */
extern uint64_t flush_fault_delay;
void flush_fault_slow(uint64_t cycles);

#endif /* GUEST_FLUSH_FAULT_H */
