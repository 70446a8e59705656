/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM backend: steal time, PV flush of preempted vCPUs, PV IPIs, resume. */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <guest/kvm.h>
#include <guest/kvm-area.h>
#include <shimk/errno.h>
#include <shimk/heap.h>
#include <shimk/printk.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/cpuid.h>
#include <asm/msr.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/smp.h>

/*
 * KVM has no "flush these vCPUs" hypercall.  What it offers (Linux's
 * kvm_flush_tlb_multi) is a flag in each vCPU's steal-time area: a vCPU
 * the host has preempted gets FLUSH_TLB set instead of an IPI, and the
 * host flushes it before running it again.  Running vCPUs still get
 * IPIs, so the hook returns -EAGAIN with those left in the mask.  Like
 * an L0 flush, a flagged vCPU flushes without stamping its TLB clock:
 * the clock goes off with this hook.
 */

static uint32_t features __ro_after_init, hints __ro_after_init;
static bool use_steal_time __ro_after_init, use_pv_flush __ro_after_init;
static bool use_pv_ipi __ro_after_init, use_vmmcall __ro_after_init;
static bool use_sched_yield __ro_after_init;
static struct kvm_steal_time *steal_area[NR_CPUS];
static paddr_t steal_pa[NR_CPUS];

static struct kvm_steal_time *area_of(unsigned int cpu)
{
    return steal_area[cpu];
}

/* Register this CPU's steal-time area (MSR_KVM_STEAL_TIME). */
static int register_steal_time(void)
{
    unsigned int cpu = smp_processor_id();

    BUILD_BUG_ON(sizeof(struct kvm_steal_time) != 64);
    steal_area[cpu] = kvm_register_area(MSR_KVM_STEAL_TIME,
                                        &steal_pa[cpu]);
    return steal_area[cpu] ? 0 : -ENODEV;
}

static int cpu_setup(void)
{
    int rc = use_steal_time ? register_steal_time() : 0;

    kvm_stop_signal_cpu_setup();
    return rc;
}

static long kvm_hypercall4(unsigned int nr, unsigned long a0,
                           unsigned long a1, unsigned long a2,
                           unsigned long a3)
{
    long ret;

    /* KVM ABI: number in RAX, arguments in RBX, RCX, RDX, RSI. */
    if ( use_vmmcall )
        __asm__ __volatile__("vmmcall"
                             : "=a"(ret)
                             : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
                             : "memory");
    else
        __asm__ __volatile__("vmcall"
                             : "=a"(ret)
                             : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
                             : "memory");
    return ret;
}

static void kvm_setup(void)
{
    struct cpuid_leaf r;

    use_vmmcall = boot_cpu.vendor == VENDOR_AMD ||
                  boot_cpu.vendor == VENDOR_HYGON;
    cpuid(hv_info.base + 1, &r);
    features = r.a;
    hints = r.d;
    if ( (features >> KVM_FEATURE_STEAL_TIME) & 1 )
        use_steal_time = !register_steal_time();
    if ( !kvm_stop_signal_init(hv_info.base) )
        hypervisor_ops.restarted = NULL;
    use_pv_flush = use_steal_time && kvm_pv_tlb_flush_usable(features, hints);
    use_pv_ipi = (features >> KVM_FEATURE_PV_SEND_IPI) & 1;
    if ( !use_pv_flush )
        hypervisor_ops.flush_tlb = NULL;
    if ( !use_pv_ipi )
        hypervisor_ops.send_ipi_mask = NULL;
    /* Only a preempted byte says when a yield would help. */
    use_sched_yield = use_steal_time &&
                      (features >> KVM_FEATURE_PV_SCHED_YIELD) & 1;
    if ( !use_sched_yield )
        hypervisor_ops.yield_to = NULL;
}

static int kvm_ap_setup(void)
{
    return cpu_setup();
}

/*
 * hypervisor_ops.resume: shimk's only MSR-registered areas are steal
 * time and kvmclock (no PV EOI, no async PF).  QEMU migrates both MSRs,
 * so on a sound L0 this re-registers what is there; a vCPU whose steal
 * time is dropped gets IPIs instead of the preempted-flag flush.
 */
static int kvm_resume(void)
{
    unsigned int cpu = smp_processor_id();
    int rc = 0;

    if ( steal_area[cpu] &&
         !kvm_reregister_area(MSR_KVM_STEAL_TIME, steal_pa[cpu]) )
    {
        struct kvm_steal_time *st = steal_area[cpu];

        pr_warn("kvm: resume: CPU%u: steal time at %#lx not registered "
                "again: its PV flush and yield are dropped on this CPU\n",
                cpu, (unsigned long)steal_pa[cpu]);

        /*
         * Forgotten first, then its preempted byte cleared: a flagger
         * that still holds the old pointer either set FLUSH_TLB before
         * the clear (and the caller's whole-TLB flush, after this,
         * covers its change) or fails its compare-and-swap after it
         * and sends the IPI (flush rule 18, docs/flush.md).
         */
        __atomic_store_n(&steal_area[cpu], NULL, __ATOMIC_SEQ_CST);
        __atomic_store_n(&st->preempted, 0, __ATOMIC_SEQ_CST);
        rc = -EIO;
    }
    if ( kvm_stop_signal_resume("kvm") )
        rc = -EIO;
    return rc;
}

