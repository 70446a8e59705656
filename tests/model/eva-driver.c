/* SPDX-License-Identifier: GPL-2.0-only */
/* Frama-C EVA driver: every pure TLB-flush function on every input. */

/*
 * Read by Frama-C only (tools/model-eva), never by gcc.  eva_main()
 * calls each pure flush-path function once with every argument
 * unknown: full-range integers, arbitrary 64-CPU masks, callbacks that
 * may return anything.  EVA then proves the absence of run-time errors
 * (UB: overflows, shifts, out-of-bounds or invalid accesses, ...) for
 * all those inputs at once, or reports an alarm where it cannot.
 *
 * The same file is force-included (-include, with
 * SHIMK_EVA_PRELUDE_ONLY) into each pure file, for its prelude alone.
 *
 * Frama-C primitives used: see the Eva user manual (Frama-C 25.0
 * Manganese, https://frama-c.com/download/frama-c-eva-manual.pdf),
 * chapter "Primitives": Frama_C_interval,
 * Frama_C_unsigned_int_interval, Frama_C_nondet and
 * Frama_C_make_unknown add non-determinism (declared, with contracts,
 * in $FRAMAC_SHARE/libc/__fc_builtin.h); Frama_C_show_each_* only
 * print the values EVA found, into the log.  memset and strcmp take
 * the contracts of Frama-C's own <string.h>, and memset is run as the
 * EVA builtin Frama_C_memset (-eva-builtins-auto; -eva-builtins-list).
 * __builtin_ctzll (cpumask_next) has its contract in Frama-C's
 * __fc_gcc_builtins.h under -machdep gcc_x86_64: requires x != 0,
 * ensures 0 <= \result < 64.
 */

#ifndef __FRAMAC__
#error "tests/model/eva-driver.c is for Frama-C only: run tools/model-eva"
#endif

#ifndef SHIMK_EVA_PRELUDE
#define SHIMK_EVA_PRELUDE

/*
 * GCC's __atomic builtins, which Frama-C 25 does not know, as plain
 * accesses with the same results.  EVA analyses one thread, so this is
 * sound for run-time errors in these functions; it says nothing about
 * races (the SPIN model's business, docs/model.md).
 */
#define __atomic_load_n(p, mo) (*(p))

#define __atomic_fetch_or(p, v, mo)                                       \
    ({                                                                    \
        __typeof__(p) eva_p_ = (p);                                       \
        __typeof__(*eva_p_) eva_old_ = *eva_p_;                           \
        *eva_p_ = eva_old_ | (v);                                         \
        eva_old_;                                                         \
    })

#define __atomic_fetch_and(p, v, mo)                                      \
    ({                                                                    \
        __typeof__(p) eva_p_ = (p);                                       \
        __typeof__(*eva_p_) eva_old_ = *eva_p_;                           \
        *eva_p_ = eva_old_ & (v);                                         \
        eva_old_;                                                         \
    })

#define __atomic_compare_exchange_n(p, e, d, weak, mo_ok, mo_fail)        \
    ({                                                                    \
        __typeof__(p) eva_p_ = (p);                                       \
        __typeof__(e) eva_e_ = (e);                                       \
        _Bool eva_ok_ = *eva_p_ == *eva_e_;                               \
        if ( eva_ok_ )                                                    \
            *eva_p_ = (d);                                                \
        else                                                              \
            *eva_e_ = *eva_p_;                                            \
        eva_ok_;                                                          \
    })

#endif /* SHIMK_EVA_PRELUDE */

#ifndef SHIMK_EVA_PRELUDE_ONLY

#include <__fc_builtin.h>
#include <limits.h>
#include <string.h>     /* Frama-C's: contracts for memset, strcmp */

#include <asm/flush-inject.h>
#include <asm/flush-policy.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <guest/kvm.h>
#include <shimk/cpumask.h>
#include <shimk/lazy-unmap.h>

/* --- unknown inputs --- */

static uint32_t any_u32(void)
{
    return Frama_C_unsigned_int_interval(0, UINT32_MAX);
}

