/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM's MSR-registered per-vCPU areas (msr.rst), and kvmclock's stop flag. */

#include <guest/kvm-area.h>
#include <guest/kvm.h>
#include <shimk/compiler.h>
#include <shimk/errno.h>
#include <shimk/heap.h>
#include <shimk/printk.h>
#include <asm/cpuid.h>
#include <asm/msr.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/smp.h>

void *kvm_register_area(uint32_t msr, paddr_t *pa)
{
    void *p = kzalloc(64);

    if ( !p )
        return NULL;
    if ( pt_translate(kernel_root, (vaddr_t)p, pa) ||
         wrmsr_safe(msr, *pa | KVM_MSR_ENABLED) )
    {
        kfree(p);
        return NULL;
    }
    return p;
}

bool kvm_reregister_area(uint32_t msr, paddr_t pa)
{
    uint64_t now;

    return !wrmsr_safe(msr, pa | KVM_MSR_ENABLED) &&
           !rdmsr_safe(msr, &now) && now == (pa | KVM_MSR_ENABLED);
}

/*
 * Per CPU, a kvmclock area (MSR_KVM_SYSTEM_TIME_NEW) registered only for
 * its PVCLOCK_GUEST_STOPPED flag.  QEMU sets it through KVM_KVMCLOCK_CTRL
 * on each vCPU whenever the VM runs again after a stop
 * (kvmclock_vm_state_change()), which a migration's target and a
 * restored VM do once; KVM keeps it in the area until the guest clears
 * it (kvm_setup_guest_pvclock() carries a set flag over).
 */
static bool stop_signal __ro_after_init;
static struct pvclock_vcpu_time_info *clock_area[NR_CPUS];
static paddr_t clock_pa[NR_CPUS];

static bool register_clock(void)
{
    unsigned int cpu = smp_processor_id();

    BUILD_BUG_ON(sizeof(struct pvclock_vcpu_time_info) > 64);
    clock_area[cpu] = kvm_register_area(MSR_KVM_SYSTEM_TIME_NEW,
                                        &clock_pa[cpu]);
    return clock_area[cpu];
}

bool kvm_stop_signal_init(uint32_t kvm_base)
{
    struct cpuid_leaf r;

    cpuid(kvm_base + 1, &r);
    stop_signal = (r.a >> KVM_FEATURE_CLOCKSOURCE2) & 1 && register_clock();
    return stop_signal;
}

void kvm_stop_signal_cpu_setup(void)
{
    if ( stop_signal && !register_clock() )
        pr_warn("kvm: CPU%u: kvmclock not registered: a migration goes "
                "unnoticed on it\n", smp_processor_id());
}

bool kvm_stop_signal_on(void)
{
    return stop_signal;
}

bool kvm_stop_signal_taken(void)
{
    return kvm_take_stop_flag(clock_area[smp_processor_id()]);
}

int kvm_stop_signal_resume(const char *who)
{
    unsigned int cpu = smp_processor_id();

    if ( !clock_area[cpu] ||
         kvm_reregister_area(MSR_KVM_SYSTEM_TIME_NEW, clock_pa[cpu]) )
        return 0;
    pr_warn("%s: resume: CPU%u: kvmclock at %#lx not registered again: "
            "kvmclock's stop flag is dropped on this CPU\n", who, cpu,
            (unsigned long)clock_pa[cpu]);
    clock_area[cpu] = NULL;
    return -EIO;
}
