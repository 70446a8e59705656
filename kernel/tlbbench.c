/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench: flush modes side by side in one boot (docs/tlbbench.md). */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <guest/xen.h>
#include <shimk/aspace.h>
#include <shimk/bench-stats.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/string.h>
#include <shimk/syscall-abi.h>
#include <shimk/task.h>
#include <shimk/time.h>
#include <shimk/tlb-detect.h>
#include <shimk/tlbbench.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/probe.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <asm/tlb-measure.h>
#include "../user/programs.h"

/*
 * Everything here runs in one boot, so every ratio it prints compares
 * modes on the same machine, the same L0 and the same moment: the only
 * comparison worth making (performance-figures.md section 6).  Modes
 * are switched at run time; blocks of each (workload, mode, targets,
 * size) cell run in a shuffled order, each repeated, and a cell reports
 * the median of its repeats with their range.  Nothing prints inside a
 * timed loop.
 */

static char opt_bench[16];
string_param("bench", opt_bench);

const char *bench_selection(void)
{
    return opt_bench;
}

struct profile
{
    const char *name;
    unsigned int reps, flushes, churn_rounds, reuse_frames, calib_iters;
    bool full_size, all_counts;
    unsigned int churn_reps;            /* both reps: at most 8 (struct cell) */
};

/*
 * Churn gets more repeats than the flush cells: the boot's choice is
 * judged against the best of several settings on it, and its blocks
 * spread the most.
 */
static const struct profile profiles[] = {
    { "quick", 3, 60, 150, 64, 48, false, false, 3 },
    { "full", 5, 400, 200, 256, 256, true, true, 7 },
};

/* A way of flushing, switched at run time. */
struct mode
{
    const char *name;
    int8_t shorthand, assist, pge;      /* -1: as booted */
    int8_t invpcid;                     /* -1: as booted */
};

enum { WL_REMAP, WL_GLOBAL, WL_CHURN };
static const char *const wl_names[] = { "remap", "global", "churn" };

struct cell
{
    unsigned int wl, mode, n, pages;    /* pages 0: whole space */
    struct lat_summary rep_lat[8];
    uint64_t rep_fps[8], rep_share[8];
    uint64_t ipis, hc, clk_skip, stale;
    uint64_t checked;                   /* reads whose tag was checked */
    unsigned int reps;
    unsigned int idle;                  /* blocks that did no work */
};

#define MAX_CELLS 64
#define SLOTS 8

static struct cell *cells;
static unsigned int nr_cells;
#define MAX_MODES 12

static struct mode modes[MAX_MODES];
static unsigned int nr_modes, m_unicast, m_allbut, m_assist = ~0u;
static unsigned int m_pge_on = ~0u, m_pge_off = ~0u, m_measured = ~0u;
/* Churn runs under every fixed (global pages, assisted) setting. */
static unsigned int churn_modes[4], nr_churn_modes;
static bool boot_shorthand, boot_assist, boot_pge, boot_invpcid;
static unsigned int m_invpcid_on = ~0u, m_invpcid_off = ~0u;
static char hv_name[16];

/* --- output --- */

static void prefix(char *buf, size_t size)
{
    ksnprintf(buf, size, "TLBB v=1 hv=%s cpus=%u tsc_khz=%lu", hv_name,
              nr_cpus_online, (unsigned long)tsc_khz);
}

static uint64_t ns(uint64_t cycles)
{
    return cycles_to_ns(cycles);
}

/* n.nnn from thousandths. */
static void milli(char *buf, size_t size, uint64_t m)
{
    ksnprintf(buf, size, "%lu.%03lu", (unsigned long)(m / 1000),
              (unsigned long)(m % 1000));
}

/* --- modes --- */

static void apply(const struct mode *m)
{
    ipi_shorthand_enabled = m->shorthand < 0 ? boot_shorthand
                                             : m->shorthand && boot_shorthand;
    if ( m->assist == 1 && !assist_enabled )
    {
        /* An L0 flush leaves no clock stamps: off, for the rest of the boot. */
        tlb_clock_disable();
    }
    assist_enabled = m->assist < 0 ? boot_assist : m->assist == 1;
    if ( m->pge >= 0 && (read_cr4() & X86_CR4_PGE) != (m->pge ? X86_CR4_PGE
                                                              : 0) )
        tlb_set_global_pages(m->pge);
    /* Read by every CPU at each full flush: a plain switch is enough. */
    if ( m->invpcid >= 0 )
        WRITE_ONCE(use_invpcid, m->invpcid && boot_cpu.invpcid);
}

static void restore(void)
{
    ipi_shorthand_enabled = boot_shorthand;
    assist_enabled = boot_assist;
    if ( !!(read_cr4() & X86_CR4_PGE) != boot_pge )
        tlb_set_global_pages(boot_pge);
    WRITE_ONCE(use_invpcid, boot_invpcid);
}

static unsigned int add_mode(const char *name, int sh, int assist, int pge)
{
    BUG_ON(nr_modes == MAX_MODES);
    modes[nr_modes] = (struct mode){ name, (int8_t)sh, (int8_t)assist,
                                     (int8_t)pge, -1 };
    return nr_modes++;
}

/* --- calibration --- */

static void calib_line(const char *prim, uint64_t cyc)
{
    char p[96];

    prefix(p, sizeof(p));
    if ( cyc )
        printk("%s kind=calib prim=%s p50_cyc=%lu p50_ns=%lu\n", p, prim,
               (unsigned long)cyc, (unsigned long)ns(cyc));
    else
        printk("%s kind=calib prim=%s skipped=1\n", p, prim);
}

