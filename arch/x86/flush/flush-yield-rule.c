/* SPDX-License-Identifier: GPL-2.0-only */
/* Which held-off flush target a waiting initiator yields to (pure). */

#include <asm/flush-yield.h>

int flush_yield_pick(const cpumask_t *pending, unsigned int yields,
                     unsigned int *next,
                     bool (*descheduled)(unsigned int cpu))
{
    unsigned int i, cpu;

    if ( yields >= FLUSH_YIELD_MAX )
        return -1;
    for ( i = 0; i < NR_CPUS; i++ )
    {
        cpu = (*next + i) % NR_CPUS;
        if ( !cpumask_test_cpu(cpu, pending) || !descheduled(cpu) )
            continue;
        *next = (cpu + 1) % NR_CPUS;
        return (int)cpu;
    }
    return -1;
}
