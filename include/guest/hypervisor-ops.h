/* SPDX-License-Identifier: GPL-2.0-only */
/* The hypervisor_ops table: one L0 backend, chosen once at boot. */
#ifndef GUEST_HYPERVISOR_OPS_H
#define GUEST_HYPERVISOR_OPS_H

#include <shimk/compiler.h>
#include <shimk/cpumask.h>
#include <shimk/errno.h>
#include <shimk/types.h>

/*
 * After Xen's struct hypervisor_ops (asm/guest/hypervisor.h): each
 * backend has a template; the chosen one is copied into the single
 * global hypervisor_ops at boot, whose page is then made read-only
 * (__ro_after_init).  Every hook may be NULL; callers go through the
 * guards below, which say -EOPNOTSUPP for a missing one.
 */
struct boot_info;

struct hypervisor_ops
{
    const char *name;
    /*
     * Boot CPU, inside boot_info_init(): the protocol's information is
     * read and nothing else is up.  What the L0 adds to it or corrects,
     * as Xen's own ops have e820_fixup: under Xen the console ring kept
     * from the frame pool, the memory map a PVH dom0's start info lacks
     * (XENMEM_memory_map), and the warning for a command line Xen cut.
     * Panics itself where the L0 fails it.
     */
    void (*boot_info_fixup)(struct boot_info *bi);
    /*
     * The L0 writes PVH start info itself, so an invalid one is not the
     * overflow of QEMU's option ROM buffer, and fw_cfg, if any, is not
     * the loader's (Xen's dom0 sees the outer QEMU's fw_cfg ports).
     */
    bool own_start_info;
    /*
     * The TSC's kHz as the L0 states it (a CPUID leaf, an MSR, kvmclock's
     * scale), 0 where it does not say; *source names where it came
     * from, for the boot log.  Asked before the other sources
     * (time_init()), and again at a resume (tsc_recheck()).
     */
    uint64_t (*tsc_khz)(const char **source);
    /*
     * The cheapest round trip to the L0, timed for the boot policy's
     * table (measure_hypercall()): Xen's xen_version; a CPUID exit where
     * the L0 has no null call.
     */
    void (*null_call)(void);
    /* Boot CPU, once, with the heap up and before the APs start. */
    void (*setup)(void);
    /* Each AP, as it comes up. */
    int (*ap_setup)(void);
    /*
     * Start the AP that the MADT lists with ACPI id acpi_uid: it begins
     * at rip in long mode, IF clear, with rsp, rdi = arg and cr3.  0 once
     * the L0 has made it runnable, or -errno.  NULL: INIT-SIPI only.
     */
    int (*cpu_up)(unsigned int acpi_uid, uint64_t rip, uint64_t rsp,
                  uint64_t arg, uint64_t cr3);
    /*
     * Stop an AP that cpu_up started but that never came: it must not
     * run later, into a start that gave its number to another.  0 or
     * -errno; NULL where cpu_up is.
     */
    int (*cpu_down)(unsigned int acpi_uid);
    /*
     * Each CPU, interrupts off, after the L0 ran this guest on from a
     * saved state (a restore, a migration): register again what this
     * CPU registered with the L0 and read it back; what cannot be is
     * dropped for the L0-free path, with the backend's own warning.
     * 0 or -errno; guest/resume.c then flushes the CPU's whole TLB.
     * Xen's suspend.c calls it on the parked CPUs (docs/lifecycle.md).
     */
    int (*resume)(void);
    /*
     * This CPU, from its timer interrupt: has the L0 said, since the
     * last call, that it stopped this vCPU and ran it on (KVM:
     * kvmclock's PVCLOCK_GUEST_STOPPED, set on the VM's restart after
     * a migration or a pause)?  Clears what it read.  NULL where the L0
     * tells no such thing or the guest drives the suspend itself (Xen).
     */
    bool (*restarted)(void);
    /*
     * Flush the TLBs of the CPUs in *mask (never the caller's own: that
     * flush is always local).  0: done on every CPU in *mask.  -EAGAIN:
     * done on the CPUs it cleared from *mask, the rest need IPIs.
     * -ETIMEDOUT: the L0 did not finish it within shimk's bound, on the
     * L0's own evidence (a status, a call not returned, a vCPU held
     * off), and nothing is known done.  Any other error: nothing was
     * done.  Only ever called with pure TLB flags (flush_may_assist()).
     */
    int (*flush_tlb)(cpumask_t *mask, const void *va, unsigned int flags);
    /*
     * The time the L0 has kept cpu's vCPU from running although it
     * wanted to run (ns, cumulative; ~0 where the L0 keeps no count for
     * it), and in *now whether it does so right now: KVM's steal-time
     * area.  Read without an exit; a spinlock wait asks it about the
     * CPU it waits for before it calls a long wait shimk's.
     */
    uint64_t (*stolen_ns)(unsigned int cpu, bool *now);
    /*
     * A CPU this one waits for is held off by the L0 (stolen_ns said so
     * now): give it this vCPU's physical CPU.  Directed where the L0
     * offers it (KVM_HC_SCHED_YIELD), otherwise a plain yield (Xen's
     * SCHEDOP_yield).  0 or -errno; interrupts in any state.
     */
    int (*yield_to)(unsigned int cpu);
    /*
     * One exit for a multi-target IPI (KVM_HC_SEND_IPI, Hyper-V's
     * cluster IPI); 0 or -errno.  Called with interrupts off.
     */
    int (*send_ipi_mask)(const cpumask_t *mask, unsigned int vector);
    /*
     * Send vector to every CPU in *mask (never the caller) by the L0's
     * own event mechanism instead of the local APIC: Xen's event
     * channels, one EVTCHNOP_send per target.  0: sent to all.
     * -EOPNOTSUPP: nothing sent (switched off, a vector it does not
     * carry, a target not bound yet); the APIC carries it.  Interrupts
     * off.
     */
    int (*send_ipi_event)(const cpumask_t *mask, unsigned int vector);
    /*
     * Boot CPU, once every AP is up and interrupts are on: decisions
     * that need another CPU (Xen's xen-ipi=auto round trip).
     */
    void (*smp_ready)(void);
    /* What the L0 offers and what shimk uses: the boot log's second line. */
    void (*describe)(char *buf, size_t size);
    /* End the guest, with shimk's exit code; returns on failure. */
    void (*shutdown)(int code);
    /*
     * End the guest as rebooted (Xen: SHUTDOWN_reboot, which the
     * domain's on_reboot turns into a new boot), on the toolstack's
     * request; returns on failure.
     */
    void (*reboot)(void);
};

