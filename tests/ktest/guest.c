/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: the hypervisor probe, the ops table, and the assisted flush. */

#include <guest/flush-fault.h>
#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <shimk/ktest.h>
#include <shimk/sched.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <asm/cpufeature.h>
#include <asm/cpuid.h>
#include <asm/flush-adapt.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/probe.h>
#include <asm/processor.h>
#include <asm/smp.h>

/* The summary's hv= is what CPUID says, read again now. */
KTEST(guest, probe_matches_cpuid)
{
    struct cpuid_leaf r;
    char sig[13];

    cpuid(1, &r);
    KT_EQ(t, !!(r.c & CPUID1_ECX_HYPERVISOR), hypervisor_type() != HV_NONE);
    if ( hypervisor_type() == HV_NONE || hypervisor_type() == HV_UNKNOWN )
        return;
    cpuid(hv_info.base, &r);
    memcpy(sig + 0, &r.b, 4);
    memcpy(sig + 4, &r.c, 4);
    memcpy(sig + 8, &r.d, 4);
    sig[12] = '\0';
    KT_ASSERTF(t, !memcmp(sig, hv_info.signature, 12), "signature '%s' at "
               "%#x, probed '%s'", sig, hv_info.base, hv_info.signature);
    KT_EQ(t, r.a, hv_info.max_leaf);
    if ( hypervisor_type() == HV_XEN || hypervisor_type() == HV_KVM ||
         hypervisor_type() == HV_HYPERV )
        KT_ASSERTF(t, !strcmp(hypervisor_ops.name,
                              hv_type_name(hypervisor_type())),
                   "ops '%s' for hv=%s", hypervisor_ops.name,
                   hv_type_name(hypervisor_type()));
    /* The interface not chosen (KVM beside Hyper-V) is really there. */
    if ( hv_info.other_type != HV_NONE )
    {
        cpuid(hv_info.other_base, &r);
        memcpy(sig + 0, &r.b, 4);
        memcpy(sig + 4, &r.c, 4);
        memcpy(sig + 8, &r.d, 4);
        KT_ASSERTF(t, !memcmp(sig, hv_info.other_signature, 12),
                   "signature '%s' at %#x, probed '%s' there", sig,
                   hv_info.other_base, hv_info.other_signature);
        KT_EQ(t, r.a, hv_info.other_max_leaf);
    }
}

/* The ops table is __ro_after_init: no write can change the backend. */
KTEST(guest, ops_table_read_only)
{
    uint64_t v;

    KT_EQ(t, probe_read_u64(&hypervisor_ops.flush_tlb, &v), 0);
    KT_ASSERT(t, probe_write_u64(&hypervisor_ops.flush_tlb, v) < 0);
    KT_ASSERT(t, probe_write_u64((void *)&hv_info.type, 0) < 0);
}

/* Under Xen every CPU knows its vCPU id, and they are distinct. */
KTEST(guest, xen_vcpu_ids)
{
    unsigned int a, b;

    if ( hypervisor_type() != HV_XEN )
        KT_SKIP(t, "not under Xen");
    for_each_cpu ( a, &cpu_online_mask )
    {
        KT_ASSERTF(t, cpu_infos[a]->hv_vcpu_id != ~0u,
                   "CPU%u has no vCPU id", a);
        for_each_cpu ( b, &cpu_online_mask )
            KT_ASSERT(t, a == b || cpu_infos[a]->hv_vcpu_id !=
                                       cpu_infos[b]->hv_vcpu_id);
    }
}

static volatile bool irqs_are_off, release, done;

static void irqs_off_until_told(void *arg)
{
    unsigned long f = local_irq_save();
    uint64_t start = rdtsc();

    WRITE_ONCE(irqs_are_off, true);
    while ( !READ_ONCE(release) && rdtsc() - start < ms_to_cycles(2000) )
        cpu_relax();
    WRITE_ONCE(irqs_are_off, false);
    local_irq_restore(f);
    WRITE_ONCE(done, true);
}

/*
 * What assistance means: a plain TLB flush of a CPU that has interrupts
 * off completes anyway, because the L0 did it.  (The same flush with
 * FLUSH_NO_ASSIST must wait: tlb: no-assist-flush-waits-for-irqs-off-cpu.)
 */
