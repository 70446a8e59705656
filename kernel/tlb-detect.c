/* SPDX-License-Identifier: GPL-2.0-only */
/* The stale-TLB detector engine: tagged pages, readers, remappers. */

#include <shimk/aspace.h>
#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <shimk/syscall-abi.h>
#include <shimk/task.h>
#include <shimk/time.h>
#include <shimk/tlb-detect.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include "../user/programs.h"

/*
 * Every slot is a page holding a tag (slot, generation, frame).  A
 * remapper moves a slot to a fresh frame with the next generation,
 * flushes, and only then publishes the generation in the control page.
 * Readers, in ring 3 (user/detect.c) and in the kernel, read the
 * published generation first and the slot after: an older tag, or
 * another slot's, came through a translation the flush should have
 * removed.  User slots live in a task's address space (non-global,
 * flushed through the space's CPU mask); kernel slots live in a window
 * of the shared kernel half, global when PGE is on, so they need
 * FLUSH_TLB_GLOBAL on every CPU.
 *
 * Old frames go straight back to the allocator (after the flush), so
 * they come back as other slots' new frames: a stale translation then
 * shows another slot's tag at once.
 */

#define CONTROL_VA  (USER_ARGS_VA + 0x10000)
#define SLOT_VA     (USER_HEAP_VA + 0x40000000)
#define KWINDOW     (IOREMAP_BASE + (256ull << 30))
/*
 * Readers read burst rounds, then halt pace_us (tlb-detect-burst=,
 * tlb-detect-pace-us=).  Halting lets a flush IPI reach a vCPU without
 * waiting for the host to schedule it; but under Xen in TCG each
 * vCPU exit also empties that vCPU's TLB in QEMU, so there long bursts
 * (or no halting) keep stale entries alive for the negative control.
 */
static unsigned int opt_pace_us = 20;
uint_param("tlb-detect-pace-us", opt_pace_us, 0, 100000);
static unsigned int opt_burst = 128;
uint_param("tlb-detect-burst", opt_burst, 1, 1000000);

struct detect_run
{
    const struct detect_config *cfg;
    struct task *task;
    struct detect_control *ctl;     /* the user slots' control page */
    struct detect_control kctl;     /* the kernel slots' */
    paddr_t ctl_pa;
    paddr_t *user_frame, *kernel_frame;
    volatile uint64_t flushes;      /* checked: reads followed them */
    volatile uint64_t unchecked;    /* no read round came in time */
    volatile bool stop;
    uint64_t start;                 /* TSC, CPU0's */
    uint64_t stall;                 /* TSC: the most a run may go with no
                                       checked flush */
    unsigned int nreaders;          /* user readers */
    volatile unsigned int remappers_running;
    struct detect_reader kreader[NR_CPUS];
};

static DEFINE_SPINLOCK(kwindow_lock);

void detect_write_tag(paddr_t frame, uint64_t slot, uint64_t gen)
{
    struct detect_tag *tag = phys_to_virt(frame);

    tag->magic = DETECT_MAGIC;
    tag->slot = slot;
    tag->gen = gen;
    tag->frame = frame;
}

static paddr_t new_frame(struct detect_run *d)
{
    paddr_t pa = frame_alloc_user();

    if ( !pa )
        panic("tlb detector: out of frames");
    return pa;
}

/* Check one read; the same rule as user/detect.c. */
void detect_check_tag(struct detect_reader *r,
                      const volatile struct detect_tag *tag, uint64_t slot,
                      uint64_t want, bool lazy)
{
    uint64_t magic = tag->magic, s = tag->slot, gen = tag->gen;

    r->reads++;
    if ( magic != DETECT_MAGIC || s != slot || (!lazy && gen < want) )
    {
        if ( !r->stale )
        {
            r->bad_magic = magic;
            r->bad_slot = s;
            r->bad_gen = gen;
            r->want_gen = want;
        }
        r->stale++;
    }
}

static void kernel_reader(void *arg)
{
    struct detect_run *d = arg;
    struct detect_reader *r = &d->kreader[smp_processor_id()];
    bool lazy = d->cfg->mode == DETECT_LAZY;
    unsigned int rounds = 0;

    r->running = 1;
    while ( !READ_ONCE(d->stop) )
    {
        /* User slots, read from ring 0 in the task's space. */
        for ( unsigned int s = 0; s < d->cfg->user_slots; s++ )
            detect_check_tag(r, (const void *)(SLOT_VA + s * PAGE_SIZE), s,
                  READ_ONCE(d->ctl->gen[s]), lazy);
        for ( unsigned int s = 0; s < d->cfg->kernel_slots; s++ )
            detect_check_tag(r, (const void *)(KWINDOW + s * PAGE_SIZE), s,
                  READ_ONCE(d->kctl.gen[s]), false);
        if ( ++rounds % opt_burst )
            continue;
        if ( opt_pace_us )
            thread_sleep_us(opt_pace_us);
        else
            yield();
    }
    r->running = 0;
}

