/* SPDX-License-Identifier: GPL-2.0-only */
/* The stale-TLB detector's remappers: change, flush, then publish. */

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
#include <asm/extable.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <user/programs.h>
#include "private.h"

static DEFINE_SPINLOCK(kwindow_lock);

/* The rounds each reader has finished: user readers first. */
static void snapshot_rounds(struct detect_run *d, uint64_t *rounds)
{
    struct detect_args *args = task_args(d->task);
    unsigned int n = 0, cpu;

    for ( unsigned int i = 0; i < d->nreaders; i++ )
        rounds[n++] = READ_ONCE(args->reader[i].rounds);
    for_each_cpu ( cpu, &d->kreader_cpus )
        rounds[n++] = READ_ONCE(d->kreader[cpu].r.rounds);
}

/*
 * A flush counts as checked on a CPU once every reader there has
 * finished a round begun after the publication (the round under way at
 * that moment may have read the slot before it): two more rounds.  It
 * counts as checked once every reader CPU has.  Wait for that, briefly,
 * before the next change.
 */
#define CHECK_WAIT_US 20000
static void wait_checked(struct detect_run *d)
{
    uint64_t start = rdtsc(), bound = us_to_cycles(CHECK_WAIT_US);
    uint64_t want[MAX_READERS], now[MAX_READERS];
    unsigned int n = d->nreaders + cpumask_weight(&d->kreader_cpus);
    bool all = true;
    unsigned int cpu, i;

    snapshot_rounds(d, want);
    for ( i = 0; i < n; i++ )
        want[i] += 2;
    for ( ;; )
    {
        bool done = true;

        snapshot_rounds(d, now);
        for ( i = 0; i < n && done; i++ )
            done = now[i] >= want[i];
        if ( done || rdtsc() - start > bound || READ_ONCE(d->stop) )
            break;
        /* With one CPU the readers run here: let them. */
        yield();
        cpu_relax();
    }

    /* Per CPU: its kernel reader and any user reader on it. */
    i = d->nreaders;
    for_each_cpu ( cpu, &d->reader_cpus )
    {
        bool ok = true;

        if ( cpumask_test_cpu(cpu, &d->kreader_cpus) )
            ok = now[i] >= want[i], i++;
        for ( unsigned int u = 0; u < d->nreaders; u++ )
            if ( d->user_cpu[u] == cpu && now[u] < want[u] )
                ok = false;
        if ( ok )
            __atomic_fetch_add(&d->checked_on[cpu], 1, __ATOMIC_RELAXED);
        else
            all = false;
    }
    __atomic_fetch_add(all ? &d->flushes : &d->unchecked, 1,
                       __ATOMIC_RELAXED);
}

static void count_op(struct detect_run *d, unsigned int op)
{
    unsigned int n = op ? __builtin_ctz(op) + 1 : 0;

    __atomic_fetch_add(&d->ops_done[n], 1, __ATOMIC_RELAXED);
}

static void publish(volatile uint64_t *where, uint64_t v)
{
    __atomic_store_n(where, v, __ATOMIC_RELEASE);
}

/* The frame a lazy remap took for this CPU's next one, else a new one. */
static paddr_t next_frame(struct detect_run *d)
{
    unsigned int cpu = smp_processor_id();
    paddr_t pa = d->spare[cpu];

    if ( !pa )
        return detect_new_frame();
    d->spare[cpu] = 0;
    return pa;
}

static paddr_t remap_user_noflush(struct detect_run *d, unsigned int s)
{
    uint64_t gen = d->ctl->gen[s] + 1;
    paddr_t pa = next_frame(d), old;
    int rc;

    detect_write_tag(pa, s, gen);
    rc = aspace_remap_flags(d->task->as, SLOT_VA + s * PAGE_SIZE, pa,
                            ORDER_4K, PROT_READ, &old, 0);
    if ( rc )
        panic("tlb detector: remap of slot %u failed: %d", s, rc);
    return old;
}

static void remap_user(struct detect_run *d, unsigned int s, bool full)
{
    bool lazy = d->cfg->mode == DETECT_LAZY;
    uint64_t gen = d->ctl->gen[s] + 1;
    paddr_t old = remap_user_noflush(d, s);

    if ( !lazy )
        flush_area_mask(&d->task->as->cpus,
                        (const void *)(SLOT_VA + s * PAGE_SIZE),
                        FLUSH_TLB | (full ? 0 : FLUSH_ORDER(0)));
    publish(&d->ctl->gen[s], gen);
    if ( lazy )
    {
        unsigned int cpu = smp_processor_id();

        frame_free_deferred(old);
        /*
         * Every other lazy remap takes the next one's frame at once,
         * from the head of the dirty list: with one remapper, the frame
         * just freed, which another CPU may still reach through an
         * entry this remap left.  Only the flush the reuse makes
         * (frame_alloc_user()) stands between that entry and the
         * zeroed frame.  Reused only at the next remap, after the
         * readers' rounds, no such entry was ever seen to reach its
         * frame under nested KVM in TCG, though entries lazy remaps
         * left were read up to a million times after them, and no
         * control saw a stale read (docs/flush.md, "Modes").  The other
         * remaps reuse after the wait, where the TLB clock may skip a
         * CPU that flushed in between.
         */
        if ( !d->spare[cpu] && (d->spare_turn[cpu]++ & 1) )
            d->spare[cpu] = detect_new_frame();
    }
    else
        frame_free(old);
    count_op(d, 0);
    wait_checked(d);
}

