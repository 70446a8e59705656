/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: every CPU up and running threads, IPI delivery and its cost. */

#include <shimk/heap.h>
#include <shimk/ktest.h>
#include <shimk/printk.h>
#include <shimk/sched.h>
#include <shimk/sort.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/desc.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/regs.h>
#include <asm/smp.h>
#include <asm/traps.h>

#define WAIT_MS 1000

static unsigned int slot(unsigned int vector)
{
    return vector - FIRST_IPI_VECTOR;
}

static uint64_t received(unsigned int cpu, unsigned int vector)
{
    return READ_ONCE(cpu_infos[cpu]->ipi.received[slot(vector)]);
}

/* Wait, bounded, until cpu has taken want IPIs on vector. */
static bool wait_received(unsigned int cpu, unsigned int vector,
                          uint64_t want)
{
    uint64_t start = rdtsc(), bound = ms_to_cycles(WAIT_MS);

    while ( received(cpu, vector) < want )
    {
        if ( rdtsc() - start > bound )
            return false;
        cpu_relax();
    }
    return true;
}

/* Ping-pong: the responder answers TEST_VECTOR with TEST_VECTOR2. */
static volatile unsigned int pp_initiator;
static volatile bool pp_pong;

static void test_ipi(struct cpu_regs *regs)
{
    if ( smp_processor_id() != pp_initiator )
        send_ipi_cpu(pp_initiator, TEST_VECTOR2);
}

static void test_ipi2(struct cpu_regs *regs)
{
    WRITE_ONCE(pp_pong, true);
}

static void claim_vectors(void)
{
    static bool done;

    if ( done )
        return;
    set_ipi_handler(TEST_VECTOR, test_ipi);
    set_ipi_handler(TEST_VECTOR2, test_ipi2);
    done = true;
}

/*
 * Counting tests send TEST_VECTOR, which makes a target answer on
 * TEST_VECTOR2; the counts below look at TEST_VECTOR only.
 */

struct where
{
    unsigned int cpu;
    uint32_t apic_id;
    volatile bool ran;
};

static void report_cpu(void *arg)
{
    struct where *w = arg;

    w->cpu = smp_processor_id();
    w->apic_id = apic_id();
    WRITE_ONCE(w->ran, true);
}

KTEST(smp, every_madt_cpu_online_running_a_thread)
{
    struct where *w = kzalloc(NR_CPUS * sizeof(*w));
    struct thread *th[NR_CPUS];
    unsigned int cpu, n = 0;

    KT_ASSERTF(t, nr_cpus_online == nr_cpus_wanted,
               "%u of %u CPUs came up", nr_cpus_online, nr_cpus_wanted);
    KT_EQ(t, cpumask_weight(&cpu_online_mask), nr_cpus_online);
    for_each_cpu ( cpu, &cpu_online_mask )
        th[cpu] = thread_create("where", report_cpu, &w[cpu], cpu, false);
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        KT_ASSERTF(t, !thread_join(th[cpu], WAIT_MS),
                   "thread on CPU%u did not finish", cpu);
        KT_ASSERT(t, w[cpu].ran);
        KT_EQ(t, w[cpu].cpu, cpu);
        KT_EQ(t, w[cpu].apic_id, cpu_infos[cpu]->apic_id);
        n++;
    }
    ktest_note("%u CPUs each ran a thread", n);
    kfree(w);
}

static volatile bool spin_go, spin_stop;

/* A CPU that makes no progress, interrupts off, until told to stop. */
static __attribute__((noinline)) void spin_cli(void *arg)
{
    unsigned long f = local_irq_save();

    (void)arg;
    WRITE_ONCE(spin_go, true);
    while ( !READ_ONCE(spin_stop) )
        cpu_relax();
    local_irq_restore(f);
}

/*
 * A stalled join asks the stalled CPU where it is (smp_say_where()):
 * an NMI that must reach a CPU spinning with interrupts off, come back
 * with a RIP inside the spin, and return to it, the spin going on.
 */
