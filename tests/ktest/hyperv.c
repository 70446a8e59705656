/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: the Hyper-V backend against a real L0 (skipped elsewhere). */

#include <guest/flush-fault.h>
#include <guest/hyperv.h>
#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <shimk/frame.h>
#include <shimk/ktest.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/flush-adapt.h>
#include <asm/flushtlb.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/probe.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * What these prove, on an L0 that offers Hyper-V's interface (Hyper-V,
 * or KVM with its enlightenments, tools/boot --env hyperv-nested):
 *
 * - the hypercall page holds the L0's code and no mapping of it is
 *   writable; every CPU read its VP index, and it is still the MSR's;
 * - a remote flush through flush_area_mask() and the hook removes a
 *   stale translation from a CPU that has interrupts off the whole
 *   time, so no IPI can have done it, in each of the four call forms
 *   (plain and Ex, space and list) and for one target or all;
 * - a GVA list of several entries, and one longer than an input page,
 *   completes in the calls it should;
 * - an L0 that refuses a call (a malformed one, on purpose) and an
 *   error injected by assisted-flush-fault= both end in IPIs that do
 *   the flush, counted as failed assists;
 * - the cluster IPI reaches its targets, in both forms.
 *
 * The stale translation: the reader CPU maps a test page to frame A
 * and reads it, so its TLB holds A; the page table is then pointed at
 * frame B.  Before the flush the reader reads again (the control: an
 * L0 that flushes guest TLBs on every exit may have dropped A already,
 * which is noted); after it, it must read B.
 */

#define TEST_VA     (IOREMAP_BASE + (302ull << 30))
#define VALUE_A     0xaaaa0000aaaa0000ull
#define VALUE_B     0xbbbb0000bbbb0000ull
#define WAIT_MS     2000    /* below WAIT_BOUND_MS: a late IPI still lands */

/* Built only with CONFIG_GUEST_HYPERV (tests/ktest/build.mk). */
#define NEED_HYPERV(t)                                                    \
    do                                                                    \
    {                                                                     \
        if ( hypervisor_type() != HV_HYPERV )                             \
            KT_SKIP(t, "not under Hyper-V (hv=%s)",                       \
                    hv_type_name(hypervisor_type()));                     \
    } while ( 0 )

#define NEED_HYPERV_FLUSH(t)                                              \
    do                                                                    \
    {                                                                     \
        NEED_HYPERV(t);                                                   \
        if ( !hypervisor_has_flush_tlb() )                                \
            KT_SKIP(t, "the Hyper-V flush is not in use (%s)",            \
                    hypervisor_ops.flush_tlb ? "switched off"             \
                                             : "assisted-flush=0, or "    \
                                               "not recommended");        \
        if ( assist_fault_mode_set() )                                    \
            KT_SKIP(t, "assisted-flush-fault= makes the L0 flush fail"); \
        if ( cpumask_next(&cpu_online_mask, 1) >= NR_CPUS )               \
            KT_SKIP(t, "needs a second CPU");                             \
    } while ( 0 )

static bool waited_too_long(uint64_t start)
{
    return rdtsc() - start > ms_to_cycles(WAIT_MS);
}

/* --- the hypercall page and VP indices ----------------------------------- */

KTEST(hyperv, hypercall_page_not_writable)
{
    const volatile uint8_t *page = hyperv_hcall_page;
    uint64_t v, pte, msr;
    unsigned int order;

    NEED_HYPERV(t);
    if ( !hyperv_hypercalls_usable(&hyperv_cpuid) )
        KT_SKIP(t, "the partition may not make hypercalls");
    KT_ASSERTF(t, page, "hypercalls are allowed, but no page is set up");
    /* The L0's code is there (the frame was zeroed before). */
    KT_EQ(t, probe_read_u64(page, &v), 0);
    KT_ASSERT(t, v != 0);
    /* Neither the executable mapping nor the direct map can write it. */
    KT_ASSERT(t, probe_write_u64((volatile void *)page, v) < 0);
    KT_EQ(t, pt_lookup(kernel_root, (vaddr_t)page, &pte, &order), 0);
    KT_EQ(t, order, PT_ORDER_4K);
    KT_ASSERTF(t, !(pte & PTE_W), "hypercall page PTE %#lx writable",
               (unsigned long)pte);
    KT_ASSERTF(t, !(pte & PTE_NX), "hypercall page PTE %#lx not executable",
               (unsigned long)pte);
    if ( !pt_lookup(kernel_root, (vaddr_t)phys_to_virt(hyperv_hcall_frame),
                    &pte, &order) )
    {
        KT_ASSERT(t, probe_write_u64(phys_to_virt(hyperv_hcall_frame), v) <
                         0);
        KT_ASSERT(t, !(pte & PTE_W));
    }
    /* The MSR still points there, enabled, and an OS id is reported. */
    KT_EQ(t, rdmsr_safe(HV_X64_MSR_HYPERCALL, &msr), 0);
    KT_ASSERT(t, msr & HV_HYPERCALL_ENABLE);
    KT_EQ(t, msr & PAGE_MASK, hyperv_hcall_frame);
    KT_EQ(t, rdmsr_safe(HV_X64_MSR_GUEST_OS_ID, &msr), 0);
    KT_ASSERT(t, msr != 0);
}

