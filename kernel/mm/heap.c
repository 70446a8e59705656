/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel heap: size-class slabs and page runs in the heap region. */

#include <shimk/frame.h>
#include <shimk/heap.h>
#include <shimk/panic.h>
#include <shimk/spinlock.h>
#include <shimk/string.h>
#include <asm/page.h>
#include <asm/paging.h>

/*
 * The heap is a virtual region (HEAP_BASE) that grows by mapping fresh
 * frames at its top.  Small objects come from one-page slabs of a
 * single power-of-two size class; larger ones from runs of pages.
 * Freed objects are kept for reuse and never unmapped: giving pages
 * back would mean a global TLB shootdown for every free, and shimk's
 * heap holds long-lived kernel structures, not bulk data.
 *
 * A table with one word per heap page records what each page holds,
 * so kfree needs no header and can reject pointers it never gave out.
 */

#define MIN_SHIFT   4           /* 16 bytes */
#define MAX_SHIFT   11          /* 2 KiB */
#define NR_CLASSES  (MAX_SHIFT - MIN_SHIFT + 1)
#define HEAP_PAGES  (CONFIG_HEAP_MAX_MB * 256u)

#define META_FREE   0u
#define META_SLAB   0x10000000u     /* | class */
#define META_RUN    0x20000000u     /* | pages, on the first page */
#define META_TAIL   0x30000000u     /* later pages of a run */
#define META_KIND   0xf0000000u

struct free_obj
{
    struct free_obj *next;
};

struct free_run
{
    struct free_run *next;
    uint32_t pages;
};

static struct free_obj *class_free[NR_CLASSES];
static struct free_run *runs_free;
static uint32_t *meta;
static uint32_t top_page;       /* first never-mapped page */
static struct heap_stats stats;
static DEFINE_SPINLOCK(heap_lock);

static void *page_va(uint32_t page)
{
    return (void *)(HEAP_BASE + ((vaddr_t)page << PAGE_SHIFT));
}

/* Map n fresh pages at the top of the heap; first page index. */
static uint32_t grow(uint32_t n)
{
    uint32_t first = top_page;

    if ( n > HEAP_PAGES - top_page )
        panic("out of memory: the heap's %u MiB region is full",
              CONFIG_HEAP_MAX_MB);
    for ( uint32_t i = 0; i < n; i++ )
    {
        paddr_t pa = frame_try_alloc();
        int rc;

        if ( !pa )
            panic("out of memory: no frame to grow the heap (%lu KiB "
                  "mapped, %u frames free)",
                  (unsigned long)(stats.mapped_bytes >> 10), frames_free());
        rc = pt_map(kernel_root, (vaddr_t)page_va(first + i), pa,
                    PT_ORDER_4K, PTE_W | kernel_pte_nx |
                                     kernel_pte_global);
        if ( rc )
            panic("heap: mapping page %u failed: %d", first + i, rc);
    }
    top_page += n;
    stats.mapped_bytes += (uint64_t)n << PAGE_SHIFT;
    return first;
}

void heap_init(void)
{
    uint32_t meta_pages = ROUNDUP(HEAP_PAGES * sizeof(uint32_t), PAGE_SIZE) /
                          PAGE_SIZE;

    /* The metadata table is the heap's first pages. */
    meta = page_va(grow(meta_pages));
    for ( uint32_t i = 0; i < meta_pages; i++ )
        meta[i] = META_TAIL;
}

static void *alloc_small(unsigned int cls)
{
    struct free_obj *o = class_free[cls];

    if ( !o )
    {
        uint32_t page = grow(1);
        size_t size = (size_t)1 << (cls + MIN_SHIFT);
        char *base = page_va(page);

        meta[page] = META_SLAB | cls;
        for ( size_t off = PAGE_SIZE; off >= size; off -= size )
        {
            struct free_obj *n = (struct free_obj *)(base + off - size);

            n->next = class_free[cls];
            class_free[cls] = n;
        }
        o = class_free[cls];
    }
    class_free[cls] = o->next;
    return o;
}

static void *alloc_run(uint32_t pages)
{
    struct free_run **pp, *r;
    uint32_t page;

    /* First fit; split off the tail of a bigger run. */
    for ( pp = &runs_free; (r = *pp) != NULL; pp = &r->next )
    {
        if ( r->pages < pages )
            continue;
        page = ((vaddr_t)r - HEAP_BASE) >> PAGE_SHIFT;
        if ( r->pages == pages )
            *pp = r->next;
        else
        {
            r->pages -= pages;
            page += r->pages;
        }
        goto found;
    }
    page = grow(pages);
found:
    meta[page] = META_RUN | pages;
    for ( uint32_t i = 1; i < pages; i++ )
        meta[page + i] = META_TAIL;
    return page_va(page);
}

void *kmalloc(size_t size)
{
    unsigned long f;
    void *p;

    if ( size > (size_t)HEAP_PAGES << PAGE_SHIFT )
        panic("kmalloc(%zu): larger than the whole heap", size);

    f = spin_lock_irqsave(&heap_lock);
    if ( size <= (1u << MAX_SHIFT) )
    {
        unsigned int cls = 0;

        while ( ((size_t)1 << (cls + MIN_SHIFT)) < size )
            cls++;
        p = alloc_small(cls);
    }
    else
        p = alloc_run((uint32_t)(ROUNDUP(size, PAGE_SIZE) >> PAGE_SHIFT));
    stats.allocs++;
    spin_unlock_irqrestore(&heap_lock, f);
    return p;
}

void *kzalloc(size_t size)
{
    void *p = kmalloc(size);

    memset(p, 0, size);
    return p;
}

void kfree(void *p)
{
    vaddr_t va = (vaddr_t)p;
    unsigned long f;
    uint32_t page, m;

    if ( !p )
        return;
    page = (va - HEAP_BASE) >> PAGE_SHIFT;
    if ( va < HEAP_BASE || page >= top_page )
        panic("kfree(%p): not a heap address", p);

    f = spin_lock_irqsave(&heap_lock);
    m = meta[page];
    switch ( m & META_KIND )
    {
    case META_SLAB:
    {
        unsigned int cls = m & 0xff;
        size_t size = (size_t)1 << (cls + MIN_SHIFT);
        struct free_obj *o = p;

        if ( va & (size - 1) )
            panic("kfree(%p): not the start of a %zu-byte object", p, size);
        o->next = class_free[cls];
        class_free[cls] = o;
        break;
    }
    case META_RUN:
    {
        struct free_run *r = p;

        if ( va & (PAGE_SIZE - 1) )
            panic("kfree(%p): not the start of a page run", p);
        r->pages = m & 0x0fffffff;
        r->next = runs_free;
        runs_free = r;
        meta[page] = META_FREE;
        break;
    }
    default:
        panic("kfree(%p): not an allocated object (page %u meta %#x)", p,
              page, m);
    }
    stats.frees++;
    spin_unlock_irqrestore(&heap_lock, f);
}

void heap_get_stats(struct heap_stats *s)
{
    unsigned long f = spin_lock_irqsave(&heap_lock);

    *s = stats;
    spin_unlock_irqrestore(&heap_lock, f);
}