static uint64_t cal_pge, cal_cr3;

static void calibrate(const struct profile *pf)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1);

    calib_line("invlpg", measure_invlpg(pf->calib_iters));
    cal_cr3 = measure_cr3_reload(pf->calib_iters);
    calib_line("cr3-reload", cal_cr3);
    cal_pge = measure_pge_toggle(pf->calib_iters);
    calib_line("pge-toggle-pair", cal_pge);
    calib_line("invpcid-all", measure_invpcid_all(pf->calib_iters));
    calib_line(hypervisor_type() == HV_KVM ||
                       hypervisor_type() == HV_HYPERV ? "cpuid-exit"
                                                      : "null-hypercall",
               measure_hypercall(pf->calib_iters));
    calib_line("self-ipi", measure_self_ipi(pf->calib_iters));
    calib_line("ipi-round-trip",
               other < NR_CPUS ? measure_ipi_round_trip(other,
                                                        pf->calib_iters)
                               : 0);
    if ( hypervisor_ops.flush_tlb )
    {
        bool was = assist_enabled;

        if ( !was )
            tlb_clock_disable();
        assist_enabled = true;
        calib_line("assisted-flush", measure_assisted_flush(pf->calib_iters));
        assist_enabled = was;
    }
    else
        calib_line("assisted-flush", 0);
}

/* --- remap-now: one CPU remaps tagged pages, n others read them --- */

struct remap_env
{
    struct aspace *as;
    struct detect_reader rd[NR_CPUS];
    uint64_t gen[SLOTS];
    volatile bool stop;
    struct thread *readers[NR_CPUS];
    volatile uint64_t rounds[NR_CPUS];   /* per reader, for a stuck one */
    volatile bool halted[NR_CPUS];
    volatile uint64_t longest_halt[NR_CPUS];    /* cycles */
};

#define SLOT0 (USER_HEAP_VA + 0x20000000)
/* Long enough to free the host CPU, short enough to check assisted blocks. */
#define READER_HALT_US 200

static void remap_reader(void *arg)
{
    struct remap_env *e = arg;
    struct detect_reader *r = &e->rd[smp_processor_id()];

    /*
     * Read every slot, then halt until the next interrupt (a flush IPI)
     * or READER_HALT_US, in the space (thread_halt_us()): the CPU stays
     * a target, its TLB holds the slots, and a halted vCPU does not
     * take the host CPU that the initiator and the other targets need.
     * Spinning readers on more vCPUs than host CPUs measured the host's
     * scheduler tick (4 ms steps), not the flush.
     */
    while ( !READ_ONCE(e->stop) )
    {
        for ( unsigned int s = 0; s < SLOTS; s++ )
            detect_check_tag(r, (const void *)(SLOT0 + s * PAGE_SIZE), s,
                             READ_ONCE(e->gen[s]), false);
        unsigned int me = smp_processor_id();
        uint64_t t0 = rdtsc();

        e->rounds[me]++;
        e->halted[me] = true;
        thread_halt_us(READER_HALT_US, &e->stop);
        e->halted[me] = false;
        t0 = rdtsc() - t0;
        if ( t0 > e->longest_halt[me] )
            e->longest_halt[me] = t0;
    }
}

/* The first n online CPUs other than this one. */
static void targets(cpumask_t *m, unsigned int n)
{
    unsigned int cpu, self = smp_processor_id();

    cpumask_clear(m);
    for_each_cpu ( cpu, &cpu_online_mask )
        if ( cpu != self && n )
        {
            cpumask_set_cpu(cpu, m);
            n--;
        }
}

