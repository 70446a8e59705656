/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen guest interface: hypercalls and the services shimk uses. */
#ifndef GUEST_XEN_H
#define GUEST_XEN_H

#include <shimk/cpumask.h>
#include <shimk/types.h>
#include <xen/xen.h>

struct boot_info;

/*
 * Raw hypercall, 64-bit HVM ABI (xen/include/public/arch-x86/xen-x86_64.h):
 * number in RAX, arguments in RDI, RSI, RDX, R10, R8, result in RAX.
 * shimk issues VMCALL or VMMCALL inline, chosen by CPU vendor, and
 * never installs a hypercall page: since XSA-469 (Xen commit
 * ef30ffe0a0) Xen itself avoids the page, which needs writable then
 * executable memory and is incompatible with return-thunk hardening.
 */
long xen_hypercall(unsigned int op, unsigned long a1, unsigned long a2,
                   unsigned long a3, unsigned long a4, unsigned long a5);

#define xen_hypercall1(op, a) xen_hypercall(op, (unsigned long)(a), 0, 0, 0, 0)
#define xen_hypercall2(op, a, b) \
    xen_hypercall(op, (unsigned long)(a), (unsigned long)(b), 0, 0, 0)
#define xen_hypercall3(op, a, b, c)                                    \
    xen_hypercall(op, (unsigned long)(a), (unsigned long)(b),          \
                  (unsigned long)(c), 0, 0)

/* Choose VMCALL or VMMCALL; before the first hypercall. */
void xen_hypercall_init(void);

/* Xen version as major << 16 | minor. */
uint32_t xen_version(void);

/*
 * Fill bi's memory map with XENMEM_memory_map (for a PVH dom0, whose
 * start info carries none).  Returns 0 or a negative errno.
 */
int xen_fetch_memory_map(struct boot_info *bi);

/* HVMOP_get_param of this domain: 0 or -errno, *value 0 on failure. */
int xen_hvm_get_param(uint32_t index, uint64_t *value);

/* SCHEDOP_shutdown with a SHUTDOWN_* reason; returns only on failure. */
int xen_shutdown(unsigned int reason);

/* Early: keep the PV console's ring page out of the frame allocator. */
void xen_console_reserve(struct boot_info *bi);

/* Early: keep xenstore's ring page out of the frame allocator. */
void xen_store_reserve(struct boot_info *bi);

/* After mm_init: register the PV console sink (default in a domU). */
void xen_console_init(bool domu);

/* After a resume in a new domain: the console ring's new port. */
void xen_console_resume(void);

/*
 * Xen's cooperative suspend (guest/xen/suspend.c), from thread context
 * on the boot CPU: park the other CPUs, SCHEDOP_shutdown with
 * SHUTDOWN_suspend, and re-establish every piece of L0 state when Xen
 * resumes the domain.  1: resumed in a new domain (restore, migration);
 * 0: cancelled (the old domain goes on, nothing lost); -errno: not done.
 */
int xen_suspend(void);

/* hypervisor_ops.resume: a parked CPU's own Xen state again. */
int xen_resume_cpu(void);

/*
 * VCPUOP_initialise + VCPUOP_up of vCPU vcpu in long mode (guest/
 * xen/vcpu.c).  Xen numbers vCPUs as its MADT's ACPI ids.  0 or -errno.
 */
int xen_vcpu_start(unsigned int vcpu, uint64_t rip, uint64_t rsp,
                   uint64_t arg, uint64_t cr3);

/* VCPUOP_down: an AP that missed its start deadline stays down. */
int xen_vcpu_stop(unsigned int vcpu);

bool xen_is_dom0(void);

/*
 * IPIs by event channel (guest/xen/evtchn-ipi.c).  setup: boot CPU,
 * from xen_setup (shared_info, its upcall vector, its ports);
 * cpu_setup: each AP for itself.  0 or -errno (warned: the APIC then
 * carries every IPI).  smp_ready decides xen-ipi=auto.
 */
int xen_evtchn_setup(void);
int xen_evtchn_cpu_setup(void);
int xen_evtchn_resume(void);
/* Shared info mapped and XEN_UPCALL_VECTOR's handler in place. */
bool xen_evtchn_mapped(void);
void xen_evtchn_smp_ready(void);
bool xen_evtchn_ipi_usable(void);
int xen_send_ipi_event(const cpumask_t *mask, unsigned int vector);
void xen_evtchn_describe(char *buf, size_t size);
void xen_evtchn_counts(uint64_t *upcalls, uint64_t *foreign);

/*
 * Runstate areas (guest/xen/runstate.c): cpu_setup registers this CPU's
 * (0 or -errno, warned once); stolen_ns and yield_to are the
 * hypervisor_ops hooks; registered says whether CPU cpu's is in use.
 */
int xen_runstate_cpu_setup(void);
uint64_t xen_stolen_ns(unsigned int cpu, bool *now);
int xen_yield_to(unsigned int cpu);
bool xen_runstate_registered(unsigned int cpu);

#endif /* GUEST_XEN_H */
