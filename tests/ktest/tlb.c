/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: the stale-TLB detector in every mode this machine allows. */

#include <guest/flush-fault.h>
#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <shimk/aspace.h>
#include <shimk/cmdline.h>
#include <shimk/image.h>
#include <shimk/sched.h>
#include <shimk/string.h>
#include <shimk/syscall-abi.h>
#include <shimk/time.h>
#include <shimk/ktest.h>
#include <shimk/printk.h>
#include <shimk/tlb-detect.h>
#include <shimk/tlb-detect-power.h>
#include <shimk/frame.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/flush-inject.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
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
/* Which changes sync_every_mode makes (DETECT_OP_*, shimk/tlb-detect.h). */
static unsigned int opt_ops = DETECT_OPS_ALL & ~DETECT_OP_HUGE;
uint_param("tlb-detect-ops", opt_ops, 0, DETECT_OPS_ALL);

struct combo
{
    bool pge, invpcid, shorthand;
};

static bool report(struct ktest *t, const char *what,
                   const struct detect_result *r, uint64_t want)
{
    char ops[320];

    ktest_note("stale-TLB detector %s: %lu flushes checked (%lu not) in %lu "
               "ms, %lu user + %lu kernel reads, %lu stale", what,
               (unsigned long)r->flushes, (unsigned long)r->unchecked,
               (unsigned long)r->ms,
               (unsigned long)r->reads_user, (unsigned long)r->reads_kernel,
               (unsigned long)(r->stale_user + r->stale_kernel));
    detect_format(ops, sizeof(ops), r);
    ktest_note("%s", ops);
    if ( r->stale_user + r->stale_kernel )
    {
        ktest_fail(t, __FILE__, __LINE__, "%lu stale reads (%s): first a "
                   "%s catch in %s mode on CPU%u, slot %#lx gen %lu, wanted "
                   "gen %lu", (unsigned long)(r->stale_user + r->stale_kernel),
                   what, detect_catch_name(r->bad_catch),
                   r->bad_kernel_mode ? "kernel" : "user", r->bad_cpu,
                   (unsigned long)r->bad_slot, (unsigned long)r->bad_gen,
                   (unsigned long)r->want_gen);
        return false;
    }
    if ( r->flushes < want )
    {
        /* The run ends early only when progress stopped. */
        ktest_fail(t, __FILE__, __LINE__, "progress stopped: %lu of %lu "
                   "flushes checked, none in the last %lu ms (%s)",
                   (unsigned long)r->flushes, (unsigned long)want,
                   (unsigned long)r->stalled_ms, what);
        return false;
    }
    /* A check that never had its chance proves nothing: say so. */
    if ( r->ops[2] && !r->faults )
    {
        ktest_fail(t, __FILE__, __LINE__, "%lu unmaps, yet no read faulted "
                   "(%s): the unmap checks did not run", (unsigned long)
                   r->ops[2], what);
        return false;
    }
    if ( r->ops[3] && !r->blocked_writes )
    {
        ktest_fail(t, __FILE__, __LINE__, "%lu protects, yet no write "
                   "faulted (%s): the protect checks did not run",
                   (unsigned long)r->ops[3], what);
        return false;
    }
    if ( r->ops[4] && !r->walks )
    {
        ktest_fail(t, __FILE__, __LINE__, "%lu table frees, yet no walk "
                   "(%s)", (unsigned long)r->ops[4], what);
        return false;
    }
    return true;
}

/* The timer's account over a run, when anything came late or was kicked. */
static void note_timers(const struct sched_timer_stats *a,
                        const struct sched_timer_stats *b)
{
    struct sched_timer_stats d;
    char counts[400];
    uint64_t late = 0;

    sched_timer_delta(&d, a, b);
    for ( unsigned int i = 0; i < NR_LATE_WAKE; i++ )
        late += d.late[i];
    if ( !late && !d.kicks_sent && !d.stall_kicks && !d.lost )
        return;
    sched_timer_format(counts, sizeof(counts), &d);
    ktest_note("scheduler: %s", counts);
}

