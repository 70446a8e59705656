/* SPDX-License-Identifier: GPL-2.0-only */
/* Local APIC timer: rate, mode, one register write per arm (SDM 3A 11.5.4). */

#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <shimk/timer-oneshot.h>
#include <asm/apic.h>
#include <asm/apic-calibrate.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/rate-bound.h>

uint32_t apic_timer_khz __read_mostly;
uint32_t apic_timer_err_ppm __read_mostly;
bool apic_timer_tsc_deadline __read_mostly;
/* The rate at the top of its bound: counts from it never run out early. */
static uint64_t count_khz __read_mostly;
/* tsc_khz when the rate was measured: the rate is relative to it. */
static uint64_t rate_tsc_khz __read_mostly;

/* tsc-deadline=<bool>: use TSC-deadline mode where CPUID offers it. */
static bool opt_tsc_deadline = true;
boolean_param("tsc-deadline", opt_tsc_deadline);

#define DIVIDE_BY_1      0xb    /* TDCR encoding, SDM Vol. 3A, Fig. 11-10 */
/*
 * CALIB_ROUNDS of 10 ms; while the bound is above CALIB_GOOD_PPM, longer
 * ones (the bound shrinks with the window): five of 40 ms, then two of
 * 160 ms.  At most 570 ms, where every read of the count is slow.
 */
#define CALIB_ROUNDS     5
#define CALIB_MAX_ROUNDS 12
#define CALIB_GOOD_PPM   2500

/* The shortest one-shot count written, in microseconds (see its use). */
#define ONESHOT_MIN_US   20

static unsigned int calib_window_us(unsigned int round)
{
    return round < CALIB_ROUNDS ? 10000 : round < 10 ? 40000 : 160000;
}

void apic_timer_setup_cpu(void)
{
    apic_write(APIC_TIMER_DIV, DIVIDE_BY_1);
    if ( !apic_timer_khz )
    {
        apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | TIMER_VECTOR);
        return;
    }
    apic_write(APIC_TIMER_INIT, 0);
    apic_write(APIC_LVT_TIMER, TIMER_VECTOR | (apic_timer_tsc_deadline ?
                                               APIC_LVT_TSC_DEADLINE : 0));
    /*
     * SDM 11.5.4.1: a write to IA32_TSC_DEADLINE must not pass the LVT
     * write that selects the mode; x2APIC MSR writes are not serializing.
     */
    __asm__ __volatile__("mfence" ::: "memory");
}

static void read_count(struct apic_count_read *r)
{
    r->tsc_before = rdtsc_ordered();
    r->count = apic_read(APIC_TIMER_CUR);
    r->tsc_after = rdtsc_ordered();
}

/*
 * Let the count fall from its maximum for a window, reading it
 * with ordered TSC reads on both sides at the start and at the end; keep
 * the round with the tightest bound, after CALIB_ROUNDS rounds or as many
 * longer ones (up to CALIB_MAX_ROUNDS in all) as it takes to bound the
 * error by CALIB_GOOD_PPM.  Each read is an exit under an L0: under Xen
 * in TCG a bracket is often 30-70 us wide, more on a loaded host.  The
 * old way (TSC read after the TMICT write, one unbracketed read at the
 * end) counted every stall as ticks: +7 % to +89 % under Xen in TCG.
 * The LVT is left masked and the count stopped: the caller sets the
 * timer up again.  False when no round gave a rate; *n the rounds.
 */
static bool measure(struct apic_calibration *out, unsigned int *n)
{
    struct apic_calibration rounds[CALIB_MAX_ROUNDS];
    bool ok[CALIB_MAX_ROUNDS];
    unsigned long f = local_irq_save();
    int best = -1;

    *n = 0;
    apic_write(APIC_TIMER_DIV, DIVIDE_BY_1);
    apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | TIMER_VECTOR);
    while ( *n < CALIB_ROUNDS ||
            (*n < CALIB_MAX_ROUNDS &&
             (best < 0 || rounds[best].err_ppm > CALIB_GOOD_PPM)) )
    {
        uint64_t window = us_to_cycles(calib_window_us(*n));
        struct apic_count_read a, b;

        apic_write(APIC_TIMER_INIT, 0xffffffff);
        read_count(&a);
        while ( rdtsc() - a.tsc_after < window )
            cpu_relax();
        read_count(&b);
        ok[*n] = apic_calib_round(&a, &b, tsc_khz_or_guess(), &rounds[*n]);
        best = apic_calib_best(rounds, ok, ++*n);
    }
    apic_write(APIC_TIMER_INIT, 0);
    local_irq_restore(f);
    if ( best >= 0 )
        *out = rounds[best];
    return best >= 0;
}

