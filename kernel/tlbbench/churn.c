/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench churn: user threads on every CPU map, touch and unmap. */

#include <guest/hypervisor-ops.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/syscall-abi.h>
#include <shimk/task.h>
#include <shimk/time.h>
#include <asm/cpufeature.h>
#include <asm/flush-adapt.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <user/programs.h>
#include "workload.h"

/* Churn runs under every fixed (global pages, assisted) setting. */
static unsigned int churn_modes[4], nr_churn_modes;

/* The most one churn block may take (its threads stop at this deadline). */
#define CHURN_BLOCK_MS 3000
/* Once every thread is done: as long as a flush may wait for a vCPU. */
#define TEARDOWN_BOUND_MS 60000

static void churn_block(struct cell *c, const struct profile *pf,
                        unsigned int rep)
{
    struct task *tk = task_create("churn");
    struct churn_args *a = task_args(tk);
    struct flush_counters c0, c1;
    uint64_t start, wall, ops = 0, busy = 0, stale = 0, checked = 0;
    uint64_t finished, bad_va = 0, bad_got = 0, bad_want = 0, last, seen;
    unsigned int n = MIN(nr_cpus_online, 16u), idle_threads = 0;
    unsigned int bad_thread = 0;
    int code;

    a->nthreads = n;
    a->rounds = pf->churn_rounds;
    a->pages = 8;
    tlbb_apply(&tlbb.modes[c->mode]);
    flush_counters_total(&c0);
    start = rdtsc();
    a->deadline = start + ms_to_cycles(CHURN_BLOCK_MS);
    if ( task_run(tk, user_churn, 0) < 0 )
        panic("tlbbench: churn task did not start");
    /*
     * Bounded by progress, not by the deadline alone: each system call
     * a thread completes and each thread that finishes restarts the
     * clock, and once all have finished, the task's teardown (its
     * space's last flushes, which wait up to 60 s for a vCPU the L0
     * does not run: arch/x86/flush/flush-smp.c) gets as long.  Seen:
     * Xen with 8 pCPUs on 2 host cores, all threads done and the
     * teardown not within 5 s; and there a round of 16 calls, each a
     * flush to 7 CPUs at a quarter of a second, ran 5 s past the
     * deadline while every call completed.
     */
    last = a->deadline;
    seen = 0;
    while ( !READ_ONCE(tk->done) )
    {
        uint64_t now = rdtsc(), done = READ_ONCE(a->finished), steps = 0;
        unsigned int bound = done == n ? TEARDOWN_BOUND_MS : WAIT_BOUND_MS;

        for ( unsigned int i = 0; i < n; i++ )
            steps += READ_ONCE(a->steps[i]);
        if ( done + steps != seen )
        {
            seen = done + steps;
            last = MAX(last, now);
        }
        if ( now > last && now - last > ms_to_cycles(bound) )
        {
            sched_dump();
            panic("tlbbench: churn block (%s) made no progress for %u ms "
                  "past its deadline: %lu of %u threads finished, %lu "
                  "system calls done%s",
                  tlbb.modes[c->mode].name, bound, (unsigned long)done, n,
                  (unsigned long)steps,
                  done == n ? ", the task not torn down" : "");
        }
        thread_sleep_us(500);
    }
    wall = rdtsc() - start;
    flush_counters_total(&c1);
    tlbb_restore();
    /* The outputs live in the task: read them before task_wait frees it. */
    finished = a->finished;
    for ( unsigned int i = 0; i < n; i++ )
    {
        ops += a->ops[i];
        busy += a->cycles[i];
        stale += a->stale[i];
        checked += a->checked[i];
        idle_threads += !a->ops[i];
        if ( a->stale[i] && !bad_va )
        {
            bad_thread = i;
            bad_va = a->bad_va[i];
            bad_got = a->bad_got[i];
            bad_want = a->bad_want[i];
        }
    }
    if ( a->errors )
        pr_warn("tlbbench: churn saw %lu failed system calls\n",
                (unsigned long)a->errors);
    code = task_wait(tk, WAIT_BOUND_MS);

    /*
     * A block with no work measured nothing and checked nothing: its
     * 0 ops/s and stale 0 would read as figures.  It fails the run.
     */
    if ( !ops || idle_threads || finished != n || code )
    {
        c->idle++;
        printk("tlbbench: churn (mode %s, round %u) did no work: %lu ops, "
               "%u of %u threads did none, %lu finished, task exit %d\n",
               tlbb.modes[c->mode].name, rep, (unsigned long)ops, idle_threads, n,
               (unsigned long)finished, code);
    }
    if ( stale )
        printk("tlbbench: churn (mode %s, round %u): %lu stale reads, the "
               "first by thread %u at %#lx: %#lx, want %#lx\n",
               tlbb.modes[c->mode].name, rep, (unsigned long)stale, bad_thread,
               (unsigned long)bad_va, (unsigned long)bad_got,
               (unsigned long)bad_want);
    c->stale += stale;
    c->checked += checked;
    this_cpu()->flush.stale_reads += stale;

    /* Map+unmap pairs per second, over the wall time of the block. */
    c->rep_fps[rep] = ops * tsc_khz_or_guess() * 1000 / MAX(wall, (uint64_t)1);
    /* Flushing cycles (initiators and IPI handlers) over thread cycles. */
    c->rep_share[rep] = ratio_milli(c1.flush_cycles - c0.flush_cycles +
                                        c1.handler_cycles - c0.handler_cycles,
                                    MAX(busy, (uint64_t)1));
    c->rep_lat[rep] = (struct lat_summary){ .n = ops };
    tlbb_count_flushes(c, &c0, &c1);
}