/*
 * The detector's power (shimk/tlb-detect-power.h): before a case's clean
 * runs, short control runs with every remote flush left out (or with
 * the bug the boot itself injects), one placement after another, until
 * one sees enough stale reads through a TLB.  Its placement is the
 * clean runs'; where none sees any, the case is inconclusive.
 */
struct power
{
    struct detect_power ctl[DETECT_MAX_PLACES];
    unsigned int n;                 /* controls run */
    unsigned int places;            /* placements there were to try */
    int chosen;                     /* believed, or -1 */
    bool boot_bug;                  /* the boot injects a bug itself */
    enum tlb_inject inject;         /* the controls' bug */
    uint64_t old_reads;             /* lazy: in every control */
    char why[160];                  /* when inconclusive */
};

/* A control stalls only if its readers stopped: it needs no long wait. */
#define CONTROL_MS 20000

/*
 * The placement the last case of this boot chose, tried first by the
 * next (where it fits): the placements it found blind are not measured
 * again for every case.
 */
static struct detect_place chosen_before;
static const char *chosen_for;

static void note_control(const char *what, unsigned int i, unsigned int n,
                         const struct power *pw, const struct detect_result *r)
{
    const struct detect_power *p = &pw->ctl[i];
    char place[160], kinds[96] = "", cpus[64];
    size_t k = 0;

    detect_place_format(place, sizeof(place), &p->place, &r->remap_cpus,
                        &r->reader_cpus);
    for ( unsigned int c = 0; c < NR_DETECT_CATCH && k < sizeof(kinds); c++ )
        if ( p->by[c] )
            k += ksnprintf(kinds + k, sizeof(kinds) - k, "%s%s %lu",
                           k ? ", " : "", detect_catch_name(c),
                           (unsigned long)p->by[c]);
    cpumask_format(cpus, sizeof(cpus), &p->stale_cpus);
    ktest_note("control %u of %u for %s (%s injected; %s): %lu stale reads"
               "%s%s%s%s%s in %lu flushes checked (%lu not), %lu ms%s",
               i + 1, n, what, tlb_inject_name(pw->inject), place,
               (unsigned long)p->stale, k ? " (" : "", kinds, k ? ")" : "",
               p->stale ? " on CPU" : "", p->stale ? cpus : "",
               (unsigned long)p->flushes, (unsigned long)p->unchecked,
               (unsigned long)p->ms,
               p->stalled_ms ? " (progress stopped)" : "");
    if ( r->old_reads )
        ktest_note("control %u: %lu reads of a slot's older generation, "
                   "through entries cached before its lazy remap (allowed "
                   "until the frame is reused)", i + 1,
                   (unsigned long)r->old_reads);
    if ( p->stale )
        ktest_note("control %u: first a %s catch in %s mode on CPU%u, slot "
                   "%#lx gen %lu, wanted gen %lu", i + 1,
                   detect_catch_name(r->bad_catch),
                   r->bad_kernel_mode ? "kernel" : "user", r->bad_cpu,
                   (unsigned long)r->bad_slot, (unsigned long)r->bad_gen,
                   (unsigned long)r->want_gen);
}

/*
 * Run the controls for cfg and put the chosen placement in it.  False
 * if a control could not run (the case has failed).
 */
