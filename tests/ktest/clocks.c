/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: a resume's clock checks replace a wrong rate and keep a right one. */

#include <shimk/errno.h>
#include <shimk/ktest.h>
#include <shimk/sched.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/processor.h>
#include <asm/rate-bound.h>
#include <asm/percpu.h>

/*
 * What a resume on a host with another TSC rate looks like to shimk:
 * its tsc_khz is wrong.  tsc_recheck() asks the boot's source again (the
 * L0's leaf, or the PIT measured again) and must take its rate; asked
 * once more, it must keep it.  For a measured rate the second question
 * is a real one: the rate just taken must not move, though an L0 whose
 * clocks move against each other may leave it unsettled (-EAGAIN: no
 * two of three measurements agreed, and the rate stayed).
 */
KTEST(clocks, a_wrong_tsc_rate_is_asked_again)
{
    uint64_t khz = tsc_khz, now;
    uint32_t ppm = tsc_err_ppm;
    int rc;

    if ( !khz || tsc_recheck() == -ENODEV )
        KT_SKIP(t, "no TSC source to ask again (%s)", tsc_source);
    /* The first question's own answer (a measured rate moves a little). */
    khz = tsc_khz;
    ppm = tsc_err_ppm;
    __atomic_store_n(&tsc_khz, khz * 3 / 2, __ATOMIC_RELEASE);
    tsc_err_ppm = 0;
    rc = tsc_recheck();
    now = tsc_khz;
    if ( rc != 1 )
        __atomic_store_n(&tsc_khz, khz, __ATOMIC_RELEASE);
    KT_ASSERTF(t, rc == 1, "tsc_recheck() kept %lu kHz (rc %d); %s says "
               "%lu kHz", (unsigned long)(khz * 3 / 2), rc, tsc_source,
               (unsigned long)khz);
    KT_ASSERTF(t, rate_bounds_agree(khz, ppm, now, tsc_err_ppm),
               "took %lu kHz +/- %u ppm, %s said %lu kHz +/- %u ppm before",
               (unsigned long)now, tsc_err_ppm, tsc_source,
               (unsigned long)khz, ppm);
    rc = tsc_recheck();
    KT_ASSERTF(t, (rc == 0 || rc == -EAGAIN) && tsc_khz == now,
               "asked again, %s moved from %lu kHz to %lu kHz (rc %d)",
               tsc_source, (unsigned long)now, (unsigned long)tsc_khz, rc);
    ktest_note("%s: %lu kHz +/- %u ppm, %s when asked again; the boot's "
               "%lu kHz +/- %u ppm put back", tsc_source,
               (unsigned long)tsc_khz, tsc_err_ppm,
               rc ? "unsettled (kept)" : "kept", (unsigned long)khz, ppm);
    /* The rest of the run counts as it did before. */
    __atomic_store_n(&tsc_khz, khz, __ATOMIC_RELEASE);
    tsc_err_ppm = ppm;
}

/*
 * The same of the APIC timer: a rate 3/2 of the true one is measured
 * again, found outside both bounds and replaced; measured once more, it
 * is kept.  The timer then still delivers an expiry (its mode set up
 * again, what was armed written again).  Under TSC-deadline no arm uses
 * the APIC's rate and a resume does not measure it (resume_clocks()):
 * nothing of this runs there.
 */
KTEST(clocks, a_wrong_apic_rate_is_measured_again)
{
    uint32_t khz = apic_timer_khz, ppm = apic_timer_err_ppm, now, now_ppm;
    uint64_t irqs, start;
    unsigned long f;
    int rc, again;

    if ( !khz )
        KT_SKIP(t, "no APIC timer rate");
    if ( apic_timer_tsc_deadline )
        KT_SKIP(t, "arming with TSC-deadline: no arm uses the APIC timer's "
                "rate, and a resume does not measure it");
    f = local_irq_save();
    apic_timer_khz = khz / 2 * 3;
    apic_timer_err_ppm = 0;
    rc = apic_timer_recheck("ktest");
    now = apic_timer_khz;
    now_ppm = apic_timer_err_ppm;
    again = apic_timer_recheck("ktest");
    sched_timer_rewrite_here();
    local_irq_restore(f);
    KT_ASSERTF(t, rc == 1, "a rate of %u kHz was kept (rc %d); it was "
               "%u kHz +/- %u ppm", khz / 2 * 3, rc, khz, ppm);
    KT_ASSERTF(t, rate_bounds_agree(khz, ppm, now, now_ppm),
               "took %u kHz +/- %u ppm, calibrated %u kHz +/- %u ppm at boot",
               now, now_ppm, khz, ppm);
    KT_ASSERTF(t, (again == 0 || again == -EAGAIN) &&
                      rate_bounds_agree(now, now_ppm, apic_timer_khz,
                                        apic_timer_err_ppm),
               "measured once more, %u kHz +/- %u ppm moved to %u kHz (rc "
               "%d)", now, now_ppm, apic_timer_khz, again);
    /* Its timer still works: a sleep ends by its own interrupt. */
    irqs = sched_timer_irqs(smp_processor_id());
    start = rdtsc();
    thread_sleep_us(2000);
    KT_ASSERTF(t, sched_timer_irqs(smp_processor_id()) > irqs,
               "a 2 ms sleep ended after %lu us with no timer interrupt",
               (unsigned long)(cycles_to_ns(rdtsc() - start) / 1000));
    ktest_note("%u kHz +/- %u ppm at boot, %u kHz +/- %u ppm now (%s)",
               khz, ppm, apic_timer_khz, apic_timer_err_ppm,
               apic_timer_tsc_deadline ? "TSC-deadline" : "one-shot counts");
}
