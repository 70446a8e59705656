/* SPDX-License-Identifier: GPL-2.0-only */
/* Local TLB flushes and the TLB clock (SDM Vol. 3A, 4.10.4). */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <shimk/cmdline.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <asm/cpufeature.h>
#include <asm/flush-inject.h>
#include <asm/flush-adapt.h>
#include <asm/flushtlb.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * The TLB clock (after Xen's flushtlb.c): a global counter ticked
 * before every full flush, and a per-CPU stamp written after it, so a
 * frame stamped with the time of its last use needs flushing only on
 * CPUs whose stamp is not newer.  Ticking after the flush would race
 * with other CPUs' PTE changes, since a speculative refill could land
 * between flush and tick; stamping before it could let a concurrent
 * check see the new stamp while stale entries remain.
 *
 * The clock wraps at 2^bits.  The CPU whose tick produced 0 leads a
 * flush of every CPU and then restarts the clock at 1; while it reads
 * 0 every "need a flush?" answer is yes and ticks are skipped, so the
 * stamps all CPUs write meanwhile are 0.
 */

bool tlb_clock_enabled __read_mostly = true;
uint32_t tlbflush_clock = 1;
uint32_t tlb_clock_mask __read_mostly = 0xffffffffu;
bool use_invpcid __read_mostly;
enum tlb_inject tlb_inject;
unsigned int tlb_inject_cpu;

static bool opt_invpcid = true;
boolean_param("invpcid", opt_invpcid);

static unsigned int opt_clock_bits = CONFIG_TLB_CLOCK_BITS;
uint_param("tlb-clock-bits", opt_clock_bits, 4, 32);

/* Debug: injected bugs (asm/flush-inject.h); tlb-skip-remote=1 is one. */
static bool opt_skip_remote;
boolean_param("tlb-skip-remote", opt_skip_remote);
static char opt_inject[24];
string_param("tlb-inject", opt_inject);
static unsigned int opt_inject_cpu;
uint_param("tlb-inject-cpu", opt_inject_cpu, 0, NR_CPUS - 1);

static inline void invpcid(unsigned long type, uint64_t pcid, uint64_t addr)
{
    struct
    {
        uint64_t pcid, addr;
    } desc = { pcid, addr };

    /* SDM Vol. 2B, INVPCID: type 2 all contexts, 3 all but globals. */
    __asm__ __volatile__("invpcid %0, %1" :: "m"(desc), "r"(type)
                         : "memory");
}

static uint32_t pre_flush(void)
{
    uint32_t t, n;

    if ( !tlb_clock_enabled )
        return 0;
    t = __atomic_load_n(&tlbflush_clock, __ATOMIC_RELAXED);
    do
    {
        if ( t == 0 )
            return 0;   /* another CPU leads a wrap: do not tick */
        n = tlb_clock_next(t, tlb_clock_mask);
    } while ( !__atomic_compare_exchange_n(&tlbflush_clock, &t, n, false,
                                           __ATOMIC_SEQ_CST,
                                           __ATOMIC_RELAXED) );
    if ( n == 0 )
        this_cpu()->tlb_wrap_pending = true;
    return n;
}

static void post_flush(uint32_t t)
{
    struct cpu_info *ci = this_cpu();

    if ( tlb_clock_enabled )
        __atomic_store_n(&ci->tlbflush_time, t, __ATOMIC_RELEASE);
    WRITE_ONCE(ci->full_flushes, ci->full_flushes + 1);
}

unsigned int flush_area_local(const void *va, unsigned int flags)
{
    struct cpu_info *ci = this_cpu();
    enum flush_kind k = flush_local_kind(flags, use_invpcid,
                                         ci->cr4 & X86_CR4_PGE);
    unsigned long f;
    uint32_t t;

    if ( k == FLUSH_KIND_NONE )
        return flags;

    f = local_irq_save();
    if ( k == FLUSH_KIND_INVLPG )
    {
        /* A partial flush: the clock must not say this CPU is clean. */
        unsigned int n = 1u << flush_order(flags);

        for ( unsigned int i = 0; i < n; i++ )
            invlpg((const char *)va + i * PAGE_SIZE);
    }
    else
    {
        ASSERT(!((ci->cr4 & X86_CR4_PGE) && (ci->cr4 & X86_CR4_PCIDE)));
        t = pre_flush();
        switch ( k )
        {
        case FLUSH_KIND_INVPCID_ALL:
            invpcid(2, 0, 0);
            break;
        case FLUSH_KIND_INVPCID_NONGLOBAL:
            invpcid(3, 0, 0);
            break;
        case FLUSH_KIND_PGE_TOGGLE:
            /* SDM 4.10.4.1: clearing CR4.PGE flushes global entries. */
            write_cr4(ci->cr4 & ~X86_CR4_PGE);
            write_cr4(ci->cr4);
            break;
        default:
            write_cr3(read_cr3());
            break;
        }
        post_flush(t);
    }
    ci->flush.local[k]++;
    local_irq_restore(f);
    return flags;
}

