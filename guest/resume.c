/* SPDX-License-Identifier: GPL-2.0-only */
/* After the L0 ran the guest on from a saved state: each CPU's resume. */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/processor.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/smp.h>

/*
 * A restore or a migration runs the guest on an L0 that kept only what
 * its save format carries.  KVM's QEMU carries the MSRs that name a
 * guest's shared areas (steal time, kvmclock) and so they usually
 * survive; Xen carries nothing a guest registered.  Either way shimk
 * registers every area again and reads it back (the hook), and then
 * flushes the whole TLB once: translations the old host's TLB held
 * never reach the new one, but a flush request lost in the move would
 * otherwise leave a stale entry for ever (the detector's check).
 */
int hypervisor_resume_cpu(void)
{
    int rc = hypervisor_ops.resume ? hypervisor_ops.resume() : 0;

    flush_area_local(NULL, FLUSH_TLB_GLOBAL);
    return rc;
}

/*
 * A new host may run the TSC and the APIC timer at other rates (no TSC
 * scaling there, another APIC timer), and every bound of shimk's counts
 * cycles of the boot's rate.  So both are asked again, as at boot: the
 * TSC from the boot's source (a rate the L0 states must be the same, a
 * measured one must agree within both bounds), then the APIC timer
 * measured against it where one-shot counts use its rate.  A changed
 * rate is taken and said.  Under TSC-deadline the APIC's rate is not
 * used, and measuring it would cost up to 570 ms with interrupts off.
 */
void resume_clocks(void)
{
    int tsc = tsc_recheck();
    unsigned long f;

    if ( apic_timer_tsc_deadline )
    {
        pr_info("apic: resume: timer not measured again: TSC-deadline mode "
                "counts TSC cycles%s\n",
                tsc > 0 ? " (at the new rate)" : "");
        return;
    }
    /* One CPU's timer, measured and written again in one go. */
    f = local_irq_save();
    apic_timer_recheck("resume");
    sched_timer_rewrite_here();
    local_irq_restore(f);
}

static unsigned int resumes[NR_CPUS];

/*
 * resume-hook=0: a negative control, never for use: a CPU that sees the
 * L0's restart signal says so and kicks the others, but runs neither
 * the hook nor the flush (docs/lifecycle.md, the nested rows).  Xen's
 * own suspend path has xen-resume=0.
 */
static bool opt_resume_hook = true;
boolean_param("resume-hook", opt_resume_hook);

/*
 * KVM says a stop per vCPU (kvmclock's flag in each vCPU's own area), so
 * each CPU does its own half at its next interrupt: nothing waits on
 * another CPU in interrupt context.  A CPU busy in one thread may take
 * no interrupt for a minute (no timer is armed with nothing else to
 * run: seen, CPU1 70 s after CPU0), so the first to see its flag kicks
 * every other CPU, which then finds its own.  The boot CPU also says
 * whether the TSC's rate moved (every bound of shimk's counts cycles of
 * the boot's).
 */
void hypervisor_restart_check(void)
{
    unsigned int cpu = smp_processor_id();
    cpumask_t others;
    int rc;

    if ( !hypervisor_ops.restarted || !hypervisor_ops.restarted() )
        return;
    resumes[cpu]++;
    rc = opt_resume_hook ? hypervisor_resume_cpu() : 0;
    cpumask_copy(&others, &cpu_online_mask);
    cpumask_clear_cpu(cpu, &others);
    if ( !cpumask_empty(&others) )
        send_ipi_mask(&others, RESCHEDULE_VECTOR);
    if ( !opt_resume_hook )
    {
        pr_warn("%s: resume: CPU%u: skipped (resume-hook=0, a negative "
                "control): the L0 ran this vCPU on from a stop, and its "
                "L0 state and TLB are left as they were (restart %u)\n",
                hypervisor_ops.name, cpu, resumes[cpu]);
        return;
    }
    printk("%s: resume: CPU%u: the L0 stopped this vCPU and ran it on; "
           "%s, whole TLB flushed (resume %u)\n",
           hypervisor_ops.name, cpu,
           rc ? "its L0 state could not all be registered again (above)"
              : "its L0 state registered again and read back",
           resumes[cpu]);
    if ( !cpu )
        resume_clocks();
}
