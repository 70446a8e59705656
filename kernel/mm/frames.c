/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's frame pool: placement of the frame table, locking, zeroing. */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/image.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/processor.h>
#include <asm/smp.h>

static struct frame_pool pool;
static DEFINE_SPINLOCK(frames_lock);

/*
 * Deferred frames wait in a FIFO (linked through frame.next), oldest
 * first: the older a stamp, the likelier every CPU has flushed since.
 */
static uint32_t dirty_head = FRAME_NONE, dirty_tail = FRAME_NONE;
static uint32_t nr_dirty;
static struct frame_reuse_stats reuse_stats;

/*
 * Superpage pool: up to SUPER_MAX aligned 2 MiB chunks of RAM, taken
 * out of the 4 KiB pool at boot, one in 16 MiB of RAM at most.
 */
#define SUPER_MAX 8
static paddr_t super_free[SUPER_MAX];
static unsigned int nr_super_free, nr_super;

/* Firmware, real-mode IVT/BDA/EBDA and the AP trampoline live here. */
#define LOW_MEMORY_END 0x100000ull

/*
 * Whether [a, a + alen) and [b, b + blen), both non-empty, meet.  The
 * differences never wrap into a wrong answer, even for a range that
 * reaches the top of the address space.
 */
static bool overlaps(paddr_t a, uint64_t alen, paddr_t b, uint64_t blen)
{
    return a >= b ? a - b < blen : b - a < alen;
}

/* First page-aligned spot of size bytes in boot-mapped RAM, clear of res. */
static paddr_t place_table(const struct boot_info *bi, uint64_t size,
                           const struct phys_range *res, unsigned int nr_res)
{
    for ( unsigned int i = 0; i < bi->nr_mmap; i++ )
    {
        const struct mmap_entry *e = &bi->mmap[i];
        paddr_t lo = ROUNDUP(MAX(e->base, LOW_MEMORY_END), PAGE_SIZE);
        paddr_t hi = MIN(e->base + e->len, (uint64_t)BOOT_MAP_LIMIT);

        if ( e->type != MMAP_RAM )
            continue;
        while ( lo + size <= hi )
        {
            bool clear = true;

            for ( unsigned int r = 0; r < nr_res; r++ )
                if ( overlaps(lo, size, res[r].base, res[r].len) )
                {
                    lo = ROUNDUP(res[r].base + res[r].len, PAGE_SIZE);
                    clear = false;
                    break;
                }
            if ( clear )
                return lo;
        }
    }
    return 0;
}

