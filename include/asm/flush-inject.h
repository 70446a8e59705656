/* SPDX-License-Identifier: GPL-2.0-only */
/* Injected TLB-flush bugs: one realistic bug class at a time, on purpose. */
#ifndef ASM_FLUSH_INJECT_H
#define ASM_FLUSH_INJECT_H

#include <shimk/types.h>

/*
 * Each class is a bug that flush code of this kind has really had (see
 * docs/flush.md, "Injected bugs").  tlb-inject=<class> turns one on for
 * the whole boot; the detector's mutation table (ktest=tlb-mutation)
 * turns each on in turn and must see stale reads with it and none
 * without.  A kernel with any class on is wrong on purpose.
 */
enum tlb_inject
{
    TLB_INJECT_NONE,
    TLB_INJECT_SKIP_REMOTE,     /* no remote flush at all */
    TLB_INJECT_SKIP_CPU,        /* one chosen target CPU left out */
    TLB_INJECT_WRONG_PAGE,      /* the range flushed one page too high */
    TLB_INJECT_NONGLOBAL,       /* a global flush done as a non-global one */
    TLB_INJECT_CLOCK_OFF_BY_ONE, /* stamp == last use taken as flushed */
    TLB_INJECT_L0_LIE,          /* the L0 hook says done, flushes nothing */
    TLB_INJECT_IGNORE_NO_ASSIST, /* FLUSH_NO_ASSIST ignored: L0 does it */
    TLB_INJECT_LAZY_MAP,        /* map after a lazy unmap flushes nothing */
    NR_TLB_INJECT,
};

/* --- pure (arch/x86/flush/flush-inject.c; unit-tested) --- */

/* "skip-cpu" for TLB_INJECT_SKIP_CPU; NULL past the end. */
const char *tlb_inject_name(enum tlb_inject c);

/* The class named s (a name from above, or "none"); -1 if none is. */
int tlb_inject_parse(const char *s);

/* The page a wrong-page flush hits instead of va: the next one. */
const void *tlb_inject_wrong_va(const void *va);

/* A CPU's clock stamp as an off-by-one comparison sees it. */
uint32_t tlb_inject_stamp(uint32_t stamp, uint32_t mask);

/* --- the kernel's switch (arch/x86/flush/flushtlb.c) --- */

/* Runtime-switchable: the mutation ktest sets it between runs. */
extern enum tlb_inject tlb_inject;
extern unsigned int tlb_inject_cpu;     /* TLB_INJECT_SKIP_CPU's victim */

static inline bool tlb_injected(enum tlb_inject c)
{
    return __builtin_expect(__atomic_load_n(&tlb_inject, __ATOMIC_RELAXED)
                            == c, 0);
}

#endif /* ASM_FLUSH_INJECT_H */
