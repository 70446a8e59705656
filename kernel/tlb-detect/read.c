/* SPDX-License-Identifier: GPL-2.0-only */
/* The stale-TLB detector's kernel readers: reads, probes, table walks. */

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

/*
 * Readers read burst rounds, then halt pace_us (tlb-detect-burst=,
 * tlb-detect-pace-us=).  Halting lets a flush IPI reach a vCPU without
 * waiting for the host to schedule it; but under Xen in TCG each
 * vCPU exit also empties that vCPU's TLB in QEMU, so there long bursts
 * (or no halting) keep stale entries alive for the negative control.
 */
unsigned int detect_pace_us = 20;
uint_param("tlb-detect-pace-us", detect_pace_us, 0, 100000);
unsigned int detect_burst = 128;
uint_param("tlb-detect-burst", detect_burst, 1, 1000000);
/*
 * At the top burst readers never halt, and never yield either: under
 * Xen a context switch writes MSRs, each write an exit, which empties
 * the TLB there too.  Then each reader CPU gets one reader, kernel or
 * user in turn, rather than two that would share it.  A run's placement
 * may ask for that whatever the option (detect_place.spin).
 */
bool detect_readers_spin(void)
{
    return detect_burst >= SPIN_BURST;
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
    if ( lazy && magic == DETECT_MAGIC && s == slot && gen < want )
        r->old++;
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

void detect_kernel_reader(void *arg)
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
        if ( !(++rounds % d->burst) && d->pace_us )
            thread_sleep_us(d->pace_us);
        else if ( !d->spin )
            yield();
    }
    r->running = 0;
}
