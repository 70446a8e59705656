/* SPDX-License-Identifier: GPL-2.0-only */
/* Protocol-independent boot-info helpers: memory map clean-up (pure). */

#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>

const char *boot_protocol_name(enum boot_protocol p)
{
    switch ( p )
    {
    case BOOT_PVH:
        return "pvh";
    case BOOT_MB2:
        return "mb2";
    default:
        return "unknown";
    }
}

int boot_info_reserve(struct boot_info *bi, paddr_t base, uint64_t len)
{
    if ( !len )
        return 0;
    /*
     * A range that runs past 2^64 (a module size chosen to wrap, say)
     * would read as ending below its start, and the frame pool would
     * hand out what lies between: clamp it to the top instead.
     */
    if ( len - 1 > UINT64_MAX - base )
    {
        pr_warn("boot: reserved range at %#lx of %#lx bytes runs past the "
                "top of the address space (kept up to the top)\n",
                (unsigned long)base, (unsigned long)len);
        len = UINT64_MAX - base + 1;
        if ( !len )                 /* base 0: the whole space */
            len = UINT64_MAX;
    }
    if ( bi->nr_reserved == BOOT_RESERVED_MAX )
        return -ENOSPC;
    bi->reserved[bi->nr_reserved].base = base;
    bi->reserved[bi->nr_reserved].len = len;
    bi->nr_reserved++;
    return 0;
}

/*
 * Where entries overlap, the more restrictive type wins: handing out
 * firmware's memory as RAM corrupts it, while the reverse only wastes
 * a little.  Unknown types count as reserved.
 */
static unsigned int type_rank(uint32_t type)
{
    switch ( type )
    {
    case MMAP_RAM:
        return 0;
    case MMAP_ACPI:
        return 1;
    case MMAP_NVS:
        return 2;
    case MMAP_UNUSABLE:
        return 4;
    default:
        return 3;
    }
}

static uint64_t entry_end(const struct mmap_entry *e)
{
    /* Clamp entries that would wrap past 2^64. */
    return e->base + e->len < e->base ? UINT64_MAX : e->base + e->len;
}

unsigned int mmap_sanitize(struct mmap_entry *map, unsigned int *nr)
{
    static uint64_t points[2 * BOOT_MMAP_MAX];
    static struct mmap_entry out[2 * BOOT_MMAP_MAX];
    unsigned int n = *nr, np = 0, nout = 0, overlaps = 0;

    if ( n > BOOT_MMAP_MAX )
        n = BOOT_MMAP_MAX;

    /* Every start and end is a boundary; sort them, drop duplicates. */
    for ( unsigned int i = 0; i < n; i++ )
    {
        if ( !map[i].len )
            continue;
        points[np++] = map[i].base;
        points[np++] = entry_end(&map[i]);
    }
    for ( unsigned int i = 1; i < np; i++ )
    {
        uint64_t v = points[i];
        unsigned int j = i;

        while ( j && points[j - 1] > v )
        {
            points[j] = points[j - 1];
            j--;
        }
        points[j] = v;
    }

    /* Each piece between two boundaries takes its strongest type. */
    for ( unsigned int p = 0; p + 1 < np; p++ )
    {
        uint64_t lo = points[p], hi = points[p + 1];
        unsigned int covering = 0;
        bool disagree = false;
        uint32_t type = 0;

        if ( lo == hi )
            continue;
        for ( unsigned int i = 0; i < n; i++ )
        {
            if ( !map[i].len || map[i].base > lo || entry_end(&map[i]) < hi )
                continue;
            if ( covering && map[i].type != type )
                disagree = true;
            if ( !covering || type_rank(map[i].type) > type_rank(type) )
                type = map[i].type;
            covering++;
        }
        if ( !covering )
            continue;
        if ( disagree )
        {
            overlaps++;
            pr_warn("mmap: %#lx-%#lx listed by %u entries of different "
                    "types; keeping type %u\n", (unsigned long)lo,
                    (unsigned long)hi - 1, covering, type);
        }
        if ( nout && out[nout - 1].type == type &&
             out[nout - 1].base + out[nout - 1].len == lo )
            out[nout - 1].len += hi - lo;
        else
            out[nout++] = (struct mmap_entry){ lo, hi - lo, type };
    }

    if ( nout > BOOT_MMAP_MAX )
    {
        pr_warn("mmap: %u entries after clean-up, keeping the first %u\n",
                nout, BOOT_MMAP_MAX);
        nout = BOOT_MMAP_MAX;
    }
    memcpy(map, out, nout * sizeof(*out));
    *nr = nout;
    return overlaps;
}

uint64_t mmap_clip_ram(struct mmap_entry *map, unsigned int *nr,
                       uint64_t limit)
{
    uint64_t dropped = 0;
    unsigned int out = 0;

    for ( unsigned int i = 0; i < *nr; i++ )
    {
        struct mmap_entry e = map[i];

        if ( e.type == MMAP_RAM && e.base + e.len > limit )
        {
            uint64_t keep = e.base < limit ? limit - e.base : 0;

            dropped += e.len - keep;
            e.len = keep;
        }
        if ( e.len )
            map[out++] = e;
    }
    *nr = out;
    return dropped;
}
