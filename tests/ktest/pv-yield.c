/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: shootdown waits that yield to the L0, on and off in one boot. */

#include <guest/hypervisor-ops.h>
#include <shimk/cmdline.h>
#include <shimk/ktest.h>
#include <shimk/tlb-detect.h>
#include <asm/flushtlb.h>

/*
 * How many yields the run with pv-yield on must make: 0 (the default)
 * where the L0 may run every vCPU whenever it wants to run, so nothing
 * need ever be descheduled; the overcommitted rows of the matrix (more
 * vCPUs than the L0 has CPUs, every one busy) ask for at least one.
 */
static unsigned int opt_min_yields;
uint_param("ktest-pv-yield-min", opt_min_yields, 0, 1000000);

static unsigned int opt_flushes = 500;
uint_param("ktest-pv-yield-flushes", opt_flushes, 100, 100000000);

struct yield_run
{
    struct detect_result r;
    uint64_t yields, requests, wait_cycles;
};

static void run(struct ktest *t, bool on, struct yield_run *out)
{
    struct detect_config cfg = {
        .mode = DETECT_SYNC,
        .user_slots = 4,
        .place = { .remappers = 1, .spin = detect_readers_spin() },
        .ops = DETECT_OPS_ALL & ~DETECT_OP_HUGE,
        .flushes = opt_flushes,
        .max_ms = 30000,
    };
    struct flush_counters c0, c1;
    bool saved = pv_yield_enabled;
    int rc;

    pv_yield_enabled = on;
    flush_counters_total(&c0);
    rc = tlb_detect_run(&cfg, &out->r);
    flush_counters_total(&c1);
    pv_yield_enabled = saved;
    out->yields = c1.pv_yields - c0.pv_yields;
    out->requests = c1.remote_requests - c0.remote_requests;
    out->wait_cycles = c1.wait_cycles - c0.wait_cycles;
    ktest_note("pv-yield %s: %lu flushes checked, %lu stale; %lu remote "
               "requests, %lu yields, %lu cycles waiting per request",
               on ? "on" : "off", (unsigned long)out->r.flushes,
               (unsigned long)(out->r.stale_user + out->r.stale_kernel),
               (unsigned long)out->requests, (unsigned long)out->yields,
               (unsigned long)(out->requests ? out->wait_cycles /
                                                   out->requests
                                             : 0));
    KT_ASSERTF(t, !rc, "the detector did not run (%d)", rc);
    KT_ASSERTF(t, !(out->r.stale_user + out->r.stale_kernel),
               "%lu stale reads with pv-yield %s: first on CPU%u, slot "
               "%#lx", (unsigned long)(out->r.stale_user +
                                       out->r.stale_kernel),
               on ? "on" : "off", out->r.bad_cpu,
               (unsigned long)out->r.bad_slot);
    KT_ASSERTF(t, out->r.flushes >= cfg.flushes, "progress stopped with "
               "pv-yield %s: %lu of %lu flushes checked", on ? "on" : "off",
               (unsigned long)out->r.flushes, (unsigned long)cfg.flushes);
}

/*
 * The same detector run twice in this boot, pv-yield off then on: both
 * complete every flush with nothing stale; off makes no yield, on
 * counts each (and makes at least ktest-pv-yield-min of them).
 */
KTEST(pv_yield, detector_on_and_off)
{
    struct yield_run off, on;

    if ( !hypervisor_ops.wait_yield )
        KT_SKIP(t, "the %s backend has no wait_yield here (no L0, or the "
                "L0 offers no yield)", hypervisor_ops.name);
    run(t, false, &off);
    if ( t->failed )
        return;
    KT_EQ(t, off.yields, 0);
    run(t, true, &on);
    if ( t->failed )
        return;
    KT_ASSERTF(t, on.yields >= opt_min_yields, "%lu yields with pv-yield "
               "on, %u wanted (ktest-pv-yield-min=): no wait found a "
               "target descheduled", (unsigned long)on.yields,
               opt_min_yields);
    if ( off.requests && on.requests && off.wait_cycles )
        ktest_note("wait per request, on/off: %lu/1000",
                   (unsigned long)(on.wait_cycles * 1000 / on.requests /
                                   (off.wait_cycles / off.requests ?: 1)));
}