static uint32_t vp_now[NR_CPUS];

static void read_vp_index(void *arg)
{
    uint64_t v = ~0ull;

    rdmsr_safe(HV_X64_MSR_VP_INDEX, &v);
    vp_now[smp_processor_id()] = (uint32_t)v;
}

KTEST(hyperv, vp_index_every_cpu)
{
    unsigned int a, b;

    NEED_HYPERV(t);
    if ( !(hyperv_cpuid.privileges & HV_PRIV_VP_INDEX) )
        KT_SKIP(t, "no VP index privilege");
    smp_call_mask(&cpu_online_mask, read_vp_index, NULL);
    for_each_cpu ( a, &cpu_online_mask )
    {
        KT_ASSERTF(t, cpu_infos[a]->hv_vcpu_id != ~0u,
                   "CPU%u has no VP index", a);
        KT_ASSERTF(t, cpu_infos[a]->hv_vcpu_id == vp_now[a],
                   "CPU%u read VP index %u at boot, the MSR says %u now", a,
                   cpu_infos[a]->hv_vcpu_id, vp_now[a]);
        for_each_cpu ( b, &cpu_online_mask )
            KT_ASSERTF(t, a == b || cpu_infos[a]->hv_vcpu_id !=
                                        cpu_infos[b]->hv_vcpu_id,
                       "CPUs %u and %u share VP index %u", a, b,
                       cpu_infos[a]->hv_vcpu_id);
    }
}

/* --- a stale translation on another CPU ---------------------------------- */

static struct
{
    bool irqs_off;
    volatile int phase;     /* 1 cached, 2 retargeted, 3 control, */
    uint64_t control_seen;  /* 4 flushed, 5 read again */
    uint64_t final_seen;
    volatile bool gave_up;  /* a side stopped waiting for the other */
} rd;

/*
 * A side waits for the other's next step.  Under nested TCG a vCPU can
 * be away for seconds, so the bound is long, and a side that gave up
 * makes the case inconclusive: it used to read at the wrong moment and
 * report a stale translation that was not there.  A reader with
 * interrupts off keeps WAIT_MS, below the flush's own bound, so that an
 * IPI flush sent meanwhile still lands.
 */
#define PHASE_MS 60000

static unsigned int phase_ms(void)
{
    return rd.irqs_off ? WAIT_MS : PHASE_MS;
}

static bool wait_phase(int want)
{
    uint64_t start = rdtsc();

    while ( READ_ONCE(rd.phase) < want )
    {
        if ( rdtsc() - start > ms_to_cycles(phase_ms()) )
        {
            WRITE_ONCE(rd.gave_up, true);
            return false;
        }
        cpu_relax();
    }
    return true;
}

static void reader(void *arg)
{
    unsigned long f = 0;

    if ( rd.irqs_off )
        f = local_irq_save();
    (void)*(volatile uint64_t *)TEST_VA;
    WRITE_ONCE(rd.phase, 1);
    if ( wait_phase(2) )
    {
        rd.control_seen = *(volatile uint64_t *)TEST_VA;
        WRITE_ONCE(rd.phase, 3);
        if ( wait_phase(4) )
            rd.final_seen = *(volatile uint64_t *)TEST_VA;
    }
    if ( rd.irqs_off )
        local_irq_restore(f);
    WRITE_ONCE(rd.phase, 5);
}