static void remap_block(struct cell *c, unsigned int flushes, unsigned int rep)
{
    struct remap_env *e = kzalloc(sizeof(*e));
    uint64_t *lat = kmalloc(flushes * sizeof(*lat));
    struct flush_counters c0, c1;
    unsigned int cpu;
    uint64_t start, stale = 0, checked = 0;
    cpumask_t tg;
    bool global = c->wl == WL_GLOBAL;
    unsigned int flags = (global ? FLUSH_TLB_GLOBAL : FLUSH_TLB) |
                         (c->pages ? FLUSH_ORDER(0) : 0);
    const vaddr_t kwin = IOREMAP_BASE + (320ull << 30);

    e->as = aspace_create();
    for ( unsigned int s = 0; s < SLOTS; s++ )
    {
        paddr_t pa = frame_alloc_user();

        detect_write_tag(pa, s, 1);
        e->gen[s] = 1;
        if ( aspace_map(e->as, SLOT0 + s * PAGE_SIZE, pa, ORDER_4K,
                        PROT_READ) )
            panic("tlbbench: cannot map slot %u", s);
        if ( global && pt_map(kernel_root, kwin + s * PAGE_SIZE, pa,
                              PT_ORDER_4K, kernel_pte_nx | kernel_pte_global) )
            panic("tlbbench: cannot map kernel slot %u", s);
    }
    targets(&tg, c->n);
    for_each_cpu ( cpu, &tg )
    {
        struct thread *th = thread_alloc_detached("bench-reader", remap_reader,
                                                  e, cpu);

        th->detached = false;
        th->aspace = e->as;
        aspace_get(e->as);
        e->readers[cpu] = th;
        thread_start(th);
    }
    /* Wait until every reader has the space loaded. */
    start = rdtsc();
    while ( !cpumask_equal(&e->as->cpus, &tg) &&
            rdtsc() - start < ms_to_cycles(WAIT_BOUND_MS) )
        thread_sleep_us(100);

    apply(&modes[c->mode]);
    flush_counters_total(&c0);
    start = rdtsc();
    for ( unsigned int i = 0; i < flushes; i++ )
    {
        unsigned int s = i % SLOTS;
        paddr_t pa = frame_alloc_user(), old;
        vaddr_t va = global ? kwin + s * PAGE_SIZE : SLOT0 + s * PAGE_SIZE;
        const cpumask_t *mask = global ? &cpu_online_mask : &e->as->cpus;
        uint64_t t0;

        detect_write_tag(pa, s, e->gen[s] + 1);
        if ( global )
        {
            uint64_t *pte = pt_leaf(kernel_root, va, PT_ORDER_4K);

            old = __atomic_exchange_n(pte, pa | PTE_P | kernel_pte_nx |
                                               kernel_pte_global,
                                      __ATOMIC_SEQ_CST) & PTE_ADDR_MASK;
            /* The user slot too, so the readers see the change. */
            aspace_remap_flags(e->as, SLOT0 + s * PAGE_SIZE, pa, ORDER_4K,
                               PROT_READ, NULL, 0);
        }
        else
            aspace_remap_flags(e->as, va, pa, ORDER_4K, PROT_READ, &old, 0);
        t0 = rdtsc_ordered();
        flush_area_mask(mask, (const void *)va, flags);
        if ( global )
            flush_area_mask(&e->as->cpus, (const void *)(SLOT0 +
                                                        s * PAGE_SIZE),
                            FLUSH_TLB | FLUSH_ORDER(0));
        lat[i] = rdtsc_ordered() - t0;
        __atomic_store_n(&e->gen[s], e->gen[s] + 1, __ATOMIC_RELEASE);
        frame_free(old);
    }
    c->rep_fps[rep] = (uint64_t)flushes * tsc_khz_or_guess() * 1000 /
                      MAX(rdtsc() - start, (uint64_t)1);
    flush_counters_total(&c1);
    restore();

    WRITE_ONCE(e->stop, true);
    /* Wake halted readers: thread_halt_us() cannot miss this. */
    for_each_cpu ( cpu, &tg )
        send_ipi_cpu(cpu, RESCHEDULE_VECTOR);
    for_each_cpu ( cpu, &tg )
    {
        if ( thread_join(e->readers[cpu], WAIT_BOUND_MS) )
            panic("tlbbench: reader on CPU%u did not stop (%s, %lu rounds, "
                  "%s, running %s, longest halt %lu us)", cpu,
                  modes[c->mode].name, (unsigned long)e->rounds[cpu],
                  e->halted[cpu] ? "halted" : "not halted",
                  sched_running_on(cpu),
                  (unsigned long)(cycles_to_ns(e->longest_halt[cpu]) / 1000));
        /* A timer that fires late leaves a reader blind meanwhile. */
        if ( e->longest_halt[cpu] > ms_to_cycles(1000) )
            pr_warn("tlbbench: reader on CPU%u halted %lu us at once (%s)\n",
                    cpu,
                    (unsigned long)(cycles_to_ns(e->longest_halt[cpu]) /
                                    1000), modes[c->mode].name);
        stale += e->rd[cpu].stale;
        checked += e->rd[cpu].reads;
    }
    lat_summarize(lat, flushes, &c->rep_lat[rep]);
    c->ipis += c1.ipi_targets - c0.ipi_targets;
    c->hc += c1.assisted_ok + c1.assisted_failed + c1.assisted_partial -
             c0.assisted_ok - c0.assisted_failed - c0.assisted_partial;
    c->clk_skip += c1.clock_skips - c0.clock_skips;
    c->stale += stale;
    c->checked += checked;
    this_cpu()->flush.stale_reads += stale;

    if ( global )
    {
        for ( unsigned int s = 0; s < SLOTS; s++ )
        {
            uint64_t old;

            if ( !pt_unmap(kernel_root, kwin + s * PAGE_SIZE, PT_ORDER_4K,
                           &old) )
                (void)old;  /* the same frames as the user slots */
        }
        flush_area_mask(&cpu_online_mask, NULL, FLUSH_TLB_GLOBAL);
    }
    aspace_put(e->as);
    kfree(lat);
    kfree(e);
}

/* --- churn: user threads on every CPU map, touch and unmap --- */

/* The most one churn block may take (its threads stop at this deadline). */
#define CHURN_BLOCK_MS 3000

static void churn_block(struct cell *c, const struct profile *pf,
                        unsigned int rep)
{
    struct task *tk = task_create("churn");
    struct churn_args *a = task_args(tk);
    struct flush_counters c0, c1;
    uint64_t start, wall, ops = 0, busy = 0, stale = 0, checked = 0;
    uint64_t finished, bad_va = 0, bad_got = 0, bad_want = 0;
    unsigned int n = MIN(nr_cpus_online, 16u), idle_threads = 0;
    unsigned int bad_thread = 0;
    int code;

    a->nthreads = n;
    a->rounds = pf->churn_rounds;
    a->pages = 8;
    apply(&modes[c->mode]);
    flush_counters_total(&c0);
    start = rdtsc();
    a->deadline = start + ms_to_cycles(CHURN_BLOCK_MS);
    if ( task_run(tk, user_churn, 0) < 0 )
        panic("tlbbench: churn task did not start");
    while ( !READ_ONCE(tk->done) )
    {
        if ( rdtsc() - start > ms_to_cycles(CHURN_BLOCK_MS + WAIT_BOUND_MS) )
        {
            sched_dump();
            panic("tlbbench: churn block (%s) still running %u ms after "
                  "its deadline: %lu of %u threads finished",
                  modes[c->mode].name, WAIT_BOUND_MS,
                  (unsigned long)a->finished, n);
        }
        thread_sleep_us(500);
    }
    wall = rdtsc() - start;
    flush_counters_total(&c1);
    restore();
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
               modes[c->mode].name, rep, (unsigned long)ops, idle_threads, n,
               (unsigned long)finished, code);
    }
    if ( stale )
        printk("tlbbench: churn (mode %s, round %u): %lu stale reads, the "
               "first by thread %u at %#lx: %#lx, want %#lx\n",
               modes[c->mode].name, rep, (unsigned long)stale, bad_thread,
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
    c->ipis += c1.ipi_targets - c0.ipi_targets;
    c->hc += c1.assisted_ok + c1.assisted_failed + c1.assisted_partial -
             c0.assisted_ok - c0.assisted_failed - c0.assisted_partial;
}

