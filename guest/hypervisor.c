/* SPDX-License-Identifier: GPL-2.0-only */
/* Hypervisor detection and the L0-specific ways out. */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <guest/xen.h>
#include <shimk/panic.h>
#include <asm/cpufeature.h>
#include <xen/sched.h>

struct hv_leaves hv_info;

/*
 * No backend fills flush_tlb yet: every remote flush reports the L0
 * path unavailable and uses IPIs.
 */
struct hypervisor_ops hypervisor_ops = { .name = "none" };

static void real_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_leaf *r)
{
    cpuid_count(leaf, subleaf, r);
}

void hypervisor_probe(void)
{
    hv_detect(real_cpuid, boot_cpu.hypervisor, &hv_info);
    if ( hv_info.type == HV_XEN )
        xen_hypercall_init();
}

void hypervisor_shutdown(int code)
{
    (void)code;
    if ( hv_info.type != HV_XEN )
        return;
    /*
     * DESIGN.md section 6: reboot, not poweroff, which would leave a
     * dom0-less Xen halted and QEMU running; under -no-reboot QEMU
     * then exits.  The code itself has already gone to port 0xf4.
     */
    xen_shutdown(SHUTDOWN_reboot);
}
