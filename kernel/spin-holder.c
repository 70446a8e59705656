/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether a lock wait's bound was the L0's doing (pure; unit-tested). */

#include <shimk/spin-holder.h>

bool spin_holder_extend(const struct spin_holder_sample *s,
                        unsigned int extensions)
{
    if ( extensions >= SPIN_HOLDER_EXTENSIONS || s->holder_now < 0 ||
         s->holder_now != s->holder_then )
        return false;
    if ( s->descheduled_now )
        return true;
    if ( s->stolen_then == ~0ULL || s->stolen_now == ~0ULL ||
         s->stolen_now < s->stolen_then )
        return false;
    return (s->stolen_now - s->stolen_then) * 2 >= s->waited_ns;
}
