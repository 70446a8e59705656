/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench remap and global: one CPU remaps tagged pages, n others read. */

#include <shimk/aspace.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/syscall-abi.h>
#include <shimk/task.h>
#include <shimk/time.h>
#include <shimk/tlb-detect.h>
#include <asm/apic.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <user/programs.h>
#include "workload.h"

#define SLOTS 8

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

static void remap_block(struct cell *c, const struct profile *pf,
                        unsigned int rep)
{
    struct remap_env *e = kzalloc(sizeof(*e));
    unsigned int flushes = pf->flushes;
    uint64_t *lat = kmalloc(flushes * sizeof(*lat));
    struct flush_counters c0, c1;
    unsigned int cpu;
    uint64_t start, stale = 0, checked = 0;
    cpumask_t tg;
    bool global = c->wl == &wl_global;
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

    tlbb_apply(&tlbb.modes[c->mode]);
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
    tlbb_restore();

    WRITE_ONCE(e->stop, true);
    /* Wake halted readers: thread_halt_us() cannot miss this. */
    for_each_cpu ( cpu, &tg )
        send_ipi_cpu(cpu, RESCHEDULE_VECTOR);
    for_each_cpu ( cpu, &tg )
    {
        if ( thread_join(e->readers[cpu], WAIT_BOUND_MS) )
            panic("tlbbench: reader on CPU%u did not stop (%s, %lu rounds, "
                  "%s, running %s, longest halt %lu us)", cpu,
                  tlbb.modes[c->mode].name, (unsigned long)e->rounds[cpu],
                  e->halted[cpu] ? "halted" : "not halted",
                  sched_running_on(cpu),
                  (unsigned long)(cycles_to_ns(e->longest_halt[cpu]) / 1000));
        /* A timer that fires late leaves a reader blind meanwhile. */
        if ( e->longest_halt[cpu] > ms_to_cycles(1000) )
            pr_warn("tlbbench: reader on CPU%u halted %lu us at once (%s)\n",
                    cpu,
                    (unsigned long)(cycles_to_ns(e->longest_halt[cpu]) /
                                    1000), tlbb.modes[c->mode].name);
        stale += e->rd[cpu].stale;
        checked += e->rd[cpu].reads;
    }
    lat_summarize(lat, flushes, &c->rep_lat[rep]);
    tlbb_count_flushes(c, &c0, &c1);
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

/* Target counts 1 (quick) or 1, 2, 4, ... (full), and all others. */
static unsigned int target_counts(const struct profile *pf,
                                  unsigned int *counts)
{
    unsigned int others = nr_cpus_online - 1, nc = 0;

    if ( !others )
        return 0;
    for ( unsigned int n = 1; n < others; n *= 2 )
        if ( pf->all_counts || n == 1 )
            counts[nc++] = n;
    counts[nc++] = others;
    return nc;
}

static void remap_plan(const struct profile *pf)
{
    unsigned int others = nr_cpus_online - 1, counts[16];
    unsigned int nc = target_counts(pf, counts);

    for ( unsigned int i = 0; i < nc; i++ )
        for ( unsigned int size = 0; size < (pf->full_size ? 2u : 1u);
              size++ )
        {
            unsigned int pages = size ? 0 : 1;

            tlbb_new_cell(&wl_remap, tlbb.m_unicast, counts[i], pages);
            if ( counts[i] == others && tlbb.boot_shorthand )
                tlbb_new_cell(&wl_remap, tlbb.m_allbut, counts[i], pages);
            if ( tlbb.m_assist != NO_MODE )
                tlbb_new_cell(&wl_remap, tlbb.m_assist, counts[i], pages);
            if ( tlbb.m_event != NO_MODE && pages )
                tlbb_new_cell(&wl_remap, tlbb.m_event, counts[i], pages);
        }
}

/*
 * Global flushes to all other CPUs: the PGE toggle (or INVPCID) against
 * CR3 reloads, and INVPCID type 2 against the PGE toggle, where present.
 */
static void global_plan(const struct profile *pf)
{
    unsigned int others = nr_cpus_online - 1;

    (void)pf;
    if ( !others )
        return;
    if ( tlbb.m_pge_on != NO_MODE )
    {
        tlbb_new_cell(&wl_global, tlbb.m_pge_on, others, 0);
        tlbb_new_cell(&wl_global, tlbb.m_pge_off, others, 0);
    }
    if ( tlbb.m_invpcid_on != NO_MODE )
    {
        tlbb_new_cell(&wl_global, tlbb.m_invpcid_on, others, 0);
        tlbb_new_cell(&wl_global, tlbb.m_invpcid_off, others, 0);
    }
}

/*
 * Assisted over unicast per target count (one page), how flat the
 * assisted flush is across target counts, and ALLBUT over unicast.
 */
static void remap_summary(char *line, size_t size, size_t *len)
{
    unsigned int others = nr_cpus_online - 1;
    uint64_t amin = ~0ull, amax = 0;
    char num[24];

    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
    {
        const struct cell *c = &tlbb.cells[i], *u;

        if ( c->wl != &wl_remap || c->mode != tlbb.m_assist ||
             c->pages != 1 ||
             !(u = tlbb_find(&wl_remap, tlbb.m_unicast, c->n, 1)) )
            continue;
        tlbb_milli(num, sizeof(num),
                   ratio_milli(tlbb_med_p50(c), tlbb_med_p50(u)));
        tlbb_sum_add(line, size, len, " assist_vs_unicast_n%u=%s", c->n, num);
        amin = MIN(amin, tlbb_med_p50(c));
        amax = MAX(amax, tlbb_med_p50(c));
    }
    /* Event-channel IPIs over the APIC's unicast ones. */
    for ( unsigned int i = 0; i < tlbb.nr_cells; i++ )
    {
        const struct cell *c = &tlbb.cells[i], *u;

        if ( c->wl != &wl_remap || c->mode != tlbb.m_event ||
             !(u = tlbb_find(&wl_remap, tlbb.m_unicast, c->n, 1)) )
            continue;
        tlbb_milli(num, sizeof(num),
                   ratio_milli(tlbb_med_p50(c), tlbb_med_p50(u)));
        tlbb_sum_add(line, size, len, " evtchn_vs_apic_n%u=%s", c->n, num);
    }
    if ( amax )
    {
        tlbb_milli(num, sizeof(num), ratio_milli(amax, amin));
        tlbb_sum_add(line, size, len, " assist_spread=%s", num);
    }
    if ( tlbb.boot_shorthand && others )
    {
        const struct cell *a = tlbb_find(&wl_remap, tlbb.m_allbut, others, 1);
        const struct cell *u = tlbb_find(&wl_remap, tlbb.m_unicast, others,
                                         1);

        if ( a && u )
        {
            tlbb_milli(num, sizeof(num),
                       ratio_milli(tlbb_med_p50(a), tlbb_med_p50(u)));
            tlbb_sum_add(line, size, len, " allbut_vs_unicast=%s", num);
        }
    }
}

const struct workload wl_remap = {
    .name = "remap",
    .plan = remap_plan,
    .block = remap_block,
    .summary = remap_summary,
};

const struct workload wl_global = {
    .name = "global",
    .plan = global_plan,
    .block = remap_block,
};