static bool measure_power(struct ktest *t, struct detect_config *cfg,
                          const char *what, struct power *pw)
{
    struct detect_place places[DETECT_MAX_PLACES];
    enum tlb_inject boot = __atomic_load_n(&tlb_inject, __ATOMIC_SEQ_CST);
    unsigned int n;

    memset(pw, 0, sizeof(*pw));
    pw->chosen = -1;
    pw->boot_bug = boot != TLB_INJECT_NONE;
    pw->inject = pw->boot_bug ? boot : TLB_INJECT_SKIP_REMOTE;
    if ( nr_cpus_online < 2 )
    {
        ksnprintf(pw->why, sizeof(pw->why), "inconclusive: one CPU, so "
                  "every flush is local and no control can leave out a "
                  "remote one");
        return true;
    }
    n = detect_places(places, DETECT_MAX_PLACES, &cfg->place,
                      nr_cpus_online);
    pw->places = n;
    if ( chosen_for && detect_places_prefer(places, n, &chosen_before) &&
         !detect_place_equal(&places[0], &cfg->place) )
        ktest_note("%s: trying first readers as %s chose them in this boot",
                   what, chosen_for);
    if ( pw->boot_bug )
        ktest_note("the boot injects tlb-inject=%s: the controls run with "
                   "it, and are the run", tlb_inject_name(boot));
    for ( unsigned int i = 0; i < n; i++ )
    {
        struct detect_config c = *cfg;
        struct detect_result r;
        int rc;

        c.place = places[i];
        c.flushes = DETECT_CONTROL_FLUSHES;
        c.most_flushes = DETECT_CONTROL_MOST;
        c.stop_after = DETECT_CONTROL_STALE;
        c.inject = pw->inject;
        c.max_ms = cfg->max_ms < CONTROL_MS ? cfg->max_ms : CONTROL_MS;
        rc = tlb_detect_run(&c, &r);
        if ( rc )
        {
            ktest_fail(t, __FILE__, __LINE__, "control %u of %u for %s "
                       "could not run: %d", i + 1, n, what, rc);
            return false;
        }
        detect_power_from(&pw->ctl[i], &places[i], &r);
        pw->old_reads += r.old_reads;
        pw->n = i + 1;
        note_control(what, i, n, pw, &r);
        if ( pw->boot_bug ? pw->ctl[i].stale > 0
                          : detect_power_enough(&pw->ctl[i]) )
            break;
    }
    pw->chosen = detect_power_choose(pw->ctl, pw->n);
    if ( pw->chosen >= 0 )
    {
        chosen_before = pw->ctl[pw->chosen].place;
        chosen_for = what;
    }
    if ( pw->chosen >= 0 && !pw->boot_bug )
    {
        const struct detect_power *p = &pw->ctl[pw->chosen];
        cpumask_t remap, readers;
        char place[160];

        cfg->place = p->place;
        detect_place_cpus(&p->place, &cpu_online_mask, smp_processor_id(),
                          &remap, &readers);
        detect_place_format(place, sizeof(place), &p->place, &remap,
                            &readers);
        ktest_note("power: %s: with %s injected the detector saw %lu stale "
                   "reads through a TLB in %lu flushes; the clean runs go "
                   "there (placement %d of %u%s): %s", what,
                   tlb_inject_name(pw->inject), (unsigned long)p->tlb_stale,
                   (unsigned long)p->flushes, pw->chosen + 1, pw->places,
                   pw->chosen ? ", those before it saw fewer" : "", place);
    }
    else if ( !pw->boot_bug )
    {
        detect_power_why(pw->why, sizeof(pw->why),
                         tlb_inject_name(pw->inject), pw->ctl, pw->n);
        /* What the controls saw instead: the entries were there. */
        if ( pw->old_reads )
            ktest_note("power: %s: the controls read %lu times through "
                       "entries a lazy remap left, but none lived to its "
                       "frame's reuse: they were gone before it, with no "
                       "remote flush made", what,
                       (unsigned long)pw->old_reads);
    }
    return true;
}

/*
 * The boot injects a bug itself (a negative control given by the user):
 * the controls were the run.  Any stale read fails it, as it must; none
 * in any placement is inconclusive, never a pass.
 */
