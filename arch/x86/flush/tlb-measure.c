/* SPDX-License-Identifier: GPL-2.0-only */
/* Timing the flush primitives (measured policy, tlbbench calibration). */

#include <guest/hypervisor.h>
#include <guest/hypervisor-ops.h>
#include <shimk/printk.h>
#include <shimk/sort.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/cpuid.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <asm/tlb-measure.h>

#define MAX_ITERS 512

/* Run op iters times, interrupts off, and return the median. */
static uint64_t median_of(void (*op)(void), unsigned int iters)
{
    uint64_t t[MAX_ITERS];
    unsigned long f;

    if ( iters > MAX_ITERS )
        iters = MAX_ITERS;
    f = local_irq_save();
    op();   /* warm up: caches, first-exit costs */
    for ( unsigned int i = 0; i < iters; i++ )
    {
        uint64_t start = rdtsc_ordered();

        op();
        t[i] = rdtsc_ordered() - start;
    }
    local_irq_restore(f);
    sort_u64(t, iters);
    return percentile_sorted(t, iters, 50);
}

static void op_invlpg(void)
{
    invlpg((const void *)op_invlpg);
}

static void op_cr3(void)
{
    write_cr3(read_cr3());
}

static void op_pge(void)
{
    unsigned long cr4 = this_cpu()->cr4;

    write_cr4(cr4 ^ X86_CR4_PGE);
    write_cr4(cr4);
}

static void op_invpcid(void)
{
    struct
    {
        uint64_t pcid, addr;
    } desc = { 0, 0 };

    __asm__ __volatile__("invpcid %0, %1" :: "m"(desc), "r"(2ul) : "memory");
}

static void op_assist(void)
{
    cpumask_t none;

    cpumask_clear(&none);
    hypervisor_flush_tlb(&none, NULL, FLUSH_TLB);
}

uint64_t measure_invlpg(unsigned int iters)
{
    return median_of(op_invlpg, iters);
}

uint64_t measure_cr3_reload(unsigned int iters)
{
    return median_of(op_cr3, iters);
}

uint64_t measure_pge_toggle(unsigned int iters)
{
    return boot_cpu.pge ? median_of(op_pge, iters) : 0;
}

uint64_t measure_invpcid_all(unsigned int iters)
{
    return boot_cpu.invpcid ? median_of(op_invpcid, iters) : 0;
}

uint64_t measure_hypercall(unsigned int iters)
{
    /* The backend's null call: Xen's xen_version, else a CPUID exit. */
    if ( hypervisor_ops.null_call )
        return median_of(hypervisor_ops.null_call, iters);
    return 0;
}

uint64_t measure_assisted_flush(unsigned int iters)
{
    return hypervisor_has_flush_tlb() ? median_of(op_assist, iters) : 0;
}

static volatile bool self_ipi_seen;

static void measure_ipi_handler(struct cpu_regs *regs)
{
    WRITE_ONCE(self_ipi_seen, true);
}

static void claim_vector(void)
{
    static bool claimed;

    if ( !claimed )
    {
        set_ipi_handler(MEASURE_VECTOR, measure_ipi_handler);
        claimed = true;
    }
}

/* The median of the n samples that arrived; a lost IPI is said, not timed. */
static uint64_t ipi_median(const char *what, uint64_t *t, unsigned int n,
                           unsigned int iters)
{
    if ( n < iters )
        pr_warn("tlb-measure: %s: %u of %u IPIs not seen within 100 ms\n",
                what, iters - n, iters);
    if ( !n )
        return 0;
    sort_u64(t, n);
    return percentile_sorted(t, n, 50);
}

uint64_t measure_self_ipi(unsigned int iters)
{
    uint64_t t[MAX_ITERS];
    unsigned int n = 0;
    unsigned long f;

    claim_vector();
    if ( iters > MAX_ITERS )
        iters = MAX_ITERS;
    f = local_irq_save();
    for ( unsigned int i = 0; i < iters; i++ )
    {
        uint64_t start = rdtsc_ordered(), bound = ms_to_cycles(100);

        WRITE_ONCE(self_ipi_seen, false);
        send_ipi_self(MEASURE_VECTOR);
        /* Take it here, and only here. */
        local_irq_enable();
        while ( !READ_ONCE(self_ipi_seen) && rdtsc() - start < bound )
            cpu_relax();
        local_irq_disable();
        if ( READ_ONCE(self_ipi_seen) )
            t[n++] = rdtsc_ordered() - start;
    }
    local_irq_restore(f);
    return ipi_median("self-IPI", t, n, iters);
}

static volatile unsigned int rt_initiator;
static volatile bool rt_pong;

static void rt_ping(struct cpu_regs *regs)
{
    send_ipi_cpu(rt_initiator, MEASURE_VECTOR2);
}

static void rt_pong_handler(struct cpu_regs *regs)
{
    WRITE_ONCE(rt_pong, true);
}

uint64_t measure_ipi_round_trip(unsigned int cpu, unsigned int iters)
{
    static bool claimed;
    uint64_t t[MAX_ITERS];
    unsigned int n = 0;

    if ( cpu >= NR_CPUS || !cpumask_test_cpu(cpu, &cpu_online_mask) ||
         cpu == smp_processor_id() )
        return 0;
    if ( !claimed )
    {
        set_ipi_handler(MEASURE_VECTOR3, rt_ping);
        set_ipi_handler(MEASURE_VECTOR2, rt_pong_handler);
        claimed = true;
    }
    if ( iters > MAX_ITERS )
        iters = MAX_ITERS;
    rt_initiator = smp_processor_id();
    for ( unsigned int i = 0; i < iters; i++ )
    {
        uint64_t start = rdtsc_ordered(), bound = ms_to_cycles(100);

        WRITE_ONCE(rt_pong, false);
        send_ipi_cpu(cpu, MEASURE_VECTOR3);
        while ( !READ_ONCE(rt_pong) && rdtsc() - start < bound )
            cpu_relax();
        if ( READ_ONCE(rt_pong) )
            t[n++] = rdtsc_ordered() - start;
    }
    return ipi_median("IPI round trip", t, n, iters);
}