/* An order entry that stands for one block of every churn cell. */
#define CHURN_ROUND (~0u)

static void churn_round(const struct profile *pf, uint64_t *rng)
{
    unsigned int idx[MAX_CELLS], n = 0;

    for ( unsigned int i = 0; i < nr_cells; i++ )
        if ( cells[i].wl == WL_CHURN )
            idx[n++] = i;
    shuffle_indices(idx, n, rng);
    for ( unsigned int i = 0; i < n; i++ )
        churn_block(&cells[idx[i]], pf, cells[idx[i]].reps++);
}

/* --- free-reuse: what the TLB clock skipped, against an oracle --- */

struct reuse_env
{
    struct aspace *as;
    volatile bool stop[2];          /* per group */
    volatile uint64_t stale, checked;
    unsigned int nframes;
};

struct reuse_reader_arg
{
    struct reuse_env *e;
    unsigned int group;
};

#define REUSE_VA (USER_HEAP_VA + 0x30000000)
#define REUSED_MARK 0x7265757365640000ull

static uint64_t reuse_eff_milli, reuse_stale;
static bool reuse_idle;             /* nothing reused, or nothing read */

/*
 * Readers spin on the frames' old addresses: a fault is fine (the
 * mapping is gone from this TLB), the old tag is fine (a stale entry
 * the clock still has to flush at reuse), the reused frame's new data
 * through the old address is a stale read.
 */
static void reuse_reader(void *arg)
{
    struct reuse_reader_arg *a = arg;
    struct reuse_env *e = a->e;
    uint64_t reads = 0;

    while ( !READ_ONCE(e->stop[a->group]) )
        for ( unsigned int i = 0; i < e->nframes; i++ )
        {
            uint64_t v;

            reads++;
            if ( !probe_read_u64((const void *)(REUSE_VA + i * PAGE_SIZE),
                                 &v) && (v & ~0xffffull) == REUSED_MARK )
                __atomic_fetch_add(&e->stale, 1, __ATOMIC_RELAXED);
        }
    __atomic_fetch_add(&e->checked, reads, __ATOMIC_RELAXED);
    kfree(a);
}

static struct thread *start_reuse_reader(struct reuse_env *e, unsigned int cpu,
                                         unsigned int group)
{
    struct reuse_reader_arg *a = kmalloc(sizeof(*a));
    struct thread *th;

    a->e = e;
    a->group = group;
    th = thread_alloc_detached("reuse-reader", reuse_reader, a, cpu);
    th->detached = false;
    th->aspace = e->as;
    aspace_get(e->as);
    thread_start(th);
    return th;
}