static void boot_bug_verdict(struct ktest *t, struct power *pw,
                             const char *what)
{
    uint64_t stale = 0;

    if ( !pw->n )
    {
        ktest_skip(t, "%s", pw->why);
        return;
    }
    for ( unsigned int i = 0; i < pw->n; i++ )
        stale += pw->ctl[i].stale;
    if ( detect_verdict(pw->ctl, pw->n, pw->chosen, true, 0) == DETECT_FAIL )
    {
        ktest_fail(t, __FILE__, __LINE__, "%lu stale reads (%s) with "
                   "tlb-inject=%s given at boot: the detector sees the "
                   "injected bug (placement %u of %u)", (unsigned long)stale,
                   what, tlb_inject_name(pw->inject), pw->n, pw->places);
        return;
    }
    detect_power_why(pw->why, sizeof(pw->why), tlb_inject_name(pw->inject),
                     pw->ctl, pw->n);
    ktest_skip(t, "%s", pw->why);
}

/* After the clean runs: a pass only where a control saw what it plants. */
static void power_verdict(struct ktest *t, const struct power *pw)
{
    if ( t->failed )
        return;
    if ( detect_verdict(pw->ctl, pw->n, pw->chosen, false, 0) ==
         DETECT_INCONCLUSIVE )
        ktest_skip(t, "%s", pw->why);
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
        .place = { .remappers = nr_cpus_online > 2 ? 2 : 1,
                   .spin = detect_readers_spin() },
        .ops = opt_ops,
        .full_every = 4,
    };
    struct flush_counters before, after;
    struct sched_timer_stats tm0, tm1;
    struct power pw;
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

    if ( !measure_power(t, &cfg, "sync", &pw) )
        return;
    if ( pw.boot_bug )
    {
        boot_bug_verdict(t, &pw, "sync");
        return;
    }
    flush_counters_total(&before);
    sched_timer_stats(&tm0);
    for ( unsigned int i = 0; i < n; i++ )
    {
        struct flush_counters c0, c1;
        uint64_t inj0 = assist_faults_injected, inj;
        struct detect_result r;
        char what[64];
        bool ok;

        apply(&combos[i]);
        ksnprintf(what, sizeof(what), "pge=%d invpcid=%d shorthand=%d "
                  "x2apic=%d assisted=%d", combos[i].pge, combos[i].invpcid,
                  combos[i].shorthand, x2apic_enabled,
                  hypervisor_has_flush_tlb());
        flush_counters_total(&c0);
        KT_ASSERT(t, !tlb_detect_run(&cfg, &r));
        flush_counters_total(&c1);
        inj = assist_faults_injected - inj0;
        total += r.flushes;
        ok = report(t, what, &r, cfg.flushes);
        if ( !ok )
            break;
        if ( hypervisor_has_flush_tlb() && !tlb_inject )
        {
            uint64_t adapt = c1.adapt_ipi - c0.adapt_ipi;
            uint64_t asked = c1.remote_requests - c0.remote_requests -
                             (c1.no_assist_forced - c0.no_assist_forced) -
                             adapt;
            uint64_t okd = c1.assisted_ok - c0.assisted_ok;
            uint64_t failed = c1.assisted_failed - c0.assisted_failed;
            uint64_t partial = c1.assisted_partial - c0.assisted_partial;
            uint64_t late = c1.assisted_l0_late - c0.assisted_l0_late;
            uint64_t ipis = c1.ipi_targets - c0.ipi_targets;

            ktest_note("assisted: %lu flushes to the L0: %lu done, %lu "
                       "partly (%lu vCPUs flagged), %lu failed (%lu "
                       "injected) and sent as %lu IPIs",
                       (unsigned long)asked, (unsigned long)okd,
                       (unsigned long)partial,
                       (unsigned long)(c1.pv_flagged - c0.pv_flagged),
                       (unsigned long)failed, (unsigned long)inj,
                       (unsigned long)ipis);
            if ( late )
                ktest_note("assisted: %lu more the L0 kept past its bound, "
                           "shown (the L0-late line), and sent as IPIs",
                           (unsigned long)late);
            if ( adapt )
                ktest_note("assisted: %lu more by IPIs, the run-time "
                           "choice (flush-adapt)", (unsigned long)adapt);
            /*
             * Every assistable flush went to the L0, or by IPIs where
             * the run-time choice said so, and was counted.
             */
            KT_EQ(t, okd + failed + partial + late, asked);
            /* Each injected failure fell back, and nothing else failed. */
            KT_EQ(t, failed, inj);
            if ( hypervisor_type() == HV_KVM && c1.pv_flagged == c0.pv_flagged )
                ktest_note("no vCPU was flagged: KVM flags only vCPUs its "
                           "host has preempted, and none was during this "
                           "run (each running vCPU got an IPI)");
            /*
             * A whole-machine L0 flush (Xen) needs no IPI at all: only
             * the barriers (FLUSH_NO_ASSIST, the table frees) send any.
             */
            if ( !failed && !partial && !late && !c1.pv_flagged )
                KT_EQ(t, ipis, c1.no_assist_ipis - c0.no_assist_ipis +
                               c1.adapt_ipi_targets - c0.adapt_ipi_targets);
            if ( failed || late )
                KT_ASSERT(t, ipis > 0);
        }
    }
    apply(&boot);
    flush_counters_total(&after);
    sched_timer_stats(&tm1);
    note_timers(&tm0, &tm1);
    ktest_note("%lu flushes checked in %u modes; clock wraps %lu, clock "
               "skips %lu", (unsigned long)total, n,
               (unsigned long)(after.clock_wraps - before.clock_wraps),
               (unsigned long)(after.clock_skips - before.clock_skips));
    power_verdict(t, &pw);
}

