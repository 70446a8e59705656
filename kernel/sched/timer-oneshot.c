/* SPDX-License-Identifier: GPL-2.0-only */
/* A CPU's one-shot timer: when an arm must write it, why a wake was late. */

#include <shimk/compiler.h>
#include <shimk/timer-oneshot.h>

enum oneshot_arm oneshot_arm(struct oneshot *o, uint64_t deadline,
                             uint64_t now, uint64_t lost_after)
{
    if ( !o->deadline )
        return ONESHOT_WRITE;
    if ( o->deadline <= now )
    {
        /* Due: its interrupt may be on its way; never cancel it. */
        if ( now - o->deadline >= lost_after )
            return ONESHOT_WRITE_LOST;
        /*
         * It serves this deadline too, even an earlier one: a request
         * made after its own deadline had passed was armed late.
         */
        if ( deadline < o->deadline )
        {
            o->deadline = deadline;
            o->expires_by = MAX(o->expires_by, now);
        }
        return ONESHOT_KEEP;
    }
    return deadline < o->deadline ? ONESHOT_WRITE : ONESHOT_KEEP;
}

enum late_wake late_wake_classify(const struct late_wake_facts *f,
                                  uint64_t slack)
{
    if ( !f->armed.deadline || f->armed.deadline > f->due )
        return LATE_NOT_ARMED;
    if ( f->armed.expires_by > f->due + slack )
        return LATE_ARMED_LATE;
    if ( f->by_timer )
        return LATE_DELIVERED_LATE;
    return f->timer_counting ? LATE_CLOCK_BEHIND : LATE_UNDELIVERED;
}

const char *late_wake_name(enum late_wake why)
{
    static const char *const names[NR_LATE_WAKE] = {
        [LATE_NOT_ARMED] = "nothing-armed",
        [LATE_ARMED_LATE] = "armed-late",
        [LATE_CLOCK_BEHIND] = "l0-clock-behind",
        [LATE_UNDELIVERED] = "undelivered",
        [LATE_DELIVERED_LATE] = "delivered-late",
    };

    return why < NR_LATE_WAKE ? names[why] : "?";
}

bool oneshot_lost_by_l0(const struct apic_timer_state *s,
                        unsigned int vector)
{
    return s->count == 0 && !(s->lvtt & LVTT_MASKED) &&
           (s->lvtt & LVTT_VECTOR_MASK) == vector && !s->irr && !s->isr;
}
