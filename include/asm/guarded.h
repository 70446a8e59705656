/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel stacks and per-CPU tables, each with an unmapped guard below. */
#ifndef ASM_GUARDED_H
#define ASM_GUARDED_H

#include <shimk/types.h>

/*
 * A stack that overflows, or a runaway that walks down memory, must
 * fault at once on an unmapped page, not rewrite its neighbour: another
 * CPU's GDT, TSS or IST stack would otherwise break silently, and that
 * CPU would triple-fault at its next interrupt, far from the cause and
 * looking like the L0's fault.  So every kernel stack (threads', each
 * CPU's own, the IST stacks) and each AP's struct cpu_info (its GDT and
 * TSS) lives in its own slot of the STACKS_BASE region: the mapped part
 * at the top of the slot, at least one unmapped page below it.  The
 * boot CPU's are in the image's .bss, each behind a page that
 * mm_init() leaves unmapped.
 *
 * Slots are kept mapped when freed and reused for an area of the same
 * size: freeing never unmaps, so it never needs a TLB shootdown.
 */

enum guarded_kind
{
    GUARDED_FREE,
    GUARDED_THREAD,         /* a thread's kernel stack */
    GUARDED_CPU_STACK,      /* a CPU's boot stack, its idle thread's */
    GUARDED_IST_NMI,        /* IST1 */
    GUARDED_IST_DF,         /* IST2 */
    GUARDED_IST_MC,         /* IST3 */
    GUARDED_CPU_TABLES,     /* struct cpu_info: GDT, TSS */
    GUARDED_NR_KINDS,
};

/* The largest area a slot holds; the rest of the slot is unmapped. */
#define GUARDED_SLOT_SIZE   (32u << 10)
#define GUARDED_MAX_BYTES   (GUARDED_SLOT_SIZE - 4096u)

/* Where an address lies with respect to the guarded areas. */
struct guarded_hit
{
    enum { GUARDED_NONE, GUARDED_IN_AREA, GUARDED_IN_GUARD } where;
    uint64_t lo, hi;                /* the area's mapped part */
    enum guarded_kind kind;
    unsigned int cpu;
    unsigned int thread_id;
    char name[24];
};

/* Make the region's page tables; after mm_init(), before any area. */
void guarded_init(void);

/* Bytes mapped into slots, in use or free (never given back). */
uint64_t guarded_mapped_bytes(void);

/*
 * A zeroed area of bytes (page multiple after rounding, at most
 * GUARDED_MAX_BYTES) with an unmapped page below; panics when out of
 * slots or frames.  name and id describe the owner in reports.
 */
void *guarded_alloc(size_t bytes, enum guarded_kind kind, unsigned int cpu,
                    const char *name, unsigned int id);
void guarded_free(void *area);

/*
 * The boot CPU's static areas in .bss: lo is page aligned and the page
 * below it is left unmapped by mm_init().  Before mm_init().
 */
void guarded_register_static(void *lo, size_t bytes, enum guarded_kind kind,
                             unsigned int cpu, const char *name);

/* mm_init(): is this image page a static area's guard? */
bool guarded_is_static_guard(uint64_t va);

/* Classify va; no locks, safe from a #DF handler. */
void guarded_lookup(uint64_t va, struct guarded_hit *hit);

/* "CPU1's #DF IST stack [lo, hi)", "thread 'ktest' (id 4)'s stack ...". */
int guarded_describe(char *buf, size_t size, const struct guarded_hit *hit);

const char *guarded_kind_name(enum guarded_kind kind);

#endif /* ASM_GUARDED_H */