/* GROUP consecutive slots, then one ranged flush for all of them. */
static void remap_range(struct detect_run *d, unsigned int first,
                        unsigned int n)
{
    paddr_t old[GROUP];

    for ( unsigned int i = 0; i < n; i++ )
        old[i] = remap_user_noflush(d, first + i);
    flush_area_mask(&d->task->as->cpus,
                    (const void *)(SLOT_VA + first * PAGE_SIZE),
                    FLUSH_TLB | FLUSH_ORDER(__builtin_ctz(GROUP)));
    for ( unsigned int i = 0; i < n; i++ )
    {
        publish(&d->ctl->gen[first + i], d->ctl->gen[first + i] + 1);
        frame_free(old[i]);
    }
    count_op(d, DETECT_OP_RANGE);
    wait_checked(d);
}

static void remap_kernel(struct detect_run *d, unsigned int s, bool full)
{
    vaddr_t va = KWINDOW + s * PAGE_SIZE;
    uint64_t gen = d->kctl.gen[s] + 1;
    paddr_t pa = detect_new_frame();
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
    publish(&d->kctl.gen[s], gen);
    frame_free(old & PTE_ADDR_MASK);
    count_op(d, 0);
    wait_checked(d);
}

/*
 * Unmap (the flush is aspace_unmap's own: a ranged one, or for a table
 * slot the barrier that frees the table), publish the generation the
 * next frame will carry, let the readers fault, then map that frame:
 * not present to present needs no flush (SDM Vol. 3A, 4.10.4.3).
 */
static void unmap_slot(struct detect_run *d, struct fault_slot *fs)
{
    uint64_t gen = fs->gen + 1;
    paddr_t old, pa;
    int rc;

    rc = aspace_unmap(d->task->as, fs->va, ORDER_4K, &old);
    if ( rc )
        panic("tlb detector: unmap of slot %#x failed: %d", fs->id, rc);
    publish(&fs->gen, gen);
    frame_free(old);
    count_op(d, fs->table ? DETECT_OP_TABLE : DETECT_OP_UNMAP);
    wait_checked(d);
    pa = detect_new_frame();
    detect_write_tag(pa, fs->id, gen);
    rc = aspace_map(d->task->as, fs->va, pa, ORDER_4K,
                    PROT_READ | PROT_WRITE);
    if ( rc )
        panic("tlb detector: map of slot %#x failed: %d", fs->id, rc);
}

/*
 * A lazy unmap flushes nothing remote and frees the frame deferred;
 * the map that follows must then drop other CPUs' entries for va
 * (aspace_map()), so once the new generation is published every read
 * finds it.  Every other new frame comes from the clean pool, which
 * flushes nothing on allocation, so only the map's flush is tested.
 */
static void lazy_unmap_slot(struct detect_run *d, struct fault_slot *fs)
{
    uint64_t gen = fs->gen + 1;
    paddr_t pa;
    int rc;

    rc = aspace_unmap_lazy(d->task->as, fs->va, ORDER_4K);
    if ( rc )
        panic("tlb detector: lazy unmap of slot %#x failed: %d", fs->id, rc);
    pa = (fs->visits++ & 1) ? frame_alloc() : detect_new_frame();
    if ( !pa )
        panic("tlb detector: out of frames");
    detect_write_tag(pa, fs->id, gen);
    rc = aspace_map(d->task->as, fs->va, pa, ORDER_4K,
                    PROT_READ | PROT_WRITE);
    if ( rc )
        panic("tlb detector: map of slot %#x failed: %d", fs->id, rc);
    publish(&fs->gen, gen);
    count_op(d, DETECT_OP_LAZY);
    wait_checked(d);
}

/*
 * RW to RO, flushed, then published; back to RW only after publishing
 * that it is writable again, so a reader that saw read-only on both
 * sides of its write knows the write should have faulted.
 */
static void protect_slot(struct detect_run *d, struct fault_slot *fs)
{
    int rc = aspace_protect(d->task->as, fs->va, ORDER_4K, PROT_READ);

    if ( rc )
        panic("tlb detector: protect of slot %#x failed: %d", fs->id, rc);
    publish(&fs->wp, fs->wp + 1);
    count_op(d, DETECT_OP_PROTECT);
    wait_checked(d);
    publish(&fs->wp, fs->wp + 1);
    rc = aspace_protect(d->task->as, fs->va, ORDER_4K,
                        PROT_READ | PROT_WRITE);
    if ( rc )
        panic("tlb detector: unprotect of slot %#x failed: %d", fs->id, rc);
}

