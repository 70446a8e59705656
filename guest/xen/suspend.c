/* SPDX-License-Identifier: GPL-2.0-only */
/* Xen's cooperative suspend: park the CPUs, suspend, re-establish L0 state. */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <guest/xen.h>
#include <guest/xenstore.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <asm/apic.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/sched.h>

/*
 * What `xl save`, `xl restore` and `xl migrate` need of a PVH guest
 * (xen/include/public/sched.h, SCHEDOP_shutdown): the guest acknowledges
 * the toolstack's "suspend" and calls SCHEDOP_shutdown with
 * SHUTDOWN_suspend on vCPU 0.  The call returns 0 once Xen runs the
 * domain again as a new domain (a restore or the end of a migration),
 * and 1 when the toolstack cancelled and resumed the old one
 * (libxc's xc_domain_resume() writes 1 into vCPU 0's RAX): then nothing
 * was lost.
 *
 * A new domain keeps the guest's memory and CPU state, and nothing that
 * the guest registered with Xen: the shared info mapping, every
 * vcpu_info and runstate area, every event channel and the upcall
 * vectors are gone, and the console's and xenstore's rings have new
 * ports.  So, as Linux does with stop_machine() around its
 * xen_suspend(), every other CPU is parked first, in an interrupt with
 * interrupts off, holding no lock that a resume needs; the boot CPU
 * suspends, and on return each CPU re-registers what is its own.
 * Every TLB is flushed once (the new domain may run on other pCPUs
 * whose TLBs never saw these mappings, and an L0 gives no promise about
 * them across a restore).
 */

/* A suspend can take as long as the save of the memory and its restore. */
#define PARK_MS 600000

/*
 * xen-resume=0: a negative control, never for use: the resume hook is
 * skipped, so what it re-establishes is left as the old domain had it,
 * but for the console, which must show what then breaks
 * (docs/lifecycle.md).
 */
static bool opt_xen_resume = true;
boolean_param("xen-resume", opt_xen_resume);

static unsigned int parked, resumed;
static bool released, cancelled;

/*
 * hypervisor_ops.resume under Xen, on each CPU but the boot CPU (which
 * does its own first, with shared info): vcpu_info and runstate area,
 * the upcall vector and this CPU's IPI ports.
 */
int xen_resume_cpu(void)
{
    xen_runstate_cpu_setup();
    if ( xen_evtchn_ipi_usable() )
        xen_evtchn_cpu_setup();
    return 0;
}

/*
 * Cycles since *start, never negative: across a restore or a migration
 * the TSC may come back a little behind what a CPU read before (seen
 * on the same host under Xen 4.17's emulated TSC), and an unsigned
 * difference would then read as centuries.  *start follows it back.
 */
static uint64_t since(uint64_t *start)
{
    uint64_t now = rdtsc();

    if ( (int64_t)(now - *start) < 0 )
        *start = now;
    return now - *start;
}

static bool wait_count(unsigned int *count, unsigned int want, uint64_t ms)
{
    uint64_t start = rdtsc();
    unsigned int spins = 0;

    while ( __atomic_load_n(count, __ATOMIC_ACQUIRE) < want )
    {
        if ( !(++spins % SPIN_CLOCK_TURNS) && since(&start) > ms_to_cycles(ms) )
            return false;
        cpu_relax();
    }
    return true;
}

/* The other CPUs, in CALL_VECTOR's handler: interrupts off. */
static void park(void)
{
    uint64_t start = rdtsc();
    unsigned int spins = 0;

    __atomic_add_fetch(&parked, 1, __ATOMIC_ACQ_REL);
    while ( !__atomic_load_n(&released, __ATOMIC_ACQUIRE) )
    {
        if ( !(++spins % SPIN_CLOCK_TURNS) &&
             since(&start) > ms_to_cycles(PARK_MS) )
            panic("xen: suspend: CPU%u parked for %u ms, the boot CPU "
                  "never released it",
                  smp_processor_id(), PARK_MS);
        cpu_relax();
    }
    if ( !__atomic_load_n(&cancelled, __ATOMIC_ACQUIRE) )
        hypervisor_resume_cpu();
    __atomic_add_fetch(&resumed, 1, __ATOMIC_ACQ_REL);
}

static int suspend_rc;
static bool told; /* a cancelled suspend could say so */

/*
 * libxc tells a cancelled suspend by writing 1 into vCPU 0's RAX, but
 * for an HVM or PVH guest only when its HVM_PARAM_CALLBACK_IRQ is set
 * (xc_resume.c, modify_returncode(): "HVM guests without PV drivers
 * have no return code to modify"); otherwise a checkpoint (xl save -c)
 * would read as a new domain.  shimk takes its events by per-vCPU
 * vectors, so the parameter is set only across the call, to the
 * upcall's own vector, with every CPU's interrupts off: whatever Xen
 * raises meanwhile meets the upcall handler, which exists once shared
 * info is mapped.
 */
