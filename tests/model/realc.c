/* SPDX-License-Identifier: GPL-2.0-only */
/* The model's REALC glue: the kernel's pure flush C, called from SPIN. */

/*
 * Built with the unit tests' flags and linked into pan (tools/model),
 * so under -DREALC each of these model steps is the kernel's own
 * function: the clock tick (tlb_clock_next), the clock filter
 * (tlb_filter over stamp_of's rule, tlb_need_flush, and
 * tlb_inject_stamp for clock-off-by-one), the lazy-unmap record
 * (lazy_unmap_note, lazy_map_targets, lazy_map_flushed on real
 * cpumask_t), the local flush primitive (flush_local_kind), the assist
 * filter (flush_may_assist) and one CPU's step of kvm_flag_preempted.
 * The model's bitmasks are the low bits of a cpumask_t.  Each call is
 * one atomic model step.
 */

#include <guest/kvm.h>
#include <shimk/cpumask.h>
#include <shimk/lazy-unmap.h>
#include <asm/flush-inject.h>
#include <asm/flushtlb.h>

#include "realc.h"

/* The model's request kinds (shootdown.pml, K_*), as the kernel's flags. */
#define K_VA 1
#define K_ALL 2
#define K_GLOBAL 4
#define K_NA 8
#define K_WRONGVA 16

/* And what a local flush drops (E_*). */
#define E_NONE 0
#define E_INVLPG 1
#define E_NONGLOBAL 2
#define E_ALL 3

/* The model's clock mask (CLKMASK), set by each filter call. */
static uint32_t cur_mask;

static void mask_of(cpumask_t *m, int bits)
{
    cpumask_clear(m);
    for ( unsigned int cpu = 0; cpu < 8; cpu++ )
        if ( bits & (1 << cpu) )
            cpumask_set_cpu(cpu, m);
}

static int bits_of(const cpumask_t *m)
{
    int bits = 0;

    for ( unsigned int cpu = 0; cpu < 8; cpu++ )
        if ( cpumask_test_cpu(cpu, m) )
            bits |= 1 << cpu;
    return bits;
}

static unsigned int flags_of(int kind)
{
    unsigned int f = 0;

    if ( kind & (K_VA | K_WRONGVA) )
        f |= FLUSH_TLB | FLUSH_ORDER(0);
    if ( kind & K_ALL )
        f |= FLUSH_TLB;
    if ( kind & K_GLOBAL )
        f |= FLUSH_TLB_GLOBAL;
    if ( kind & K_NA )
        f |= FLUSH_NO_ASSIST;
    return f;
}

int m_clock_next(int now, int mask)
{
    return (int)tlb_clock_next((uint32_t)now, (uint32_t)mask);
}

/* stamp_of() (arch/x86/flush/flushtlb.c) over the model's CPUs. */
static const int *cur_stamps, *cur_clean;
static int cur_obo;

static uint32_t model_stamp_of(unsigned int cpu)
{
    uint32_t t;

    if ( cur_clean[cpu] )
        return UINT32_MAX;
    t = (uint32_t)cur_stamps[cpu];
    if ( cur_obo )
        t = tlb_inject_stamp(t, cur_mask);
    return t;
}

int m_filter(int bits, int now, int lastuse, const int *stamps,
             const int *clean, int mask, int obo)
{
    cpumask_t m;

    cur_mask = (uint32_t)mask;
    mask_of(&m, bits);
    cur_stamps = stamps;
    cur_clean = clean;
    cur_obo = obo;
    tlb_filter(&m, model_stamp_of, (uint32_t)now, (uint32_t)lastuse);
    return bits_of(&m);
}

/* tlb_clock_filter() with the clock read by the model. */
static uint32_t cur_now;

static unsigned int model_clock_filter(cpumask_t *mask, uint32_t lastuse)
{
    return tlb_filter(mask, model_stamp_of, cur_now, lastuse);
}

void m_lazy_note(int *cpus, int *time, int *gen, int holders, int now)
{
    struct lazy_unmaps l = { .time = (uint32_t)*time,
                             .gen = (unsigned int)*gen };
    cpumask_t h;

    mask_of(&l.cpus, *cpus);
    mask_of(&h, holders);
    lazy_unmap_note(&l, &h, (uint32_t)now);
    *cpus = bits_of(&l.cpus);
    *time = (int)l.time;
    /* the model's generation is a byte */
    *gen = (int)(l.gen & 0xffu);
}

void m_lazy_targets(int *cpus, int time, int gen, int space, int now,
                    const int *stamps, const int *clean, int mask, int obo,
                    int *targets, int *gen_out)
{
    struct lazy_unmaps l = { .time = (uint32_t)time,
                             .gen = (unsigned int)gen };
    cpumask_t s, t;
    unsigned int g;

    cur_mask = (uint32_t)mask;
    mask_of(&l.cpus, *cpus);
    mask_of(&s, space);
    cur_stamps = stamps;
    cur_clean = clean;
    cur_obo = obo;
    cur_now = (uint32_t)now;
    lazy_map_targets(&l, &s, model_clock_filter, &t, &g);
    *cpus = bits_of(&l.cpus);
    *targets = bits_of(&t);
    *gen_out = (int)g;
}

void m_lazy_flushed(int *cpus, int rec_gen, int gen, int flushed,
                    int ignore_gen)
{
    struct lazy_unmaps l = { .gen = (unsigned int)rec_gen };
    cpumask_t f;

    mask_of(&l.cpus, *cpus);
    mask_of(&f, flushed);
    /* lazy-gen: the kernel's function, handed the record's own number */
    lazy_map_flushed(&l, &f, ignore_gen ? l.gen : (unsigned int)gen);
    *cpus = bits_of(&l.cpus);
}

int m_local_effect(int kind)
{
    /* No INVPCID, CR4.PGE on: what Xen and KVM in TCG give shimk. */
    switch ( flush_local_kind(flags_of(kind), false, true) )
    {
    case FLUSH_KIND_INVLPG:
        return E_INVLPG;
    case FLUSH_KIND_CR3_RELOAD:
    case FLUSH_KIND_INVPCID_NONGLOBAL:
        return E_NONGLOBAL;
    case FLUSH_KIND_PGE_TOGGLE:
    case FLUSH_KIND_INVPCID_ALL:
        return E_ALL;
    default:
        return E_NONE;
    }
}

int m_may_assist(int kind)
{
    return flush_may_assist(flags_of(kind));
}

/* One target of kvm_flag_preempted(): the CPU whose byte is *st. */
static struct kvm_steal_time model_st;

static struct kvm_steal_time *model_area_of(unsigned int cpu)
{
    return cpu == 0 ? &model_st : NULL;
}

int m_kvm_flag(int *st, int *unused)
{
    cpumask_t m;
    unsigned int dropped;

    (void)unused;
    model_st.preempted = (uint8_t)*st;
    mask_of(&m, 1);
    dropped = kvm_flag_preempted(&m, model_area_of);
    *st = model_st.preempted;
    return dropped != 0;
}
