/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: the stale-TLB detector in every mode this machine allows. */

#include <shimk/cmdline.h>
#include <shimk/ktest.h>
#include <shimk/printk.h>
#include <shimk/tlb-detect.h>
#include <shimk/frame.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * A quick run under ktest=all; the detector rows of the boot matrix ask
 * for 20,000 checked flushes, make stress for 1,000,000.
 */
static unsigned int opt_flushes = 2000;
uint_param("tlb-detect-flushes", opt_flushes, 100, 100000000);
static unsigned int opt_ms = 60000;
uint_param("tlb-detect-ms", opt_ms, 100, 3600000);

struct combo
{
    bool pge, invpcid, shorthand;
};

static bool report(struct ktest *t, const char *what,
                   const struct detect_result *r, uint64_t want)
{
    ktest_note("stale-TLB detector %s: %lu flushes checked (%lu not) in %lu "
               "ms, %lu user + %lu kernel reads, %lu stale", what,
               (unsigned long)r->flushes, (unsigned long)r->unchecked,
               (unsigned long)r->ms,
               (unsigned long)r->reads_user, (unsigned long)r->reads_kernel,
               (unsigned long)(r->stale_user + r->stale_kernel));
    if ( r->stale_user + r->stale_kernel )
    {
        ktest_fail(t, __FILE__, __LINE__, "%lu stale reads (%s): first in "
                   "%s mode, reader %u, slot %lu gen %lu, wanted gen %lu",
                   (unsigned long)(r->stale_user + r->stale_kernel), what,
                   r->bad_kernel_mode ? "kernel" : "user", r->bad_cpu,
                   (unsigned long)r->bad_slot, (unsigned long)r->bad_gen,
                   (unsigned long)r->want_gen);
        return false;
    }
    if ( r->flushes < want )
    {
        ktest_fail(t, __FILE__, __LINE__, "only %lu of %lu flushes checked "
                   "in %lu ms (%s)", (unsigned long)r->flushes,
                   (unsigned long)want, (unsigned long)r->ms, what);
        return false;
    }
    return true;
}

static void apply(const struct combo *c)
{
    tlb_set_global_pages(c->pge);
    use_invpcid = c->invpcid;
    ipi_shorthand_enabled = c->shorthand;
}

/*
 * Synchronous remaps in every combination of global pages, INVPCID and
 * the ALLBUT shorthand this machine has (x2APIC is one per boot: the
 * boot matrix runs both), sharing the flush budget.
 */
KTEST(tlb_detector, sync_every_mode)
{
    struct combo boot = { read_cr4() & X86_CR4_PGE, use_invpcid,
                          ipi_shorthand_enabled };
    struct combo combos[8];
    unsigned int n = 0;
    struct detect_config cfg = {
        .mode = DETECT_SYNC,
        .user_slots = 16,
        .kernel_slots = 16,
        .remappers = nr_cpus_online > 2 ? 2 : 1,
        .full_every = 4,
    };
    struct flush_counters before, after;
    uint64_t total = 0;

    for ( unsigned int pge = 0; pge < 2; pge++ )
        for ( unsigned int inv = 0; inv < 2; inv++ )
            for ( unsigned int sh = 0; sh < 2; sh++ )
            {
                if ( (pge && !boot_cpu.pge) || (inv && !boot_cpu.invpcid) ||
                     (sh && !boot.shorthand) )
                    continue;
                combos[n++] = (struct combo){ pge, inv, sh };
            }
    cfg.flushes = (opt_flushes + n - 1) / n;
    cfg.max_ms = opt_ms / n;

    flush_counters_total(&before);
    for ( unsigned int i = 0; i < n; i++ )
    {
        struct detect_result r;
        char what[64];
        bool ok;

        apply(&combos[i]);
        ksnprintf(what, sizeof(what), "pge=%d invpcid=%d shorthand=%d "
                  "x2apic=%d", combos[i].pge, combos[i].invpcid,
                  combos[i].shorthand, x2apic_enabled);
        KT_ASSERT(t, !tlb_detect_run(&cfg, &r));
        total += r.flushes;
        ok = report(t, what, &r, cfg.flushes);
        if ( !ok )
            break;
    }
    apply(&boot);
    flush_counters_total(&after);
    ktest_note("%lu flushes checked in %u modes; clock wraps %lu, clock "
               "skips %lu", (unsigned long)total, n,
               (unsigned long)(after.clock_wraps - before.clock_wraps),
               (unsigned long)(after.clock_skips - before.clock_skips));
}

/*
 * Lazy remaps: nothing flushed at remap time, frames freed with the TLB
 * clock's stamp, and flushed for only where the clock says so when
 * reused.  Run with a narrow clock (tlb-clock-bits=8) it wraps often.
 */
KTEST(tlb_detector, lazy_free_reuse_via_clock)
{
    struct detect_config cfg = {
        .mode = DETECT_LAZY,
        .user_slots = 32,
        .kernel_slots = 0,
        .remappers = nr_cpus_online > 2 ? 2 : 1,
        .flushes = opt_flushes / 4,
        .max_ms = opt_ms / 4,
    };
    struct frame_reuse_stats before, after;
    struct detect_result r;

    frames_reuse_stats(&before);
    KT_ASSERT(t, !tlb_detect_run(&cfg, &r));
    frames_reuse_stats(&after);
    if ( !report(t, "lazy", &r, cfg.flushes) )
        return;
    ktest_note("lazy: %lu frames reused, %lu of %lu CPU flushes skipped by "
               "the clock, %lu reuses flushed",
               (unsigned long)(after.reused - before.reused),
               (unsigned long)(after.cpus_skipped - before.cpus_skipped),
               (unsigned long)(after.cpus_considered - before.cpus_considered),
               (unsigned long)(after.flushes - before.flushes));
}
