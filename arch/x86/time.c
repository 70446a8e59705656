/* SPDX-License-Identifier: GPL-2.0-only */
/* TSC time base: where its frequency comes from, conversions, busy waits. */

#include <guest/hypervisor-ops.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <asm/cpufeature.h>
#include <asm/cpuid.h>
#include <asm/io.h>
#include <asm/processor.h>
#include <asm/rate-bound.h>

uint64_t tsc_khz;
uint32_t tsc_err_ppm;
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
 * PIT (a Xen PVH guest) shows as output already high: 0 then.  Every
 * port access is bracketed by ordered TSC reads, as the APIC timer's
 * calibration is: the count starts within the write of its high byte,
 * and the output rose after the last read that saw it low and before
 * the one that saw it high, so a stall (each access is an exit under
 * an L0) widens the bound instead of moving the rate.  The best of
 * PIT_ROUNDS; one PIT tick of the start's uncertainty is added.
 */
#define PIT_HZ     1193182u
#define PIT_ROUNDS 3

static bool pit_round(uint64_t *khz, uint32_t *err_ppm)
{
    const unsigned int ms = 10;
    uint16_t count = PIT_HZ * ms / 1000;
    uint64_t start_b, start_a, low_b = 0, b, a, bound = 20000000000ull;
    uint64_t ref_ns = (uint64_t)count * 1000000000ull / PIT_HZ;
    bool seen_low = false;

    outb(0x61, (inb(0x61) & ~0x02) | 0x01);    /* gate on, speaker off */
    outb(0x43, 0xb0);                           /* ch2, lo/hi, mode 0 */
    outb(0x42, count & 0xff);
    start_b = rdtsc_ordered();
    outb(0x42, count >> 8);
    start_a = rdtsc_ordered();
    for ( ;; )
    {
        uint8_t v;

        b = rdtsc_ordered();
        v = inb(0x61);
        a = rdtsc_ordered();
        if ( v & 0x20 )
            break;
        seen_low = true;
        low_b = b;
        if ( a - start_b > bound )
            return false;
    }
    /* Never low, or over at once (under 10 MHz): no PIT. */
    if ( !seen_low || a - start_b < 10000ull * ms || low_b < start_a )
        return false;
    if ( !rate_from_bracket(low_b - start_a, a - start_b, ref_ns, khz,
                            err_ppm) )
        return false;
    *err_ppm = MIN(*err_ppm + 1000000u / count + 1, 1000000u);
    return true;
}

static uint64_t pit_tsc_khz(uint32_t *err_ppm)
{
    uint64_t best = 0;

    *err_ppm = 1000000;
    for ( unsigned int i = 0; i < PIT_ROUNDS; i++ )
    {
        uint64_t khz;
        uint32_t ppm;

        if ( !pit_round(&khz, &ppm) )
            return 0;
        if ( !best || ppm < *err_ppm )
        {
            best = khz;
            *err_ppm = ppm;
        }
    }
    return best;
}

static uint64_t l0_tsc_khz(uint32_t *err_ppm)
{
    *err_ppm = 0;
    return hypervisor_ops.tsc_khz ? hypervisor_ops.tsc_khz(&tsc_source)
                                  : 0;
}

static uint64_t stated15(uint32_t *err_ppm)
{
    *err_ppm = 0;
    return cpuid15_tsc_khz();
}

static uint64_t stated16(uint32_t *err_ppm)
{
    *err_ppm = 0;
    return cpuid16_tsc_khz();
}

/* The source the boot's rate came from, asked again at a resume. */
static uint64_t (*tsc_get)(uint32_t *err_ppm);