/* The rate at the top of its bound, for counts that never run out early. */
static void take_rate(uint32_t khz, uint32_t err_ppm)
{
    /*
     * A count that runs out before its deadline (the rate a bit low)
     * finds nothing due, so the interrupt re-arms for the same deadline,
     * and again: 2.8 interrupts per 100 us halt seen under Xen.
     */
    count_khz = khz + ((uint64_t)khz * err_ppm + 999999) / 1000000;
    apic_timer_err_ppm = err_ppm;
    apic_timer_khz = khz;
    rate_tsc_khz = tsc_khz_or_guess();
}

void apic_timer_calibrate(void)
{
    struct apic_calibration c;
    unsigned int n;

    if ( !measure(&c, &n) )
    {
        /* Not a count we can use: 1 GHz (QEMU's) keeps arms short. */
        take_rate(1000000, 1000000);
        pr_warn("apic: timer calibration failed in all %u rounds; "
                "assuming %u kHz\n", n, apic_timer_khz);
    }
    else
        take_rate((uint32_t)c.khz, c.err_ppm);
    apic_timer_tsc_deadline = boot_cpu.tsc_deadline && opt_tsc_deadline;
    pr_info("apic: timer %u kHz +/- %u.%02u %% (best of %u rounds of %s%u "
            "ms, bracketed by the TSC); arming with %s\n",
            apic_timer_khz, apic_timer_err_ppm / 10000,
            apic_timer_err_ppm / 100 % 100, n, n > CALIB_ROUNDS ? "10-" : "",
            calib_window_us(n - 1) / 1000,
            apic_timer_tsc_deadline ? "TSC-deadline" :
            boot_cpu.tsc_deadline ? "one-shot counts (tsc-deadline=0)" :
                                    "one-shot counts (no TSC-deadline mode)");
    if ( apic_timer_err_ppm > 10000 )
        pr_warn("apic: timer rate known only to +/- %u ppm: sleeps and "
                "slices may end early or late by as much\n",
                apic_timer_err_ppm);
    apic_timer_setup_cpu();
}

int apic_timer_recheck(const char *why)
{
    struct rate_sample m[RATE_RECHECK_SAMPLES];
    enum rate_verdict v = RATE_MEASURE_MORE;
    uint32_t was, was_ppm = apic_timer_err_ppm;
    unsigned int n = 0, pick = 0, rounds = 0;

    /*
     * Both rates are counted against tsc_khz: where that has been
     * taken anew since (tsc_recheck()), the old one is scaled to it, so
     * that what is compared is the ratio every arm uses.
     */
    was = (uint32_t)((uint64_t)apic_timer_khz * tsc_khz_or_guess() /
                     (rate_tsc_khz ?: tsc_khz_or_guess()));
    /* Changed only to a rate two measurements agree on (rate-bound.h). */
    while ( v == RATE_MEASURE_MORE )
    {
        struct apic_calibration c;
        unsigned int r;

        if ( !measure(&c, &r) )
        {
            apic_timer_setup_cpu();
            pr_warn("apic: %s: timer measured again, no round gave a rate "
                    "in %u; the boot's %u kHz kept\n", why, r,
                    apic_timer_khz);
            return -EIO;
        }
        rounds += r;
        m[n].khz = c.khz;
        m[n].err_ppm = c.err_ppm;
        n++;
        v = rate_recheck_verdict(was, was_ppm, m, n, RATE_RECHECK_SAMPLES,
                                 &pick);
    }
    /* Its mode and divisor again; the caller re-arms what was armed. */
    apic_timer_setup_cpu();
    if ( v == RATE_KEPT )
    {
        /* The ratio every arm uses, in the TSC's current cycles. */
        take_rate(was, was_ppm);
        pr_info("apic: %s: timer rate kept: %lu kHz +/- %u ppm (%u "
                "rounds%s), as the %u kHz +/- %u ppm in use\n", why,
                (unsigned long)m[n - 1].khz, m[n - 1].err_ppm, rounds,
                n > 1 ? ", after an outlier" : "", was, was_ppm);
        return 0;
    }
    if ( v == RATE_UNSETTLED )
    {
        take_rate(was, was_ppm);
        pr_warn("apic: %s: timer rate unsettled: %u measurements (%lu, "
                "%lu%s kHz) agree neither with each other nor with the %u "
                "kHz +/- %u ppm in use: the L0's clocks moved against each "
                "other; shimk keeps its rate\n", why, n,
                (unsigned long)m[0].khz, (unsigned long)m[1].khz,
                n > 2 ? ", ..." : "", was, was_ppm);
        return -EAGAIN;
    }
    take_rate((uint32_t)m[pick].khz, m[pick].err_ppm);
    pr_warn("apic: %s: timer rate changed: now %lu kHz +/- %u ppm (%u "
            "rounds, two measurements agree), not the %u kHz +/- %u ppm in "
            "use: re-calibrated, one-shot counts use the new rate\n",
            why, (unsigned long)m[pick].khz, m[pick].err_ppm, rounds, was,
            was_ppm);
    return 1;
}