extern struct hypervisor_ops hypervisor_ops;

/*
 * The L0 flush may be switched off after boot (tlbbench compares modes)
 * but never on again: the TLB clock went off with it and stays off.
 */
extern bool assist_enabled;

static inline bool hypervisor_has_flush_tlb(void)
{
    return hypervisor_ops.flush_tlb != NULL && assist_enabled;
}

/*
 * The only way to the flush hook: NULL-checked, off once assist_enabled
 * is cleared, and where assisted-flush-fault= (guest/flush-fault.h)
 * injects its errors.
 */
int hypervisor_flush_tlb(cpumask_t *mask, const void *va, unsigned int flags);

static inline uint64_t hypervisor_stolen_ns(unsigned int cpu, bool *now)
{
    *now = false;
    return hypervisor_ops.stolen_ns ? hypervisor_ops.stolen_ns(cpu, now)
                                    : ~0ULL;
}

static inline int hypervisor_yield_to(unsigned int cpu)
{
    return hypervisor_ops.yield_to ? hypervisor_ops.yield_to(cpu)
                                   : -EOPNOTSUPP;
}

static inline int hypervisor_ap_setup(void)
{
    return hypervisor_ops.ap_setup ? hypervisor_ops.ap_setup() : 0;
}

static inline int hypervisor_send_ipi_mask(const cpumask_t *mask,
                                           unsigned int vector)
{
    if ( !hypervisor_ops.send_ipi_mask )
        return -EOPNOTSUPP;
    return hypervisor_ops.send_ipi_mask(mask, vector);
}

static inline int hypervisor_send_ipi_event(const cpumask_t *mask,
                                            unsigned int vector)
{
    if ( !hypervisor_ops.send_ipi_event )
        return -EOPNOTSUPP;
    return hypervisor_ops.send_ipi_event(mask, vector);
}

static inline void hypervisor_smp_ready(void)
{
    if ( hypervisor_ops.smp_ready )
        hypervisor_ops.smp_ready();
}

/*
 * Boot CPU, before the APs: run the backend's setup, then decide the
 * assisted-flush policy (assisted-flush=, a probe flush) and with it
 * the TLB clock.
 */
void hypervisor_setup(void);

/*
 * The boot summary's second line: the L0, its version and offers, what
 * shimk uses, and the assisted-flush decision.
 */
void hypervisor_print_line(void);

/* "assisted-flush=N (why)", for the boot policy line. */
void hypervisor_policy_text(char *buf, size_t size);

#endif /* GUEST_HYPERVISOR_OPS_H */
