/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz the memory-map clean-up and the frame pool built from its result. */

#include <shimk/boot-info.h>
#include <shimk/frame.h>

#include <string.h>

#include "fuzz.h"
#include "printk-capture.h"

/*
 * The input is records of (base, len, type) for the map, then (base,
 * len) reserved ranges.  Addresses are taken as they are, wrapping
 * ones included; the pool covers the first NR_FRAMES frames, with the
 * "kernel image" at frames KERNEL_LO-KERNEL_HI.
 */
#define NR_FRAMES 256
#define PG        4096ull
#define KERNEL_LO 16
#define KERNEL_HI 24

struct rec
{
    uint64_t base, len;
    uint32_t type;
} __attribute__((packed));

static struct mmap_entry in[BOOT_MMAP_MAX], map[BOOT_MMAP_MAX];
static struct phys_range res[BOOT_RESERVED_MAX + 1];
static struct frame table[NR_FRAMES];
static struct frame_pool pool;

static uint64_t end_of(uint64_t base, uint64_t len)
{
    return base + len < base ? UINT64_MAX : base + len;
}

/* Every byte of [lo, hi) in no output entry of type RAM. */
static bool never_ram(uint64_t lo, uint64_t hi, unsigned int nr)
{
    for ( unsigned int i = 0; i < nr; i++ )
        if ( map[i].type == MMAP_RAM && map[i].base < hi &&
             lo < map[i].base + map[i].len )
            return false;
    return true;
}

/* [pa, pa + PG) meets a reserved range (one that wraps runs to the top). */
static bool in_reserved(uint64_t pa, unsigned int nres)
{
    for ( unsigned int r = 0; r < nres; r++ )
        if ( res[r].base < pa + PG &&
             pa < end_of(res[r].base, res[r].len) )
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned int n = 0, nres = 0, nr;
    size_t pos = 0;
    uint32_t pfn;

    capture_reset();
    /* First byte: how many map records; the rest reserved ranges. */
    if ( !size )
        return 0;
    nr = data[pos++] % (BOOT_MMAP_MAX + 1);
    while ( n < nr && size - pos >= sizeof(struct rec) )
    {
        struct rec r;

        memcpy(&r, data + pos, sizeof(r));
        pos += sizeof(r);
        in[n] = (struct mmap_entry){ r.base, r.len, r.type % 8 };
        n++;
    }
    while ( nres < BOOT_RESERVED_MAX && size - pos >= 16 )
    {
        memcpy(&res[nres].base, data + pos, 8);
        memcpy(&res[nres].len, data + pos + 8, 8);
        pos += 16;
        if ( res[nres].len )
            nres++;
    }
    res[nres++] = (struct phys_range){ KERNEL_LO * PG,
                                       (KERNEL_HI - KERNEL_LO) * PG };

    memcpy(map, in, n * sizeof(*in));
    nr = n;
    mmap_sanitize(map, &nr);

    /* Sorted, non-overlapping, non-empty, no wrap. */
    for ( unsigned int i = 0; i < nr; i++ )
    {
        PROMISE(map[i].len, "entry %u is empty", i);
        PROMISE(map[i].base + map[i].len - 1 >= map[i].base,
                "entry %u wraps", i);
        if ( i )
            PROMISE(map[i - 1].base + map[i - 1].len <= map[i].base,
                    "entries %u and %u overlap or are unsorted", i - 1, i);
    }
    /* What any entry called reserved, ACPI or NVS never turns into RAM. */
    for ( unsigned int i = 0; i < n; i++ )
        if ( in[i].len && in[i].type != MMAP_RAM )
            PROMISE(never_ram(in[i].base, end_of(in[i].base, in[i].len),
                              nr),
                    "type %u range %#llx+%#llx became RAM", in[i].type,
                    (unsigned long long)in[i].base,
                    (unsigned long long)in[i].len);

    /* The pool never holds a frame the kernel uses or a reserved one. */
    frame_pool_init(&pool, table, NR_FRAMES);
    frame_pool_add_ram(&pool, map, nr, res, nres);
    while ( frame_pool_alloc(&pool, &pfn) )
    {
        uint64_t pa = (uint64_t)pfn * PG;

        PROMISE(pfn < NR_FRAMES, "frame %u out of the table", pfn);
        PROMISE(pfn < KERNEL_LO || pfn >= KERNEL_HI,
                "frame %u of the kernel image handed out", pfn);
        PROMISE(!in_reserved(pa, nres), "frame %u is in a reserved range",
                pfn);
        PROMISE(!never_ram(pa, pa + PG, nr),
                "frame %u is not RAM in the map", pfn);
    }
    return 0;
}
