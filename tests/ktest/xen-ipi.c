/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: IPIs by Xen event channel and by the APIC, both checked in one boot. */

#include <guest/hypervisor-ops.h>
#include <guest/xen.h>
#include <shimk/cmdline.h>
#include <shimk/ktest.h>
#include <shimk/tlb-detect.h>
#include <asm/apic.h>
#include <asm/percpu.h>
#include <asm/smp.h>
#include <asm/tlb-measure.h>

/*
 * Checked flushes each way.  Every remote flush is an IPI here (the L0
 * flush off), which under Xen in TCG is slow: 300 each way took grub-xen
 * past its backstop on a slow day (2.5 flushes a second), and 100 are
 * plenty for the counters to show which way each went.
 */
static unsigned int opt_flushes = 100;
uint_param("ktest-xen-ipi-flushes", opt_flushes, 20, 100000000);

struct ipi_sums
{
    uint64_t icr, pv, received, upcalls, foreign;
};

/* Flush IPIs sent, every CPU together, and the upcalls taken. */
static void sums(struct ipi_sums *s)
{
    unsigned int slot = INVALIDATE_VECTOR - FIRST_IPI_VECTOR, cpu;

    s->icr = s->pv = s->received = 0;
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        const struct ipi_counters *c = &cpu_infos[cpu]->ipi;

        s->icr += c->icr_writes[slot];
        s->pv += c->pv_sends[slot];
        s->received += c->received[slot];
    }
    xen_evtchn_counts(&s->upcalls, &s->foreign);
}

static void detect(struct ktest *t, bool evtchn)
{
    struct detect_config cfg = {
        .mode = DETECT_SYNC,
        .user_slots = 4,
        .place = { .remappers = 1, .spin = detect_readers_spin() },
        .ops = DETECT_OPS_ALL & ~DETECT_OP_HUGE,
        .flushes = opt_flushes,
        .max_ms = 30000,
    };
    struct detect_result r;
    struct ipi_sums a, b;
    bool saved = ipi_by_event, assist = assist_enabled;
    int rc;

    /* Every remote flush by IPI, so the IPIs are what is checked. */
    assist_enabled = false;
    ipi_by_event = evtchn;
    sums(&a);
    rc = tlb_detect_run(&cfg, &r);
    sums(&b);
    ipi_by_event = saved;
    assist_enabled = assist;
    ktest_note("IPIs by %s: %lu flushes checked, %lu stale; flush IPIs: "
               "%lu by ICR, %lu by event channel, %lu taken; %lu upcalls, "
               "%lu foreign ports", evtchn ? "evtchn" : "apic",
               (unsigned long)r.flushes,
               (unsigned long)(r.stale_user + r.stale_kernel),
               (unsigned long)(b.icr - a.icr), (unsigned long)(b.pv - a.pv),
               (unsigned long)(b.received - a.received),
               (unsigned long)(b.upcalls - a.upcalls),
               (unsigned long)(b.foreign - a.foreign));
    KT_ASSERTF(t, !rc, "the detector did not run (%d)", rc);
    KT_ASSERTF(t, !(r.stale_user + r.stale_kernel), "%lu stale reads with "
               "IPIs by %s: first on CPU%u, slot %#lx",
               (unsigned long)(r.stale_user + r.stale_kernel),
               evtchn ? "evtchn" : "apic", r.bad_cpu,
               (unsigned long)r.bad_slot);
    KT_ASSERTF(t, r.flushes >= cfg.flushes, "progress stopped: %lu of %lu "
               "flushes checked", (unsigned long)r.flushes,
               (unsigned long)cfg.flushes);
    KT_ASSERTF(t, b.received > a.received, "no flush IPI was taken");
    /* Each way carried every flush IPI, and the other none. */
    if ( evtchn )
    {
        KT_ASSERTF(t, b.pv - a.pv >= b.received - a.received &&
                   b.icr == a.icr && b.upcalls > a.upcalls,
                   "flush IPIs by event channel: %lu sent, %lu by ICR, %lu "
                   "taken, %lu upcalls", (unsigned long)(b.pv - a.pv),
                   (unsigned long)(b.icr - a.icr),
                   (unsigned long)(b.received - a.received),
                   (unsigned long)(b.upcalls - a.upcalls));
        KT_EQ(t, b.foreign - a.foreign, 0);
    }
    else
        KT_ASSERTF(t, b.pv == a.pv && b.icr > a.icr, "flush IPIs by APIC: "
                   "%lu by event channel, %lu by ICR",
                   (unsigned long)(b.pv - a.pv),
                   (unsigned long)(b.icr - a.icr));
}

/*
 * The detector with every remote flush by IPI, the IPIs by event
 * channel then by the APIC: nothing stale either way, and the counters
 * show which way each went.
 */
KTEST(xen_ipi, detector_evtchn_and_apic)
{
    if ( !xen_evtchn_ipi_usable() )
        KT_SKIP(t, "no event-channel IPIs here (L0 %s, or xen-ipi=apic)",
                hypervisor_ops.name);
    if ( nr_cpus_online < 2 )
        KT_SKIP(t, "one CPU: no IPI to send");
    detect(t, true);
    if ( t->failed )
        return;
    detect(t, false);
}

/* Both ways, every ping of a round trip answered. */
KTEST(xen_ipi, round_trip_both_ways)
{
    uint64_t e, a;
    bool saved = ipi_by_event;

    if ( !xen_evtchn_ipi_usable() )
        KT_SKIP(t, "no event-channel IPIs here (L0 %s, or xen-ipi=apic)",
                hypervisor_ops.name);
    if ( nr_cpus_online < 2 )
        KT_SKIP(t, "one CPU: no IPI to send");
    ipi_by_event = true;
    e = measure_ipi_round_trip(1, 32);
    ipi_by_event = false;
    a = measure_ipi_round_trip(1, 32);
    ipi_by_event = saved;
    ktest_note("round trip to CPU1, p50: evtchn %lu, apic %lu cycles",
               (unsigned long)e, (unsigned long)a);
    KT_ASSERTF(t, e && a, "a round trip never came back (evtchn %lu, apic "
               "%lu cycles)", (unsigned long)e, (unsigned long)a);
}
