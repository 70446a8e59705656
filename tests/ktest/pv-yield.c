/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: a shootdown yields to the targets its L0 holds off, and ends. */

#include <guest/hypervisor-ops.h>
#include <shimk/ktest.h>
#include <shimk/sched.h>
#include <shimk/time.h>
#include <asm/flush-yield.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * Every other CPU spins, runnable and never halting, while this one
 * shoots them down by IPI (FLUSH_NO_ASSIST: the wait is the point), in
 * blocks with pv-yield off and on in turn, so the two are compared in
 * the same boot and placement.  An overcommitted L0 must hold some
 * targets off; its own account (KVM's steal time, Xen's runstate) says
 * how long.  The blocks with it off must not yield; where the L0 held a
 * target off for a quarter of the run, the blocks with it on must have
 * yielded; where it held none off there was nothing to yield to, and
 * the test says so and skips.  A refused yield is a failure either way.
 * The time ratio is reported, not judged: it is the L0's scheduling.
 */
#define PV_YIELD_BLOCKS 8
#define PV_YIELD_BLOCK_FLUSHES 25
#define PV_YIELD_MS 4000

static volatile bool spin_stop;

static void spinner(void *arg)
{
    (void)arg;
    while ( !READ_ONCE(spin_stop) )
        cpu_relax();
}

KTEST(pv_yield, a_flush_yields_to_a_target_the_l0_holds_off)
{
    struct thread *th[NR_CPUS] = { NULL };
    uint64_t stolen0[NR_CPUS], most = 0, start, ns, cyc[2] = { 0, 0 };
    uint64_t yields[2] = { 0, 0 }, refused = 0;
    unsigned int flushes[2] = { 0, 0 };
    cpumask_t others;
    unsigned int cpu, b, most_cpu = 0, joined_bad = 0;
    bool now;

    if ( !flush_pv_yield_enabled() )
        KT_SKIP(t, "pv-yield=0");
    if ( !hypervisor_ops.yield_to )
        KT_SKIP(t, "the L0 (%s) offers no yield, or not its held-off "
                "state", hypervisor_ops.name);
    cpumask_copy(&others, &cpu_online_mask);
    cpumask_clear_cpu(smp_processor_id(), &others);
    if ( cpumask_empty(&others) )
        KT_SKIP(t, "one CPU: no target");
    for_each_cpu ( cpu, &others )
    {
        stolen0[cpu] = hypervisor_stolen_ns(cpu, &now);
        if ( stolen0[cpu] == ~0ULL )
            KT_SKIP(t, "the L0 does not say CPU%u's stolen time", cpu);
    }
    WRITE_ONCE(spin_stop, false);
    for_each_cpu ( cpu, &others )
        th[cpu] = thread_create("pv-yield", spinner, NULL, cpu, false);
    start = rdtsc();
    for ( b = 0; b < PV_YIELD_BLOCKS &&
                 rdtsc() - start < ms_to_cycles(PV_YIELD_MS); b++ )
    {
        unsigned int on = b & 1;
        struct flush_counters c0, c1;
        uint64_t t0;

        flush_pv_yield_set(on);
        flush_counters_total(&c0);
        t0 = rdtsc();
        for ( unsigned int i = 0; i < PV_YIELD_BLOCK_FLUSHES; i++ )
            flush_area_mask(&others, NULL, FLUSH_TLB | FLUSH_NO_ASSIST);
        cyc[on] += rdtsc() - t0;
        flush_counters_total(&c1);
        flushes[on] += PV_YIELD_BLOCK_FLUSHES;
        yields[on] += c1.yields - c0.yields;
        refused += c1.yield_failed - c0.yield_failed;
    }
    flush_pv_yield_set(true);
    ns = cycles_to_ns(rdtsc() - start);
    WRITE_ONCE(spin_stop, true);
    for_each_cpu ( cpu, &others )
    {
        uint64_t s = hypervisor_stolen_ns(cpu, &now) - stolen0[cpu];

        if ( th[cpu] && thread_join(th[cpu], WAIT_BOUND_MS) )
            joined_bad++;
        if ( s > most )
        {
            most = s;
            most_cpu = cpu;
        }
    }
    ktest_note("%u flushes with pv-yield on, %u off, in %lu ms; the L0 "
               "held CPU%u off %lu ms (its stolen time, the most of any "
               "target); %lu yields, %lu refused; time per flush on/off "
               "%lu/1000", flushes[1], flushes[0],
               (unsigned long)(ns / 1000000), most_cpu,
               (unsigned long)(most / 1000000), (unsigned long)yields[1],
               (unsigned long)refused,
               (unsigned long)(flushes[1] && flushes[0] && cyc[0]
                                   ? cyc[1] * flushes[0] * 1000 /
                                         (cyc[0] * flushes[1])
                                   : 0));
    KT_EQ(t, joined_bad, 0);
    KT_EQ(t, refused, 0);
    KT_EQ(t, yields[0], 0);
    if ( most * 4 < ns )
        KT_SKIP(t, "the L0 held no target off for a quarter of the run: "
                "nothing to yield to (not overcommitted?)");
    KT_ASSERTF(t, flushes[1] && yields[1] > 0, "no yield in %u waits while "
               "the L0 held CPU%u off %lu ms", flushes[1], most_cpu,
               (unsigned long)(most / 1000000));
}