static uint64_t any_u64(void)
{
    uint64_t v;

    Frama_C_make_unknown((char *)&v, sizeof(v));
    return v;
}

static bool any_bool(void)
{
    return Frama_C_nondet(0, 1);
}

/* Any 64-CPU mask: every bit unknown. */
static void any_mask(cpumask_t *m)
{
    Frama_C_make_unknown((char *)m, sizeof(*m));
}

/* A CPU number the inline single-bit operations accept. */
static unsigned int any_cpu(void)
{
    return Frama_C_unsigned_int_interval(0, NR_CPUS - 1);
}

/* --- callbacks: what the kernel passes, with unknown results --- */

/* stamp_of() (flushtlb.c): any stamp, UINT32_MAX for "clean" included. */
static uint32_t eva_stamp_of(unsigned int cpu)
{
    /*@ assert cpu_in_range: cpu < NR_CPUS; */
    return any_u32();
}

/* The same through the clock-off-by-one injection. */
static uint32_t eva_stamp_obo(unsigned int cpu)
{
    /*@ assert cpu_in_range: cpu < NR_CPUS; */
    return tlb_inject_stamp(any_u32(), any_u32());
}

/* tlb_clock_filter() (flushtlb.c) with the clock at any value. */
static unsigned int eva_clock_filter(cpumask_t *mask, uint32_t lastuse)
{
    uint32_t (*stamp_of)(unsigned int) =
        any_bool() ? eva_stamp_of : eva_stamp_obo;

    return tlb_filter(mask, stamp_of, any_u32(), lastuse);
}

/* The kernel's per-CPU steal-time areas, each byte unknown. */
static struct kvm_steal_time steal_areas[NR_CPUS];

static struct kvm_steal_time *eva_area_of(unsigned int cpu)
{
    /*@ assert cpu_in_range: cpu < NR_CPUS; */
    if ( any_bool() )
        return NULL;    /* no area registered for this CPU */
    return &steal_areas[cpu];
}

/* --- one call of each function, every input --- */

static void eva_tlb_clock(void)
{
    cpumask_t m;
    uint32_t (*stamp_of)(unsigned int) =
        any_bool() ? eva_stamp_of : eva_stamp_obo;

    Frama_C_show_each_need(tlb_need_flush(any_u32(), any_u32(), any_u32()));
    Frama_C_show_each_next(tlb_clock_next(any_u32(), any_u32()));
    any_mask(&m);
    Frama_C_show_each_cleared(tlb_filter(&m, stamp_of, any_u32(),
                                         any_u32()));
}