KTEST(smp, a_stalled_cpu_says_where_it_is)
{
    unsigned int cpu = smp_processor_id() ? 0 : 1;
    uint64_t rip = 0, rflags = ~0ull, start;
    struct thread *th;
    bool answered, again;

    if ( nr_cpus_online < 2 )
        KT_SKIP(t, "one CPU: nobody to ask");
    spin_go = spin_stop = false;
    th = thread_create("spin-cli", spin_cli, NULL, cpu, false);
    start = rdtsc();
    while ( !READ_ONCE(spin_go) && rdtsc() - start < ms_to_cycles(WAIT_MS) )
        cpu_relax();
    KT_ASSERTF(t, READ_ONCE(spin_go), "CPU%u never started its spin", cpu);
    answered = smp_say_where(cpu, WAIT_MS, &rip, &rflags);
    /* Returned from the NMI: it answers a second time, still spinning. */
    again = answered && smp_say_where(cpu, WAIT_MS, NULL, NULL);
    WRITE_ONCE(spin_stop, true);
    KT_ASSERTF(t, !thread_join(th, WAIT_MS), "CPU%u's spin did not end "
               "after its NMIs", cpu);
    KT_ASSERTF(t, answered, "CPU%u did not answer an NMI in %u ms", cpu,
               WAIT_MS);
    KT_ASSERTF(t, rip >= (uint64_t)spin_cli &&
                      rip < (uint64_t)spin_cli + 256,
               "CPU%u answered at %#lx, not in its spin at %p", cpu,
               (unsigned long)rip, spin_cli);
    KT_ASSERTF(t, !(rflags & X86_EFLAGS_IF), "CPU%u answered with "
               "interrupts on (rflags %#lx)", cpu, (unsigned long)rflags);
    KT_ASSERTF(t, again, "CPU%u answered once, not twice", cpu);
    ktest_note("CPU%u, spinning with interrupts off, answered two NMIs at "
               "%#lx", cpu, (unsigned long)rip);
}

static volatile unsigned int order[8], pos;

static void step(void *arg)
{
    for ( unsigned int i = 0; i < 4; i++ )
    {
        order[pos++] = (unsigned int)(uintptr_t)arg;
        yield();
    }
}

KTEST(smp, threads_yield_and_join)
{
    struct thread *a, *b;

    pos = 0;
    a = thread_create("a", step, (void *)1, smp_processor_id(), false);
    b = thread_create("b", step, (void *)2, smp_processor_id(), false);
    KT_ASSERT(t, !thread_join(a, WAIT_MS));
    KT_ASSERT(t, !thread_join(b, WAIT_MS));
    KT_EQ(t, pos, 8);
    /* FIFO queue, yield after each step: the two threads alternate. */
    for ( unsigned int i = 0; i < 8; i++ )
        KT_ASSERTF(t, order[i] == (i % 2 ? 2u : 1u), "step %u ran %u", i,
                   order[i]);
}

KTEST(ipi, unicast_exact_counts)
{
    const unsigned int k = 20;
    unsigned int self = smp_processor_id(), cpu;

    if ( nr_cpus_online < 2 )
        KT_SKIP(t, "one CPU");
    claim_vectors();
    pp_initiator = self;
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        uint64_t before;

        if ( cpu == self )
            continue;
        before = received(cpu, TEST_VECTOR);
        /* One at a time: a second IPI sent before the first is taken
         * would merge with it in the IRR. */
        for ( unsigned int i = 1; i <= k; i++ )
        {
            send_ipi_cpu(cpu, TEST_VECTOR);
            KT_ASSERTF(t, wait_received(cpu, TEST_VECTOR, before + i),
                       "CPU%u took %lu of %u IPIs", cpu,
                       (unsigned long)(received(cpu, TEST_VECTOR) - before),
                       i);
        }
        KT_EQ(t, received(cpu, TEST_VECTOR), before + k);
    }
}

