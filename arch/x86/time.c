/* SPDX-License-Identifier: GPL-2.0-only */
/* TSC time base: where its frequency comes from, conversions, busy waits. */

#include <guest/hypervisor-ops.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <asm/cpufeature.h>
#include <asm/cpuid.h>
#include <asm/io.h>
#include <asm/processor.h>

uint64_t tsc_khz;
const char *tsc_source = "none";

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

/* SDM Vol. 2A, CPUID leaf 15H: TSC = crystal * EBX / EAX. */
static uint64_t cpuid15_tsc_khz(void)
{
    struct cpuid_leaf r;

    if ( boot_cpu.max_leaf < 0x15 )
        return 0;
    cpuid(0x15, &r);
    if ( !r.a || !r.b || !r.c )
        return 0;
    return (uint64_t)r.c * r.b / r.a / 1000;
}

/* Leaf 16H EAX: base frequency in MHz (nominal, not measured). */
static uint64_t cpuid16_tsc_khz(void)
{
    struct cpuid_leaf r;

    if ( boot_cpu.max_leaf < 0x16 )
        return 0;
    cpuid(0x16, &r);
    return (uint64_t)(r.a & 0xffff) * 1000;
}

/*
 * Count TSC cycles while PIT channel 2 (1.193182 MHz) counts 10 ms down
 * in mode 0, its gate and output on port 0x61 (8254 data sheet).  No
 * PIT (a Xen PVH guest) shows as output already high: 0 then.
 */
#define PIT_HZ 1193182u
static uint64_t pit_tsc_khz(void)
{
    const unsigned int ms = 10;
    uint16_t count = PIT_HZ * ms / 1000;
    uint64_t start, elapsed, bound = 20000000000ull;

    outb(0x61, (inb(0x61) & ~0x02) | 0x01);    /* gate on, speaker off */
    outb(0x43, 0xb0);                           /* ch2, lo/hi, mode 0 */
    outb(0x42, count & 0xff);
    outb(0x42, count >> 8);
    start = rdtsc();
    while ( !(inb(0x61) & 0x20) )
        if ( rdtsc() - start > bound )
            return 0;
    elapsed = rdtsc() - start;
    /* Under 10 MHz would mean the output was never low: no PIT. */
    if ( elapsed < 10000ull * ms )
        return 0;
    return elapsed / ms;
}

void time_init(void)
{
    static const struct
    {
        const char *name;
        uint64_t (*get)(void);
    } sources[] = {
        { "cpuid 0x15", cpuid15_tsc_khz },
        { "pit calibration", pit_tsc_khz },
        { "cpuid 0x16", cpuid16_tsc_khz },
    };

    /* The L0's word first: its CPUID leaves know the guest's TSC rate. */
    if ( hypervisor_ops.tsc_khz )
    {
        uint64_t khz = hypervisor_ops.tsc_khz();

        if ( khz >= 1000 )
        {
            tsc_khz = khz;
            tsc_source = hypervisor_ops.tsc_khz_source;
        }
    }
    for ( unsigned int i = 0;
          !tsc_khz && i < sizeof(sources) / sizeof(sources[0]); i++ )
    {
        uint64_t khz;

        khz = sources[i].get();
        if ( khz >= 1000 )
        {
            tsc_khz = khz;
            tsc_source = sources[i].name;
            break;
        }
    }
    if ( !tsc_khz )
        pr_warn("tsc: frequency unknown; assuming %llu kHz for timeouts\n",
                TSC_KHZ_GUESS);
    pr_info("tsc: %lu kHz from %s%s\n", (unsigned long)tsc_khz, tsc_source,
            boot_cpu.invariant_tsc ? ", invariant" : "");
}
