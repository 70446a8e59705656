/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/kvm/kvm-pv.c: the vCPUs the PV flush may flag, and when it is used. */

#define _GNU_SOURCE     /* sched_getaffinity() */
#include <guest/kvm.h>
#include <shimk/compiler.h>

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

static struct kvm_steal_time areas[8];
static bool have_area[8];

static struct kvm_steal_time *area_of(unsigned int cpu)
{
    return cpu < 8 && have_area[cpu] ? &areas[cpu] : NULL;
}

static int setup(void **state)
{
    memset(areas, 0, sizeof(areas));
    for ( unsigned int i = 0; i < 8; i++ )
        have_area[i] = true;
    return 0;
}

/* Preempted vCPUs get FLUSH_TLB and leave the mask; running ones stay. */
static void flags_only_preempted(void **state)
{
    cpumask_t m;

    cpumask_setall(&m, 4);
    areas[1].preempted = KVM_VCPU_PREEMPTED;
    areas[3].preempted = KVM_VCPU_PREEMPTED;
    assert_int_equal(kvm_flag_preempted(&m, area_of), 2);
    assert_true(cpumask_test_cpu(0, &m));
    assert_false(cpumask_test_cpu(1, &m));
    assert_true(cpumask_test_cpu(2, &m));
    assert_false(cpumask_test_cpu(3, &m));
    assert_int_equal(areas[1].preempted,
                     KVM_VCPU_PREEMPTED | KVM_VCPU_FLUSH_TLB);
    assert_int_equal(areas[0].preempted, 0);
    assert_int_equal(areas[2].preempted, 0);
}

/* A byte the host has not marked is never touched (flush rule 18). */
static void never_sets_flush_on_running(void **state)
{
    cpumask_t m;

    cpumask_setall(&m, 8);
    areas[5].preempted = KVM_VCPU_FLUSH_TLB;    /* left over, not preempted */
    assert_int_equal(kvm_flag_preempted(&m, area_of), 0);
    assert_int_equal(cpumask_weight(&m), 8);
    for ( unsigned int i = 0; i < 8; i++ )
        assert_int_equal(areas[i].preempted, i == 5 ? KVM_VCPU_FLUSH_TLB : 0);
}

/* Already flagged and still preempted: flagging again is harmless. */
static void already_flagged(void **state)
{
    cpumask_t m;

    cpumask_clear(&m);
    cpumask_set_cpu(2, &m);
    areas[2].preempted = KVM_VCPU_PREEMPTED | KVM_VCPU_FLUSH_TLB;
    assert_int_equal(kvm_flag_preempted(&m, area_of), 1);
    assert_true(cpumask_empty(&m));
}

/* CPUs without a registered area keep their IPI. */
static void no_area_no_flag(void **state)
{
    cpumask_t m;

    have_area[1] = false;
    areas[1].preempted = KVM_VCPU_PREEMPTED;
    cpumask_clear(&m);
    cpumask_set_cpu(1, &m);
    assert_int_equal(kvm_flag_preempted(&m, area_of), 0);
    assert_true(cpumask_test_cpu(1, &m));
    assert_int_equal(areas[1].preempted, KVM_VCPU_PREEMPTED);
}

static void usable_rule(void **state)
{
    uint32_t flush = 1u << KVM_FEATURE_PV_TLB_FLUSH;
    uint32_t steal = 1u << KVM_FEATURE_STEAL_TIME;

    assert_true(kvm_pv_tlb_flush_usable(flush | steal, 0));
    assert_false(kvm_pv_tlb_flush_usable(flush, 0));
    assert_false(kvm_pv_tlb_flush_usable(steal, 0));
    /* Dedicated pCPUs: nothing to gain, as in Linux. */
    assert_false(kvm_pv_tlb_flush_usable(flush | steal,
                                         1u << KVM_HINTS_REALTIME));
}

static void feature_names(void **state)
{
    char buf[128];

    kvm_feature_names((1u << KVM_FEATURE_STEAL_TIME) |
                      (1u << KVM_FEATURE_PV_TLB_FLUSH) |
                      (1u << KVM_FEATURE_PV_SEND_IPI), buf, sizeof(buf));
    assert_string_equal(buf, "steal-time pv-tlb-flush pv-send-ipi");
    kvm_feature_names(0, buf, sizeof(buf));
    assert_string_equal(buf, "");
}

/*
 * The host side of the preempted byte, as KVM keeps it (msr.rst,
 * MSR_KVM_STEAL_TIME): when it preempts the vCPU it stores
 * KVM_VCPU_PREEMPTED; when it enters the vCPU again it exchanges the
 * byte with 0 and flushes the vCPU's TLB if KVM_VCPU_FLUSH_TLB was set.
 * KVM stores on preemption; this host exchanges, which leaves the same
 * byte and shows what it overwrote.  FLUSH_TLB there was set while the
 * vCPU ran: the guest skipped the IPI of a running vCPU, and the flush
 * it asked for is lost.
 */