static void remap_user(struct detect_run *d, unsigned int s, uint64_t gen,
                       bool full)
{
    paddr_t pa = new_frame(d), old;
    unsigned int flush;
    int rc;

    detect_write_tag(pa, s, gen);
    if ( d->cfg->mode == DETECT_LAZY )
        flush = 0;
    else
        flush = FLUSH_TLB | (full ? 0 : FLUSH_ORDER(0));
    rc = aspace_remap_flags(d->task->as, SLOT_VA + s * PAGE_SIZE, pa,
                            ORDER_4K, PROT_READ, &old, flush);
    if ( rc )
        panic("tlb detector: remap of slot %u failed: %d", s, rc);
    __atomic_store_n(&d->ctl->gen[s], gen, __ATOMIC_RELEASE);
    if ( d->cfg->mode == DETECT_LAZY )
        frame_free_deferred(old);
    else
        frame_free(old);
}

static void remap_kernel(struct detect_run *d, unsigned int s, uint64_t gen,
                         bool full)
{
    vaddr_t va = KWINDOW + s * PAGE_SIZE;
    paddr_t pa = new_frame(d);
    uint64_t *e;
    uint64_t old;

    detect_write_tag(pa, s, gen);
    spin_lock(&kwindow_lock);
    e = pt_leaf(kernel_root, va, PT_ORDER_4K);
    old = __atomic_exchange_n(e, pa | PTE_P | kernel_pte_nx |
                                     kernel_pte_global,
                              __ATOMIC_SEQ_CST);
    spin_unlock(&kwindow_lock);
    /* Every CPU shares the kernel half, and the entry may be global. */
    flush_area_mask(&cpu_online_mask, (const void *)va,
                    FLUSH_TLB_GLOBAL | (full ? 0 : FLUSH_ORDER(0)));
    __atomic_store_n(&d->kctl.gen[s], gen, __ATOMIC_RELEASE);
    frame_free(old & PTE_ADDR_MASK);
}

/* Slot reads by every reader so far (user readers' via the args page). */
static uint64_t total_reads(struct detect_run *d)
{
    struct detect_args *args = task_args(d->task);
    uint64_t n = 0;
    unsigned int cpu;

    for ( unsigned int i = 0; i < d->nreaders; i++ )
        n += READ_ONCE(args->reader[i].reads);
    for_each_cpu ( cpu, &cpu_online_mask )
        n += READ_ONCE(d->kreader[cpu].reads);
    return n;
}

/*
 * A flush counts as checked once the readers have done a full round of
 * reads after it: wait for that, briefly, before the next remap.
 */
#define CHECK_WAIT_US 20000
static void wait_checked(struct detect_run *d, uint64_t before)
{
    uint64_t want = before + d->cfg->user_slots + d->cfg->kernel_slots;
    uint64_t start = rdtsc(), bound = us_to_cycles(CHECK_WAIT_US);

    while ( total_reads(d) < want )
    {
        if ( rdtsc() - start > bound || READ_ONCE(d->stop) )
        {
            __atomic_fetch_add(&d->unchecked, 1, __ATOMIC_RELAXED);
            return;
        }
        /* With one CPU the readers run here: let them. */
        yield();
        cpu_relax();
    }
    __atomic_fetch_add(&d->flushes, 1, __ATOMIC_RELAXED);
}

/*
 * The remappers end the run themselves at the flush count: the
 * controller on CPU0 sleeps between its looks, and the run's end must
 * not wait for that CPU's timer.  Only the controller reads the time,
 * on its own CPU: a nested L0 need not keep vCPUs' TSCs in step.
 */
static void stop_run(struct detect_run *d)
{
    WRITE_ONCE(d->stop, true);
    __atomic_store_n(&d->ctl->stop, 1, __ATOMIC_RELEASE);
}

static bool run_over(struct detect_run *d)
{
    return READ_ONCE(d->flushes) >= d->cfg->flushes;
}

struct remapper_arg
{
    struct detect_run *d;
    unsigned int index;
};

