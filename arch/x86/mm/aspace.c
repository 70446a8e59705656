/* SPDX-License-Identifier: GPL-2.0-only */
/* Address spaces: page tables per space, flushes aimed at the CPUs using them. */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <shimk/aspace.h>
#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <asm/flush-inject.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

static unsigned int next_aspace_id = 1;

static bool user_range(vaddr_t va, uint64_t size)
{
    return va < USER_TOP && size <= USER_TOP - va && va >= PAGE_SIZE;
}

static uint64_t prot_flags(unsigned int prot)
{
    /* User mappings are never global: their flushes must not need PGE. */
    return PTE_U | (prot & PROT_WRITE ? PTE_W : 0) |
           (prot & PROT_EXEC ? 0 : kernel_pte_nx);
}

struct aspace *aspace_create(void)
{
    struct aspace *as = kzalloc(sizeof(*as));
    uint64_t *root;

    as->root = frame_alloc();
    root = phys_to_virt(as->root);
    /* The kernel half: five shared L3 tables (asm/page.h). */
    memcpy(root + 256, (uint64_t *)phys_to_virt(kernel_root) + 256,
           256 * sizeof(uint64_t));
    as->lock = (spinlock_t)SPINLOCK_INIT("aspace");
    as->refs = 1;
    as->id = __atomic_fetch_add(&next_aspace_id, 1, __ATOMIC_RELAXED);
    return as;
}

void aspace_get(struct aspace *as)
{
    __atomic_fetch_add(&as->refs, 1, __ATOMIC_RELAXED);
}

/* Free every user frame and table under table (level 4..1). */
static void free_level(uint64_t *table, unsigned int level)
{
    for ( unsigned int i = 0; i < (level == 4 ? 256 : PT_ENTRIES); i++ )
    {
        uint64_t e = table[i];

        if ( !(e & PTE_P) )
            continue;
        if ( e & PTE_SOFT_SHARED )
            continue;   /* the user code: kernel image frames */
        if ( level == 1 )
            frame_free(e & PTE_ADDR_MASK);
        else if ( level == 2 && (e & PTE_PS) )
            frame_free_2m(e & PTE_ADDR_MASK & ~(SUPERPAGE_SIZE - 1));
        else
        {
            free_level(phys_to_virt(e & PTE_ADDR_MASK), level - 1);
            frame_free(e & PTE_ADDR_MASK);
        }
    }
}

void aspace_put(struct aspace *as)
{
    unsigned int cpu;

    if ( __atomic_sub_fetch(&as->refs, 1, __ATOMIC_ACQ_REL) )
        return;
    /*
     * The last thread is gone, but CPUs may still hold entries (or
     * walk the tables speculatively) until they load another root.
     */
    if ( !cpumask_empty(&as->cpus) )
        flush_area_mask(&as->cpus, NULL, FLUSH_TLB | FLUSH_NO_ASSIST);
    /*
     * Every CPU that held the root has taken that interrupt, so each
     * loaded another root first.  A CPU still on it would run on a freed
     * frame once it is reused: every translation, the kernel's too,
     * gone, and the next fault a triple fault.  Say so here instead.
     */
    for_each_cpu ( cpu, &cpu_online_mask )
        if ( cpu_infos[cpu]->root == as->root )
            panic("aspace_put: root %#lx is freed while CPU%u still has it "
                  "loaded", (unsigned long)as->root, cpu);
    free_level(phys_to_virt(as->root), 4);
    frame_free(as->root);
    kfree(as);
}

static unsigned int flush_flags(unsigned int order)
{
    /* A 2 MiB page is one TLB entry, but may be cached as 512 4K ones. */
    return FLUSH_TLB | FLUSH_ORDER(order);
}

