/* SPDX-License-Identifier: GPL-2.0-only */
/* 4-level page-table walker: map, unmap, protect, look up (SDM Vol. 3A, 4.5). */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <shimk/errno.h>
#include <shimk/frame.h>
#include <asm/page.h>
#include <asm/paging.h>

/*
 * Entries are written with single 64-bit stores (WRITE_ONCE) or locked
 * exchanges: other CPUs may be walking the same tables, and must never
 * see a torn entry.  A change that a remote flush follows is locked (a
 * full fence under x86-TSO), so the flusher's read of the space's mask
 * comes after it.  Locking is the caller's: one writer per address
 * space.
 */

static inline uint64_t *table_of(uint64_t entry)
{
    return phys_to_virt(entry & PTE_ADDR_MASK);
}

static inline unsigned int index_of(vaddr_t va, unsigned int level)
{
    return (va >> (PAGE_SHIFT + 9 * (level - 1))) & (PT_ENTRIES - 1);
}

static bool canonical(vaddr_t va)
{
    return (vaddr_t)((long)(va << 16) >> 16) == va;
}

/* Walk from the root to the table holding level-`level` entries. */
static uint64_t *walk(paddr_t root, vaddr_t va, unsigned int level,
                      bool create)
{
    uint64_t *table = phys_to_virt(root);

    for ( unsigned int l = 4; l > level; l-- )
    {
        uint64_t *e = &table[index_of(va, l)];
        uint64_t v = READ_ONCE(*e);

        if ( !(v & PTE_P) )
        {
            paddr_t t;

            if ( !create )
                return NULL;
            t = frame_try_alloc();
            if ( !t )
                return NULL;
            v = t | PTE_P | PTE_W | (va < USER_TOP ? PTE_U : 0);
            WRITE_ONCE(*e, v);
        }
        else if ( v & PTE_PS )
            return NULL;    /* a superpage is in the way */
        table = table_of(v);
    }
    return table;
}

static unsigned int order_level(unsigned int order)
{
    return order == PT_ORDER_2M ? 2 : 1;
}

int pt_map(paddr_t root, vaddr_t va, paddr_t pa, unsigned int order,
           uint64_t flags)
{
    uint64_t size = PAGE_SIZE << order, *table, *e;
    unsigned int level = order_level(order);

    if ( (order != PT_ORDER_4K && order != PT_ORDER_2M) || !canonical(va) ||
         (va & (size - 1)) || (pa & (size - 1)) )
        return -EINVAL;

    table = walk(root, va, level, true);
    if ( !table )
    {
        /* Either no memory for a table, or a superpage covers va. */
        uint64_t pte;
        unsigned int o;

        return pt_lookup(root, va, &pte, &o) ? -ENOMEM : -EEXIST;
    }
    e = &table[index_of(va, level)];
    if ( READ_ONCE(*e) & PTE_P )
        return -EEXIST;
    WRITE_ONCE(*e, pa | flags | PTE_P | (level == 2 ? PTE_PS : 0));
    return 0;
}

uint64_t *pt_leaf(paddr_t root, vaddr_t va, unsigned int order)
{
    unsigned int level = order_level(order);
    uint64_t *table, v;

    if ( !canonical(va) || (va & ((PAGE_SIZE << order) - 1)) )
        return NULL;
    table = walk(root, va, level, false);
    if ( !table )
        return NULL;
    v = READ_ONCE(table[index_of(va, level)]);
    if ( !(v & PTE_P) || (level == 2 && !(v & PTE_PS)) )
        return NULL;
    return &table[index_of(va, level)];
}

int pt_unmap(paddr_t root, vaddr_t va, unsigned int order, uint64_t *old)
{
    uint64_t *e = pt_leaf(root, va, order);
    uint64_t v;

    if ( !e )
        return -ENOENT;
    v = __atomic_exchange_n(e, 0, __ATOMIC_SEQ_CST);
    if ( old )
        *old = v;
    return 0;
}

int pt_protect(paddr_t root, vaddr_t va, unsigned int order, uint64_t set,
               uint64_t clear)
{
    uint64_t *e = pt_leaf(root, va, order), v;

    if ( !e )
        return -ENOENT;
    v = READ_ONCE(*e);
    /*
     * A locked compare-and-swap, not a plain store, for two reasons.
     * The hardware sets A and D in this entry behind our back (SDM Vol.
     * 3A, 4.8), and a plain read-modify-write could drop a D bit set in
     * between.  And the caller's flush next reads the space's CPU mask:
     * under x86-TSO a plain store could still sit in the store buffer
     * while that read misses a CPU that has just set its bit and walks
     * the old entry (tests/model/tso.pml, LITMUS 1, which shows it; the
     * CPU's own INVLPG drains the buffer only when it is in the space).
     */
    while ( !__atomic_compare_exchange_n(e, &v, (v & ~clear) | set, false,
                                         __ATOMIC_SEQ_CST, __ATOMIC_RELAXED) )
        ;
    return 0;
}

int pt_split(paddr_t root, vaddr_t va)
{
    uint64_t *table = walk(root, va, 2, false), *l1, v, base;
    paddr_t t;

    if ( !table )
        return -ENOENT;
    v = READ_ONCE(table[index_of(va, 2)]);
    if ( !(v & PTE_P) )
        return -ENOENT;
    if ( !(v & PTE_PS) )
        return 0;
    t = frame_try_alloc();
    if ( !t )
        return -ENOMEM;
    /*
     * The same frames with the same bits, PS dropped.  A 2 MiB entry's
     * bit 12 would be PAT, which shimk never sets, so the address mask
     * takes only the frame.
     */
    base = v & PTE_ADDR_MASK & ~(SUPERPAGE_SIZE - 1);
    l1 = phys_to_virt(t);
    for ( unsigned int i = 0; i < PT_ENTRIES; i++ )
        l1[i] = base + i * PAGE_SIZE + (v & ~PTE_ADDR_MASK & ~PTE_PS);
    WRITE_ONCE(table[index_of(va, 2)],
               t | PTE_P | PTE_W | (va < USER_TOP ? PTE_U : 0));
    return 0;
}

int pt_lookup(paddr_t root, vaddr_t va, uint64_t *pte, unsigned int *order)
{
    uint64_t *table = phys_to_virt(root);

    if ( !canonical(va) )
        return -ENOENT;
    for ( unsigned int l = 4; l >= 1; l-- )
    {
        uint64_t v = READ_ONCE(table[index_of(va, l)]);

        if ( !(v & PTE_P) )
            return -ENOENT;
        if ( l == 1 || (l == 2 && (v & PTE_PS)) )
        {
            *pte = v;
            *order = l == 1 ? PT_ORDER_4K : PT_ORDER_2M;
            return 0;
        }
        if ( v & PTE_PS )
            return -ENOENT; /* 1 GiB pages are never made by shimk */
        table = table_of(v);
    }
    return -ENOENT;
}

int pt_translate(paddr_t root, vaddr_t va, paddr_t *pa)
{
    uint64_t pte;
    unsigned int order;
    int rc = pt_lookup(root, va, &pte, &order);

    if ( rc )
        return rc;
    *pa = (pte & PTE_ADDR_MASK & ~((PAGE_SIZE << order) - 1)) +
          (va & ((PAGE_SIZE << order) - 1));
    return 0;
}
