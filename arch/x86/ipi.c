/* SPDX-License-Identifier: GPL-2.0-only */
/* Inter-processor interrupts: unicast, mask, shorthands, counters. */

#include <guest/hypervisor-ops.h>
#include <shimk/cpumask.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <asm/apic.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

static vector_handler_t ipi_handlers[NR_IPI_COUNTERS];

/*
 * IPIs to other CPUs by the L0's events (hypervisor_ops.send_ipi_event)
 * rather than the APIC: Xen's xen-ipi= decides it at boot; tlbbench and
 * the ktests switch it to measure and check both in one boot.  Mixing
 * is safe: either way runs the same handler.
 */
bool ipi_by_event;

static inline unsigned int slot(unsigned int vector)
{
    return vector - FIRST_IPI_VECTOR;
}

static void ipi_dispatch(struct cpu_regs *regs)
{
    unsigned int s = slot(regs->vector);

    this_cpu()->ipi.received[s]++;
    ipi_handlers[s](regs);
    apic_eoi();
}

void ipi_deliver(unsigned int vector, struct cpu_regs *regs)
{
    unsigned int s = slot(vector);

    this_cpu()->ipi.received[s]++;
    ipi_handlers[s](regs);
}

void set_ipi_handler(unsigned int vector, vector_handler_t fn)
{
    if ( vector < FIRST_IPI_VECTOR || vector >= FIRST_IPI_VECTOR +
                                                   NR_IPI_COUNTERS )
        panic("IPI vector %#x out of range", vector);
    ipi_handlers[slot(vector)] = fn;
    set_vector_handler(vector, ipi_dispatch);
}

static void icr(uint32_t lo, uint32_t dest)
{
    if ( apic_icr_write(lo, dest) )
        panic("apic: ICR still busy after 100 ms (IPI %#x to APIC id %u)",
              lo, dest);
}

/* The L0's event channels, where chosen (Xen): one hypercall a target. */
static bool by_event(const cpumask_t *targets, unsigned int vector)
{
    struct ipi_counters *c = &this_cpu()->ipi;

    if ( !READ_ONCE(ipi_by_event) ||
         hypervisor_send_ipi_event(targets, vector) )
        return false;
    c->pv_sends[slot(vector)] += cpumask_weight(targets);
    c->targets[slot(vector)] += cpumask_weight(targets);
    return true;
}

void send_ipi_cpu(unsigned int cpu, unsigned int vector)
{
    struct ipi_counters *c = &this_cpu()->ipi;
    cpumask_t one;

    if ( READ_ONCE(ipi_by_event) && cpu != smp_processor_id() )
    {
        cpumask_clear(&one);
        cpumask_set_cpu(cpu, &one);
        if ( by_event(&one, vector) )
            return;
    }
    icr(APIC_DM_FIXED | vector, cpu_infos[cpu]->apic_id);
    c->icr_writes[slot(vector)]++;
    c->targets[slot(vector)]++;
}

void send_ipi_self(unsigned int vector)
{
    struct ipi_counters *c = &this_cpu()->ipi;

    icr(APIC_DM_FIXED | APIC_DEST_SELF | vector, 0);
    c->icr_writes[slot(vector)]++;
    c->targets[slot(vector)]++;
    c->shorthand[slot(vector)]++;
}

void send_ipi_mask(const cpumask_t *mask, unsigned int vector)
{
    struct cpu_info *ci = this_cpu();
    unsigned int self = ci->cpu, cpu;
    unsigned long f = local_irq_save();
    cpumask_t others;

    cpumask_and(&others, mask, &cpu_online_mask);
    cpumask_clear_cpu(self, &others);
    if ( !cpumask_empty(&others) && by_event(&others, vector) )
    {
        if ( cpumask_test_cpu(self, mask) )
            send_ipi_self(vector);
    }
    else if ( allbut_eligible(mask, self, &cpu_online_mask, nr_cpus_present,
                         ipi_shorthand_enabled,
                         READ_ONCE(cpu_bringup_in_progress),
                         ci->irq_depth > 0) )
    {
        icr(APIC_DM_FIXED | APIC_DEST_ALLBUT | vector, 0);
        ci->ipi.icr_writes[slot(vector)]++;
        ci->ipi.shorthand[slot(vector)]++;
        ci->ipi.targets[slot(vector)] += nr_cpus_online - 1;
        if ( cpumask_test_cpu(self, mask) )
            send_ipi_self(vector);
    }
    else
    {
        /* Several targets: one PV hypercall beats one ICR exit each. */
        if ( cpumask_weight(&others) > 1 &&
             !hypervisor_send_ipi_mask(&others, vector) )
        {
            ci->ipi.pv_sends[slot(vector)]++;
            ci->ipi.targets[slot(vector)] += cpumask_weight(&others);
        }
        else
            for_each_cpu ( cpu, &others )
                send_ipi_cpu(cpu, vector);
        if ( cpumask_test_cpu(self, mask) )
            send_ipi_self(vector);
    }
    local_irq_restore(f);
}

void send_nmi_cpu(unsigned int cpu)
{
    apic_icr_write(APIC_DM_NMI, cpu_infos[cpu]->apic_id);
}
