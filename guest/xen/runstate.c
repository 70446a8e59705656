/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen: each vCPU's runstate area, and yielding to a descheduled target. */

#include <guest/pv-yield.h>
#include <guest/xen.h>
#include <shimk/errno.h>
#include <shimk/heap.h>
#include <shimk/printk.h>
#include <asm/percpu.h>
#include <asm/smp.h>
#include <xen/sched.h>
#include <xen/vcpu.h>

/*
 * VCPUOP_register_runstate_memory_area (public/vcpu.h, op 5): Xen
 * writes the vCPU's runstate into guest memory at every change, so any
 * CPU can read whether another is running, runnable (descheduled while
 * it wants to run: what Linux's xen_vcpu_stolen() tests) or blocked,
 * without an exit.  x86 registers a virtual address; shimk's kernel
 * half is mapped alike in every root, so Xen's copy works whatever
 * space the vCPU was in.  Registered by each vCPU for itself, as
 * Linux's xen_setup_runstate_info() does.
 */
static struct vcpu_runstate_info *area[NR_CPUS];

int xen_runstate_register(void)
{
    struct vcpu_register_runstate_memory_area reg;
    struct vcpu_runstate_info *rs;
    unsigned int vcpu = this_cpu()->hv_vcpu_id;
    long rc;

    if ( vcpu == ~0u )
        rc = -ENODEV;
    else if ( !(rs = kzalloc(sizeof(*rs))) )
        rc = -ENOMEM;
    else
    {
        reg.addr.v = rs;
        rc = xen_hypercall3(__HYPERVISOR_vcpu_op,
                            VCPUOP_register_runstate_memory_area, vcpu, &reg);
        if ( !rc )
        {
            area[smp_processor_id()] = rs;
            return 0;
        }
        kfree(rs);
    }
    /* A CPU without an area reads as running: never yielded to. */
    pr_warn("xen: CPU%u: no runstate area (%ld): waits for it never yield\n",
            smp_processor_id(), rc);
    return (int)rc;
}

bool xen_runstate_in_use(void)
{
    return area[0] != NULL;
}

static bool target_runnable(unsigned int cpu)
{
    struct vcpu_runstate_info *rs = area[cpu];

    return rs && __atomic_load_n(&rs->state, __ATOMIC_RELAXED) ==
                     RUNSTATE_runnable;
}

/*
 * SCHEDOP_yield (public/sched.h) is undirected: Xen runs whichever of
 * its runnable vCPUs is next on this pCPU, which under overcommit is
 * often the target (Linux's xen_smp_send_call_function_ipi yields the
 * same way, "xen: yield to IPI target if necessary").
 */
bool xen_wait_yield(const cpumask_t *pending, uint64_t spins)
{
    if ( pv_yield_pick(pending, target_runnable) < 0 )
        return false;
    xen_hypercall2(__HYPERVISOR_sched_op, SCHEDOP_yield, NULL);
    return true;
}