/*
 * A 2 MiB mapping remapped whole, beside 4 KiB slots: a TLB may hold
 * it as one entry or as 4 KiB pieces, and the flush must drop either.
 */
KTEST(tlb_detector, huge_remap)
{
    struct detect_config cfg = {
        .mode = DETECT_SYNC,
        .user_slots = 4,
        .place = { .remappers = 1, .spin = detect_readers_spin() },
        .ops = DETECT_OP_HUGE,
        /* Each remap clears a fresh 2 MiB frame: slow under nesting. */
        .flushes = opt_flushes / 20 > 100 ? opt_flushes / 20 : 100,
        .max_ms = opt_ms / 4,
    };
    struct detect_result r;
    struct power pw;

    if ( frames_2m_free() < 2 )
        KT_SKIP(t, "needs two free 2 MiB frames, %u are", frames_2m_free());
    if ( !measure_power(t, &cfg, "2M", &pw) )
        return;
    if ( pw.boot_bug )
    {
        boot_bug_verdict(t, &pw, "2M");
        return;
    }
    KT_ASSERT(t, !tlb_detect_run(&cfg, &r));
    if ( r.skipped_ops )
        KT_SKIP(t, "2 MiB remaps skipped: %s", r.skip_why);
    if ( !report(t, "2M", &r, cfg.flushes) )
        return;
    KT_ASSERTF(t, r.ops[5] > 0, "no 2 MiB remap was made");
    power_verdict(t, &pw);
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
        .place = { .remappers = nr_cpus_online > 2 ? 2 : 1,
                   .spin = detect_readers_spin() },
        .flushes = opt_flushes / 4,
        .max_ms = opt_ms / 4,
    };
    struct frame_reuse_stats before, after;
    struct sched_timer_stats tm0, tm1;
    struct detect_result r;
    struct power pw;

    if ( !measure_power(t, &cfg, "lazy", &pw) )
        return;
    if ( pw.boot_bug )
    {
        boot_bug_verdict(t, &pw, "lazy");
        return;
    }
    frames_reuse_stats(&before);
    sched_timer_stats(&tm0);
    KT_ASSERT(t, !tlb_detect_run(&cfg, &r));
    sched_timer_stats(&tm1);
    note_timers(&tm0, &tm1);
    frames_reuse_stats(&after);
    if ( !report(t, "lazy", &r, cfg.flushes) )
        return;
    ktest_note("lazy: %lu frames reused, %lu of %lu CPU flushes skipped by "
               "the clock, %lu reuses flushed",
               (unsigned long)(after.reused - before.reused),
               (unsigned long)(after.cpus_skipped - before.cpus_skipped),
               (unsigned long)(after.cpus_considered - before.cpus_considered),
               (unsigned long)(after.flushes - before.flushes));
    power_verdict(t, &pw);
}