struct stale
{
    paddr_t a, b;
    unsigned int reader_cpu;
};

/*
 * Wait for the reader to finish (its own waits are bounded, so it gets
 * to phase 5), then take the test page away.  false: it stopped, and
 * the page stays, since it may still read through it.
 */
static bool stale_cleanup(struct ktest *t, struct stale *s, const char *what)
{
    uint64_t start = rdtsc();

    WRITE_ONCE(rd.phase, MAX(READ_ONCE(rd.phase), 4));
    while ( READ_ONCE(rd.phase) < 5 )
    {
        if ( rdtsc() - start > ms_to_cycles(2 * PHASE_MS) )
        {
            ktest_fail(t, __FILE__, __LINE__, "%s: the reader on CPU%u "
                       "stopped (phase %d after %u ms)", what, s->reader_cpu,
                       READ_ONCE(rd.phase), 2 * PHASE_MS);
            return false;
        }
        cpu_relax();
    }
    pt_unmap(kernel_root, TEST_VA, PT_ORDER_4K, NULL);
    flush_area_mask(&cpu_online_mask, (const void *)TEST_VA,
                    FLUSH_TLB_GLOBAL | FLUSH_ORDER(0));
    frame_free(s->a);
    frame_free(s->b);
    return true;
}

/* Map TEST_VA to A, and have reader_cpu cache it. */
static bool stale_begin(struct ktest *t, struct stale *s, bool irqs_off,
                        bool global)
{
    uint64_t start = rdtsc(), *e;

    s->a = frame_alloc();
    s->b = frame_alloc();
    *(uint64_t *)phys_to_virt(s->a) = VALUE_A;
    *(uint64_t *)phys_to_virt(s->b) = VALUE_B;
    if ( pt_map(kernel_root, TEST_VA, s->a, PT_ORDER_4K,
                kernel_pte_nx | (global ? PTE_G : 0)) )
    {
        ktest_fail(t, __FILE__, __LINE__, "cannot map the test page");
        return false;
    }
    rd.irqs_off = irqs_off;
    rd.control_seen = rd.final_seen = 0;
    rd.gave_up = false;
    WRITE_ONCE(rd.phase, 0);
    thread_create("hv-reader", reader, NULL, s->reader_cpu, true);
    while ( READ_ONCE(rd.phase) < 1 )
        if ( waited_too_long(start) )
        {
            ktest_fail(t, __FILE__, __LINE__, "reader on CPU%u never ran",
                       s->reader_cpu);
            return false;
        }
    /* Retarget the page; the reader's TLB still says A. */
    e = pt_leaf(kernel_root, TEST_VA, PT_ORDER_4K);
    WRITE_ONCE(*e, (*e & ~PTE_ADDR_MASK) | s->b);
    WRITE_ONCE(rd.phase, 2);
    if ( !wait_phase(3) )
    {
        if ( stale_cleanup(t, s, "before the flush") )
            ktest_skip(t, "inconclusive: the reader on CPU%u did not read "
                       "again within %u ms of the retarget (a slow host)",
                       s->reader_cpu, phase_ms());
        return false;
    }
    return true;
}

/* Let the reader read again; did it see B?  Then clean up. */
static bool stale_end(struct ktest *t, struct stale *s, const char *what,
                      bool *was_stale)
{
    bool ok;

    if ( !stale_cleanup(t, s, what) )
        return false;
    *was_stale = rd.control_seen == VALUE_A;
    ok = rd.final_seen == VALUE_B;
    if ( READ_ONCE(rd.gave_up) )
    {
        ok = false;
        ktest_skip(t, "inconclusive: %s: the reader on CPU%u and this CPU "
                   "did not meet within %u ms (a slow host): nothing to "
                   "judge", what, s->reader_cpu, phase_ms());
    }
    else if ( !ok )
        ktest_fail(t, __FILE__, __LINE__, "%s: CPU%u read %#lx after the "
                   "flush, through a stale translation", what, s->reader_cpu,
                   (unsigned long)rd.final_seen);
    return ok;
}

/*
 * This CPU's own counts: other CPUs may flush or send IPIs meanwhile
 * (timer kicks), and only the initiator's calls are under test.
 */