void switch_cr3(paddr_t root)
{
    unsigned long f = local_irq_save();
    uint32_t t = pre_flush();

    /* Without PCIDs a CR3 write flushes every non-global entry. */
    write_cr3(root);
    this_cpu()->root = root;
    post_flush(t);
    local_irq_restore(f);
}

void tlb_clock_disable(void)
{
    tlb_clock_enabled = false;
}

void tlb_clock_maybe_wrap(void)
{
    struct cpu_info *ci = this_cpu();
    cpumask_t others;

    if ( likely(!ci->tlb_wrap_pending) || !local_irq_is_enabled() ||
         ci->irq_depth )
        return;
    ci->tlb_wrap_pending = false;
    ci->flush.clock_wraps++;
    /* Stamps written during this flush are 0: the clock reads 0. */
    cpumask_copy(&others, &cpu_online_mask);
    cpumask_clear_cpu(ci->cpu, &others);
    flush_area_mask(&others, NULL, FLUSH_TLB | FLUSH_NO_ASSIST);
    ASSERT(__atomic_load_n(&tlbflush_clock, __ATOMIC_ACQUIRE) == 0);
    __atomic_store_n(&tlbflush_clock, 1, __ATOMIC_RELEASE);
}

/*
 * A CPU still on the kernel's root since its last full flush holds no
 * user entry at all: as good as a stamp newer than any last use.  This
 * goes beyond Xen's clock, which flushes idle CPUs whose stamp is old;
 * aspace_switch() clears the flag, with a fence, before it loads a user
 * root, and that load stamps the CPU anew anyway.
 */
static uint32_t stamp_of(unsigned int cpu)
{
    const struct cpu_info *ci = cpu_infos[cpu];

    uint32_t t;

    if ( __atomic_load_n(&ci->tlb_clean, __ATOMIC_ACQUIRE) )
        return UINT32_MAX;
    t = __atomic_load_n(&ci->tlbflush_time, __ATOMIC_ACQUIRE);
    if ( tlb_injected(TLB_INJECT_CLOCK_OFF_BY_ONE) )
        t = tlb_inject_stamp(t, tlb_clock_mask);
    return t;
}

unsigned int tlb_clock_filter(cpumask_t *mask, uint32_t lastuse)
{
    unsigned int skipped = tlb_filter(mask, stamp_of, tlbflush_current_time(),
                                      lastuse);

    this_cpu()->flush.clock_skips += skipped;
    return skipped;
}

static void tlb_inject_setup(void)
{
    int c = TLB_INJECT_NONE;

    if ( opt_inject[0] )
    {
        c = tlb_inject_parse(opt_inject);
        if ( c < 0 )
        {
            pr_warn("cmdline: tlb-inject: unknown class '%s' (kept none)\n",
                    opt_inject);
            c = TLB_INJECT_NONE;
        }
    }
    if ( opt_skip_remote )
    {
        if ( c != TLB_INJECT_NONE && c != TLB_INJECT_SKIP_REMOTE )
            pr_warn("cmdline: tlb-skip-remote: tlb-inject=%s is set too "
                    "(kept %s)\n", tlb_inject_name(c), tlb_inject_name(c));
        else
            c = TLB_INJECT_SKIP_REMOTE;
    }
    tlb_inject_cpu = opt_inject_cpu;
    tlb_inject = c;
    if ( c == TLB_INJECT_SKIP_REMOTE )
        pr_warn("tlb-inject=skip-remote: remote TLB flushes are NOT done; "
                "this kernel is wrong on purpose (negative control)\n");
    else if ( c != TLB_INJECT_NONE )
        pr_warn("tlb-inject=%s (CPU%u for skip-cpu): a TLB flush bug is "
                "injected; this kernel is wrong on purpose\n",
                tlb_inject_name(c), tlb_inject_cpu);
}