/*
 * The controls' machinery, cheaply: every placement a case may try
 * splits the CPUs as detect_place_cpus() says, spins its readers when
 * asked, and checks flushes on every reader CPU; a control's bug is
 * gone after its run (the boot's class back), and a clean run right
 * after it finds nothing the bug left behind.
 */
KTEST(tlb_detector, control_and_placements)
{
    struct detect_config cfg = {
        .mode = DETECT_SYNC,
        .user_slots = 8,
        .kernel_slots = 8,
        .place = { .remappers = nr_cpus_online > 2 ? 2 : 1,
                   .spin = detect_readers_spin() },
        .flushes = 10,
        .max_ms = CONTROL_MS,
        .full_every = 4,
    };
    struct detect_place places[DETECT_MAX_PLACES];
    enum tlb_inject boot = __atomic_load_n(&tlb_inject, __ATOMIC_SEQ_CST);
    struct detect_result r;
    uint64_t stale;
    unsigned int n, cpu;
    char place[160];

    if ( nr_cpus_online < 2 )
        KT_SKIP(t, "one CPU: one placement, and no remote flush to leave "
                "out");
    if ( boot != TLB_INJECT_NONE )
        KT_SKIP(t, "the boot injects tlb-inject=%s: no run here is clean",
                tlb_inject_name(boot));
    n = detect_places(places, DETECT_MAX_PLACES, &cfg.place, nr_cpus_online);
    for ( unsigned int i = 0; i < n; i++ )
    {
        cpumask_t remap, readers;
        char a[64], b[64];

        cfg.place = places[i];
        KT_ASSERT(t, detect_place_cpus(&places[i], &cpu_online_mask,
                                       smp_processor_id(), &remap, &readers));
        KT_ASSERT(t, !tlb_detect_run(&cfg, &r));
        KT_ASSERTF(t, cpumask_equal(&r.remap_cpus, &remap) &&
                          cpumask_equal(&r.reader_cpus, &readers),
                   "placement %u: remappers on CPU%s, readers on CPU%s",
                   i + 1, cpumask_format(a, sizeof(a), &r.remap_cpus),
                   cpumask_format(b, sizeof(b), &r.reader_cpus));
        KT_EQ(t, r.spin, places[i].spin || detect_readers_spin());
        for_each_cpu ( cpu, &readers )
            KT_ASSERTF(t, r.checked_on[cpu] > 0, "placement %u: CPU%u "
                       "checked no flush", i + 1, cpu);
        KT_EQ(t, r.stale_user + r.stale_kernel, 0);
    }

    /* A control in the last, most sensitive placement, then clean. */
    cfg.inject = TLB_INJECT_SKIP_REMOTE;
    cfg.stop_after = DETECT_CONTROL_STALE;
    cfg.flushes = DETECT_CONTROL_FLUSHES;
    cfg.most_flushes = DETECT_CONTROL_MOST;
    KT_ASSERT(t, !tlb_detect_run(&cfg, &r));
    KT_EQ(t, __atomic_load_n(&tlb_inject, __ATOMIC_SEQ_CST), boot);
    stale = r.stale_user + r.stale_kernel;
    cfg.inject = TLB_INJECT_NONE;
    cfg.stop_after = 0;
    cfg.most_flushes = 0;
    cfg.flushes = 10;
    KT_ASSERT(t, !tlb_detect_run(&cfg, &r));
    detect_place_format(place, sizeof(place), &cfg.place, &r.remap_cpus,
                        &r.reader_cpus);
    ktest_note("%u placements split and checked; a control with "
               "skip-remote (%s) saw %lu stale reads, the clean run after "
               "it %lu in %lu flushes", n, place, (unsigned long)stale,
               (unsigned long)(r.stale_user + r.stale_kernel),
               (unsigned long)r.flushes);
    KT_ASSERTF(t, !(r.stale_user + r.stale_kernel), "%lu stale reads in "
               "the clean run after a control: the control's bug outlived "
               "it", (unsigned long)(r.stale_user + r.stale_kernel));
}