struct race
{
    volatile bool stop;
    uint64_t lost, flushed, entries;
};

static void *host_vcpu(void *arg)
{
    struct race *r = arg;
    volatile uint8_t *b = &areas[0].preempted;

    while ( !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) )
    {
        uint8_t old = __atomic_exchange_n(b, KVM_VCPU_PREEMPTED,
                                          __ATOMIC_SEQ_CST);

        if ( old & KVM_VCPU_FLUSH_TLB )
            r->lost++;
        /* Preempted a while: the guest may flag it now. */
        for ( unsigned int i = 0; i < 8; i++ )
            __asm__ __volatile__("pause");
        old = __atomic_exchange_n(b, 0, __ATOMIC_SEQ_CST);
        r->entries++;
        if ( old & KVM_VCPU_FLUSH_TLB )
            r->flushed++;
        /* Running a while: the guest must send it an IPI now. */
        for ( unsigned int i = 0; i < 8; i++ )
            __asm__ __volatile__("pause");
    }
    return NULL;
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define RACE_ITERS 2000000u
#define RACE_NS    500000000ull

/*
 * The guest flags CPU 0 over and over while a host thread preempts and
 * enters it.  The window is between the guest's load of the byte and
 * its write: an entry there clears PREEMPTED, and only a
 * compare-and-swap notices.  A plain store in its place lost flushes
 * in each of 10 runs on 2 CPUs (9000 to 25000 of 2000000 calls, in
 * about 0.1 s).  Bounded by time too, so a loaded host keeps the test
 * short; it must still have seen both outcomes, or it tested nothing.
 */
static void flag_races_host_entry(void **state)
{
    struct race r = { 0 };
    pthread_t host;
    uint64_t dropped = 0, kept = 0, t0;
    unsigned int i;
    cpu_set_t cpus;

    /* Two threads time-sliced on one CPU almost never meet in the window. */
    if ( sched_getaffinity(0, sizeof(cpus), &cpus) || CPU_COUNT(&cpus) < 2 )
    {
        print_message("one CPU: the guest and host threads cannot race\n");
        skip();
    }
    assert_int_equal(pthread_create(&host, NULL, host_vcpu, &r), 0);
    t0 = now_ns();
    for ( i = 0; i < RACE_ITERS; i++ )
    {
        cpumask_t m;

        cpumask_clear(&m);
        cpumask_set_cpu(0, &m);
        if ( kvm_flag_preempted(&m, area_of) )
            dropped++;
        else
            kept++;
        if ( !(i & 1023) && now_ns() - t0 > RACE_NS )
            break;
    }
    __atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(host, NULL), 0);
    print_message("%u calls, %lu dropped, %lu kept, %lu entries, "
                  "%lu flushed, %lu lost\n", i, (unsigned long)dropped,
                  (unsigned long)kept, (unsigned long)r.entries,
                  (unsigned long)r.flushed, (unsigned long)r.lost);
    assert_true(dropped > 0 && kept > 0 && r.flushed > 0);
    assert_int_equal(r.lost, 0);
}

/* The stop bit is taken once, alone, and only where it is set. */
static void stop_flag_taken_once(void **state)
{
    struct pvclock_vcpu_time_info ti = { .flags = PVCLOCK_GUEST_STOPPED | 1 };

    (void)state;
    assert_true(kvm_take_stop_flag(&ti));
    assert_int_equal(ti.flags, 1);  /* PVCLOCK_TSC_STABLE_BIT kept */
    assert_false(kvm_take_stop_flag(&ti));
    assert_int_equal(ti.flags, 1);
    assert_false(kvm_take_stop_flag(NULL));
}

/*
 * Scales as KVM's kvm_get_time_scale(NSEC_PER_SEC, rate) writes them for
 * a few rates (computed by that algorithm): each gives its rate back.
 */
static void pvclock_scale_states_the_rate(void **state)
{
    (void)state;
    assert_int_equal(pvclock_scale_khz(4096027343u, -1), 2097138);
    assert_int_equal(pvclock_scale_khz(2147483648u, 1), 1000000);
    assert_int_equal(pvclock_scale_khz(2863311530u, -1), 3000000);
    assert_int_equal(pvclock_scale_khz(2684354560u, 2), 400000);
    /* Never written, or nonsense: no rate. */
    assert_int_equal(pvclock_scale_khz(0, 0), 0);
    assert_int_equal(pvclock_scale_khz(1, 40), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(flags_only_preempted, setup),
        cmocka_unit_test_setup(never_sets_flush_on_running, setup),
        cmocka_unit_test_setup(already_flagged, setup),
        cmocka_unit_test_setup(no_area_no_flag, setup),
        cmocka_unit_test_setup(usable_rule, setup),
        cmocka_unit_test_setup(feature_names, setup),
        cmocka_unit_test_setup(flag_races_host_entry, setup),
        cmocka_unit_test(stop_flag_taken_once),
        cmocka_unit_test(pvclock_scale_states_the_rate),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