static void remapper(void *arg)
{
    struct remapper_arg *ra = arg;
    struct detect_run *d = ra->d;
    const struct detect_config *cfg = d->cfg;
    unsigned int n = cfg->user_slots + cfg->kernel_slots;
    uint64_t iter = 0;

    while ( !READ_ONCE(d->stop) )
    {
        /* Slot i belongs to remapper i % remappers: one writer each. */
        for ( unsigned int i = ra->index; i < n && !READ_ONCE(d->stop);
              i += cfg->remappers )
        {
            bool full = cfg->full_every && !(++iter % cfg->full_every);
            uint64_t reads = total_reads(d);

            if ( i < cfg->user_slots )
                remap_user(d, i, d->ctl->gen[i] + 1, full);
            else
            {
                unsigned int s = i - cfg->user_slots;

                remap_kernel(d, s, d->kctl.gen[s] + 1, full);
            }
            wait_checked(d, reads);
            if ( run_over(d) )
                stop_run(d);
            /* Let this CPU's readers run too. */
            if ( !(iter % 16) )
                yield();
        }
    }
    __atomic_fetch_sub(&d->remappers_running, 1, __ATOMIC_RELEASE);
    kfree(ra);
}

static int setup(struct detect_run *d)
{
    const struct detect_config *cfg = d->cfg;
    struct detect_args *args;

    d->task = task_create("detect");
    args = task_args(d->task);
    args->control_va = CONTROL_VA;

    d->ctl_pa = frame_alloc_user();
    d->ctl = phys_to_virt(d->ctl_pa);
    d->ctl->nslots = cfg->user_slots;
    d->ctl->slot_va = SLOT_VA;
    d->ctl->lazy = cfg->mode == DETECT_LAZY;
    d->ctl->pace_us = opt_pace_us;
    d->ctl->burst = opt_burst;
    if ( aspace_map(d->task->as, CONTROL_VA, d->ctl_pa, ORDER_4K, PROT_READ) )
        return -ENOMEM;

    for ( unsigned int s = 0; s < cfg->user_slots; s++ )
    {
        paddr_t pa = new_frame(d);

        detect_write_tag(pa, s, 1);
        d->ctl->gen[s] = 1;
        if ( aspace_map(d->task->as, SLOT_VA + s * PAGE_SIZE, pa, ORDER_4K,
                        PROT_READ) )
            return -ENOMEM;
    }
    for ( unsigned int s = 0; s < cfg->kernel_slots; s++ )
    {
        paddr_t pa = new_frame(d);

        detect_write_tag(pa, s, 1);
        d->kctl.gen[s] = 1;
        if ( pt_map(kernel_root, KWINDOW + s * PAGE_SIZE, pa, PT_ORDER_4K,
                    kernel_pte_nx | kernel_pte_global) )
            return -ENOMEM;
    }
    return 0;
}

static void teardown(struct detect_run *d)
{
    for ( unsigned int s = 0; s < d->cfg->kernel_slots; s++ )
    {
        uint64_t old;

        if ( !pt_unmap(kernel_root, KWINDOW + s * PAGE_SIZE, PT_ORDER_4K,
                       &old) )
            frame_free(old & PTE_ADDR_MASK);
    }
    flush_area_mask(&cpu_online_mask, NULL, FLUSH_TLB_GLOBAL);
    /* The control page and the slots go with the task's space. */
}

