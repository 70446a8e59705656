/* SPDX-License-Identifier: GPL-2.0-only */
/* When a shootdown's wait gives its CPU to the L0 (pure; unit-tested). */

#include <guest/pv-yield.h>

int pv_yield_pick(const cpumask_t *pending,
                  bool (*not_running)(unsigned int cpu))
{
    unsigned int cpu;

    /*
     * The first one, as Linux's KVM guest does: one directed yield per
     * check, and the next check finds the next one if the L0 ran this
     * one meanwhile.
     */
    for_each_cpu ( cpu, pending )
        if ( not_running(cpu) )
            return (int)cpu;
    return -1;
}

bool pv_long_spin_due(uint64_t spins, uint32_t threshold)
{
    uint64_t every = threshold < PV_YIELD_SPINS ? PV_YIELD_SPINS : threshold;

    if ( threshold == PV_LONG_SPIN_NEVER || spins < every )
        return false;
    /* Crossed a multiple of every since the last check. */
    return spins / every != (spins - PV_YIELD_SPINS) / every;
}
