/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM PV rules: feature names, PV TLB flush decisions (pure; unit-tested). */
/* Modelled in tests/model/shootdown.pml (docs/model.md): change both. */

#include <guest/kvm.h>
#include <shimk/printk.h>

void kvm_feature_names(uint32_t features, char *buf, size_t size)
{
    static const struct
    {
        unsigned int bit;
        const char *name;
    } names[] = {
        { 0, "clocksource" },       { 3, "clocksource2" },
        { 4, "async-pf" },          { KVM_FEATURE_STEAL_TIME, "steal-time" },
        { KVM_FEATURE_PV_EOI, "pv-eoi" },
        { KVM_FEATURE_PV_UNHALT, "pv-unhalt" },
        { KVM_FEATURE_PV_TLB_FLUSH, "pv-tlb-flush" },
        { KVM_FEATURE_PV_SEND_IPI, "pv-send-ipi" },
        { KVM_FEATURE_POLL_CONTROL, "poll-control" },
        { KVM_FEATURE_PV_SCHED_YIELD, "pv-sched-yield" },
    };
    size_t n = 0;

    buf[0] = '\0';
    for ( unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++ )
        if ( (features >> names[i].bit) & 1 && n < size )
            n += ksnprintf(buf + n, size - n, "%s%s", n ? " " : "",
                           names[i].name);
}

bool kvm_pv_tlb_flush_usable(uint32_t features, uint32_t hints)
{
    /*
     * Needs the steal-time area to find preempted vCPUs; pointless when
     * the host promises dedicated CPUs (KVM_HINTS_REALTIME).
     */
    return (features >> KVM_FEATURE_PV_TLB_FLUSH) & 1 &&
           (features >> KVM_FEATURE_STEAL_TIME) & 1 &&
           !((hints >> KVM_HINTS_REALTIME) & 1);
}

bool kvm_take_stop_flag(struct pvclock_vcpu_time_info *ti)
{
    uint8_t was;

    if ( !ti )
        return false;
    /*
     * One atomic read-and-clear of the stop bit alone: KVM rewrites the
     * other flags at each clock update, and a stop it sets between a
     * load and a store of ours must not be lost.
     */
    was = __atomic_fetch_and(&ti->flags, (uint8_t)~PVCLOCK_GUEST_STOPPED,
                             __ATOMIC_ACQ_REL);
    return was & PVCLOCK_GUEST_STOPPED;
}

unsigned int kvm_flag_preempted(cpumask_t *mask,
                                struct kvm_steal_time *(*area_of)(unsigned int))
{
    unsigned int cpu, dropped = 0;

    for_each_cpu ( cpu, mask )
    {
        struct kvm_steal_time *st = area_of(cpu);
        uint8_t state;

        if ( !st )
            continue;
        state = __atomic_load_n(&st->preempted, __ATOMIC_ACQUIRE);
        /*
         * Only a byte the host marked PREEMPTED: the host clears it on
         * entry after flushing, so a vCPU that ran meanwhile makes the
         * compare-and-swap fail and keeps its IPI.
         */
        if ( !(state & KVM_VCPU_PREEMPTED) )
            continue;
        if ( __atomic_compare_exchange_n(&st->preempted, &state,
                                         state | KVM_VCPU_FLUSH_TLB, false,
                                         __ATOMIC_SEQ_CST,
                                         __ATOMIC_RELAXED) )
        {
            cpumask_clear_cpu(cpu, mask);
            dropped++;
        }
    }
    return dropped;
}

uint64_t pvclock_scale_khz(uint32_t mul, int8_t shift)
{
    uint64_t khz;

    if ( !mul || shift > 31 || shift < -31 )
        return 0;
    khz = (1000000ull << 32) / mul;
    return shift < 0 ? khz << -shift : khz >> shift;
}