void flush_init(void)
{
    struct cpu_info *ci = this_cpu();

    use_invpcid = opt_invpcid && boot_cpu.invpcid;
    /* mm_init() loaded the kernel root: no user entry exists yet. */
    ci->tlb_clean = true;
    tlb_clock_mask = opt_clock_bits >= 32 ? 0xffffffffu
                                          : (1u << opt_clock_bits) - 1;
    ci->cr4 = read_cr4();
    tlb_inject_setup();
    if ( opt_clock_bits < 32 )
        pr_info("tlb: clock narrowed to %u bits (wraps every %u ticks)\n",
                opt_clock_bits, tlb_clock_mask);
}

static void set_pge(void *arg)
{
    struct cpu_info *ci = this_cpu();
    bool on = arg != NULL;
    unsigned long f = local_irq_save();

    /* Either write flushes the whole TLB, globals included. */
    ci->cr4 = on ? ci->cr4 | X86_CR4_PGE : ci->cr4 & ~X86_CR4_PGE;
    write_cr4(ci->cr4);
    local_irq_restore(f);
}

void tlb_set_global_pages(bool on)
{
    if ( on && !boot_cpu.pge )
        return;
    smp_call_mask(&cpu_online_mask, set_pge, on ? (void *)1 : NULL);
    kernel_pte_global_set(on);
}

void flush_counters_total(struct flush_counters *sum)
{
    unsigned int cpu;

    *sum = (struct flush_counters){ 0 };
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        const uint64_t *src = (const uint64_t *)&cpu_infos[cpu]->flush;
        uint64_t *dst = (uint64_t *)sum;

        for ( unsigned int i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++ )
            dst[i] += READ_ONCE(src[i]);
    }
}

void flush_counters_print(void)
{
    struct flush_counters c;

    flush_counters_total(&c);
    pr_info("tlb: local invlpg %lu cr3-reload %lu pge-toggle %lu "
            "invpcid-all %lu invpcid-nonglobal %lu\n",
            (unsigned long)c.local[FLUSH_KIND_INVLPG],
            (unsigned long)c.local[FLUSH_KIND_CR3_RELOAD],
            (unsigned long)c.local[FLUSH_KIND_PGE_TOGGLE],
            (unsigned long)c.local[FLUSH_KIND_INVPCID_ALL],
            (unsigned long)c.local[FLUSH_KIND_INVPCID_NONGLOBAL]);
    pr_info("tlb: remote requests %lu, flush IPIs sent %lu taken %lu, "
            "assisted %lu ok (%lu shared) %lu failed, %lu kept off L0 "
            "(no-assist), %lu by IPIs (flush-adapt), "
            "clock skips %lu wraps %lu, stale reads %lu\n",
            (unsigned long)c.remote_requests, (unsigned long)c.ipi_targets,
            (unsigned long)c.ipis_received, (unsigned long)c.assisted_ok,
            (unsigned long)c.assisted_shared, (unsigned long)c.assisted_failed,
            (unsigned long)c.no_assist_forced, (unsigned long)c.adapt_ipi,
            (unsigned long)c.clock_skips,
            (unsigned long)c.clock_wraps, (unsigned long)c.stale_reads);
    if ( c.assisted_l0_late )
        pr_info("tlb: %lu assisted flushes the L0 kept past %u ms, done by "
                "IPIs (L0-late)\n", (unsigned long)c.assisted_l0_late,
                WAIT_BOUND_MS);
    if ( c.yields || c.yield_failed )
        pr_info("tlb: %lu yields to flush targets the L0 held off, %lu "
                "refused (pv-yield)\n", (unsigned long)c.yields,
                (unsigned long)c.yield_failed);
    if ( c.ack_resends )
        pr_warn("tlb: %lu flush IPIs sent again to targets silent past "
                "%u ms (lost by the L0, or their vCPU not run)\n",
                (unsigned long)c.ack_resends, WAIT_BOUND_MS);
    flush_adapt_print();
}