static volatile int irqoff_phase;

static void irqs_off_for_a_while(void *arg)
{
    unsigned long f = local_irq_save();

    WRITE_ONCE(irqoff_phase, 1);
    mdelay(50);
    WRITE_ONCE(irqoff_phase, 2);
    local_irq_restore(f);
}

/*
 * FLUSH_NO_ASSIST makes a flush a barrier: it cannot complete while a
 * target has interrupts off (a lockless page-table walker relies on
 * that), whatever the L0 could do.
 */
KTEST(tlb, no_assist_flush_waits_for_irqs_off_cpu)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1);
    cpumask_t m;
    uint64_t start, ms;

    if ( other >= NR_CPUS )
        KT_SKIP(t, "needs a second CPU");
    irqoff_phase = 0;
    thread_create("irqs-off", irqs_off_for_a_while, NULL, other, true);
    while ( READ_ONCE(irqoff_phase) != 1 )
        cpu_relax();
    cpumask_clear(&m);
    cpumask_set_cpu(other, &m);
    start = rdtsc();
    flush_area_mask(&m, NULL, FLUSH_TLB | FLUSH_NO_ASSIST);
    ms = cycles_to_ns(rdtsc() - start) / 1000000;
    KT_ASSERTF(t, READ_ONCE(irqoff_phase) == 2, "flush returned after %lu ms "
               "while CPU%u still had interrupts off", (unsigned long)ms,
               other);
}

/*
 * Each local primitive really drops a translation: map a kernel page
 * (global when PGE is on), read it, point it at another frame, flush
 * with flags that select the primitive, and read the new frame.
 */
KTEST(tlb, local_primitives_drop_translations)
{
    const vaddr_t va = IOREMAP_BASE + (300ull << 30);
    bool boot_pge = read_cr4() & X86_CR4_PGE, boot_inv = use_invpcid;
    paddr_t a = frame_alloc(), b = frame_alloc();
    unsigned int tried = 0;
    struct flush_counters before, after;

    *(uint64_t *)phys_to_virt(a) = 0xaaaa;
    *(uint64_t *)phys_to_virt(b) = 0xbbbb;
    KT_EQ(t, pt_map(kernel_root, va, a, PT_ORDER_4K, kernel_pte_nx), 0);
    for ( unsigned int pge = 0; pge < 2; pge++ )
        for ( unsigned int inv = 0; inv < 2; inv++ )
            for ( unsigned int full = 0; full < 2; full++ )
            {
                unsigned int flags = FLUSH_TLB_GLOBAL |
                                     (full ? 0 : FLUSH_ORDER(0));
                enum flush_kind want;
                uint64_t *e;
                unsigned long f;
                paddr_t to = tried % 2 ? a : b;
                uint64_t seen;

                if ( (pge && !boot_cpu.pge) || (inv && !boot_cpu.invpcid) )
                    continue;
                tlb_set_global_pages(pge);
                use_invpcid = inv;
                want = flush_local_kind(flags, inv, pge);
                f = local_irq_save();
                e = pt_leaf(kernel_root, va, PT_ORDER_4K);
                /* Fill the TLB (global if PGE), then change the entry. */
                *e = (*e & ~(PTE_ADDR_MASK | PTE_G)) | (pge ? PTE_G : 0) |
                     (to == a ? b : a);
                (void)*(volatile uint64_t *)va;
                *e = (*e & ~PTE_ADDR_MASK) | to;
                flush_counters_total(&before);
                flush_area_local((const void *)va, flags);
                flush_counters_total(&after);
                seen = *(volatile uint64_t *)va;
                local_irq_restore(f);
                KT_ASSERTF(t, after.local[want] == before.local[want] + 1,
                           "pge=%u invpcid=%u: %s not used", pge, inv,
                           flush_kind_name(want));
                KT_ASSERTF(t, seen == *(uint64_t *)phys_to_virt(to),
                           "pge=%u invpcid=%u %s: read %#lx through a "
                           "stale translation", pge, inv,
                           flush_kind_name(want), (unsigned long)seen);
                tried++;
            }
    tlb_set_global_pages(boot_pge);
    use_invpcid = boot_inv;
    pt_unmap(kernel_root, va, PT_ORDER_4K, NULL);
    flush_area_mask(&cpu_online_mask, (const void *)va,
                    FLUSH_TLB_GLOBAL | FLUSH_ORDER(0));
    frame_free(a);
    frame_free(b);
    ktest_note("%u primitive/mode combinations checked", tried);
}