static void eva_flush_inject(void)
{
    static const char *const names[] = {
        "none", "skip-remote", "skip-cpu", "wrong-page", "nonglobal",
        "clock-off-by-one", "l0-lie", "ignore-no-assist", "lazy-map",
    };
    static char page[2 * PAGE_SIZE];
    char s[24];
    const char *name;

    Frama_C_show_each_stamp(tlb_inject_stamp(any_u32(), any_u32()));
    Frama_C_show_each_name(tlb_inject_name(
        (enum tlb_inject)Frama_C_interval(INT_MIN, INT_MAX)));
    /* Every known name, and any other string of up to 23 bytes. */
    Frama_C_make_unknown(s, sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    if ( any_bool() )
        name = names[Frama_C_interval(0, ARRAY_SIZE(names) - 1)];
    else
        name = s;
    Frama_C_show_each_parse(tlb_inject_parse(name));
    /* Any va of a page-aligned range: its next page is still in it. */
    Frama_C_show_each_wrong_va(tlb_inject_wrong_va(
        page + Frama_C_interval(0, PAGE_SIZE - 1)));
}

static void eva_flush_policy(void)
{
    int8_t option = (int8_t)Frama_C_interval(INT8_MIN, INT8_MAX);
    enum cpu_vendor vendor =
        (enum cpu_vendor)Frama_C_interval(VENDOR_UNKNOWN, VENDOR_ZHAOXIN);
    unsigned int flags = any_u32();

    Frama_C_show_each_gp(global_pages_default(vendor, any_bool()),
                         global_pages_resolve(option, any_bool(), vendor,
                                              any_bool()),
                         global_pages_measured(any_u64(), any_u64(),
                                               any_u64()));
    Frama_C_show_each_order(flush_order(flags));
    Frama_C_show_each_kind(flush_local_kind(flags, any_bool(), any_bool()));
    Frama_C_show_each_assist(flush_may_assist(flags));
    Frama_C_show_each_kind_name(flush_kind_name(
        (enum flush_kind)Frama_C_unsigned_int_interval(0, UINT32_MAX)));
}

static void eva_lazy_unmap(void)
{
    struct lazy_unmaps l;
    cpumask_t holders, space, targets, flushed;
    unsigned int gen;
    unsigned int (*filter)(cpumask_t *, uint32_t) = eva_clock_filter;

    /* Any record: any CPUs, time and generation. */
    Frama_C_make_unknown((char *)&l, sizeof(l));
    any_mask(&holders);
    lazy_unmap_note(&l, &holders, any_u32());
    any_mask(&space);
    Frama_C_show_each_targets(lazy_map_targets(&l, &space, filter,
                                               &targets, &gen));
    /* The targets, or any other mask; this generation or any other. */
    any_mask(&flushed);
    if ( any_bool() )
        cpumask_copy(&flushed, &targets);
    if ( any_bool() )
        gen = any_u32();
    lazy_map_flushed(&l, &flushed, gen);
}

static void eva_cpumask(void)
{
    cpumask_t a, b, c;
    unsigned int cpu = any_cpu();

    any_mask(&a);
    any_mask(&b);
    cpumask_clear(&c);
    cpumask_setall(&c, any_u32());
    cpumask_copy(&c, &a);
    cpumask_and(&c, &a, &b);
    cpumask_or(&c, &a, &b);
    cpumask_andnot(&c, &a, &b);
    Frama_C_show_each_preds(cpumask_equal(&a, &b), cpumask_empty(&a),
                            cpumask_subset(&a, &b),
                            cpumask_intersects(&a, &b));
    Frama_C_show_each_weight(cpumask_weight(&a));
    Frama_C_show_each_first(cpumask_first(&a));
    Frama_C_show_each_next(cpumask_next(&a, any_u32()));
    cpumask_set_cpu(cpu, &a);
    cpumask_clear_cpu(any_cpu(), &a);
    Frama_C_show_each_bit(cpumask_test_cpu(any_cpu(), &a),
                          cpumask_test_and_clear_cpu(any_cpu(), &a));
}

static void eva_kvm_pv(void)
{
    cpumask_t m;

    Frama_C_make_unknown((char *)steal_areas, sizeof(steal_areas));
    any_mask(&m);
    Frama_C_show_each_usable(kvm_pv_tlb_flush_usable(any_u32(), any_u32()));
    Frama_C_show_each_dropped(kvm_flag_preempted(&m, eva_area_of));
}

/* The restart check on an area of any content, and on none. */
static void eva_kvm_stop_flag(void)
{
    struct pvclock_vcpu_time_info ti;

    Frama_C_make_unknown((char *)&ti, sizeof(ti));
    Frama_C_show_each_stopped(kvm_take_stop_flag(&ti),
                              kvm_take_stop_flag(NULL));
}

/* kvmclock's scale as the L0 wrote it: any multiplier, any shift. */
static void eva_pvclock_scale(void)
{
    Frama_C_show_each_khz(pvclock_scale_khz(any_u32(), (int8_t)any_u32()));
}

void eva_main(void)
{
    eva_kvm_stop_flag();
    eva_pvclock_scale();
    eva_tlb_clock();
    eva_flush_inject();
    eva_flush_policy();
    eva_lazy_unmap();
    eva_cpumask();
    eva_kvm_pv();
}

#endif /* SHIMK_EVA_PRELUDE_ONLY */
