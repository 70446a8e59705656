/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel heap: kmalloc and kfree. */
#ifndef SHIMK_HEAP_H
#define SHIMK_HEAP_H

#include <shimk/types.h>

/* Set up the heap's virtual region; after mm_init(). */
void heap_init(void);

/*
 * Allocate size bytes; panics when memory runs out.  Objects up to
 * 2 KiB are aligned to their power-of-two size class, bigger ones to
 * a page.
 */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);

struct heap_stats
{
    uint64_t mapped_bytes;      /* heap pages mapped so far */
    uint64_t allocs, frees;
};

void heap_get_stats(struct heap_stats *s);

#endif /* SHIMK_HEAP_H */
