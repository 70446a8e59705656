/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU bring-up (ACPI MADT, INIT-SIPI-SIPI) and inter-processor interrupts. */
#ifndef ASM_SMP_H
#define ASM_SMP_H

#include <shimk/cpumask.h>
#include <shimk/types.h>
#include <asm/traps.h>

/* CPUs running the kernel now (the boot CPU counts). */
extern unsigned int nr_cpus_online;

/* cpu_info.start_state */
#define AP_STARTING     0
#define AP_RUNNING      1
#define AP_ABANDONED    2

/* The AP that smp-test-late-ap= made late on purpose (ktest smp-late-ap). */
struct late_ap_record
{
    struct cpu_info *ci;            /* its abandoned start, or NULL */
    unsigned int cpu;               /* the number it was to have */
    int stop_rc;                    /* cpu_down's result, or 0 for INIT */
    bool stopped_by_init;
    bool unstopped;                 /* smp-test-late-ap-unstopped */
};
extern struct late_ap_record smp_late_ap;
extern unsigned int smp_aps_abandoned;
/* CPUs the MADT lists as enabled (started or not). */
extern unsigned int nr_cpus_present;
/* CPUs shimk tried to start, the boot CPU included (nr-cpus= applied). */
extern unsigned int nr_cpus_wanted;
extern cpumask_t cpu_online_mask;

/* true while a CPU is being started: no IPI shorthands then. */
extern bool cpu_bringup_in_progress;

/* Whether ALLBUT may be used at all (ipi-shorthand=, every CPU up). */
extern bool ipi_shorthand_enabled;

/* APs were started by the L0's call, not INIT-SIPI (ap-start=). */
extern bool ap_start_hypercall;

/* Read the MADT and start every AP; boot CPU, after the APIC and heap. */
void smp_init(void);

/*
 * Called by panic() on the panicking CPU: stop every other CPU with an
 * NMI so the report is the last thing printed.  Bounded; returns.
 */
void smp_stop_others_for_panic(void);

/*
 * After that, in the report: each other CPU's rip, rsp and rflags where
 * the NMI stopped it, or that it did not answer.
 */
void smp_print_stopped(void);

/*
 * Where another CPU is now, for a CPU that stopped making progress (a
 * stalled join): an NMI it answers with its interrupted state and
 * returns from (SDM Vol. 3A, 6.7.1: NMIs are taken with IF clear and in
 * HLT).  Says in one line where it was, or that it did not answer
 * within wait_ms: its L0 did not run it, or NMIs were blocked there (it
 * was inside an NMI already).  True when it answered, with its RIP and
 * RFLAGS in *rip and *rflags where those are not NULL.
 */
bool smp_say_where(unsigned int cpu, unsigned int wait_ms, uint64_t *rip,
                   uint64_t *rflags);

/* --- IPIs (arch/x86/ipi.c) --- */

/*
 * Handlers for IPI vectors: they run with interrupts off; the
 * dispatcher counts the receipt and sends the EOI after fn returns.
 */
void set_ipi_handler(unsigned int vector, vector_handler_t fn);

/*
 * Run vector's IPI handler as if it had arrived, without the APIC's
 * EOI: for IPIs that came another way (Xen's event-channel upcall,
 * which ends itself with one EOI).
 */
struct cpu_regs;
void ipi_deliver(unsigned int vector, struct cpu_regs *regs);

/* IPIs to other CPUs by the L0's events where it has them (ipi.c). */
extern bool ipi_by_event;

void send_ipi_cpu(unsigned int cpu, unsigned int vector);
void send_ipi_self(unsigned int vector);

/*
 * IPI every CPU in mask (self included if set).  Uses the ALLBUT
 * shorthand when allbut_eligible() says so, else one ICR write per
 * target.
 */
void send_ipi_mask(const cpumask_t *mask, unsigned int vector);

/*
 * Run fn(arg) on every online CPU in mask (the caller too, if set) and
 * wait for all; interrupts on, process context (arch/x86/smp-call.c).
 */
void smp_call_mask(const cpumask_t *mask, void (*fn)(void *), void *arg);
void smp_call_init(void);
void flush_smp_init(void);

/* NMI to one CPU (panic stop, diagnostics). */
void send_nmi_cpu(unsigned int cpu);

/*
 * The ALLBUT rule (pure; unit-tested), after Xen's send_IPI_mask() and
 * its fixes 5500d265a2, d079cc0587, 4d901aa67a, 171c52fba5: only when
 * shorthands are allowed, no CPU is coming up or going down, every
 * present CPU is online, the caller is not in interrupt context, more
 * than one CPU is online, and mask plus self is exactly the online set.
 */
bool allbut_eligible(const cpumask_t *mask, unsigned int self,
                     const cpumask_t *online, unsigned int nr_present,
                     bool shorthand_enabled, bool bringup, bool in_irq);

/* Per-vector IPI counters (vectors FIRST_IPI_VECTOR..0xff). */
#define NR_IPI_COUNTERS 16
struct ipi_counters
{
    uint64_t icr_writes[NR_IPI_COUNTERS];   /* ICR writes by this CPU */
    uint64_t targets[NR_IPI_COUNTERS];      /* destinations addressed */
    uint64_t shorthand[NR_IPI_COUNTERS];    /* of which ALLBUT/ALL/SELF */
    uint64_t pv_sends[NR_IPI_COUNTERS];     /* PV IPI hypercalls made */
    uint64_t received[NR_IPI_COUNTERS];     /* IPIs this CPU took */
};

#endif /* ASM_SMP_H */
