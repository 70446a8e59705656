/* SPDX-License-Identifier: GPL-2.0-only */
/* The frame pool: free-list allocation over a frame table (pure; unit-tested). */

#include <shimk/errno.h>
#include <shimk/frame.h>
#include <shimk/string.h>

#define PAGE_SHIFT_ 12
#define PAGE_SIZE_  (1ull << PAGE_SHIFT_)

void frame_pool_init(struct frame_pool *p, struct frame *table,
                     uint32_t nr_frames)
{
    p->table = table;
    p->nr_frames = nr_frames;
    p->free_head = FRAME_NONE;
    p->nr_free = 0;
    p->nr_usable = 0;
    memset(table, 0, (size_t)nr_frames * sizeof(*table));
    for ( uint32_t i = 0; i < nr_frames; i++ )
        table[i].next = FRAME_NONE;
}

static void push(struct frame_pool *p, uint32_t pfn)
{
    p->table[pfn].next = p->free_head;
    p->table[pfn].flags |= FRAME_F_FREE;
    p->free_head = pfn;
    p->nr_free++;
}

/*
 * Add [start, end) page by page, highest first: the free list is LIFO,
 * so low frames are handed out first, which keeps early allocations
 * (page tables built while only the boot map exists) below 4 GiB.
 */
static uint32_t add_pfns(struct frame_pool *p, uint64_t start, uint64_t end)
{
    uint32_t added = 0;

    if ( end > p->nr_frames )
        end = p->nr_frames;
    for ( uint64_t pfn = end; pfn-- > start; )
    {
        struct frame *f = &p->table[pfn];

        if ( f->flags & FRAME_F_USABLE )
            continue;   /* listed twice in the map */
        f->flags |= FRAME_F_USABLE;
        p->nr_usable++;
        push(p, (uint32_t)pfn);
        added++;
    }
    return added;
}

struct pfn_range
{
    uint64_t start, end;
};

#define RESERVED_MAX 64

/* Reserved ranges as page-frame intervals, sorted and merged. */
static unsigned int reserved_pfns(struct pfn_range *out,
                                  const struct phys_range *reserved,
                                  unsigned int nr_reserved)
{
    unsigned int n = 0;

    for ( unsigned int r = 0; r < nr_reserved && n < RESERVED_MAX; r++ )
    {
        struct pfn_range v;
        uint64_t last;
        unsigned int j;

        if ( !reserved[r].len )
            continue;
        v.start = reserved[r].base >> PAGE_SHIFT_;
        /*
         * From the last byte, saturated at the top: an end that wrapped
         * below the start (base + len, or its rounding up, past 2^64)
         * would make the walk below add the frames in between, the
         * kernel's own among them.
         */
        last = reserved[r].len - 1 > UINT64_MAX - reserved[r].base
               ? UINT64_MAX : reserved[r].base + reserved[r].len - 1;
        v.end = (last >> PAGE_SHIFT_) + 1;
        for ( j = n; j && out[j - 1].start > v.start; j-- )
            out[j] = out[j - 1];
        out[j] = v;
        n++;
    }

    /* Merge overlapping or touching neighbours. */
    for ( unsigned int i = 1, w = 0; i <= n; i++ )
    {
        if ( i == n )
        {
            n = w + 1;
            break;
        }
        if ( out[i].start <= out[w].end )
        {
            if ( out[i].end > out[w].end )
                out[w].end = out[i].end;
        }
        else
            out[++w] = out[i];
    }
    return n;
}

uint32_t frame_pool_add_ram(struct frame_pool *p, const struct mmap_entry *map,
                            unsigned int nr_map,
                            const struct phys_range *reserved,
                            unsigned int nr_reserved)
{
    struct pfn_range res[RESERVED_MAX];
    unsigned int nr_res = reserved_pfns(res, reserved, nr_reserved);
    uint32_t added = 0;

    /* Walk RAM from the top so the lowest frames end up on top. */
    for ( unsigned int i = nr_map; i-- > 0; )
    {
        uint64_t start, hi;

        if ( map[i].type != MMAP_RAM )
            continue;
        /*
         * RAM in the last page of the address space holds no whole
         * frame, and rounding its start up would wrap to frame 0.
         */
        if ( map[i].base > UINT64_MAX - (PAGE_SIZE_ - 1) ||
             map[i].len > UINT64_MAX - map[i].base )
            continue;
        start = (map[i].base + PAGE_SIZE_ - 1) >> PAGE_SHIFT_;
        hi = (map[i].base + map[i].len) >> PAGE_SHIFT_;

        /* Add the gaps between reserved ranges, from the top down. */
        for ( unsigned int k = nr_res; k-- > 0 && hi > start; )
        {
            if ( res[k].start >= hi )
                continue;
            if ( res[k].end < hi )
                added += add_pfns(p, res[k].end > start ? res[k].end : start,
                                  hi);
            hi = res[k].start > start ? res[k].start : start;
        }
        if ( hi > start )
            added += add_pfns(p, start, hi);
    }
    return added;
}

bool frame_pool_alloc(struct frame_pool *p, uint32_t *pfn)
{
    uint32_t head = p->free_head;

    if ( head == FRAME_NONE )
        return false;
    p->free_head = p->table[head].next;
    p->table[head].next = FRAME_NONE;
    p->table[head].flags &= ~FRAME_F_FREE;
    p->nr_free--;
    *pfn = head;
    return true;
}

int frame_pool_free(struct frame_pool *p, uint32_t pfn)
{
    if ( pfn >= p->nr_frames || !(p->table[pfn].flags & FRAME_F_USABLE) ||
         (p->table[pfn].flags & FRAME_F_FREE) )
        return -EINVAL;
    push(p, pfn);
    return 0;
}
