/* SPDX-License-Identifier: GPL-2.0-only */
/* Stale-TLB detector reader: a tag older than its published generation is a stale TLB entry. */

#include <shimk-user.h>
#include <user/programs.h>

/*
 * The remapper publishes gen[s] only after the flush for generation
 * gen[s] returned.  So a read of slot s that starts after seeing
 * gen[s] must find a tag of slot s with at least that generation;
 * anything else came through a translation the flush should have
 * removed.  x86 keeps loads in order (SDM Vol. 3A, 9.2.2), so the
 * read of gen[s] happens before the read of the page.  In lazy mode
 * nothing is flushed at remap time, so only another slot's tag is
 * wrong: the frame was reused while this CPU could still reach it.
 * This reader only reads slots that stay mapped: a ring-3 fault would
 * end it, so unmaps and write checks are the kernel readers' part.
 */
static inline void check(struct detect_reader *r,
                         const volatile struct detect_tag *tag,
                         uint64_t s, uint64_t want, uint64_t lazy)
{
    uint64_t magic = tag->magic, slot = tag->slot, gen = tag->gen;

    r->reads++;
    if ( lazy && magic == DETECT_MAGIC && slot == s && gen < want )
        r->old++;
    if ( magic != DETECT_MAGIC || slot != s || (!lazy && gen < want) )
    {
        if ( !r->stale )
        {
            r->bad_magic = magic;
            r->bad_slot = slot;
            r->bad_gen = gen;
            r->want_gen = want;
        }
        r->stale++;
    }
}

void user_detect_reader(void *arg)
{
    struct detect_args *a = (struct detect_args *)USER_ARGS_VA;
    const struct detect_control *c =
        (const struct detect_control *)a->control_va;
    struct detect_reader *r = &a->reader[(uint64_t)arg];
    uint64_t rounds = 0;

    r->running = 1;
    while ( !c->stop )
    {
        for ( uint64_t s = 0; s < c->nslots; s++ )
        {
            uint64_t want = c->gen[s];

            check(r, (const volatile struct detect_tag *)(c->slot_va +
                                                          s * 4096),
                  s, want, c->lazy);
        }
        if ( c->huge_va )
        {
            uint64_t want = c->huge_gen;

            /* A 2 MiB entry, or the 512 4 KiB ones a TLB may split it to. */
            check(r, (const volatile struct detect_tag *)c->huge_va,
                  DETECT_HUGE_SLOT, want, false);
            check(r, (const volatile struct detect_tag *)(c->huge_va +
                                                          0x1ff000),
                  DETECT_HUGE_SLOT, want, false);
        }
        r->rounds++;
        /*
         * Halting between rounds frees the physical CPU under a
         * hypervisor, so flush IPIs reach this vCPU without waiting for
         * the host to schedule it; translations survive the halt.
         */
        if ( c->pace_us && !(++rounds % c->burst) )
            sys_sleep(c->pace_us);
        else if ( c->burst < 1000000 )
            /*
             * The kernel reader on this CPU takes its turn: a flush is
             * checked here once both read after it.  At the top burst
             * this reader spins alone on its CPU (kernel/tlb-detect/detect.c).
             */
            sys_yield();
    }
    r->running = 0;
    sys_exit(0);
}