KTEST(guest, assisted_flush_needs_no_interrupt)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1);
    struct flush_counters c0, c1;
    bool still_off;
    cpumask_t m;
    int pinned;

    if ( !hypervisor_has_flush_tlb() )
        KT_SKIP(t, "no assisted flush here (%s)",
                hv_type_name(hypervisor_type()));
    if ( hypervisor_type() != HV_XEN && hypervisor_type() != HV_HYPERV )
        KT_SKIP(t, "only Xen's and Hyper-V's flushes cover running vCPUs");
    if ( assist_faults_injected || assist_fault_mode_set() )
        KT_SKIP(t, "assisted-flush-fault= makes the L0 flush fail");
    if ( other >= NR_CPUS )
        KT_SKIP(t, "needs a second CPU");
    irqs_are_off = release = done = false;
    thread_create("irqs-off", irqs_off_until_told, NULL, other, true);
    while ( !READ_ONCE(irqs_are_off) )
        cpu_relax();
    cpumask_clear(&m);
    cpumask_set_cpu(other, &m);
    flush_counters_total(&c0);
    /* The L0's path, whatever the run-time choice (asm/flush-adapt.h). */
    pinned = flush_adapt_force(ADAPT_L0);
    flush_area_mask(&m, NULL, FLUSH_TLB);
    flush_adapt_force(pinned);
    flush_counters_total(&c1);
    still_off = READ_ONCE(irqs_are_off);
    WRITE_ONCE(release, true);
    while ( !READ_ONCE(done) )
        cpu_relax();
    KT_ASSERTF(t, still_off, "the flush waited for CPU%u's interrupts",
               other);
    KT_EQ(t, c1.assisted_ok - c0.assisted_ok, 1);
    KT_EQ(t, c1.ipi_targets - c0.ipi_targets, 0);
}

/*
 * The run-time choice follows what flushes cost (asm/flush-adapt.h):
 * with one-target flushes set to the L0 and the L0's flush then made
 * dearer than IPIs on purpose, real flushes move the bucket to IPIs,
 * within the flushes the rule needs (16 on the L0, 3 trials) and a
 * bound, and the switch is counted.
 */
#define ADAPT_TEST_FLUSHES 400

KTEST(guest, flush_adapt_follows_cost)
{
    unsigned int other = cpumask_next(&cpu_online_mask, 1), n;
    struct adapt_bucket b;
    enum adapt_path got;
    uint64_t slow, l0, ipi;
    cpumask_t m;

    if ( !flush_adapt_on )
        KT_SKIP(t, "the run-time choice is not live (no L0 flush hook, "
                   "assisted-flush= or flush-adapt=0 given, or one CPU)");
    if ( assist_fault_mode_set() )
        KT_SKIP(t, "assisted-flush-fault= makes the L0 flush fail");
    cpumask_clear(&m);
    cpumask_set_cpu(other, &m);
    /* Dearer than IPIs by far: 8 times their average, and 1 ms at least. */
    slow = MAX(8 * flush_adapt_avg(1, ADAPT_IPI), ms_to_cycles(1));
    /* The L0 chosen, as if just switched there, from today's averages. */
    adapt_seed(&b, flush_adapt_avg(1, ADAPT_IPI), flush_adapt_avg(1, ADAPT_L0));
    b.choice = ADAPT_L0;
    KT_ASSERT(t, flush_adapt_debug_swap(1, &b));
    flush_fault_slow(slow);
    for ( n = 0; n < ADAPT_TEST_FLUSHES && flush_adapt_choice(1) == ADAPT_L0;
          n++ )
        flush_area_mask(&m, NULL, FLUSH_TLB);
    flush_fault_slow(0);
    got = flush_adapt_choice(1);
    l0 = flush_adapt_avg(1, ADAPT_L0);
    ipi = flush_adapt_avg(1, ADAPT_IPI);
    /* The live state back: the slowed flushes say nothing of the L0. */
    while ( !flush_adapt_debug_swap(1, &b) )
        cpu_relax();
    KT_ASSERTF(t, got == ADAPT_IPI,
               "one-target flushes still by the L0 after %u flushes with "
               "it %lu cycles dearer (L0 averaged %lu, IPIs %lu)", n,
               (unsigned long)slow, (unsigned long)l0, (unsigned long)ipi);
    KT_ASSERT(t, n >= ADAPT_MIN_CHOSEN + ADAPT_MIN_OTHER);
    /*
     * Swapped back, b is the bucket the test ran (seeded with no
     * switch): the live buckets' own switches are not this test's.
     */
    KT_ASSERTF(t, b.switches == 1, "the switch counted %u times",
               (unsigned)b.switches);
    ktest_note("one-target flushes went to IPIs after %u flushes with the "
               "L0 %lu cycles dearer", n, (unsigned long)slow);
}