void frames_init(struct boot_info *bi)
{
    struct phys_range res[BOOT_RESERVED_MAX + 3 + SUPER_MAX];
    unsigned int nr_res = 0;
    uint64_t top = 0, table_size;
    paddr_t table;
    uint32_t added;

    for ( unsigned int i = 0; i < bi->nr_mmap; i++ )
        if ( bi->mmap[i].type == MMAP_RAM )
            top = MAX(top, bi->mmap[i].base + bi->mmap[i].len);
    if ( PFN_DOWN(top) <= PFN_DOWN(LOW_MEMORY_END) )
        panic("memory map has no RAM above 1 MiB (top %#lx)",
              (unsigned long)top);
    if ( PFN_DOWN(top) >= FRAME_NONE )
        panic("RAM up to %#lx is more than the frame table can index",
              (unsigned long)top);

    for ( unsigned int i = 0; i < bi->nr_reserved; i++ )
        res[nr_res++] = bi->reserved[i];
    res[nr_res++] = (struct phys_range){ 0, LOW_MEMORY_END };
    res[nr_res++] = (struct phys_range){
        (paddr_t)__image_start_phys,
        (uint64_t)(__image_end_phys - __image_start_phys) };

    table_size = ROUNDUP(PFN_DOWN(top) * sizeof(struct frame), PAGE_SIZE);
    table = place_table(bi, table_size, res, nr_res);
    if ( !table )
        panic("no room for the %lu KiB frame table below 4 GiB",
              (unsigned long)(table_size >> 10));
    res[nr_res++] = (struct phys_range){ table, table_size };

    /* Superpage chunks come from the top of RAM, clear of the rest. */
    for ( unsigned int i = bi->nr_mmap; i-- > 0 && nr_super < SUPER_MAX; )
    {
        const struct mmap_entry *e = &bi->mmap[i];
        paddr_t lo = ROUNDUP(e->base, SUPERPAGE_SIZE);

        if ( e->type != MMAP_RAM )
            continue;
        for ( paddr_t pa = ROUNDDOWN(e->base + e->len, SUPERPAGE_SIZE);
              pa >= lo + SUPERPAGE_SIZE && nr_super < SUPER_MAX &&
              nr_super < (top >> 24); pa -= SUPERPAGE_SIZE )
        {
            paddr_t c = pa - SUPERPAGE_SIZE;
            bool clear = true;

            for ( unsigned int r = 0; r < nr_res && clear; r++ )
                clear = !overlaps(c, SUPERPAGE_SIZE, res[r].base,
                                  res[r].len);
            if ( !clear )
                continue;
            super_free[nr_super_free++] = c;
            nr_super++;
            res[nr_res++] = (struct phys_range){ c, SUPERPAGE_SIZE };
        }
    }

    frame_pool_init(&pool, phys_to_virt(table), (uint32_t)PFN_DOWN(top));
    added = frame_pool_add_ram(&pool, bi->mmap, bi->nr_mmap, res, nr_res);
    if ( !added )
        panic("memory map leaves no free frames");
    pr_info("mm: %u frames free (%lu KiB), frame table %lu KiB at %#lx, "
            "%u superpages\n", added, (unsigned long)added * 4,
            (unsigned long)(table_size >> 10), (unsigned long)table,
            nr_super);
}

paddr_t frame_try_alloc(void)
{
    unsigned long f = spin_lock_irqsave(&frames_lock);
    uint32_t pfn;
    bool ok = frame_pool_alloc(&pool, &pfn);

    spin_unlock_irqrestore(&frames_lock, f);
    if ( !ok )
        return 0;
    memset(phys_to_virt(PFN_PHYS(pfn)), 0, PAGE_SIZE);
    return PFN_PHYS(pfn);
}

paddr_t frame_alloc(void)
{
    paddr_t pa = frame_try_alloc();

    if ( !pa )
        panic("out of memory: no free frame (%u in use of %u)",
              pool.nr_usable - pool.nr_free, pool.nr_usable);
    return pa;
}

void frame_free(paddr_t pa)
{
    unsigned long f = spin_lock_irqsave(&frames_lock);
    struct frame *fr = frame_info(pa);
    int rc = fr && (fr->flags & FRAME_F_DIRTY) ? -EINVAL :
             frame_pool_free(&pool, (uint32_t)PFN_DOWN(pa));

    spin_unlock_irqrestore(&frames_lock, f);
    if ( rc )
        panic("frame_free(%#lx): not an allocated frame",
              (unsigned long)pa);
}

void frame_free_deferred(paddr_t pa)
{
    uint32_t pfn = (uint32_t)PFN_DOWN(pa);
    unsigned long f = local_irq_save();
    struct frame *fr = frame_info(pa);

    if ( !fr || !(fr->flags & FRAME_F_USABLE) ||
         (fr->flags & (FRAME_F_FREE | FRAME_F_DIRTY)) )
        panic("frame_free_deferred(%#lx): not an allocated frame",
              (unsigned long)pa);
    /* IRQs off: no flush may land between reading the clock and storing. */
    fr->tlbflush_stamp = tlbflush_current_time();
    spin_lock(&frames_lock);
    fr->flags |= FRAME_F_DIRTY;
    fr->next = FRAME_NONE;
    if ( dirty_tail == FRAME_NONE )
        dirty_head = pfn;
    else
        pool.table[dirty_tail].next = pfn;
    dirty_tail = pfn;
    nr_dirty++;
    spin_unlock(&frames_lock);
    local_irq_restore(f);
}

