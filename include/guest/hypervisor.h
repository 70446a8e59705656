/* SPDX-License-Identifier: GPL-2.0-only */
/* Which L0 shimk runs on, found once from CPUID at boot. */
#ifndef GUEST_HYPERVISOR_H
#define GUEST_HYPERVISOR_H

#include <guest/cpuid-leaves.h>

/* Result of hypervisor_probe(); written once, on the boot CPU. */
extern struct hv_leaves hv_info;

/* Scan the CPUID hypervisor leaves; first thing at boot, CPUID only. */
void hypervisor_probe(void);

static inline enum hv_type hypervisor_type(void)
{
    return hv_info.type;
}

/*
 * Ask the L0 to end this guest with shimk's exit code
 * (docs/design.md#exit-codes); returns if there is no L0 way to do it.
 */
void hypervisor_shutdown(int code);

/* Ask the L0 to reboot this guest; returns if it has no way to. */
void hypervisor_reboot(void);

/*
 * One exit to the L0 by CPUID of its first leaf: the null call of L0s
 * that have none of their own (hypervisor_ops.null_call).
 */
void hypervisor_cpuid_exit(void);

/*
 * guest/resume.c.  This CPU's half of a resume: hypervisor_ops.resume,
 * then its whole TLB flushed (globals too).  Interrupts off.
 */
int hypervisor_resume_cpu(void);

/*
 * guest/resume.c, on the boot CPU after a resume: the TSC's rate and
 * the APIC timer's asked again, a changed one taken and said.
 */
void resume_clocks(void);

/*
 * Every interrupt's exit (kernel/sched/timer.c): where the L0 says this
 * vCPU was stopped and run on (hypervisor_ops.restarted), its resume,
 * said on the console; the first CPU to see it kicks the others.
 */
void hypervisor_restart_check(void);

#endif /* GUEST_HYPERVISOR_H */