/*
 * hypervisor_ops.stolen_ns: steal-time's steal (msr.rst: ns the vCPU
 * was runnable but not running, added by the host at each entry, so a
 * vCPU still held out shows it only through its preempted byte).
 */
static uint64_t kvm_stolen_ns(unsigned int cpu, bool *now)
{
    struct kvm_steal_time *st = cpu < NR_CPUS ? area_of(cpu) : NULL;

    if ( !st )
        return ~0ULL;
    *now = __atomic_load_n(&st->preempted, __ATOMIC_RELAXED) &
           KVM_VCPU_PREEMPTED;
    return __atomic_load_n(&st->steal, __ATOMIC_RELAXED);
}

/*
 * KVM_HC_SCHED_YIELD (hypercalls.rst, 11): a0 the destination APIC id;
 * KVM yields this vCPU's thread to that vCPU's if it is runnable.
 */
static int kvm_yield_to(unsigned int cpu)
{
    long rc;

    if ( cpu >= NR_CPUS || !cpu_infos[cpu] )
        return -EINVAL;
    rc = kvm_hypercall4(KVM_HC_SCHED_YIELD, cpu_infos[cpu]->apic_id, 0, 0,
                        0);
    return rc < 0 ? (int)rc : 0;
}

static int kvm_flush_tlb(cpumask_t *mask, const void *va, unsigned int flags)
{
    this_cpu()->flush.pv_flagged += kvm_flag_preempted(mask, area_of);
    return cpumask_empty(mask) ? 0 : -EAGAIN;
}

/*
 * KVM_HC_SEND_IPI (hypercalls.rst): a 128-bit bitmap of APIC ids from
 * min, and the ICR's low word; one exit for up to 128 targets.
 */
static int kvm_send_ipi_mask(const cpumask_t *mask, unsigned int vector)
{
    uint64_t bits[2] = { 0, 0 };
    uint32_t min = 0;
    unsigned int cpu;
    bool any = false;
    long rc;

    for_each_cpu ( cpu, mask )
    {
        uint32_t id = cpu_infos[cpu]->apic_id;

        if ( any && id >= min + 128 )
        {
            rc = kvm_hypercall4(KVM_HC_SEND_IPI, bits[0], bits[1], min,
                                APIC_DM_FIXED | vector);
            if ( rc < 0 )
                return (int)rc;
            bits[0] = bits[1] = 0;
            any = false;
        }
        if ( !any )
        {
            min = id;
            any = true;
        }
        if ( id < min )
            return -ERANGE;     /* APIC ids not ascending: unicast */
        bits[(id - min) / 64] |= 1ull << ((id - min) % 64);
    }
    if ( !any )
        return 0;
    rc = kvm_hypercall4(KVM_HC_SEND_IPI, bits[0], bits[1], min,
                        APIC_DM_FIXED | vector);
    return rc < 0 ? (int)rc : 0;
}

static void kvm_describe(char *buf, size_t size)
{
    char offered[128];

    kvm_feature_names(features, offered, sizeof(offered));
    ksnprintf(buf, size, "offers [%s]%s, uses [%s%s%s%s%s]", offered,
              (hints >> KVM_HINTS_REALTIME) & 1 ? " (realtime hint)" : "",
              use_steal_time ? "steal-time" : "",
              use_pv_flush ? " pv-tlb-flush" : "",
              use_pv_ipi ? " pv-send-ipi" : "",
              use_sched_yield ? " pv-sched-yield" : "",
              kvm_stop_signal_on() ? " kvmclock-stop-flag" : "");
}

/*
 * KVM (and VMware): leaf 0x40000010 EAX = TSC kHz, offered by QEMU
 * when the TSC rate is known and stable (invtsc, or a rate set with
 * tsc-frequency).  Otherwise kvmclock's scale, which states the rate
 * KVM itself counts the guest's TSC at (Linux's kvm_get_tsc_khz() takes
 * it the same way): what its TSC-deadline timer converts by.
 */
static uint64_t kvm_tsc_khz(const char **source)
{
    struct cpuid_leaf r;

    if ( hv_info.max_leaf >= 0x40000010 )
    {
        cpuid(0x40000010, &r);
        *source = "kvm cpuid 0x40000010";
        if ( r.a )
            return r.a;
    }
    *source = "kvmclock";
    return kvm_clock_tsc_khz(hv_info.base);
}

const struct hypervisor_ops kvm_ops = {
    .name = "kvm",
    .tsc_khz = kvm_tsc_khz,
    /* KVM has no null hypercall that every guest may make. */
    .null_call = hypervisor_cpuid_exit,
    .setup = kvm_setup,
    .ap_setup = kvm_ap_setup,
    .resume = kvm_resume,
    .restarted = kvm_stop_signal_taken,
    .flush_tlb = kvm_flush_tlb,
    .stolen_ns = kvm_stolen_ns,
    .yield_to = kvm_yield_to,
    .send_ipi_mask = kvm_send_ipi_mask,
    .describe = kvm_describe,
};