static void reuse_run(const struct profile *pf)
{
    unsigned int n = MIN(pf->reuse_frames, 1024u), cpu, k = 0;
    struct reuse_env e = { .nframes = n };
    struct thread *th[NR_CPUS] = { NULL };
    unsigned int group_of[NR_CPUS];
    paddr_t *frames = kmalloc(n * sizeof(*frames));
    cpumask_t *free_mask = kmalloc(n * sizeof(*free_mask));
    uint64_t (*flushed_at)[NR_CPUS] = kmalloc(n * sizeof(*flushed_at));
    uint64_t skipped = 0, skippable = 0, considered = 0, start;
    char p[96], eff[16];

    e.as = aspace_create();
    for ( unsigned int i = 0; i < n; i++ )
    {
        frames[i] = frame_alloc_user();
        *(uint64_t *)phys_to_virt(frames[i]) = i;
        aspace_map(e.as, REUSE_VA + i * PAGE_SIZE, frames[i], ORDER_4K,
                   PROT_READ);
    }
    /*
     * Group 0 keeps reading through the reuse (its CPUs really need a
     * flush); group 1 leaves before it (its CPUs reload CR3 on the way
     * to idle, and need none).
     */
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        if ( cpu == smp_processor_id() )
            continue;
        group_of[cpu] = k++ % 2;
        th[cpu] = start_reuse_reader(&e, cpu, group_of[cpu]);
    }
    start = rdtsc();
    while ( !cpumask_subset(&cpu_online_mask, &e.as->cpus) &&
            cpumask_weight(&e.as->cpus) < nr_cpus_online - 1 &&
            rdtsc() - start < ms_to_cycles(WAIT_BOUND_MS) )
        thread_sleep_us(100);
    thread_sleep_us(2000);

    /* Unmap lazily; the oracle notes who could hold each entry. */
    for ( unsigned int i = 0; i < n; i++ )
    {
        cpumask_copy(&free_mask[i], &e.as->cpus);
        for_each_cpu ( cpu, &cpu_online_mask )
            flushed_at[i][cpu] = READ_ONCE(cpu_infos[cpu]->full_flushes);
        aspace_unmap_lazy(e.as, REUSE_VA + i * PAGE_SIZE, ORDER_4K);
    }
    WRITE_ONCE(e.stop[1], true);
    for_each_cpu ( cpu, &cpu_online_mask )
        if ( th[cpu] && group_of[cpu] == 1 )
        {
            if ( thread_join(th[cpu], WAIT_BOUND_MS) )
                panic("tlbbench: reuse reader on CPU%u did not stop", cpu);
            th[cpu] = NULL;
        }
    thread_sleep_us(2000);

    /* Reuse them: the allocator's clock filter against the oracle. */
    for ( unsigned int got = 0, tries = 0; got < n && tries < 4 * n; tries++ )
    {
        uint64_t before[NR_CPUS];
        cpumask_t flushed;
        paddr_t pa;
        int i = -1;

        /* The oracle looks before the allocator flushes anything. */
        for_each_cpu ( cpu, &cpu_online_mask )
            before[cpu] = READ_ONCE(cpu_infos[cpu]->full_flushes);
        pa = frame_alloc_user_mask(&flushed);

        for ( unsigned int j = 0; j < n && i < 0; j++ )
            if ( frames[j] == pa )
                i = (int)j;
        *(uint64_t *)phys_to_virt(pa) = REUSED_MARK | (tries & 0xffff);
        if ( i < 0 )
        {
            frame_free(pa);
            continue;   /* a clean frame: none of ours is left dirty */
        }
        got++;
        for_each_cpu ( cpu, &cpu_online_mask )
        {
            bool need = cpumask_test_cpu(cpu, &free_mask[i]) &&
                        before[cpu] == flushed_at[i][cpu];

            considered++;
            skippable += !need;
            skipped += !need && !cpumask_test_cpu(cpu, &flushed);
        }
        frames[i] = pa;     /* keep it: freed (clean) at the end */
        frames[i] |= 1;
    }
    thread_sleep_us(2000);
    WRITE_ONCE(e.stop[0], true);
    for_each_cpu ( cpu, &cpu_online_mask )
        if ( th[cpu] && thread_join(th[cpu], WAIT_BOUND_MS) )
            panic("tlbbench: reuse reader on CPU%u did not stop", cpu);
    for ( unsigned int i = 0; i < n; i++ )
        if ( frames[i] & 1 )
            frame_free(frames[i] & ~1ull);
    this_cpu()->flush.stale_reads += e.stale;
    aspace_put(e.as);

    reuse_eff_milli = ratio_milli(skipped, skippable);
    reuse_stale = e.stale;
    /* No frame of ours came back, or no reader read: nothing measured. */
    reuse_idle = !considered || !e.checked;
    prefix(p, sizeof(p));
    milli(eff, sizeof(eff), reuse_eff_milli);
    printk("%s kind=cell wl=reuse mode=%s frames=%u considered=%lu "
           "skippable=%lu skipped=%lu clk_eff=%s checked=%lu stale=%lu\n", p,
           tlb_clock_enabled ? "clock" : "clock-off", n,
           (unsigned long)considered, (unsigned long)skippable,
           (unsigned long)skipped, eff, (unsigned long)e.checked,
           (unsigned long)e.stale);
    if ( reuse_idle )
        printk("tlbbench: free-reuse did no work: %lu of %u frames reused, "
               "%lu reads by the readers\n", (unsigned long)(considered /
                                               MAX(nr_cpus_online, 1u)), n,
               (unsigned long)e.checked);
    kfree(frames);
    kfree(free_mask);
    kfree(flushed_at);
}

/* --- the run --- */

static struct cell *new_cell(unsigned int wl, unsigned int mode,
                             unsigned int n, unsigned int pages)
{
    struct cell *c;

    if ( nr_cells == MAX_CELLS )
        return NULL;
    c = &cells[nr_cells++];
    *c = (struct cell){ .wl = wl, .mode = mode, .n = n, .pages = pages };
    return c;
}

static void plan(const struct profile *pf)
{
    unsigned int others = nr_cpus_online - 1, counts[8], nc = 0;

    if ( others )
    {
        for ( unsigned int n = 1; n < others; n *= 2 )
            if ( pf->all_counts || n == 1 )
                counts[nc++] = n;
        counts[nc++] = others;
    }
    for ( unsigned int i = 0; i < nc; i++ )
        for ( unsigned int size = 0; size < (pf->full_size ? 2u : 1u);
              size++ )
        {
            unsigned int pages = size ? 0 : 1;

            new_cell(WL_REMAP, m_unicast, counts[i], pages);
            if ( counts[i] == others && boot_shorthand )
                new_cell(WL_REMAP, m_allbut, counts[i], pages);
            if ( m_assist != ~0u )
                new_cell(WL_REMAP, m_assist, counts[i], pages);
        }
    /* Global flushes: the PGE toggle (or INVPCID) against CR3 reloads. */
    if ( others && m_pge_on != ~0u )
    {
        new_cell(WL_GLOBAL, m_pge_on, others, 0);
        new_cell(WL_GLOBAL, m_pge_off, others, 0);
    }
    /* INVPCID type 2 against the PGE toggle (or CR3), where present. */
    if ( others && m_invpcid_on != ~0u )
    {
        new_cell(WL_GLOBAL, m_invpcid_on, others, 0);
        new_cell(WL_GLOBAL, m_invpcid_off, others, 0);
    }
    /* Churn under every fixed setting, and under the boot's own choice. */
    if ( others )
    {
        for ( unsigned int i = 0; i < nr_churn_modes; i++ )
            new_cell(WL_CHURN, churn_modes[i], nr_cpus_online, 8);
        new_cell(WL_CHURN, m_measured, nr_cpus_online, 8);
    }
}

