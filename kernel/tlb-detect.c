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
#include <asm/extable.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include "../user/programs.h"

/*
 * Every slot is a page holding a tag (slot, generation, frame).  A
 * remapper changes a slot's mapping, flushes, and only then publishes
 * the slot's next generation.  Readers, in ring 3 (user/detect.c) and
 * in the kernel, read the published generation first and the slot
 * after: an older tag, or another slot's, came through a translation
 * the flush should have removed.
 *
 * - User slots live in a task's address space (non-global, flushed
 *   through the space's CPU mask), remapped one by one or four at a
 *   time under one ranged flush; kernel slots live in a window of the
 *   shared kernel half, global when PGE is on, so they need
 *   FLUSH_TLB_GLOBAL on every CPU.
 * - Fault slots, read by the kernel readers only (a ring-3 fault would
 *   end a user reader), are unmapped (a read must then fault) or made
 *   read-only (a write must then fault).
 * - Table slots each sit alone in their page table, so unmapping one
 *   frees the table: the kernel readers also walk it in software with
 *   interrupts off, as aspace_user_range_ok() does, and the flush that
 *   frees it must wait for them (FLUSH_NO_ASSIST).
 * - A 2 MiB slot, tagged at both ends, is remapped whole.
 * - Fault slots are also unmapped lazily and mapped again at once: the
 *   map must drop what the lazy unmap left (aspace_map()).
 *
 * Old frames go straight back to the allocator (after the flush), so
 * they come back as other slots' new frames: a stale translation then
 * shows another slot's tag at once.
 */

#define CONTROL_VA  (USER_ARGS_VA + 0x10000)
#define SLOT_VA     (USER_HEAP_VA + 0x40000000)
#define FAULT_VA    (SLOT_VA + 0x400000)            /* one 2 MiB region */
#define TABLE_VA    (SLOT_VA + 0x600000)            /* one region each */
#define HUGE_VA     (SLOT_VA + 0x1000000)
#define KWINDOW     (IOREMAP_BASE + (256ull << 30))
#define FAULT_SLOTS 8
#define TABLE_SLOTS 2
#define FAULT_ID    0x1000u                         /* tags' slot field */
#define TABLE_ID    0x1100u
#define GROUP       4                               /* pages per range */
#define SCRATCH     8                               /* word a write hits */

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
/*
 * At the top burst readers never halt, and never yield either: under
 * Xen a context switch writes MSRs, each write an exit, which empties
 * the TLB there too.  Then each reader CPU gets one reader, kernel or
 * user in turn, rather than two that would share it.
 */
#define SPIN_BURST 1000000
static bool readers_spin(void)
{
    return opt_burst >= SPIN_BURST;
}
/*
 * How long a table walk holds interrupts off between reading the
 * directory entry and the table: the window in which a table freed
 * without waiting for this CPU is read after the free.  Counted in
 * loop turns, not TSC time: under Xen in TCG a RDTSC may exit, and an
 * exit empties the TLB that the other checks need full.
 */
static unsigned int opt_walk_spins = 200;
uint_param("tlb-detect-walk-spins", opt_walk_spins, 0, 10000000);

/* A slot only the kernel readers read: unmapped or write-protected. */
struct fault_slot
{
    vaddr_t va;
    unsigned int id;
    bool table;                     /* alone in its page table */
    volatile uint64_t gen;          /* published */
    volatile uint64_t wp;           /* odd: published read-only */
    uint64_t visits;
};

struct kreader
{
    struct detect_reader r;
    uint64_t by[NR_DETECT_CATCH];
    uint64_t faults, blocked, walks;
    enum detect_catch first;
};

enum item_kind
{
    ITEM_GROUP,                     /* GROUP user slots */
    ITEM_KSLOT,
    ITEM_FAULT,
    ITEM_HUGE,
};

struct item
{
    enum item_kind kind;
    unsigned int index;
    uint64_t visits;
};

#define MAX_ITEMS (DETECT_SLOTS_MAX / GROUP + DETECT_SLOTS_MAX + \
                   FAULT_SLOTS + TABLE_SLOTS + 1)
#define MAX_READERS (DETECT_READERS_MAX + NR_CPUS)

