/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbbench free-reuse: what the TLB clock skipped, against an oracle. */

#include <shimk/aspace.h>
#include <shimk/cpumask.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/syscall-abi.h>
#include <shimk/task.h>
#include <shimk/time.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/percpu.h>
#include <asm/probe.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <user/programs.h>
#include "workload.h"

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
    bool idle;

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
    tlbb.stale += e.stale;
    /* No frame of ours came back, or no reader read: nothing measured. */
    idle = !considered || !e.checked;
    tlbb.idle += idle;
    tlbb_prefix(p, sizeof(p));
    tlbb_milli(eff, sizeof(eff), reuse_eff_milli);
    printk("%s kind=cell wl=reuse mode=%s frames=%u considered=%lu "
           "skippable=%lu skipped=%lu clk_eff=%s checked=%lu stale=%lu\n", p,
           tlb_clock_enabled ? "clock" : "clock-off", n,
           (unsigned long)considered, (unsigned long)skippable,
           (unsigned long)skipped, eff, (unsigned long)e.checked,
           (unsigned long)e.stale);
    if ( idle )
        printk("tlbbench: free-reuse did no work: %lu of %u frames reused, "
               "%lu reads by the readers\n", (unsigned long)(considered /
                                               MAX(nr_cpus_online, 1u)), n,
               (unsigned long)e.checked);
    kfree(frames);
    kfree(free_mask);
    kfree(flushed_at);
}

/* Needs other CPUs, and the TLB clock as booted: before any block. */
static void reuse_first(const struct profile *pf)
{
    if ( nr_cpus_online > 1 )
        reuse_run(pf);
}

static void reuse_summary(char *line, size_t size, size_t *len)
{
    char num[24];

    if ( !reuse_eff_milli && !reuse_stale )
        return;
    tlbb_milli(num, sizeof(num), reuse_eff_milli);
    tlbb_sum_add(line, size, len, " clk_eff=%s", num);
}

const struct workload wl_reuse = {
    .name = "reuse",
    .first = reuse_first,
    .summary = reuse_summary,
};
