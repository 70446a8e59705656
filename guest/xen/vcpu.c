/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen: start an AP with VCPUOP_initialise and VCPUOP_up, no INIT or SIPI. */

#include <guest/xen.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/string.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <xen/hvm/hvm_vcpu.h>
#include <xen/vcpu.h>

/*
 * Xen pauses a vCPU that sends an INIT or STARTUP IPI until a tasklet
 * has delivered it (vlapic_ipi() in Xen 4.17), and credit2 can strand
 * the paused BSP after the unpause (docs/smp.md, "AP start-up under Xen").
 * VCPUOP_initialise loads the AP's registers from a vcpu_hvm_context
 * (public/hvm/hvm_vcpu.h) and VCPUOP_up makes it runnable (public/
 * vcpu.h): no IPI, no pause, and no real-mode trampoline.  In
 * VCPU_HVM_MODE_64B the AP starts in long mode with flat segments, on
 * the page tables in cr3.
 */
int xen_vcpu_start(unsigned int vcpu, uint64_t rip, uint64_t rsp,
                   uint64_t arg, uint64_t cr3)
{
    static struct vcpu_hvm_context ctx;     /* one AP at a time */
    long rc;

    memset(&ctx, 0, sizeof(ctx));
    ctx.mode = VCPU_HVM_MODE_64B;
    ctx.cpu_regs.x86_64.rip = rip;
    ctx.cpu_regs.x86_64.rsp = rsp;
    ctx.cpu_regs.x86_64.rdi = arg;
    ctx.cpu_regs.x86_64.rflags = 0x2;           /* IF clear */
    ctx.cpu_regs.x86_64.cr0 = read_cr0();
    ctx.cpu_regs.x86_64.cr3 = cr3;
    ctx.cpu_regs.x86_64.cr4 = X86_CR4_PAE;      /* the AP sets the rest */
    ctx.cpu_regs.x86_64.efer = rdmsr(MSR_EFER) & (EFER_LME | EFER_LMA |
                                                  EFER_NXE);

    rc = xen_hypercall3(__HYPERVISOR_vcpu_op, VCPUOP_initialise, vcpu, &ctx);
    if ( rc )
    {
        pr_warn("xen: VCPUOP_initialise of vCPU %u failed: %ld\n", vcpu, rc);
        return (int)rc;
    }
    rc = xen_hypercall3(__HYPERVISOR_vcpu_op, VCPUOP_up, vcpu, NULL);
    if ( rc )
        pr_warn("xen: VCPUOP_up of vCPU %u failed: %ld\n", vcpu, rc);
    return (int)rc;
}

/*
 * public/vcpu.h: VCPUOP_down makes a vCPU non-runnable; for another vCPU
 * it is asynchronous (it may return before the vCPU stops).  shimk's
 * start protocol does not rely on that: a late AP finds its start
 * abandoned and halts by itself (arch/x86/smp.c); this only spares the
 * L0 a vCPU spinning for nothing.
 */
int xen_vcpu_stop(unsigned int vcpu)
{
    long rc = xen_hypercall3(__HYPERVISOR_vcpu_op, VCPUOP_down, vcpu, NULL);

    if ( rc )
        pr_warn("xen: VCPUOP_down of vCPU %u failed: %ld\n", vcpu, rc);
    return (int)rc;
}
