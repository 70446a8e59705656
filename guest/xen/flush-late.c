/* SPDX-License-Identifier: GPL-2.0-only */
/* Why a wait for another CPU's HVMOP_flush_tlbs ran out (pure; tested). */

#include <guest/xen-flush-late.h>

enum xen_flush_late xen_flush_late_cause(const struct spin_holder_sample *s,
                                         bool in_call)
{
    if ( s->holder_now < 0 )
        return XEN_FLUSH_LATE_NONE;
    /* Inside Xen now: what it has not returned from is the L0's to end. */
    if ( in_call )
        return XEN_FLUSH_LATE_IN_CALL;
    if ( spin_holder_extend(s, 0) )
        return XEN_FLUSH_LATE_HELD_OFF;
    return XEN_FLUSH_LATE_SHIMK;
}
