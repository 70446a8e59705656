/* SPDX-License-Identifier: GPL-2.0-only */
/* Physical frame allocator: a pure pool and the kernel's global one. */
#ifndef SHIMK_FRAME_H
#define SHIMK_FRAME_H

#include <shimk/boot-info.h>
#include <shimk/cpumask.h>
#include <shimk/types.h>

#define FRAME_NONE UINT32_MAX

/* Per-frame state; one per page frame up to the top of RAM. */
struct frame
{
    uint32_t next;          /* free list link (frame number) */
    uint16_t flags;
    uint16_t reserved;
    uint32_t tlbflush_stamp;    /* TLB clock time of its last use */
    uint32_t pad;
};

#define FRAME_F_FREE    0x0001
#define FRAME_F_USABLE  0x0002  /* RAM the pool manages */
#define FRAME_F_DIRTY   0x0004  /* freed with TLB entries maybe left */

/*
 * The pool owns frames [0, nr_frames).  It never touches the frames
 * themselves, only the table, so the host unit tests can drive it
 * with an ordinary array.  Frame numbers fit 32 bits (16 TiB).
 */
struct frame_pool
{
    struct frame *table;
    uint32_t nr_frames;
    uint32_t free_head;
    uint32_t nr_free;
    uint32_t nr_usable;
};

void frame_pool_init(struct frame_pool *p, struct frame *table,
                     uint32_t nr_frames);

/*
 * Give the pool every whole page of RAM in map that is outside all of
 * the reserved ranges.  Returns the number of frames added.
 */
uint32_t frame_pool_add_ram(struct frame_pool *p, const struct mmap_entry *map,
                            unsigned int nr_map,
                            const struct phys_range *reserved,
                            unsigned int nr_reserved);

/* Lowest-addressed free frames come out first. */
bool frame_pool_alloc(struct frame_pool *p, uint32_t *pfn);

/* -EINVAL for a frame the pool does not own or that is already free. */
int frame_pool_free(struct frame_pool *p, uint32_t pfn);

/* --- The kernel's pool (kernel/mm/frames.c). --- */

/* Build the pool from the memory map; the kernel image is reserved. */
void frames_init(struct boot_info *bi);

/* A zeroed frame; panics when memory is exhausted. */
paddr_t frame_alloc(void);

/* A zeroed frame, or 0 when memory is exhausted. */
paddr_t frame_try_alloc(void);

void frame_free(paddr_t pa);

/*
 * Free a frame that some CPUs may still reach through stale TLB
 * entries: it keeps the TLB clock's current time as its stamp and is
 * flushed for, on the CPUs that still need it, when next allocated.
 */
void frame_free_deferred(paddr_t pa);

/*
 * A zeroed frame for user memory, process context with interrupts on:
 * the oldest deferred frame if there is one (flushing, through the
 * TLB clock's filter, only the CPUs that may still cache it), else a
 * clean one.  Returns 0 when memory is exhausted.
 */
paddr_t frame_alloc_user(void);

/* The same, saying which other CPUs had to be flushed (tlbbench). */
paddr_t frame_alloc_user_mask(cpumask_t *flushed);

/*
 * 2 MiB of contiguous, aligned frames for superpage mappings, from a
 * small pool set aside at boot (the 4 KiB pool has no contiguity).
 * Zeroed; 0 when the pool is empty.
 */
paddr_t frame_alloc_2m(void);
void frame_free_2m(paddr_t pa);
unsigned int frames_2m_free(void);

/* Deferred frames not yet reused. */
uint32_t frames_dirty(void);

struct frame_reuse_stats
{
    uint64_t reused;            /* deferred frames handed out again */
    uint64_t cpus_considered;   /* other online CPUs at each reuse */
    uint64_t cpus_skipped;      /* of which the clock proved clean */
    uint64_t flushes;           /* reuses that still needed a flush */
};

void frames_reuse_stats(struct frame_reuse_stats *s);

/* The per-frame record of pa (NULL beyond the table). */
struct frame *frame_info(paddr_t pa);

uint32_t frames_free(void);

#endif /* SHIMK_FRAME_H */