/* One line per repeat, printed after all of them ran. */
static void print_blocks(const struct cell *c)
{
    char p[96];

    prefix(p, sizeof(p));
    for ( unsigned int i = 0; i < c->reps; i++ )
    {
        if ( c->wl == WL_CHURN )
            printk("%s kind=block wl=churn mode=%s threads=%u rep=%u "
                   "ops=%lu ops_per_s=%lu flush_share_milli=%lu\n", p,
                   modes[c->mode].name, c->n, i,
                   (unsigned long)c->rep_lat[i].n,
                   (unsigned long)c->rep_fps[i],
                   (unsigned long)c->rep_share[i]);
        else
            printk("%s kind=block wl=%s mode=%s n=%u pages=%s rep=%u "
                   "flushes=%lu p50_cyc=%lu p90_cyc=%lu p99_cyc=%lu "
                   "max_cyc=%lu fps=%lu\n", p, wl_names[c->wl],
                   modes[c->mode].name, c->n, c->pages ? "1" : "full", i,
                   (unsigned long)c->rep_lat[i].n,
                   (unsigned long)c->rep_lat[i].p50,
                   (unsigned long)c->rep_lat[i].p90,
                   (unsigned long)c->rep_lat[i].p99,
                   (unsigned long)c->rep_lat[i].max,
                   (unsigned long)c->rep_fps[i]);
    }
}

static void print_cell(const struct cell *c)
{
    uint64_t p50[8], p90[8], p99[8], mx[8], fps[8], share[8];
    struct rep_summary r50, rfps, rshare;
    char p[96];

    for ( unsigned int i = 0; i < c->reps; i++ )
    {
        p50[i] = c->rep_lat[i].p50;
        p90[i] = c->rep_lat[i].p90;
        p99[i] = c->rep_lat[i].p99;
        mx[i] = c->rep_lat[i].max;
        fps[i] = c->rep_fps[i];
        share[i] = c->rep_share[i];
    }
    rep_summarize(p50, c->reps, 10, &r50);
    rep_summarize(fps, c->reps, 10, &rfps);
    rep_summarize(share, c->reps, 10, &rshare);
    prefix(p, sizeof(p));
    if ( c->wl == WL_CHURN )
    {
        printk("%s kind=cell wl=churn mode=%s threads=%u reps=%u "
               "ops_per_s=%lu ops_per_s_min=%lu ops_per_s_max=%lu "
               "flush_share_milli=%lu ipis=%lu hc=%lu checked=%lu stale=%lu "
               "idle=%u noisy=%d\n", p,
               modes[c->mode].name, c->n, c->reps, (unsigned long)rfps.med,
               (unsigned long)rfps.min, (unsigned long)rfps.max,
               (unsigned long)rshare.med, (unsigned long)c->ipis,
               (unsigned long)c->hc, (unsigned long)c->checked,
               (unsigned long)c->stale, c->idle, rfps.noisy);
        return;
    }
    {
        struct rep_summary r90, r99, rmx;

        rep_summarize(p90, c->reps, 10, &r90);
        rep_summarize(p99, c->reps, 10, &r99);
        rep_summarize(mx, c->reps, 10, &rmx);
        printk("%s kind=cell wl=%s mode=%s n=%u pages=%s reps=%u "
               "p50_cyc=%lu p50_min=%lu p50_max=%lu p90_cyc=%lu p99_cyc=%lu "
               "max_cyc=%lu p50_ns=%lu p90_ns=%lu p99_ns=%lu max_ns=%lu "
               "fps=%lu ipis=%lu hc=%lu clk_skip=%lu checked=%lu stale=%lu "
               "noisy=%d\n",
               p, wl_names[c->wl], modes[c->mode].name, c->n,
               c->pages ? "1" : "full", c->reps, (unsigned long)r50.med,
               (unsigned long)r50.min, (unsigned long)r50.max,
               (unsigned long)r90.med, (unsigned long)r99.med,
               (unsigned long)rmx.med, (unsigned long)ns(r50.med),
               (unsigned long)ns(r90.med), (unsigned long)ns(r99.med),
               (unsigned long)ns(rmx.med), (unsigned long)rfps.med,
               (unsigned long)c->ipis, (unsigned long)c->hc,
               (unsigned long)c->clk_skip, (unsigned long)c->checked,
               (unsigned long)c->stale, r50.noisy);
    }
}

static const struct cell *find(unsigned int wl, unsigned int mode,
                               unsigned int n, unsigned int pages)
{
    for ( unsigned int i = 0; i < nr_cells; i++ )
        if ( cells[i].wl == wl && cells[i].mode == mode && cells[i].n == n &&
             cells[i].pages == pages )
            return &cells[i];
    return NULL;
}

static uint64_t med_p50(const struct cell *c)
{
    uint64_t v[8];
    struct rep_summary r;

    for ( unsigned int i = 0; i < c->reps; i++ )
        v[i] = c->rep_lat[i].p50;
    rep_summarize(v, c->reps, 10, &r);
    return r.med;
}

static uint64_t med_fps(const struct cell *c)
{
    struct rep_summary r;

    rep_summarize(c->rep_fps, c->reps, 10, &r);
    return r.med;
}

