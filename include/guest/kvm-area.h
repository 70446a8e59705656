/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM's MSR-registered per-vCPU areas, and kvmclock's stop signal. */
#ifndef GUEST_KVM_AREA_H
#define GUEST_KVM_AREA_H

#include <shimk/types.h>

/*
 * A zeroed 64-byte heap object (64-byte aligned, so never across a page)
 * registered with the L0 through msr (msr.rst: the GPA with bit 0 set);
 * its address in *pa.  NULL where the heap, the walk or the MSR refused.
 */
void *kvm_register_area(uint32_t msr, paddr_t *pa);

/*
 * The same area again (KVM takes a write as a new registration), read
 * back.  False where the write fails or does not read back.
 */
bool kvm_reregister_area(uint32_t msr, paddr_t pa);

/*
 * kvmclock's PVCLOCK_GUEST_STOPPED as the signal that the L0 stopped
 * the VM and ran it on (hypervisor_ops.restarted), wherever KVM's
 * leaves are: KVM's own backend, and Hyper-V's when KVM's leaves sit
 * beside its enlightenments (KVM with hv-* flags at 0x40000100).
 * kvm_stop_signal_init: on the boot CPU, with the KVM base leaf; true
 * when the L0 offers kvmclock (KVM_FEATURE_CLOCKSOURCE2) and took CPU0's
 * area.  Then each AP's setup registers its own (a warning if refused).
 */
bool kvm_stop_signal_init(uint32_t kvm_base);
void kvm_stop_signal_cpu_setup(void);
bool kvm_stop_signal_on(void);
/* This CPU's flag taken, if set (the restarted hook). */
bool kvm_stop_signal_taken(void);
/*
 * At a resume: this CPU's area again, read back; on failure forgotten
 * with a warning that names who owns the line, and -EIO.
 */
int kvm_stop_signal_resume(const char *who);

/*
 * The TSC rate kvmclock states (msr.rst; pvclock's scale: nanoseconds
 * are TSC cycles shifted by tsc_shift, times tsc_to_system_mul / 2^32),
 * in kHz; 0 where KVM at kvm_base does not offer kvmclock
 * (KVM_FEATURE_CLOCKSOURCE2) or wrote no area.  From the boot CPU's
 * stop-signal area where it is registered, else from an area of its
 * own registered for the read and released after (time_init() comes
 * before the heap).  Boot CPU.
 */
uint64_t kvm_clock_tsc_khz(uint32_t kvm_base);

#endif /* GUEST_KVM_AREA_H */