int aspace_map(struct aspace *as, vaddr_t va, paddr_t pa, unsigned int order,
               unsigned int prot)
{
    cpumask_t targets;
    unsigned int gen;
    bool flush = false;
    int rc;

    if ( (order != ORDER_4K && order != ORDER_2M) ||
         !user_range(va, PAGE_SIZE << order) )
        return -EINVAL;
    spin_lock(&as->lock);
    rc = pt_map(as->root, va, pa, order, prot_flags(prot));
    if ( !rc )
        flush = lazy_map_targets(&as->lazy, &as->cpus, tlb_clock_filter,
                                 &targets, &gen);
    spin_unlock(&as->lock);
    /*
     * Not present to present needs no flush (SDM Vol. 3A, 4.10.4.3):
     * a CPU caches no entry for a not-present PTE.  That holds only if
     * the PTE was cleared with a flush.  After aspace_unmap_lazy(),
     * another CPU may still hold va -> old frame, and the TLB clock
     * does not help: it flushes for the old frame only when that frame
     * is reused, and the allocator flushes for the new frame only CPUs
     * stamped before the new frame's last use.  So the CPUs that may
     * hold any lazily removed entry flush now, before the map can be
     * published.
     *
     * The whole (non-global) TLB, not va alone: the record is per
     * space, not per page, so only a full flush lets the record drop
     * them (later maps take the fast path again until the next lazy
     * unmap); it covers any page size, a 2 MiB map over 4 KiB entries
     * included; and it stamps them, so the allocator then skips them
     * for the lazily freed frames.  User entries are never global.
     */
    if ( !flush || tlb_injected(TLB_INJECT_LAZY_MAP) )
        return rc;
    flush_area_mask(&targets, NULL, FLUSH_TLB);
    spin_lock(&as->lock);
    lazy_map_flushed(&as->lazy, &targets, gen);
    spin_unlock(&as->lock);
    return 0;
}

int aspace_remap_flags(struct aspace *as, vaddr_t va, paddr_t pa,
                       unsigned int order, unsigned int prot, paddr_t *old,
                       unsigned int flush)
{
    uint64_t *e;
    uint64_t pte, flags = prot_flags(prot);
    unsigned int o;
    int rc;

    if ( !user_range(va, PAGE_SIZE << order) ||
         (pa & ((PAGE_SIZE << order) - 1)) )
        return -EINVAL;
    spin_lock(&as->lock);
    rc = pt_lookup(as->root, va, &pte, &o);
    if ( !rc && o != order )
        rc = -EINVAL;
    if ( !rc )
    {
        /* One store: a reader sees the old frame or the new one. */
        e = pt_leaf(as->root, va, order);
        pte = __atomic_exchange_n(e, pa | flags | PTE_P |
                                         (order ? PTE_PS : 0),
                                  __ATOMIC_SEQ_CST);
    }
    spin_unlock(&as->lock);
    if ( rc )
        return rc;
    if ( flush )
        flush_area_mask(&as->cpus, (const void *)va, flush);
    if ( old )
        *old = pte & PTE_ADDR_MASK & ~((PAGE_SIZE << order) - 1);
    return 0;
}

/* Is the L1 table covering va empty?  Then take it out; its address. */
static paddr_t take_empty_table(struct aspace *as, vaddr_t va)
{
    uint64_t *t = phys_to_virt(as->root);
    uint64_t *l2e = NULL;
    const uint64_t *l1;

    for ( unsigned int level = 4; level > 1; level-- )
    {
        uint64_t *e = &t[(va >> (PAGE_SHIFT + 9 * (level - 1))) & 511];

        if ( !(*e & PTE_P) || (*e & PTE_PS) )
            return 0;
        if ( level == 2 )
            l2e = e;
        t = phys_to_virt(*e & PTE_ADDR_MASK);
    }
    l1 = t;
    for ( unsigned int i = 0; i < PT_ENTRIES; i++ )
        if ( l1[i] & PTE_P )
            return 0;
    return __atomic_exchange_n(l2e, 0, __ATOMIC_SEQ_CST) & PTE_ADDR_MASK;
}

int aspace_unmap(struct aspace *as, vaddr_t va, unsigned int order,
                 paddr_t *old)
{
    paddr_t table = 0;
    uint64_t pte;
    int rc;

    if ( !user_range(va, PAGE_SIZE << order) )
        return -EINVAL;
    spin_lock(&as->lock);
    rc = pt_unmap(as->root, va, order, &pte);
    if ( !rc && order == ORDER_4K )
        table = take_empty_table(as, va);
    spin_unlock(&as->lock);
    if ( rc )
        return rc;

    if ( table )
    {
        /*
         * Flush rule 1: an L0 flush would not wait for a CPU walking
         * these tables with interrupts off (aspace_user_range_ok), so
         * freeing them takes IPIs, and covers the page's entry too.
         */
        flush_area_mask(&as->cpus, NULL, FLUSH_TLB | FLUSH_NO_ASSIST);
        frame_free(table);
    }
    else
        flush_area_mask(&as->cpus, (const void *)va, flush_flags(order));
    if ( old )
        *old = pte & PTE_ADDR_MASK & ~((PAGE_SIZE << order) - 1);
    return 0;
}

