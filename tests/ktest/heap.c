/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: kmalloc and kfree. */

#include <shimk/heap.h>
#include <shimk/ktest.h>
#include <shimk/string.h>
#include <asm/page.h>

KTEST(heap, sizes_alignment_and_reuse)
{
    static const size_t sizes[] = { 1, 15, 16, 17, 100, 512, 2048, 2049,
                                    4096, 12345 };
    void *p[ARRAY_SIZE(sizes)];

    for ( unsigned int i = 0; i < ARRAY_SIZE(sizes); i++ )
    {
        size_t align = sizes[i] > 2048 ? PAGE_SIZE : 16;

        p[i] = kmalloc(sizes[i]);
        KT_ASSERT(t, p[i] != NULL);
        KT_ASSERTF(t, IS_ALIGNED((vaddr_t)p[i], align),
                   "kmalloc(%zu) = %p is not %zu-aligned", sizes[i], p[i],
                   align);
        memset(p[i], (int)i + 1, sizes[i]);
    }
    /* Nothing overlapped: every byte still holds its owner's mark. */
    for ( unsigned int i = 0; i < ARRAY_SIZE(sizes); i++ )
        for ( size_t b = 0; b < sizes[i]; b++ )
            KT_ASSERTF(t, ((unsigned char *)p[i])[b] == i + 1,
                       "object %u byte %zu overwritten", i, b);
    for ( unsigned int i = 0; i < ARRAY_SIZE(sizes); i++ )
        kfree(p[i]);

    /* A freed object of a class is what the next request gets. */
    {
        void *a = kmalloc(100), *b;

        kfree(a);
        b = kmalloc(100);
        KT_ASSERTF(t, a == b, "freed %p, then got %p", a, b);
        kfree(b);
    }
}

KTEST(heap, kzalloc_zeroes)
{
    unsigned char *p = kmalloc(3000);

    memset(p, 0xff, 3000);
    kfree(p);
    p = kzalloc(3000);
    for ( unsigned int i = 0; i < 3000; i++ )
        KT_ASSERTF(t, p[i] == 0, "byte %u is %#x", i, p[i]);
    kfree(p);
}

KTEST(heap, page_runs_split_and_reuse)
{
    struct heap_stats before, after;
    void *big, *a, *b;

    big = kmalloc(8 * PAGE_SIZE);
    kfree(big);
    heap_get_stats(&before);
    /* Two smaller runs fit in the freed one without growing the heap. */
    a = kmalloc(3 * PAGE_SIZE);
    b = kmalloc(4 * PAGE_SIZE);
    heap_get_stats(&after);
    KT_EQ(t, after.mapped_bytes, before.mapped_bytes);
    KT_ASSERT(t, a != b);
    memset(a, 1, 3 * PAGE_SIZE);
    memset(b, 2, 4 * PAGE_SIZE);
    KT_ASSERT(t, ((unsigned char *)a)[3 * PAGE_SIZE - 1] == 1);
    kfree(a);
    kfree(b);
}