int tlb_detect_run(const struct detect_config *cfg, struct detect_result *r)
{
    struct detect_run *d = kzalloc(sizeof(*d));
    struct thread *kreaders[NR_CPUS];
    cpumask_t remap_cpus, reader_cpus;
    unsigned int cpu, nrem = 0, idx = 0;
    uint64_t waited, last, since;
    struct detect_args *args;
    int rc;

    memset(r, 0, sizeof(*r));
    if ( cfg->user_slots > DETECT_SLOTS_MAX ||
         cfg->kernel_slots > DETECT_SLOTS_MAX || !cfg->remappers )
        return -EINVAL;
    d->cfg = cfg;
    d->stall = ms_to_cycles(cfg->max_ms);
    rc = setup(d);
    if ( rc )
        return rc;
    args = task_args(d->task);

    /*
     * Remappers from CPU1 up (CPU0 when alone), readers everywhere else:
     * a remapper sharing its CPU with readers would get a slice in
     * three, and fewer flushes would be checked.
     */
    cpumask_clear(&remap_cpus);
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        if ( cpumask_weight(&remap_cpus) == cfg->remappers )
            break;
        if ( cpu == 0 && nr_cpus_online > 1 )
            continue;
        cpumask_set_cpu(cpu, &remap_cpus);
    }
    if ( cpumask_weight(&remap_cpus) < cfg->remappers )
    {
        teardown(d);
        task_wait(d->task, WAIT_BOUND_MS);
        kfree(d);
        return -EINVAL;
    }
    cpumask_andnot(&reader_cpus, &cpu_online_mask, &remap_cpus);
    if ( cpumask_empty(&reader_cpus) )
        cpumask_copy(&reader_cpus, &cpu_online_mask);

    /* Readers: one user thread and one kernel thread on each such CPU. */
    for_each_cpu ( cpu, &reader_cpus )
    {
        if ( cfg->user_slots && idx < DETECT_READERS_MAX )
            task_spawn(d->task, task_entry_va(user_detect_reader), idx++,
                       cpu);
        d->nreaders = idx;
        kreaders[cpu] = thread_alloc_detached("kreader", kernel_reader, d,
                                              cpu);
        kreaders[cpu]->detached = false;
        kreaders[cpu]->aspace = d->task->as;
        aspace_get(d->task->as);
        thread_start(kreaders[cpu]);
    }
    d->start = rdtsc();
    for_each_cpu ( cpu, &remap_cpus )
    {
        struct remapper_arg *ra = kmalloc(sizeof(*ra));

        ra->d = d;
        ra->index = nrem++;
        __atomic_fetch_add(&d->remappers_running, 1, __ATOMIC_RELAXED);
        thread_create("remapper", remapper, ra, cpu, true);
    }

    /*
     * A slow host only makes the run longer: it ends early only when
     * progress stopped, with no flush checked for max_ms (the runner's
     * own timeout bounds the whole).
     */
    last = 0;
    since = d->start;
    while ( !READ_ONCE(d->stop) && !run_over(d) )
    {
        uint64_t now = rdtsc(), n = READ_ONCE(d->flushes);

        if ( n != last )
        {
            last = n;
            since = now;
        }
        else if ( now - since >= d->stall )
        {
            r->stalled_ms = cycles_to_ns(now - since) / 1000000;
            break;
        }
        thread_sleep_us(1000);
    }
    stop_run(d);
    r->ms = cycles_to_ns(rdtsc() - d->start) / 1000000;

    waited = rdtsc();
    while ( READ_ONCE(d->remappers_running) )
    {
        if ( rdtsc() - waited > ms_to_cycles(WAIT_BOUND_MS) )
        {
            sched_dump();
            panic("tlb detector: %u remappers still running %u ms after "
                  "the stop", d->remappers_running, WAIT_BOUND_MS);
        }
        yield();
    }
    for_each_cpu ( cpu, &reader_cpus )
    {
        if ( thread_join(kreaders[cpu], WAIT_BOUND_MS) )
            panic("tlb detector: kernel reader on CPU%u did not stop", cpu);
    }

    /* User readers exit by themselves; collect before the task goes. */
    waited = rdtsc();
    while ( !READ_ONCE(d->task->done) && cfg->user_slots )
    {
        if ( rdtsc() - waited > ms_to_cycles(WAIT_BOUND_MS) )
        {
            sched_dump();
            panic("tlb detector: the user readers did not exit %u ms after "
                  "the stop", WAIT_BOUND_MS);
        }
        yield();
    }
    r->flushes = d->flushes;
    r->unchecked = d->unchecked;
    for ( unsigned int i = 0; i < idx; i++ )
    {
        struct detect_reader *u = &args->reader[i];

        r->reads_user += u->reads;
        if ( u->stale && !r->stale_user && !r->stale_kernel )
        {
            r->bad_cpu = i;
            r->bad_slot = u->bad_slot;
            r->bad_gen = u->bad_gen;
            r->want_gen = u->want_gen;
        }
        r->stale_user += u->stale;
    }
    for_each_cpu ( cpu, &reader_cpus )
    {
        struct detect_reader *k = &d->kreader[cpu];

        r->reads_kernel += k->reads;
        if ( k->stale && !r->stale_user && !r->stale_kernel )
        {
            r->bad_cpu = cpu;
            r->bad_slot = k->bad_slot;
            r->bad_gen = k->bad_gen;
            r->want_gen = k->want_gen;
            r->bad_kernel_mode = true;
        }
        r->stale_kernel += k->stale;
        this_cpu()->flush.stale_reads += k->stale;
    }
    this_cpu()->flush.stale_reads += r->stale_user;

    teardown(d);
    if ( cfg->user_slots )
        task_wait(d->task, WAIT_BOUND_MS);
    else
    {
        task_kill(d->task);
        task_wait(d->task, WAIT_BOUND_MS);
    }
    kfree(d);
    return 0;
}