/* Kernel mappings are global exactly when PGE is on; user ones never. */
KTEST(tlb, global_bit_policy)
{
    struct aspace *as = aspace_create();
    paddr_t pa = frame_alloc();
    uint64_t pte;
    unsigned int order;

    KT_EQ(t, pt_lookup(kernel_root, (vaddr_t)__data_start, &pte, &order), 0);
    KT_EQ(t, !!(pte & PTE_G), !!(read_cr4() & X86_CR4_PGE));
    KT_EQ(t, aspace_map(as, USER_HEAP_VA, pa, ORDER_4K,
                        PROT_READ | PROT_WRITE), 0);
    KT_EQ(t, pt_lookup(as->root, USER_HEAP_VA, &pte, &order), 0);
    KT_ASSERT(t, !(pte & PTE_G));
    KT_ASSERT(t, pte & PTE_U);
    aspace_put(as);
}

/*
 * A target that cannot take the flush IPI for longer than WAIT_BOUND_MS
 * (here: interrupts off on purpose; under an overcommitted L0: its vCPU
 * not run) is waited for, the IPI sent again, not panicked on.  Explicit
 * (about 6 s): `ktest=tlb-stall` or the tcg-flush-stall row.
 */
static volatile bool stall_started;

static void stall_target(void *arg)
{
    uint64_t start, hold = ms_to_cycles(WAIT_BOUND_MS + 1000);
    unsigned long f = local_irq_save();

    (void)arg;
    WRITE_ONCE(stall_started, true);
    start = rdtsc();
    while ( rdtsc() - start < hold )
        cpu_relax();
    local_irq_restore(f);
}

KTEST_FLAGS(tlb_stall, a_target_silent_past_the_bound_is_waited_for,
            KTEST_EXPLICIT)
{
    struct flush_counters c0, c1;
    struct thread *th;
    cpumask_t mask;
    unsigned int target = 0, cpu;
    uint64_t start;

    for_each_cpu ( cpu, &cpu_online_mask )
        if ( cpu != smp_processor_id() )
        {
            target = cpu;
            break;
        }
    if ( target == smp_processor_id() )
        KT_SKIP(t, "one CPU: no target to stall");
    WRITE_ONCE(stall_started, false);
    th = thread_create("stall", stall_target, NULL, target, false);
    start = rdtsc();
    while ( !READ_ONCE(stall_started) &&
            rdtsc() - start < ms_to_cycles(WAIT_BOUND_MS) )
        thread_sleep_us(1000);
    KT_ASSERT(t, READ_ONCE(stall_started));
    flush_counters_total(&c0);
    cpumask_clear(&mask);
    cpumask_set_cpu(target, &mask);
    flush_area_mask(&mask, NULL, FLUSH_TLB | FLUSH_NO_ASSIST);
    flush_counters_total(&c1);
    KT_ASSERT(t, !thread_join(th, WAIT_BOUND_MS * 3));
    KT_ASSERTF(t, c1.ack_resends > c0.ack_resends,
               "%lu resends", (unsigned long)(c1.ack_resends -
                                               c0.ack_resends));
}
