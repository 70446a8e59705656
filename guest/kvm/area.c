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
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>
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

/*
 * For kvm_clock_tsc_khz() before the heap: 64-byte aligned, so within
 * one page as msr.rst requires of the area.
 */
static struct pvclock_vcpu_time_info boot_clock __aligned(64);

/* pvclock's version protocol: odd while KVM writes, 0 never written. */
static bool read_scale(const struct pvclock_vcpu_time_info *ti,
                       uint32_t *mul, int8_t *shift)
{
    for ( unsigned int i = 0; i < 1000; i++ )
    {
        uint32_t v = READ_ONCE(ti->version);

        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        *mul = READ_ONCE(ti->tsc_to_system_mul);
        *shift = READ_ONCE(ti->tsc_shift);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if ( v && !(v & 1) && v == READ_ONCE(ti->version) )
            return true;
        cpu_relax();
    }
    return false;
}

uint64_t kvm_clock_tsc_khz(uint32_t kvm_base)
{
    const struct pvclock_vcpu_time_info *ti = clock_area[0];
    struct cpuid_leaf r;
    uint32_t mul = 0;
    int8_t shift = 0;
    bool ok;

    cpuid(kvm_base + 1, &r);
    if ( !((r.a >> KVM_FEATURE_CLOCKSOURCE2) & 1) )
        return 0;
    if ( ti )
        ok = read_scale(ti, &mul, &shift);
    else
    {
        /* KVM fills a new area before the vCPU runs on (msr.rst). */
        if ( wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW,
                        virt_to_phys(&boot_clock) | KVM_MSR_ENABLED) )
            return 0;
        ok = read_scale(&boot_clock, &mul, &shift);
        wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, 0);
    }
    return ok ? pvclock_scale_khz(mul, shift) : 0;
}