paddr_t frame_alloc_user(void)
{
    return frame_alloc_user_mask(NULL);
}

paddr_t frame_alloc_user_mask(cpumask_t *flushed)
{
    unsigned long f;
    uint32_t pfn, stamp;
    cpumask_t mask;
    struct frame *fr;
    unsigned int skipped, others;

    ASSERT(local_irq_is_enabled());
    f = spin_lock_irqsave(&frames_lock);
    pfn = dirty_head;
    if ( flushed )
        cpumask_clear(flushed);
    if ( pfn == FRAME_NONE )
    {
        spin_unlock_irqrestore(&frames_lock, f);
        return frame_try_alloc();
    }
    fr = &pool.table[pfn];
    dirty_head = fr->next;
    if ( dirty_head == FRAME_NONE )
        dirty_tail = FRAME_NONE;
    nr_dirty--;
    fr->next = FRAME_NONE;
    fr->flags &= ~FRAME_F_DIRTY;
    stamp = fr->tlbflush_stamp;
    spin_unlock_irqrestore(&frames_lock, f);

    /*
     * Any CPU may hold a stale entry for this frame unless it flushed
     * since the frame's last use.  The flush is a barrier for the
     * allocator, as in Xen's page allocator: no L0 assistance.
     */
    cpumask_copy(&mask, &cpu_online_mask);
    others = cpumask_weight(&mask);
    skipped = tlb_clock_filter(&mask, stamp);
    __atomic_fetch_add(&reuse_stats.reused, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&reuse_stats.cpus_considered, others,
                       __ATOMIC_RELAXED);
    __atomic_fetch_add(&reuse_stats.cpus_skipped, skipped, __ATOMIC_RELAXED);
    if ( !cpumask_empty(&mask) )
    {
        __atomic_fetch_add(&reuse_stats.flushes, 1, __ATOMIC_RELAXED);
        flush_area_mask(&mask, NULL, FLUSH_TLB | FLUSH_NO_ASSIST);
    }
    if ( flushed )
        cpumask_copy(flushed, &mask);
    memset(phys_to_virt(PFN_PHYS(pfn)), 0, PAGE_SIZE);
    return PFN_PHYS(pfn);
}

paddr_t frame_alloc_2m(void)
{
    unsigned long f = spin_lock_irqsave(&frames_lock);
    paddr_t pa = nr_super_free ? super_free[--nr_super_free] : 0;

    spin_unlock_irqrestore(&frames_lock, f);
    if ( pa )
        memset(phys_to_virt(pa), 0, SUPERPAGE_SIZE);
    return pa;
}

void frame_free_2m(paddr_t pa)
{
    unsigned long f = spin_lock_irqsave(&frames_lock);

    if ( (pa & (SUPERPAGE_SIZE - 1)) || nr_super_free == nr_super )
        panic("frame_free_2m(%#lx): not an allocated superpage",
              (unsigned long)pa);
    for ( unsigned int i = 0; i < nr_super_free; i++ )
        if ( super_free[i] == pa )
            panic("frame_free_2m(%#lx): already free", (unsigned long)pa);
    super_free[nr_super_free++] = pa;
    spin_unlock_irqrestore(&frames_lock, f);
}

unsigned int frames_2m_free(void)
{
    return READ_ONCE(nr_super_free);
}

uint32_t frames_dirty(void)
{
    return READ_ONCE(nr_dirty);
}

void frames_reuse_stats(struct frame_reuse_stats *s)
{
    s->reused = READ_ONCE(reuse_stats.reused);
    s->cpus_considered = READ_ONCE(reuse_stats.cpus_considered);
    s->cpus_skipped = READ_ONCE(reuse_stats.cpus_skipped);
    s->flushes = READ_ONCE(reuse_stats.flushes);
}

struct frame *frame_info(paddr_t pa)
{
    uint64_t pfn = PFN_DOWN(pa);

    return pfn < pool.nr_frames ? &pool.table[pfn] : NULL;
}

uint32_t frames_free(void)
{
    return READ_ONCE(pool.nr_free);
}