static void my_counts(struct hyperv_counts *c)
{
    hyperv_counts_cpu(smp_processor_id(), c);
}

static void my_flush_counts(struct flush_counters *c)
{
    *c = this_cpu()->flush;
}

static uint64_t calls_of(const struct hyperv_counts *c, bool ex, bool list)
{
    if ( list )
        return ex ? c->flush_list_ex : c->flush_list;
    return ex ? c->flush_space_ex : c->flush_space;
}

/*
 * One round: rounds 0-7 are each form (plain, Ex), kind (space, list)
 * and target set (one CPU, all others); 8 and 9 flush a global entry,
 * in each form.  False after a failure, reported.
 */
static bool flush_round(struct ktest *t, unsigned int round,
                        unsigned int other, bool *was_stale)
{
    bool ex = round & 1, global = round >= 8;
    bool list = !global && (round & 2), all = !global && (round & 4);
    /* A global entry survives all but a global flush. */
    unsigned int flags = (global ? FLUSH_TLB_GLOBAL : FLUSH_TLB) |
                         (list ? FLUSH_ORDER(0) : 0);
    enum hyperv_form boot_form = hyperv_debug_form;
    struct stale s = { .reader_cpu = other };
    struct flush_counters c0, c1;
    struct hyperv_counts h0, h1;
    cpumask_t m;
    char what[64];
    int pinned;

    ksnprintf(what, sizeof(what), "%s %s%s to %s", ex ? "Ex" : "plain",
              list ? "list" : "space", global ? " (global page)" : "",
              all ? "all" : "one CPU");
    cpumask_clear(&m);
    if ( all )
    {
        cpumask_copy(&m, &cpu_online_mask);
        cpumask_clear_cpu(smp_processor_id(), &m);
    }
    else
        cpumask_set_cpu(other, &m);
    if ( !stale_begin(t, &s, true, global) )
        return false;
    my_flush_counts(&c0);
    my_counts(&h0);
    hyperv_debug_form = ex ? HYPERV_FORM_EX : HYPERV_FORM_PLAIN;
    pinned = flush_adapt_force(ADAPT_L0);
    flush_area_mask(&m, list ? (const void *)TEST_VA : NULL, flags);
    flush_adapt_force(pinned);
    hyperv_debug_form = boot_form;
    my_counts(&h1);
    my_flush_counts(&c1);
    if ( !stale_end(t, &s, what, was_stale) )
        return false;
    /* The L0 did it, in the form asked for, and no IPI was sent. */
    if ( c1.assisted_ok - c0.assisted_ok != 1 ||
         c1.ipi_targets - c0.ipi_targets )
    {
        ktest_fail(t, __FILE__, __LINE__, "%s: %lu assisted, %lu failed, "
                   "%lu IPIs", what,
                   (unsigned long)(c1.assisted_ok - c0.assisted_ok),
                   (unsigned long)(c1.assisted_failed - c0.assisted_failed),
                   (unsigned long)(c1.ipi_targets - c0.ipi_targets));
        return false;
    }
    if ( calls_of(&h1, ex, list) - calls_of(&h0, ex, list) != 1 )
    {
        ktest_fail(t, __FILE__, __LINE__, "%s: not made with that call",
                   what);
        return false;
    }
    return true;
}

KTEST(hyperv, remote_flush_drops_stale_entry)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1), stale = 0, n;
    bool boot_pge = read_cr4() & X86_CR4_PGE;

    NEED_HYPERV_FLUSH(t);
    for ( n = 0; n < (boot_cpu.pge ? 10u : 8u); n++ )
    {
        bool was_stale = false, ok;

        if ( n == 8 )
            tlb_set_global_pages(true);
        ok = flush_round(t, n, other, &was_stale);
        stale += was_stale;
        if ( !ok )
            break;
    }
    tlb_set_global_pages(boot_pge);
    ktest_note("%u rounds; the control read was stale in %u (the rest: the "
               "L0 dropped the entry before the flush)", n, stale);
}

