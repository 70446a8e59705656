/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's frame pool: placement of the frame table, locking, zeroing. */

#include <shimk/frame.h>
#include <shimk/image.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <asm/page.h>

static struct frame_pool pool;
static DEFINE_SPINLOCK(frames_lock);

/* Firmware, real-mode IVT/BDA/EBDA and the AP trampoline live here. */
#define LOW_MEMORY_END 0x100000ull

static bool overlaps(paddr_t a, uint64_t alen, paddr_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
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
    struct phys_range res[BOOT_RESERVED_MAX + 3];
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

    frame_pool_init(&pool, phys_to_virt(table), (uint32_t)PFN_DOWN(top));
    added = frame_pool_add_ram(&pool, bi->mmap, bi->nr_mmap, res, nr_res);
    if ( !added )
        panic("memory map leaves no free frames");
    pr_info("mm: %u frames free (%lu KiB), frame table %lu KiB at %#lx\n",
            added, (unsigned long)added * 4,
            (unsigned long)(table_size >> 10), (unsigned long)table);
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
    int rc = frame_pool_free(&pool, (uint32_t)PFN_DOWN(pa));

    spin_unlock_irqrestore(&frames_lock, f);
    if ( rc )
        panic("frame_free(%#lx): not an allocated frame",
              (unsigned long)pa);
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

uint32_t frames_total(void)
{
    return pool.nr_usable;
}