/* The fixed churn setting that the boot's own choice is equal to. */
static unsigned int choice_mode(void)
{
    for ( unsigned int i = 0; i < nr_churn_modes; i++ )
    {
        const struct mode *m = &modes[churn_modes[i]];

        if ( (m->pge < 0 || !!m->pge == boot_pge) &&
             !!m->assist == boot_assist )
            return churn_modes[i];
    }
    return ~0u;
}

/*
 * How good was the boot's choice on churn?  It is one of the fixed
 * settings, so it is as good as that setting: in each round its
 * throughput is the mean of the boot-policy block and its fixed twin's
 * block.  The best setting is the one with the highest median; the
 * figure is the median over rounds of choice over best in the same
 * round (every churn cell runs once per round, back to back).  The
 * twins' own paired ratio is the run's noise, printed beside it.
 */
static void churn_summary(char *line, size_t size, size_t *len)
{
    unsigned int cm = choice_mode(), rounds;
    const struct cell *mc = find(WL_CHURN, m_measured, nr_cpus_online, 8);
    const struct cell *twin, *bc = NULL;
    uint64_t choice[8], best = 0, v;
    struct rep_summary r;
    char num[16], noise[16];

    if ( !mc || cm == ~0u || !(twin = find(WL_CHURN, cm, nr_cpus_online, 8)) )
        return;
    rounds = MIN(mc->reps, twin->reps);
    for ( unsigned int i = 0; i < rounds; i++ )
        choice[i] = (mc->rep_fps[i] + twin->rep_fps[i]) / 2;
    for ( unsigned int i = 0; i < nr_churn_modes; i++ )
    {
        const struct cell *c = find(WL_CHURN, churn_modes[i], nr_cpus_online,
                                    8);

        if ( !c || c->reps < rounds )
            continue;
        if ( c == twin )
        {
            rep_summarize(choice, rounds, 10, &r);
            v = r.med;
        }
        else
            v = med_fps(c);
        if ( v > best )
        {
            best = v;
            bc = c;
        }
    }
    if ( !bc )
        return;
    milli(num, sizeof(num),
          bc == twin ? 1000 : paired_ratio_milli(choice, bc->rep_fps, rounds));
    milli(noise, sizeof(noise),
          paired_ratio_milli(mc->rep_fps, twin->rep_fps, rounds));
    *len += ksnprintf(line + *len, size - *len,
                      " churn_measured_vs_best=%s churn_best=%s "
                      "churn_choice=%s churn_twin_ratio=%s", num,
                      modes[bc->mode].name, modes[cm].name, noise);
}

/* The same-run ratios (performance-figures.md section 6). */
static void summary(void)
{
    char line[PRINTK_LINE_MAX - 8], num[24];
    size_t len;
    unsigned int others = nr_cpus_online - 1;
    uint64_t amin = ~0ull, amax = 0, stale = 0;

    len = ksnprintf(line, sizeof(line), "TLBB-SUM v=1 hv=%s cpus=%u", hv_name,
                    nr_cpus_online);
    for ( unsigned int i = 0; i < nr_cells; i++ )
    {
        const struct cell *c = &cells[i], *u;

        stale += c->stale;
        if ( c->wl == WL_REMAP && c->mode == m_assist && c->pages == 1 &&
             (u = find(WL_REMAP, m_unicast, c->n, 1)) )
        {
            milli(num, sizeof(num), ratio_milli(med_p50(c), med_p50(u)));
            len += ksnprintf(line + len, sizeof(line) - len,
                             " assist_vs_unicast_n%u=%s", c->n, num);
            amin = MIN(amin, med_p50(c));
            amax = MAX(amax, med_p50(c));
        }
    }
    if ( amax )
    {
        milli(num, sizeof(num), ratio_milli(amax, amin));
        len += ksnprintf(line + len, sizeof(line) - len, " assist_spread=%s",
                         num);
    }
    if ( boot_shorthand && others )
    {
        const struct cell *a = find(WL_REMAP, m_allbut, others, 1);
        const struct cell *u = find(WL_REMAP, m_unicast, others, 1);

        if ( a && u )
        {
            milli(num, sizeof(num), ratio_milli(med_p50(a), med_p50(u)));
            len += ksnprintf(line + len, sizeof(line) - len,
                             " allbut_vs_unicast=%s", num);
        }
    }
    if ( cal_pge && cal_cr3 )
    {
        milli(num, sizeof(num), ratio_milli(cal_pge, cal_cr3));
        len += ksnprintf(line + len, sizeof(line) - len,
                         " pge_pair_vs_cr3=%s", num);
    }
    if ( reuse_eff_milli || reuse_stale )
    {
        milli(num, sizeof(num), reuse_eff_milli);
        len += ksnprintf(line + len, sizeof(line) - len, " clk_eff=%s", num);
    }
    churn_summary(line, sizeof(line), &len);
    ksnprintf(line + len, sizeof(line) - len, " stale=%lu",
              (unsigned long)(stale + reuse_stale));
    printk("%s\n", line);
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
            unsigned int m = ~0u;

            /* The remap modes that are already this setting. */
            if ( !assist && pge == 1 )
                m = m_pge_on;
            else if ( !assist && pge == 0 )
                m = m_pge_off;
            if ( m == ~0u )
                m = add_mode(name, -1, assist, pge);
            churn_modes[nr_churn_modes++] = m;
        }
}

