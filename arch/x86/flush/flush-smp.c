/* SPDX-License-Identifier: GPL-2.0-only */
/* flush_area_mask: local flush, then the L0 hook, then IPI shootdown. */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <guest/hypervisor-ops.h>
#include <shimk/cmdline.h>
#include <shimk/cpumask.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/flush-adapt.h>
#include <asm/flush-inject.h>
#include <asm/flush-yield.h>
#include <asm/flushtlb.h>
#include <asm/percpu.h>
#include <asm/processor.h>
#include <asm/smp.h>

/*
 * Shootdown without a global lock: each initiating CPU publishes its
 * request (va, flags, the targets still pending) in its own per-CPU
 * slot, marks itself in each target's flush_from mask, and sends the
 * IPIs.  A target's handler serves every initiator marked in its
 * flush_from, then clears itself from that initiator's pending mask.
 * Several CPUs can therefore flush at once, where Xen's flush_lock
 * serialized them (its lock profile showed waits of 1.45-6.1 ms in the
 * PV shim; docs/tlbbench.md#published-figures).
 *
 * Order (flush rule 16, docs/flush.md#correctness-rules): the local
 * flush comes first, before any remote work is published, so when
 * flush_area_mask() returns every CPU in mask has flushed.  The
 * initiator spins with interrupts on: two CPUs shooting each other
 * down both get served.
 */

static void invalidate_interrupt(struct cpu_regs *regs)
{
    struct cpu_info *ci = this_cpu();
    uint64_t start = rdtsc();
    unsigned int from;

    ci->flush.ipis_received++;
    for_each_cpu ( from, &ci->flush_from )
    {
        struct cpu_info *init;

        if ( !cpumask_test_and_clear_cpu(from, &ci->flush_from) )
            continue;
        init = cpu_infos[from];
        flush_area_local(init->flush_req.va, init->flush_req.flags);
        cpumask_clear_cpu(ci->cpu, &init->flush_req.pending);
    }
    ci->flush.handler_cycles += rdtsc() - start;
}

void flush_smp_init(void)
{
    set_ipi_handler(INVALIDATE_VECTOR, invalidate_interrupt);
}

/*
 * A target silent past WAIT_BOUND_MS lost the IPI or is not running: an
 * overcommitted L0 may keep a vCPU off its CPU for seconds (seen under
 * hyperv-nested at 2:1, with 5 s the whole bound).  Neither says
 * anything of shimk, so the wait sends the IPI again every WAIT_BOUND_MS
 * and gives up after ACK_STALL_ROUNDS of them, saying whether the
 * targets took any interrupt meanwhile (running with ours ignored: a
 * shimk bug) or none (stopped, or never run by the L0).
 */
#define ACK_STALL_ROUNDS 12
/*
 * A line every few rounds while the wait goes on: the environments'
 * silence bounds (60 s nested, docs/kvm-nested.md) must not end the run
 * before this wait's own verdict, which is the better evidence.
 */
#define ACK_SAY_ROUNDS 3

/* pv-yield=: yield to a target the L0 holds off (asm/flush-yield.h). */
static bool opt_pv_yield = true;
boolean_param("pv-yield", opt_pv_yield);

bool flush_pv_yield_enabled(void)
{
    return READ_ONCE(opt_pv_yield);
}

void flush_pv_yield_set(bool on)
{
    WRITE_ONCE(opt_pv_yield, on);
}

static bool held_off(unsigned int cpu)
{
    bool now;

    return hypervisor_stolen_ns(cpu, &now) != ~0ULL && now;
}

static void wait_yield(struct cpu_info *ci, unsigned int *yields,
                       unsigned int *next)
{
    int cpu;

    if ( !READ_ONCE(opt_pv_yield) || !hypervisor_ops.yield_to )
        return;
    cpu = flush_yield_pick(&ci->flush_req.pending, *yields, next, held_off);
    if ( cpu < 0 )
        return;
    (*yields)++;
    if ( hypervisor_yield_to((unsigned int)cpu) )
        ci->flush.yield_failed++;
    else
        ci->flush.yields++;
}

static void wait_acks(struct cpu_info *ci)
{
    uint64_t start = rdtsc(), bound = ms_to_cycles(WAIT_BOUND_MS);
    uint64_t round = start;
    uint32_t taken[NR_CPUS];
    unsigned int rounds = 0, cpu, spins = 0, yields = 0, next = 0;
    char who[64];

    while ( !cpumask_empty(&ci->flush_req.pending) )
    {
        cpu_relax();
        /*
         * Read the TSC rarely, as spin_lock() does: Xen emulates RDTSC
         * when the host's TSC is not invariant (QEMU TCG's is not), so
         * each read is an exit, and an exit is where the emulated L0s
         * here go wrong (docs/fault-attribution.md, "Exits are where the
         * L0 fails").  The same turns ask whether to yield.
         */
        if ( ++spins % SPIN_CLOCK_TURNS )
            continue;
        wait_yield(ci, &yields, &next);
        if ( rdtsc() - round <= bound )
            continue;
        cpumask_format(who, sizeof(who), &ci->flush_req.pending);
        if ( !rounds )
        {
            pr_warn("TLB flush: CPUs %s silent for %u ms; sending the IPI "
                    "again every %u ms\n", who, WAIT_BOUND_MS,
                    WAIT_BOUND_MS);
            for_each_cpu ( cpu, &cpu_online_mask )
                taken[cpu] = READ_ONCE(cpu_infos[cpu]->irqs_taken);
        }
        if ( rounds && rounds < ACK_STALL_ROUNDS &&
             !(rounds % ACK_SAY_ROUNDS) )
            pr_warn("TLB flush: CPUs %s still silent after %u ms (the IPI "
                    "sent %u times)\n", who, WAIT_BOUND_MS * (rounds + 1),
                    rounds + 1);
        if ( ++rounds > ACK_STALL_ROUNDS )
        {
            unsigned int moved = 0;

            for_each_cpu ( cpu, &ci->flush_req.pending )
                moved += READ_ONCE(cpu_infos[cpu]->irqs_taken) - taken[cpu];
            panic("TLB flush: CPUs %s did not acknowledge within %u ms, "
                  "the IPI sent %u times; they took %u interrupts "
                  "meanwhile (%s)", who, WAIT_BOUND_MS * ACK_STALL_ROUNDS,
                  rounds, moved,
                  moved ? "running, our request ignored"
                        : "interrupts off, or not run by the L0: where "
                          "each stopped follows");
        }
        for_each_cpu ( cpu, &ci->flush_req.pending )
        {
            ci->flush.ack_resends++;
            send_ipi_cpu(cpu, INVALIDATE_VECTOR);
        }
        round = rdtsc();
    }
    ci->flush.wait_cycles += rdtsc() - start;
}

