/* SPDX-License-Identifier: GPL-2.0-only */
/* TLB clock arithmetic: when a stamped frame still needs a flush (pure). */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <asm/flushtlb.h>

bool tlb_need_flush(uint32_t now, uint32_t cpu_stamp, uint32_t lastuse)
{
    return now == 0 || (cpu_stamp <= lastuse && lastuse <= now);
}

uint32_t tlb_clock_next(uint32_t now, uint32_t mask)
{
    return (now + 1) & mask;
}

unsigned int tlb_filter(cpumask_t *mask, uint32_t (*stamp_of)(unsigned int),
                        uint32_t now, uint32_t lastuse)
{
    unsigned int cpu, cleared = 0;

    if ( now == 0 )
        return 0;
    for_each_cpu ( cpu, mask )
        if ( !tlb_need_flush(now, stamp_of(cpu), lastuse) )
        {
            cpumask_clear_cpu(cpu, mask);
            cleared++;
        }
    return cleared;
}
