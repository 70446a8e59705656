/* SPDX-License-Identifier: GPL-2.0-only */
/* TSC time base: conversions and busy waits. */

#include <shimk/time.h>
#include <asm/processor.h>

uint64_t tsc_khz;

uint64_t cycles_to_ns(uint64_t cycles)
{
    uint64_t khz = tsc_khz_or_guess();

    /* Split to keep cycles * 10^6 from overflowing 64 bits. */
    return cycles / khz * 1000000 + cycles % khz * 1000000 / khz;
}

void udelay(uint64_t us)
{
    uint64_t start = rdtsc(), wait = us_to_cycles(us);

    while ( rdtsc() - start < wait )
        cpu_relax();
}

void mdelay(uint64_t ms)
{
    udelay(ms * 1000);
}