struct detect_run
{
    const struct detect_config *cfg;
    unsigned int ops;               /* cfg->ops less what cannot run */
    struct task *task;
    struct detect_control *ctl;     /* the user slots' control page */
    struct detect_control kctl;     /* the kernel slots' */
    paddr_t ctl_pa;
    paddr_t huge_pa;
    struct fault_slot fslot[FAULT_SLOTS + TABLE_SLOTS];
    unsigned int nfslots;
    struct item item[MAX_ITEMS];
    unsigned int nitems;
    volatile uint64_t flushes;      /* checked: every reader read after */
    volatile uint64_t unchecked;    /* some reader did not, in time */
    volatile uint64_t ops_done[NR_DETECT_OPS];
    volatile uint64_t checked_on[NR_CPUS];
    volatile bool stop;
    uint64_t start;                 /* TSC, CPU0's */
    uint64_t stall;                 /* TSC: the most a run may go with no
                                       checked flush */
    unsigned int nreaders;          /* user readers */
    unsigned int user_cpu[DETECT_READERS_MAX];
    cpumask_t reader_cpus;          /* CPUs with a reader of either kind */
    cpumask_t kreader_cpus;         /* CPUs with a kernel reader */
    volatile unsigned int remappers_running;
    struct kreader kreader[NR_CPUS];
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

static paddr_t new_frame(void)
{
    paddr_t pa = frame_alloc_user();

    if ( !pa )
        panic("tlb detector: out of frames");
    return pa;
}

static void record(struct detect_reader *r, uint64_t magic, uint64_t s,
                   uint64_t gen, uint64_t want)
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

/* Check one read; the same rule as user/detect.c. */
void detect_check_tag(struct detect_reader *r,
                      const volatile struct detect_tag *tag, uint64_t slot,
                      uint64_t want, bool lazy)
{
    uint64_t magic = tag->magic, s = tag->slot, gen = tag->gen;

    r->reads++;
    if ( magic != DETECT_MAGIC || s != slot || (!lazy && gen < want) )
        record(r, magic, s, gen, want);
}

/* Attribute the stale reads since before to what caught them. */
static void caught(struct kreader *k, enum detect_catch c, uint64_t before)
{
    if ( k->r.stale == before )
        return;
    if ( !before )
        k->first = c;
    k->by[c] += k->r.stale - before;
}

/* A load that may fault: false if it did (the fixup skips the store). */
static bool probe_read(const volatile uint64_t *p, uint64_t *v)
{
    uint64_t val = 0;
    unsigned int ok = 0;

    __asm__ __volatile__("1: movq (%2), %0\n"
                         "   movl $1, %1\n"
                         "2:\n"
                         _ASM_EXTABLE(1b, 2b)
                         : "+r"(val), "+r"(ok)
                         : "r"(p)
                         : "memory");
    *v = val;
    return ok;
}

/*
 * A write that may fault and changes nothing: LOCK CMPXCHG always
 * writes (the old value back when the compare fails), so it needs a
 * writable, dirty translation (SDM Vol. 2A, CMPXCHG; Vol. 3A, 4.8), yet
 * a stale entry that reaches a reused frame leaves that frame intact.
 */
static bool probe_write(volatile uint64_t *p)
{
    uint64_t expect = 0;
    unsigned int ok = 0;

    __asm__ __volatile__("1: lock cmpxchgq %3, (%2)\n"
                         "   movl $1, %1\n"
                         "2:\n"
                         _ASM_EXTABLE(1b, 2b)
                         : "+a"(expect), "+r"(ok)
                         : "r"(p), "r"(0ul)
                         : "memory");
    return ok;
}

/*
 * A fault slot: a read that succeeds must find the slot's tag at the
 * published generation or later (an unmap publishes the generation the
 * next frame will have, so the old frame fails it); a write must fault
 * while the slot is published read-only.  The slot may change between
 * the two looks at wp: then the write says nothing.
 */
static void read_fault_slot(struct kreader *k, struct fault_slot *fs)
{
    const volatile uint64_t *p = (const volatile uint64_t *)fs->va;
    uint64_t want = READ_ONCE(fs->gen), w1 = READ_ONCE(fs->wp), w2;
    uint64_t magic, slot, gen, before = k->r.stale;
    bool wrote;

    k->r.reads++;
    if ( !probe_read(&p[0], &magic) || !probe_read(&p[1], &slot) ||
         !probe_read(&p[2], &gen) )
    {
        k->faults++;
        return;
    }
    if ( magic != DETECT_MAGIC || slot != fs->id || gen < want )
    {
        record(&k->r, magic, slot, gen, want);
        caught(k, CATCH_UNMAP, before);
        return;
    }
    /* Also makes a writable, dirty entry for a protect to leave stale. */
    wrote = probe_write((volatile uint64_t *)&p[SCRATCH]);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    w2 = READ_ONCE(fs->wp);
    if ( !(w1 & 1) || w1 != w2 )
        return;
    if ( wrote )
    {
        record(&k->r, magic, slot, w1, w1);
        caught(k, CATCH_PROTECT, before);
    }
    else
        k->blocked++;
}

/*
 * A software walk of a table slot with interrupts off, as a lockless
 * walker does: the table it reads must not be freed under it, since
 * the flush that frees a table waits for this CPU's interrupt.  A leaf
 * must be empty or lead to this slot's tag; a freed table, or one
 * already reused as something else, fails that.
 */
static void walk_table_slot(struct detect_run *d, struct kreader *k,
                            struct fault_slot *fs)
{
    const uint64_t *t = phys_to_virt(d->task->as->root);
    uint64_t e = 0, l2e = 0, before = k->r.stale;
    struct frame *tf, *lf;
    unsigned long f = local_irq_save();
    uint64_t want = READ_ONCE(fs->gen);
    paddr_t table;