int tlbbench_run(const char *spec)
{
    const struct profile *pf = NULL;
    unsigned int *order, total = 0, k = 0;
    uint64_t rng = rdtsc();
    uint64_t stale;
    unsigned int idle;

    for ( unsigned int i = 0; i < ARRAY_SIZE(profiles); i++ )
        if ( !strcmp(spec, profiles[i].name) )
            pf = &profiles[i];
    if ( !pf )
    {
        pr_warn("cmdline: bench: unknown profile '%s' (use quick or full)\n",
                spec);
        return EXIT_TEST_FAILED;
    }
    if ( pf->reps > ARRAY_SIZE(cells->rep_fps) ||
         pf->churn_reps > ARRAY_SIZE(cells->rep_fps) )
        panic("tlbbench: profile %s has more repeats than a cell holds",
              pf->name);
    ksnprintf(hv_name, sizeof(hv_name), "%s", hv_type_name(hypervisor_type()));
    boot_shorthand = ipi_shorthand_enabled;
    boot_assist = assist_enabled && hypervisor_ops.flush_tlb;
    boot_pge = read_cr4() & X86_CR4_PGE;
    boot_invpcid = use_invpcid;
    printk("TLBB v=1 hv=%s cpus=%u tsc_khz=%lu kind=start profile=%s "
           "role=%s x2apic=%d pge=%d invpcid=%d assisted=%d clock=%d "
           "clock_bits=%u\n", hv_name, nr_cpus_online,
           (unsigned long)tsc_khz, pf->name,
           hypervisor_type() != HV_XEN ? "guest"
                                       : xen_is_dom0() ? "dom0" : "domU",
           x2apic_enabled, boot_pge,
           use_invpcid, boot_assist, tlb_clock_enabled,
           tlb_clock_mask == 0xffffffffu ? 32 : 0);

    /* Modes this machine has. */
    nr_modes = 0;
    m_unicast = add_mode("ipi-unicast", 0, 0, -1);
    m_allbut = add_mode("ipi-allbut", 1, 0, -1);
    if ( hypervisor_ops.flush_tlb )
        m_assist = add_mode(hypervisor_type() == HV_KVM      ? "assist-kvm"
                            : hypervisor_type() == HV_HYPERV ? "assist-hyperv"
                                                             : "assist-xen",
                            -1, 1, -1);
    if ( boot_cpu.pge )
    {
        m_pge_on = add_mode("ipi-pge-on", -1, 0, 1);
        m_pge_off = add_mode("ipi-pge-off", -1, 0, 0);
    }
    if ( boot_cpu.invpcid )
    {
        m_invpcid_on = add_mode("ipi-invpcid-on", -1, 0, -1);
        modes[m_invpcid_on].invpcid = 1;
        m_invpcid_off = add_mode("ipi-invpcid-off", -1, 0, -1);
        modes[m_invpcid_off].invpcid = 0;
    }
    m_measured = add_mode("boot-policy", -1, -1, -1);
    add_churn_modes();

    cells = kzalloc(MAX_CELLS * sizeof(*cells));
    calibrate(pf);
    /* The clock is still as booted: measure what it skips first. */
    if ( nr_cpus_online > 1 )
        reuse_run(pf);
    plan(pf);

    /*
     * Every repeat of every flush cell, and every churn round, in one
     * shuffled order.  A churn round runs each churn cell once, back to
     * back in an order of its own, so that the settings it compares see
     * the same host.
     */
    order = kmalloc((nr_cells * pf->reps + pf->churn_reps) * sizeof(*order));
    for ( unsigned int i = 0; i < nr_cells; i++ )
        if ( cells[i].wl != WL_CHURN )
            for ( unsigned int r = 0; r < pf->reps; r++ )
                order[total++] = i;
    if ( find(WL_CHURN, m_measured, nr_cpus_online, 8) )
        for ( unsigned int r = 0; r < pf->churn_reps; r++ )
            order[total++] = CHURN_ROUND;
    shuffle_indices(order, total, &rng);
    for ( k = 0; k < total; k++ )
    {
        if ( order[k] == CHURN_ROUND )
        {
            churn_round(pf, &rng);
            continue;
        }
        remap_block(&cells[order[k]], pf->flushes, cells[order[k]].reps++);
    }
    restore();
    for ( unsigned int i = 0; i < nr_cells; i++ )
        print_blocks(&cells[i]);
    for ( unsigned int i = 0; i < nr_cells; i++ )
        print_cell(&cells[i]);
    summary();

    stale = reuse_stale;
    idle = reuse_idle;
    for ( unsigned int i = 0; i < nr_cells; i++ )
    {
        const struct cell *c = &cells[i];

        stale += c->stale;
        /*
         * A cell that read nothing counted no stale reads: its stale=0
         * is no result.  Churn says so per block (above).
         */
        if ( c->idle || !c->checked )
        {
            idle++;
            if ( c->wl == WL_CHURN )
                printk("tlbbench: churn (mode %s) did no work in %u of %u "
                       "rounds, %lu reads checked\n", modes[c->mode].name,
                       c->idle, c->reps, (unsigned long)c->checked);
            else
                printk("tlbbench: %s (mode %s, n=%u, pages=%s) did no work: "
                       "its readers checked no read\n", wl_names[c->wl],
                       modes[c->mode].name, c->n, c->pages ? "1" : "full");
        }
    }
    kfree(order);
    kfree(cells);
    if ( stale )
        pr_warn("tlbbench: %lu stale reads: these figures are invalid\n",
                (unsigned long)stale);
    if ( idle )
        pr_warn("tlbbench: %u workloads did no work: these figures are "
                "incomplete\n", idle);
    if ( stale || idle )
        return EXIT_TEST_FAILED;
    return EXIT_SUCCESS;
}