void time_init(void)
{
    static const struct
    {
        const char *name;
        uint64_t (*get)(uint32_t *err_ppm);
    } sources[] = {
        { "cpuid 0x15", stated15 },
        { "pit calibration", pit_tsc_khz },
        { "cpuid 0x16", stated16 },
    };
    uint32_t ppm = 0;

    /* The L0's word first: its CPUID leaves know the guest's TSC rate. */
    tsc_khz = l0_tsc_khz(&ppm);
    if ( tsc_khz >= 1000 )
        tsc_get = l0_tsc_khz;
    else
        tsc_khz = 0;
    for ( unsigned int i = 0;
          !tsc_khz && i < sizeof(sources) / sizeof(sources[0]); i++ )
    {
        uint64_t khz;

        khz = sources[i].get(&ppm);
        if ( khz >= 1000 )
        {
            tsc_khz = khz;
            tsc_err_ppm = ppm;
            tsc_source = sources[i].name;
            tsc_get = sources[i].get;
            break;
        }
    }
    if ( !tsc_khz )
        pr_warn("tsc: frequency unknown; assuming %llu kHz for timeouts\n",
                TSC_KHZ_GUESS);
    if ( tsc_err_ppm )
        pr_info("tsc: %lu kHz +/- %u ppm from %s (best of %u rounds of 10 "
                "ms, bracketed)%s\n",
                (unsigned long)tsc_khz, tsc_err_ppm, tsc_source, PIT_ROUNDS,
                boot_cpu.invariant_tsc ? ", invariant" : "");
    else
        pr_info("tsc: %lu kHz from %s%s\n", (unsigned long)tsc_khz,
                tsc_source, boot_cpu.invariant_tsc ? ", invariant" : "");
}

int tsc_recheck(void)
{
    struct rate_sample m[RATE_RECHECK_SAMPLES];
    enum rate_verdict v = RATE_MEASURE_MORE;
    uint64_t was = tsc_khz;
    unsigned int n = 0, pick = 0;

    if ( !tsc_get )
        return -ENODEV;
    /*
     * A stated rate (0 ppm) is one answer; a measured one is taken again
     * until rate_recheck_verdict() decides (arch/x86/rate-bound.c).
     */
    while ( v == RATE_MEASURE_MORE )
    {
        m[n].khz = tsc_get(&m[n].err_ppm);
        if ( m[n].khz < 1000 )
        {
            pr_warn("tsc: resume: %s gave no rate now; shimk keeps counting "
                    "%lu kHz\n", tsc_source, (unsigned long)was);
            return -ENODEV;
        }
        n++;
        if ( !m[0].err_ppm )
            /* The L0's or CPUID's word: exact, and final. */
            v = rate_bounds_agree(was, tsc_err_ppm, m[0].khz, 0)
                    ? RATE_KEPT : RATE_CHANGED;
        else
            v = rate_recheck_verdict(was, tsc_err_ppm, m, n,
                                     RATE_RECHECK_SAMPLES, &pick);
    }
    if ( v == RATE_KEPT )
    {
        pr_info("tsc: resume: rate kept: %lu kHz +/- %u ppm from %s, as "
                "the %lu kHz +/- %u ppm in use%s\n",
                (unsigned long)m[n - 1].khz, m[n - 1].err_ppm, tsc_source,
                (unsigned long)was, tsc_err_ppm,
                n > 1 ? " (after an outlier)" : "");
        return 0;
    }
    if ( v == RATE_UNSETTLED )
    {
        pr_warn("tsc: resume: rate unsettled: %u measurements from %s "
                "(%lu, %lu%s kHz) agree neither with each other nor with "
                "the %lu kHz +/- %u ppm in use: the L0's clocks moved "
                "against each other; shimk keeps its rate\n", n,
                tsc_source, (unsigned long)m[0].khz,
                (unsigned long)m[1].khz, n > 2 ? ", ..." : "",
                (unsigned long)was, tsc_err_ppm);
        return -EAGAIN;
    }
    /*
     * Another rate (a host without TSC scaling, or one the L0 now
     * states): every bound, delay and rate from here on counts in the
     * new cycles.  A wait already under way keeps the cycles it took.
     */
    __atomic_store_n(&tsc_khz, m[pick].khz, __ATOMIC_RELEASE);
    tsc_err_ppm = m[pick].err_ppm;
    pr_warn("tsc: resume: rate changed: now %lu kHz +/- %u ppm from %s%s, "
            "not the %lu kHz in use: re-calibrated, shimk's time counts the "
            "new rate\n",
            (unsigned long)m[pick].khz, m[pick].err_ppm, tsc_source,
            n > 1 ? " (two measurements agree)" : "", (unsigned long)was);
    return 1;
}
