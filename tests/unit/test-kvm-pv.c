/* SPDX-License-Identifier: GPL-2.0-only */
/* guest/kvm/kvm-pv.c: the vCPUs the PV flush may flag, and when it is used. */

#include <guest/kvm.h>
#include <shimk/compiler.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

/* A byte the host has not marked is never touched (checklist item 18). */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(flags_only_preempted, setup),
        cmocka_unit_test_setup(never_sets_flush_on_running, setup),
        cmocka_unit_test_setup(already_flagged, setup),
        cmocka_unit_test_setup(no_area_no_flag, setup),
        cmocka_unit_test_setup(usable_rule, setup),
        cmocka_unit_test_setup(feature_names, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
