/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether a lock wait's bound was the L0's doing (pure; unit-tested). */
#ifndef SHIMK_SPIN_HOLDER_H
#define SHIMK_SPIN_HOLDER_H

#include <shimk/types.h>

/*
 * A spinlock wait that outlasts WAIT_BOUND_MS panics: its holder is
 * stuck, a shimk bug.  Unless the L0 kept the holder off its CPU: under
 * an overcommitted L0 a descheduled holder makes no progress through no
 * fault of shimk's (seen at 4 vCPUs on 2 under nested KVM: 'aspace'
 * waited for 5 s by two CPUs, its turn come to a third).  The L0 says
 * so in what it shares per vCPU: KVM's steal-time area (the preempted
 * byte now, steal ns accounted at each entry).  "Holder" is the CPU
 * waited for: the lock's owner, or the waiter whose ticket is served.
 *
 * What the waiter saw over one bound: the same holder throughout, the
 * holder's stolen time then and now, whether the L0 holds it
 * descheduled now, and how long the bound was.
 */
struct spin_holder_sample
{
    int holder_then, holder_now;        /* CPU numbers, -1 none */
    uint64_t stolen_then, stolen_now;   /* ns; ~0: the L0 does not say */
    bool descheduled_now;
    uint64_t waited_ns;
};

/*
 * Extensions a wait may have, each one bound long: with WAIT_BOUND_MS
 * of 5 s, a minute in all, as the shootdown's wait allows.
 */
#define SPIN_HOLDER_EXTENSIONS 11

/*
 * Extend the wait (true) only on the L0's evidence: the same holder, and
 * either it is descheduled now or the L0 accounted at least half the
 * bound as stolen from it.  A holder that ran and still held the lock
 * is shimk's: panic.
 */
bool spin_holder_extend(const struct spin_holder_sample *s,
                        unsigned int extensions);

#endif /* SHIMK_SPIN_HOLDER_H */