void flush_area_mask(const cpumask_t *mask, const void *va,
                     unsigned int flags)
{
    struct cpu_info *ci = this_cpu();
    unsigned int self = ci->cpu, cpu, targets;
    enum adapt_path path = NR_ADAPT_PATHS;
    uint64_t start;
    cpumask_t remote;

    /* Injected bugs (asm/flush-inject.h) that bend the request itself. */
    if ( unlikely(tlb_inject) )
    {
        if ( tlb_injected(TLB_INJECT_WRONG_PAGE) && va &&
             (flags & FLUSH_ORDER_MASK) )
            va = tlb_inject_wrong_va(va);
        else if ( tlb_injected(TLB_INJECT_NONGLOBAL) &&
                  (flags & FLUSH_TLB_GLOBAL) )
            flags = (flags & ~FLUSH_TLB_GLOBAL) | FLUSH_TLB;
        else if ( tlb_injected(TLB_INJECT_IGNORE_NO_ASSIST) )
            flags &= ~FLUSH_NO_ASSIST;
    }

    if ( cpumask_test_cpu(self, mask) )
        flags = flush_area_local(va, flags);

    cpumask_and(&remote, mask, &cpu_online_mask);
    cpumask_clear_cpu(self, &remote);
    if ( cpumask_empty(&remote) || !(flags & ~FLUSH_ORDER_MASK) )
        return;

    /* The wait below needs other CPUs' flush IPIs to get in. */
    ASSERT(local_irq_is_enabled());
    ASSERT(!ci->irq_depth);
    /*
     * And no lock: a CPU that waits for it with interrupts off would
     * never acknowledge, and we would never release it.
     */
    if ( unlikely(ci->locks_held) )
        panic("TLB flush: CPU%u shoots down holding %u spinlock(s), the "
              "last '%s'", self, ci->locks_held,
              ci->last_lock ? ci->last_lock : "?");
    ci->flush.remote_requests++;
    start = rdtsc();

    if ( unlikely(tlb_inject) )
    {
        if ( tlb_injected(TLB_INJECT_SKIP_REMOTE) )
        {
            ci->flush.skipped_remote++;
            return;
        }
        if ( tlb_injected(TLB_INJECT_SKIP_CPU) &&
             cpumask_test_cpu(tlb_inject_cpu, &remote) )
        {
            ci->flush.skipped_remote++;
            cpumask_clear_cpu(tlb_inject_cpu, &remote);
            if ( cpumask_empty(&remote) )
                return;
        }
    }

    targets = cpumask_weight(&remote);
    if ( hypervisor_has_flush_tlb() )
    {
        if ( flush_may_assist(flags) &&
             (path = flush_adapt_choose(targets)) == ADAPT_IPI )
        {
            /* The run-time choice (asm/flush-adapt.h): IPIs are cheaper. */
            ci->flush.adapt_ipi++;
            ci->flush.adapt_ipi_targets += targets;
        }
        else if ( path == ADAPT_L0 )
        {
            int rc = hypervisor_flush_tlb(&remote, va, flags);

            if ( !rc )
            {
                ci->flush.assisted_ok++;
                goto out;
            }
            if ( rc == -EAGAIN )
                /* Part done by the L0 (KVM): the rest still in remote. */
                ci->flush.assisted_partial++;
            else if ( rc == -ETIMEDOUT )
                /* The L0 kept it past shimk's bound: IPIs do it all. */
                ci->flush.assisted_l0_late++;
            else
                /* The L0 refused this one: IPIs do the whole job. */
                ci->flush.assisted_failed++;
        }
        else
        {
            ci->flush.no_assist_forced++;
            ci->flush.no_assist_ipis += cpumask_weight(&remote);
        }
    }

    ci->flush_req.va = va;
    ci->flush_req.flags = flags;
    cpumask_copy(&ci->flush_req.pending, &remote);
    for_each_cpu ( cpu, &remote )
        cpumask_set_cpu(self, &cpu_infos[cpu]->flush_from);
    ci->flush.ipi_targets += cpumask_weight(&remote);
    send_ipi_mask(&remote, INVALIDATE_VECTOR);
    wait_acks(ci);

out:
    start = rdtsc() - start;
    ci->flush.flush_cycles += start;
    if ( path != NR_ADAPT_PATHS )
        flush_adapt_record(targets, path, start);
    tlb_clock_maybe_wrap();
}
