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