int aspace_unmap_lazy(struct aspace *as, vaddr_t va, unsigned int order)
{
    uint64_t pte;
    paddr_t base;
    int rc;

    if ( !user_range(va, PAGE_SIZE << order) )
        return -EINVAL;
    spin_lock(&as->lock);
    rc = pt_unmap(as->root, va, order, &pte);
    if ( !rc )
    {
        cpumask_t holders;

        /*
         * This CPU at least stops using it now; the rest wait for the
         * frame's reuse or the next map into the space (aspace_map()).
         * pt_unmap()'s exchange is a full fence: a CPU missing from the
         * mask read below, or stamped after the clock read below,
         * walked the tables only after the PTE was clear.
         */
        cpumask_copy(&holders, &as->cpus);
        if ( aspace_current() == as )
        {
            flush_area_local((const void *)va, flush_flags(order));
            cpumask_clear_cpu(smp_processor_id(), &holders);
        }
        lazy_unmap_note(&as->lazy, &holders, tlbflush_current_time());
    }
    spin_unlock(&as->lock);
    if ( rc )
        return rc;
    base = pte & PTE_ADDR_MASK & ~((PAGE_SIZE << order) - 1);
    for ( unsigned int i = 0; i < (1u << order); i++ )
        frame_free_deferred(base + (paddr_t)i * PAGE_SIZE);
    return 0;
}

int aspace_protect(struct aspace *as, vaddr_t va, unsigned int order,
                   unsigned int prot)
{
    int rc;

    if ( !user_range(va, PAGE_SIZE << order) )
        return -EINVAL;
    spin_lock(&as->lock);
    rc = pt_protect(as->root, va, order, prot_flags(prot),
                    PTE_W | PTE_NX | PTE_U);
    spin_unlock(&as->lock);
    if ( !rc )
        flush_area_mask(&as->cpus, (const void *)va, flush_flags(order));
    return rc;
}

struct aspace *aspace_current(void)
{
    return this_cpu()->aspace;
}

void aspace_switch(struct aspace *as)
{
    struct cpu_info *ci = this_cpu();
    struct aspace *prev = ci->aspace;

    if ( prev == as )
        return;
    /*
     * Set our bit before loading the root, clear the old space's only
     * after: a flusher that misses our bit wrote its PTEs before we
     * could walk them (the bit set is a locked, fencing RMW).
     */
    if ( as )
    {
        /* Not clean once user entries can come: fenced before the load. */
        __atomic_store_n(&ci->tlb_clean, false, __ATOMIC_SEQ_CST);
        cpumask_set_cpu(ci->cpu, &as->cpus);
    }
    switch_cr3(as ? as->root : kernel_root);
    ci->aspace = as;
    if ( prev )
        cpumask_clear_cpu(ci->cpu, &prev->cpus);
    if ( !as )
        __atomic_store_n(&ci->tlb_clean, true, __ATOMIC_RELEASE);
}

bool aspace_user_range_ok(struct aspace *as, vaddr_t va, size_t len,
                          bool write)
{
    vaddr_t end;
    unsigned long f;
    bool ok = true;

    if ( !len )
        return true;
    if ( !user_range(va, len) )
        return false;
    end = va + len;
    f = local_irq_save();
    for ( vaddr_t p = ROUNDDOWN(va, PAGE_SIZE); p < end && ok; )
    {
        uint64_t pte;
        unsigned int order;

        ok = !pt_lookup(as->root, p, &pte, &order) && (pte & PTE_U) &&
             (!write || (pte & PTE_W));
        p = ROUNDDOWN(p, PAGE_SIZE << order) + (PAGE_SIZE << order);
    }
    local_irq_restore(f);
    return ok;
}
