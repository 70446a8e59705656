/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen: each vCPU's runstate area, read for stolen time and held-off CPUs. */

#include <guest/hypervisor-ops.h>
#include <guest/xen.h>
#include <shimk/compiler.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <asm/percpu.h>
#include <asm/smp.h>
#include <xen/sched.h>
#include <xen/vcpu.h>

/*
 * public/vcpu.h, VCPUOP_register_runstate_memory_area: Xen writes a
 * vCPU's vcpu_runstate_info at each of its context switches, to the
 * virtual address given (x86), so the area lives in the kernel image,
 * mapped the same in every address space.  Linux reads the same area
 * for steal time and for vcpu_is_preempted() (xen_vcpu_stolen,
 * arch/x86/xen/time.c, spinlock.c).  A vCPU whose state there is
 * RUNSTATE_runnable wants a CPU that Xen gives to someone else.
 */
static struct vcpu_runstate_info runstate[NR_CPUS] __aligned(64);
static bool registered[NR_CPUS];
static unsigned int failures;

int xen_runstate_cpu_setup(void)
{
    unsigned int cpu = smp_processor_id(), vcpu = this_cpu()->hv_vcpu_id;
    struct vcpu_register_runstate_memory_area area = {
        .addr.v = &runstate[cpu],
    };
    long rc;

    if ( vcpu == ~0u )
        return -EOPNOTSUPP;
    rc = xen_hypercall3(__HYPERVISOR_vcpu_op,
                        VCPUOP_register_runstate_memory_area, vcpu, &area);
    if ( rc )
    {
        /* Said once: every CPU would fail the same way. */
        if ( !failures++ )
            pr_warn("xen: VCPUOP_register_runstate_memory_area for vCPU "
                    "%u failed: %ld; no stolen time or held-off CPUs\n",
                    vcpu, rc);
        return (int)rc;
    }
    __atomic_store_n(&registered[cpu], true, __ATOMIC_RELEASE);
    return 0;
}

bool xen_runstate_registered(unsigned int cpu)
{
    return cpu < NR_CPUS && __atomic_load_n(&registered[cpu],
                                            __ATOMIC_ACQUIRE);
}

/*
 * hypervisor_ops.stolen_ns: ns runnable or offline (Linux's
 * xen_steal_clock), read until state_entry_time is the same on both
 * sides of the read: Xen may be writing the area of a vCPU another CPU
 * reads (without VMASST_TYPE_runstate_update_flag it gives no flag).
 */
uint64_t xen_stolen_ns(unsigned int cpu, bool *now)
{
    const volatile struct vcpu_runstate_info *r;
    uint64_t entry, stolen = 0;
    int state = RUNSTATE_running;

    if ( !xen_runstate_registered(cpu) )
        return ~0ULL;
    r = &runstate[cpu];
    for ( unsigned int tries = 0; tries < 16; tries++ )
    {
        entry = r->state_entry_time;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        state = r->state;
        stolen = r->time[RUNSTATE_runnable] + r->time[RUNSTATE_offline];
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if ( r->state_entry_time == entry )
            break;
    }
    *now = state == RUNSTATE_runnable;
    return stolen;
}

/*
 * hypervisor_ops.yield_to: public/sched.h, SCHEDOP_yield ("voluntarily
 * yield the CPU"): Xen 4.17 has no directed yield for HVM guests, so
 * the scheduler picks who runs, the held-off target among those ready.
 */
int xen_yield_to(unsigned int cpu)
{
    return (int)xen_hypercall2(__HYPERVISOR_sched_op, SCHEDOP_yield, NULL);
}