/* Several GVA entries in one call, and more than one input page's worth. */
KTEST(hyperv, rep_list_several_entries)
{
    static const uint64_t sizes[] = { 3 * 4096 + 5, 600 * 4096 };
    unsigned int other = cpumask_next(&cpu_online_mask, 1);

    NEED_HYPERV_FLUSH(t);
    for ( unsigned int i = 0; i < ARRAY_SIZE(sizes); i++ )
    {
        /* TEST_VA in the third entry, whatever the size. */
        uint64_t base = TEST_VA - 2 * 4096 * PAGE_SIZE - 7 * PAGE_SIZE;
        uint64_t entries = (sizes[i] + 4095) / 4096, calls, reps, cap;
        struct stale s = { .reader_cpu = other };
        struct hyperv_counts h0, h1;
        cpumask_t m;
        bool was_stale;
        int rc;

        cpumask_clear(&m);
        cpumask_set_cpu(other, &m);
        if ( !stale_begin(t, &s, true, false) )
            return;
        my_counts(&h0);
        rc = hyperv_flush_range(&m, base, sizes[i]);
        my_counts(&h1);
        if ( !stale_end(t, &s, "GVA list", &was_stale) )
            return;
        calls = h1.flush_list + h1.flush_list_ex - h0.flush_list -
                h0.flush_list_ex;
        reps = h1.reps - h0.reps;
        ktest_note("%lu pages: %lu entries in %lu calls (%lu reissued), "
                   "control read %s", (unsigned long)sizes[i],
                   (unsigned long)reps, (unsigned long)calls,
                   (unsigned long)(h1.reissued - h0.reissued),
                   was_stale ? "stale" : "not stale");
        KT_EQ(t, rc, 0);
        KT_EQ(t, reps, entries);
        KT_EQ(t, h1.failed - h0.failed, 0);
        /*
         * An input page holds 512 words: after the plain header (3)
         * 509 entries, after the Ex one with one bank (5) 507.
         */
        cap = h1.flush_list_ex != h0.flush_list_ex ? 507 : 509;
        KT_ASSERTF(t, calls == (entries + cap - 1) / cap,
                   "%lu entries in %lu calls", (unsigned long)entries,
                   (unsigned long)calls);
    }
}

/* --- refusals end in IPIs ------------------------------------------------ */

KTEST(hyperv, l0_error_falls_back_to_ipis)
{
    enum hyperv_form boot_form = hyperv_debug_form;
    unsigned int other = cpumask_next(&cpu_online_mask, 1);

    NEED_HYPERV_FLUSH(t);
    for ( unsigned int round = 0; round < 4; round++ )
    {
        bool ex = round & 1, list = round & 2;
        struct stale s = { .reader_cpu = other };
        struct flush_counters c0, c1;
        struct hyperv_counts h0, h1;
        unsigned int left;
        cpumask_t m;
        bool was_stale;
        int pinned;

        cpumask_clear(&m);
        cpumask_set_cpu(other, &m);
        hyperv_debug_form = ex ? HYPERV_FORM_EX : HYPERV_FORM_PLAIN;
        /* Interrupts on: the fallback's IPI must get in. */
        if ( !stale_begin(t, &s, false, false) )
            break;
        my_flush_counts(&c0);
        my_counts(&h0);
        __atomic_store_n(&hyperv_debug_malformed, 1, __ATOMIC_SEQ_CST);
        pinned = flush_adapt_force(ADAPT_L0);
        flush_area_mask(&m, list ? (const void *)TEST_VA : NULL,
                        FLUSH_TLB | (list ? FLUSH_ORDER(0) : 0));
        flush_adapt_force(pinned);
        my_counts(&h1);
        my_flush_counts(&c1);
        hyperv_debug_form = boot_form;
        left = __atomic_exchange_n(&hyperv_debug_malformed, 0,
                                   __ATOMIC_SEQ_CST);
        if ( !stale_end(t, &s, "after a refused call", &was_stale) )
            break;
        KT_EQ(t, left, 0);
        KT_EQ(t, h1.failed - h0.failed, 1);
        KT_EQ(t, c1.assisted_failed - c0.assisted_failed, 1);
        KT_EQ(t, c1.assisted_ok - c0.assisted_ok, 0);
        KT_EQ(t, c1.ipi_targets - c0.ipi_targets, 1);
    }
    hyperv_debug_form = boot_form;
    __atomic_store_n(&hyperv_debug_malformed, 0, __ATOMIC_SEQ_CST);
}

