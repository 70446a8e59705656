/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest guarded: every kernel stack and per-CPU table has a hole below. */

#include <shimk/ktest.h>
#include <shimk/string.h>
#include <asm/guarded.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/smp.h>

static bool mapped(uint64_t va)
{
    uint64_t pte;
    unsigned int order;

    return pt_lookup(kernel_root, va, &pte, &order) == 0;
}

/* Mapped from lo up, a hole just below, and the lookup agrees. */
static bool guarded(uint64_t lo, enum guarded_kind kind, unsigned int cpu)
{
    struct guarded_hit hit;

    if ( !mapped(lo) || mapped(lo - PAGE_SIZE) )
        return false;
    guarded_lookup(lo, &hit);
    if ( hit.where != GUARDED_IN_AREA || hit.lo != lo || hit.kind != kind ||
         hit.cpu != cpu )
        return false;
    guarded_lookup(lo - 8, &hit);
    return hit.where == GUARDED_IN_GUARD && hit.lo == lo;
}

KTEST(guarded, every_cpus_stacks_and_tables_have_a_guard_page)
{
    static const enum guarded_kind ist[3] = {
        GUARDED_IST_NMI, GUARDED_IST_DF, GUARDED_IST_MC };
    unsigned int cpu;

    for_each_cpu ( cpu, &cpu_online_mask )
    {
        const struct cpu_info *ci = cpu_infos[cpu];

        KT_ASSERTF(t, guarded((uint64_t)ci->stack_base, GUARDED_CPU_STACK,
                              cpu), "CPU%u's stack at %p", cpu,
                   ci->stack_base);
        for ( unsigned int i = 0; i < 3; i++ )
            KT_ASSERTF(t, guarded((uint64_t)ci->ist_stacks[i], ist[i], cpu),
                       "CPU%u's IST%u stack at %p", cpu, i + 1,
                       ci->ist_stacks[i]);
        KT_ASSERTF(t, guarded((uint64_t)ci, GUARDED_CPU_TABLES, cpu),
                   "CPU%u's cpu_info at %p", cpu, ci);
    }
}

KTEST(guarded, a_freed_area_is_reused_and_never_unmapped)
{
    char *a = guarded_alloc(16384, GUARDED_THREAD, 0, "kt-guarded", 77), *b;
    struct guarded_hit hit;
    char text[160];

    KT_ASSERT(t, guarded((uint64_t)a, GUARDED_THREAD, 0));
    KT_EQ(t, a[0] | a[16383], 0);           /* zeroed */
    guarded_lookup((uint64_t)a - 1, &hit);
    guarded_describe(text, sizeof(text), &hit);
    KT_ASSERTF(t, strstr(text, "guard page below thread 'kt-guarded' "
                               "(id 77)") != NULL, "described as '%s'",
               text);
    a[100] = 1;
    guarded_free(a);
    KT_ASSERT(t, mapped((uint64_t)a));      /* freeing needs no shootdown */
    b = guarded_alloc(16384, GUARDED_THREAD, 0, "kt-guarded2", 78);
    KT_EQ(t, (uint64_t)b, (uint64_t)a);     /* the same size reuses it */
    KT_EQ(t, b[100], 0);
    guarded_free(b);
}
