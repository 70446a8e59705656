/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: the frame allocator as the running kernel uses it. */

#include <shimk/frame.h>
#include <shimk/image.h>
#include <shimk/ktest.h>
#include <shimk/string.h>
#include <asm/page.h>

#define BATCH 64

KTEST(frames, alloc_distinct_zeroed_free)
{
    paddr_t got[BATCH];
    uint32_t before = frames_free();

    for ( unsigned int i = 0; i < BATCH; i++ )
    {
        const uint64_t *p;

        got[i] = frame_alloc();
        KT_ASSERTF(t, got[i] && IS_ALIGNED(got[i], PAGE_SIZE),
                   "frame %#lx", (unsigned long)got[i]);
        p = phys_to_virt(got[i]);
        for ( unsigned int w = 0; w < PAGE_SIZE / 8; w++ )
            KT_ASSERTF(t, p[w] == 0, "frame %#lx not zeroed at word %u",
                       (unsigned long)got[i], w);
        for ( unsigned int j = 0; j < i; j++ )
            KT_ASSERTF(t, got[j] != got[i], "frame %#lx handed out twice",
                       (unsigned long)got[i]);
        /* Dirty it, so the zeroing of a reused frame is tested too. */
        memset(phys_to_virt(got[i]), 0xa5, PAGE_SIZE);
    }
    KT_EQ(t, frames_free(), before - BATCH);
    for ( unsigned int i = 0; i < BATCH; i++ )
        frame_free(got[i]);
    KT_EQ(t, frames_free(), before);
}

KTEST(frames, never_hands_out_the_kernel_or_low_memory)
{
    paddr_t img_lo = (paddr_t)__image_start_phys;
    paddr_t img_hi = (paddr_t)__image_end_phys;
    paddr_t got[BATCH];

    for ( unsigned int i = 0; i < BATCH; i++ )
    {
        got[i] = frame_alloc();
        KT_ASSERTF(t, got[i] >= 0x100000, "frame %#lx is below 1 MiB",
                   (unsigned long)got[i]);
        KT_ASSERTF(t, got[i] + PAGE_SIZE <= img_lo || got[i] >= img_hi,
                   "frame %#lx is inside the kernel image %#lx-%#lx",
                   (unsigned long)got[i], (unsigned long)img_lo,
                   (unsigned long)img_hi);
    }
    for ( unsigned int i = 0; i < BATCH; i++ )
        frame_free(got[i]);
}

/* The pool's own bookkeeping: a private pool, so nothing else moves. */
KTEST(frames, pool_exhaustion_and_double_free)
{
    static struct frame table[64];
    static const struct mmap_entry ram[] = { { 0x10000, 0x8000, MMAP_RAM } };
    struct frame_pool p;
    uint32_t pfn, n = 0;

    frame_pool_init(&p, table, 64);
    KT_EQ(t, frame_pool_add_ram(&p, ram, 1, NULL, 0), 8);
    while ( frame_pool_alloc(&p, &pfn) )
        n++;
    KT_EQ(t, n, 8);
    KT_EQ(t, frame_pool_free(&p, 0x10), 0);
    KT_ASSERT(t, frame_pool_free(&p, 0x10) < 0);     /* double free */
    KT_ASSERT(t, frame_pool_free(&p, 0x3) < 0);      /* never RAM */
    KT_ASSERT(t, frame_pool_free(&p, 1000) < 0);     /* out of range */
}

KTEST(frames, frame_info_covers_ram)
{
    paddr_t pa = frame_alloc();
    struct frame *f = frame_info(pa);

    KT_ASSERT(t, f != NULL);
    KT_ASSERT(t, f->flags & FRAME_F_USABLE);
    KT_ASSERT(t, !(f->flags & FRAME_F_FREE));
    frame_free(pa);
    KT_ASSERT(t, f->flags & FRAME_F_FREE);
}