void apic_timer_program(uint64_t deadline, bool hardware, struct oneshot *o)
{
    uint64_t before = rdtsc(), after;

    if ( apic_timer_tsc_deadline )
    {
        /* One WRMSR; a deadline already past fires at once. */
        wrmsr(MSR_TSC_DEADLINE, hardware ? deadline : 0);
        after = rdtsc();
        o->expires_by = MAX(deadline, after);
    }
    else
    {
        /*
         * A relative count starts when the TMICT write lands, somewhere
         * in [before, after]: the hardware expires by the deadline plus
         * the write's own delay.
         */
        uint64_t cycles = deadline > before ? deadline - before : 0;
        uint64_t ticks = cycles / tsc_khz_or_guess() * count_khz +
                         cycles % tsc_khz_or_guess() * count_khz /
                             tsc_khz_or_guess();

        /*
         * Never fewer than ONESHOT_MIN_US of counts.  Xen 4.17's vlapic
         * (in TCG, at least) has lost a one-shot written with a count of
         * 1 for a deadline already past: both lost expiries seen in
         * about 100 Xen runs of the timer suite were such writes, the
         * count run down (TMCCT 0) and the vector never raised.  A due
         * event a few microseconds later costs nothing.
         */
        ticks = MIN(MAX(ticks, ONESHOT_MIN_US * count_khz / 1000 + 1),
                    (uint64_t)0xffffffffu);
        apic_write(APIC_TIMER_INIT, hardware ? (uint32_t)ticks : 0);
        after = rdtsc();
        o->expires_by = MAX(deadline, before) + (after - before);
    }
    o->deadline = deadline;
    o->written_at = after;
}

/*
 * The local APIC's own view of the timer, for a lost expiry's report:
 * still counting, or counted down with the vector neither requested
 * (IRR) nor in service (ISR), which is the L0 never raising it (SDM
 * vol. 3A, 11.5.4 and 11.8.4).
 */
void apic_timer_describe(char *buf, size_t size)
{
    unsigned int reg = (TIMER_VECTOR / 32) * 0x10;
    uint32_t bit = 1u << (TIMER_VECTOR % 32);

    ksnprintf(buf, size, "%s %#lx, LVTT %#x, IRR %u ISR %u",
              apic_timer_tsc_deadline ? "TSC_DEADLINE" : "TMCCT",
              apic_timer_tsc_deadline
                  ? (unsigned long)rdmsr(MSR_TSC_DEADLINE)
                  : (unsigned long)apic_read(APIC_TIMER_CUR),
              apic_read(APIC_LVT_TIMER),
              !!(apic_read(APIC_IRR + reg) & bit),
              !!(apic_read(APIC_ISR + reg) & bit));
}

void apic_timer_read_state(struct apic_timer_state *s)
{
    unsigned int reg = (TIMER_VECTOR / 32) * 0x10;
    uint32_t bit = 1u << (TIMER_VECTOR % 32);

    s->count = apic_timer_tsc_deadline ? rdmsr(MSR_TSC_DEADLINE)
                                       : apic_read(APIC_TIMER_CUR);
    s->lvtt = apic_read(APIC_LVT_TIMER);
    s->irr = apic_read(APIC_IRR + reg) & bit;
    s->isr = apic_read(APIC_ISR + reg) & bit;
}

bool apic_timer_counting(void)
{
    if ( apic_timer_tsc_deadline )
        return rdmsr(MSR_TSC_DEADLINE) != 0;
    return apic_read(APIC_TIMER_CUR) != 0;
}
