/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM paravirtual interfaces (Linux Documentation/virt/kvm/x86/msr.rst). */
#ifndef GUEST_KVM_H
#define GUEST_KVM_H

#include <shimk/cpumask.h>
#include <shimk/types.h>

/* Leaf base+1 EAX feature bits, EDX hint bits. */
#define KVM_FEATURE_STEAL_TIME    5
#define KVM_FEATURE_PV_EOI        6
#define KVM_FEATURE_PV_UNHALT     7
#define KVM_FEATURE_PV_TLB_FLUSH  9
#define KVM_FEATURE_PV_SEND_IPI   11
#define KVM_FEATURE_POLL_CONTROL  12
#define KVM_FEATURE_PV_SCHED_YIELD 13
#define KVM_HINTS_REALTIME        0

#define KVM_FEATURE_CLOCKSOURCE2  3

#define MSR_KVM_SYSTEM_TIME_NEW 0x4b564d01
#define MSR_KVM_STEAL_TIME 0x4b564d03
#define KVM_MSR_ENABLED    1ull

/* The steal-time area's preempted byte (msr.rst, MSR_KVM_STEAL_TIME). */
#define KVM_VCPU_PREEMPTED (1u << 0)
#define KVM_VCPU_FLUSH_TLB (1u << 1)

#define KVM_HC_SEND_IPI 10
#define KVM_HC_SCHED_YIELD 11

/* 64 bytes, 64-byte aligned, shared with the host (msr.rst). */
struct kvm_steal_time
{
    uint64_t steal;
    uint32_t version;
    uint32_t flags;
    uint8_t preempted;
    uint8_t pad0[3];
    uint32_t pad[11];
};

/*
 * kvmclock's per-vCPU area (msr.rst, MSR_KVM_SYSTEM_TIME_NEW; Xen's
 * struct vcpu_time_info layout): shimk keeps time by the TSC and reads
 * only flags, for PVCLOCK_GUEST_STOPPED, which the host sets when the
 * VM runs again after a stop (QEMU's KVM_KVMCLOCK_CTRL on every restart
 * of a VM whose vCPUs registered the area: after a migration, a
 * restore, a monitor "stop"/"cont") and the guest clears.
 */
struct pvclock_vcpu_time_info
{
    uint32_t version;
    uint32_t pad0;
    uint64_t tsc_timestamp;
    uint64_t system_time;
    uint32_t tsc_to_system_mul;
    int8_t tsc_shift;
    uint8_t flags;
    uint8_t pad[2];
};
#define PVCLOCK_GUEST_STOPPED (1u << 1)

/*
 * hypervisor_ops.restarted's rule (pure; unit-tested): whether the area
 * says the VM was stopped and run on, the stop bit cleared in the same
 * atomic step and every other flag left.  False for no area.
 */
bool kvm_take_stop_flag(struct pvclock_vcpu_time_info *ti);

/*
 * The TSC rate a pvclock scale states, in kHz (pure; unit-tested):
 * ns = ((cycles << shift, or >> -shift) * mul) >> 32, so the rate is
 * 10^6 * 2^32 / mul kHz, shifted back the other way.  0 for no scale.
 */
uint64_t pvclock_scale_khz(uint32_t mul, int8_t shift);

/* Feature names offered, for the boot log ("steal-time pv-tlb-flush ..."). */
void kvm_feature_names(uint32_t features, char *buf, size_t size);

/*
 * The PV TLB flush rule (pure; unit-tested): for every CPU in mask
 * whose steal-time area says the host preempted it, set FLUSH_TLB in
 * the same byte with a compare-and-swap, so the host flushes before it
 * runs the vCPU again, and drop the CPU from mask.  The guest only ever
 * adds FLUSH_TLB to a byte the host marked PREEMPTED (flush rule 18,
 * docs/flush.md).  Returns the number of CPUs dropped; the rest need IPIs.
 */
unsigned int kvm_flag_preempted(cpumask_t *mask,
                                struct kvm_steal_time *(*area_of)(unsigned int));

/* Should shimk use PV TLB flush?  Linux's pv_tlb_flush_supported(). */
bool kvm_pv_tlb_flush_usable(uint32_t features, uint32_t hints);

#endif /* GUEST_KVM_H */