    k->walks++;
    for ( unsigned int level = 4; level > 1; level-- )
    {
        l2e = READ_ONCE(t[(fs->va >> (PAGE_SHIFT + 9 * (level - 1))) & 511]);
        if ( !(l2e & PTE_P) || (l2e & PTE_PS) )
            goto out;
        t = phys_to_virt(l2e & PTE_ADDR_MASK);
    }
    table = l2e & PTE_ADDR_MASK;
    for ( volatile unsigned int i = d->cfg->walk_spins ?: opt_walk_spins;
          i; i-- )
        ;
    e = READ_ONCE(t[(fs->va >> PAGE_SHIFT) & 511]);
    tf = frame_info(table);
    if ( !tf || (tf->flags & (FRAME_F_FREE | FRAME_F_DIRTY)) )
        record(&k->r, e, fs->id, 0, want);
    else if ( e )
    {
        const struct detect_tag *tag;

        lf = (e & PTE_P) ? frame_info(e & PTE_ADDR_MASK) : NULL;
        tag = lf ? phys_to_virt(e & PTE_ADDR_MASK) : NULL;
        if ( !tag || tag->magic != DETECT_MAGIC || tag->slot != fs->id ||
             tag->gen < want )
            record(&k->r, e, fs->id, tag ? tag->gen : 0, want);
    }
out:
    local_irq_restore(f);
    caught(k, CATCH_WALK, before);
}

static void kernel_reader(void *arg)
{
    struct detect_run *d = arg;
    struct kreader *k = &d->kreader[smp_processor_id()];
    struct detect_reader *r = &k->r;
    bool lazy = d->cfg->mode == DETECT_LAZY;
    unsigned int rounds = 0;

    r->running = 1;
    while ( !READ_ONCE(d->stop) )
    {
        uint64_t before = r->stale;

        /* User slots, read from ring 0 in the task's space. */
        for ( unsigned int s = 0; s < d->cfg->user_slots; s++ )
            detect_check_tag(r, (const void *)(SLOT_VA + s * PAGE_SIZE), s,
                  READ_ONCE(d->ctl->gen[s]), lazy);
        for ( unsigned int s = 0; s < d->cfg->kernel_slots; s++ )
            detect_check_tag(r, (const void *)(KWINDOW + s * PAGE_SIZE), s,
                  READ_ONCE(d->kctl.gen[s]), false);
        caught(k, CATCH_REMAP, before);
        if ( d->huge_pa )
        {
            uint64_t want = READ_ONCE(d->ctl->huge_gen);

            before = r->stale;
            detect_check_tag(r, (const void *)HUGE_VA, DETECT_HUGE_SLOT,
                             want, false);
            detect_check_tag(r, (const void *)(HUGE_VA + SUPERPAGE_SIZE -
                                               PAGE_SIZE),
                             DETECT_HUGE_SLOT, want, false);
            caught(k, CATCH_HUGE, before);
        }
        for ( unsigned int i = 0; i < d->nfslots; i++ )
        {
            read_fault_slot(k, &d->fslot[i]);
            if ( d->fslot[i].table )
                walk_table_slot(d, k, &d->fslot[i]);
        }
        WRITE_ONCE(r->rounds, r->rounds + 1);
        /* As user/detect.c: halt after a burst, else let the other run. */
        if ( !(++rounds % opt_burst) && opt_pace_us )
            thread_sleep_us(opt_pace_us);
        else if ( !readers_spin() )
            yield();
    }
    r->running = 0;
}

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

static paddr_t remap_user_noflush(struct detect_run *d, unsigned int s)
{
    uint64_t gen = d->ctl->gen[s] + 1;
    paddr_t pa = new_frame(), old;
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
        frame_free_deferred(old);
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
    paddr_t pa = new_frame();
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
    pa = new_frame();
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
    pa = (fs->visits++ & 1) ? frame_alloc() : new_frame();
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

static uint64_t total_stale(struct detect_run *d);

static void remapper(void *arg)
{
    struct remapper_arg *ra = arg;
    struct detect_run *d = ra->d;
    uint64_t iter = 0, visits = 0;

    while ( !READ_ONCE(d->stop) )
    {
        /* Item i belongs to remapper i % remappers: one writer each. */
        for ( unsigned int i = ra->index; i < d->nitems && !READ_ONCE(d->stop);
              i += d->cfg->remappers )
        {
            visit(d, &d->item[i], &iter);
            /* Here, not in the controller: a spinning reader may hold
               the controller's CPU for a whole time slice. */
            if ( run_over(d) ||
                 (d->cfg->stop_on_stale && total_stale(d)) )
                stop_run(d);
            /* Let this CPU's readers run too. */
            if ( !(++visits % 16) )
                yield();
        }
    }
    __atomic_fetch_sub(&d->remappers_running, 1, __ATOMIC_RELEASE);
    kfree(ra);
}

static void add_item(struct detect_run *d, enum item_kind kind,
                     unsigned int index)
{
    d->item[d->nitems++] = (struct item){ .kind = kind, .index = index };
}

static int add_fault_slot(struct detect_run *d, vaddr_t va, unsigned int id,
                          bool table)
{
    struct fault_slot *fs = &d->fslot[d->nfslots];
    paddr_t pa = new_frame();

    *fs = (struct fault_slot){ .va = va, .id = id, .table = table, .gen = 1 };
    detect_write_tag(pa, id, 1);
    if ( aspace_map(d->task->as, va, pa, ORDER_4K, PROT_READ | PROT_WRITE) )
        return -ENOMEM;
    add_item(d, ITEM_FAULT, d->nfslots++);
    return 0;
}

static int setup(struct detect_run *d, struct detect_result *r)
{
    const struct detect_config *cfg = d->cfg;
    struct detect_args *args;

    d->ops = cfg->mode == DETECT_SYNC ? cfg->ops : 0;
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
        paddr_t pa = new_frame();

        detect_write_tag(pa, s, 1);
        d->ctl->gen[s] = 1;
        if ( aspace_map(d->task->as, SLOT_VA + s * PAGE_SIZE, pa, ORDER_4K,
                        PROT_READ) )
            return -ENOMEM;
        if ( !(s % GROUP) )
            add_item(d, ITEM_GROUP, s / GROUP);
    }
    for ( unsigned int s = 0; s < cfg->kernel_slots; s++ )
    {
        paddr_t pa = new_frame();

        detect_write_tag(pa, s, 1);
        d->kctl.gen[s] = 1;
        if ( pt_map(kernel_root, KWINDOW + s * PAGE_SIZE, pa, PT_ORDER_4K,
                    kernel_pte_nx | kernel_pte_global) )
            return -ENOMEM;
        add_item(d, ITEM_KSLOT, s);
    }
    if ( d->ops & (DETECT_OP_UNMAP | DETECT_OP_PROTECT | DETECT_OP_LAZY) )
        for ( unsigned int i = 0; i < FAULT_SLOTS; i++ )
            if ( add_fault_slot(d, FAULT_VA + i * PAGE_SIZE, FAULT_ID + i,
                                false) )
                return -ENOMEM;
    if ( d->ops & DETECT_OP_TABLE )
        for ( unsigned int i = 0; i < TABLE_SLOTS; i++ )
            if ( add_fault_slot(d, TABLE_VA + i * SUPERPAGE_SIZE,
                                TABLE_ID + i, true) )
                return -ENOMEM;
    if ( d->ops & DETECT_OP_HUGE )
    {
        /* One mapped, one for the next remap: two free at a time. */
        if ( frames_2m_free() < 2 )
        {
            d->ops &= ~DETECT_OP_HUGE;
            r->skipped_ops |= DETECT_OP_HUGE;
            r->skip_why = "fewer than two free 2 MiB frames";
        }
        else
        {
            d->huge_pa = frame_alloc_2m();
            detect_write_tag(d->huge_pa, DETECT_HUGE_SLOT, 1);
            detect_write_tag(d->huge_pa + SUPERPAGE_SIZE - PAGE_SIZE,
                             DETECT_HUGE_SLOT, 1);
            d->ctl->huge_gen = 1;
            if ( aspace_map(d->task->as, HUGE_VA, d->huge_pa, ORDER_2M,
                            PROT_READ) )
                return -ENOMEM;
            d->ctl->huge_va = HUGE_VA;
            add_item(d, ITEM_HUGE, 0);
        }
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

static uint64_t total_stale(struct detect_run *d)
{
    struct detect_args *args = task_args(d->task);
    uint64_t n = 0;
    unsigned int cpu;

    for ( unsigned int i = 0; i < d->nreaders; i++ )
        n += READ_ONCE(args->reader[i].stale);
    for_each_cpu ( cpu, &d->kreader_cpus )
        n += READ_ONCE(d->kreader[cpu].r.stale);
    return n;
}

static void first_bad(struct detect_result *r, unsigned int cpu,
                      const struct detect_reader *b, enum detect_catch c,
                      bool kernel)
{
    if ( !b->stale || r->stale_user || r->stale_kernel )
        return;
    r->bad_cpu = cpu;
    r->bad_catch = c;
    r->bad_slot = b->bad_slot;
    r->bad_gen = b->bad_gen;
    r->want_gen = b->want_gen;
    r->bad_kernel_mode = kernel;
}

static void collect(struct detect_run *d, struct detect_result *r)
{
    struct detect_args *args = task_args(d->task);
    unsigned int cpu;

    r->flushes = d->flushes;
    r->unchecked = d->unchecked;
    for ( unsigned int i = 0; i < NR_DETECT_OPS; i++ )
        r->ops[i] = d->ops_done[i];
    cpumask_copy(&r->reader_cpus, &d->reader_cpus);
    for_each_cpu ( cpu, &d->reader_cpus )
        r->checked_on[cpu] = d->checked_on[cpu];
    for ( unsigned int i = 0; i < d->nreaders; i++ )
    {
        struct detect_reader *u = &args->reader[i];
        enum detect_catch c = u->bad_slot == DETECT_HUGE_SLOT ? CATCH_HUGE
                                                              : CATCH_REMAP;

        r->reads_user += u->reads;
        first_bad(r, d->user_cpu[i], u, c, false);
        r->stale_user += u->stale;
        r->stale_by[c] += u->stale;
    }
    for_each_cpu ( cpu, &d->kreader_cpus )
    {
        struct kreader *k = &d->kreader[cpu];

        r->reads_kernel += k->r.reads;
        first_bad(r, cpu, &k->r, k->first, true);
        r->stale_kernel += k->r.stale;
        for ( unsigned int c = 0; c < NR_DETECT_CATCH; c++ )
            r->stale_by[c] += k->by[c];
        r->faults += k->faults;
        r->blocked_writes += k->blocked;
        r->walks += k->walks;
    }
    this_cpu()->flush.stale_reads += r->stale_user + r->stale_kernel;
}

int tlb_detect_run(const struct detect_config *cfg, struct detect_result *r)
{
    struct detect_run *d = kzalloc(sizeof(*d));
    struct thread *kreaders[NR_CPUS];
    cpumask_t remap_cpus;
    unsigned int cpu, nrem = 0, idx = 0, nk = 0;
    uint64_t waited, last, since;
    int rc;

    memset(r, 0, sizeof(*r));
    if ( cfg->user_slots > DETECT_SLOTS_MAX ||
         cfg->kernel_slots > DETECT_SLOTS_MAX || !cfg->remappers )
        return -EINVAL;
    d->cfg = cfg;
    d->stall = ms_to_cycles(cfg->max_ms);
    rc = setup(d, r);
    if ( rc )
        return rc;

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
        task_kill(d->task);
        task_wait(d->task, WAIT_BOUND_MS);
        kfree(d);
        return -EINVAL;
    }
    cpumask_andnot(&d->reader_cpus, &cpu_online_mask, &remap_cpus);
    if ( cpumask_empty(&d->reader_cpus) )
        cpumask_copy(&d->reader_cpus, &cpu_online_mask);

    /*
     * Readers: one user thread and one kernel thread on each such CPU;
     * spinning ones, one of either kind in turn, kernel first (only the
     * kernel readers read the kernel and fault slots).
     */
    for_each_cpu ( cpu, &d->reader_cpus )
    {
        bool spin = readers_spin(), user, kernel;

        user = cfg->user_slots && idx < DETECT_READERS_MAX &&
               (!spin || (nk & 1));
        kernel = !spin || !user;
        nk++;
        if ( user )
        {
            d->user_cpu[idx] = cpu;
            task_spawn(d->task, task_entry_va(user_detect_reader), idx++,
                       cpu);
        }
        d->nreaders = idx;
        if ( !kernel )
            continue;
        cpumask_set_cpu(cpu, &d->kreader_cpus);
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
     * own timeout bounds the whole), or at a stale read when asked.
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
        /*
         * Seldom: each look is a switch on CPU0, a reader's CPU, and
         * under Xen a switch's MSR writes exit, which empties the TLB
         * whose stale entries the readers are there to find.
         */
        thread_sleep_us(50000);
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
    for_each_cpu ( cpu, &d->kreader_cpus )
    {
        if ( thread_join(kreaders[cpu], WAIT_BOUND_MS) )
            panic("tlb detector: kernel reader on CPU%u did not stop", cpu);
    }

    /* User readers exit by themselves; collect before the task goes. */
    waited = rdtsc();
    while ( !READ_ONCE(d->task->done) && d->nreaders )
    {
        if ( rdtsc() - waited > ms_to_cycles(WAIT_BOUND_MS) )
        {
            sched_dump();
            panic("tlb detector: the user readers did not exit %u ms after "
                  "the stop", WAIT_BOUND_MS);
        }
        yield();
    }
    collect(d, r);

    teardown(d);
    if ( d->nreaders )
        task_wait(d->task, WAIT_BOUND_MS);
    else
    {
        task_kill(d->task);
        task_wait(d->task, WAIT_BOUND_MS);
    }
    kfree(d);
    return 0;
}

static const char *const catch_names[NR_DETECT_CATCH] = {
    [CATCH_REMAP] = "remap",
    [CATCH_UNMAP] = "unmap",
    [CATCH_PROTECT] = "protect",
    [CATCH_WALK] = "table-walk",
    [CATCH_HUGE] = "2M",
};

const char *detect_catch_name(enum detect_catch c)
{
    return (unsigned int)c < NR_DETECT_CATCH ? catch_names[c] : "?";
}

void detect_format(char *buf, size_t len, const struct detect_result *r)
{
    size_t n;
    unsigned int cpu;

    n = ksnprintf(buf, len, "changes: %lu remaps, %lu ranged, %lu unmaps "
                  "(%lu reads faulted), %lu protects (%lu writes faulted), "
                  "%lu table frees (%lu walks), %lu 2M, %lu lazy unmaps; "
                  "checked per CPU:",
                  (unsigned long)r->ops[0], (unsigned long)r->ops[1],
                  (unsigned long)r->ops[2], (unsigned long)r->faults,
                  (unsigned long)r->ops[3], (unsigned long)r->blocked_writes,
                  (unsigned long)r->ops[4], (unsigned long)r->walks,
                  (unsigned long)r->ops[5], (unsigned long)r->ops[6]);
    for_each_cpu ( cpu, &r->reader_cpus )
        if ( n < len )
            n += ksnprintf(buf + n, len - n, " %u:%lu", cpu,
                           (unsigned long)r->checked_on[cpu]);
    if ( r->skipped_ops && n < len )
        ksnprintf(buf + n, len - n, "; 2M skipped: %s", r->skip_why);
}
