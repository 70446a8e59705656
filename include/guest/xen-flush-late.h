/* SPDX-License-Identifier: GPL-2.0-only */
/* Why a wait for another CPU's HVMOP_flush_tlbs ran out (pure; tested). */
#ifndef GUEST_XEN_FLUSH_LATE_H
#define GUEST_XEN_FLUSH_LATE_H

#include <shimk/spin-holder.h>
#include <shimk/types.h>

/*
 * xen_flush_tlb() lets one CPU call HVMOP_flush_tlbs for every request
 * made before the call; the others wait for it, WAIT_BOUND_MS at most.
 * The holder runs its part with interrupts off, so all it does between
 * taking the role and giving it back is the hypercall and a few stores.
 * A wait that runs out is therefore the L0's doing when the holder is
 * inside the hypercall now, or when Xen's runstate area says it kept
 * the holder's vCPU off a CPU (spin_holder_extend()'s rule).  Anything
 * else -- a holder that ran and never called or never gave the role
 * back -- is shimk's.
 */
enum xen_flush_late
{
    XEN_FLUSH_LATE_NONE,        /* nobody holds the role: try again */
    XEN_FLUSH_LATE_IN_CALL,     /* the holder's hypercall has not returned */
    XEN_FLUSH_LATE_HELD_OFF,    /* Xen kept the holder's vCPU off a CPU */
    XEN_FLUSH_LATE_SHIMK,       /* the holder ran and did not call */
};

/*
 * s: the holder at the wait's start and now, with its stolen time;
 * in_call: the holder was inside HVMOP_flush_tlbs when s was taken.
 */
enum xen_flush_late xen_flush_late_cause(const struct spin_holder_sample *s,
                                         bool in_call);

#endif /* GUEST_XEN_FLUSH_LATE_H */