/* Send to mask, wait, and check each CPU took exactly its share. */
static const char *mask_round(const cpumask_t *mask, uint64_t *shorthands)
{
    static char why[96];
    uint64_t before[NR_CPUS];
    unsigned int cpu, self = smp_processor_id();
    uint64_t sh = this_cpu()->ipi.shorthand[slot(TEST_VECTOR)];

    for_each_cpu ( cpu, &cpu_online_mask )
        before[cpu] = received(cpu, TEST_VECTOR);
    send_ipi_mask(mask, TEST_VECTOR);
    for_each_cpu ( cpu, &cpu_online_mask )
    {
        uint64_t want = before[cpu] + cpumask_test_cpu(cpu, mask);

        if ( !wait_received(cpu, TEST_VECTOR, want) )
        {
            ksnprintf(why, sizeof(why), "CPU%u never took its IPI", cpu);
            return why;
        }
    }
    /* Let a stray duplicate land before counting. */
    udelay(1000);
    for_each_cpu ( cpu, &cpu_online_mask )
        if ( received(cpu, TEST_VECTOR) !=
             before[cpu] + cpumask_test_cpu(cpu, mask) )
        {
            ksnprintf(why, sizeof(why), "CPU%u took %lu IPIs, want %u%s",
                      cpu,
                      (unsigned long)(received(cpu, TEST_VECTOR) -
                                      before[cpu]),
                      cpumask_test_cpu(cpu, mask) ? 1 : 0,
                      cpu == self ? " (self)" : "");
            return why;
        }
    *shorthands = this_cpu()->ipi.shorthand[slot(TEST_VECTOR)] - sh;
    return NULL;
}

KTEST(ipi, mask_exact_counts)
{
    unsigned int cpu, self = smp_processor_id();
    uint64_t sh;
    const char *why;
    cpumask_t m;

    if ( nr_cpus_online < 2 )
        KT_SKIP(t, "one CPU");
    claim_vectors();
    pp_initiator = self;
    /* Every other CPU, self excluded: never the ALLBUT shape with > 2. */
    cpumask_clear(&m);
    for_each_cpu ( cpu, &cpu_online_mask )
        if ( cpu != self && cpu % 2 )
            cpumask_set_cpu(cpu, &m);
    why = mask_round(&m, &sh);
    KT_ASSERTF(t, !why, "%s", why);
    if ( nr_cpus_online > 2 )
        KT_EQ(t, sh, 0);
}

KTEST(ipi, allbut_exact_counts)
{
    unsigned int self = smp_processor_id();
    uint64_t sh;
    const char *why;
    cpumask_t m;

    if ( nr_cpus_online < 2 )
        KT_SKIP(t, "one CPU");
    claim_vectors();
    pp_initiator = self;
    cpumask_copy(&m, &cpu_online_mask);
    cpumask_clear_cpu(self, &m);
    why = mask_round(&m, &sh);
    KT_ASSERTF(t, !why, "%s", why);
    /*
     * The shorthand is used exactly when it is allowed, and IPIs go by
     * the APIC, not by the L0's events (Xen's xen-ipi=).
     */
    KT_EQ(t, sh, ipi_shorthand_enabled && !ipi_by_event ? 1 : 0);
    ktest_note("all-but-self sent with %s",
               sh ? "the ALLBUT shorthand"
               : ipi_by_event ? "one event-channel send per CPU"
                              : "one ICR write per CPU");
}

KTEST(ipi, self_and_mask_with_self)
{
    unsigned int self = smp_processor_id();
    uint64_t sh;
    const char *why;
    cpumask_t m;

    claim_vectors();
    pp_initiator = self;
    cpumask_clear(&m);
    cpumask_set_cpu(self, &m);
    why = mask_round(&m, &sh);
    KT_ASSERTF(t, !why, "%s", why);
    /* Everyone including self: ALLBUT plus a self IPI, or unicasts. */
    cpumask_copy(&m, &cpu_online_mask);
    why = mask_round(&m, &sh);
    KT_ASSERTF(t, !why, "%s", why);
}

KTEST(ipi, ping_pong_round_trip)
{
    const unsigned int n = 1000;
    uint64_t *lat = kmalloc(n * sizeof(*lat));
    unsigned int self = smp_processor_id();
    unsigned int peer = cpumask_next(&cpu_online_mask, self + 1);

    if ( peer >= NR_CPUS )
        peer = cpumask_first(&cpu_online_mask);
    if ( peer == self )
    {
        kfree(lat);
        KT_SKIP(t, "one CPU");
    }
    claim_vectors();
    pp_initiator = self;
    for ( unsigned int i = 0; i < n; i++ )
    {
        uint64_t start, bound = ms_to_cycles(WAIT_MS);

        WRITE_ONCE(pp_pong, false);
        start = rdtsc_ordered();
        send_ipi_cpu(peer, TEST_VECTOR);
        while ( !READ_ONCE(pp_pong) )
        {
            if ( rdtsc() - start > bound )
            {
                kfree(lat);
                KT_ASSERTF(t, false, "no pong from CPU%u (round %u)", peer, i);
            }
            cpu_relax();
        }
        lat[i] = rdtsc_ordered() - start;
    }
    sort_u64(lat, n);
    ktest_note("IPI round trip CPU%u->CPU%u->CPU%u (%s): p50 %lu p99 %lu "
               "cycles (p50 %lu ns), n=%u", self, peer, self,
               x2apic_enabled ? "x2APIC" : "xAPIC",
               (unsigned long)percentile_sorted(lat, n, 50),
               (unsigned long)percentile_sorted(lat, n, 99),
               (unsigned long)cycles_to_ns(percentile_sorted(lat, n, 50)), n);
    kfree(lat);
}