KTEST(hyperv, injected_fault_falls_back_to_ipis)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1);
    struct stale s = { .reader_cpu = other };
    struct flush_counters c0, c1;
    struct hyperv_counts h0, h1;
    uint64_t inj0;
    cpumask_t m;
    bool was_stale;
    int old, pinned;

    NEED_HYPERV_FLUSH(t);
    cpumask_clear(&m);
    cpumask_set_cpu(other, &m);
    if ( !stale_begin(t, &s, false, false) )
        return;
    my_flush_counts(&c0);
    my_counts(&h0);
    inj0 = assist_faults_injected;
    old = flush_fault_force(-EIO);
    pinned = flush_adapt_force(ADAPT_L0);
    flush_area_mask(&m, (const void *)TEST_VA, FLUSH_TLB | FLUSH_ORDER(0));
    flush_adapt_force(pinned);
    flush_fault_force(old);
    my_counts(&h1);
    my_flush_counts(&c1);
    if ( !stale_end(t, &s, "after an injected error", &was_stale) )
        return;
    KT_EQ(t, assist_faults_injected - inj0, 1);
    /* The hook was never called: no hypercall was made. */
    KT_EQ(t, calls_of(&h1, false, true) + calls_of(&h1, true, true),
          calls_of(&h0, false, true) + calls_of(&h0, true, true));
    KT_EQ(t, c1.assisted_failed - c0.assisted_failed, 1);
    KT_EQ(t, c1.ipi_targets - c0.ipi_targets, 1);
    KT_ASSERT(t, !assist_fault_mode_set());
}

/* --- cluster IPIs -------------------------------------------------------- */

static uint64_t call_ipis(unsigned int cpu)
{
    return READ_ONCE(cpu_infos[cpu]->ipi.received[CALL_VECTOR -
                                                  FIRST_IPI_VECTOR]);
}

static void nothing(void *arg)
{
}

KTEST(hyperv, cluster_ipi_reaches_targets)
{
    enum hyperv_form boot_form = hyperv_debug_form;
    uint64_t before[NR_CPUS];
    struct hyperv_counts h0, h1;
    unsigned int cpu;
    cpumask_t others;

    NEED_HYPERV(t);
    if ( !hypervisor_ops.send_ipi_mask )
        KT_SKIP(t, "the cluster IPI is not recommended here");
    cpumask_copy(&others, &cpu_online_mask);
    cpumask_clear_cpu(smp_processor_id(), &others);
    if ( cpumask_empty(&others) )
        KT_SKIP(t, "needs a second CPU");

    /*
     * CALL_VECTOR with no call pending does nothing on arrival
     * (smp-call.c), so it can be sent bare and counted.
     */
    for ( unsigned int ex = 0; ex < 2; ex++ )
    {
        unsigned long f;
        int rc;

        for_each_cpu ( cpu, &others )
            before[cpu] = call_ipis(cpu);
        my_counts(&h0);
        hyperv_debug_form = ex ? HYPERV_FORM_EX : HYPERV_FORM_PLAIN;
        f = local_irq_save();
        rc = hypervisor_send_ipi_mask(&others, CALL_VECTOR);
        local_irq_restore(f);
        hyperv_debug_form = boot_form;
        my_counts(&h1);
        KT_EQ(t, rc, 0);
        KT_EQ(t, ex ? h1.ipi_ex - h0.ipi_ex : h1.ipi - h0.ipi, 1);
        for_each_cpu ( cpu, &others )
        {
            uint64_t start = rdtsc();

            while ( call_ipis(cpu) == before[cpu] && !waited_too_long(start) )
                cpu_relax();
            KT_ASSERTF(t, call_ipis(cpu) > before[cpu],
                       "%s cluster IPI never reached CPU%u",
                       ex ? "Ex" : "plain", cpu);
        }
    }

    /*
     * And through send_ipi_mask(), which uses it for two targets or
     * more when no shorthand covers them.
     */
    if ( cpumask_weight(&others) >= 2 )
    {
        bool sh = ipi_shorthand_enabled;

        my_counts(&h0);
        ipi_shorthand_enabled = false;
        smp_call_mask(&cpu_online_mask, nothing, NULL);
        ipi_shorthand_enabled = sh;
        my_counts(&h1);
        KT_EQ(t, h1.ipi + h1.ipi_ex - h0.ipi - h0.ipi_ex, 1);
    }
}
