/* SPDX-License-Identifier: GPL-2.0-only */
/* Address spaces: a user half of their own, the kernel half shared. */
#ifndef SHIMK_ASPACE_H
#define SHIMK_ASPACE_H

#include <shimk/cpumask.h>
#include <shimk/lazy-unmap.h>
#include <shimk/spinlock.h>
#include <shimk/types.h>

/* Protection bits for aspace_map() and aspace_protect(). */
#define PROT_READ  0x1u
#define PROT_WRITE 0x2u
#define PROT_EXEC  0x4u

/* Page orders accepted for user mappings. */
#define ORDER_4K 0
#define ORDER_2M 9

struct aspace
{
    paddr_t root;
    spinlock_t lock;        /* serializes page-table writers */
    /*
     * CPUs that may hold this space's translations: a CPU sets its bit
     * before loading the root and clears it only after loading another
     * one (without PCIDs that CR3 write flushed every user entry).  A
     * flush for this space goes to exactly these CPUs.
     */
    cpumask_t cpus;
    /*
     * Who may still hold an entry aspace_unmap_lazy() removed, and
     * since when (under lock): aspace_map() flushes them first.
     */
    struct lazy_unmaps lazy;
    unsigned int refs;      /* threads in it, plus its creator */
    unsigned int id;
    unsigned int nr_tables; /* user-half page-table frames */
};

struct aspace *aspace_create(void);
void aspace_get(struct aspace *as);
/* The last put frees every frame the space still maps and its tables. */
void aspace_put(struct aspace *as);

/*
 * Map one 4 KiB or 2 MiB page of frames at pa to va (user half, never
 * global).  -EEXIST, -EINVAL (alignment, range), -ENOMEM.  No flush,
 * unless a lazy unmap may have left CPUs of the space holding a stale
 * entry: those flush before this returns, so that none of them reaches
 * an old frame through va once the map is published.
 */
int aspace_map(struct aspace *as, vaddr_t va, paddr_t pa, unsigned int order,
               unsigned int prot);

/*
 * The same with the flush chosen by the caller: flush is the flags for
 * flush_area_mask() over the space's CPUs (e.g. FLUSH_TLB alone for a
 * whole-space flush), or 0 for none at all: then the caller flushes,
 * or frees the old frames deferred (frame_free_deferred()).
 */
int aspace_remap_flags(struct aspace *as, vaddr_t va, paddr_t pa,
                       unsigned int order, unsigned int prot, paddr_t *old,
                       unsigned int flush);

/*
 * Remove a mapping and flush; *old gets the frame (NULL: none wanted).
 * Page tables left empty are freed, after a flush that is a barrier
 * (FLUSH_NO_ASSIST): lockless walkers hold interrupts off.
 */
int aspace_unmap(struct aspace *as, vaddr_t va, unsigned int order,
                 paddr_t *old);

/*
 * Remove a mapping with no remote flush: the frame goes back with the
 * TLB clock's stamp and is flushed for, where still needed, only when
 * it is reused (frame_alloc_user()).  Until then the space's own
 * threads may still reach it: for memory whose owner is done with it.
 * A later aspace_map() of va flushes those CPUs (struct lazy_unmaps).
 */
int aspace_unmap_lazy(struct aspace *as, vaddr_t va, unsigned int order);

int aspace_protect(struct aspace *as, vaddr_t va, unsigned int order,
                   unsigned int prot);

/* Load as on this CPU (NULL: the kernel's own tables). */
void aspace_switch(struct aspace *as);

/* What this CPU has loaded (NULL: the kernel's tables). */
struct aspace *aspace_current(void);

/*
 * Is [va, va + len) mapped user-accessible (and writable if asked)?
 * A lockless walk with interrupts off, like Linux's GUP-fast: tables
 * cannot be freed under it because their freeing waits for an IPI
 * this CPU only takes once the walk is over.
 */
bool aspace_user_range_ok(struct aspace *as, vaddr_t va, size_t len,
                          bool write);

#endif /* SHIMK_ASPACE_H */