/*
 * An L0 that re-injects a completed delivery (docs/tlbbench.md, the xl
 * triple fault) makes the vector arrive again at its own stub, IF clear:
 * do_trap() must leave that one to the outer delivery, no handler run
 * and no EOI, and count it.
 */
KTEST(ipi, a_second_delivery_at_its_own_stub_is_dropped)
{
    extern const char trap_stubs[];
    struct cpu_regs r;
    unsigned int self = smp_processor_id();
    uint64_t taken, count, dups;
    unsigned long f;

    claim_vectors();
    memset(&r, 0, sizeof(r));
    r.vector = TEST_VECTOR;
    r.rip = (uint64_t)trap_stubs + TEST_VECTOR * 16;
    r.cs = KERNEL_CS;
    r.rflags = 0x2;             /* IF clear, as the outer delivery left it */
    f = local_irq_save();
    taken = received(self, TEST_VECTOR);
    count = masked_irqs.count;
    dups = masked_irqs.duplicates;
    do_trap(&r);
    KT_EQ(t, received(self, TEST_VECTOR), taken);
    KT_EQ(t, masked_irqs.count, count + 1);
    KT_EQ(t, masked_irqs.duplicates, dups + 1);
    /* Not the L0's: keep it out of the end-of-run warning. */
    masked_irqs.count = count;
    masked_irqs.duplicates = dups;
    local_irq_restore(f);
}

/*
 * Not part of ktest=all: needs smp-test-late-ap=N (and a short
 * ap-start-timeout-ms=), which makes the AP that would be CPU N claim
 * its start a second after the BSP gave up on it.  Once that second is
 * over, the late AP must have halted without touching anything: CPU N
 * belongs to the next AP, and the online count is the number that came
 * in time.  Before the start claim, a late AP ran ap_entry() with a
 * number already given to the next AP, on its run queue.
 */
KTEST_FLAGS(smp_late_ap, a_late_ap_is_stopped_for_good, KTEST_EXPLICIT)
{
    const struct late_ap_record *l = &smp_late_ap;
    uint64_t start = rdtsc();
    unsigned int cpu = l->cpu;

    if ( !l->ci )
        KT_SKIP(t, "no AP was made late (smp-test-late-ap=N, more than N "
                "CPUs)");
    /* Bounded: the delay ends at test_delay_until, plus a margin. */
    while ( rdtsc() < l->ci->test_delay_until + ms_to_cycles(500) &&
            rdtsc() - start < ms_to_cycles(60000) )
        thread_sleep_us(10000);
    KT_EQ(t, READ_ONCE(l->ci->start_state), AP_ABANDONED);
    KT_ASSERT(t, !READ_ONCE(l->ci->alive));
    KT_EQ(t, smp_aps_abandoned, 1);
    KT_EQ(t, nr_cpus_online, nr_cpus_wanted - 1);
    KT_EQ(t, cpumask_weight(&cpu_online_mask), nr_cpus_online);
    KT_ASSERTF(t, l->unstopped || l->stopped_by_init || l->stop_rc == 0,
               "the L0's stop call failed: %d", l->stop_rc);
    if ( cpu < nr_cpus_online )
    {
        /* The next AP took the number and runs on it. */
        KT_ASSERT(t, cpu_infos[cpu] != l->ci);
        KT_EQ(t, READ_ONCE(cpu_infos[cpu]->start_state), AP_RUNNING);
        KT_ASSERT(t, cpumask_test_cpu(cpu, &cpu_online_mask));
    }
    else
        KT_ASSERT(t, cpu_infos[cpu] == NULL);
}