/*
 * The fixed churn setting that the boot's own choice is equal to; with
 * flush-adapt live, the one equal to its choice for churn's target
 * count (every other CPU) as the run ends.
 */
static unsigned int choice_mode(void)
{
    bool assist = tlbb.boot_adapt
                      ? flush_adapt_choice(nr_cpus_online - 1) == ADAPT_L0
                      : tlbb.boot_assist;

    for ( unsigned int i = 0; i < nr_churn_modes; i++ )
    {
        const struct mode *m = &tlbb.modes[churn_modes[i]];

        if ( (m->pge < 0 || !!m->pge == tlbb.boot_pge) &&
             !!m->assist == assist )
            return churn_modes[i];
    }
    return NO_MODE;
}

/*
 * How good was the boot's choice on churn?  Without flush-adapt it is
 * one of the fixed settings, so it is as good as that setting: in each
 * round its throughput is the mean of the boot-policy block and its
 * fixed twin's block.  With flush-adapt the boot-policy block chooses
 * per flush and stands alone.  The best setting is the one with the
 * highest median; the figure is the median over rounds of choice over
 * best in the same round (every churn cell runs once per round, back to
 * back).  The twins' own paired ratio is the run's noise (with
 * flush-adapt, noise and adaptation together), printed beside it.
 */
static void churn_summary(char *line, size_t size, size_t *len)
{
    unsigned int cm = choice_mode(), rounds;
    const struct cell *mc = tlbb_find(&wl_churn, tlbb.m_measured, nr_cpus_online, 8);
    const struct cell *twin, *bc = NULL;
    uint64_t choice[8], best = 0, v;
    struct rep_summary r;
    char num[16], noise[16];

    if ( !mc || cm == NO_MODE || !(twin = tlbb_find(&wl_churn, cm, nr_cpus_online, 8)) )
        return;
    rounds = MIN(mc->reps, twin->reps);
    for ( unsigned int i = 0; i < rounds; i++ )
        choice[i] = tlbb.boot_adapt ? mc->rep_fps[i]
                                    : (mc->rep_fps[i] + twin->rep_fps[i]) / 2;
    for ( unsigned int i = 0; i < nr_churn_modes; i++ )
    {
        const struct cell *c = tlbb_find(&wl_churn, churn_modes[i],
                                         nr_cpus_online, 8);

        if ( !c || c->reps < rounds )
            continue;
        if ( c == twin && !tlbb.boot_adapt )
        {
            rep_summarize(choice, rounds, 10, &r);
            v = r.med;
        }
        else
            v = tlbb_med_fps(c);
        if ( v > best )
        {
            best = v;
            bc = c;
        }
    }
    if ( !bc )
        return;
    tlbb_milli(num, sizeof(num),
          bc == twin && !tlbb.boot_adapt
              ? 1000 : paired_ratio_milli(choice, bc->rep_fps, rounds));
    tlbb_milli(noise, sizeof(noise),
          paired_ratio_milli(mc->rep_fps, twin->rep_fps, rounds));
    tlbb_sum_add(line, size, len,
                 " churn_measured_vs_best=%s churn_best=%s "
                 "churn_choice=%s churn_twin_ratio=%s", num,
                      tlbb.modes[bc->mode].name, tlbb.modes[cm].name, noise);
}

/*
 * The grid the measured policy chooses from: global pages on and off (if
 * the CPU has them) by assisted flush off and on (if the L0 offers it).
 */
static void add_churn_modes(void)
{
    static const char *const names[2][3] = {
        { "ipi-pge-off", "ipi-pge-on", "ipi" },
        { "assist-pge-off", "assist-pge-on", "assist" },
    };

    nr_churn_modes = 0;
    for ( int assist = 0; assist <= (hypervisor_ops.flush_tlb ? 1 : 0);
          assist++ )
        for ( int pge = boot_cpu.pge ? 0 : -1; pge <= (boot_cpu.pge ? 1 : -1);
              pge++ )
        {
            const char *name = names[assist][pge < 0 ? 2 : pge];
            unsigned int m = NO_MODE;

            /* The remap modes that are already this setting. */
            if ( !assist && pge == 1 )
                m = tlbb.m_pge_on;
            else if ( !assist && pge == 0 )
                m = tlbb.m_pge_off;
            if ( m == NO_MODE )
                m = tlbb_add_mode(name, -1, assist, pge);
            churn_modes[nr_churn_modes++] = m;
        }
}

/* Churn under every fixed setting, and under the boot's own choice. */
static void churn_plan(const struct profile *pf)
{
    (void)pf;
    add_churn_modes();
    if ( nr_cpus_online < 2 )
        return;
    for ( unsigned int i = 0; i < nr_churn_modes; i++ )
        tlbb_new_cell(&wl_churn, churn_modes[i], nr_cpus_online, 8);
    tlbb_new_cell(&wl_churn, tlbb.m_measured, nr_cpus_online, 8);
}

const struct workload wl_churn = {
    .name = "churn",
    .plan = churn_plan,
    .block = churn_block,
    .summary = churn_summary,
    .throughput = true,
};