static bool set_callback(uint64_t via)
{
    struct xen_hvm_param p = {
        .domid = DOMID_SELF,
        .index = HVM_PARAM_CALLBACK_IRQ,
        .value = via,
    };

    return !xen_hypercall2(__HYPERVISOR_hvm_op, HVMOP_set_param, &p);
}

static void suspend_on_each(void *arg)
{
    unsigned int others = nr_cpus_online - 1;
    struct sched_shutdown s = { .reason = SHUTDOWN_suspend };
    unsigned long flags;
    bool via;
    long rc;

    if ( smp_processor_id() )
    {
        park();
        return;
    }
    flags = local_irq_save();
    if ( !wait_count(&parked, others, WAIT_BOUND_MS) )
    {
        /* Not all parked: suspending now could lose one mid-change. */
        suspend_rc = -ETIMEDOUT;
        __atomic_store_n(&cancelled, true, __ATOMIC_RELEASE);
        __atomic_store_n(&released, true, __ATOMIC_RELEASE);
        local_irq_restore(flags);
        return;
    }
    via = xen_evtchn_mapped() &&
          set_callback((uint64_t)HVM_PARAM_CALLBACK_TYPE_VECTOR << 56 |
                       XEN_UPCALL_VECTOR);
    rc = xen_hypercall2(__HYPERVISOR_sched_op, SCHEDOP_shutdown, &s);
    if ( via )
        set_callback(0);
    told = via;
    if ( rc < 0 )
        suspend_rc = (int)rc;
    else
        suspend_rc = rc ? 0 : 1;
    /* The negative control: as if nothing had been lost. */
    __atomic_store_n(&cancelled, suspend_rc != 1 || !opt_xen_resume,
                     __ATOMIC_RELEASE);
    /* Even the negative control keeps its console, to be read. */
    if ( suspend_rc == 1 && !opt_xen_resume )
        xen_console_resume();
    if ( suspend_rc == 1 && opt_xen_resume )
    {
        /* Shared info and the boot CPU's own areas before anyone's. */
        xen_runstate_cpu_setup();
        if ( xen_evtchn_resume() )
            pr_warn("xen: resume: event channels not re-established: IPIs "
                    "go by the APIC\n");
        flush_area_local(NULL, FLUSH_TLB_GLOBAL);
        xen_console_resume();
    }
    __atomic_store_n(&released, true, __ATOMIC_RELEASE);
    if ( !wait_count(&resumed, others, WAIT_BOUND_MS) )
        panic("xen: resume: %u of %u CPUs re-established their state "
              "within %u ms",
              __atomic_load_n(&resumed, __ATOMIC_ACQUIRE), others,
              WAIT_BOUND_MS);
    local_irq_restore(flags);
}

int xen_suspend(void)
{
    uint64_t khz = tsc_khz, start;

    if ( smp_processor_id() )
        return -EINVAL; /* libxc resumes vCPU 0's call only */
    parked = resumed = 0;
    released = cancelled = false;
    suspend_rc = -EIO;
    start = rdtsc();
    smp_call_mask(&cpu_online_mask, suspend_on_each, NULL);
    if ( suspend_rc < 0 )
    {
        pr_warn("xen: suspend: not done (%s)\n", errno_name(suspend_rc));
        return suspend_rc;
    }
    if ( suspend_rc == 0 )
    {
        pr_info("xen: suspend: cancelled by the toolstack after %ld ms; the "
                "domain goes on with its state intact\n",
                (long)((int64_t)(rdtsc() - start) / (int64_t)(khz ?: 1)));
        return 0;
    }
    if ( !opt_xen_resume )
    {
        pr_warn("xen: resume: in a new domain, and xen-resume=0 skips the "
                "resume hook: shared info, vcpu_info, runstate areas, event "
                "channels and xenstore stay as the old domain had them, only "
                "the console is re-established (a negative control)\n");
        return 1;
    }
    if ( !told )
        pr_warn("xen: resume: no upcall vector to tell a cancelled suspend "
                "by (xen-ipi=apic): taken as a new domain\n");
    if ( xs_resume() )
        pr_warn("xen: resume: no xenstore: the control client stops\n");
    pr_info("xen: resume: in a new domain after %ld ms of this domain's "
            "TSC; shared info, vcpu_info, runstate areas, event channels, "
            "console and xenstore re-established on %u CPUs, every TLB "
            "flushed\n",
            (long)((int64_t)(rdtsc() - start) / (int64_t)(khz ?: 1)),
            nr_cpus_online);
    /*
     * The TSC's rate is the domain's (Xen keeps it across a migration
     * by scaling or emulation, tsc_mode), and the APIC timer's is its
     * vlapic's; both are asked again all the same (guest/resume.c).
     */
    resume_clocks();
    return 1;
}