static void remap_huge(struct detect_run *d)
{
    uint64_t gen = d->ctl->huge_gen + 1;
    paddr_t pa = frame_alloc_2m(), old;
    int rc;

    if ( !pa )
        panic("tlb detector: no 2 MiB frame for the next remap");
    detect_write_tag(pa, DETECT_HUGE_SLOT, gen);
    detect_write_tag(pa + SUPERPAGE_SIZE - PAGE_SIZE, DETECT_HUGE_SLOT, gen);
    rc = aspace_remap_flags(d->task->as, HUGE_VA, pa, ORDER_2M, PROT_READ,
                            &old, FLUSH_TLB | FLUSH_ORDER(ORDER_2M));
    if ( rc )
        panic("tlb detector: remap of the 2 MiB slot failed: %d", rc);
    publish(&d->ctl->huge_gen, gen);
    d->huge_pa = pa;
    frame_free_2m(old);
    count_op(d, DETECT_OP_HUGE);
    wait_checked(d);
}

static void visit(struct detect_run *d, struct item *it, uint64_t *iter)
{
    const struct detect_config *cfg = d->cfg;
    bool odd = it->visits++ & 1;

    switch ( it->kind )
    {
    case ITEM_GROUP:
    {
        unsigned int first = it->index * GROUP;
        unsigned int n = cfg->user_slots - first < GROUP
                             ? cfg->user_slots - first : GROUP;

        if ( (d->ops & DETECT_OP_RANGE) && n == GROUP && odd )
        {
            remap_range(d, first, n);
            break;
        }
        for ( unsigned int i = 0; i < n && !READ_ONCE(d->stop); i++ )
            remap_user(d, first + i,
                       cfg->full_every && !(++*iter % cfg->full_every));
        break;
    }
    case ITEM_KSLOT:
        remap_kernel(d, it->index,
                     cfg->full_every && !(++*iter % cfg->full_every));
        break;
    case ITEM_FAULT:
    {
        static const unsigned int order[] = {
            DETECT_OP_UNMAP, DETECT_OP_PROTECT, DETECT_OP_LAZY,
        };
        struct fault_slot *fs = &d->fslot[it->index];
        unsigned int op = DETECT_OP_UNMAP;

        /* The slot's next change among those asked for, in turn. */
        for ( unsigned int i = 0; i < ARRAY_SIZE(order) && !fs->table; i++ )
        {
            op = order[(it->visits + i) % ARRAY_SIZE(order)];
            if ( d->ops & op )
                break;
        }
        if ( op == DETECT_OP_PROTECT )
            protect_slot(d, fs);
        else if ( op == DETECT_OP_LAZY )
            lazy_unmap_slot(d, fs);
        else
            unmap_slot(d, fs);
        break;
    }
    case ITEM_HUGE:
        remap_huge(d);
        break;
    }
}

/*
 * The remappers end the run themselves at the flush count: the
 * controller on CPU0 sleeps between its looks, and the run's end must
 * not wait for that CPU's timer.  Only the controller reads the time,
 * on its own CPU: a nested L0 need not keep vCPUs' TSCs in step.
 */
void detect_stop_run(struct detect_run *d)
{
    WRITE_ONCE(d->stop, true);
    __atomic_store_n(&d->ctl->stop, 1, __ATOMIC_RELEASE);
}

bool detect_run_over(struct detect_run *d)
{
    uint64_t n = READ_ONCE(d->flushes);

    return n >= d->cfg->flushes ||
           (d->cfg->most_flushes &&
            n + READ_ONCE(d->unchecked) >= d->cfg->most_flushes);
}

void detect_remapper(void *arg)
{
    struct remapper_arg *ra = arg;
    struct detect_run *d = ra->d;
    uint64_t iter = 0, visits = 0;

    while ( !READ_ONCE(d->stop) )
    {
        /* Item i belongs to remapper i % remappers: one writer each. */
        for ( unsigned int i = ra->index; i < d->nitems && !READ_ONCE(d->stop);
              i += d->cfg->place.remappers )
        {
            visit(d, &d->item[i], &iter);
            /* Here, not in the controller: a spinning reader may hold
               the controller's CPU for a whole time slice. */
            if ( detect_run_over(d) ||
                 (d->cfg->stop_after &&
                  detect_total_stale(d) >= d->cfg->stop_after) )
                detect_stop_run(d);
            /* Let this CPU's readers run too. */
            if ( !(++visits % 16) )
                yield();
        }
    }
    __atomic_fetch_sub(&d->remappers_running, 1, __ATOMIC_RELEASE);
    kfree(ra);
}
